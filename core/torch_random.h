// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// PyTorch's CPU generator, reproduced draw for draw.
//
// torch.manual_seed(s) seeds an mt19937 with s. torch.rand(shape) on float32
// takes 24 bits of one 32-bit draw per value. normal_ on a contiguous float32
// tensor of 16 or more values (what nn.Embedding's init does) first fills the
// tensor with uniforms, then turns each block of 16 into normals by
// Box-Muller (u1 = 1 - data[j], u2 = data[j + 8]); a tail that is not a
// multiple of 16 is redrawn as the last 16 values. Fewer than 16 values go
// through the serial path: at::normal_distribution<double> from 53-bit
// uniforms, caching the second Box-Muller value for the next call.

#include "matrix.h"

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace attn {

class TorchGenerator {
public:
    explicit TorchGenerator(std::uint64_t seed = 67280421310721ULL);

    void manualSeed(std::uint64_t seed);  // torch.manual_seed

    std::uint32_t random();    // one mt19937 draw
    std::uint64_t random64();  // two draws, first in the high word

    // torch.rand(count) as float32 values in [0, 1), widened exactly.
    std::vector<float> rand(std::size_t count);
    // tensor.uniform_(from, to) on float32 (what nn.init's uniform, xavier
    // and kaiming initialisers end in): from and to rounded to float, then
    // u * (to - from) + from for each 24-bit u of torch.rand, one fused
    // multiply-add in float as torch's AVX2 build computes it (a separate
    // product and sum differ in the last bit; torch_mha_cases.json holds
    // the fused numbers).
    std::vector<float> uniform(std::size_t count, double from, double to);
    // normal_(mean 0, std 1) on a contiguous float32 tensor of `count` values.
    std::vector<float> normal(std::size_t count);

    // torch.rand(rows, cols) and nn.Embedding(rows, cols).weight, row-major.
    Matrix randMatrix(int rows, int cols);
    Matrix embeddingMatrix(int rows, int cols);

private:
    double normalDouble();  // at::normal_distribution<double>(0, 1)

    std::mt19937 engine_;
    std::optional<double> nextDoubleNormal_;
};

}  // namespace attn
