// SPDX-License-Identifier: GPL-3.0-or-later
// The decoder-model interface (core/decoder_model.h) over GPT-2
// (Gpt2DecoderModel): its pass is runGpt2's bit for bit; a hook that
// changes nothing changes no bit; a head's context zeroed or set to its
// column means gives the logits of a plain float64 loop ablating the same
// head (tests/common/plaingpt2.h) within 1e-9; the residual stream kept
// after each block, read out, is the plain loop's logit lens; head()
// recomputes a head bit for bit; the cancel flag stops the pass. Random
// weights of tiny-gpt2's shape (2 layers of 4 heads, E 16, 64 positions,
// 50257 tokens) and of others, built in memory as tst_gpt2 does.

#include "decoder_model.h"
#include "gpt2.h"
#include "kernels.h"
#include "plaingpt2.h"

#include <QtTest>

#include <atomic>
#include <cmath>
#include <memory>
#include <vector>

namespace {

using namespace plaingpt2;

// The plain loop and the pass are both float64 over the same float32
// weights and differ by the order of the sums (about 1e-15 here).
constexpr double kPlainTolerance = 1e-9;

std::unique_ptr<attn::Gpt2DecoderModel> makeModel(const attn::Gpt2Weights& weights)
{
    auto model = attn::Gpt2DecoderModel::create(weights);
    if (!model)
        qFatal("Gpt2DecoderModel::create: %s", model.error().message.c_str());
    return std::move(model).value();
}

bool sameTop(const std::vector<attn::TopToken>& a, const std::vector<attn::TopToken>& b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].id != b[i].id || a[i].logit != b[i].logit || a[i].probability != b[i].probability)
            return false;
    return true;
}

// Every number of two passes, bit for bit.
bool sameResult(const attn::DecoderResult& a, const attn::DecoderResult& b)
{
    if (a.tokenIds != b.tokenIds || a.divisors.values != b.divisors.values || a.temperature != b.temperature
        || a.layers.size() != b.layers.size() || !sameBits(a.embedded, b.embedded)
        || !sameBits(a.finalHidden, b.finalHidden) || !sameBits(a.lastLogits, b.lastLogits)
        || !sameBits(a.logits, b.logits) || !sameTop(a.top, b.top))
        return false;
    for (std::size_t l = 0; l < a.layers.size(); ++l) {
        const attn::DecoderLayer& x = a.layers[l];
        const attn::DecoderLayer& y = b.layers[l];
        if (!sameBits(x.attentionInput, y.attentionInput) || !sameBits(x.hidden, y.hidden)
            || x.heads.size() != y.heads.size())
            return false;
        for (std::size_t h = 0; h < x.heads.size(); ++h)
            if (!sameHead(x.heads[h], y.heads[h]))
                return false;
    }
    return true;
}

// The shapes of the data rows: tiny-gpt2's, and one with its own lm_head.
void addShapeColumns()
{
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("embd");
    QTest::addColumn<int>("vocab");
    QTest::addColumn<bool>("tied");
    QTest::addColumn<int>("tokens");
}

struct Case {
    attn::Gpt2Weights weights;
    std::vector<int> ids;
};

Case caseOf(int layers, int heads, int embd, int vocab, bool tied, int tokens)
{
    return {randomWeights(layers, heads, embd, 64, vocab, 41u + unsigned(embd), tied),
            randomIds(tokens, vocab, 7u + unsigned(tokens))};
}

}  // namespace

class TestDecoderModel : public QObject {
    Q_OBJECT

private slots:
    void config();
    void createRefusesBadWeights();
    void passIsRunGpt2_data();
    void passIsRunGpt2();
    void noOpHookChangesNothing();
    void ablationAgainstPlainLoop_data();
    void ablationAgainstPlainLoop();
    void logitLens_data();
    void logitLens();
    void readOutRefusesOtherWidths();
    void headRecomputed();
    void maskWhatIfAgainstPlainLoop_data();
    void maskWhatIfAgainstPlainLoop();
    void maskWhatIfRefused();
    void cancelFlag();
};

