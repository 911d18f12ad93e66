// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The start from matrix files: --x, --wq, --wk, --wv name .npy or .csv files
// for X (n, d_model) and W (d_model, d_out) or, with --transpose-weights,
// W (d_out, d_model) as PyTorch's nn.Linear.weight holds it.

#include "attention.h"
#include "expected.h"
#include "labfile.h"
#include "model.h"

#include <optional>
#include <string>

namespace attnlab {

enum MatrixSlot { SlotX, SlotWq, SlotWk, SlotWv };
inline constexpr const char* kMatrixOptions[4] = {"--x", "--wq", "--wk", "--wv"};

// What the command line said about matrix files.
struct MatrixFileStart {
    std::optional<std::string> paths[4];  // by MatrixSlot, as argv holds them
    bool transposeWeights = false;
    bool dimensionGiven[3] = {false, false, false};  // --d-model, --d-k, --d-v
    bool sentenceGiven = false;

    bool any() const;  // a file is given
};

// Reads the given files, takes d_model, d_k and d_v from them (unless given
// as options in `requested`), checks every shape and draws the matrices not
// given from `requested`. When X's rows do not match a --sentence given, a
// warning on stderr says so and the rows are labelled t0, t1, ...
attn::Expected<LabState> labFromMatrixFiles(const MatrixFileStart& files, const attn::ModelConfig& requested,
                                            const attn::AttentionOptions& options);

}  // namespace attnlab
