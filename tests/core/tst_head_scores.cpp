// SPDX-License-Identifier: GPL-3.0-or-later
// The head lab's measurements (core/head_scores.h): the four head-type
// scores on hand-worked weight matrices (each definition, and the rows that
// leave a score undefined), and on every head of GPT-2 passes (random
// weights built in memory, tests/common/plaingpt2.h) against the
// definitions written again here as plain loops over the plain float64
// pass's weights; the induction probe's generator against values computed
// in Python from its documented formula; the next-token losses against the
// plain pass's logits; ablation: zeroing a head is a hand-set hook's result
// and ablating nothing changes no bit; the intact and ablated next tokens
// side by side against the plain pass with the head ablated.

#include "decoder_model.h"
#include "gpt2.h"
#include "head_scores.h"
#include "plaingpt2.h"
#include "plainheadscores.h"

#include <QtTest>

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

namespace {

using namespace plaingpt2;
using namespace plainheadscores;

// The plain pass and the engine's agree to about 1e-15 on the weights.
constexpr double kScoreTolerance = 1e-12;
constexpr double kPlainTolerance = 1e-9;

attn::Matrix rows(int n, const std::vector<double>& values)
{
    attn::Matrix m(n, n);
    for (int i = 0; i < n * n; ++i)
        m.data()[i] = values[std::size_t(i)];
    return m;
}

std::unique_ptr<attn::Gpt2DecoderModel> makeModel(const attn::Gpt2Weights& weights)
{
    auto model = attn::Gpt2DecoderModel::create(weights);
    if (!model)
        qFatal("Gpt2DecoderModel::create: %s", model.error().message.c_str());
    return std::move(model).value();
}

// Ids with repeats: a random span of 5, the span again, then 2 more.
std::vector<int> idsWithRepeats(int vocab, unsigned seed)
{
    std::vector<int> ids = randomIds(5, vocab, seed);
    const std::vector<int> tail = randomIds(2, vocab, seed + 1);
    std::vector<int> all = ids;
    all.insert(all.end(), ids.begin(), ids.end());
    all.insert(all.end(), tail.begin(), tail.end());
    return all;
}

// The last logits, every position's, and every head, bit for bit.
bool samePass(const attn::DecoderResult& a, const attn::DecoderResult& b)
{
    if (!sameBits(a.lastLogits, b.lastLogits) || !sameBits(a.logits, b.logits)
        || a.layers.size() != b.layers.size())
        return false;
    for (std::size_t l = 0; l < a.layers.size(); ++l) {
        if (!sameBits(a.layers[l].hidden, b.layers[l].hidden)
            || a.layers[l].heads.size() != b.layers[l].heads.size())
            return false;
        for (std::size_t h = 0; h < a.layers[l].heads.size(); ++h)
            if (!sameHead(a.layers[l].heads[h], b.layers[l].heads[h]))
                return false;
    }
    return true;
}

double plainProbability(const attn::Matrix& logits, int row, int id, double temperature)
{
    double top = -INFINITY;
    for (Eigen::Index j = 0; j < logits.cols(); ++j)
        top = std::max(top, logits(row, j) / temperature);
    double sum = 0;
    for (Eigen::Index j = 0; j < logits.cols(); ++j)
        sum += std::exp(logits(row, j) / temperature - top);
    return std::exp(logits(row, id) / temperature - top) / sum;
}

}  // namespace

class TestHeadScores : public QObject {
    Q_OBJECT

private slots:
    void handWorked_data();
    void handWorked();
    void keys();
    void names();
    void passAgainstPlainLoop_data();
    void passAgainstPlainLoop();
    void ranking();
    void generator();
    void repeatedSpan();
    void losses();
    void repeatLossMeans();
    void ablationIsTheHandSetHook();
    void nextTokensSideBySide();
    void logitDifference();
};

