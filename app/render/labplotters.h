// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What draws the labs' plots for the command line. The d_k lab's and the
// training lab's plots are QCustomPlot widgets, which neither render nor the
// command line may include: main() makes the GUI application and hands the
// command the widgets' plotter (scalingLabPlotter(), trainingLabPlotter() in
// app/widgets). Each returns the picture files for the formats asked
// ("png", "svg", "pdf"), or an error naming the problem.

#include "scaling_lab.h"
#include "stagedwrite.h"
#include "training_lab.h"

#include <QStringList>

#include <functional>
#include <vector>

namespace attnlab {

using ScalingLabPlotter = std::function<attn::Expected<std::vector<OutputFile>>(
    const attn::ScalingLabCurves& curves, const QStringList& formats)>;
using TrainingLabPlotter = std::function<attn::Expected<std::vector<OutputFile>>(const attn::TrainingLab& lab,
                                                                                 const QStringList& formats)>;

}  // namespace attnlab
