// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The choices for one picture: which view, the format (PNG, SVG, PDF), the
// size in pixels (the layout) and, for PNG, the scale (the pixel density: 2
// doubles the pixels of the same layout for print); whether the focused
// query's box is drawn, shared or independent colour ranges for the score
// maps, and a font scale for slides. The window then asks where to save it.
//
// The last format, each view's last size, the scale, the font scale and the
// focus box are remembered (QSettings, group "export") when the dialog is
// accepted, and restored when it opens.

#include "attentionexport.h"
#include "viewexporter.h"

#include <QDialog>
#include <QList>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace attnlab {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    // One view the dialog offers.
    struct Choice {
        ExportView view;
        QString name;
        QSize defaultSize;
        bool showsFocus = false;      // the focus box changes it
        bool hasScoreRanges = false;  // the colour-range choice changes it
    };
    // The views ViewExporter draws (views()).
    explicit ExportDialog(QWidget* parent = nullptr);
    ExportDialog(const QList<Choice>& choices, QWidget* parent);

    ExportView view() const;
    void setView(ExportView view);  // and that view's last size
    ImageFormat format() const;
    void setFormat(ImageFormat format);
    QSize pictureSize() const;
    void setPictureSize(const QSize& size);
    qreal scale() const;
    void setScale(qreal scale);
    ExportOptions options() const;
    void setOptions(const ExportOptions& options);

    void accept() override;  // remembers the choices

private:
    void update();
    void restoreChoices();
    void saveChoices() const;
    QSize rememberedSize(ExportView view) const;

    QList<Choice> choices_;
    QComboBox* view_;
    QComboBox* format_;
    QSpinBox* width_;
    QSpinBox* height_;
    QDoubleSpinBox* scale_;
    QLabel* pixels_;
    QCheckBox* focusBox_;
    QComboBox* ranges_;
    QDoubleSpinBox* fontScale_;
};

}  // namespace attnlab
