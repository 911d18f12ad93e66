// SPDX-License-Identifier: GPL-3.0-or-later
// Session: the parameters and matrices of a lesson, and the attention over
// them. Checked against the engine called directly and against the PyTorch
// reference of the article's example.

#include "focusbars.h"
#include "session.h"

#include "attention.h"
#include "model.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace attnlab;

namespace {

attn::Matrix matrixFromJson(const QJsonArray& rows)
{
    attn::Matrix m(rows.size(), rows.isEmpty() ? 0 : rows.first().toArray().size());
    for (int i = 0; i < rows.size(); ++i) {
        const QJsonArray row = rows[i].toArray();
        for (int j = 0; j < row.size(); ++j)
            m(i, j) = row[j].toDouble();
    }
    return m;
}

double maxAbsDiff(const attn::Matrix& a, const attn::Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return std::numeric_limits<double>::infinity();
    double worst = 0.0;
    for (Eigen::Index i = 0; i < a.size(); ++i) {
        const double x = a.data()[i], y = b.data()[i];
        if (std::isinf(x) && std::isinf(y) && (x < 0) == (y < 0))
            continue;
        worst = std::max(worst, std::abs(x - y));
    }
    return worst;
}

// The engine's result for a config and options, without the session.
attn::AttentionResult engineResult(const attn::ModelConfig& config, const attn::AttentionOptions& options)
{
    const attn::Expected<attn::Model> model = attn::buildModel(config);
    if (!model)
        qFatal("buildModel failed: %s", model.error().message.c_str());
    const attn::Expected<attn::AttentionResult> r =
        attn::computeAttention(model->X, model->Wq, model->Wk, model->Wv, options);
    if (!r)
        qFatal("computeAttention failed: %s", r.error().message.c_str());
    return r.value();
}

void compareResults(const attn::AttentionResult& got, const attn::AttentionResult& want)
{
    QCOMPARE(maxAbsDiff(got.Q, want.Q), 0.0);
    QCOMPARE(maxAbsDiff(got.K, want.K), 0.0);
    QCOMPARE(maxAbsDiff(got.V, want.V), 0.0);
    QCOMPARE(maxAbsDiff(got.scores, want.scores), 0.0);
    QCOMPARE(maxAbsDiff(got.scaledMatrix(), want.scaledMatrix()), 0.0);
    QCOMPARE(maxAbsDiff(got.weightsMatrix(), want.weightsMatrix()), 0.0);
    QCOMPARE(maxAbsDiff(got.context, want.context), 0.0);
    QCOMPARE(got.divisor, want.divisor);
}

}  // namespace

class TestSession : public QObject {
    Q_OBJECT
private slots:
    void defaultIsTheArticleExample();
    void defaultWeightsMatchPyTorchReference();
    void resultEqualsEngine_data();
    void resultEqualsEngine();
    void dKChangesQueryWidth_data();
    void dKChangesQueryWidth();
    void scaleModeNoneLeavesScoresUnscaled();
    void causalMaskHidesLaterKeys();
    void refusedCellValues_data();
    void refusedCellValues();
    void refusedCellText_data();
    void refusedCellText();
    void cellEditRecomputesAndRegenerateDropsIt();
    void editsSurviveScaleAndSeedChangesButNotRegenerate();
    void emptySentenceKeepsLastResult();
    void oneResultSignalPerChange();
    void weightSumIsOne();
};

void TestSession::defaultIsTheArticleExample()
{
    Session session;
    QVERIFY(session.published()->computed());
    QVERIFY(session.problem().isEmpty());
    QCOMPARE(session.published()->tokens(), QStringList({"Life", "is", "short", "eat", "dessert", "first"}));
    QCOMPARE(session.published()->ids(), QList<int>({0, 4, 5, 2, 1, 3}));
    QCOMPARE(session.inputs().config.seed, std::uint64_t(123));
    QCOMPARE(session.published()->shown()->Q.rows(), 6);
    QCOMPARE(session.published()->shown()->Q.cols(), 24);
    QCOMPARE(session.published()->shown()->V.cols(), 28);
    QCOMPARE(session.inputs().matrix(MatrixId::X).cols(), 16);
}

