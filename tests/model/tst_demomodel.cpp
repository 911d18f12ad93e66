// SPDX-License-Identifier: GPL-3.0-or-later
// The demo model (models/demo, scripts/make_demo_model.py; issue 39) as the
// app reads it:
// - it is found where the build's program looks (demomodel.h), `demo` names
//   it, and it says what it is (config.json's attention_lab_label);
// - on the induction probes (a random span of 20 tokens repeated,
//   attn::repeatedSpanIds, seeds 0 to 2) the core's head-type scores equal
//   the script's, which computed them with NumPy in float64 from the stored
//   F16 values (models/demo/evaluation.json, "evaluation"), and
//   plain loops over the app's own weights (plainheadscores.h);
// - the scores rank its previous-token head (layer 0) first for
//   previous_token and its induction head (layer 1) first for induction;
// - zero-ablating the induction head (attn::ablationHook) at least halves the
//   mean probability of the correct token over the second repeat's offsets
//   1..19 (the first token of a repeat cannot be predicted), and both means
//   are the script's.

#include "demomodel.h"
#include "head_scores.h"
#include "modelfamilies.h"
#include "plainheadscores.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <vector>

using namespace attnlab;

namespace {

QString sourceFolder()
{
    return QDir::cleanPath(QStringLiteral(ATTNLAB_SOURCE_DIR "/models/demo"));
}

QJsonObject evaluation()
{
    QFile f(QDir(sourceFolder()).filePath(QStringLiteral("evaluation.json")));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("no evaluation.json in models/demo");
    return QJsonDocument::fromJson(f.readAll()).object()[QStringLiteral("evaluation")].toObject();
}

// Mean over the second repeat's offsets 1..span-1 of softmax(logits)[the
// next token]: rows span .. 2 span-2 of an all-logits pass.
double copiedProbability(const attn::DecoderResult& r, int span)
{
    double sum = 0.0;
    for (int i = span; i <= 2 * span - 2; ++i) {
        const auto row = r.logits.row(i);
        const double top = row.maxCoeff();
        const double z = (row.array() - top).exp().sum();
        sum += std::exp(row(r.tokenIds[i + 1]) - top) / z;
    }
    return sum / double(span - 1);
}

}  // namespace

class TestDemoModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void foundAndLabelled();
    void headsAndAblation_data();
    void headsAndAblation();
    void copiesATypedSentence();

private:
    std::shared_ptr<ModelFolder> model_;
    QJsonObject evaluation_;
};

void TestDemoModel::initTestCase()
{
    attn::Expected<ModelFolder> read = readModelFolder(sourceFolder());
    QVERIFY2(read, read ? "" : read.error().message.c_str());
    model_ = std::make_shared<ModelFolder>(std::move(read.value()));
    evaluation_ = evaluation();
    QVERIFY(!evaluation_.isEmpty());
}

void TestDemoModel::foundAndLabelled()
{
    // The build's program finds the source tree's copy (no installed one
    // lies beside a test), and `demo` names it.
    const attn::Expected<QString> found = demoModelFolder();
    QVERIFY2(found, found ? "" : found.error().message.c_str());
    QCOMPARE(found.value(), sourceFolder());
    QCOMPARE(resolveModelFolder(QStringLiteral("demo")).value(), sourceFolder());
    QCOMPARE(resolveModelFolder(QStringLiteral("./demo")).value(), QStringLiteral("./demo"));

    QVERIFY2(model_->label.endsWith(QStringLiteral("not a language model")), qPrintable(model_->label));
    QVERIFY(model_->label.startsWith(QStringLiteral("a 2-layer demo model set by hand")));
    QCOMPARE(model_->family, QStringLiteral("gpt2"));
    QCOMPARE(QString::fromStdString(model_->dtype), QStringLiteral("F16"));
    const attn::DecoderConfig& c = model_->config();
    QCOMPARE(c.layers, 2);
    QCOMPARE(c.vocabSize, 50257);
}

void TestDemoModel::headsAndAblation_data()
{
    QTest::addColumn<int>("probe");
    const QJsonArray probes = evaluation_[QStringLiteral("probes")].toArray();
    QCOMPARE(probes.size(), 3);
    for (int i = 0; i < int(probes.size()); ++i)
        QTest::addRow("seed %d", probes[i].toObject()[QStringLiteral("seed")].toInt()) << i;
}

