// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The training lab command's plots (attention-lab --training-lab ... --format
// png): drawn by the Training tab's TrainingPlots, which app/cli may not
// include. main() hands this plotter to runTrainingLabCommand once the
// QApplication exists.

#include "labplotters.h"

namespace attnlab {

TrainingLabPlotter trainingLabPlotter();

}  // namespace attnlab
