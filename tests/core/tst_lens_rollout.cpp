// SPDX-License-Identifier: GPL-3.0-or-later
// The logit lens and attention rollout (core/lens_rollout.h) over GPT-2
// passes of random weights built in memory (tests/common/plaingpt2.h),
// against the plain float64 pass: each layer's stream read out by plain
// loops (the top 5 in the same order, probabilities within 1e-12), and
// rollout written again as loops over the plain weights (within 1e-12),
// its rows summing to 1; a hand-worked rollout of one layer; the lens
// stopped by its cancel flag.

#include "decoder_model.h"
#include "gpt2.h"
#include "lens_rollout.h"
#include "plaingpt2.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <numeric>
#include <vector>

namespace {

using namespace plaingpt2;

constexpr double kTolerance = 1e-12;

std::unique_ptr<attn::Gpt2DecoderModel> makeModel(const attn::Gpt2Weights& weights)
{
    auto model = attn::Gpt2DecoderModel::create(weights);
    if (!model)
        qFatal("Gpt2DecoderModel::create: %s", model.error().message.c_str());
    return std::move(model).value();
}

// Rollout as the definition says, over the plain pass's weights.
attn::Matrix plainRollout(const PlainPass& p)
{
    const Eigen::Index n = p.heads[0][0].weights.rows();
    attn::Matrix r = attn::Matrix::Identity(n, n);
    for (const std::vector<PlainHead>& layer : p.heads) {
        attn::Matrix b(n, n);
        for (Eigen::Index i = 0; i < n; ++i) {
            double sum = 0;
            for (Eigen::Index j = 0; j < n; ++j) {
                double mean = 0;
                for (const PlainHead& head : layer)
                    mean += head.weights(i, j);
                b(i, j) = 0.5 * mean / double(layer.size()) + (i == j ? 0.5 : 0.0);
                sum += b(i, j);
            }
            for (Eigen::Index j = 0; j < n; ++j)
                b(i, j) /= sum;
        }
        attn::Matrix next(n, n);
        for (Eigen::Index i = 0; i < n; ++i)
            for (Eigen::Index j = 0; j < n; ++j) {
                double s = 0;
                for (Eigen::Index m = 0; m < n; ++m)
                    s += b(i, m) * r(m, j);
                next(i, j) = s;
            }
        r = next;
    }
    return r;
}

}  // namespace

class TestLensRollout : public QObject {
    Q_OBJECT

private slots:
    void lensAgainstPlainLoop();
    void lensNeedsTheStream();
    void lensStopsWhenCancelled();
    void rolloutAgainstPlainLoop_data();
    void rolloutAgainstPlainLoop();
};

void TestLensRollout::lensAgainstPlainLoop()
{
    const attn::Gpt2Weights w = randomWeights(3, 2, 10, 64, 300, 11u, false);
    const std::vector<int> ids = randomIds(9, 300, 4u);
    const auto model = makeModel(w);
    const PlainPass plain = plainPass(w, ids, model->standardDivisors());
    attn::DecoderRunOptions options;
    options.keepHidden = true;
    options.temperature = 1.5;
    const auto r = model->run(ids, options);
    QVERIFY(r.ok());
    const auto lens = attn::logitLens(*model, *r, 5, 1.5, 2);
    QVERIFY2(lens.ok(), lens.ok() ? "" : lens.error().message.c_str());
    QCOMPARE(lens->layers, 3);
    QCOMPARE(lens->positions, 9);
    for (int l = 0; l < 3; ++l) {
        const attn::Matrix logits = plainReadOut(w, plain.hidden[std::size_t(l)]);
        for (int i = 0; i < 9; ++i) {
            // The plain top 5 and probabilities.
            std::vector<int> order(300);
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(),
                             [&](int a, int b) { return logits(i, a) > logits(i, b); });
            double top = -INFINITY, sum = 0;
            for (int t = 0; t < 300; ++t)
                top = std::max(top, logits(i, t) / 1.5);
            for (int t = 0; t < 300; ++t)
                sum += std::exp(logits(i, t) / 1.5 - top);
            const std::vector<attn::TopToken>& got = lens->at(l, i);
            QCOMPARE(int(got.size()), 5);
            for (int k = 0; k < 5; ++k) {
                QCOMPARE(got[std::size_t(k)].id, order[std::size_t(k)]);
                VERIFY_WITHIN(std::abs(got[std::size_t(k)].probability
                                       - std::exp(logits(i, order[std::size_t(k)]) / 1.5 - top) / sum),
                              kTolerance, "probability");
            }
        }
    }
    // The last layer's lens at the last position is the pass's next tokens.
    for (int k = 0; k < 5; ++k) {
        QCOMPARE(lens->at(2, 8)[std::size_t(k)].id, r->top[std::size_t(k)].id);
        QCOMPARE(lens->at(2, 8)[std::size_t(k)].probability, r->top[std::size_t(k)].probability);
    }
}

