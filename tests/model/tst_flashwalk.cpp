// SPDX-License-Identifier: GPL-3.0-or-later
// The Tiles view's walk (flashwalk.h) on the lab's own numbers: its steps
// are core's flashAttentionSteps on the session's shown head (Q, K, V, the
// divisor and the mask the lab used), O / l at the end equals a plain-loop
// softmax of the head, the difference it reports is the one computed here;
// what a step changed against the scaled scores read directly; the walk's
// bookkeeping (first, back, step, last, play), where the step stays when the
// head or the blocks change, and the refusals of sizes the view cannot keep.
#include "attention.h"
#include "flashwalk.h"
#include "session.h"

#include <QSignalSpy>
#include <QtTest>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace attnlab;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// softmax(Q K^T / divisor) V with plain loops, causal or not.
std::vector<std::vector<double>> plainContext(const attn::AttentionResult& r)
{
    const int n = r.tokens(), dk = int(r.Q.cols()), dv = int(r.V.cols());
    std::vector<std::vector<double>> out(std::size_t(n), std::vector<double>(std::size_t(dv), 0.0));
    for (int i = 0; i < n; ++i) {
        const int keys = r.causal ? i + 1 : n;
        std::vector<double> s(static_cast<std::size_t>(keys));
        double top = -kInf;
        for (int j = 0; j < keys; ++j) {
            double dot = 0.0;
            for (int c = 0; c < dk; ++c)
                dot += r.Q(i, c) * r.K(j, c);
            s[std::size_t(j)] = dot / r.divisor;
            top = std::max(top, s[std::size_t(j)]);
        }
        double sum = 0.0;
        for (double& x : s)
            sum += (x = std::exp(x - top));
        for (int j = 0; j < keys; ++j)
            for (int c = 0; c < dv; ++c)
                out[std::size_t(i)][std::size_t(c)] += s[std::size_t(j)] / sum * r.V(j, c);
    }
    return out;
}

bool sameVector(const attn::Vector& a, const attn::Vector& b)
{
    if (a.size() != b.size())
        return false;
    for (Eigen::Index i = 0; i < a.size(); ++i)
        if (!(a(i) == b(i)))
            return false;
    return true;
}

// A head of n random tokens (no context: for the walk's size checks).
std::shared_ptr<attn::AttentionResult> randomHead(int n, int d)
{
    auto r = std::make_shared<attn::AttentionResult>();
    std::mt19937 gen(7);
    std::normal_distribution<double> normal;
    r->Q = r->K = r->V = r->context = attn::Matrix(n, d);
    for (attn::Matrix* m : {&r->Q, &r->K, &r->V})
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < d; ++j)
                (*m)(i, j) = normal(gen);
    r->scores = r->Q * r->K.transpose();
    r->divisor = std::sqrt(double(d));
    r->context.setZero();
    return r;
}

}  // namespace

class TestFlashWalk : public QObject {
    Q_OBJECT
private slots:
    void stepsAreCoresOnTheLabsNumbers_data();
    void stepsAreCoresOnTheLabsNumbers();
    void endEqualsTheLabsContext();
    void changesFollowTheScores();
    void stepBackFirstLast();
    void playStepsToTheEnd();
    void stepStaysWhereItCan();
    void blocksAreTakenUpToN();
    void refusesWhatItCannotKeep();
};

void TestFlashWalk::stepsAreCoresOnTheLabsNumbers_data()
{
    QTest::addColumn<QString>("sentence");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("queryBlocks");
    QTest::addColumn<int>("keyBlocks");
    const QString article = QStringLiteral("Life is short, eat dessert first");
    QTest::newRow("article 2x3") << article << false << 2 << 3 << 3 << 2;
    QTest::newRow("article causal 2x3") << article << true << 2 << 3 << 3 << 2;
    QTest::newRow("article 4x4 (not dividing)") << article << false << 4 << 4 << 2 << 2;
    QTest::newRow("article causal 1x1") << article << true << 1 << 1 << 6 << 6;
    QTest::newRow("long causal 5x7") << QStringLiteral(
        "the cat sat on the mat while the dog slept by the warm fire and the rain fell")
                                     << true << 5 << 7 << 4 << 3;
}

