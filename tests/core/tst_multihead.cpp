// SPDX-License-Identifier: GPL-3.0-or-later
// Multi-head attention against torch.nn.MultiheadAttention (PyTorch's
// float32 numbers and their float64 recomputation, tests/data/
// torch_mha_cases.json), against the article's multi-head draws
// (raschka_self_attention.json, multi_head_derived), and against a plain
// loop over heads written here from the formulas.

#include "attention.h"
#include "model.h"
#include "multihead.h"
#include "multihead_init.h"
#include "statistics.h"
#include "testdata.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace {

struct TorchCase {
    QJsonObject json;
    attn::Matrix x;
    attn::SplitHeads params;
    attn::AttentionOptions options;
};

attn::RowVector toRow(const QJsonValue& value)
{
    const attn::Matrix m = testdata::toMatrix(value);
    return m.row(0);
}

TorchCase torchCase(int index)
{
    TorchCase c;
    c.json = testdata::readJson("torch_mha_cases.json")["cases"].toArray()[index].toObject();
    c.x = testdata::toMatrix(c.json["x"]);
    c.params.heads = c.json["h"].toInt();
    c.params.inProjWeight = testdata::toMatrix(c.json["in_proj_weight"]);
    c.params.inProjBias = toRow(c.json["in_proj_bias"]);
    c.params.outProjWeight = testdata::toMatrix(c.json["out_proj_weight"]);
    c.params.outProjBias = toRow(c.json["out_proj_bias"]);
    c.options.causal = c.json["causal"].toBool();
    return c;
}

int torchCaseCount()
{
    return int(testdata::readJson("torch_mha_cases.json")["cases"].toArray().size());
}

// Largest |a - b| over the largest |b| (at least 1): rounding of the same
// float64 computation in another order.
double relativeDiff(const attn::Matrix& a, const attn::Matrix& b)
{
    const double scale = b.size() ? std::max(1.0, b.cwiseAbs().maxCoeff()) : 1.0;
    return testdata::maxAbsDiff(a, b) / scale;
}

#define VERIFY_WITHIN(diff, tolerance, what) \
    QVERIFY2(                                \
        (diff) <= (tolerance),               \
        qPrintable(                          \
            QStringLiteral("%1: max |diff| %2 > %3").arg(QStringLiteral(what)).arg(diff).arg(tolerance)))

// The reference written from the formulas, one loop per sum.
struct PlainHead {
    attn::Matrix Q, K, V, scores, weights, context;
};
struct PlainResult {
    std::vector<PlainHead> heads;
    attn::Matrix average, concat, output;
};

attn::Matrix plainProduct(const attn::Matrix& a, const attn::Matrix& b)
{
    attn::Matrix c(a.rows(), b.cols());
    for (int i = 0; i < a.rows(); ++i)
        for (int j = 0; j < b.cols(); ++j) {
            double sum = 0;
            for (int p = 0; p < a.cols(); ++p)
                sum += a(i, p) * b(p, j);
            c(i, j) = sum;
        }
    return c;
}

double plainDivisor(const attn::AttentionOptions& o, int dK)
{
    return o.scale == attn::ScaleMode::SqrtDk ? std::sqrt(double(dK))
           : o.scale == attn::ScaleMode::None ? 1.0
                                              : o.customDivisor;
}

PlainHead plainHead(attn::Matrix Q, attn::Matrix K, attn::Matrix V, const attn::AttentionOptions& o)
{
    PlainHead h;
    const int n = int(Q.rows());
    h.scores = plainProduct(Q, K.transpose());
    h.weights = attn::Matrix::Zero(n, n);
    const double divisor = plainDivisor(o, int(Q.cols()));
    for (int i = 0; i < n; ++i) {
        const int keys = o.causal ? i + 1 : n;
        double largest = -INFINITY;
        for (int j = 0; j < keys; ++j)
            largest = std::max(largest, h.scores(i, j) / divisor);
        double sum = 0;
        for (int j = 0; j < keys; ++j)
            sum += h.weights(i, j) = std::exp(h.scores(i, j) / divisor - largest);
        for (int j = 0; j < keys; ++j)
            h.weights(i, j) /= sum;
    }
    h.context = plainProduct(h.weights, V);
    h.Q = std::move(Q);
    h.K = std::move(K);
    h.V = std::move(V);
    return h;
}

void plainFinish(PlainResult* r, int n)
{
    const int h = int(r->heads.size());
    const int dV = int(r->heads.front().V.cols());
    r->average = attn::Matrix::Zero(n, n);
    r->concat.resize(n, h * dV);
    for (int i = 0; i < h; ++i) {
        for (int q = 0; q < n; ++q) {
            for (int k = 0; k < n; ++k)
                r->average(q, k) += r->heads[std::size_t(i)].weights(q, k) / h;
            for (int c = 0; c < dV; ++c)
                r->concat(q, i * dV + c) = r->heads[std::size_t(i)].context(q, c);
        }
    }
}

PlainResult plainIndependent(const attn::Matrix& X, const attn::IndependentHeads& p,
                             const attn::AttentionOptions& o)
{
    PlainResult r;
    for (const attn::HeadWeights& w : p.heads)
        r.heads.push_back(plainHead(plainProduct(X, w.Wq), plainProduct(X, w.Wk), plainProduct(X, w.Wv), o));
    plainFinish(&r, int(X.rows()));
    if (p.Wo.size())
        r.output = plainProduct(r.concat, p.Wo);
    return r;
}

