// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The rule of what is computed for the window's views. A window on screen
// keeps current only what can be seen: the views off screen skip results and
// catch up when shown. A window that is not on screen (tests, scripted use)
// keeps every view current while that is cheap, up to kEagerTokens tokens;
// beyond that only shown views, as on screen.

namespace attnlab {

class ViewDemand {
public:
    // Above this many tokens even a window off screen updates only shown views.
    static constexpr int kEagerTokens = 512;

    // What one result asks of the scaled-vs-unscaled comparison.
    struct Comparison {
        bool computeWithResult = false;  // the session computes it with each result
        bool updateCompareView = false;  // the comparison tab takes it now
        bool updateLesson = false;       // the lesson's live line takes it now
    };

    static Comparison comparison(bool windowShown, int tokenCount, bool compareShown, bool lessonShown);
    // A matrix table's model follows the session while this is true.
    static bool matrixTableLive(bool windowShown, bool tableShown);
};

}  // namespace attnlab
