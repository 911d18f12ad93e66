// SPDX-License-Identifier: GPL-3.0-or-later
// The article's worked example (Raschka, seed 123) reproduced from the
// sentence alone, against PyTorch's numbers in tests/data, and the stable
// initialisations' promises.

#include "attention.h"
#include "model.h"
#include "parallel.h"
#include "testdata.h"

#include <QtTest>

#include <atomic>
#include <cmath>

class TestModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void tokensAndVocabulary();
    void inputsMatchPyTorch();
    void pipelineMatchesFloat32Reference_data();
    void pipelineMatchesFloat32Reference();
    void pipelineMatchesFloat64Reference_data();
    void pipelineMatchesFloat64Reference();
    void articlePrintedValues();
    void stableInitKeepsDimensions_data();
    void stableInitKeepsDimensions();
    void unitVarianceGivesUnitVarianceProjections();
    void embeddingsFollowTokens();
    void stableModesNumberByFirstAppearance_data();
    void stableModesNumberByFirstAppearance();
    void redrawsReuseEarlierDrawsExactly();
    void alternatingSeedsReuseTheirDrawsExactly();
    void sharedDrawsEqualOneAtATime();
    void sharedRangesCoverEachItemOnce();
    void dimensionLimits_data();
    void dimensionLimits();

private:
    QJsonObject ref_;
    attn::Model model_;
    attn::AttentionResult result_;
};

void TestModel::initTestCase()
{
    ref_ = testdata::readJson("raschka_self_attention.json");
    attn::ModelConfig config;  // defaults are the article's example
    QCOMPARE(QString::fromStdString(config.sentence), ref_["sentence"].toString());
    auto model = attn::buildModel(config);
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
    model_ = model.value();
    auto result = attn::computeAttention(model_.X, model_.Wq, model_.Wk, model_.Wv, {});
    QVERIFY(result.ok());
    result_ = result.value();
}

void TestModel::tokensAndVocabulary()
{
    QStringList tokens;
    for (const auto& t : model_.tokenization.tokens)
        tokens << QString::fromStdString(t);
    QStringList expected;
    for (const QJsonValue& v : ref_["tokens"].toArray())
        expected << v.toString();
    QCOMPARE(tokens, expected);
    const QJsonArray ids = ref_["sentence_int"].toArray();
    for (int i = 0; i < ids.size(); ++i)
        QCOMPARE(model_.tokenization.ids[i], ids[i].toInt());
    const QJsonObject vocab = ref_["vocab"].toObject();
    QCOMPARE(int(model_.tokenization.vocab.size()), vocab.size());
    for (int i = 0; i < int(model_.tokenization.vocab.size()); ++i)
        QCOMPARE(vocab[QString::fromStdString(model_.tokenization.vocab[i])].toInt(), i);
}

void TestModel::inputsMatchPyTorch()
{
    // The embeddings: normal_ values, within 2 float32 ulp (~2.4e-7 at |x| < 2).
    QVERIFY(testdata::maxAbsDiff(model_.X, testdata::toMatrix(ref_["embedded_sentence"])) < 5e-7);
    // torch.rand is bit-exact; W_q = W_query^T.
    QCOMPARE(testdata::maxAbsDiff(model_.Wq, testdata::toMatrix(ref_["W_query"]).transpose()), 0.0);
    QCOMPARE(testdata::maxAbsDiff(model_.Wk, testdata::toMatrix(ref_["W_key"]).transpose()), 0.0);
    QCOMPARE(testdata::maxAbsDiff(model_.Wv, testdata::toMatrix(ref_["W_value"]).transpose()), 0.0);
}

namespace {
attn::Matrix pick(const attn::AttentionResult& r, const QString& name)
{
    if (name == "Q")
        return r.Q;
    if (name == "K")
        return r.K;
    if (name == "V")
        return r.V;
    if (name == "scores")
        return r.scores;
    if (name == "scaled_scores")
        return r.scaledMatrix();
    if (name == "weights")
        return r.weightsMatrix();
    return r.context;
}
}  // namespace