void TestDecoderModel::config()
{
    const auto model = makeModel(randomWeights(2, 4, 16, 64, 50257, 1u));
    const attn::DecoderConfig& c = model->config();
    QCOMPARE(c.family, std::string("gpt2"));
    QCOMPARE(c.layers, 2);
    QCOMPARE(c.heads, 4);
    QCOMPARE(c.kvHeads, 4);
    QCOMPARE(c.headDim, 4);
    QCOMPARE(c.width, 16);
    QCOMPARE(c.contextWidth(), 16);
    QCOMPARE(c.vocabSize, 50257);
    QCOMPARE(c.maxPositions, 64);
    for (int h = 0; h < 4; ++h)
        QCOMPARE(c.kvHeadOf(h), h);
    const attn::HeadDivisors d = model->standardDivisors();
    QCOMPARE(d.nLayer, 2);
    QCOMPARE(d.nHead, 4);
    QCOMPARE(d.values, std::vector<double>(8, 2.0));  // sqrt(head_dim 4)

    // Grouped-query attention: 8 query heads over 2 key/value heads.
    attn::DecoderConfig gqa = c;
    gqa.heads = 8;
    gqa.kvHeads = 2;
    const std::vector<int> expected = {0, 0, 0, 0, 1, 1, 1, 1};
    for (int h = 0; h < 8; ++h)
        QCOMPARE(gqa.kvHeadOf(h), expected[std::size_t(h)]);
}

void TestDecoderModel::createRefusesBadWeights()
{
    attn::Gpt2Weights w = randomWeights(2, 2, 4, 8, 30, 1u);
    w.blocks[1].fcWeight.cols = 15;
    const auto model = attn::Gpt2DecoderModel::create(w);
    QVERIFY(!model.ok());
    QCOMPARE(model.error().message, attn::validateGpt2Weights(w).error().message);
}

void TestDecoderModel::passIsRunGpt2_data()
{
    addShapeColumns();
    QTest::addColumn<int>("threads");
    QTest::addColumn<bool>("keepMaps");
    QTest::addRow("tiny-gpt2 shape, n 12") << 2 << 4 << 16 << 50257 << true << 12 << 1 << true;
    QTest::addRow("tiny-gpt2 shape, 3 threads, no maps") << 2 << 4 << 16 << 50257 << true << 12 << 3 << false;
    QTest::addRow("3x2, E 10, own lm_head, n 9") << 3 << 2 << 10 << 33 << false << 9 << 2 << true;
}

void TestDecoderModel::passIsRunGpt2()
{
    QFETCH(int, layers);
    QFETCH(int, heads);
    QFETCH(int, embd);
    QFETCH(int, vocab);
    QFETCH(bool, tied);
    QFETCH(int, tokens);
    QFETCH(int, threads);
    QFETCH(bool, keepMaps);
    const Case c = caseOf(layers, heads, embd, vocab, tied, tokens);
    const auto model = makeModel(c.weights);
    withBothProducts([&] {
        attn::DecoderRunOptions options;
        options.divisors = model->standardDivisors();
        QVERIFY(options.divisors.set(attn::ScaleMode::Custom, 3.5, embd / heads, 1, 1));
        options.temperature = 0.8;
        options.topK = 7;
        options.keepMaps = keepMaps;
        options.allLogits = true;
        options.keepHidden = true;
        options.threads = threads;
        const auto viaModel = model->run(c.ids, options);
        const auto viaRunGpt2 = attn::runGpt2(c.weights, c.ids, options);
        QVERIFY2(viaModel.ok(), viaModel.ok() ? "" : viaModel.error().message.c_str());
        QVERIFY(viaRunGpt2.ok());
        QVERIFY(sameResult(*viaModel, *viaRunGpt2));
        QCOMPARE(int(viaModel->layers.size()), layers);
        QCOMPARE(viaModel->layers[0].heads.empty(), !keepMaps);
        QCOMPARE(viaModel->embedded.rows(), Eigen::Index(tokens));

        // Defaults: the standard divisors, no logits but the last, nothing kept.
        const auto lean = model->run(c.ids);
        QVERIFY(lean.ok());
        QVERIFY(sameResult(*lean, *attn::runGpt2(c.weights, c.ids)));
        QCOMPARE(lean->divisors.values, model->standardDivisors().values);
        QCOMPARE(lean->embedded.size(), Eigen::Index(0));
        QCOMPARE(lean->logits.size(), Eigen::Index(0));
    });
}