PlainResult plainSplit(const attn::Matrix& X, const attn::SplitHeads& p, const attn::AttentionOptions& o)
{
    const int n = int(X.rows()), e = int(X.cols()), hd = e / p.heads;
    // q_i = sum_c x_c W(i, c) + b_i, nn.Linear's convention.
    auto linear = [&](int row0, int rows) {
        attn::Matrix out(n, rows);
        for (int t = 0; t < n; ++t)
            for (int f = 0; f < rows; ++f) {
                double sum = p.inProjBias[row0 + f];
                for (int c = 0; c < e; ++c)
                    sum += X(t, c) * p.inProjWeight(row0 + f, c);
                out(t, f) = sum;
            }
        return out;
    };
    PlainResult r;
    for (int i = 0; i < p.heads; ++i)
        r.heads.push_back(
            plainHead(linear(i * hd, hd), linear(e + i * hd, hd), linear(2 * e + i * hd, hd), o));
    plainFinish(&r, n);
    r.output.resize(n, e);
    for (int t = 0; t < n; ++t)
        for (int f = 0; f < e; ++f) {
            double sum = p.outProjBias[f];
            for (int c = 0; c < e; ++c)
                sum += r.concat(t, c) * p.outProjWeight(f, c);
            r.output(t, f) = sum;
        }
    return r;
}

attn::Matrix randomMatrix(std::mt19937& rng, int rows, int cols, double scale = 1.0)
{
    std::normal_distribution<double> dist(0.0, scale);
    attn::Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = dist(rng);
    return m;
}

void compareWithPlain(const attn::MultiHeadResult& r, const PlainResult& plain, double tolerance)
{
    QCOMPARE(r.headCount(), int(plain.heads.size()));
    for (int i = 0; i < r.headCount(); ++i) {
        const attn::AttentionResult& head = r.heads[std::size_t(i)];
        const PlainHead& p = plain.heads[std::size_t(i)];
        VERIFY_WITHIN(relativeDiff(head.Q, p.Q), tolerance, "Q");
        VERIFY_WITHIN(relativeDiff(head.K, p.K), tolerance, "K");
        VERIFY_WITHIN(relativeDiff(head.V, p.V), tolerance, "V");
        VERIFY_WITHIN(relativeDiff(head.scores, p.scores), tolerance, "scores");
        VERIFY_WITHIN(relativeDiff(head.weightsMatrix(), p.weights), tolerance, "weights");
        VERIFY_WITHIN(relativeDiff(head.context, p.context), tolerance, "context");
        for (int q = 0; q < head.tokens(); ++q)
            for (int k = 0; k < head.tokens(); ++k)
                QCOMPARE(std::isinf(head.scaled(q, k)), head.isMasked(q, k));
    }
    VERIFY_WITHIN(relativeDiff(r.weightsAverage, plain.average), tolerance, "average");
    VERIFY_WITHIN(relativeDiff(r.concat, plain.concat), tolerance, "concat");
    QCOMPARE(r.hasOutput(), plain.output.size() > 0);
    if (r.hasOutput())
        VERIFY_WITHIN(relativeDiff(r.output, plain.output), tolerance, "output");
}

void addOptionsRows(const char* shape)
{
    const attn::ScaleMode modes[] = {attn::ScaleMode::SqrtDk, attn::ScaleMode::None, attn::ScaleMode::Custom};
    for (const attn::ScaleMode mode : modes)
        for (const bool causal : {false, true})
            QTest::addRow("%s %s%s", shape, attn::scaleModeName(mode), causal ? " causal" : "")
                << int(mode) << causal;
}

}  // namespace

class TestMultiHead : public QObject {
    Q_OBJECT
private slots:
    void torchCases_data();
    void torchCases();
    void torchMhaInitReproducesCases_data();
    void torchMhaInitReproducesCases();
    void articleMultiHead();
    void oneHeadIsTheSingleHead();
    void independentHeadsKeepTheSingleHeadsNumbers();
    void splitHeadsAreTheirColumnBlocks();
    void independentAgainstPlainLoops_data();
    void independentAgainstPlainLoops();
    void splitAgainstPlainLoops_data();
    void splitAgainstPlainLoops();
    void threadsDoNotChangeTheNumbers();
    void recomputedHeadsAreTheWholePass_data();
    void recomputedHeadsAreTheWholePass();
    void headAloneIsTheWholePassHead_data();
    void headAloneIsTheWholePassHead();
    void headDrawnAloneIsTheHeadsDraw();
    void badInput_data();
    void badInput();
};

void TestMultiHead::torchCases_data()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < torchCaseCount(); ++i) {
        const TorchCase c = torchCase(i);
        QTest::addRow("case %d: E=%d h=%d%s%s", i, c.json["E"].toInt(), c.params.heads,
                      c.options.causal ? " causal" : "", c.json["biased"].toBool() ? " biased" : "")
            << i;
    }
}

