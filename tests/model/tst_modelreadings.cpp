// SPDX-License-Identifier: GPL-3.0-or-later
// The head lab's logit lens, rollout and induction probe in the model layer
// (ModelReadings, ModelSession::setProbe) over the tiny reference
// checkpoints (tests/data/gpt2/tiny-gpt2, tests/data/llama/tiny-llama):
// - the lens is a plain loop's: each layer's residual stream of a pass run
//   here, put through the final norm (GPT-2's LayerNorm, Llama's RMSNorm)
//   and the unembedding written out as loops, softmax at the session's
//   temperature; its top 5 in the same order, probabilities within 1e-12;
//   and it is core's attn::logitLens of that pass bit for bit;
// - the rollout is a plain loop's over the pass's weights (the mean of the
//   heads + I over 2, rows renormalised, multiplied layer by layer) within
//   1e-12, its rows summing to 1;
// - with heads ablated and a what-if divisor they read the ablated pass
//   under that divisor (as --ablate with --scale);
// - the probe runs over attn::repeatedSpanIds' tokens, its losses are
//   attn::repeatLoss of the pass here, intact and ablated; the sentence is
//   kept and comes back when the probe ends; a probe too long is refused.

#include "gpt2.h"
#include "head_scores.h"
#include "lens_rollout.h"
#include "llama.h"
#include "modelreadings.h"
#include "modelsession.h"
#include "modelsessionwait.h"

#include <QSignalSpy>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

using attnlab::ModelReadings;
using attnlab::ModelSession;
using attnlab::RepeatProbe;

