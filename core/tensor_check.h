// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The check every family's weights make of each tensor against its config.

#include "expected.h"
#include "float_tensor.h"

#include <string>

namespace attn {

// "(rows x cols)", as the messages write a shape.
std::string shapeText(int rows, int cols);

// Tensor `name` of `family`'s weights ("GPT-2", "Llama") present and
// rows x cols: "GPT-2 weights: the tensor wte.weight is missing." or
// "... is (3 x 4); the config needs (3 x 5)."
Status checkTensor(const std::string& family, const std::string& name, const FloatTensor& t, int rows,
                   int cols);

}  // namespace attn