void TestMultiHead::torchCases()
{
    QFETCH(int, index);
    const TorchCase c = torchCase(index);
    const attn::Expected<attn::MultiHeadResult> r = attn::computeMultiHead(c.x, c.params, c.options);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
    const int h = c.params.heads, hd = c.json["head_dim"].toInt();
    QCOMPARE(r->headCount(), h);
    QCOMPARE(int(r->heads[0].Q.cols()), hd);
    QCOMPARE(r->layout, attn::HeadLayout::Split);

    // PyTorch's float32 numbers.
    VERIFY_WITHIN(testdata::maxAbsDiff(r->output, testdata::toMatrix(c.json["attn_output"])), 1e-5, "output");
    VERIFY_WITHIN(testdata::maxAbsDiff(r->weightsAverage, testdata::toMatrix(c.json["attn_weights_average"])),
                  1e-5, "average");
    const QJsonArray perHead = c.json["attn_weights_per_head"].toArray();
    QCOMPARE(int(perHead.size()), h);
    for (int i = 0; i < h; ++i)
        VERIFY_WITHIN(
            testdata::maxAbsDiff(r->heads[std::size_t(i)].weightsMatrix(), testdata::toMatrix(perHead[i])),
            1e-5, "head weights");

    // The float64 recomputation from the same float32 parameters.
    const QJsonObject f = c.json["float64"].toObject();
    const attn::Matrix Q = testdata::toMatrix(f["Q"]), K = testdata::toMatrix(f["K"]),
                       V = testdata::toMatrix(f["V"]);
    const QJsonArray heads = f["heads"].toArray();
    attn::Matrix average = attn::Matrix::Zero(c.x.rows(), c.x.rows());
    for (int i = 0; i < h; ++i) {
        const attn::AttentionResult& head = r->heads[std::size_t(i)];
        VERIFY_WITHIN(relativeDiff(head.Q, Q.middleCols(i * hd, hd)), 1e-12, "Q");
        VERIFY_WITHIN(relativeDiff(head.K, K.middleCols(i * hd, hd)), 1e-12, "K");
        VERIFY_WITHIN(relativeDiff(head.V, V.middleCols(i * hd, hd)), 1e-12, "V");
        const QJsonObject ref = heads[i].toObject();
        VERIFY_WITHIN(relativeDiff(head.scores, testdata::toMatrix(ref["scores"])), 1e-12, "scores");
        const attn::Matrix weights = testdata::toMatrix(ref["weights"]);
        VERIFY_WITHIN(testdata::maxAbsDiff(head.weightsMatrix(), weights), 1e-12, "weights");
        average += weights;
    }
    average /= double(h);
    VERIFY_WITHIN(testdata::maxAbsDiff(r->weightsAverage, average), 1e-12, "average");
    VERIFY_WITHIN(relativeDiff(r->concat, testdata::toMatrix(f["concat"])), 1e-12, "concat");
    VERIFY_WITHIN(relativeDiff(r->output, testdata::toMatrix(f["attn_output"])), 1e-12, "output");
    // Masked entries: -inf scaled, zero weight, in every head.
    if (c.options.causal) {
        for (const attn::AttentionResult& head : r->heads) {
            QCOMPARE(head.scaled(0, 1), -std::numeric_limits<double>::infinity());
            QCOMPARE(head.weights(0, 1), 0.0);
            QCOMPARE(head.weights(0, 0), 1.0);
        }
    }
}

void TestMultiHead::torchMhaInitReproducesCases_data()
{
    torchCases_data();
}

void TestMultiHead::torchMhaInitReproducesCases()
{
    QFETCH(int, index);
    const TorchCase c = torchCase(index);
    const int e = c.json["E"].toInt();
    const attn::SplitHeads drawn = attn::drawTorchMha(std::uint64_t(c.json["seed"].toInteger()), e,
                                                      c.params.heads, c.json["biased"].toBool());
    // uniform_ on float32 from the same generator: bit for bit.
    QCOMPARE(testdata::maxAbsDiff(drawn.inProjWeight, c.params.inProjWeight), 0.0);
    QCOMPARE(testdata::maxAbsDiff(drawn.outProjWeight, c.params.outProjWeight), 0.0);
    QCOMPARE(testdata::maxAbsDiff(drawn.inProjBias, c.params.inProjBias), 0.0);
    QCOMPARE(testdata::maxAbsDiff(drawn.outProjBias, c.params.outProjBias), 0.0);
    QCOMPARE(drawn.heads, c.params.heads);

    // The input: the article's embedding with d_model = E after the same seed.
    attn::ModelConfig config;
    config.sentence = c.json["sentence"].toString().toStdString();
    config.seed = std::uint64_t(c.json["seed"].toInteger());
    config.dModel = e;
    const attn::Expected<attn::Model> model = attn::buildModel(config);
    QVERIFY(model.ok());
    const QJsonArray ids = c.json["token_ids"].toArray();
    QCOMPARE(int(model->tokenization.ids.size()), int(ids.size()));
    for (int i = 0; i < ids.size(); ++i)
        QCOMPARE(model->tokenization.ids[std::size_t(i)], ids[i].toInt());
    // normal_ values, within 2 float32 ulp as tst_model holds the article's.
    VERIFY_WITHIN(testdata::maxAbsDiff(model->X, c.x), 5e-7, "x");
}