namespace {

constexpr double kTolerance = 1e-12;

bool open(ModelSession& session, const QString& folder)
{
    QSignalSpy opened(&session, &ModelSession::modelOpened);
    session.openModel(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/") + folder);
    return opened.wait(10000);
}

bool settle(ModelReadings& readings)
{
    return QTest::qWaitFor([&] { return !readings.isComputing(); }, 20000) && readings.hasReadings();
}

using modeltest::ids;
using modeltest::settle;

attn::DecoderResult runHere(const ModelSession& session, attn::HeadOutputHook hook = {})
{
    attn::DecoderRunOptions options;
    options.divisors = session.divisors();
    options.mask = session.maskWhatIf();
    options.keepHidden = true;
    options.headOutput = std::move(hook);
    attn::Expected<attn::DecoderResult> r = session.model()->decoder->run(ids(session), options);
    if (!r)
        qFatal("%s", r.error().message.c_str());
    return std::move(r.value());
}

// The final norm of one residual-stream row, then the unembedding, as loops.
std::vector<double> plainReadOut(const attn::DecoderModel& model, const attn::RowVector& h)
{
    const int width = int(h.size());
    std::vector<double> y(std::size_t(width), 0.0);
    const attn::FloatTensor* unembed = nullptr;
    if (const auto* gpt2 = dynamic_cast<const attn::Gpt2DecoderModel*>(&model)) {
        const attn::Gpt2Weights& w = gpt2->weights();
        double mean = 0.0;
        for (int e = 0; e < width; ++e)
            mean += h(e);
        mean /= width;
        double var = 0.0;
        for (int e = 0; e < width; ++e)
            var += (h(e) - mean) * (h(e) - mean);
        var /= width;
        for (int e = 0; e < width; ++e)
            y[std::size_t(e)] =
                (h(e) - mean) / std::sqrt(var + w.config.layerNormEpsilon) * double(w.lnFWeight.data[e])
                + double(w.lnFBias.data[e]);
        unembed = &w.lmHead;
    } else {
        const auto* llama = dynamic_cast<const attn::LlamaDecoderModel*>(&model);
        if (!llama)
            qFatal("a model of another family");
        const attn::LlamaWeights& w = llama->weights();
        double squares = 0.0;
        for (int e = 0; e < width; ++e)
            squares += h(e) * h(e);
        const double scale = 1.0 / std::sqrt(squares / width + w.config.rmsNormEps);
        for (int e = 0; e < width; ++e)
            y[std::size_t(e)] = h(e) * scale * double(w.norm.data[e]);
        unembed = &w.lmHead;
    }
    std::vector<double> logits(std::size_t(unembed->rows), 0.0);
    for (int v = 0; v < unembed->rows; ++v) {
        double sum = 0.0;
        for (int e = 0; e < width; ++e)
            sum += double(unembed->data[std::size_t(v) * std::size_t(width) + std::size_t(e)])
                   * y[std::size_t(e)];
        logits[std::size_t(v)] = sum;
    }
    return logits;
}

// softmax(logits / T) as loops.
std::vector<double> plainSoftmax(const std::vector<double>& logits, double temperature)
{
    const double top = *std::max_element(logits.begin(), logits.end());
    std::vector<double> p(logits.size());
    double sum = 0.0;
    for (std::size_t v = 0; v < logits.size(); ++v) {
        p[v] = std::exp((logits[v] - top) / temperature);
        sum += p[v];
    }
    for (double& x : p)
        x /= sum;
    return p;
}

// Rollout over the weights of `r` (every head kept), as loops.
std::vector<std::vector<double>> plainRollout(const attn::DecoderResult& r)
{
    const int n = r.tokens();
    std::vector<std::vector<double>> rollout;
    for (const attn::DecoderLayer& layer : r.layers) {
        const int heads = int(layer.heads.size());
        std::vector<std::vector<double>> b(std::size_t(n), std::vector<double>(std::size_t(n), 0.0));
        for (int i = 0; i < n; ++i) {
            double sum = 0.0;
            for (int j = 0; j < n; ++j) {
                double mean = 0.0;
                for (int h = 0; h < heads; ++h)
                    mean += layer.heads[std::size_t(h)].weights(i, j);
                b[std::size_t(i)][std::size_t(j)] = 0.5 * mean / heads + (i == j ? 0.5 : 0.0);
                sum += b[std::size_t(i)][std::size_t(j)];
            }
            for (int j = 0; j < n; ++j)
                b[std::size_t(i)][std::size_t(j)] /= sum;
        }
        if (rollout.empty()) {
            rollout = b;
            continue;
        }
        std::vector<std::vector<double>> next(std::size_t(n), std::vector<double>(std::size_t(n), 0.0));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                for (int k = 0; k < n; ++k)
                    next[std::size_t(i)][std::size_t(j)] +=
                        b[std::size_t(i)][std::size_t(k)] * rollout[std::size_t(k)][std::size_t(j)];
        rollout = next;
    }
    return rollout;
}

// The readings against the plain loops over `expected` (a pass run here).
void compareReadings(const ModelReadings& readings, const attn::DecoderModel& model,
                     const attn::DecoderResult& expected, double temperature)
{
    const attn::LogitLens& lens = readings.lens();
    const int n = expected.tokens();
    QCOMPARE(lens.layers, int(expected.layers.size()));
    QCOMPARE(lens.positions, n);
    for (int l = 0; l < lens.layers; ++l)
        for (int i = 0; i < n; ++i) {
            const std::vector<double> p =
                plainSoftmax(plainReadOut(model, expected.layers[std::size_t(l)].hidden.row(i)), temperature);
            std::vector<int> order(p.size());
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(),
                             [&](int a, int b) { return p[std::size_t(a)] > p[std::size_t(b)]; });
            const std::vector<attn::TopToken>& top = lens.at(l, i);
            QCOMPARE(int(top.size()), ModelReadings::kLensTop);
            for (int k = 0; k < ModelReadings::kLensTop; ++k) {
                QCOMPARE(top[std::size_t(k)].id, order[std::size_t(k)]);
                QVERIFY2(std::abs(top[std::size_t(k)].probability - p[std::size_t(order[std::size_t(k)])])
                             <= kTolerance,
                         qPrintable(QStringLiteral("layer %1 position %2 rank %3").arg(l).arg(i).arg(k)));
            }
        }
    // Core's lens of the pass here, bit for bit.
    const attn::Expected<attn::LogitLens> core = attn::logitLens(model, expected, 5, temperature);
    QVERIFY(core.ok());
    for (std::size_t c = 0; c < core->tops.size(); ++c)
        for (std::size_t k = 0; k < core->tops[c].size(); ++k) {
            QCOMPARE(lens.tops[c][k].id, core->tops[c][k].id);
            QCOMPARE(lens.tops[c][k].probability, core->tops[c][k].probability);
        }
    const std::vector<std::vector<double>> plain = plainRollout(expected);
    const attn::Matrix& rollout = readings.rollout();
    QCOMPARE(int(rollout.rows()), n);
    QCOMPARE(int(rollout.cols()), n);
    for (int i = 0; i < n; ++i) {
        QVERIFY(std::abs(rollout.row(i).sum() - 1.0) <= kTolerance);
        for (int j = 0; j < n; ++j)
            QVERIFY2(std::abs(rollout(i, j) - plain[std::size_t(i)][std::size_t(j)]) <= kTolerance,
                     qPrintable(QStringLiteral("rollout (%1, %2)").arg(i).arg(j)));
    }
}

const QString kSentence = QStringLiteral("The cat sat on the mat. The cat sat on the");

}  // namespace

class TestModelReadings : public QObject {
    Q_OBJECT
private slots:
    void readingsArePlainLoops_data();
    void readingsArePlainLoops();
    void notWantedComputesNothing();
    void probeLossesAreCores_data();
    void probeLossesAreCores();
    void probeTooLongIsRefused();
};

