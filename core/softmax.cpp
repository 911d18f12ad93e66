// SPDX-License-Identifier: GPL-3.0-or-later
#include "softmax.h"

#include "kernels.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

bool softmaxRow(const double* in, double* out, int n)
{
    // Element-wise expressions below read in[j] before writing out[j], so
    // in and out may alias.
    const Eigen::Map<const Eigen::ArrayXd> x(in, n);
    Eigen::Map<Eigen::ArrayXd> y(out, n);
    const double minusInf = -std::numeric_limits<double>::infinity();

    // Pass 1: the row maximum. Masked entries are -inf and never win.
    const double maxval = n > 0 ? x.maxCoeff() : minusInf;
    if (maxval == minusInf) {
        y.setZero();
        return false;
    }
    // Pass 2: exponentials of the shifted values (all <= 0, so nothing
    // overflows), vectorised: Eigen 3.4 has no packet path for select(), so
    // the exponentials are taken alone. Eigen's exp clamps its argument near
    // -708, so a masked entry comes out as ~1e-308 instead of 0: rows that
    // hold one (found by a vectorised minimum) get those entries set to 0.
    y = (x - maxval).exp();
    if (x.minCoeff() == minusInf)
        y = (x == minusInf).select(0.0, y);
    // Pass 3: normalise; the sum is >= 1 because the maximum gives exp(0).
    y *= 1.0 / y.sum();
    return true;
}

SoftmaxRowScale scaledSoftmaxRow(const double* in, double divisor, double* scaled, double* out, int n,
                                 SoftmaxKernel kernel)
{
    if (kernel == SoftmaxKernel::Avx2) {
        SoftmaxRowScale scale;
        kernels::softmaxRow(in, divisor, scaled, out, n, &scale.max, &scale.invSum);
        return scale;
    }
    // Eigen's packet functions (the ones its array expressions use) so that
    // the division, the maximum, the exponentials and the sum each happen in
    // one vectorised pass with the row in L1 cache.
    using namespace Eigen::internal;
    using Packet = packet_traits<double>::type;
    constexpr int kSize = int(sizeof(Packet) / sizeof(double));  // doubles per packet
    const Packet div = pset1<Packet>(divisor);
    double maxval = -std::numeric_limits<double>::infinity();
    int j = 0;
    if (n >= kSize) {
        Packet maxp = pset1<Packet>(maxval);
        for (; j + kSize <= n; j += kSize) {
            const Packet v = pdiv(ploadu<Packet>(in + j), div);
            pstoreu(scaled + j, v);
            maxp = pmax(maxp, v);
        }
        maxval = predux_max(maxp);
    }
    for (; j < n; ++j) {
        scaled[j] = in[j] / divisor;
        maxval = std::max(maxval, scaled[j]);
    }
    // The same exponentials as ArrayXd::exp() (vectorised, the tail scalar);
    // the sum may differ from softmaxRow's in the last bit (another order).
    const Packet shift = pset1<Packet>(maxval);
    double sum = 0.0;
    j = 0;
    if (n >= kSize) {
        Packet sump = pset1<Packet>(0.0);
        for (; j + kSize <= n; j += kSize) {
            const Packet e = pexp(psub(ploadu<Packet>(scaled + j), shift));
            pstoreu(out + j, e);
            sump = padd(sump, e);
        }
        sum = predux(sump);
    }
    for (; j < n; ++j) {
        out[j] = std::exp(scaled[j] - maxval);
        sum += out[j];
    }
    const double invSum = 1.0 / sum;
    Eigen::Map<Eigen::ArrayXd>(out, n) *= invSum;
    return {maxval, invSum};
}

double scaledSoftmaxEntry(double scaled, const SoftmaxRowScale& row, int j, int n, SoftmaxKernel kernel)
{
    if (kernel == SoftmaxKernel::Avx2)
        return kernels::exp(scaled - row.max) * row.invSum;
    using namespace Eigen::internal;
    using Packet = packet_traits<double>::type;
    constexpr int kSize = int(sizeof(Packet) / sizeof(double));  // doubles per packet
    // scaledSoftmaxRow takes whole packets with pexp and the tail with
    // std::exp; pexp works lane by lane, so one lane of a broadcast packet
    // is the number that lane got in the row.
    const double shifted = scaled - row.max;
    double e;
    if (j < (n / kSize) * kSize)
        e = pfirst(pexp(pset1<Packet>(shifted)));
    else
        e = std::exp(shifted);
    return e * row.invSum;
}

int softmaxRowsInPlace(Matrix& m)
{
    int fullyMasked = 0;
    const int cols = int(m.cols());
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        double* row = m.data() + i * cols;
        if (!softmaxRow(row, row, cols))
            ++fullyMasked;
    }
    return fullyMasked;
}

}  // namespace attn
