// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A one-line label that ends in "…" where its text does not fit, instead of
// being cut mid-word, so that a reader sees there is more (its tooltip says
// it). text() stays the whole text.

#include <QLabel>

namespace attnlab {

class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);
    // Whether the text is wider than the label, so that it is painted elided.
    bool elided() const;

protected:
    void paintEvent(QPaintEvent* event) override;
};

}  // namespace attnlab