void TestFlashWalk::stepsAreCoresOnTheLabsNumbers()
{
    QFETCH(QString, sentence);
    QFETCH(bool, causal);
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(int, queryBlocks);
    QFETCH(int, keyBlocks);
    Session s;
    s.setSentence(sentence);
    s.setCausal(causal);
    QVERIFY2(s.problem().isEmpty(), qPrintable(s.problem()));
    const std::shared_ptr<const attn::AttentionResult> head = s.shownResult();
    FlashWalk walk;
    walk.setBlocks(rows, cols);
    walk.setResult(head, s.published()->labels());
    QVERIFY2(walk.ready(), qPrintable(walk.problem()));
    QCOMPARE(walk.queryBlocks(), queryBlocks);
    QCOMPARE(walk.keyBlocks(), keyBlocks);
    QCOMPARE(walk.mask(), causal ? attn::AttentionMask::causal() : attn::AttentionMask::none());

    const attn::Expected<attn::FlashRun> core =
        attn::flashAttentionSteps(head->Q, head->K, head->V, head->divisor, walk.mask(), rows, cols);
    QVERIFY(core);
    QCOMPARE(walk.stepCount(), int(core.value().steps.size()));
    QCOMPARE(walk.stepCount(), queryBlocks * keyBlocks);
    int skipped = 0;
    for (int i = 0; i < walk.stepCount(); ++i) {
        const attn::FlashStep& a = walk.step(i);
        const attn::FlashStep& b = core.value().steps[std::size_t(i)];
        QCOMPARE(a.queryFirst, b.queryFirst);
        QCOMPARE(a.queryLast, b.queryLast);
        QCOMPARE(a.keyFirst, b.keyFirst);
        QCOMPARE(a.keyLast, b.keyLast);
        QCOMPARE(a.skipped, b.skipped);
        QVERIFY(sameVector(a.m, b.m));
        QVERIFY(sameVector(a.l, b.l));
        QVERIFY(sameVector(a.rescale, b.rescale));
        QVERIFY(a.O == b.O);
        // A tile is skipped exactly when every key is after every query.
        QCOMPARE(a.skipped, causal && a.keyFirst > a.queryLast);
        skipped += a.skipped;
        QCOMPARE(walk.tileSkipped(i / keyBlocks, i % keyBlocks), a.skipped);
    }
    QVERIFY(!causal || rows > 4 || skipped > 0);
    QCOMPARE(walk.maxAbsDifference(), attn::maxAbsDifference(core.value().context, head->context));
}

void TestFlashWalk::endEqualsTheLabsContext()
{
    Session s;
    const std::shared_ptr<const attn::AttentionResult> head = s.shownResult();
    FlashWalk walk;
    walk.setResult(head, s.published()->labels());
    QVERIFY(walk.ready());
    QCOMPARE(walk.blockRows(), 2);
    QCOMPARE(walk.blockCols(), 3);
    // O / l against softmax written out here, and the difference reported
    // against the lab's context computed here.
    const std::vector<std::vector<double>> plain = plainContext(*head);
    double worst = 0.0, reported = 0.0;
    for (int i = 0; i < head->tokens(); ++i)
        for (int c = 0; c < int(head->V.cols()); ++c) {
            const double want = plain[std::size_t(i)][std::size_t(c)];
            QVERIFY2(std::abs(walk.context()(i, c) - want) <= 1e-12 * std::max(1.0, std::abs(want)),
                     qPrintable(QStringLiteral("(%1, %2)").arg(i).arg(c)));
            worst = std::max(worst, std::abs(walk.context()(i, c) - want));
            reported = std::max(reported, std::abs(walk.context()(i, c) - head->context(i, c)));
        }
    QCOMPARE(walk.maxAbsDifference(), reported);
    QVERIFY(walk.maxAbsDifference() < 1e-12);
    // The memory: n x d for Q, K, V and the context, one tile, the n x n matrix.
    const int n = 6, dk = int(head->Q.cols()), dv = int(head->V.cols());
    QCOMPARE(walk.memory().inputsAndContext, 8LL * n * (2 * dk + 2 * dv));
    QCOMPARE(walk.memory().oneTile, 8LL * (2 * 3 + 2 * (dv + 3)));
    QCOMPARE(walk.memory().scoreMatrix, 8LL * n * n);
    // The score map is the head's scaled scores.
    QCOMPARE(walk.scaledScores().rows(), n);
    QCOMPARE(walk.scaledScores()(1, 4), head->scores(1, 4) / head->divisor);
}

