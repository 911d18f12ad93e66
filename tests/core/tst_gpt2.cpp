// SPDX-License-Identifier: GPL-3.0-or-later
// GPT-2's forward pass (core/gpt2.h) against a plain float64 loop written
// from the formulas (tests/common/plaingpt2.h), on random weights of
// several shapes, and against
// hand-worked cases: LayerNorm of a known vector, gelu_new at known points,
// a causal softmax over scores of +-2 and the next-token softmax.

#include "gpt2.h"
#include "kernels.h"
#include "plaingpt2.h"

#include <QtTest>

#include <atomic>
#include <cmath>
#include <vector>

namespace {

using namespace plaingpt2;

// Both passes are float64 over the same float32 weights: they differ by
// the order of the sums, 4e-15 in the cases below.
constexpr double kMapTolerance = 1e-12;
constexpr double kWeightTolerance = 1e-12;

// A model with E = 2, one head, q = k = v = LN1(x), no MLP, for hand-worked
// maps: token 0 embeds as (0, 1) and token 1 as (1, 0), whose LayerNorms
// (eps 0) are exactly (-1, 1) and (1, -1); every score is +-2.
attn::Gpt2Weights handModel()
{
    attn::Gpt2Config c;
    c.nLayer = 1;
    c.nHead = 1;
    c.nEmbd = 2;
    c.nPositions = 4;
    c.vocabSize = 2;
    c.layerNormEpsilon = 0.0;
    WeightsBuilder b(c);
    attn::Gpt2Weights& w = b.weights();
    w.wte = b.tensor(2, 2, {0, 1, 1, 0});
    w.wpe = b.tensor(4, 2, {});
    attn::Gpt2Block k;
    k.ln1Weight = b.tensor(1, 2, {1, 1});
    k.ln1Bias = b.tensor(1, 2, {});
    k.attnWeight = b.tensor(2, 6, {1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1});
    k.attnBias = b.tensor(1, 6, {});
    k.attnProjWeight = b.tensor(2, 2, {});
    k.attnProjBias = b.tensor(1, 2, {});
    k.ln2Weight = b.tensor(1, 2, {1, 1});
    k.ln2Bias = b.tensor(1, 2, {});
    k.fcWeight = b.tensor(2, 8, {});
    k.fcBias = b.tensor(1, 8, {});
    k.mlpProjWeight = b.tensor(8, 2, {});
    k.mlpProjBias = b.tensor(1, 2, {});
    w.blocks.push_back(k);
    w.lnFWeight = b.tensor(1, 2, {1, 1});
    w.lnFBias = b.tensor(1, 2, {});
    w.lmHead = w.wte;
    return w;
}

}  // namespace

class TestGpt2 : public QObject {
    Q_OBJECT

private slots:
    void layerNormOfAKnownVector();
    void geluNewAtKnownPoints();
    void causalSoftmaxByHand();
    void nextTokenSoftmaxByHand();
    void againstPlainLoops_data();
    void againstPlainLoops();
    void headRecomputedIsThePass();
    void threadsDoNotChangeTheNumbers();
    void cancelFlag();
    void divisorTable();
    void badInput_data();
    void badInput();
    void badWeights();
};

void TestGpt2::layerNormOfAKnownVector()
{
    WeightsBuilder b(attn::Gpt2Config{});
    const attn::FloatTensor ones = b.tensor(1, 4, {1, 1, 1, 1});
    const attn::FloatTensor zeros = b.tensor(1, 4, {});
    attn::Matrix x(1, 4);
    x << 1, 2, 3, 4;
    // mean 2.5, biased variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25.
    attn::Matrix expected(1, 4);
    expected << -1.3416407864998738, -0.4472135954999579, 0.4472135954999579, 1.3416407864998738;
    VERIFY_WITHIN(absDiff(attn::gpt2LayerNorm(x, ones, zeros, 0.0), expected), 1e-15, "LN eps 0");
    // w = (2, 2, 2, 2), b = (1, 0, -1, 0.5): 2 y + b.
    const attn::FloatTensor twos = b.tensor(1, 4, {2, 2, 2, 2});
    const attn::FloatTensor bias = b.tensor(1, 4, {1, 0, -1, 0.5});
    attn::Matrix affine(1, 4);
    affine << 2 * expected(0, 0) + 1, 2 * expected(0, 1), 2 * expected(0, 2) - 1, 2 * expected(0, 3) + 0.5;
    VERIFY_WITHIN(absDiff(attn::gpt2LayerNorm(x, twos, bias, 0.0), affine), 1e-15, "LN w, b");
    // eps = 1e-5 under the root: (x - 2.5) / sqrt(1.25001).
    const double inv = 1.0 / std::sqrt(1.25001);
    attn::Matrix withEps(1, 4);
    withEps << -1.5 * inv, -0.5 * inv, 0.5 * inv, 1.5 * inv;
    VERIFY_WITHIN(absDiff(attn::gpt2LayerNorm(x, ones, zeros, 1e-5), withEps), 1e-15, "LN eps");
}

