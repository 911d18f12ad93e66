// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// attention-lab --scaling-lab: the d_k lab without a window.
//
//   attention-lab --scaling-lab [--n-keys N] [--samples N] [--seed N]
//                 --export-dir OUT [--format json,csv,png,svg,pdf]
//
// Writes OUT/scaling_lab.json (arrays d_k, var_raw, var_scaled,
// var_raw_stderr, var_scaled_stderr, max_weight_raw, max_weight_scaled,
// entropy_raw, entropy_scaled, grad_norm_raw, grad_norm_scaled, and n_keys,
// samples, seed), OUT/scaling_lab.csv (the same, one row per d_k) and the
// four plots as OUT/scaling_lab_{variance,max_weight,entropy,jacobian}.EXT,
// all or nothing. Without a display the plots render offscreen. Exit status as for
// the rest of the command line: 0, 1 (files not written), 2 (bad options),
// with one line on stderr starting "attention-lab: ".

#include "labplotters.h"
#include "scaling_lab.h"
#include "stagedwrite.h"

#include <QStringList>

#include <functional>
#include <ostream>
#include <vector>

namespace attnlab {

class CommandLineParser;

// The lab as the command line asks (CommandLineParser::isScalingLab()).
// The plots are drawn by `plotter` (the window's d_k lab view, which this
// library may not include: main() passes it once it has made the GUI
// application, when scalingLabWantsPlots says so). Without one a run asking
// for plots fails with a message.
int runScalingLabCommand(const CommandLineParser& parser, const ScalingLabPlotter& plotter = {});

bool scalingLabWantsPlots(const CommandLineParser& parser);

struct ScalingLabFormats {
    bool json = true;
    bool csv = true;
    QStringList images{QStringLiteral("png")};  // "png", "svg", "pdf"
};
// "json", "csv", "png", "svg", "pdf", comma-separated in any order.
attn::Expected<ScalingLabFormats> parseScalingLabFormats(const QString& list);

void writeScalingLabJson(std::ostream& out, const attn::ScalingLabCurves& curves);
void writeScalingLabCsv(std::ostream& out, const attn::ScalingLabCurves& curves);
// The CSV columns (and JSON arrays), in order, starting with "d_k".
QStringList scalingLabColumns();

}  // namespace attnlab