void TestFlashWalk::changesFollowTheScores()
{
    Session s;
    s.setCausal(true);
    const std::shared_ptr<const attn::AttentionResult> head = s.shownResult();
    FlashWalk walk;
    walk.setBlocks(2, 2);
    walk.setResult(head, s.published()->labels());
    QVERIFY(walk.ready());
    for (int k = 0; k < walk.stepCount(); ++k) {
        walk.setCurrent(k);
        const attn::FlashStep& step = walk.currentStep();
        for (int r = 0; r < step.rows(); ++r) {
            const int i = step.queryFirst + r;
            // The largest visible scaled score of row i before and in this tile, read directly.
            double before = -kInf, tile = -kInf;
            for (int j = 0; j < step.keyFirst; ++j)
                if (j <= i)
                    before = std::max(before, head->scores(i, j) / head->divisor);
            for (int j = step.keyFirst; j <= step.keyLast; ++j)
                if (j <= i)
                    tile = std::max(tile, head->scores(i, j) / head->divisor);
            const FlashWalk::RowChange& c = walk.change(r);
            QCOMPARE(c.mBefore, before);
            QCOMPARE(c.m, tile > before);
            // A row that sees a key of the tile adds to l and O; a hidden one keeps them.
            QCOMPARE(c.l, tile > -kInf);
            QCOMPARE(c.O, tile > -kInf);
            if (tile > before && before > -kInf)
                QVERIFY(step.rescale(r) < 1.0);
            else
                QCOMPARE(step.rescale(r) == 1.0, before > -kInf || tile == -kInf);
        }
    }
}

void TestFlashWalk::stepBackFirstLast()
{
    Session s;
    FlashWalk walk;
    QSignalSpy moved(&walk, &FlashWalk::currentChanged);
    walk.setResult(s.shownResult(), s.published()->labels());
    QCOMPARE(walk.stepCount(), 6);
    QCOMPARE(walk.current(), 0);
    moved.clear();
    walk.back();  // already at the first
    QCOMPARE(walk.current(), 0);
    QCOMPARE(moved.count(), 0);
    walk.stepForward();
    walk.stepForward();
    QCOMPARE(walk.current(), 2);
    QCOMPARE(walk.tileState(0, 0), FlashWalk::TileState::Done);
    QCOMPARE(walk.tileState(0, 1), FlashWalk::TileState::Done);
    QCOMPARE(walk.tileState(1, 0), FlashWalk::TileState::Current);
    QCOMPARE(walk.tileState(1, 1), FlashWalk::TileState::ToCome);
    QCOMPARE(walk.currentStep().queryFirst, 2);
    QCOMPARE(walk.currentStep().keyLast, 2);
    walk.back();
    QCOMPARE(walk.current(), 1);
    walk.last();
    QCOMPARE(walk.current(), 5);
    QVERIFY(walk.atEnd());
    walk.stepForward();
    QCOMPARE(walk.current(), 5);
    walk.first();
    QCOMPARE(walk.current(), 0);
    QCOMPARE(moved.count(), 5);
    walk.setCurrent(99);
    QCOMPARE(walk.current(), 5);
}

void TestFlashWalk::playStepsToTheEnd()
{
    Session s;
    FlashWalk walk;
    QSignalSpy playing(&walk, &FlashWalk::playingChanged);
    walk.setResult(s.shownResult(), s.published()->labels());
    walk.setCurrent(3);
    walk.play();
    QVERIFY(walk.playing());
    walk.tick();
    QCOMPARE(walk.current(), 4);
    QVERIFY(walk.playing());
    walk.tick();  // the last step ends the play
    QCOMPARE(walk.current(), 5);
    QVERIFY(!walk.playing());
    QCOMPARE(playing.count(), 2);
    // Play at the end starts from the first step; back pauses.
    walk.play();
    QCOMPARE(walk.current(), 0);
    QVERIFY(walk.playing());
    walk.tick();
    walk.back();
    QVERIFY(!walk.playing());
    QCOMPARE(walk.current(), 0);
    // The timer drives it to the end.
    walk.setInterval(1);
    walk.play();
    QTRY_VERIFY(walk.atEnd());
    QTRY_VERIFY(!walk.playing());
}