void TestSession::defaultWeightsMatchPyTorchReference()
{
    QFile file(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/raschka_self_attention.json"));
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
    const QJsonObject reference = QJsonDocument::fromJson(file.readAll()).object();
    const attn::Matrix weights = matrixFromJson(reference.value("weights").toArray());
    const attn::Matrix context = matrixFromJson(reference.value("context").toArray());
    QCOMPARE(weights.rows(), 6);

    Session session;
    const double weightError = maxAbsDiff(session.published()->shown()->weightsMatrix(), weights);
    QVERIFY2(weightError < 1e-6, qPrintable(QString::number(weightError)));
    // The context of float32 PyTorch agrees to its own rounding (1.2e-6 recorded).
    const double contextError = maxAbsDiff(session.published()->shown()->context, context);
    QVERIFY2(contextError < 1e-5, qPrintable(QString::number(contextError)));
    // The article's query_2 ("is") gives its largest weight to "dessert".
    QCOMPARE(session.published()->stats().rows[1].argMax, 4);
}

void TestSession::resultEqualsEngine_data()
{
    QTest::addColumn<QString>("sentence");
    QTest::addColumn<int>("init");
    QTest::addColumn<int>("dModel");
    QTest::addColumn<int>("dK");
    QTest::addColumn<int>("dV");
    QTest::addColumn<int>("scale");
    QTest::addColumn<bool>("causal");
    QTest::newRow("article example") << QString::fromLatin1(attn::kArticleSentence)
                                     << int(attn::InitMode::Article) << 16 << 24 << 28
                                     << int(attn::ScaleMode::SqrtDk) << false;
    QTest::newRow("repeated word, causal") << "the cat saw the dog" << int(attn::InitMode::Article) << 8 << 5
                                           << 3 << int(attn::ScaleMode::SqrtDk) << true;
    QTest::newRow("unit variance, no scaling") << "a b c d" << int(attn::InitMode::UnitVariance) << 32 << 64
                                               << 4 << int(attn::ScaleMode::None) << false;
    QTest::newRow("one token") << "alone" << int(attn::InitMode::StandardNormal) << 1 << 1 << 1
                               << int(attn::ScaleMode::SqrtDk) << false;
}

void TestSession::resultEqualsEngine()
{
    QFETCH(QString, sentence);
    QFETCH(int, init);
    QFETCH(int, dModel);
    QFETCH(int, dK);
    QFETCH(int, dV);
    QFETCH(int, scale);
    QFETCH(bool, causal);

    Session session;
    session.setSentence(sentence);
    session.setInit(attn::InitMode(init));
    session.setDModel(dModel);
    session.setDK(dK);
    session.setDV(dV);
    session.setScaleMode(attn::ScaleMode(scale));
    session.setCausal(causal);
    QVERIFY2(session.problem().isEmpty(), qPrintable(session.problem()));

    attn::ModelConfig config;
    config.sentence = sentence.toStdString();
    config.init = attn::InitMode(init);
    config.dModel = dModel;
    config.dK = dK;
    config.dV = dV;
    attn::AttentionOptions options;
    options.scale = attn::ScaleMode(scale);
    options.causal = causal;
    compareResults(*session.published()->shown(), engineResult(config, options));

    // The same through setParameters in one step.
    Session direct;
    direct.setParameters(config, options);
    compareResults(*direct.published()->shown(), *session.published()->shown());
}

void TestSession::dKChangesQueryWidth_data()
{
    QTest::addColumn<int>("dK");
    QTest::newRow("smallest") << 1;
    QTest::newRow("article d_k 24 -> 8") << 8;
    QTest::newRow("wide") << 300;
}

void TestSession::dKChangesQueryWidth()
{
    QFETCH(int, dK);
    Session session;
    session.setDK(dK);
    QCOMPARE(session.published()->shown()->Q.cols(), dK);
    QCOMPARE(session.published()->shown()->K.cols(), dK);
    QCOMPARE(session.inputs().matrix(MatrixId::Wq).cols(), dK);
    QCOMPARE(session.published()->shown()->V.cols(), 28);
    QCOMPARE(session.published()->shown()->divisor, std::sqrt(double(dK)));
    attn::ModelConfig config;
    config.dK = dK;
    compareResults(*session.published()->shown(), engineResult(config, {}));
}

void TestSession::scaleModeNoneLeavesScoresUnscaled()
{
    Session session;
    session.setScaleMode(attn::ScaleMode::None);
    QCOMPARE(session.published()->shown()->divisor, 1.0);
    QCOMPARE(maxAbsDiff(session.published()->shown()->scaledMatrix(), session.published()->shown()->scores),
             0.0);
    session.setScaleMode(attn::ScaleMode::Custom);
    session.setCustomDivisor(2.0);
    QCOMPARE(session.published()->shown()->divisor, 2.0);
    QCOMPARE(
        maxAbsDiff(session.published()->shown()->scaledMatrix(), session.published()->shown()->scores / 2.0),
        0.0);
}

void TestSession::causalMaskHidesLaterKeys()
{
    Session session;
    session.setCausal(true);
    const attn::AttentionResult& r = *session.published()->shown();
    for (int i = 0; i < r.tokens(); ++i)
        for (int j = 0; j < r.tokens(); ++j) {
            QCOMPARE(std::isinf(r.scaled(i, j)), j > i);
            if (j > i)
                QCOMPARE(r.weights(i, j), 0.0);
        }
    QCOMPARE(r.weights(0, 0), 1.0);
}

void TestSession::refusedCellValues_data()
{
    QTest::addColumn<double>("value");
    QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("+inf") << std::numeric_limits<double>::infinity();
    QTest::newRow("-inf") << -std::numeric_limits<double>::infinity();
    QTest::newRow("beyond the magnitude limit") << 1e31;
}

void TestSession::refusedCellValues()
{
    QFETCH(double, value);
    Session session;
    const double old = session.inputs().matrix(MatrixId::Wk)(2, 3);
    const attn::Matrix oldWeights = session.published()->shown()->weightsMatrix();
    QSignalSpy refused(&session, &Session::editRefused);
    QSignalSpy changed(&session, &Session::resultChanged);
    const attn::Status status = session.setMatrixCell(MatrixId::Wk, 2, 3, value);
    QVERIFY(!status.ok());
    QVERIFY(!status.error().message.empty());
    QCOMPARE(refused.count(), 1);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(session.inputs().matrix(MatrixId::Wk)(2, 3), old);
    QCOMPARE(maxAbsDiff(session.published()->shown()->weightsMatrix(), oldWeights), 0.0);
    QCOMPARE(session.inputs().editedCells, 0);
}

void TestSession::refusedCellText_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("letters") << "abc";
    QTest::newRow("empty") << "";
    QTest::newRow("nan spelled out") << "nan";
    QTest::newRow("inf spelled out") << "inf";
    QTest::newRow("number with trailing junk") << "1.5x";
    QTest::newRow("overflowing double") << "1e400";
}