void TestHeadScores::handWorked_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<std::vector<double>>("weights");
    QTest::addColumn<std::vector<int>>("ids");
    QTest::addColumn<Scores>("previous");
    QTest::addColumn<Scores>("duplicate");
    QTest::addColumn<Scores>("induction");
    QTest::addColumn<Scores>("first");
    // Dyadic weights: every sum and mean below is exact.
    const std::vector<double> four = {1,     0,    0,    0,  //
                                      0.25,  0.75, 0,    0,  //
                                      0.5,   0.25, 0.25, 0,  //
                                      0.125, 0.25, 0.5,  0.125};
    // previous (0.25 + 0.25 + 0.5) / 3; first (0.25 + 0.5 + 0.125) / 3.
    // [5, 7, 5, 7]: duplicates row 2 (j 0) 0.5, row 3 (j 1) 0.25; induction
    // row 2 (t_0 = 5, j 1) 0.25, row 3 (t_1 = 7, j 2) 0.5.
    QTest::addRow("5 7 5 7") << 4 << four << std::vector<int>{5, 7, 5, 7} << Scores(1.0 / 3) << Scores(0.375)
                             << Scores(0.375) << Scores(0.875 / 3);
    // No token repeats: no row defines duplicate_token or induction.
    QTest::addRow("no repeats") << 4 << four << std::vector<int>{1, 2, 3, 4} << Scores(1.0 / 3) << Scores()
                                << Scores() << Scores(0.875 / 3);
    // [9, 9, 1, 2]: row 1 repeats row 0 (0.25), but induction needs
    // j in 1..i-1, which row 1 has none of.
    QTest::addRow("a repeat, no induction") << 4 << four << std::vector<int>{9, 9, 1, 2} << Scores(1.0 / 3)
                                            << Scores(0.25) << Scores() << Scores(0.875 / 3);
    // [4, 4, 4, 4]: duplicates row 1 {0} 0.25, row 2 {0, 1} 0.75, row 3
    // {0, 1, 2} 0.875; induction row 2 {1} 0.25, row 3 {1, 2} 0.75.
    QTest::addRow("one token four times") << 4 << four << std::vector<int>{4, 4, 4, 4} << Scores(1.0 / 3)
                                          << Scores(1.875 / 3) << Scores(0.5) << Scores(0.875 / 3);
    // One token: no row i >= 1, every score undefined.
    QTest::addRow("one token") << 1 << std::vector<double>{1} << std::vector<int>{3} << Scores() << Scores()
                               << Scores() << Scores();
    // Two tokens, the same: the sink and the previous token are one cell.
    QTest::addRow("two equal tokens")
        << 2 << std::vector<double>{1, 0, 0.625, 0.375} << std::vector<int>{8, 8} << Scores(0.625)
        << Scores(0.625) << Scores() << Scores(0.625);
}

void TestHeadScores::handWorked()
{
    QFETCH(int, n);
    QFETCH(std::vector<double>, weights);
    QFETCH(std::vector<int>, ids);
    QFETCH(Scores, previous);
    QFETCH(Scores, duplicate);
    QFETCH(Scores, induction);
    QFETCH(Scores, first);
    const attn::Matrix a = rows(n, weights);
    const attn::HeadTypeScores s = attn::headTypeScores(a, attn::headScoreKeys(ids));
    QCOMPARE(s.previousToken, previous);
    QCOMPARE(s.duplicateToken, duplicate);
    QCOMPARE(s.induction, induction);
    QCOMPARE(s.firstToken, first);
    QCOMPARE(s[attn::HeadScoreKind::PreviousToken], previous);
    QCOMPARE(s[attn::HeadScoreKind::DuplicateToken], duplicate);
    QCOMPARE(s[attn::HeadScoreKind::Induction], induction);
    QCOMPARE(s[attn::HeadScoreKind::FirstToken], first);
    // The plain loops agree exactly on these.
    compareWithPlain(s, a, ids, 0.0, QStringLiteral("plain"));
}

void TestHeadScores::keys()
{
    const attn::HeadScoreKeys k = attn::headScoreKeys({4, 4, 4, 4});
    QCOMPARE(k.tokens, 4);
    QCOMPARE(k.duplicateStart, (std::vector<int>{0, 0, 1, 3, 6}));
    QCOMPARE(k.duplicateKeys, (std::vector<int>{0, 0, 1, 0, 1, 2}));
    QCOMPARE(k.inductionStart, (std::vector<int>{0, 0, 0, 1, 3}));
    QCOMPARE(k.inductionKeys, (std::vector<int>{1, 1, 2}));
    const attn::HeadScoreKeys none = attn::headScoreKeys({});
    QCOMPARE(none.tokens, 0);
    QCOMPARE(none.duplicateStart, std::vector<int>{0});
}

void TestHeadScores::names()
{
    QCOMPARE(attn::headScoreName(attn::HeadScoreKind::PreviousToken), "previous_token");
    QCOMPARE(attn::headScoreName(attn::HeadScoreKind::DuplicateToken), "duplicate_token");
    QCOMPARE(attn::headScoreName(attn::HeadScoreKind::Induction), "induction");
    QCOMPARE(attn::headScoreName(attn::HeadScoreKind::FirstToken), "first_token");
}