void TestFlashWalk::stepStaysWhereItCan()
{
    Session s;
    FlashWalk walk;
    walk.setResult(s.shownResult(), s.published()->labels());
    walk.setCurrent(4);  // queries 4-5, keys 0-2
    // Another draw: the same tiles, the same step.
    s.setSeed(s.inputs().config.seed + 1);
    walk.setResult(s.shownResult(), s.published()->labels());
    QCOMPARE(walk.current(), 4);
    // 3 x 2 tiles: the tile holding query 4, key 0 is (1, 0), step 3.
    walk.setBlocks(3, 2);
    QCOMPARE(walk.stepCount(), 6);
    QCOMPARE(walk.current(), 3);
    QCOMPARE(walk.currentStep().queryFirst, 3);
    QCOMPARE(walk.currentStep().keyFirst, 0);
    // A shorter sentence: within its steps.
    s.setSentence(QStringLiteral("Life is"));
    walk.setResult(s.shownResult(), s.published()->labels());
    QVERIFY(walk.ready());
    QCOMPARE(walk.stepCount(), 1);
    QCOMPARE(walk.current(), 0);
    // No head: nothing to walk, and a reason.
    walk.setResult(nullptr, {});
    QVERIFY(!walk.ready());
    QVERIFY(!walk.problem().isEmpty());
}

void TestFlashWalk::blocksAreTakenUpToN()
{
    Session s;
    s.setSentence(QStringLiteral("Life is short"));
    FlashWalk walk;
    walk.setBlocks(5, 7);
    walk.setResult(s.shownResult(), s.published()->labels());
    QCOMPARE(walk.blockRows(), 3);
    QCOMPARE(walk.blockCols(), 3);
    QCOMPARE(walk.stepCount(), 1);
    s.setSentence(QStringLiteral("Life is short, eat dessert first and then some more"));
    walk.setResult(s.shownResult(), s.published()->labels());
    QCOMPARE(walk.blockRows(), 5);
    QCOMPARE(walk.blockCols(), 7);
}

// Counted here from the definitions: ceil(n / B_r) x ceil(n / B_c) steps,
// each keeping B_r x (d_v + 3) numbers (O, m, l, rescale).
static bool fitsByHand(int n, int rows, int cols, long long dV)
{
    const long long steps = ((n + rows - 1) / rows) * ((n + cols - 1) / cols);
    return steps <= 64 * 64 && steps * rows * (dV + 3) <= 4'000'000;
}

void TestFlashWalk::refusesWhatItCannotKeep()
{
    FlashWalk walk;
    walk.setResult(randomHead(FlashWalk::kMaxTokens + 1, 4), {});
    QVERIFY(!walk.ready());
    QVERIFY2(walk.problem().contains(QStringLiteral("at most 512 tokens and this sentence has 513")),
             qPrintable(walk.problem()));
    // 1 x 1 over 100 tokens: 10000 steps; 2 x 2 makes 2500: walked, and said.
    walk.setBlocks(1, 1);
    walk.setResult(randomHead(100, 4), {});
    QVERIFY2(walk.ready(), qPrintable(walk.problem()));
    QCOMPARE(walk.blockRows(), 2);
    QCOMPARE(walk.blockCols(), 2);
    QCOMPARE(walk.stepCount(), 2500);
    QVERIFY2(walk.adjustment().contains(QStringLiteral("1 x 1 tiles would make 10000 steps")),
             qPrintable(walk.adjustment()));
    QVERIFY2(walk.adjustment().contains(QStringLiteral("walking 2 x 2")), qPrintable(walk.adjustment()));
    // Asked blocks that fit are walked as asked, with nothing to say.
    walk.setBlocks(2, 3);
    QCOMPARE(walk.blockRows(), 2);
    QCOMPARE(walk.blockCols(), 3);
    QVERIFY(walk.adjustment().isEmpty());
    // 400 tokens, d_v 500, 8 x 8: 2500 steps of 8 x 503 numbers, 10 million,
    // too many to keep; the walk grows both blocks to the smallest b that
    // fits, counted here.
    walk.setBlocks(8, 8);
    walk.setResult(randomHead(400, 500), {});
    QVERIFY2(walk.ready(), qPrintable(walk.problem()));
    int b = 8;
    while (!fitsByHand(400, b, b, 500))
        ++b;
    QVERIFY(b > 8 && !fitsByHand(400, b - 1, b - 1, 500));
    QCOMPARE(walk.blockRows(), b);
    QCOMPARE(walk.blockCols(), b);
    QCOMPARE(walk.stepCount(), ((400 + b - 1) / b) * ((400 + b - 1) / b));
    QVERIFY2(walk.adjustment().contains(QStringLiteral("walking %1 x %1").arg(b)),
             qPrintable(walk.adjustment()));
}

QTEST_GUILESS_MAIN(TestFlashWalk)
#include "tst_flashwalk.moc"
