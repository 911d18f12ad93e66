// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A checkpoint's tensor as every family's weights hold it (gpt2_weights.h,
// llama_weights.h): float32, row-major, where the reader put it.

#include <Eigen/Core>

namespace attn {

// One stored tensor: `rows` x `cols` floats, row-major. A vector is one row.
struct FloatTensor {
    using Map = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

    const float* data = nullptr;
    int rows = 0;
    int cols = 0;

    Map map() const { return Map(data, rows, cols); }
    bool empty() const { return data == nullptr; }
};

}  // namespace attn
