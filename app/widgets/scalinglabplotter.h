// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The d_k lab command's plots (attention-lab --scaling-lab ... --format png):
// drawn by ScalingLabView, whose QCustomPlot is a widget that app/cli may not
// include. registerScalingLabPlotter() hands that drawing to the command
// (setScalingLabPlotter in scalinglabcommand.h); main() calls it once the
// QApplication exists.

namespace attnlab {

void registerScalingLabPlotter();

}  // namespace attnlab