void TestModel::pipelineMatchesFloat32Reference_data()
{
    // PyTorch computed in float32; the reference README gives the float32 vs
    // float64 gaps (scores 1.5e-5, weights 2.3e-7); tolerances sit above them.
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("tolerance");
    QTest::newRow("Q") << "Q" << 2e-6;
    QTest::newRow("K") << "K" << 2e-6;
    QTest::newRow("V") << "V" << 2e-6;
    QTest::newRow("scores") << "scores" << 3e-5;
    QTest::newRow("scaled scores") << "scaled_scores" << 8e-6;
    QTest::newRow("weights") << "weights" << 5e-7;
    QTest::newRow("context") << "context" << 3e-6;
}

void TestModel::pipelineMatchesFloat32Reference()
{
    QFETCH(QString, name);
    QFETCH(double, tolerance);
    const double diff = testdata::maxAbsDiff(pick(result_, name), testdata::toMatrix(ref_[name]));
    QVERIFY2(diff <= tolerance, qPrintable(QStringLiteral("max |diff| %1").arg(diff)));
}

void TestModel::pipelineMatchesFloat64Reference_data()
{
    QTest::addColumn<QString>("name");
    for (const char* n : {"Q", "K", "V", "scores", "scaled_scores", "weights", "context"})
        QTest::newRow(n) << QString::fromLatin1(n);
}

void TestModel::pipelineMatchesFloat64Reference()
{
    // Same float32 inputs, both in float64: agreement to rounding, relative
    // to the size of the entries. The embeddings may differ by an ulp from
    // PyTorch's, so allow float32-input-level differences.
    QFETCH(QString, name);
    const attn::Matrix expected = testdata::toMatrix(ref_["float64_reference"].toObject()[name]);
    const double scale = std::max(1.0, expected.cwiseAbs().maxCoeff());
    const double diff = testdata::maxAbsDiff(pick(result_, name), expected);
    QVERIFY2(diff <= 2e-6 * scale, qPrintable(QStringLiteral("max |diff| %1").arg(diff)));
}

void TestModel::articlePrintedValues()
{
    // The article prints 4 decimals; every number must round to what it shows.
    const QJsonObject printed = ref_["article_printed"].toObject()["numbers"].toObject();
    const int query = 1;  // x_2, "is"
    QCOMPARE(QString::number(result_.scores(query, 4), 'f', 4), QStringLiteral("11.1466"));
    const attn::Matrix omega = testdata::toMatrix(printed["omega_2"]);
    const attn::Matrix weights = testdata::toMatrix(printed["attention_weights_2"]);
    const attn::Matrix context = testdata::toMatrix(printed["context_vector_2"]);
    for (int j = 0; j < 6; ++j) {
        QVERIFY(std::abs(result_.scores(query, j) - omega(0, j)) <= 5e-5 + 1e-9);
        QVERIFY(std::abs(result_.weights(query, j) - weights(0, j)) <= 5e-5 + 1e-9);
    }
    for (int j = 0; j < 28; ++j)
        QVERIFY(std::abs(result_.context(query, j) - context(0, j)) <= 5e-5 + 1e-9);
    const attn::Matrix x = testdata::toMatrix(printed["embedded_sentence"]);
    QVERIFY(testdata::maxAbsDiff(model_.X, x) <= 5e-5 + 1e-9);
}

void TestModel::stableInitKeepsDimensions_data()
{
    QTest::addColumn<int>("init");
    QTest::newRow("standard normal") << int(attn::InitMode::StandardNormal);
    QTest::newRow("unit variance") << int(attn::InitMode::UnitVariance);
}

void TestModel::stableInitKeepsDimensions()
{
    QFETCH(int, init);
    attn::ModelConfig small;
    small.init = attn::InitMode(init);
    small.dK = 8;
    attn::ModelConfig large = small;
    large.dK = 512;
    const attn::Weights a = attn::drawWeights(small);
    const attn::Weights b = attn::drawWeights(large);
    QCOMPARE(b.Wq.cols(), 512);
    QCOMPARE(testdata::maxAbsDiff(a.Wq, b.Wq.leftCols(8)), 0.0);
    QCOMPARE(testdata::maxAbsDiff(a.Wk, b.Wk.leftCols(8)), 0.0);
    QCOMPARE(testdata::maxAbsDiff(a.Wv, b.Wv), 0.0);  // d_v unchanged
    QVERIFY(testdata::maxAbsDiff(a.Wq, a.Wk) > 0.1);  // distinct streams
    // The article mode redraws everything, as PyTorch does.
    small.init = large.init = attn::InitMode::Article;
    QVERIFY(testdata::maxAbsDiff(attn::drawWeights(small).Wk, attn::drawWeights(large).Wk.leftCols(8)) > 0.0);
}

