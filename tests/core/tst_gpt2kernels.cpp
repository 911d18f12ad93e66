// SPDX-License-Identifier: GPL-3.0-or-later
// The GPT-2 pass's products (core/gpt2_kernels.h) against plain loops
// written here: bit for bit against the fused multiply-add chain each entry
// is promised to be, and within rounding of a plain double loop; on shapes
// with partial row tiles, partial column tiles, partial 256-row strips and
// column blocks taken apart as the pass's threads take them.

#include "gpt2_kernels.h"
#include "kernels.h"

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

struct Operands {
    std::vector<double> a;  // (rows, depth) row-major, leading dimension depth + 3
    std::vector<float> b;   // (depth, cols) row-major, leading dimension cols + 5
    int rows, depth, cols;
    std::ptrdiff_t lda, ldb;
};

Operands randomOperands(int rows, int depth, int cols, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Operands o{{}, {}, rows, depth, cols, depth + 3, cols + 5};
    o.a.resize(std::size_t(rows) * std::size_t(o.lda));
    o.b.resize(std::size_t(depth) * std::size_t(o.ldb));
    for (double& x : o.a)
        x = u(gen);
    for (float& x : o.b)
        x = float(u(gen) * 0.1);
    return o;
}

// The promised chain: acc = fma(A(i, p), double(B(p, j)), acc), p from 0.
std::vector<double> fmaChain(const Operands& o)
{
    std::vector<double> c(std::size_t(o.rows) * std::size_t(o.cols));
    for (int i = 0; i < o.rows; ++i)
        for (int j = 0; j < o.cols; ++j) {
            double acc = 0.0;
            for (int p = 0; p < o.depth; ++p)
                acc = std::fma(o.a[std::size_t(i * o.lda + p)], double(o.b[std::size_t(p * o.ldb + j)]), acc);
            c[std::size_t(i) * std::size_t(o.cols) + std::size_t(j)] = acc;
        }
    return c;
}

// sum_p A(i, p) B(p, j) with separate multiplies and adds, and sum_p |A B|.
double plainEntry(const Operands& o, int i, int j, double* magnitude)
{
    double sum = 0.0, abs = 0.0;
    for (int p = 0; p < o.depth; ++p) {
        const double t = o.a[std::size_t(i * o.lda + p)] * double(o.b[std::size_t(p * o.ldb + j)]);
        sum += t;
        abs += std::fabs(t);
    }
    *magnitude = abs;
    return sum;
}

bool sameBits(const std::vector<double>& x, const std::vector<double>& y)
{
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

}  // namespace

class TestGpt2Kernels : public QObject {
    Q_OBJECT

private slots:
    void init();
    void productIsTheChain_data();
    void productIsTheChain();
    void columnBlocksAreTheWhole();
    void transposedIsTheChain_data();
    void transposedIsTheChain();
    void bf16TransposedIsTheFloatOne_data();
    void bf16TransposedIsTheFloatOne();
};

void TestGpt2Kernels::init()
{
    if (!attn::kernels::available())
        QSKIP("no AVX2 and FMA here: the pass takes Eigen's products");
}

void TestGpt2Kernels::productIsTheChain_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("depth");
    QTest::addColumn<int>("cols");
    QTest::addRow("1 x 1 x 1") << 1 << 1 << 1;
    QTest::addRow("7 rows (4 + 3), 8 columns, depth 5") << 7 << 5 << 8;
    QTest::addRow("32 rows (6 6 5 5 5 5), depth 768, 203 columns (25 tiles + 3)") << 32 << 768 << 203;
    QTest::addRow("13 rows, depth 517 (two strips + 5), 72 columns (64 + 8)") << 13 << 517 << 72;
    QTest::addRow("100 rows (two tile groups), depth 300, 136 columns") << 100 << 300 << 136;
    QTest::addRow("3 rows, depth 256 exactly, 7 columns (tail only)") << 3 << 256 << 7;
}

void TestGpt2Kernels::productIsTheChain()
{
    QFETCH(int, rows);
    QFETCH(int, depth);
    QFETCH(int, cols);
    const Operands o = randomOperands(rows, depth, cols, unsigned(rows * 1000 + depth + cols));
    const std::vector<double> chain = fmaChain(o);

    std::vector<double> c(chain.size(), std::nan(""));
    attn::kernels::productFloatWeights(o.a.data(), o.lda, rows, depth, o.b.data(), o.ldb, cols, c.data(),
                                       cols);
    QVERIFY(sameBits(c, chain));

    // Packed once, with a prefetch hint (the same weights): the same numbers.
    attn::kernels::PackedRows packed;
    attn::kernels::packRows(o.a.data(), o.lda, rows, depth, &packed);
    QCOMPARE(packed.rows, rows);
    QCOMPARE(packed.tiles, (rows + 5) / 6);
    std::vector<double> again(chain.size(), std::nan(""));
    attn::kernels::productFloatWeights(packed, o.b.data(), o.ldb, cols, again.data(), cols,
                                       {o.b.data(), o.ldb, depth, cols});
    QVERIFY(sameBits(again, chain));

    // Within rounding of a plain double loop: each of the depth roundings
    // at most 2^-53 of the running sum of magnitudes.
    double worst = 0.0;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            double magnitude = 0.0;
            const double plain = plainEntry(o, i, j, &magnitude);
            const double diff = std::fabs(c[std::size_t(i) * std::size_t(cols) + std::size_t(j)] - plain);
            worst = std::max(worst, diff / (magnitude * double(depth) * 0x1p-52 + 1e-300));
        }
    QVERIFY2(worst <= 1.0, qPrintable(QStringLiteral("error %1 of the rounding bound").arg(worst)));
}