void TestGpt2::geluNewAtKnownPoints()
{
    QCOMPARE(attn::geluNew(0.0), 0.0);
    const double points[][2] = {{1.0, 0.8411919906082768},
                                {-1.0, -0.15880800939172324},
                                {2.0, 1.954597694087775},
                                {-3.0, -0.0036373920817729943},
                                {0.5, 0.34571400982514394}};
    for (const auto& p : points)
        VERIFY_WITHIN(std::abs(attn::geluNew(p[0]) - p[1]), 1e-15, "gelu_new");
}

void TestGpt2::causalSoftmaxByHand()
{
    const attn::Gpt2Weights w = handModel();
    // X = (-1, 1), (1, -1), (-1, 1): scores +-2, divided by sqrt(2).
    const auto r = attn::runGpt2(w, {0, 1, 0});
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
    const attn::AttentionResult& head = r->layers[0].heads[0];
    attn::Matrix scores(3, 3);
    scores << 2, -2, 2, -2, 2, -2, 2, -2, 2;
    QVERIFY(sameBits(head.scores, scores));
    QCOMPARE(head.divisor, std::sqrt(2.0));
    // Row 1: (e^-sqrt2, e^sqrt2) / sum = 1 / (1 + e^(2 sqrt2)), ...
    // Row 2: (e^sqrt2, e^-sqrt2, e^sqrt2) / sum.
    attn::Matrix weights(3, 3);
    weights << 1, 0, 0, 0.05580721920716972, 0.9441927807928303, 0, 0.4856477146303331, 0.02870457073933371,
        0.4856477146303331;
    VERIFY_WITHIN(absDiff(head.weightsMatrix(), weights), 1e-15, "weights");
    QVERIFY(head.isMasked(0, 1) && head.isMasked(1, 2) && !head.isMasked(2, 0));
    QVERIFY(std::isinf(head.scaled(0, 2)) && head.scaled(0, 2) < 0);
    QCOMPARE(head.weights(0, 2), 0.0);

    // Without the division: the scores themselves, +-2.
    attn::Gpt2Options options;
    options.divisors = attn::Gpt2Divisors::standard(w.config);
    QVERIFY(options.divisors.set(attn::ScaleMode::None, 0.0, 2));
    const auto none = attn::runGpt2(w, {0, 1, 0}, options);
    QVERIFY(none.ok());
    weights << 1, 0, 0, 0.01798620996209156, 1 - 0.01798620996209156, 0, 0.4954626425778431,
        1 - 2 * 0.4954626425778431, 0.4954626425778431;
    VERIFY_WITHIN(absDiff(none->layers[0].heads[0].weightsMatrix(), weights), 1e-15, "weights, no scale");
}

void TestGpt2::nextTokenSoftmaxByHand()
{
    attn::RowVector logits(3);
    logits << 1, 2, 3;
    // softmax(1, 2, 3) = (0.0900, 0.2447, 0.6652).
    auto top = attn::topTokens(logits, 2, 1.0);
    QCOMPARE(int(top.size()), 2);
    QCOMPARE(top[0].id, 2);
    QCOMPARE(top[1].id, 1);
    QCOMPARE(top[0].logit, 3.0);
    VERIFY_WITHIN(std::abs(top[0].probability - 0.6652409557748219), 1e-15, "p(2)");
    VERIFY_WITHIN(std::abs(top[1].probability - 0.24472847105479767), 1e-15, "p(1)");
    // Temperature 2: softmax(0.5, 1, 1.5); the logits stay as they are.
    top = attn::topTokens(logits, 3, 2.0);
    QCOMPARE(top[0].logit, 3.0);
    VERIFY_WITHIN(std::abs(top[0].probability - 0.506480391055654), 1e-15, "p(2), T 2");
    VERIFY_WITHIN(std::abs(top[1].probability - 0.30719588571849843), 1e-15, "p(1), T 2");
    VERIFY_WITHIN(std::abs(top[2].probability - 0.1863237232258476), 1e-15, "p(0), T 2");
    // Ties: the smaller id first.
    logits << 3, 1, 3;
    top = attn::topTokens(logits, 3, 1.0);
    QCOMPARE(top[0].id, 0);
    QCOMPARE(top[1].id, 2);
    QCOMPARE(top[2].id, 1);
}