void TestModelReadings::readingsArePlainLoops_data()
{
    QTest::addColumn<QString>("folder");
    QTest::newRow("gpt2") << QStringLiteral("gpt2/tiny-gpt2");
    QTest::newRow("llama") << QStringLiteral("llama/tiny-llama");
}

void TestModelReadings::readingsArePlainLoops()
{
    QFETCH(QString, folder);
    ModelSession session;
    ModelReadings readings(&session);
    QVERIFY(open(session, folder));
    session.setSentence(kSentence);
    QVERIFY(settle(session));
    readings.setWanted(true);
    QVERIFY(settle(readings));
    QVERIFY(readings.ablatedHeads().empty());
    QVERIFY2(readings.passText().contains(QStringLiteral("as trained")), qPrintable(readings.passText()));
    const attn::DecoderModel& model = *session.model()->decoder;
    compareReadings(readings, model, runHere(session), 1.0);

    // A temperature: the lens follows it (a new reading, no new pass).
    QSignalSpy changed(&readings, &ModelReadings::changed);
    QVERIFY(session.setTemperature(0.5).ok());
    QVERIFY(changed.wait(10000));
    QVERIFY(settle(readings));
    QCOMPARE(readings.temperature(), 0.5);
    compareReadings(readings, model, runHere(session), 0.5);
    QVERIFY(session.setTemperature(1.0).ok());

    // No scaling on every layer and L1 H2 mean-ablated: the ablated pass under that divisor.
    QVERIFY(session.setScale(attn::ScaleMode::None, 1.0, attnlab::ScaleScope::AllLayers).ok());
    QVERIFY(session.setAblation({{0, 1}}, attn::HeadAblation::Mean).ok());
    QVERIFY(settle(session));
    QVERIFY(QTest::qWaitFor([&] { return readings.ablatedHeads().size() == 1 && !readings.isComputing(); },
                            20000));
    QCOMPARE(readings.ablation(), attn::HeadAblation::Mean);
    QVERIFY(readings.passText().contains(QStringLiteral("without L1 H2 (mean)")));
    QVERIFY(readings.passText().contains(QStringLiteral("a divisor other than")));
    const attn::DecoderResult ablated =
        runHere(session, attn::ablationHook({{0, 1}}, attn::HeadAblation::Mean));
    compareReadings(readings, model, ablated, 1.0);
    // The ablation changed what the later layers read.
    const attn::Expected<attn::Matrix> intactRollout = attn::attentionRollout(model, runHere(session));
    QVERIFY(intactRollout.ok());
    QVERIFY(!(*intactRollout - readings.rollout()).isZero(0.0));

    // The mask what-if: the pass under it, said in the line.
    QVERIFY(session.setAblation({}, attn::HeadAblation::Zero).ok());
    QVERIFY(session.setMaskWhatIf(attn::AttentionMask::sliding(3)).ok());
    QVERIFY(settle(session));
    QVERIFY(
        QTest::qWaitFor([&] { return readings.ablatedHeads().empty() && !readings.isComputing(); }, 20000));
    QVERIFY(readings.passText().startsWith(QStringLiteral("The intact pass under the what-ifs")));
    QVERIFY(readings.passText().contains(QStringLiteral("mask sliding:3")));
    compareReadings(readings, model, runHere(session), 1.0);
}

void TestModelReadings::notWantedComputesNothing()
{
    ModelSession session;
    ModelReadings readings(&session);
    QVERIFY(open(session, QStringLiteral("gpt2/tiny-gpt2")));
    session.setSentence(kSentence);
    QVERIFY(settle(session));
    QTest::qWait(50);
    QVERIFY(!readings.hasReadings());
    QVERIFY(!readings.isComputing());
    readings.setWanted(true);
    QVERIFY(readings.isComputing());
    QVERIFY(settle(readings));
}

void TestModelReadings::probeLossesAreCores_data()
{
    QTest::addColumn<QString>("folder");
    QTest::newRow("gpt2") << QStringLiteral("gpt2/tiny-gpt2");
    QTest::newRow("llama") << QStringLiteral("llama/tiny-llama");
}