void TestHeadScores::passAgainstPlainLoop_data()
{
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("embd");
    QTest::addColumn<int>("vocab");
    QTest::addColumn<bool>("keepMaps");
    QTest::addColumn<bool>("ablate");
    QTest::addRow("tiny-gpt2 shape") << 2 << 4 << 16 << 50257 << true << false;
    QTest::addRow("tiny-gpt2 shape, heads recomputed") << 2 << 4 << 16 << 50257 << false << false;
    QTest::addRow("3x2, E 10, head (0, 1) zeroed") << 3 << 2 << 10 << 33 << true << true;
}

void TestHeadScores::passAgainstPlainLoop()
{
    QFETCH(int, layers);
    QFETCH(int, heads);
    QFETCH(int, embd);
    QFETCH(int, vocab);
    QFETCH(bool, keepMaps);
    QFETCH(bool, ablate);
    const attn::Gpt2Weights w = randomWeights(layers, heads, embd, 64, vocab, 17u + unsigned(embd));
    const std::vector<int> ids = idsWithRepeats(vocab, 3u);
    const auto model = makeModel(w);
    PlainAblation ablation;
    attn::DecoderRunOptions options;
    options.keepMaps = keepMaps;
    if (ablate) {
        ablation.layer = 0;
        ablation.head = 1;
        options.headOutput = attn::ablationHook({{0, 1}}, attn::HeadAblation::Zero);
    }
    const PlainPass plain = plainPass(w, ids, model->standardDivisors(), ablation);
    withBothProducts([&] {
        const auto r = model->run(ids, options);
        QVERIFY(r.ok());
        const auto table = attn::headScores(*model, *r);
        QVERIFY2(table.ok(), table.ok() ? "" : table.error().message.c_str());
        QCOMPARE(table->layers, layers);
        QCOMPARE(table->heads, heads);
        QCOMPARE(int(table->values.size()), layers * heads);
        int inductionDefined = 0;
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < heads; ++h) {
                const attn::Matrix& a = plain.heads[std::size_t(l)][std::size_t(h)].weights;
                compareWithPlain(table->at(l, h), a, ids, kScoreTolerance,
                                 QStringLiteral("layer %1 head %2").arg(l).arg(h));
                if (QTest::currentTestFailed())
                    return;
                inductionDefined += table->at(l, h).induction.has_value();
            }
        QCOMPARE(inductionDefined, layers * heads);
    });
}

void TestHeadScores::ranking()
{
    attn::HeadScoreTable t;
    t.layers = 2;
    t.heads = 2;
    t.values.resize(4);
    t.values[0].induction = 0.25;
    t.values[1].induction = 0.75;
    t.values[3].induction = 0.25;  // ties: lower layer first
    const std::vector<attn::HeadIndex> ranked = attn::rankHeads(t, attn::HeadScoreKind::Induction);
    QCOMPARE(int(ranked.size()), 3);  // (1, 0) has no score
    QCOMPARE(ranked[0].layer, 0);
    QCOMPARE(ranked[0].head, 1);
    QCOMPARE(ranked[1].layer, 0);
    QCOMPARE(ranked[1].head, 0);
    QCOMPARE(ranked[2].layer, 1);
    QCOMPARE(ranked[2].head, 1);
    QVERIFY(attn::rankHeads(t, attn::HeadScoreKind::FirstToken).empty());
}

void TestHeadScores::generator()
{
    // SplitMix64's published first outputs from seed 0.
    attn::SplitMix64 rng(0);
    QCOMPARE(rng.next(), std::uint64_t(0xE220A8397B1DCDAFull));
    QCOMPARE(rng.next(), std::uint64_t(0x6E789E6AA1B965F4ull));
    QCOMPARE(rng.next(), std::uint64_t(0x06C45D188009454Full));
}

