// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The d_k control's keyboard steps: an arrow key goes to the neighbouring
// d_k of the d_k lab's grid (attn::defaultScalingLabDks: 1, 2, 3, ... then
// about 8 an octave up to 1024); Page Up/Down double and halve d_k from any
// value, within 1 .. attn::kMaxDHead.

namespace attnlab {

class DkSteps {
public:
    // The grid's next d_k above `dK` (the last one at the top).
    static int next(int dK);
    // The grid's d_k below `dK` (the first one at the bottom).
    static int previous(int dK);
    // Twice `dK` (up) or half of it, halving rounding up: 3 -> 2 -> 1, never 0.
    static int page(int dK, bool up);
};

}  // namespace attnlab