void TestMultiHead::articleMultiHead()
{
    const QJsonObject ref = testdata::readJson("raschka_self_attention.json");
    const QJsonObject mh = ref["multi_head_derived"].toObject();
    const int h = mh["h"].toInt();
    QCOMPARE(h, 3);
    const attn::ModelConfig config;  // the article's example
    const attn::Expected<attn::Model> model = attn::buildModel(config);
    QVERIFY(model.ok());
    attn::IndependentHeads params;
    params.heads = attn::drawIndependentHeads(config, h);
    QCOMPARE(int(params.heads.size()), h);
    const attn::Expected<attn::MultiHeadResult> r = attn::computeMultiHead(model->X, params, {});
    QVERIFY(r.ok());
    for (int i = 0; i < h; ++i) {
        const attn::HeadWeights& w = params.heads[std::size_t(i)];
        // torch.rand is bit-exact; W_q^i = multihead_W_query[i]^T.
        QCOMPARE(
            testdata::maxAbsDiff(w.Wq, testdata::toMatrix(mh["multihead_W_query"].toArray()[i]).transpose()),
            0.0);
        QCOMPARE(
            testdata::maxAbsDiff(w.Wk, testdata::toMatrix(mh["multihead_W_key"].toArray()[i]).transpose()),
            0.0);
        QCOMPARE(
            testdata::maxAbsDiff(w.Wv, testdata::toMatrix(mh["multihead_W_value"].toArray()[i]).transpose()),
            0.0);
        // PyTorch's float32 results, with tst_model's tolerances; the heads'
        // scores are larger than the single head's (up to 168), and float32's
        // rounding of them moves a weight by up to 6.6e-7.
        const attn::AttentionResult& head = r->heads[std::size_t(i)];
        VERIFY_WITHIN(testdata::maxAbsDiff(head.Q, testdata::toMatrix(mh["queries"].toArray()[i])), 2e-6,
                      "Q");
        VERIFY_WITHIN(testdata::maxAbsDiff(head.K, testdata::toMatrix(mh["keys"].toArray()[i])), 2e-6, "K");
        VERIFY_WITHIN(testdata::maxAbsDiff(head.V, testdata::toMatrix(mh["values"].toArray()[i])), 2e-6, "V");
        VERIFY_WITHIN(testdata::maxAbsDiff(head.scores, testdata::toMatrix(mh["scores"].toArray()[i])), 3e-5,
                      "scores");
        VERIFY_WITHIN(
            testdata::maxAbsDiff(head.weightsMatrix(), testdata::toMatrix(mh["weights"].toArray()[i])), 1e-6,
            "weights");
        // The contexts reach 5.2 (values from weights in [0, 1)): float32's
        // rounding relative to that.
        VERIFY_WITHIN(relativeDiff(head.context, testdata::toMatrix(mh["context"].toArray()[i])), 1e-6,
                      "context");
        // The article's query_2 per head: x_2 (token 1) through head i.
        VERIFY_WITHIN(
            testdata::maxAbsDiff(head.Q.row(1), testdata::toMatrix(mh["multihead_query_2"].toArray()[i])),
            2e-6, "query_2");
    }
    // context[:, 1, :] concatenated is the concat's row 1 (3 x 28 = 84).
    QCOMPARE(int(r->concat.cols()), 3 * 28);
    for (int i = 0; i < h; ++i)
        QCOMPARE(
            testdata::maxAbsDiff(r->concat.block(1, i * 28, 1, 28), r->heads[std::size_t(i)].context.row(1)),
            0.0);
}

void TestMultiHead::oneHeadIsTheSingleHead()
{
    // h = 1 in the article mode: today's head, and today's numbers bit for bit.
    const attn::ModelConfig config;
    const attn::Expected<attn::Model> model = attn::buildModel(config);
    QVERIFY(model.ok());
    attn::IndependentHeads params;
    params.heads = attn::drawIndependentHeads(config, 1);
    QCOMPARE(testdata::maxAbsDiff(params.heads[0].Wq, model->Wq), 0.0);
    QCOMPARE(testdata::maxAbsDiff(params.heads[0].Wk, model->Wk), 0.0);
    QCOMPARE(testdata::maxAbsDiff(params.heads[0].Wv, model->Wv), 0.0);
    const attn::Expected<attn::MultiHeadResult> r = attn::computeMultiHead(model->X, params, {});
    const attn::Expected<attn::AttentionResult> single =
        attn::computeAttention(model->X, model->Wq, model->Wk, model->Wv, {});
    QVERIFY(r.ok() && single.ok());
    QCOMPARE(testdata::maxAbsDiff(r->heads[0].scores, single->scores), 0.0);
    QCOMPARE(testdata::maxAbsDiff(r->heads[0].weightsMatrix(), single->weightsMatrix()), 0.0);
    QCOMPARE(testdata::maxAbsDiff(r->weightsAverage, single->weightsMatrix()), 0.0);
    QCOMPARE(testdata::maxAbsDiff(r->concat, single->context), 0.0);
    QVERIFY(!r->hasOutput());
}

void TestMultiHead::independentHeadsKeepTheSingleHeadsNumbers()
{
    // Each head is the single-head pass: its result and statistics equal
    // computeAttentionWithStatistics on its weights, bit for bit.
    std::mt19937 rng(5);
    const attn::Matrix X = randomMatrix(rng, 37, 19);
    attn::IndependentHeads params;
    for (int i = 0; i < 4; ++i)
        params.heads.push_back(
            {randomMatrix(rng, 19, 6, 0.4), randomMatrix(rng, 19, 6, 0.4), randomMatrix(rng, 19, 5)});
    attn::AttentionOptions options;
    options.causal = true;
    const attn::Expected<attn::MultiHeadResult> r = attn::computeMultiHead(X, params, options);
    QVERIFY(r.ok());
    for (int i = 0; i < 4; ++i) {
        const attn::HeadWeights& w = params.heads[std::size_t(i)];
        attn::AttentionResult single;
        attn::AttentionStats stats;
        QVERIFY(attn::computeAttentionWithStatistics(X, w.Wq, w.Wk, w.Wv, options, &single, &stats).ok());
        const attn::AttentionResult& head = r->heads[std::size_t(i)];
        QCOMPARE(testdata::maxAbsDiff(head.scores, single.scores), 0.0);
        QCOMPARE(testdata::maxAbsDiff(head.weightsMatrix(), single.weightsMatrix()), 0.0);
        QCOMPARE(testdata::maxAbsDiff(head.context, single.context), 0.0);
        const attn::AttentionStats& got = r->stats[std::size_t(i)];
        QCOMPARE(got.rawVariance, stats.rawVariance);
        QCOMPARE(got.meanEntropyNats, stats.meanEntropyNats);
        QCOMPARE(got.meanJacobianNorm, stats.meanJacobianNorm);
        QCOMPARE(int(got.rows.size()), 37);
        for (std::size_t q = 0; q < got.rows.size(); ++q) {
            QCOMPARE(got.rows[q].maxWeight, stats.rows[q].maxWeight);
            QCOMPARE(got.rows[q].argMax, stats.rows[q].argMax);
            QCOMPARE(got.rows[q].entropyNats, stats.rows[q].entropyNats);
            QCOMPARE(got.rows[q].jacobianNorm, stats.rows[q].jacobianNorm);
        }
        // And the statistics from the stored result, as the window takes them.
        QCOMPARE(attn::computeStatistics(head).meanEntropyNats, stats.meanEntropyNats);
    }
}