void TestHeadScores::repeatedSpan()
{
    const attn::TokenIdRange gpt2 = attn::repeatProbeIdRange(50257);
    QCOMPARE(gpt2.low, 1000);
    QCOMPARE(gpt2.high, 20000);
    const attn::TokenIdRange small = attn::repeatProbeIdRange(33);
    QCOMPARE(small.low, 8);
    QCOMPARE(small.high, 25);

    // Computed in Python from the formula in head_scores.h (an independent
    // implementation of SplitMix64 and the draw).
    const std::vector<int> span = {17782, 9199,  1502,  19446, 3020,  7219,  4303,  15659, 5668, 19088,
                                   8532,  15459, 10955, 11548, 14456, 10851, 10289, 15532, 4889, 17038};
    std::vector<int> twice = span;
    twice.insert(twice.end(), span.begin(), span.end());
    const auto ids = attn::repeatedSpanIds(attn::kDefaultRepeatSpan, attn::kDefaultRepeatSeed, gpt2);
    QVERIFY(ids.ok());
    QCOMPARE(ids.value(), twice);
    // A draw that repeats an id is skipped: seed 42 over 8..24 draws 20, 10,
    // 12, 13, 20 (skipped), ... (Python as above).
    const auto distinct = attn::repeatedSpanIds(5, 42, small);
    QVERIFY(distinct.ok());
    QCOMPARE(distinct.value(), (std::vector<int>{20, 10, 12, 13, 8, 20, 10, 12, 13, 8}));

    QVERIFY(!attn::repeatedSpanIds(1, 0, gpt2).ok());
    const auto tooMany = attn::repeatedSpanIds(18, 0, small);
    QVERIFY(!tooMany.ok());
    QVERIFY2(QString::fromStdString(tooMany.error().message).contains(QStringLiteral("17 distinct ids")),
             tooMany.error().message.c_str());
}

void TestHeadScores::losses()
{
    const attn::Gpt2Weights w = randomWeights(2, 4, 16, 64, 50257, 5u);
    const auto model = makeModel(w);
    const std::vector<int> ids = attn::repeatedSpanIds(6, 9, attn::repeatProbeIdRange(50257)).value();
    const PlainPass plain = plainPass(w, ids, model->standardDivisors());
    attn::DecoderRunOptions options;
    options.keepMaps = false;
    options.keepHidden = true;
    options.temperature = 2.0;  // the loss is at temperature 1 whatever the pass's
    const auto lean = model->run(ids, options);
    QVERIFY(lean.ok());
    options.keepHidden = false;
    options.allLogits = true;
    const auto full = model->run(ids, options);
    QVERIFY(full.ok());
    const auto fromHidden = attn::nextTokenLosses(*model, *lean);
    const auto fromLogits = attn::nextTokenLosses(*model, *full);
    QVERIFY(fromHidden.ok());
    QVERIFY(fromLogits.ok());
    QCOMPARE(int(fromHidden->size()), 11);
    QCOMPARE(fromHidden.value(), fromLogits.value());
    for (int i = 0; i < 11; ++i) {
        const double expected = -std::log(plainProbability(plain.logits, i, ids[std::size_t(i) + 1], 1.0));
        VERIFY_WITHIN(std::abs((*fromHidden)[std::size_t(i)] - expected) / std::max(1.0, expected),
                      kPlainTolerance, "loss");
    }
    // Nothing kept to read the logits from.
    options.allLogits = false;
    QVERIFY(!attn::nextTokenLosses(*model, *model->run(ids, options)).ok());
    QVERIFY(!attn::nextTokenLosses(*model, *model->run({5}, options)).ok());
}

void TestHeadScores::repeatLossMeans()
{
    // Span 3: losses[i] is the loss on token i + 1; the first repeat's
    // tokens 1, 2 (losses 0, 1), the second's tokens 4, 5 (losses 3, 4);
    // loss 2, on token 3 (the second repeat's first), counts in neither.
    const auto r = attn::repeatLoss({1.0, 2.0, 100.0, 0.25, 0.75}, 3);
    QVERIFY(r.ok());
    QCOMPARE(r->first, 1.5);
    QCOMPARE(r->second, 0.5);
    QVERIFY(!attn::repeatLoss({1.0, 2.0, 3.0}, 3).ok());
    QVERIFY(!attn::repeatLoss({1.0}, 1).ok());
}