void TestGpt2::againstPlainLoops_data()
{
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("embd");
    QTest::addColumn<int>("positions");
    QTest::addColumn<int>("vocab");
    QTest::addColumn<int>("tokens");
    QTest::addColumn<bool>("tied");
    QTest::addColumn<int>("divisors");  // 0 standard, 1 none everywhere, 2 one layer custom, 3 one head
    QTest::addColumn<double>("temperature");
    QTest::addRow("2x4, E 16, n 7") << 2 << 4 << 16 << 16 << 50 << 7 << true << 0 << 1.0;
    QTest::addRow("1x3, E 12, n 1") << 1 << 3 << 12 << 8 << 40 << 1 << true << 0 << 1.0;
    QTest::addRow("3x2, E 10, n = positions, own lm_head")
        << 3 << 2 << 10 << 9 << 33 << 9 << false << 0 << 1.0;
    QTest::addRow("2x5, E 20, no scale, T 0.7") << 2 << 5 << 20 << 12 << 64 << 11 << true << 1 << 0.7;
    QTest::addRow("3x2, E 6, layer 1 divisor 0.5, T 2") << 3 << 2 << 6 << 10 << 30 << 10 << true << 2 << 2.0;
    QTest::addRow("2x3, E 9, head (1, 2) divisor 7") << 2 << 3 << 9 << 6 << 25 << 5 << false << 3 << 1.0;
    QTest::addRow("1x1, E 3, n 2") << 1 << 1 << 3 << 2 << 5 << 2 << true << 0 << 1.0;
}

