// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A checkpoint's tensor as every family's weights hold it (gpt2_weights.h,
// llama_weights.h): float32, row-major, where the reader put it; or, for
// the matrices of a large BF16 checkpoint of the Llama family, bfloat16
// where the reader read it (each entry the upper half of a float32: the
// products convert it as they read it, exactly, so the numbers are those of
// the tensor converted to float32 first, without the float32 copy twice the
// file's size).

#include <Eigen/Core>

#include <cstdint>
#include <cstring>

namespace attn {

// One stored tensor: `rows` x `cols` entries, row-major. A vector is one row.
struct FloatTensor {
    using Map = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
    using Rows = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

    const float* data = nullptr;
    int rows = 0;
    int cols = 0;
    // Instead of data: the entries as bfloat16.
    const std::uint16_t* bf16 = nullptr;

    // The float32 entries (not for a bfloat16 tensor).
    Map map() const { return Map(data, rows, cols); }
    bool empty() const { return data == nullptr && bf16 == nullptr; }

    // Entry (r, c) as double, exactly.
    double at(int r, int c) const
    {
        const std::size_t i = std::size_t(r) * std::size_t(cols) + std::size_t(c);
        if (data)
            return double(data[i]);
        const std::uint32_t bits = std::uint32_t(bf16[i]) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return double(f);
    }

    // Rows r0 .. r0 + count - 1 as double, exactly.
    Rows rowsAsDouble(int r0, int count) const
    {
        if (data)
            return map().middleRows(r0, count).cast<double>();
        Rows out(count, cols);
        for (int r = 0; r < count; ++r)
            for (int c = 0; c < cols; ++c)
                out(r, c) = at(r0 + r, c);
        return out;
    }
};

}  // namespace attn