void TestDecoderModel::noOpHookChangesNothing()
{
    const Case c = caseOf(2, 4, 16, 50257, true, 12);
    const auto model = makeModel(c.weights);
    withBothProducts([&] {
        for (const int threads : {1, 3}) {
            attn::DecoderRunOptions options;
            options.allLogits = true;
            options.keepHidden = true;
            options.threads = threads;
            const auto plain = model->run(c.ids, options);
            QVERIFY(plain.ok());
            // The hook sees each head once, layer by layer, head by head, its
            // context as the attention made it, and reads it only.
            std::vector<std::pair<int, int>> calls;
            bool contextsAreTheHeads = true;
            options.headOutput = [&](int layer, int head, Eigen::Ref<attn::Matrix> context) {
                calls.emplace_back(layer, head);
                const attn::Matrix& own = plain->layers[std::size_t(layer)].heads[std::size_t(head)].context;
                contextsAreTheHeads = contextsAreTheHeads && sameBits(attn::Matrix(context), own);
            };
            const auto hooked = model->run(c.ids, options);
            QVERIFY(hooked.ok());
            QVERIFY(sameResult(*hooked, *plain));
            QVERIFY(contextsAreTheHeads);
            QCOMPARE(int(calls.size()), 8);
            for (int i = 0; i < 8; ++i)
                QCOMPARE(calls[std::size_t(i)], std::make_pair(i / 4, i % 4));
        }
    });
}

void TestDecoderModel::ablationAgainstPlainLoop_data()
{
    addShapeColumns();
    QTest::addColumn<int>("layer");
    QTest::addColumn<int>("head");
    QTest::addColumn<bool>("mean");
    QTest::addColumn<int>("threads");
    for (const bool mean : {false, true}) {
        const char* kind = mean ? "mean" : "zero";
        QTest::addRow("tiny-gpt2 shape, %s, (0, 2)", kind)
            << 2 << 4 << 16 << 50257 << true << 12 << 0 << 2 << mean << 1;
        QTest::addRow("tiny-gpt2 shape, %s, (1, 3), 3 threads", kind)
            << 2 << 4 << 16 << 50257 << true << 12 << 1 << 3 << mean << 3;
        QTest::addRow("3x2, E 10, own lm_head, %s, (1, 0)", kind)
            << 3 << 2 << 10 << 33 << false << 9 << 1 << 0 << mean << 1;
        QTest::addRow("3x2, E 10, own lm_head, %s, (2, 1), n 1", kind)
            << 3 << 2 << 10 << 33 << false << 1 << 2 << 1 << mean << 2;
    }
}

void TestDecoderModel::ablationAgainstPlainLoop()
{
    QFETCH(int, layers);
    QFETCH(int, heads);
    QFETCH(int, embd);
    QFETCH(int, vocab);
    QFETCH(bool, tied);
    QFETCH(int, tokens);
    QFETCH(int, layer);
    QFETCH(int, head);
    QFETCH(bool, mean);
    QFETCH(int, threads);
    const Case c = caseOf(layers, heads, embd, vocab, tied, tokens);
    const auto model = makeModel(c.weights);
    const attn::HeadDivisors divisors = model->standardDivisors();
    PlainAblation ablation;
    ablation.layer = layer;
    ablation.head = head;
    ablation.mean = mean;
    const PlainPass expected = plainPass(c.weights, c.ids, divisors, ablation);
    const PlainPass intact = plainPass(c.weights, c.ids, divisors);
    withBothProducts([&] {
        attn::DecoderRunOptions options;
        options.allLogits = true;
        options.keepHidden = true;
        options.threads = threads;
        const auto plain = model->run(c.ids, options);
        options.headOutput =
            attn::ablationHook({{layer, head}}, mean ? attn::HeadAblation::Mean : attn::HeadAblation::Zero);
        const auto r = model->run(c.ids, options);
        QVERIFY(plain.ok() && r.ok());

        VERIFY_WITHIN(relativeDiff(r->logits, expected.logits), kPlainTolerance, "logits");
        VERIFY_WITHIN(relativeDiff(r->lastLogits, expected.logits.bottomRows(1)), kPlainTolerance,
                      "last logits");
        VERIFY_WITHIN(relativeDiff(r->finalHidden, expected.finalHidden), kPlainTolerance, "final hidden");
        for (int l = 0; l < layers; ++l)
            VERIFY_WITHIN(relativeDiff(r->layers[std::size_t(l)].hidden, expected.hidden[std::size_t(l)]),
                          kPlainTolerance, "block output");
        // The ablation did something (with one token a mean is the token's
        // own context: nothing to change).
        if (!(mean && tokens == 1))
            QVERIFY(relativeDiff(expected.logits, intact.logits) > 1e-6);

        // Before the ablated layer's output projection nothing changed: its
        // heads and those of the layers before it are the plain pass's.
        for (int l = 0; l <= layer; ++l) {
            QVERIFY(sameBits(r->layers[std::size_t(l)].attentionInput,
                             plain->layers[std::size_t(l)].attentionInput));
            for (int h = 0; h < heads; ++h)
                QVERIFY(sameHead(r->layers[std::size_t(l)].heads[std::size_t(h)],
                                 plain->layers[std::size_t(l)].heads[std::size_t(h)]));
        }
        // The top tokens follow the ablated logits.
        QCOMPARE(r->top.front().id, int(std::max_element(r->lastLogits.data(), r->lastLogits.data() + vocab)
                                        - r->lastLogits.data()));
    });
}