void TestGpt2::againstPlainLoops()
{
    QFETCH(int, layers);
    QFETCH(int, heads);
    QFETCH(int, embd);
    QFETCH(int, positions);
    QFETCH(int, vocab);
    QFETCH(int, tokens);
    QFETCH(bool, tied);
    QFETCH(int, divisors);
    QFETCH(double, temperature);
    withBothProducts([&] {
        const attn::Gpt2Weights w =
            randomWeights(layers, heads, embd, positions, vocab, 17u + unsigned(embd), tied);
        const std::vector<int> ids = randomIds(tokens, vocab, 5u + unsigned(tokens));
        attn::Gpt2Options options;
        options.divisors = attn::Gpt2Divisors::standard(w.config);
        const int hd = embd / heads;
        if (divisors == 1)
            QVERIFY(options.divisors.set(attn::ScaleMode::None, 0.0, hd));
        if (divisors == 2)
            QVERIFY(options.divisors.set(attn::ScaleMode::Custom, 0.5, hd, 1));
        if (divisors == 3)
            QVERIFY(options.divisors.set(attn::ScaleMode::Custom, 7.0, hd, 1, 2));
        options.temperature = temperature;
        options.topK = 5;
        options.allLogits = true;
        options.keepHidden = true;
        const auto r = attn::runGpt2(w, ids, options);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        const PlainPass plain = plainPass(w, ids, options.divisors);

        QCOMPARE(int(r->layers.size()), layers);
        for (int l = 0; l < layers; ++l) {
            QCOMPARE(int(r->layers[std::size_t(l)].heads.size()), heads);
            for (int h = 0; h < heads; ++h) {
                const attn::AttentionResult& e = r->layers[std::size_t(l)].heads[std::size_t(h)];
                const PlainHead& p = plain.heads[std::size_t(l)][std::size_t(h)];
                QCOMPARE(e.divisor, options.divisors.at(l, h));
                QVERIFY(e.causal);
                VERIFY_WITHIN(relativeDiff(e.Q, p.q), kMapTolerance, "q");
                VERIFY_WITHIN(relativeDiff(e.K, p.k), kMapTolerance, "k");
                VERIFY_WITHIN(relativeDiff(e.V, p.v), kMapTolerance, "v");
                VERIFY_WITHIN(relativeDiff(e.scores, p.scores), kMapTolerance, "scores");
                VERIFY_WITHIN(absDiff(e.weightsMatrix(), p.weights), kWeightTolerance, "weights");
            }
            VERIFY_WITHIN(relativeDiff(r->layers[std::size_t(l)].hidden, plain.hidden[std::size_t(l)]),
                          kMapTolerance, "block output");
        }
        VERIFY_WITHIN(relativeDiff(r->finalHidden, plain.finalHidden), kMapTolerance, "final hidden");
        VERIFY_WITHIN(relativeDiff(r->logits, plain.logits), kMapTolerance, "all logits");
        QVERIFY(sameBits(r->lastLogits, r->logits.bottomRows(1)));

        // The top 5 (or the whole vocabulary when smaller): the plain order and
        // softmax(logits / T) over every entry.
        const attn::RowVector last = plain.logits.bottomRows(1);
        std::vector<int> order(static_cast<std::size_t>(vocab));
        for (int i = 0; i < vocab; ++i)
            order[std::size_t(i)] = i;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return last[a] > last[b]; });
        double sum = 0;
        for (int i = 0; i < vocab; ++i)
            sum += std::exp((last[i] - last.maxCoeff()) / temperature);
        QCOMPARE(int(r->top.size()), 5);
        for (int i = 0; i < 5; ++i) {
            const attn::Gpt2TopToken& t = r->top[std::size_t(i)];
            QCOMPARE(t.id, order[std::size_t(i)]);
            VERIFY_WITHIN(std::abs(t.logit - last[t.id]) / std::max(1.0, std::abs(last[t.id])), kMapTolerance,
                          "logit");
            VERIFY_WITHIN(
                std::abs(t.probability - std::exp((last[t.id] - last.maxCoeff()) / temperature) / sum),
                kWeightTolerance, "probability");
        }

        // Without all logits and the hidden states: the same last row.
        options.allLogits = false;
        options.keepHidden = false;
        const auto lean = attn::runGpt2(w, ids, options);
        QVERIFY(lean.ok());
        QCOMPARE(lean->logits.size(), Eigen::Index(0));
        QCOMPARE(lean->layers[0].hidden.size(), Eigen::Index(0));
        VERIFY_WITHIN(relativeDiff(lean->lastLogits, last), kMapTolerance, "last logits");
    });
}

void TestGpt2::headRecomputedIsThePass()
{
    const attn::Gpt2Weights w = randomWeights(3, 4, 24, 20, 70, 3u);
    const std::vector<int> ids = randomIds(13, 70, 9u);
    withBothProducts([&] {
        attn::Gpt2Options options;
        options.divisors = attn::Gpt2Divisors::standard(w.config);
        QVERIFY(options.divisors.set(attn::ScaleMode::Custom, 2.5, 6, 2, 1));
        const auto kept = attn::runGpt2(w, ids, options);
        QVERIFY(kept.ok());
        options.keepMaps = false;
        const auto lean = attn::runGpt2(w, ids, options);
        QVERIFY(lean.ok());
        QVERIFY(sameBits(lean->lastLogits, kept->lastLogits));
        for (int l = 0; l < 3; ++l) {
            QVERIFY(lean->layers[std::size_t(l)].heads.empty());
            for (int h = 0; h < 4; ++h) {
                const auto again = attn::gpt2Head(w, *lean, l, h);
                QVERIFY(again.ok());
                QVERIFY2(sameHead(*again, kept->layers[std::size_t(l)].heads[std::size_t(h)]),
                         qPrintable(QStringLiteral("layer %1 head %2").arg(l).arg(h)));
            }
        }
        QCOMPARE(attn::gpt2Head(w, *lean, 2, 1)->divisor, 2.5);
        QVERIFY(!attn::gpt2Head(w, *lean, 3, 0).ok());
        QVERIFY(!attn::gpt2Head(w, *lean, 0, 4).ok());
        QVERIFY(!attn::gpt2Head(w, *lean, -1, 0).ok());
    });
}