void TestSession::refusedCellText()
{
    QFETCH(QString, text);
    Session session;
    const double old = session.inputs().matrix(MatrixId::X)(0, 0);
    QSignalSpy refused(&session, &Session::editRefused);
    const attn::Status status = session.setMatrixCellText(MatrixId::X, 0, 0, text);
    QVERIFY(!status.ok());
    QCOMPARE(refused.count(), 1);
    QVERIFY(refused.first().first().toString().contains(QStringLiteral("X(1, 1)")));
    QCOMPARE(session.inputs().matrix(MatrixId::X)(0, 0), old);
}

void TestSession::cellEditRecomputesAndRegenerateDropsIt()
{
    Session session;
    const attn::Matrix drawnX = session.inputs().matrix(MatrixId::X);
    QVERIFY(session.setMatrixCellText(MatrixId::X, 1, 2, QStringLiteral(" 2.5 ")).ok());
    QVERIFY(session.setMatrixCell(MatrixId::Wv, 0, 27, -0.75).ok());
    QCOMPARE(session.inputs().matrix(MatrixId::X)(1, 2), 2.5);
    QCOMPARE(session.inputs().editedCells, 2);

    attn::Matrix X = drawnX;
    X(1, 2) = 2.5;
    attn::Matrix Wv = session.inputs().matrix(MatrixId::Wv);
    QCOMPARE(Wv(0, 27), -0.75);
    const attn::Expected<attn::AttentionResult> want =
        attn::computeAttention(X, session.inputs().matrix(MatrixId::Wq),
                               session.inputs().matrix(MatrixId::Wk), Wv, session.inputs().options);
    QVERIFY(want.ok());
    compareResults(*session.published()->shown(), want.value());

    session.regenerate();
    QCOMPARE(session.inputs().editedCells, 0);
    QCOMPARE(maxAbsDiff(session.inputs().matrix(MatrixId::X), drawnX), 0.0);
    compareResults(*session.published()->shown(), engineResult({}, {}));
}