void TestMultiHead::splitHeadsAreTheirColumnBlocks()
{
    // Without biases head i of the split layout is the single-head pass on
    // its slices of in_proj_weight (the packed product's column block).
    std::mt19937 rng(11);
    const int e = 24, h = 4;
    const attn::Matrix X = randomMatrix(rng, 29, e);
    attn::SplitHeads p = attn::drawTorchMha(9, e, h);
    const attn::Expected<attn::MultiHeadResult> r = attn::computeMultiHead(X, p, {});
    QVERIFY(r.ok());
    for (int i = 0; i < h; ++i) {
        const attn::HeadWeights w = p.head(i);
        QCOMPARE(int(w.Wq.rows()), e);
        QCOMPARE(int(w.Wq.cols()), e / h);
        const attn::Expected<attn::AttentionResult> single = attn::computeAttention(X, w.Wq, w.Wk, w.Wv, {});
        QVERIFY(single.ok());
        VERIFY_WITHIN(relativeDiff(r->heads[std::size_t(i)].scores, single->scores), 1e-14, "scores");
        VERIFY_WITHIN(testdata::maxAbsDiff(r->heads[std::size_t(i)].weightsMatrix(), single->weightsMatrix()),
                      1e-14, "weights");
    }
    // packSplitHeads puts the heads back: the same parameters' heads.
    std::vector<attn::HeadWeights> heads;
    for (int i = 0; i < h; ++i)
        heads.push_back(p.head(i));
    const attn::SplitHeads packed = attn::packSplitHeads(heads);
    QCOMPARE(testdata::maxAbsDiff(packed.inProjWeight, p.inProjWeight), 0.0);
    QCOMPARE(testdata::maxAbsDiff(packed.outProjWeight, attn::Matrix::Identity(e, e)), 0.0);
}

void TestMultiHead::independentAgainstPlainLoops_data()
{
    QTest::addColumn<int>("scale");
    QTest::addColumn<bool>("causal");
    addOptionsRows("shapes");
}

void TestMultiHead::independentAgainstPlainLoops()
{
    QFETCH(int, scale);
    QFETCH(bool, causal);
    attn::AttentionOptions options;
    options.scale = attn::ScaleMode(scale);
    options.customDivisor = 2.75;
    options.causal = causal;
    struct Shape {
        int n, dModel, h, dK, dV;
        bool wo;
    };
    // n = 1, d_model not a multiple of 8, up to 64 heads, with and without W_o.
    const Shape shapes[] = {{1, 5, 1, 3, 2, false},   {1, 7, 4, 2, 3, true},   {6, 13, 3, 5, 4, true},
                            {17, 31, 8, 9, 7, false}, {9, 11, 64, 3, 2, true}, {70, 20, 2, 16, 12, true}};
    std::mt19937 rng(std::uint32_t(scale * 2 + causal));
    for (const Shape& s : shapes) {
        const attn::Matrix X = randomMatrix(rng, s.n, s.dModel);
        attn::IndependentHeads params;
        for (int i = 0; i < s.h; ++i)
            params.heads.push_back({randomMatrix(rng, s.dModel, s.dK, 0.5),
                                    randomMatrix(rng, s.dModel, s.dK, 0.5),
                                    randomMatrix(rng, s.dModel, s.dV)});
        if (s.wo)
            params.Wo = randomMatrix(rng, s.h * s.dV, s.dModel);
        const attn::Expected<attn::MultiHeadResult> r = attn::computeMultiHead(X, params, options);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        compareWithPlain(r.value(), plainIndependent(X, params, options), 1e-12);
        if (QTest::currentTestFailed())
            qWarning("shape n=%d d_model=%d h=%d", s.n, s.dModel, s.h);
    }
}

void TestMultiHead::splitAgainstPlainLoops_data()
{
    independentAgainstPlainLoops_data();
}

void TestMultiHead::splitAgainstPlainLoops()
{
    QFETCH(int, scale);
    QFETCH(bool, causal);
    attn::AttentionOptions options;
    options.scale = attn::ScaleMode(scale);
    options.customDivisor = 0.6;
    options.causal = causal;
    struct Shape {
        int n, e, h;
    };
    const Shape shapes[] = {{1, 5, 1},   {1, 6, 3},   {7, 13, 13}, {12, 30, 5},
                            {5, 64, 64}, {40, 36, 4}, {3, 128, 64}};
    std::mt19937 rng(std::uint32_t(100 + scale * 2 + causal));
    for (const Shape& s : shapes) {
        const attn::Matrix X = randomMatrix(rng, s.n, s.e);
        attn::SplitHeads p;
        p.heads = s.h;
        p.inProjWeight = randomMatrix(rng, 3 * s.e, s.e, 0.3);
        p.inProjBias = randomMatrix(rng, 1, 3 * s.e).row(0);
        p.outProjWeight = randomMatrix(rng, s.e, s.e, 0.3);
        p.outProjBias = randomMatrix(rng, 1, s.e).row(0);
        const attn::Expected<attn::MultiHeadResult> r = attn::computeMultiHead(X, p, options);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        compareWithPlain(r.value(), plainSplit(X, p, options), 1e-12);
        if (QTest::currentTestFailed())
            qWarning("shape n=%d E=%d h=%d", s.n, s.e, s.h);
    }
}