void TestGpt2::threadsDoNotChangeTheNumbers()
{
    // E 600: the products' column blocks (256 wide) and the vocabulary's
    // split among the threads.
    const attn::Gpt2Weights w = randomWeights(2, 6, 600, 8, 5000, 11u);
    const std::vector<int> ids = randomIds(6, 5000, 2u);
    withBothProducts([&] {
        attn::Gpt2Options options;
        options.allLogits = true;
        const auto one = attn::runGpt2(w, ids, options);
        options.threads = 3;
        const auto three = attn::runGpt2(w, ids, options);
        QVERIFY(one.ok() && three.ok());
        QVERIFY(sameBits(one->logits, three->logits));
        QVERIFY(sameBits(one->finalHidden, three->finalHidden));
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 6; ++h)
                QVERIFY(sameHead(one->layers[std::size_t(l)].heads[std::size_t(h)],
                                 three->layers[std::size_t(l)].heads[std::size_t(h)]));
    });
}

void TestGpt2::cancelFlag()
{
    // E 600 and 3 threads: the heads shared among threads, each checking the flag.
    const attn::Gpt2Weights w = randomWeights(2, 6, 600, 8, 5000, 11u);
    const std::vector<int> ids = randomIds(6, 5000, 2u);
    attn::Gpt2Options options;
    options.threads = 3;
    options.allLogits = true;
    options.keepHidden = true;
    const auto plain = attn::runGpt2(w, ids, options);
    QVERIFY(plain.ok());

    // A flag that stays unset changes no bit.
    std::atomic<bool> flag{false};
    options.cancel = &flag;
    const auto unset = attn::runGpt2(w, ids, options);
    QVERIFY(unset.ok());
    QVERIFY(sameBits(unset->logits, plain->logits));
    QVERIFY(sameBits(unset->finalHidden, plain->finalHidden));
    QCOMPARE(unset->top.size(), plain->top.size());
    for (std::size_t i = 0; i < plain->top.size(); ++i) {
        QCOMPARE(unset->top[i].id, plain->top[i].id);
        QCOMPARE(unset->top[i].probability, plain->top[i].probability);
    }
    for (int l = 0; l < 2; ++l) {
        QVERIFY(sameBits(unset->layers[std::size_t(l)].hidden, plain->layers[std::size_t(l)].hidden));
        for (int h = 0; h < 6; ++h)
            QVERIFY(sameHead(unset->layers[std::size_t(l)].heads[std::size_t(h)],
                             plain->layers[std::size_t(l)].heads[std::size_t(h)]));
    }

    // Set: the pass stops with "cancelled", with either thread count.
    flag = true;
    for (const int threads : {1, 3}) {
        options.threads = threads;
        const auto stopped = attn::runGpt2(w, ids, options);
        QVERIFY(!stopped.ok());
        QCOMPARE(QString::fromStdString(stopped.error().message), QStringLiteral("cancelled"));
        QCOMPARE(stopped.error().message, std::string(attn::kGpt2Cancelled));
        QVERIFY(attn::isCancelled(stopped));  // told by its kind, not its words
    }
    // Bad input is still told as such, before any layer runs.
    const auto bad = attn::runGpt2(w, {}, options);
    QVERIFY(!bad.ok());
    QVERIFY(QString::fromStdString(bad.error().message).contains(QStringLiteral("no tokens")));
    QVERIFY(!attn::isCancelled(bad));
}

void TestGpt2::divisorTable()
{
    attn::Gpt2Config c;
    c.nLayer = 3;
    c.nHead = 2;
    c.nEmbd = 8;
    attn::Gpt2Divisors d = attn::Gpt2Divisors::standard(c);
    QCOMPARE(int(d.values.size()), 6);
    QCOMPARE(d.at(2, 1), 2.0);  // sqrt(head_dim 4)
    QVERIFY(d.set(attn::ScaleMode::None, 0.0, 4, 1));
    QVERIFY(d.set(attn::ScaleMode::Custom, 3.0, 4, 2, 0));
    const std::vector<double> expected = {2, 2, 1, 1, 3, 2};
    QCOMPARE(d.values, expected);
    QVERIFY(d.set(attn::ScaleMode::Custom, 5.0, 4, -1, 1));
    const std::vector<double> column = {2, 5, 1, 5, 3, 5};
    QCOMPARE(d.values, column);
    QVERIFY(d.set(attn::ScaleMode::SqrtDk, 0.0, 4));
    QCOMPARE(d.values, std::vector<double>(6, 2.0));
    // Refused, the table unchanged.
    const auto bad = d.set(attn::ScaleMode::Custom, 0.0, 4);
    QVERIFY(!bad.ok());
    QVERIFY(QString::fromStdString(bad.error().message).contains(QStringLiteral("custom scale divisor")));
    QVERIFY(!d.set(attn::ScaleMode::None, 0.0, 4, 3).ok());
    QVERIFY(!d.set(attn::ScaleMode::None, 0.0, 4, 0, 2).ok());
    QCOMPARE(d.values, std::vector<double>(6, 2.0));
}