void TestModel::unitVarianceGivesUnitVarianceProjections()
{
    // Entries of q = x W_q have variance d_model * 1 * (1/d_model) = 1.
    attn::ModelConfig c;
    c.init = attn::InitMode::UnitVariance;
    c.dModel = 256;
    c.dK = 512;
    std::string sentence;
    for (int i = 0; i < 200; ++i)
        sentence += "w" + std::to_string(i) + " ";
    c.sentence = sentence;
    auto model = attn::buildModel(c);
    QVERIFY(model.ok());
    const attn::Matrix q = model->X * model->Wq;
    const double mean = q.mean();
    const double var = (q.array() - mean).square().mean();
    // 102400 entries, correlated through shared rows/columns: a loose band.
    QVERIFY2(std::abs(var - 1.0) < 0.1, qPrintable(QString::number(var)));
    QVERIFY(std::abs(mean) < 0.05);
    const double wvar = model->Wq.array().square().mean();
    QVERIFY(std::abs(wvar * 256 - 1.0) < 0.05);
}

void TestModel::embeddingsFollowTokens()
{
    // In the stable modes a word keeps its vector when the sentence changes.
    attn::ModelConfig a;
    a.init = attn::InitMode::StandardNormal;
    a.sentence = "the cat sat";
    attn::ModelConfig b = a;
    b.sentence = "a cat ran and the dog sat";
    auto ma = attn::buildModel(a);
    auto mb = attn::buildModel(b);
    QVERIFY(ma.ok() && mb.ok());
    QCOMPARE(testdata::maxAbsDiff(ma->X.row(1), mb->X.row(1)), 0.0);  // cat
    QCOMPARE(testdata::maxAbsDiff(ma->X.row(0), mb->X.row(4)), 0.0);  // the
    QVERIFY(testdata::maxAbsDiff(ma->X.row(0), ma->X.row(1)) > 0.1);
}

void TestModel::redrawsReuseEarlierDrawsExactly()
{
    // buildModel keeps the widest weight draw and the token rows of the last
    // few seeds; whether a number comes from that cache (a slice, an
    // extension) or from a fresh draw must not show. evict() empties the
    // cache, so each comparison below is against a fresh draw.
    attn::ModelConfig c;
    c.init = attn::InitMode::UnitVariance;
    c.sentence = "the cat sat on the mat";
    c.seed = 7;
    attn::ModelConfig other = c;
    other.seed = 8;
    auto evict = [] { attn::clearDrawCache(); };

    evict();
    c.dK = 8;
    const attn::Model fresh8 = attn::buildModel(c).value();
    c.dK = 512;
    const attn::Model extended = attn::buildModel(c).value();  // 504 new columns
    evict();
    const attn::Model fresh512 = attn::buildModel(c).value();
    c.dK = 8;
    const attn::Model sliced = attn::buildModel(c).value();  // from the 512 kept
    QCOMPARE(testdata::maxAbsDiff(extended.Wq, fresh512.Wq), 0.0);
    QCOMPARE(testdata::maxAbsDiff(extended.Wk, fresh512.Wk), 0.0);
    QCOMPARE(testdata::maxAbsDiff(sliced.Wq, fresh8.Wq), 0.0);
    QCOMPARE(testdata::maxAbsDiff(sliced.Wv, fresh8.Wv), 0.0);
    QCOMPARE(testdata::maxAbsDiff(sliced.X, fresh8.X), 0.0);  // token rows kept
    // Another d_model draws other numbers, not a slice of the kept ones.
    c.dModel = 8;
    const attn::Model narrow = attn::buildModel(c).value();
    QCOMPARE(narrow.Wq.rows(), 8);
    QVERIFY(testdata::maxAbsDiff(narrow.Wq, fresh8.Wq.topRows(8)) > 0.0);
    QVERIFY(testdata::maxAbsDiff(narrow.X, fresh8.X.leftCols(8)) > 0.0);
    QVERIFY(testdata::maxAbsDiff(fresh8.Wq, attn::buildModel(other).value().Wq.leftCols(8)) > 0.1);
}

