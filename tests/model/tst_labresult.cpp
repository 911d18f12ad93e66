// SPDX-License-Identifier: GPL-3.0-or-later
// The session's published result (labresult.h): a new object for each
// change, whose numbers never change after; the single head as h = 1; the
// one d_k its readers use. Numbers are checked against a plain-loop
// attention written here, not the engine.
#include "labresult.h"
#include "session.h"

#include <QtTest>

#include <cmath>
#include <memory>
#include <vector>

using namespace attnlab;

namespace {

// softmax((X W_q)(X W_k)^T / sqrt(d_k)) row by row, with plain loops.
std::vector<std::vector<double>> plainWeights(const attn::Matrix& X, const attn::Matrix& Wq,
                                              const attn::Matrix& Wk, bool causal)
{
    const int n = int(X.rows()), d = int(X.cols()), dk = int(Wq.cols());
    std::vector<std::vector<double>> q(n, std::vector<double>(dk)), k = q;
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < dk; ++c)
            for (int m = 0; m < d; ++m) {
                q[i][c] += X(i, m) * Wq(m, c);
                k[i][c] += X(i, m) * Wk(m, c);
            }
    std::vector<std::vector<double>> w(n, std::vector<double>(n, 0.0));
    for (int i = 0; i < n; ++i) {
        const int keys = causal ? i + 1 : n;
        double top = -INFINITY;
        for (int j = 0; j < keys; ++j) {
            double s = 0.0;
            for (int c = 0; c < dk; ++c)
                s += q[i][c] * k[j][c];
            w[i][j] = s / std::sqrt(double(dk));
            top = std::max(top, w[i][j]);
        }
        double sum = 0.0;
        for (int j = 0; j < keys; ++j)
            sum += (w[i][j] = std::exp(w[i][j] - top));
        for (int j = 0; j < keys; ++j)
            w[i][j] /= sum;
    }
    return w;
}

double largestDifference(const attn::AttentionResult& r, const std::vector<std::vector<double>>& w)
{
    double worst = r.tokens() == int(w.size()) ? 0.0 : INFINITY;
    for (int i = 0; i < r.tokens() && worst < INFINITY; ++i)
        for (int j = 0; j < r.tokens(); ++j)
            worst = std::max(worst, std::abs(r.weights(i, j) - w[i][j]));
    return worst;
}

}  // namespace

class TestLabResult : public QObject {
    Q_OBJECT
private slots:
    void eachChangePublishesANewUnchangedResult();
    void singleHeadIsHOne();
    void selectingAHeadKeepsTheHeads();
    void oneDkForEveryReader();
    void tokensAndLabelsComeWithTheResult();
};

void TestLabResult::eachChangePublishesANewUnchangedResult()
{
    Session s;
    QVERIFY2(s.problem().isEmpty(), qPrintable(s.problem()));
    const std::shared_ptr<const LabResult> first = s.published();
    QVERIFY(first->computed());
    const attn::Matrix X0 = s.inputs().matrix(MatrixId::X), Wq0 = s.inputs().matrix(MatrixId::Wq),
                       Wk0 = s.inputs().matrix(MatrixId::Wk);
    const std::vector<std::vector<double>> before = plainWeights(X0, Wq0, Wk0, s.inputs().options.causal);
    QVERIFY(largestDifference(*first->shown(), before) < 1e-12);
    const attn::Matrix firstWeights = first->shown()->weightsMatrix();

    QSignalSpy changed(&s, &Session::resultChanged);
    QVERIFY(s.setMatrixCell(MatrixId::Wq, 0, 0, Wq0(0, 0) + 1.5));
    QCOMPARE(changed.count(), 1);
    const std::shared_ptr<const LabResult> second = s.published();
    QVERIFY(second != first);
    QVERIFY(second->shown() != first->shown());
    // The first object says what it said, bit for bit; the second is the edit's.
    QVERIFY((first->shown()->weightsMatrix().array() == firstWeights.array()).all());
    QVERIFY(largestDifference(*first->shown(), before) < 1e-12);
    const std::vector<std::vector<double>> after =
        plainWeights(s.inputs().matrix(MatrixId::X), s.inputs().matrix(MatrixId::Wq),
                     s.inputs().matrix(MatrixId::Wk), s.inputs().options.causal);
    QVERIFY(largestDifference(*second->shown(), after) < 1e-12);
    QVERIFY(largestDifference(*second->shown(), before) > 1e-6);

    // An option recomputes: another new object over the same tokens.
    s.setCausal(!s.inputs().options.causal);
    const std::shared_ptr<const LabResult> third = s.published();
    QVERIFY(third != second);
    QCOMPARE(third->options().causal, s.inputs().options.causal);
    QCOMPARE(second->options().causal, !s.inputs().options.causal);
    QVERIFY(largestDifference(*third->shown(),
                              plainWeights(s.inputs().matrix(MatrixId::X), s.inputs().matrix(MatrixId::Wq),
                                           s.inputs().matrix(MatrixId::Wk), s.inputs().options.causal))
            < 1e-12);
}