void TestGpt2::badInput_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("message");
    QTest::addRow("no tokens") << 0 << "no tokens";
    QTest::addRow("too many tokens") << 1 << "9 tokens; this model takes at most 8";
    QTest::addRow("negative id") << 2 << "Token 2 has id -1, outside the vocabulary (0 to 29)";
    QTest::addRow("id = vocab") << 3 << "Token 1 has id 30, outside the vocabulary";
    QTest::addRow("divisor table shape")
        << 4 << "divisor table is for 1 layers x 2 heads; the model has 2 x 2";
    QTest::addRow("divisor 0") << 5 << "Layer 1, head 0: The custom scale divisor";
    QTest::addRow("temperature 0") << 6 << "temperature must be a number from";
    QTest::addRow("temperature NaN") << 7 << "temperature must be a number from";
    QTest::addRow("top k 0") << 8 << "at least 1";
}

void TestGpt2::badInput()
{
    QFETCH(int, kind);
    QFETCH(QString, message);
    const attn::Gpt2Weights w = randomWeights(2, 2, 4, 8, 30, 1u);
    std::vector<int> ids = {1, 2, 3};
    attn::Gpt2Options options;
    switch (kind) {
    case 0: ids.clear(); break;
    case 1: ids.assign(9, 0); break;
    case 2: ids[1] = -1; break;
    case 3: ids[0] = 30; break;
    case 4:
        options.divisors = attn::Gpt2Divisors::standard(w.config);
        options.divisors.nLayer = 1;
        options.divisors.values.resize(2);
        break;
    case 5:
        options.divisors = attn::Gpt2Divisors::standard(w.config);
        options.divisors.values[2] = 0.0;
        break;
    case 6: options.temperature = 0.0; break;
    case 7: options.temperature = std::nan(""); break;
    case 8: options.topK = 0; break;
    }
    const auto r = attn::runGpt2(w, ids, options);
    QVERIFY(!r.ok());
    QVERIFY2(QString::fromStdString(r.error().message).contains(message), r.error().message.c_str());
}

void TestGpt2::badWeights()
{
    const auto message = [](const attn::Gpt2Weights& w) {
        const auto r = attn::runGpt2(w, {0});
        return r.ok() ? QString() : QString::fromStdString(r.error().message);
    };
    attn::Gpt2Weights w = randomWeights(2, 2, 4, 8, 30, 1u);
    w.blocks[1].fcWeight.cols = 15;
    QCOMPARE(message(w),
             QStringLiteral(
                 "GPT-2 weights: the tensor h.1.mlp.c_fc.weight is (4 x 15); the config needs (4 x 16)."));
    w = randomWeights(2, 2, 4, 8, 30, 1u);
    w.blocks[0].attnBias = attn::FloatTensor{};
    QCOMPARE(message(w), QStringLiteral("GPT-2 weights: the tensor h.0.attn.c_attn.bias is missing."));
    w = randomWeights(2, 2, 4, 8, 30, 1u);
    w.lmHead.rows = 29;
    QVERIFY(message(w).contains(QStringLiteral("lm_head.weight is (29 x 4)")));
    w = randomWeights(2, 2, 4, 8, 30, 1u);
    w.blocks.pop_back();
    QVERIFY(message(w).contains(QStringLiteral("1 blocks for n_layer 2")));
    w = randomWeights(2, 2, 4, 8, 30, 1u);
    w.config.nHead = 3;
    QVERIFY(message(w).contains(QStringLiteral("n_embd 4 is not divisible by n_head 3")));
    // A weight that is not a number: refused, not shown.
    attn::Gpt2Weights nan = randomWeights(2, 2, 4, 8, 30, 1u);
    std::vector<float> values(12 * 4, std::nanf(""));
    nan.blocks[0].attnWeight.data = values.data();
    QVERIFY(message(nan).contains(QStringLiteral("Layer 0, head 0")));
}

QTEST_APPLESS_MAIN(TestGpt2)
#include "tst_gpt2.moc"
