// SPDX-License-Identifier: GPL-3.0-or-later
// The mask what-if of a model (DecoderRunOptions::mask, issue 40: "what if
// this model could see only the last 8 tokens?") on the two reference
// checkpoints as the readers give them (tests/data/gpt2/tiny-gpt2, GPT-2
// with learned positions; tests/data/llama/tiny-llama, RoPE and 4 query
// heads over 2 key/value heads), over every sentence of their
// reference.json:
//   - sliding:W with W as wide as the sentence or wider sees what causal
//     sees: every number of the intact pass, bit for bit;
//   - a small window, or sinks plus a window: every head's raw scores and
//     weights against a plain float64 loop that recomputes the head from
//     its layer's attention input (the projections written out, RoPE by
//     rotate_half, the keys a query sees written as the rule),
//     within 1e-12;
//   - layer 0's input is the intact pass's, so its weights are also the
//     reference's own scores (NumPy, float64) softmaxed over those keys.

#include "gpt2.h"
#include "gpt2checkpoint.h"
#include "llama.h"
#include "llamacheckpoint.h"
#include "plaingpt2.h"
#include "testdata.h"

#include <QtTest>

#include <cmath>
#include <functional>
#include <memory>
#include <vector>

namespace {

using attn::Matrix;
using plaingpt2::sameBits;
using plaingpt2::sameHead;

// Whether query i sees key j.
using Seen = std::function<bool(int i, int j)>;

struct Mask {
    const char* name;
    Seen seen;
};

// The masks of the issue, as its rules: sliding:W sees i - W < j <= i;
// sink:S,window:W also the first S.
std::vector<Mask> smallMasks()
{
    return {{"sliding:1", [](int i, int j) { return j == i; }},
            {"sliding:3", [](int i, int j) { return j <= i && j > i - 3; }},
            {"sink:1,window:2", [](int i, int j) { return j <= i && (j < 1 || j > i - 2); }},
            {"sink:2,window:3", [](int i, int j) { return j <= i && (j < 2 || j > i - 3); }}};
}

// A model read from its folder, with the pieces the plain loop reads.
struct Checkpoint {
    std::unique_ptr<attn::DecoderModel> model;
    std::shared_ptr<attn::Gpt2Weights> gpt2;    // GPT-2
    std::shared_ptr<attn::LlamaWeights> llama;  // Llama
    QJsonObject reference;
};

Checkpoint readCheckpoint(const QString& name)
{
    Checkpoint c;
    if (name == QLatin1String("tiny-gpt2")) {
        const QString folder = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");
        auto read = attnlab::readGpt2Checkpoint(folder);
        if (!read.ok())
            qFatal("readGpt2Checkpoint: %s", read.error().message.c_str());
        c.gpt2 = std::make_shared<attn::Gpt2Weights>(read->weights);
        c.model = attn::Gpt2DecoderModel::create(*c.gpt2).value();
        c.reference = testdata::readJson(QStringLiteral("gpt2/tiny-gpt2/reference.json"));
    } else {
        const QString folder = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/tiny-llama");
        QFile config(folder + QStringLiteral("/config.json"));
        if (!config.open(QIODevice::ReadOnly))
            qFatal("no tiny-llama config.json");
        auto read = attnlab::readLlamaCheckpoint(folder, config.readAll());
        if (!read.ok())
            qFatal("readLlamaCheckpoint: %s", read.error().message.c_str());
        c.llama = std::make_shared<attn::LlamaWeights>(read->weights);
        if (c.llama->config.ropeScaling.enabled)
            qFatal("tiny-llama has no rope_scaling; plainRope does not rescale");
        c.model = attn::LlamaDecoderModel::create(*c.llama).value();
        c.reference = testdata::readJson(QStringLiteral("llama/tiny-llama/reference.json"));
    }
    return c;
}

double at(const attn::FloatTensor& t, int r, int c)
{
    return double(t.data[std::size_t(r) * std::size_t(t.cols) + std::size_t(c)]);
}

// Rows first..first+width-1 of W (out, in) applied to each row of a, plus the bias: a W^T + b.
Matrix plainRows(const Matrix& a, const attn::FloatTensor& W, const attn::FloatTensor& b, int first,
                 int width)
{
    Matrix y(a.rows(), width);
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (int o = 0; o < width; ++o) {
            double s = b.empty() ? 0.0 : at(b, 0, first + o);
            for (Eigen::Index c = 0; c < a.cols(); ++c)
                s += a(i, c) * at(W, first + o, int(c));
            y(i, o) = s;
        }
    return y;
}

// Each row i rotated by position i: x cos + rotate_half(x) sin, angle i / theta^(2j/d).
Matrix plainRope(const Matrix& x, double theta)
{
    const int d = int(x.cols()), half = d / 2;
    Matrix out(x.rows(), d);
    for (Eigen::Index i = 0; i < x.rows(); ++i)
        for (int j = 0; j < d; ++j) {
            const double angle = double(i) / std::pow(theta, double(2 * (j % half)) / double(d));
            const double rotated = j < half ? -x(i, j + half) : x(i, j - half);
            out(i, j) = x(i, j) * std::cos(angle) + rotated * std::sin(angle);
        }
    return out;
}

struct PlainHead {
    Matrix scores, weights;
};

// Head `head` of layer `layer` from the layer's attention input `a`:
// q and k projected, s_ij = q_i . k_j, softmax of s / sqrt(head_dim) over
// the keys `seen` leaves (0 elsewhere).
PlainHead plainHead(const Checkpoint& c, const Matrix& a, int layer, int head, const Seen& seen)
{
    const attn::DecoderConfig& config = c.model->config();
    const int hd = config.headDim, n = int(a.rows());
    Matrix q, k;
    if (c.gpt2) {
        const attn::Gpt2Block& b = c.gpt2->blocks[std::size_t(layer)];
        const Matrix qkv = plaingpt2::plainConv1D(a, b.attnWeight, b.attnBias);
        q = qkv.middleCols(head * hd, hd);
        k = qkv.middleCols(config.width + head * hd, hd);
    } else {
        const attn::LlamaBlock& b = c.llama->blocks[std::size_t(layer)];
        const int kv = head / (config.heads / config.kvHeads);
        q = plainRope(plainRows(a, b.q, b.qBias, head * hd, hd), c.llama->config.ropeTheta);
        k = plainRope(plainRows(a, b.k, b.kBias, kv * hd, hd), c.llama->config.ropeTheta);
    }
    PlainHead p;
    p.scores.resize(n, n);
    p.weights = Matrix::Zero(n, n);
    const double divisor = std::sqrt(double(hd));
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int d = 0; d < hd; ++d)
                s += q(i, d) * k(j, d);
            p.scores(i, j) = s;
        }
        double largest = -INFINITY, sum = 0;
        for (int j = 0; j < n; ++j)
            if (seen(i, j))
                largest = std::max(largest, p.scores(i, j) / divisor);
        for (int j = 0; j < n; ++j)
            if (seen(i, j))
                sum += p.weights(i, j) = std::exp(p.scores(i, j) / divisor - largest);
        for (int j = 0; j < n; ++j)
            p.weights(i, j) /= sum;
    }
    return p;
}

