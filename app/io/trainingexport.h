// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The training lab's curves as files (issue 18), the same for the window and
// the command line:
//   training_lab.json: {"task": every setting, "d_k": N, "runs": [{"scale":
//     "sqrt-dk" | "none" | "custom", "divisor": x, "loss": [...],
//     "accuracy", "grad_norm_q", "grad_norm_k", "max_weight", "entropy",
//     "saturated_wrong": one entry per step}]}
//   training_lab.csv: one row per run and step (1-based), the same columns.
// Numbers are written so that they read back exactly (formatRoundTrip).

#include "training_lab.h"

#include <string>
#include <vector>

namespace attnlab {

std::string trainingLabJson(const attn::TrainingSettings& settings,
                            const std::vector<attn::TrainingRunCurves>& runs);
std::string trainingLabCsv(const std::vector<attn::TrainingRunCurves>& runs);

// One measure of every run side by side: step, then one column per run
// named MEASURE_SCALE ("loss_sqrt-dk"). Measures are the JSON's names;
// "grad_norm" gives both gradient norms. An unknown measure gives "".
std::string trainingMeasureCsv(const std::vector<attn::TrainingRunCurves>& runs, const std::string& measure);

}  // namespace attnlab
