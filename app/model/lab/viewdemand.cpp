// SPDX-License-Identifier: GPL-3.0-or-later
#include "viewdemand.h"

namespace attnlab {

ViewDemand::Comparison ViewDemand::comparison(bool windowShown, int tokenCount, bool compareShown,
                                              bool lessonShown)
{
    const bool onlyShownViews = windowShown || tokenCount > kEagerTokens;
    Comparison demand;
    // Computed with the result (off the GUI thread when large) only for a
    // view on screen; otherwise on first use.
    demand.computeWithResult = onlyShownViews && (compareShown || lessonShown);
    demand.updateCompareView = !onlyShownViews || compareShown;
    demand.updateLesson = !onlyShownViews || lessonShown;
    return demand;
}

bool ViewDemand::matrixTableLive(bool windowShown, bool tableShown)
{
    return !windowShown || tableShown;
}

}  // namespace attnlab
