// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A frame that can draw a rounded border in the highlight colour around what
// it holds (the lesson's current map, the d_k row in its experiment), and
// keeps the same room, transparent, when off, so that nothing moves.
//
// Painted, not a style sheet: a widget under a style sheet stops the font
// and the palette its parent hands down (presentation mode's larger font,
// the theme) from reaching its children.

#include <QFrame>

namespace attnlab {

class HighlightFrame : public QFrame {
    Q_OBJECT
public:
    // `border` pixels wide with corners of `radius`; the layout put in the
    // frame keeps its contents inside the border (contentsMargins()).
    HighlightFrame(int border, int radius, QWidget* parent = nullptr);

    bool isHighlighted() const { return highlighted_; }
    void setHighlighted(bool on);

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    int border_;
    int radius_;
    bool highlighted_ = false;
};

}  // namespace attnlab