void TestMultiHead::threadsDoNotChangeTheNumbers()
{
    std::mt19937 rng(3);
    const attn::Matrix X = randomMatrix(rng, 300, 48);
    const attn::SplitHeads p = attn::drawTorchMha(1, 48, 6, true);
    attn::MultiHeadResult one, three;
    QVERIFY(attn::computeMultiHeadInto(X, p, {}, &one, 1).ok());
    QVERIFY(attn::computeMultiHeadInto(X, p, {}, &three, 3).ok());
    QCOMPARE(testdata::maxAbsDiff(one.weightsAverage, three.weightsAverage), 0.0);
    QCOMPARE(testdata::maxAbsDiff(one.output, three.output), 0.0);
    QCOMPARE(one.stats[5].meanEntropyNats, three.stats[5].meanEntropyNats);
    // A copy on any number of threads is the result, field by field.
    for (const int threads : {1, 2, 5}) {
        const attn::MultiHeadResult copy = attn::copyMultiHeadResult(one, threads);
        QCOMPARE(copy.layout, one.layout);
        QCOMPARE(copy.headCount(), 6);
        for (int h = 0; h < 6; ++h) {
            const attn::AttentionResult& a = copy.heads[std::size_t(h)];
            const attn::AttentionResult& b = one.heads[std::size_t(h)];
            for (const auto& [x, y] : {std::pair{&a.Q, &b.Q},
                                       {&a.K, &b.K},
                                       {&a.V, &b.V},
                                       {&a.scores, &b.scores},
                                       {&a.context, &b.context}})
                QCOMPARE(testdata::maxAbsDiff(*x, *y), 0.0);
            QCOMPARE(testdata::maxAbsDiff(a.weightsMatrix(), b.weightsMatrix()), 0.0);
            QCOMPARE(copy.stats[std::size_t(h)].meanEntropyNats, one.stats[std::size_t(h)].meanEntropyNats);
        }
        QCOMPARE(testdata::maxAbsDiff(copy.weightsAverage, one.weightsAverage), 0.0);
        QCOMPARE(testdata::maxAbsDiff(copy.concat, one.concat), 0.0);
        QCOMPARE(testdata::maxAbsDiff(copy.output, one.output), 0.0);
        QCOMPARE(testdata::maxAbsDiff(copy.inProjection, one.inProjection), 0.0);
        QVERIFY(copy.inProjection.size() > 0);
    }
    // A cancelled pass says so.
    const std::atomic<bool> cancel{true};
    QVERIFY(attn::isCancelled(attn::computeMultiHeadInto(X, p, {}, &three, 1, &cancel)));
}

void TestMultiHead::badInput_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("message");
    QTest::newRow("no heads") << 0 << "between 1 and 64; got 0";
    QTest::newRow("65 heads") << 1 << "between 1 and 64; got 65";
    QTest::newRow("h does not divide E") << 2 << "3 heads do not divide E = 16";
    QTest::newRow("in_proj_weight shape")
        << 3 << "in_proj_weight has shape (48 x 15) but (48 x 16) = (3E x E)";
    QTest::newRow("in_proj_bias size") << 4 << "in_proj_bias has shape (1 x 16) but (48) = (3E)";
    QTest::newRow("out_proj.weight shape")
        << 5 << "out_proj.weight has shape (16 x 17) but (16 x 16) = (E x E)";
    QTest::newRow("out_proj.bias size") << 6 << "out_proj.bias has shape (1 x 15) but (16) = (E)";
    QTest::newRow("head shapes differ") << 7 << "Head 2 has d_k = 5 and d_v = 3";
    QTest::newRow("W_o rows") << 8 << "W_o is (7 x 16) but must have h d_v = 6 rows";
    QTest::newRow("non-finite bias") << 9 << "in_proj_bias, row 1, column 3";
    QTest::newRow("head weight shape") << 10 << "Head 1: W_q is (15 x 4)";
}

void TestMultiHead::badInput()
{
    QFETCH(int, which);
    QFETCH(QString, message);
    std::mt19937 rng(1);
    const attn::Matrix X = randomMatrix(rng, 4, 16);
    attn::SplitHeads p = attn::drawTorchMha(0, 16, 4);
    attn::IndependentHeads ind;
    ind.heads.assign(2, {randomMatrix(rng, 16, 4), randomMatrix(rng, 16, 4), randomMatrix(rng, 16, 3)});
    bool split = true;
    switch (which) {
    case 0:
        ind.heads.clear();
        split = false;
        break;
    case 1: p.heads = 65; break;
    case 2: p.heads = 3; break;
    case 3: p.inProjWeight = randomMatrix(rng, 48, 15); break;
    case 4: p.inProjBias = attn::RowVector::Zero(16); break;
    case 5: p.outProjWeight = randomMatrix(rng, 16, 17); break;
    case 6: p.outProjBias = attn::RowVector::Zero(15); break;
    case 7:
        ind.heads[1].Wq = ind.heads[1].Wk = randomMatrix(rng, 16, 5);
        split = false;
        break;
    case 8:
        ind.Wo = randomMatrix(rng, 7, 16);
        split = false;
        break;
    case 9: p.inProjBias[2] = std::numeric_limits<double>::quiet_NaN(); break;
    case 10:
        ind.heads[0].Wq = randomMatrix(rng, 15, 4);
        split = false;
        break;
    }
    attn::MultiHeadResult result;
    const attn::Status status = split ? attn::computeMultiHeadInto(X, p, {}, &result)
                                      : attn::computeMultiHeadInto(X, ind, {}, &result);
    QVERIFY(!status.ok());
    const QString got = QString::fromStdString(status.error().message);
    QVERIFY2(got.contains(message), qPrintable(got));
}

