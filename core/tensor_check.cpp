// SPDX-License-Identifier: GPL-3.0-or-later
#include "tensor_check.h"

namespace attn {

std::string shapeText(int rows, int cols)
{
    return "(" + std::to_string(rows) + " x " + std::to_string(cols) + ")";
}

Status checkTensor(const std::string& family, const std::string& name, const FloatTensor& t, int rows,
                   int cols)
{
    if (t.empty())
        return Error{family + " weights: the tensor " + name + " is missing."};
    if (t.rows != rows || t.cols != cols)
        return Error{family + " weights: the tensor " + name + " is " + shapeText(t.rows, t.cols)
                     + "; the config needs " + shapeText(rows, cols) + "."};
    return okStatus();
}

}  // namespace attn
