// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The parameter panel's heads row: the number of heads h, their layout
// (the article's independent heads, or torch.nn.MultiheadAttention's split
// of d_model into h heads), the output projection W_o, the module's own
// initialisation, and the head shown by the single-head views. A note says
// what the layout makes of the dimensions (d_k = d_model / h when split).

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace attnlab {

class Session;

class HeadsControls : public QWidget {
    Q_OBJECT
public:
    explicit HeadsControls(Session* session, QWidget* parent = nullptr);

private:
    void syncFromSession();

    Session* session_;
    QSpinBox* heads_;
    QComboBox* layout_;
    QCheckBox* outputProjection_;
    QCheckBox* torchInit_;
    QSpinBox* selected_;
    QLabel* note_;
};

}  // namespace attnlab