// Largest |a - b| over the cells `seen` leaves, relative to the largest |b| there (at least 1).
double seenDiff(const Matrix& a, const Matrix& b, const Seen& seen)
{
    double worst = 0, scale = 1;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < a.cols(); ++j)
            if (seen(int(i), int(j))) {
                worst = std::max(worst, std::abs(a(i, j) - b(i, j)));
                scale = std::max(scale, std::abs(b(i, j)));
            }
    return worst / scale;
}

std::vector<int> idsOf(const QJsonObject& sentence)
{
    std::vector<int> ids;
    for (const QJsonValue& id : sentence[QStringLiteral("token_ids")].toArray())
        ids.push_back(id.toInt());
    return ids;
}

}  // namespace

class TestModelMasks : public QObject {
    Q_OBJECT

private slots:
    void wideWindowIsTheIntactPass_data();
    void wideWindowIsTheIntactPass();
    void smallMasksAgainstPlainHeads_data();
    void smallMasksAgainstPlainHeads();
};

void TestModelMasks::wideWindowIsTheIntactPass_data()
{
    QTest::addColumn<QString>("checkpoint");
    QTest::newRow("tiny-gpt2") << QStringLiteral("tiny-gpt2");
    QTest::newRow("tiny-llama") << QStringLiteral("tiny-llama");
}

void TestModelMasks::wideWindowIsTheIntactPass()
{
    QFETCH(QString, checkpoint);
    const Checkpoint c = readCheckpoint(checkpoint);
    for (const QJsonValue& sentence : c.reference[QStringLiteral("cases")].toArray()) {
        const std::vector<int> ids = idsOf(sentence.toObject());
        const int n = int(ids.size());
        attn::DecoderRunOptions options;
        options.allLogits = true;
        const auto intact = c.model->run(ids, options);
        QVERIFY(intact.ok());
        QVERIFY(intact->mask == attn::AttentionMask::causal());
        for (const int w : {n, n + 1, 1000}) {
            options.mask = attn::AttentionMask::sliding(w);
            const auto r = c.model->run(ids, options);
            QVERIFY(r.ok());
            QVERIFY(r->mask == attn::AttentionMask::sliding(w));
            QVERIFY(sameBits(r->logits, intact->logits));
            QVERIFY(sameBits(r->finalHidden, intact->finalHidden));
            QCOMPARE(r->top.front().id, intact->top.front().id);
            for (std::size_t l = 0; l < r->layers.size(); ++l) {
                QVERIFY(sameBits(r->layers[l].attentionInput, intact->layers[l].attentionInput));
                for (std::size_t h = 0; h < r->layers[l].heads.size(); ++h) {
                    const attn::AttentionResult& a = r->layers[l].heads[h];
                    const attn::AttentionResult& b = intact->layers[l].heads[h];
                    QVERIFY(sameBits(a.scores, b.scores) && sameBits(a.context, b.context)
                            && sameBits(a.weightsMatrix(), b.weightsMatrix()));
                    for (int i = 0; i < n; ++i)
                        for (int j = 0; j < n; ++j)
                            QCOMPARE(a.isMasked(i, j), j > i);
                }
            }
        }
        // sink:S,window:W with the window as wide: the same.
        options.mask = attn::AttentionMask::sinkWindow(2, n);
        const auto sinks = c.model->run(ids, options);
        QVERIFY(sinks.ok());
        QVERIFY(sameBits(sinks->logits, intact->logits));
    }
}

