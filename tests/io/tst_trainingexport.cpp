// SPDX-License-Identifier: GPL-3.0-or-later
// The training lab's curves as JSON and CSV: every setting under "task", the
// runs with their scale names and divisors, every measure's steps exactly
// (numbers read back bit for bit), the CSV one row per run and step.

#include "trainingexport.h"

#include "csv.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace attnlab;

namespace {

std::vector<attn::TrainingRunCurves> twoRuns()
{
    attn::TrainingRunCurves scaled;
    scaled.scale = attn::TrainingScale::SqrtDk;
    scaled.divisor = 4.0;
    scaled.loss = {2.75, 0.1 + 0.2};
    scaled.accuracy = {0.0625, 0.5};
    scaled.gradNormQ = {1.5, 0.25};
    scaled.gradNormK = {1.25, 0.125};
    scaled.maxWeight = {0.3, 0.9};
    scaled.entropy = {2.5, 0.4};
    scaled.saturatedWrong = {0.0, 0.015625};
    attn::TrainingRunCurves custom = scaled;
    custom.scale = attn::TrainingScale::Custom;
    custom.divisor = 2.5;
    custom.loss = {3.0, 1.0 / 3.0};
    return {scaled, custom};
}

}  // namespace

class TestTrainingExport : public QObject {
    Q_OBJECT
private slots:
    void json();
    void csv();
    void measureCsv();
};

void TestTrainingExport::json()
{
    attn::TrainingSettings s;
    s.dK = 16;
    s.task.nKeys = 8;
    s.seed = 99;
    s.optimizer = attn::TrainingOptimizer::Sgd;
    s.learningRate = 0.05;
    s.customDivisor = 2.5;
    const std::string text = trainingLabJson(s, twoRuns());
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonObject root = doc.object();
    QCOMPARE(root.value("d_k").toInt(), 16);
    const QJsonObject task = root.value("task").toObject();
    QCOMPARE(task.value("n_keys").toInt(), 8);
    QCOMPARE(task.value("d_model").toInt(), 64);
    QCOMPARE(task.value("classes").toInt(), 16);
    QCOMPARE(task.value("beta").toDouble(), 5.0);
    QCOMPARE(task.value("batch").toInt(), 64);
    QCOMPARE(task.value("steps").toInt(), 400);
    QCOMPARE(task.value("seed").toInt(), 99);
    QCOMPARE(task.value("optimizer").toString(), QStringLiteral("sgd"));
    QCOMPARE(task.value("lr").toDouble(), 0.05);
    QCOMPARE(task.value("divisor").toDouble(), 2.5);
    const QJsonArray runs = root.value("runs").toArray();
    QCOMPARE(runs.size(), 2);
    QCOMPARE(runs[0].toObject().value("scale").toString(), QStringLiteral("sqrt-dk"));
    QCOMPARE(runs[0].toObject().value("divisor").toDouble(), 4.0);
    QCOMPARE(runs[1].toObject().value("scale").toString(), QStringLiteral("custom"));
    const QJsonArray loss = runs[1].toObject().value("loss").toArray();
    QCOMPARE(loss.size(), 2);
    QCOMPARE(loss[1].toDouble(), 1.0 / 3.0);  // bit for bit
    QCOMPARE(runs[0].toObject().value("loss").toArray()[1].toDouble(), 0.1 + 0.2);
    for (const char* key :
         {"accuracy", "grad_norm_q", "grad_norm_k", "max_weight", "entropy", "saturated_wrong"})
        QCOMPARE(runs[0].toObject().value(key).toArray().size(), 2);
    QCOMPARE(runs[0].toObject().value("saturated_wrong").toArray()[1].toDouble(), 0.015625);

    s.customDivisor = 0.0;
    const QJsonObject none =
        QJsonDocument::fromJson(QByteArray::fromStdString(trainingLabJson(s, {}))).object();
    QVERIFY(none.value("task").toObject().value("divisor").isNull());
    QCOMPARE(none.value("runs").toArray().size(), 0);
}

void TestTrainingExport::csv()
{
    const auto rows = parseCsv(trainingLabCsv(twoRuns()));
    QVERIFY(rows.ok());
    QCOMPARE(rows->size(), std::size_t(5));
    const CsvRow header = {"scale",       "divisor",     "step",       "loss",    "accuracy",
                           "grad_norm_q", "grad_norm_k", "max_weight", "entropy", "saturated_wrong"};
    QVERIFY((*rows)[0] == header);
    QVERIFY(((*rows)[1] == CsvRow{"sqrt-dk", "4", "1", "2.75", "0.0625", "1.5", "1.25", "0.3", "2.5", "0"}));
    QCOMPARE((*rows)[2][3], std::string("0.30000000000000004"));
    QCOMPARE((*rows)[4][0], std::string("custom"));
    QCOMPARE((*rows)[4][2], std::string("2"));
    QCOMPARE(std::stod((*rows)[4][3]), 1.0 / 3.0);
}

void TestTrainingExport::measureCsv()
{
    const auto rows = parseCsv(trainingMeasureCsv(twoRuns(), "loss"));
    QVERIFY(rows.ok());
    QCOMPARE(rows->size(), std::size_t(3));
    QVERIFY(((*rows)[0] == CsvRow{"step", "loss_sqrt-dk", "loss_custom"}));
    QVERIFY(((*rows)[1] == CsvRow{"1", "2.75", "3"}));
    const auto grads = parseCsv(trainingMeasureCsv(twoRuns(), "grad_norm"));
    QVERIFY(grads.ok());
    QVERIFY(((*grads)[0]
             == CsvRow{"step", "grad_norm_q_sqrt-dk", "grad_norm_q_custom", "grad_norm_k_sqrt-dk",
                       "grad_norm_k_custom"}));
    QVERIFY(((*grads)[2] == CsvRow{"2", "0.25", "0.25", "0.125", "0.125"}));
    QCOMPARE(trainingMeasureCsv(twoRuns(), "nonsense"), std::string());
}

QTEST_GUILESS_MAIN(TestTrainingExport)
#include "tst_trainingexport.moc"
