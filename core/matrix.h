// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Matrix types of the engine. Tokens are rows throughout: X is (n, d_model),
// Q and K are (n, d_k), V and Z are (n, d_v), the score maps are (n, n).
// Row-major so that one token's vector is contiguous.

#include <Eigen/Core>

#include <cstddef>
#include <cstring>

namespace attn {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXd;
using RowVector = Eigen::RowVectorXd;

// The same shape and the same numbers bit for bit (-0 and +0 differ, as
// results over them may). memcmp reads 11 MB in about a millisecond where
// Eigen's (a.array() == b.array()).all() took 20 ms, a scalar loop.
template <typename M>
bool sameBits(const M& a, const M& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols()
           && (a.size() == 0
               || std::memcmp(a.data(), b.data(), std::size_t(a.size()) * sizeof(typename M::Scalar)) == 0);
}

}  // namespace attn