void TestLabResult::singleHeadIsHOne()
{
    Session s;
    const std::shared_ptr<const LabResult> r = s.published();
    QCOMPARE(r->headCount(), 1);
    QVERIFY(!r->heads());
    QCOMPARE(r->shownHead(), 0);
    QCOMPARE(r->head(0), r->shown());
    QCOMPARE(s.published()->headCount(), 1);
}

void TestLabResult::selectingAHeadKeepsTheHeads()
{
    Session s;
    attn::HeadsConfig heads;
    heads.heads = 3;
    s.setHeadsConfig(heads);
    QVERIFY2(s.problem().isEmpty(), qPrintable(s.problem()));
    const std::shared_ptr<const LabResult> a = s.published();
    QCOMPARE(a->headCount(), 3);
    QCOMPARE(a->shownHead(), 0);
    // Each head's numbers are the plain loop's over its own weights.
    const attn::MultiHeadParams& params = s.inputs().multiHead;
    for (int h = 0; h < 3; ++h) {
        const attn::HeadWeights w = params.head(h);
        QVERIFY2(largestDifference(*a->head(h), plainWeights(s.inputs().matrix(MatrixId::X), w.Wq, w.Wk,
                                                             s.inputs().options.causal))
                     < 1e-12,
                 qPrintable(QStringLiteral("head %1").arg(h + 1)));
    }
    s.selectHead(2);
    const std::shared_ptr<const LabResult> b = s.published();
    QVERIFY(b != a);
    QCOMPARE(b->heads(), a->heads());  // nothing computed
    QCOMPARE(b->shownHead(), 2);
    QCOMPARE(b->shown().get(), &b->heads()->heads[2]);
    QCOMPARE(b->stats().scaledVariance, b->heads()->stats[2].scaledVariance);
    QCOMPARE(a->shownHead(), 0);  // the first object still shows head 1
    QCOMPARE(a->shown().get(), &a->heads()->heads[0]);
    QVERIFY(b->headsChangedSince(a->heads().get()).has_value());
    QVERIFY(b->headsChangedSince(a->heads().get())->empty());
}

void TestLabResult::oneDkForEveryReader()
{
    Session s;
    s.setDK(5);
    QVERIFY2(s.problem().isEmpty(), qPrintable(s.problem()));
    QCOMPARE(s.published()->dK(), 5);
    QCOMPARE(s.published()->dK(), 5);
    QCOMPARE(int(s.published()->shown()->Q.cols()), 5);
    // A request that cannot be computed: config() is the request, the
    // result (and its d_k) the last good one.
    s.setDK(0);
    QVERIFY(!s.problem().isEmpty());
    QCOMPARE(s.inputs().config.dK, 0);
    QCOMPARE(s.published()->dK(), 5);
    QCOMPARE(s.published()->dK(), 5);
}

void TestLabResult::tokensAndLabelsComeWithTheResult()
{
    Session s;
    s.setSentence(QStringLiteral("to be or not to be"));
    QVERIFY2(s.problem().isEmpty(), qPrintable(s.problem()));
    const std::shared_ptr<const LabResult> r = s.published();
    QCOMPARE(r->tokenCount(), int(s.inputs().matrix(MatrixId::X).rows()));
    QCOMPARE(r->tokenCount(), r->shown()->tokens());
    const QStringList expected = {QStringLiteral("to#1"), QStringLiteral("be#2"), QStringLiteral("or"),
                                  QStringLiteral("not"),  QStringLiteral("to#5"), QStringLiteral("be#6")};
    QCOMPARE(r->labels(), expected);
    // A new sentence: a new result with its tokens; the old keeps its own.
    s.setSentence(QStringLiteral("to be"));
    QCOMPARE(s.published()->tokenCount(), 2);
    QCOMPARE(r->tokenCount(), 6);
    QCOMPARE(r->labels(), expected);
}

QTEST_GUILESS_MAIN(TestLabResult)
#include "tst_labresult.moc"