// A seed stepped back and forth finds its draws kept (every stream, the
// heads' too, and the token rows), interleaved with other seeds' draws and
// widths: the same numbers as a fresh draw of each.
void TestModel::alternatingSeedsReuseTheirDrawsExactly()
{
    attn::ModelConfig c;
    c.init = attn::InitMode::UnitVariance;
    c.sentence = "the cat sat on the mat";
    c.dModel = 16;
    c.dK = 4;
    auto draw = [&](std::uint64_t seed, int which, int width) {
        attn::ModelConfig s = c;
        s.seed = seed;
        return attn::drawStableWeight(s, which, width);
    };
    auto embed = [&](std::uint64_t seed) {
        attn::ModelConfig s = c;
        s.seed = seed;
        return attn::buildModel(s).value().X;
    };
    std::vector<attn::Matrix> fresh, freshX;
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        for (int which = 1; which <= 24; ++which) {
            attn::clearDrawCache();
            fresh.push_back(draw(seed, which, 6));
        }
        attn::clearDrawCache();
        freshX.push_back(embed(seed));
    }
    attn::clearDrawCache();
    for (int round = 0; round < 3; ++round) {
        for (std::uint64_t seed : {1u, 2u, 3u, 2u}) {
            const int s = int(seed) - 1;
            for (int which = 1; which <= 24; ++which) {
                // Narrower, then wider than the first draw: a slice, then an extension.
                const int width = round == 0 ? 3 : 6;
                const attn::Matrix w = draw(seed, which, width);
                QCOMPARE(testdata::maxAbsDiff(w, fresh[std::size_t(s * 24 + which - 1)].leftCols(width)),
                         0.0);
            }
            QCOMPARE(testdata::maxAbsDiff(embed(seed), freshX[std::size_t(s)]), 0.0);
        }
    }
    QVERIFY(testdata::maxAbsDiff(fresh[0], fresh[24]) > 0.1);  // seeds 1 and 2 differ
    QVERIFY(testdata::maxAbsDiff(fresh[0], fresh[1]) > 0.1);   // streams 1 and 2 differ
    QVERIFY(testdata::maxAbsDiff(freshX[0], freshX[1]) > 0.1);
}

// Large draws are shared among threads (each column of a weight, each
// token's row of X, from its own generator): the numbers are those drawn
// one at a time, as the cache draws a column or token added later.
void TestModel::sharedDrawsEqualOneAtATime()
{
    attn::ModelConfig c;
    c.init = attn::InitMode::UnitVariance;
    c.dModel = 1024;
    c.dK = 64;
    c.seed = 11;
    QStringList words;
    for (int i = 0; i < 100; ++i)
        words << QStringLiteral("w%1").arg(i);
    c.sentence = words.join(QLatin1Char(' ')).toStdString();
    auto evict = [] { attn::clearDrawCache(); };

    evict();
    const attn::Model whole = attn::buildModel(c).value();  // 64 columns, 100 rows of 1024 at once
    QCOMPARE(whole.X.rows(), 100);
    evict();
    attn::Matrix columns;
    for (int width = 1; width <= c.dK; ++width)
        columns = attn::drawStableWeight(c, 1, width);  // one new column each time
    QCOMPARE(testdata::maxAbsDiff(columns, whole.Wq), 0.0);
    for (int i = 0; i < 100; ++i) {
        attn::ModelConfig one = c;
        one.sentence = words[i].toStdString();
        const attn::Model alone = attn::buildModel(one).value();  // that token's row alone
        QCOMPARE(testdata::maxAbsDiff(alone.X, whole.X.row(i)), 0.0);
    }
    QVERIFY(testdata::maxAbsDiff(whole.X.row(0), whole.X.row(1)) > 0.1);
}

