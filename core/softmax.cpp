#include "softmax.h"

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
    // overflows), vectorised. Eigen's exp clamps its argument near -708, so a
    // masked entry would come out as ~1e-308 instead of 0: select it away.
    y = (x == minusInf).select(0.0, (x - maxval).exp());
    // Pass 3: normalise; the sum is >= 1 because the maximum gives exp(0).
    y *= 1.0 / y.sum();
    return true;
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