void TestDemoModel::headsAndAblation()
{
    QFETCH(int, probe);
    const QJsonObject expected = evaluation_[QStringLiteral("probes")].toArray()[probe].toObject();
    const int span = evaluation_[QStringLiteral("span")].toInt();
    QCOMPARE(span, attn::kDefaultRepeatSpan);
    const attn::DecoderConfig& c = model_->config();

    // The probe: the app's draw is the script's.
    const attn::Expected<std::vector<int>> ids = attn::repeatedSpanIds(
        span, std::uint64_t(expected[QStringLiteral("seed")].toInt()), attn::repeatProbeIdRange(c.vocabSize));
    QVERIFY(ids);
    const QJsonArray want = expected[QStringLiteral("ids")].toArray();
    QCOMPARE(int(want.size()), int(ids->size()));
    for (int i = 0; i < int(ids->size()); ++i)
        QCOMPARE((*ids)[std::size_t(i)], want[i].toInt());

    attn::DecoderRunOptions options;
    options.allLogits = true;
    const attn::Expected<attn::DecoderResult> intact = model_->decoder->run(*ids, options);
    QVERIFY(intact);
    const attn::Expected<attn::HeadScoreTable> table = attn::headScores(*model_->decoder, *intact);
    QVERIFY(table);

    // Every head's scores: the script's float64 NumPy and plain loops.
    const QJsonArray layers = expected[QStringLiteral("scores")].toArray();
    for (int l = 0; l < c.layers; ++l) {
        for (int h = 0; h < c.heads; ++h) {
            const attn::HeadTypeScores& s = table->at(l, h);
            const QJsonObject py = layers[l].toArray()[h].toObject();
            const attn::Matrix& a = intact->layers[std::size_t(l)].heads[std::size_t(h)].weightsMatrix();
            for (const attn::HeadScoreKind kind : attn::kAllHeadScoreKinds) {
                QVERIFY(s[kind].has_value());
                const double script = py[QLatin1String(attn::headScoreName(kind))].toDouble();
                QVERIFY2(std::abs(*s[kind] - script) <= 1e-9,
                         qPrintable(QStringLiteral("layer %1 head %2 %3: %4 against %5")
                                        .arg(l)
                                        .arg(h)
                                        .arg(QLatin1String(attn::headScoreName(kind)))
                                        .arg(*s[kind], 0, 'g', 17)
                                        .arg(script, 0, 'g', 17)));
            }
            QVERIFY(std::abs(*s.previousToken - *plainheadscores::plainPrevious(a)) <= 1e-12);
        }
    }

    // The heads named in the model's README lead their scores.
    const QJsonArray prev = evaluation_[QStringLiteral("previous_token_head")].toArray();
    const QJsonArray ind = evaluation_[QStringLiteral("induction_head")].toArray();
    const attn::HeadIndex p = attn::rankHeads(*table, attn::HeadScoreKind::PreviousToken).front();
    const attn::HeadIndex i = attn::rankHeads(*table, attn::HeadScoreKind::Induction).front();
    QCOMPARE(p.layer, 0);
    QCOMPARE(p.layer, prev[0].toInt());
    QCOMPARE(p.head, prev[1].toInt());
    QCOMPARE(i.layer, 1);
    QCOMPARE(i.layer, ind[0].toInt());
    QCOMPARE(i.head, ind[1].toInt());

    // Without the induction head the copy breaks: the correct token's mean
    // probability over the second repeat at least halves.
    options.headOutput = attn::ablationHook({i}, attn::HeadAblation::Zero);
    const attn::Expected<attn::DecoderResult> ablated = model_->decoder->run(*ids, options);
    QVERIFY(ablated);
    const double before = copiedProbability(*intact, span);
    const double after = copiedProbability(*ablated, span);
    qInfo("seed %d: p(copied token) intact %.4f, induction head %d.%d zeroed %.4f",
          expected[QStringLiteral("seed")].toInt(), before, i.layer, i.head, after);
    QVERIFY(std::abs(before - expected[QStringLiteral("intact")].toDouble()) <= 1e-9);
    QVERIFY(std::abs(after - expected[QStringLiteral("ablated")].toDouble()) <= 1e-9);
    QVERIFY2(after <= 0.5 * before, qPrintable(QStringLiteral("%1 against %2").arg(after).arg(before)));
}

void TestDemoModel::copiesATypedSentence()
{
    // What the README and the manual promise a user who types a sentence
    // that repeats itself: the second half's next token is the first half's,
    // and without the induction head (1.0) it is not. The sink (0.1) looks at
    // the first token and the self head (1.1) at its own position.
    const QString text = QStringLiteral(
        "Mr and Mrs Dursley, of number four, Privet Drive, were proud to say. "
        "Mr and Mrs Dursley, of number");
    const std::vector<int> ids = model_->tokenizer->encodeIds(text);
    const std::vector<int> four = model_->tokenizer->encodeIds(QStringLiteral(" four"));
    QCOMPARE(int(four.size()), 1);
    const int n = int(ids.size());
    QVERIFY(n > 20);

    attn::DecoderRunOptions options;
    options.allLogits = true;
    const attn::Expected<attn::DecoderResult> intact = model_->decoder->run(ids, options);
    QVERIFY(intact);
    const auto last = intact->logits.row(n - 1);
    Eigen::Index best = 0;
    last.maxCoeff(&best);
    QCOMPARE(int(best), four[0]);
    const double top = last.maxCoeff();
    const double p = 1.0 / (last.array() - top).exp().sum();
    QVERIFY2(p > 0.9, qPrintable(QString::number(p)));

    const attn::Matrix& sink = intact->layers[0].heads[1].weightsMatrix();
    const attn::Matrix& self = intact->layers[1].heads[1].weightsMatrix();
    for (int i = 1; i < n; ++i) {
        QVERIFY2(sink(i, 0) > 0.9, qPrintable(QStringLiteral("row %1: %2").arg(i).arg(sink(i, 0))));
        QVERIFY2(self(i, i) > 0.9, qPrintable(QStringLiteral("row %1: %2").arg(i).arg(self(i, i))));
    }

    options.headOutput = attn::ablationHook({attn::HeadIndex{1, 0}}, attn::HeadAblation::Zero);
    const attn::Expected<attn::DecoderResult> ablated = model_->decoder->run(ids, options);
    QVERIFY(ablated);
    const auto row = ablated->logits.row(n - 1);
    const double q = std::exp(row(four[0]) - row.maxCoeff()) / (row.array() - row.maxCoeff()).exp().sum();
    QVERIFY2(q < 0.01, qPrintable(QString::number(q)));
}

QTEST_GUILESS_MAIN(TestDemoModel)
#include "tst_demomodel.moc"