void TestModelReadings::probeLossesAreCores()
{
    QFETCH(QString, folder);
    ModelSession session;
    QVERIFY(open(session, folder));
    session.setSentence(kSentence);
    QVERIFY(settle(session));
    const std::vector<int> sentenceIds = ids(session);
    QVERIFY(!session.resultProbe());
    QVERIFY(!session.probeLoss());

    const RepeatProbe probe{7, 3};
    ModelReadings readings(&session);
    readings.setWanted(true);
    QVERIFY(session.setProbe(probe).ok());
    QVERIFY(settle(session));
    QVERIFY(
        QTest::qWaitFor([&] { return readings.tokens().size() == 14 && !readings.isComputing(); }, 20000));
    QVERIFY2(readings.passText().endsWith(QStringLiteral("Over the probe's 14 random tokens (R 7, seed 3).")),
             qPrintable(readings.passText()));
    QVERIFY(session.resultProbe() && *session.resultProbe() == probe);
    const attn::DecoderModel& model = *session.model()->decoder;
    const attn::Expected<std::vector<int>> drawn =
        attn::repeatedSpanIds(7, 3, attn::repeatProbeIdRange(model.config().vocabSize));
    QVERIFY(drawn.ok());
    QVERIFY(ids(session) == *drawn);
    QCOMPARE(int(drawn->size()), 14);
    const auto expectLoss = [&](const attn::DecoderResult& r) {
        const attn::Expected<std::vector<double>> losses = attn::nextTokenLosses(model, r);
        if (!losses)
            qFatal("%s", losses.error().message.c_str());
        const attn::Expected<attn::RepeatLoss> loss = attn::repeatLoss(*losses, 7);
        if (!loss)
            qFatal("%s", loss.error().message.c_str());
        return loss.value();
    };
    const attn::RepeatLoss intact = expectLoss(runHere(session));
    QVERIFY(session.probeLoss().has_value());
    QCOMPARE(session.probeLoss()->first, intact.first);
    QCOMPARE(session.probeLoss()->second, intact.second);
    // A plain mean of the losses at offsets 1..R-1, from the pass's logits.
    {
        attn::DecoderRunOptions all;
        all.allLogits = true;
        const attn::Expected<attn::DecoderResult> r = model.run(*drawn, all);
        QVERIFY(r.ok());
        double first = 0.0, second = 0.0;
        for (int offset = 1; offset < 7; ++offset)
            for (int repeat = 0; repeat < 2; ++repeat) {
                const int i = repeat * 7 + offset - 1;  // predicts token i + 1
                std::vector<double> row(std::size_t(r->logits.cols()));
                for (int v = 0; v < int(row.size()); ++v)
                    row[std::size_t(v)] = r->logits(i, v);
                const double loss =
                    -std::log(plainSoftmax(row, 1.0)[std::size_t((*drawn)[std::size_t(i + 1)])]);
                (repeat == 0 ? first : second) += loss;
            }
        QVERIFY(std::abs(session.probeLoss()->first - first / 6) <= 1e-12);
        QVERIFY(std::abs(session.probeLoss()->second - second / 6) <= 1e-12);
    }
    QVERIFY(!session.ablatedProbeLoss());

    // Ablated: the loss of the ablated pass beside it.
    QVERIFY(session.setAblation({{1, 0}}, attn::HeadAblation::Zero).ok());
    QVERIFY(settle(session));
    QVERIFY(session.ablatedProbeLoss().has_value());
    const attn::RepeatLoss ablated =
        expectLoss(runHere(session, attn::ablationHook({{1, 0}}, attn::HeadAblation::Zero)));
    QCOMPARE(session.ablatedProbeLoss()->first, ablated.first);
    QCOMPARE(session.ablatedProbeLoss()->second, ablated.second);

    // A sentence typed meanwhile is kept, and runs once the probe ends.
    session.setSentence(QStringLiteral("A new sentence"));
    QVERIFY(!session.isComputing());
    QVERIFY(ids(session) == *drawn);
    QVERIFY(session.setProbe(std::nullopt).ok());
    QVERIFY(settle(session));
    QVERIFY(!session.resultProbe());
    QVERIFY(!session.probeLoss());
    QCOMPARE(session.sentence(), QStringLiteral("A new sentence"));
    QVERIFY(ids(session) == session.model()->tokenizer->encodeIds(QStringLiteral("A new sentence")));
    QVERIFY(ids(session) != sentenceIds);
}

void TestModelReadings::probeTooLongIsRefused()
{
    ModelSession session;
    QVERIFY(open(session, QStringLiteral("gpt2/tiny-gpt2")));
    session.setSentence(kSentence);
    QVERIFY(settle(session));
    const int positions = session.config().maxPositions;
    const attn::Status tooLong = session.setProbe(RepeatProbe{positions / 2 + 1, 0});
    QVERIFY(!tooLong.ok());
    QVERIFY(QString::fromStdString(tooLong.error().message).contains(QString::number(positions)));
    QVERIFY(!session.setProbe(RepeatProbe{1, 0}).ok());
    QVERIFY(!session.probe());
    QVERIFY(!session.isComputing());
    QVERIFY(!session.resultProbe());
}

QTEST_GUILESS_MAIN(TestModelReadings)
#include "tst_modelreadings.moc"