void TestDecoderModel::logitLens_data()
{
    addShapeColumns();
    QTest::addColumn<bool>("ablate");
    QTest::addRow("tiny-gpt2 shape") << 2 << 4 << 16 << 50257 << true << 12 << false;
    QTest::addRow("tiny-gpt2 shape, head (0, 1) zeroed") << 2 << 4 << 16 << 50257 << true << 12 << true;
    QTest::addRow("3x2, E 10, own lm_head") << 3 << 2 << 10 << 33 << false << 9 << false;
}

void TestDecoderModel::logitLens()
{
    QFETCH(int, layers);
    QFETCH(int, heads);
    QFETCH(int, embd);
    QFETCH(int, vocab);
    QFETCH(bool, tied);
    QFETCH(int, tokens);
    QFETCH(bool, ablate);
    const Case c = caseOf(layers, heads, embd, vocab, tied, tokens);
    const auto model = makeModel(c.weights);
    PlainAblation ablation;
    if (ablate) {
        ablation.layer = 0;
        ablation.head = 1;
    }
    const PlainPass expected = plainPass(c.weights, c.ids, model->standardDivisors(), ablation);
    withBothProducts([&] {
        attn::DecoderRunOptions options;
        options.allLogits = true;
        options.keepHidden = true;
        if (ablate)
            options.headOutput = attn::ablationHook({{0, 1}}, attn::HeadAblation::Zero);
        const auto r = model->run(c.ids, options);
        QVERIFY(r.ok());
        VERIFY_WITHIN(relativeDiff(r->embedded, expected.embedded), kPlainTolerance, "embedded");
        const auto lens0 = model->readOut(r->embedded);
        QVERIFY(lens0.ok());
        VERIFY_WITHIN(relativeDiff(*lens0, plainReadOut(c.weights, expected.embedded)), kPlainTolerance,
                      "lens of the embeddings");
        for (int l = 0; l < layers; ++l) {
            const auto lens = model->readOut(r->layers[std::size_t(l)].hidden, 2);
            QVERIFY(lens.ok());
            QCOMPARE(lens->rows(), Eigen::Index(tokens));
            QCOMPARE(lens->cols(), Eigen::Index(vocab));
            VERIFY_WITHIN(relativeDiff(*lens, plainReadOut(c.weights, expected.hidden[std::size_t(l)])),
                          kPlainTolerance, "lens after a block");
        }
        // The last block's stream read out is the pass's logits, bit for bit.
        QVERIFY(sameBits(*model->readOut(r->layers.back().hidden), r->logits));
        // One row at a time.
        const auto last = model->readOut(attn::Matrix(r->layers.back().hidden.bottomRows(1)));
        QVERIFY(last.ok());
        VERIFY_WITHIN(relativeDiff(*last, r->lastLogits), kPlainTolerance, "one row");
    });
}

void TestDecoderModel::readOutRefusesOtherWidths()
{
    const auto model = makeModel(randomWeights(1, 2, 8, 8, 20, 3u));
    const auto wide = model->readOut(attn::Matrix::Zero(3, 9));
    QVERIFY(!wide.ok());
    QVERIFY2(QString::fromStdString(wide.error().message).contains(QStringLiteral("3 x 9")),
             wide.error().message.c_str());
    QVERIFY(!model->readOut(attn::Matrix(0, 8)).ok());
    QVERIFY(model->readOut(attn::Matrix::Zero(1, 8)).ok());
}