void TestHeadScores::ablationIsTheHandSetHook()
{
    const attn::Gpt2Weights w = randomWeights(2, 4, 16, 64, 50257, 23u);
    const auto model = makeModel(w);
    const std::vector<int> ids = idsWithRepeats(50257, 8u);
    withBothProducts([&] {
        attn::DecoderRunOptions options;
        options.allLogits = true;
        options.keepHidden = true;
        const auto intact = model->run(ids, options);
        QVERIFY(intact.ok());

        // Ablating no head: bit for bit the pass without a hook.
        options.headOutput = attn::ablationHook({}, attn::HeadAblation::Zero);
        const auto none = model->run(ids, options);
        QVERIFY(none.ok());
        QVERIFY(samePass(*none, *intact));
        options.headOutput = attn::ablationHook({}, attn::HeadAblation::Mean);
        QVERIFY(samePass(*model->run(ids, options), *intact));

        // Zeroing heads (0, 2) and (1, 1): a hook that sets those blocks'
        // entries to 0 one by one.
        options.headOutput = attn::ablationHook({{0, 2}, {1, 1}}, attn::HeadAblation::Zero);
        const auto ablated = model->run(ids, options);
        QVERIFY(ablated.ok());
        options.headOutput = [](int layer, int head, Eigen::Ref<attn::Matrix> context) {
            if ((layer == 0 && head == 2) || (layer == 1 && head == 1))
                for (Eigen::Index i = 0; i < context.rows(); ++i)
                    for (Eigen::Index j = 0; j < context.cols(); ++j)
                        context(i, j) = 0.0;
        };
        const auto byHand = model->run(ids, options);
        QVERIFY(byHand.ok());
        QVERIFY(samePass(*ablated, *byHand));
        QVERIFY(!sameBits(ablated->lastLogits, intact->lastLogits));
        // Layer 0's heads are untouched by the ablation (it acts after them).
        for (int h = 0; h < 4; ++h)
            QVERIFY(
                sameHead(ablated->layers[0].heads[std::size_t(h)], intact->layers[0].heads[std::size_t(h)]));
    });
}

void TestHeadScores::nextTokensSideBySide()
{
    const attn::Gpt2Weights w = randomWeights(2, 4, 16, 64, 50257, 31u);
    const auto model = makeModel(w);
    const std::vector<int> ids = idsWithRepeats(50257, 12u);
    PlainAblation ablation;
    ablation.layer = 1;
    ablation.head = 3;
    ablation.mean = true;
    const PlainPass intactPlain = plainPass(w, ids, model->standardDivisors());
    const PlainPass ablatedPlain = plainPass(w, ids, model->standardDivisors(), ablation);
    const auto intact = model->run(ids);
    attn::DecoderRunOptions options;
    options.headOutput = attn::ablationHook({{1, 3}}, attn::HeadAblation::Mean);
    const auto ablated = model->run(ids, options);
    QVERIFY(intact.ok() && ablated.ok());
    const double temperature = 0.7;
    const int k = 5;
    const std::vector<attn::NextTokenChange> changes =
        attn::compareNextTokens(intact->lastLogits, ablated->lastLogits, k, temperature);
    QVERIFY(int(changes.size()) >= k && int(changes.size()) <= 2 * k);
    const int last = int(ids.size()) - 1;
    // Every token of either top 5 is listed, once.
    for (const auto* pass : {&*intact, &*ablated})
        for (const attn::TopToken& top : attn::topTokens(pass->lastLogits, k, temperature))
            QCOMPARE(std::count_if(changes.begin(), changes.end(),
                                   [&](const attn::NextTokenChange& c) { return c.id == top.id; }),
                     std::ptrdiff_t(1));
    for (std::size_t i = 0; i < changes.size(); ++i) {
        const attn::NextTokenChange& c = changes[i];
        if (i > 0)
            QVERIFY(changes[i - 1].intactProbability >= c.intactProbability);
        VERIFY_WITHIN(
            std::abs(c.intactLogit - intactPlain.logits(last, c.id)) / std::max(1.0, std::abs(c.intactLogit)),
            kPlainTolerance, "intact logit");
        VERIFY_WITHIN(std::abs(c.ablatedLogit - ablatedPlain.logits(last, c.id))
                          / std::max(1.0, std::abs(c.ablatedLogit)),
                      kPlainTolerance, "ablated logit");
        VERIFY_WITHIN(
            std::abs(c.intactProbability - plainProbability(intactPlain.logits, last, c.id, temperature)),
            kPlainTolerance, "intact probability");
        VERIFY_WITHIN(
            std::abs(c.ablatedProbability - plainProbability(ablatedPlain.logits, last, c.id, temperature)),
            kPlainTolerance, "ablated probability");
        QCOMPARE(c.change(), c.ablatedProbability - c.intactProbability);
    }
}

void TestHeadScores::logitDifference()
{
    attn::RowVector logits(4);
    logits << 1.5, -2.0, 0.25, 3.0;
    QCOMPARE(attn::logitDifference(logits, 3, 1).value(), 5.0);
    QCOMPARE(attn::logitDifference(logits, 1, 3).value(), -5.0);
    const auto outside = attn::logitDifference(logits, 0, 4);
    QVERIFY(!outside.ok());
    QVERIFY2(QString::fromStdString(outside.error().message).contains(QStringLiteral("ids 0 to 3")),
             outside.error().message.c_str());
    QVERIFY(!attn::logitDifference(logits, -1, 0).ok());
}

QTEST_APPLESS_MAIN(TestHeadScores)
#include "tst_head_scores.moc"
