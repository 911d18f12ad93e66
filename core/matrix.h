// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Matrix types of the engine. Tokens are rows throughout: X is (n, d_model),
// Q and K are (n, d_k), V and Z are (n, d_v), the score maps are (n, n).
// Row-major so that one token's vector is contiguous.

#include <Eigen/Core>

namespace attn {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXd;
using RowVector = Eigen::RowVectorXd;

}  // namespace attn