void TestDecoderModel::headRecomputed()
{
    const Case c = caseOf(3, 4, 24, 70, true, 13);
    const auto model = makeModel(c.weights);
    withBothProducts([&] {
        attn::DecoderRunOptions options;
        options.divisors = model->standardDivisors();
        QVERIFY(options.divisors.set(attn::ScaleMode::Custom, 2.5, 6, 2, 1));
        // With a head ablated in layer 0: the later layers' inputs carry it,
        // and each head is recomputed from its layer's kept input.
        options.headOutput = attn::ablationHook({{0, 3}}, attn::HeadAblation::Mean);
        const auto kept = model->run(c.ids, options);
        QVERIFY(kept.ok());
        options.keepMaps = false;
        const auto lean = model->run(c.ids, options);
        QVERIFY(lean.ok());
        QVERIFY(sameBits(lean->lastLogits, kept->lastLogits));
        for (int l = 0; l < 3; ++l) {
            QVERIFY(lean->layers[std::size_t(l)].heads.empty());
            for (int h = 0; h < 4; ++h) {
                const auto again = model->head(*lean, l, h);
                QVERIFY(again.ok());
                QVERIFY2(sameHead(*again, kept->layers[std::size_t(l)].heads[std::size_t(h)]),
                         qPrintable(QStringLiteral("layer %1 head %2").arg(l).arg(h)));
                QVERIFY(sameHead(*again, *attn::gpt2Head(c.weights, *lean, l, h)));
            }
        }
        QCOMPARE(model->head(*lean, 2, 1)->divisor, 2.5);
        QVERIFY(!model->head(*lean, 3, 0).ok());
        QVERIFY(!model->head(*lean, 0, 4).ok());
        QVERIFY(!model->head(*lean, -1, 0).ok());
        // A pass of another model.
        const auto other = makeModel(randomWeights(3, 2, 24, 64, 70, 5u))->run(c.ids);
        QVERIFY(other.ok());
        const auto foreign = model->head(*other, 0, 0);
        QVERIFY(!foreign.ok());
        QCOMPARE(foreign.error().message, std::string("The result is not one of this model's passes."));
    });
}

void TestDecoderModel::maskWhatIfAgainstPlainLoop_data()
{
    QTest::addColumn<QString>("mask");
    QTest::addColumn<int>("sink");    // -1: no sinks
    QTest::addColumn<int>("window");  // 0: every earlier key
    QTest::addColumn<int>("tokens");
    QTest::newRow("causal") << QStringLiteral("causal") << -1 << 0 << 9;
    QTest::newRow("sliding:1, each token itself") << QStringLiteral("sliding:1") << -1 << 1 << 7;
    QTest::newRow("sliding:3") << QStringLiteral("sliding:3") << -1 << 3 << 11;
    QTest::newRow("sink:1,window:2") << QStringLiteral("sink:1,window:2") << 1 << 2 << 12;
    QTest::newRow("sink:4,window:1") << QStringLiteral("sink:4,window:1") << 4 << 1 << 10;
    QTest::newRow("sink:0,window:5") << QStringLiteral("sink:0,window:5") << 0 << 5 << 13;
}

// The what-if mask (DecoderRunOptions::mask) against the plain loop with the
// same keys written as a rule: every head's scores and weights and the
// logits; the result says its mask, and head() recomputes with it.
void TestDecoderModel::maskWhatIfAgainstPlainLoop()
{
    QFETCH(QString, mask);
    QFETCH(int, sink);
    QFETCH(int, window);
    QFETCH(int, tokens);
    const Case c = caseOf(2, 4, 16, 60, true, tokens);
    const auto model = makeModel(c.weights);
    const PlainSeen seen = [&](int i, int j) {
        return j <= i && (window == 0 || j > i - window || j < sink);
    };
    const PlainPass plain = plainPass(c.weights, c.ids, model->standardDivisors(), {}, seen);
    withBothProducts([&] {
        attn::DecoderRunOptions options;
        options.mask = attn::parseAttentionMask(mask.toStdString()).value();
        options.allLogits = true;
        const auto r = model->run(c.ids, options);
        QVERIFY(r.ok());
        QCOMPARE(QString::fromStdString(r->mask.name()), mask);
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 4; ++h) {
                const attn::AttentionResult& got = r->layers[std::size_t(l)].heads[std::size_t(h)];
                const PlainHead& want = plain.heads[std::size_t(l)][std::size_t(h)];
                const QString where = QStringLiteral("layer %1 head %2").arg(l).arg(h);
                for (int i = 0; i < tokens; ++i)
                    for (int j = 0; j < tokens; ++j)
                        QVERIFY2(got.isMasked(i, j) == !seen(i, j), qPrintable(where));
                QVERIFY2(relativeDiff(got.weightsMatrix(), want.weights) <= 1e-12, qPrintable(where));
                QVERIFY2(relativeDiff(got.scores, want.scores) <= 1e-12, qPrintable(where));
                const auto again = model->head(*r, l, h);
                QVERIFY(again.ok());
                QVERIFY(sameHead(*again, got));
            }
        VERIFY_WITHIN(relativeDiff(r->logits, plain.logits), kPlainTolerance, "logits");
    });
}