void TestLensRollout::lensNeedsTheStream()
{
    const auto model = makeModel(randomWeights(1, 2, 8, 8, 20, 3u));
    const auto r = model->run({1, 2, 3});
    QVERIFY(r.ok());
    QVERIFY(!attn::logitLens(*model, *r, 5, 1.0).ok());
    attn::DecoderRunOptions options;
    options.keepHidden = true;
    QVERIFY(!attn::logitLens(*model, *model->run({1, 2, 3}, options), 0, 1.0).ok());
}

void TestLensRollout::lensStopsWhenCancelled()
{
    const auto model = makeModel(randomWeights(2, 2, 8, 8, 20, 5u));
    attn::DecoderRunOptions options;
    options.keepHidden = true;
    const auto r = model->run({1, 2, 3, 4}, options);
    QVERIFY(r.ok());
    std::atomic<bool> stop{true};
    const auto stopped = attn::logitLens(*model, *r, 3, 1.0, 1, &stop);
    QVERIFY(attn::isCancelled(stopped));
    // A flag never set: the numbers of a lens without one, bit for bit.
    stop = false;
    const auto flagged = attn::logitLens(*model, *r, 3, 1.0, 1, &stop);
    const auto plain = attn::logitLens(*model, *r, 3, 1.0);
    QVERIFY(flagged.ok() && plain.ok());
    for (std::size_t c = 0; c < plain->tops.size(); ++c)
        for (std::size_t k = 0; k < 3; ++k) {
            QCOMPARE(flagged->tops[c][k].id, plain->tops[c][k].id);
            QCOMPARE(flagged->tops[c][k].probability, plain->tops[c][k].probability);
        }
}

void TestLensRollout::rolloutAgainstPlainLoop_data()
{
    QTest::addColumn<bool>("keepMaps");
    QTest::addColumn<bool>("ablate");
    QTest::addRow("kept maps") << true << false;
    QTest::addRow("heads recomputed") << false << false;
    QTest::addRow("head (0, 1) zeroed") << true << true;
}

void TestLensRollout::rolloutAgainstPlainLoop()
{
    QFETCH(bool, keepMaps);
    QFETCH(bool, ablate);
    const attn::Gpt2Weights w = randomWeights(2, 4, 16, 64, 50257, 13u);
    const std::vector<int> ids = randomIds(11, 50257, 6u);
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
        const auto rollout = attn::attentionRollout(*model, *r);
        QVERIFY(rollout.ok());
        VERIFY_WITHIN(absDiff(*rollout, plainRollout(plain)), kTolerance, "rollout");
        for (int i = 0; i < 11; ++i) {
            VERIFY_WITHIN(std::abs(rollout->row(i).sum() - 1.0), kTolerance, "row sum");
            for (int j = i + 1; j < 11; ++j)
                QCOMPARE((*rollout)(i, j), 0.0);  // causal all the way
        }
    });
}

QTEST_APPLESS_MAIN(TestLensRollout)
#include "tst_lens_rollout.moc"