void TestGpt2Kernels::columnBlocksAreTheWhole()
{
    // The pass's threads take a weight in column blocks (multiples of 64,
    // the last shorter) and gpt2Head one head's columns: each block's
    // entries are the whole product's, bit for bit.
    const int rows = 11, depth = 600, cols = 300;
    const Operands o = randomOperands(rows, depth, cols, 5u);
    attn::kernels::PackedRows packed;
    attn::kernels::packRows(o.a.data(), o.lda, rows, depth, &packed);
    std::vector<double> whole(std::size_t(rows) * cols);
    attn::kernels::productFloatWeights(packed, o.b.data(), o.ldb, cols, whole.data(), cols, {});
    QVERIFY(sameBits(whole, fmaChain(o)));
    for (const int width : {64, 128, 12, 1}) {
        std::vector<double> blocks(whole.size(), std::nan(""));
        for (int c0 = 0; c0 < cols; c0 += width)
            attn::kernels::productFloatWeights(packed, o.b.data() + c0, o.ldb, std::min(width, cols - c0),
                                               blocks.data() + c0, cols, {});
        QVERIFY2(sameBits(blocks, whole), qPrintable(QStringLiteral("blocks of %1").arg(width)));
    }
}

void TestGpt2Kernels::transposedIsTheChain_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("depth");
    QTest::addColumn<int>("count");
    QTest::addRow("1 row, depth 768, 50 outputs (12 fours + 2)") << 1 << 768 << 50;
    QTest::addRow("3 rows, depth 7 (4 + 3), 9 outputs") << 3 << 7 << 9;
    QTest::addRow("2 rows, depth 2, 3 outputs") << 2 << 2 << 3;
}

void TestGpt2Kernels::transposedIsTheChain()
{
    QFETCH(int, rows);
    QFETCH(int, depth);
    QFETCH(int, count);
    // Bt (count, depth): the operands' B read as count rows of depth.
    const Operands o = randomOperands(rows, depth, 1, 9u);
    std::vector<float> bt(std::size_t(count) * std::size_t(depth));
    std::mt19937 gen(3u);
    std::uniform_real_distribution<float> u(-0.1f, 0.1f);
    for (float& x : bt)
        x = u(gen);
    std::vector<double> expected(std::size_t(rows) * std::size_t(count));
    for (int i = 0; i < rows; ++i)
        for (int t = 0; t < count; ++t) {
            // Four chains over p = 4m + lane, (0 + 1) + (2 + 3), the tail in order.
            double lane[4] = {0.0, 0.0, 0.0, 0.0};
            int p = 0;
            for (; p + 4 <= depth; p += 4)
                for (int l = 0; l < 4; ++l)
                    lane[l] = std::fma(o.a[std::size_t(i * o.lda + p + l)],
                                       double(bt[std::size_t(t * depth + p + l)]), lane[l]);
            double sum = (lane[0] + lane[1]) + (lane[2] + lane[3]);
            for (; p < depth; ++p)
                sum = std::fma(o.a[std::size_t(i * o.lda + p)], double(bt[std::size_t(t * depth + p)]), sum);
            expected[std::size_t(i) * std::size_t(count) + std::size_t(t)] = sum;
        }
    std::vector<double> c(expected.size(), std::nan(""));
    attn::kernels::productFloatWeightsTransposed(o.a.data(), o.lda, rows, depth, bt.data(), depth, count,
                                                 c.data(), count);
    QVERIFY(sameBits(c, expected));
}

void TestGpt2Kernels::bf16TransposedIsTheFloatOne_data()
{
    transposedIsTheChain_data();
}

// Bt as bfloat16 (random bit patterns of finite values, in a row longer
// than depth): bit for bit the float32 product over the same values, each
// the pattern shifted into the upper half of a float32.
void TestGpt2Kernels::bf16TransposedIsTheFloatOne()
{
    QFETCH(int, rows);
    QFETCH(int, depth);
    QFETCH(int, count);
    const Operands o = randomOperands(rows, depth, 1, 5u);
    const int ld = depth + 3;
    std::vector<std::uint16_t> half(std::size_t(count) * std::size_t(ld));
    std::vector<float> asFloat(half.size());
    std::mt19937 gen(4u);
    for (std::size_t i = 0; i < half.size(); ++i) {
        // Sign, an exponent from 2^-20 to 2^3, any mantissa.
        const std::uint32_t sign = gen() & 1u, exponent = 107u + gen() % 24u, mantissa = gen() & 0x7Fu;
        half[i] = std::uint16_t((sign << 15) | (exponent << 7) | mantissa);
        const std::uint32_t bits = std::uint32_t(half[i]) << 16;
        std::memcpy(&asFloat[i], &bits, 4);
    }
    std::vector<double> expected(std::size_t(rows) * std::size_t(count), std::nan(""));
    std::vector<double> c(expected.size(), std::nan(""));
    attn::kernels::productFloatWeightsTransposed(o.a.data(), o.lda, rows, depth, asFloat.data(), ld, count,
                                                 expected.data(), count);
    attn::kernels::productBf16WeightsTransposed(o.a.data(), o.lda, rows, depth, half.data(), ld, count,
                                                c.data(), count);
    QVERIFY(sameBits(c, expected));
    QVERIFY(!std::isnan(c.front()));
}

QTEST_APPLESS_MAIN(TestGpt2Kernels)
#include "tst_gpt2kernels.moc"
