// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A widget whose font is its parent's, larger or bold (a title, the
// pipeline's "÷ √d_k →"), kept so as the parent's font changes: a font set
// once from the parent's keeps its first size, and presentation mode's
// larger font did not reach it.

class QWidget;

namespace attnlab {

// Sets `widget`'s font to its parent's times `factor`, bold when asked, now
// and whenever the parent's font changes.
void setRelativeFont(QWidget* widget, double factor, bool bold = false);

}  // namespace attnlab