// attn::shareRanges, which shares the draws: every item in exactly one
// range, the ranges in order, the whole count here when the work is small.
void TestModel::sharedRangesCoverEachItemOnce()
{
    for (const std::size_t count : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1000)}) {
        std::vector<std::atomic<int>> seen(count);
        std::atomic<int> calls{0};
        std::atomic<bool> outside{false};  // checked here: QVERIFY belongs to this thread
        attn::shareRanges(count, 100, 1, 4, [&](std::size_t first, std::size_t last) {
            ++calls;
            if (first > last || last > count)
                outside = true;
            for (std::size_t i = first; i < last && i < count; ++i)
                ++seen[i];
        });
        QVERIFY(!outside);
        for (std::size_t i = 0; i < count; ++i)
            QCOMPARE(seen[i].load(), 1);
        QVERIFY(calls.load() >= 1);
        QVERIFY(calls.load() <= std::max(1, std::min(4, attn::hardwareCores())));
    }
    int calls = 0;
    std::size_t covered = 0;
    attn::shareRanges(1000, 8, 1 << 13, 4, [&](std::size_t first, std::size_t last) {
        ++calls;  // 8,000 numbers: under one thread's share
        covered += last - first;
    });
    QCOMPARE(calls, 1);
    QCOMPARE(covered, std::size_t(1000));
}

void TestModel::dimensionLimits_data()
{
    QTest::addColumn<int>("dModel");
    QTest::addColumn<int>("dK");
    QTest::addColumn<int>("dV");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("d_model 0") << 0 << 4 << 4 << "d_model";
    QTest::newRow("d_k negative") << 4 << -3 << 4 << "d_k";
    QTest::newRow("d_v huge") << 4 << 4 << 100000 << "d_v";
    QTest::newRow("d_model over limit") << 2049 << 4 << 4 << "between 1 and 2048; got 2049";
    // d_model (2 d_k + d_v) <= 3 * 1024^2: at d_model 2048, 2 d_k + d_v <= 1536.
    QTest::newRow("weights over their budget")
        << 2048 << 512 << 513
        << "would hold 3147776 entries together; at most 3145728 are allowed, so at d_model "
           "2048 2 d_k + d_v is at most 1536.";
}

void TestModel::dimensionLimits()
{
    QFETCH(int, dModel);
    QFETCH(int, dK);
    QFETCH(int, dV);
    QFETCH(QString, mentions);
    attn::ModelConfig c;
    c.dModel = dModel;
    c.dK = dK;
    c.dV = dV;
    auto model = attn::buildModel(c);
    QVERIFY(!model.ok());
    QVERIFY2(QString::fromStdString(model.error().message).contains(mentions), model.error().message.c_str());
}

void TestModel::stableModesNumberByFirstAppearance_data()
{
    QTest::addColumn<int>("init");
    QTest::newRow("normal") << int(attn::InitMode::StandardNormal);
    QTest::newRow("unit-variance") << int(attn::InitMode::UnitVariance);
}

// Typing a new word keeps every other token's id and embedding; the
// article's initialisation keeps its sorted vocabulary (inputsMatchPyTorch).
void TestModel::stableModesNumberByFirstAppearance()
{
    QFETCH(int, init);
    attn::ModelConfig a;
    a.init = attn::InitMode(init);
    a.sentence = "Jane is going to the cinema";
    attn::ModelConfig b = a;
    b.sentence = "Jane is going to the cinema to watch a film";
    auto ma = attn::buildModel(a);
    auto mb = attn::buildModel(b);
    QVERIFY(ma.ok() && mb.ok());
    QCOMPARE(ma->tokenization.ids, std::vector<int>({0, 1, 2, 3, 4, 5}));
    QCOMPARE(mb->tokenization.ids, std::vector<int>({0, 1, 2, 3, 4, 5, 3, 6, 7, 8}));
    QCOMPARE(mb->tokenization.vocab,
             std::vector<std::string>({"Jane", "is", "going", "to", "the", "cinema", "watch", "a", "film"}));
    QCOMPARE(testdata::maxAbsDiff(ma->X, mb->X.topRows(6)), 0.0);
    QCOMPARE(testdata::maxAbsDiff(mb->X.row(3), mb->X.row(6)), 0.0);  // "to" twice

    attn::ModelConfig article = b;
    article.init = attn::InitMode::Article;
    auto sorted = attn::buildModel(article);
    QVERIFY(sorted.ok());
    QCOMPARE(sorted->tokenization.vocab.front(), std::string("Jane"));
    QCOMPARE(sorted->tokenization.vocab[1], std::string("a"));  // code-point order
}

QTEST_APPLESS_MAIN(TestModel)
#include "tst_model.moc"
