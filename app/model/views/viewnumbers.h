// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The numbers behind a picture, as CSV for a spreadsheet or NumPy
// (numpy.genfromtxt(..., delimiter=",", names=True)): every number written
// so that it reads back to the same double.
//
// cellTableCsv: one row per (query, key) cell of queries first..last, with
// both indices and tokens, then one column per value `values` gives.
// scalingLabCsv: one row per d_k of the d_k lab, the unscaled and scaled
// curves of one plot.

#include "scaling_lab.h"
#include "score_histogram.h"

#include <functional>
#include <string>
#include <vector>

namespace attnlab {

std::string cellTableCsv(const std::vector<std::string>& tokens, const std::vector<std::string>& valueNames,
                         int first, int last,
                         const std::function<std::vector<double>(int query, int key)>& values);

// One row per bin: its bounds and the counts of raw and scaled scores.
std::string scoreHistogramCsv(const attn::ScoreHistogram& histogram);

// plot: 0 variance, 1 largest weight, 2 entropy, 3 Jacobian norm.
std::string scalingLabCsv(const attn::ScalingLabCurves& curves, int plot);

}  // namespace attnlab