void TestMultiHead::recomputedHeadsAreTheWholePass_data()
{
    QTest::addColumn<bool>("split");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("e");
    QTest::addColumn<int>("h");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<int>("threads");
    QTest::addColumn<unsigned>("parts");  // which of W_q, W_k, W_v the edits touch
    const unsigned all = attn::kHeadAllParts;
    QTest::newRow("split 6 tokens") << true << 6 << 16 << 4 << false << 1 << all;
    QTest::newRow("split causal, 2 threads") << true << 37 << 24 << 3 << true << 2 << all;
    QTest::newRow("split 300 tokens, panels") << true << 300 << 40 << 8 << false << 2 << all;
    QTest::newRow("split one token") << true << 1 << 8 << 2 << false << 1 << all;
    QTest::newRow("split W_q alone") << true << 37 << 24 << 3 << true << 2 << unsigned(attn::kHeadQuery);
    QTest::newRow("split W_k alone") << true << 300 << 40 << 8 << false << 2 << unsigned(attn::kHeadKey);
    QTest::newRow("split W_v alone") << true << 37 << 24 << 3 << false << 1 << unsigned(attn::kHeadValue);
    QTest::newRow("independent") << false << 29 << 19 << 3 << false << 1 << all;
    QTest::newRow("independent causal, 2 threads") << false << 270 << 13 << 5 << true << 2 << all;
    QTest::newRow("independent W_q alone")
        << false << 29 << 19 << 3 << true << 1 << unsigned(attn::kHeadQuery);
    QTest::newRow("independent W_v alone")
        << false << 270 << 13 << 5 << false << 2 << unsigned(attn::kHeadValue);
}

// An edit of some heads' weights recomputes those heads alone (told which
// of W_q, W_k, W_v changed: only those products again, and with W_v alone
// the average kept); the result is bit for bit the whole pass over the
// edited parameters.
void TestMultiHead::recomputedHeadsAreTheWholePass()
{
    QFETCH(bool, split);
    QFETCH(int, n);
    QFETCH(int, e);
    QFETCH(int, h);
    QFETCH(bool, causal);
    QFETCH(int, threads);
    QFETCH(unsigned, parts);
    std::mt19937 rng(uint32_t(n * 31 + e));
    const attn::Matrix X = randomMatrix(rng, n, e);
    attn::AttentionOptions options;
    options.causal = causal;
    attn::SplitHeads sp = attn::drawTorchMha(5, e, h, true);
    attn::IndependentHeads ind;
    for (int i = 0; i < h; ++i)
        ind.heads.push_back(
            {randomMatrix(rng, e, 7, 0.5), randomMatrix(rng, e, 7, 0.5), randomMatrix(rng, e, 4)});
    ind.Wo = randomMatrix(rng, h * 4, e);
    attn::MultiHeadResult kept;
    QVERIFY(split ? attn::computeMultiHeadInto(X, sp, options, &kept, threads)
                  : attn::computeMultiHeadInto(X, ind, options, &kept, threads));
    const attn::Matrix original = kept.output;
    // Head 1 and the last head edited: a weight of each, and a bias.
    const std::vector<int> edited = {0, h - 1};
    for (int i : edited) {
        if (split) {
            const int hd = e / h;
            if (parts & attn::kHeadQuery)
                sp.inProjWeight(i * hd, 1) += 0.75;
            if (parts & attn::kHeadValue)
                sp.inProjWeight(2 * e + i * hd + hd - 1, e - 1) -= 0.5;
            if (parts & attn::kHeadKey)
                sp.inProjBias(e + i * hd) += 0.25;
        } else {
            if (parts & attn::kHeadQuery)
                ind.heads[std::size_t(i)].Wq(1, 2) += 0.5;
            if (parts & attn::kHeadKey)
                ind.heads[std::size_t(i)].Wk(2, 3) += 0.75;
            if (parts & attn::kHeadValue)
                ind.heads[std::size_t(i)].Wv(e - 1, 0) -= 0.5;
        }
    }
    const attn::Matrix averageBefore = kept.weightsAverage;
    QVERIFY(split ? attn::recomputeHeadsInto(X, sp, edited, options, &kept, threads, nullptr, parts)
                  : attn::recomputeHeadsInto(X, ind, edited, options, &kept, threads, nullptr, parts));
    attn::MultiHeadResult whole;
    QVERIFY(split ? attn::computeMultiHeadInto(X, sp, options, &whole, 1)
                  : attn::computeMultiHeadInto(X, ind, options, &whole, 1));
    const auto same = [](const attn::Matrix& a, const attn::Matrix& b) {
        return a.rows() == b.rows() && a.cols() == b.cols()
               && (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0);
    };
    for (int i = 0; i < h; ++i) {
        const attn::AttentionResult& a = kept.heads[std::size_t(i)];
        const attn::AttentionResult& b = whole.heads[std::size_t(i)];
        QVERIFY2(same(a.Q, b.Q) && same(a.K, b.K) && same(a.V, b.V), qPrintable(QString("head %1").arg(i)));
        QVERIFY(same(a.scores, b.scores));
        QVERIFY(same(a.weightsMatrix(), b.weightsMatrix()));
        QVERIFY(same(a.context, b.context));
        QCOMPARE(kept.stats[std::size_t(i)].meanEntropyNats, whole.stats[std::size_t(i)].meanEntropyNats);
        QCOMPARE(kept.stats[std::size_t(i)].rawVariance, whole.stats[std::size_t(i)].rawVariance);
    }
    QVERIFY(same(kept.weightsAverage, whole.weightsAverage));
    QVERIFY(same(kept.concat, whole.concat));
    QVERIFY(same(kept.output, whole.output));
    QVERIFY(!same(kept.output, original));  // the edits did change the output
    // The weights change with W_q or W_k, and only then (one token's weight is 1 whatever they are).
    if (n > 1)
        QCOMPARE(same(kept.weightsAverage, averageBefore), parts == attn::kHeadValue);
}

