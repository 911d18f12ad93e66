// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The training lab command's plots (attention-lab --training-lab ... --format
// png): drawn by the Training tab's TrainingPlots, which app/cli may not
// include. registerTrainingLabPlotter() hands that drawing to the command
// (setTrainingLabPlotter in traininglabcommand.h); main() calls it once the
// QApplication exists.

namespace attnlab {

void registerTrainingLabPlotter();

}  // namespace attnlab
