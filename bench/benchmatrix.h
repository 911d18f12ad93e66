// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The benchmarks' random inputs: a matrix of normal draws (mean 0, standard
// deviation `sd`) from a seeded mt19937, filled in storage order.

#include "matrix.h"

#include <random>

namespace bench {

inline attn::Matrix randomMatrix(std::mt19937& rng, int rows, int cols, double sd = 1.0)
{
    std::normal_distribution<double> dist(0.0, sd);
    attn::Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = dist(rng);
    return m;
}

}  // namespace bench
