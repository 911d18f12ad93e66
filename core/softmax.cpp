#include "softmax.h"

#include <cmath>
#include <limits>

namespace attn {

bool softmaxRow(const double* in, double* out, int n)
{
    // Pass 1: the row maximum over the finite (unmasked) entries.
    double maxval = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < n; ++j)
        if (in[j] > maxval)
            maxval = in[j];
    if (maxval == -std::numeric_limits<double>::infinity()) {
        for (int j = 0; j < n; ++j)
            out[j] = 0.0;
        return false;
    }
    // Pass 2: exponentials of the shifted values; exp(-inf - max) is 0, and
    // every shifted value is <= 0, so nothing overflows.
    double sum = 0.0;
    for (int j = 0; j < n; ++j) {
        const double e = std::exp(in[j] - maxval);
        out[j] = e;
        sum += e;
    }
    // Pass 3: normalise; sum >= 1 because the maximum contributes exp(0).
    const double inv = 1.0 / sum;
    for (int j = 0; j < n; ++j)
        out[j] *= inv;
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
