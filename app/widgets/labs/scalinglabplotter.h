// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The d_k lab command's plots (attention-lab --scaling-lab ... --format png):
// drawn by ScalingLabView, whose QCustomPlot is a widget that app/cli may not
// include. main() hands this plotter to runScalingLabCommand once the
// QApplication exists.

#include "labplotters.h"

namespace attnlab {

ScalingLabPlotter scalingLabPlotter();

}  // namespace attnlab
