// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The keyboard focus of a custom view: a solid frame in the highlight colour
// around the widget, two pixels wide so that it reads on every map colour and
// on a projector. Drawn on screen only, never into exported pictures.

class QPainter;
class QWidget;

namespace attnlab {

void drawFocusFrame(QPainter& painter, const QWidget& widget);

}  // namespace attnlab
