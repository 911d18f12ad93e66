// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// attention-lab --training-lab: the training lab without a window.
//
//   attention-lab --training-lab [--d-k N] [--steps N] [--seed N]
//                 [--optimizer adam|sgd] [--lr X] [--n-keys N] [--d-model N]
//                 [--classes N] [--batch N] [--beta X] [--divisor X]
//                 --export-dir OUT [--format json,csv,png,svg,pdf]
//
// Trains the scaled run, the unscaled run and, with --divisor, a third
// (core/training_lab.h) for the steps asked, then writes OUT/training_lab.json
// and OUT/training_lab.csv (trainingexport.h) and the plots, all or nothing.
// Exit status as for the rest of the command line: 0, 1 (files not written),
// 2 (bad options), with one line on stderr starting "attention-lab: ".

#include "expected.h"
#include "labplotters.h"
#include "stagedwrite.h"
#include "training_lab.h"

#include <QStringList>

#include <functional>
#include <vector>

namespace attnlab {

class CommandLineParser;

// The lab as the command line asks (CommandLineParser::isTrainingLab()).
// The plots are drawn by `plotter` (the window's Training tab, which this
// library may not include: main() passes it once it has made the GUI
// application, when trainingLabWantsPlots says so). It gets the finished
// lab (settings, curves, probes) and the formats. Without one, a run asking
// for plots is refused (exit 2) before anything is trained or written.
int runTrainingLabCommand(const CommandLineParser& parser, const TrainingLabPlotter& plotter = {});

bool trainingLabWantsPlots(const CommandLineParser& parser);

}  // namespace attnlab