void TestModelMasks::smallMasksAgainstPlainHeads_data()
{
    QTest::addColumn<QString>("checkpoint");
    QTest::newRow("tiny-gpt2") << QStringLiteral("tiny-gpt2");
    QTest::newRow("tiny-llama") << QStringLiteral("tiny-llama");
}

void TestModelMasks::smallMasksAgainstPlainHeads()
{
    QFETCH(QString, checkpoint);
    const Checkpoint c = readCheckpoint(checkpoint);
    const attn::DecoderConfig& config = c.model->config();
    int compared = 0;
    for (const QJsonValue& value : c.reference[QStringLiteral("cases")].toArray()) {
        const QJsonObject sentence = value.toObject();
        const std::vector<int> ids = idsOf(sentence);
        const int n = int(ids.size());
        const auto intact = c.model->run(ids);
        QVERIFY(intact.ok());
        for (const Mask& mask : smallMasks()) {
            attn::DecoderRunOptions options;
            options.mask = attn::parseAttentionMask(mask.name).value();
            const auto r = c.model->run(ids, options);
            QVERIFY(r.ok());
            QCOMPARE(r->mask.name(), std::string(mask.name));
            // The window changes what the later layers read.
            QVERIFY(!sameBits(r->lastLogits, intact->lastLogits));
            QVERIFY(sameBits(r->layers[0].attentionInput, intact->layers[0].attentionInput));
            for (int l = 0; l < config.layers; ++l) {
                const Matrix& input = r->layers[std::size_t(l)].attentionInput;
                for (int h = 0; h < config.heads; ++h) {
                    const attn::AttentionResult& got = r->layers[std::size_t(l)].heads[std::size_t(h)];
                    const PlainHead want = plainHead(c, input, l, h, mask.seen);
                    const QString where =
                        QStringLiteral("%1 layer %2 head %3 (%4 tokens)").arg(mask.name).arg(l).arg(h).arg(n);
                    for (int i = 0; i < n; ++i)
                        for (int j = 0; j < n; ++j) {
                            QVERIFY2(got.isMasked(i, j) == !mask.seen(i, j), qPrintable(where));
                            QVERIFY2(mask.seen(i, j) || got.weights(i, j) == 0.0, qPrintable(where));
                        }
                    const double scores = seenDiff(got.scores, want.scores, mask.seen);
                    const double weights = plaingpt2::absDiff(got.weightsMatrix(), want.weights);
                    QVERIFY2(scores <= 1e-12, qPrintable(where + QStringLiteral(" scores %1").arg(scores)));
                    QVERIFY2(weights <= 1e-12,
                             qPrintable(where + QStringLiteral(" weights %1").arg(weights)));
                    if (l == 0) {
                        // The reference's own scores of layer 0, softmaxed over the same keys.
                        const QJsonArray rows = sentence[QStringLiteral("layers")]
                                                    .toArray()[0]
                                                    .toObject()[QStringLiteral("heads")]
                                                    .toArray()[h]
                                                    .toObject()[QStringLiteral("scores")]
                                                    .toArray();
                        Matrix ref = Matrix::Zero(n, n);
                        for (int i = 0; i < n; ++i)
                            for (int j = 0; j < n; ++j)
                                if (mask.seen(i, j))
                                    ref(i, j) = rows[i].toArray()[j].toDouble();
                        const PlainHead fromReference = [&] {
                            PlainHead p{ref, Matrix::Zero(n, n)};
                            const double divisor = std::sqrt(double(config.headDim));
                            for (int i = 0; i < n; ++i) {
                                double largest = -INFINITY, sum = 0;
                                for (int j = 0; j < n; ++j)
                                    if (mask.seen(i, j))
                                        largest = std::max(largest, ref(i, j) / divisor);
                                for (int j = 0; j < n; ++j)
                                    if (mask.seen(i, j))
                                        sum += p.weights(i, j) = std::exp(ref(i, j) / divisor - largest);
                                p.weights.row(i) /= sum;
                            }
                            return p;
                        }();
                        const double refDiff = plaingpt2::absDiff(got.weightsMatrix(), fromReference.weights);
                        QVERIFY2(
                            refDiff <= 1e-10,
                            qPrintable(where + QStringLiteral(" against reference.json %1").arg(refDiff)));
                    }
                    ++compared;
                }
            }
        }
    }
    QVERIFY(compared >= 4 * 5 * config.layers * config.heads);
}

QTEST_APPLESS_MAIN(TestModelMasks)
#include "tst_modelmasks.moc"