void TestMultiHead::headAloneIsTheWholePassHead_data()
{
    QTest::addColumn<bool>("split");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("e");
    QTest::addColumn<int>("h");
    QTest::addColumn<int>("head");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<int>("threads");
    QTest::newRow("split, biased, first head") << true << 6 << 16 << 4 << 0 << false << 1;
    QTest::newRow("split causal, 2 threads") << true << 37 << 24 << 3 << 2 << true << 2;
    QTest::newRow("split 300 tokens, panels") << true << 300 << 40 << 8 << 5 << false << 2;
    QTest::newRow("split one token") << true << 1 << 8 << 2 << 1 << false << 1;
    QTest::newRow("independent") << false << 29 << 19 << 3 << 1 << false << 1;
    QTest::newRow("independent causal, 2 threads") << false << 270 << 13 << 5 << 4 << true << 2;
}

// One head computed alone, before the others (the window shows it first),
// is the whole pass's head: bit for bit where headAloneExact says so.
void TestMultiHead::headAloneIsTheWholePassHead()
{
    QFETCH(bool, split);
    QFETCH(int, n);
    QFETCH(int, e);
    QFETCH(int, h);
    QFETCH(int, head);
    QFETCH(bool, causal);
    QFETCH(int, threads);
    std::mt19937 rng(uint32_t(n * 17 + e));
    const attn::Matrix X = randomMatrix(rng, n, e);
    attn::AttentionOptions options;
    options.causal = causal;
    const attn::SplitHeads sp = attn::drawTorchMha(9, e, h, true);
    attn::IndependentHeads ind;
    for (int i = 0; i < h; ++i)
        ind.heads.push_back(
            {randomMatrix(rng, e, 7, 0.5), randomMatrix(rng, e, 7, 0.5), randomMatrix(rng, e, 4)});
    attn::MultiHeadResult whole;
    QVERIFY(split ? attn::computeMultiHeadInto(X, sp, options, &whole, threads)
                  : attn::computeMultiHeadInto(X, ind, options, &whole, threads));
    const attn::HeadLayout layout = split ? attn::HeadLayout::Split : attn::HeadLayout::Independent;
    const attn::HeadWeights w = split ? sp.head(head) : ind.heads[std::size_t(head)];
    const attn::RowVector bias = attn::splitHeadBias(sp, head);
    attn::AttentionResult alone;
    attn::AttentionStats stats;
    QVERIFY(attn::computeHeadAlone(X, layout, w, split ? &bias : nullptr, options, &alone, &stats, threads));
    const attn::AttentionResult& b = whole.heads[std::size_t(head)];
    const bool exact = attn::headAloneExact(layout);
    const auto same = [exact](const attn::Matrix& x, const attn::Matrix& y) {
        if (x.rows() != y.rows() || x.cols() != y.cols())
            return false;
        if (!exact)
            return x.size() == 0 || (x - y).cwiseAbs().maxCoeff() <= 1e-12 * (1 + y.cwiseAbs().maxCoeff());
        return x.size() == 0 || std::memcmp(x.data(), y.data(), sizeof(double) * x.size()) == 0;
    };
    QVERIFY(same(alone.Q, b.Q) && same(alone.K, b.K) && same(alone.V, b.V));
    QVERIFY(same(alone.scores, b.scores));
    QVERIFY(same(alone.weightsMatrix(), b.weightsMatrix()));
    QVERIFY(same(alone.context, b.context));
    const attn::AttentionStats& want = whole.stats[std::size_t(head)];
    if (exact) {
        QCOMPARE(stats.meanEntropyNats, want.meanEntropyNats);
        QCOMPARE(stats.rawVariance, want.rawVariance);
        QCOMPARE(stats.meanJacobianNorm, want.meanJacobianNorm);
    }
    // A bias that does not fit the head is refused with a message.
    const attn::RowVector short_ = bias.head(bias.size() - 1);
    if (split)
        QVERIFY(!attn::computeHeadAlone(X, layout, w, &short_, options, &alone, &stats));
}

// Each head drawn on its own (the window draws the selected head first) is
// that head of the whole draw, in the stable modes.
void TestMultiHead::headDrawnAloneIsTheHeadsDraw()
{
    for (const attn::InitMode mode : {attn::InitMode::UnitVariance, attn::InitMode::StandardNormal}) {
        attn::ModelConfig c;
        c.init = mode;
        c.seed = 77;
        c.dModel = 12;
        c.dK = 5;
        c.dV = 3;
        const std::vector<attn::HeadWeights> all = attn::drawIndependentHeads(c, 4);
        for (int i = 0; i < 4; ++i) {
            const attn::HeadWeights one = attn::drawIndependentHead(c, i);
            const attn::HeadWeights& want = all[std::size_t(i)];
            QCOMPARE(one.Wq.rows(), 12);
            QVERIFY(one.Wq == want.Wq && one.Wk == want.Wk && one.Wv == want.Wv);
        }
        // Another head's streams give other numbers.
        QVERIFY(attn::drawIndependentHead(c, 0).Wq != all[1].Wq);
    }
}

QTEST_APPLESS_MAIN(TestMultiHead)
#include "tst_multihead.moc"