void TestSession::editsSurviveScaleAndSeedChangesButNotRegenerate()
{
    Session session;
    QVERIFY(session.setMatrixCell(MatrixId::Wq, 3, 4, 7.0).ok());
    session.setScaleMode(attn::ScaleMode::None);
    session.setCausal(true);
    QCOMPARE(session.inputs().matrix(MatrixId::Wq)(3, 4), 7.0);
    QCOMPARE(session.inputs().editedCells, 1);
    // Another seed redraws the rest; the typed cell stays (tst_keptmatrices).
    session.setSeed(7);
    QCOMPARE(session.inputs().matrix(MatrixId::Wq)(3, 4), 7.0);
    QCOMPARE(session.inputs().editedCells, 1);
    session.regenerate();
    QVERIFY(session.inputs().matrix(MatrixId::Wq)(3, 4) != 7.0);
    QCOMPARE(session.inputs().editedCells, 0);
}

void TestSession::emptySentenceKeepsLastResult()
{
    Session session;
    const attn::Matrix weights = session.published()->shown()->weightsMatrix();
    QSignalSpy problems(&session, &Session::problemChanged);
    QSignalSpy changed(&session, &Session::resultChanged);
    session.setSentence(QStringLiteral("  "));
    QVERIFY(!session.problem().isEmpty());
    QCOMPARE(problems.count(), 1);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(session.published()->tokenCount(), 6);
    QCOMPARE(maxAbsDiff(session.published()->shown()->weightsMatrix(), weights), 0.0);
    // Another change while the sentence is empty still reports the sentence.
    session.setScaleMode(attn::ScaleMode::None);
    QVERIFY(!session.problem().isEmpty());
    QCOMPARE(changed.count(), 0);

    session.setSentence(QStringLiteral("hello world"));
    QVERIFY(session.problem().isEmpty());
    QCOMPARE(session.published()->tokens(), QStringList({"hello", "world"}));
    QCOMPARE(maxAbsDiff(session.published()->shown()->scaledMatrix(), session.published()->shown()->scores),
             0.0);
}

void TestSession::oneResultSignalPerChange()
{
    Session session;
    QSignalSpy changed(&session, &Session::resultChanged);
    QSignalSpy parameters(&session, &Session::parametersChanged);
    session.setDK(10);
    session.setCausal(true);
    session.setSentence(QStringLiteral("one two three"));
    QCOMPARE(changed.count(), 3);
    QCOMPARE(parameters.count(), 3);
    session.setDK(10);  // no change, no signal
    QCOMPARE(changed.count(), 3);
}

void TestSession::weightSumIsOne()
{
    Session session;
    for (int i = 0; i < session.published()->tokenCount(); ++i)
        QVERIFY(std::abs(attnlab::weightRowSum(*session.shownResult(), i) - 1.0) < 1e-12);
    QCOMPARE(attnlab::weightRowSum(*session.shownResult(), -1), 0.0);
}

QTEST_APPLESS_MAIN(TestSession)
#include "tst_session.moc"