void TestDecoderModel::maskWhatIfRefused()
{
    const Case c = caseOf(1, 2, 8, 20, true, 5);
    const auto model = makeModel(c.weights);
    attn::DecoderRunOptions options;
    options.mask = attn::AttentionMask::none();
    const auto none = model->run(c.ids, options);
    QVERIFY(!none.ok());
    QVERIFY2(
        QString::fromStdString(none.error().message).contains(QStringLiteral("must hide the keys after")),
        none.error().message.c_str());
    options.mask = attn::AttentionMask::sliding(0);
    const auto zero = model->run(c.ids, options);
    QVERIFY(!zero.ok());
    QVERIFY2(QString::fromStdString(zero.error().message).contains(QStringLiteral("window must be from 1")),
             zero.error().message.c_str());
    // A window as wide as the sentence: causal's numbers bit for bit.
    options.mask = attn::AttentionMask::sliding(5);
    const auto wide = model->run(c.ids, options);
    const auto own = model->run(c.ids);
    QVERIFY(wide.ok() && own.ok());
    QVERIFY(own->mask == attn::AttentionMask::causal());
    QVERIFY(sameBits(wide->lastLogits, own->lastLogits));
    QVERIFY(sameBits(wide->layers[0].heads[1].weightsMatrix(), own->layers[0].heads[1].weightsMatrix()));
}

void TestDecoderModel::cancelFlag()
{
    // E 600 and 3 threads: the heads shared among threads, each checking the flag.
    const Case c = {randomWeights(2, 6, 600, 8, 5000, 11u), randomIds(6, 5000, 2u)};
    const auto model = makeModel(c.weights);
    attn::DecoderRunOptions options;
    options.threads = 3;
    options.allLogits = true;
    options.keepHidden = true;
    const auto plain = model->run(c.ids, options);
    QVERIFY(plain.ok());

    // A flag that stays unset changes no bit.
    std::atomic<bool> flag{false};
    options.cancel = &flag;
    const auto unset = model->run(c.ids, options);
    QVERIFY(unset.ok());
    QVERIFY(sameResult(*unset, *plain));

    // Set: the pass stops, told by its kind (ErrorKind::Cancelled) and
    // kDecoderCancelled, with either thread count.
    flag = true;
    for (const int threads : {1, 3}) {
        options.threads = threads;
        const auto stopped = model->run(c.ids, options);
        QVERIFY(attn::isCancelled(stopped));
        QCOMPARE(stopped.error().message, std::string(attn::kDecoderCancelled));
    }
    // Set by a hook in layer 0 (as another thread might): the pass stops
    // before layer 1.
    flag = false;
    int calls = 0;
    options.headOutput = [&](int layer, int, Eigen::Ref<attn::Matrix>) {
        ++calls;
        QCOMPARE(layer, 0);
        flag = true;
    };
    const auto stopped = model->run(c.ids, options);
    QVERIFY(attn::isCancelled(stopped));
    QCOMPARE(calls, 6);
    // Bad input is still told as such, before any layer runs.
    const auto bad = model->run({}, options);
    QVERIFY(!bad.ok());
    QVERIFY(QString::fromStdString(bad.error().message).contains(QStringLiteral("no tokens")));
    QVERIFY(!attn::isCancelled(bad));
}

QTEST_APPLESS_MAIN(TestDecoderModel)
#include "tst_decoder_model.moc"
