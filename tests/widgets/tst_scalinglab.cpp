// SPDX-License-Identifier: GPL-3.0-or-later
// The d_k lab's widgets and command: the plots show the core's curves and
// their marker follows d_k, hovering gives the values; the comparison view's
// readouts are the engine's numbers; the lesson walks its five stages; the
// SVG device writes what was painted; attention-lab --scaling-lab writes
// files that read back to the core's curves, and fails cleanly.

#include "attention.h"
#include "csv.h"
#include "guitest.h"
#include "heatmapview.h"
#include "lessonpanel.h"
#include "model.h"
#include "numberformat.h"
#include "scaling_lab.h"
#include "scalingcompareview.h"
#include "scalinglabcommand.h"
#include "scalinglabview.h"
#include "statistics.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMouseEvent>
#include <QPainter>
#include <QProcess>
#include <QScrollArea>
#include <QProgressBar>
#include <QScrollBar>
#include <QWheelEvent>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QXmlStreamReader>

#include <cmath>
#include <sstream>

using attnlab::LessonPanel;
using attnlab::OutputFile;
using attnlab::ScalingCompareView;
using attnlab::ScalingLabView;

namespace {

attn::ScalingLabCurves smallCurves(int nKeys = 5, int samples = 150)
{
    attn::ScalingLabConfig config;
    config.nKeys = nKeys;
    config.samples = samples;
    config.seed = 99;
    return attn::runScalingLab(config).value();
}

bool closeRel(double a, double b, double tol)
{
    return std::abs(a - b) <= tol * std::max(1.0, std::max(std::abs(a), std::abs(b)));
}

struct Run {
    int exitCode = -1;
    QByteArray out, err;
};

Run runLab(const QStringList& arguments)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));  // the command picks offscreen itself
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(ATTNLAB_EXECUTABLE), QStringList{"--scaling-lab"} + arguments);
    Run run;
    if (!process.waitForFinished(120000) || process.exitStatus() != QProcess::NormalExit) {
        process.kill();
        run.err = "did not finish";
        return run;
    }
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

const std::vector<double>& column(const attn::ScalingLabCurves& c, const QString& name)
{
    if (name == "var_raw")
        return c.varRaw;
    if (name == "var_scaled")
        return c.varScaled;
    if (name == "var_raw_stderr")
        return c.varRawStdErr;
    if (name == "var_scaled_stderr")
        return c.varScaledStdErr;
    if (name == "max_weight_raw")
        return c.maxWeightRaw;
    if (name == "max_weight_scaled")
        return c.maxWeightScaled;
    if (name == "entropy_raw")
        return c.entropyRaw;
    if (name == "entropy_scaled")
        return c.entropyScaled;
    if (name == "grad_norm_raw")
        return c.gradNormRaw;
    if (name == "grad_norm_scaled")
        return c.gradNormScaled;
    qFatal("no column %s", qPrintable(name));
    return c.varRaw;
}

}  // namespace

class TestScalingLabGui : public QObject {
    Q_OBJECT
private slots:
    void plotsShowTheCurves();
    void markerFollowsCurrentDk();
    void hoverShowsValuesAtNearestDk();
    void computeRunsInBackground();
    void keysSpinBoxRecomputes();
    void imageFilesInEveryFormat();
    void compareReadoutsAreTheEngines_data();
    void compareReadoutsAreTheEngines();
    void compareNamesTheInitialisation();
    void lessonWalksEveryStage();
    void commandWritesAllFiles();
    void commandErrors_data();
    void commandErrors();
    void commandCannotWrite();
    void commandChoosesTheSamples();
    void commandBeyondTheBudgetShowsProgress();
    void progressWhileComputing();
    void legendHasNoPlaceholders();
    void markerOnlyWithCurrentDk();
    void plotsReflowAndScroll();
};

void TestScalingLabGui::plotsShowTheCurves()
{
    const attn::ScalingLabCurves c = smallCurves();
    ScalingLabView view;
    QSignalSpy changed(&view, &ScalingLabView::curvesChanged);
    view.setCurves(c);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(guitest::find<QSpinBox>(view, QStringLiteral("keysPerQuerySpin"))->value(), 5);
    const std::vector<double>* raw[] = {&c.varRaw, &c.maxWeightRaw, &c.entropyRaw, &c.gradNormRaw};
    const std::vector<double>* scaled[] = {&c.varScaled, &c.maxWeightScaled, &c.entropyScaled,
                                           &c.gradNormScaled};
    for (int p = 0; p < ScalingLabView::kPlotCount; ++p) {
        QCustomPlot* plot = view.plot(ScalingLabView::Plot(p));
        QCOMPARE(plot->xAxis->scaleType(), QCPAxis::stLogarithmic);
        QVERIFY(plot->xAxis->range().lower < 1.0 && plot->xAxis->range().upper > 1024.0);
        QCOMPARE(plot->graph(0)->data()->size(), int(c.size()));
        for (int g = 0; g < int(c.size()); ++g) {
            QCOMPARE(plot->graph(0)->data()->at(g)->key, double(c.dK[g]));
            QCOMPARE(plot->graph(0)->data()->at(g)->value, (*raw[p])[g]);
            QCOMPARE(plot->graph(1)->data()->at(g)->value, (*scaled[p])[g]);
        }
    }
    // Theory: d_k and 1 on the variance plot, ln n on the entropy plot.
    QCustomPlot* v = view.plot(ScalingLabView::VariancePlot);
    QCOMPARE(v->graph(2)->data()->at(1)->value, 1024.0);
    QCOMPARE(v->graph(3)->data()->at(1)->value, 1.0);
    QCustomPlot* e = view.plot(ScalingLabView::EntropyPlot);
    QCOMPARE(e->graph(2)->data()->at(0)->value, std::log(5.0));
    QCOMPARE(view.plot(ScalingLabView::MaxWeightPlot)->graph(2)->data()->at(0)->value, 0.2);
}

void TestScalingLabGui::markerFollowsCurrentDk()
{
    ScalingLabView view;
    view.resize(900, 700);
    view.setCurves(smallCurves());
    for (int d : {64, 1, 1024, 300}) {
        view.setCurrentDk(d);
        QCOMPARE(view.currentDk(), d);
        for (int p = 0; p < ScalingLabView::kPlotCount; ++p) {
            QCPItemStraightLine* m = guitest::find<QCPItemStraightLine>(*view.plot(ScalingLabView::Plot(p)),
                                                                        QStringLiteral("dkMarker"));
            QCOMPARE(m->point1->coords().x(), double(d));
            QCOMPARE(m->point2->coords().x(), double(d));
            // Vertical, at the pixel of d on the log axis.
            QCustomPlot* plot = view.plot(ScalingLabView::Plot(p));
            const double x = plot->xAxis->coordToPixel(d);
            QVERIFY(std::abs(m->point1->pixelPosition().x() - x) < 1e-9);
            QVERIFY(std::abs(m->point2->pixelPosition().x() - x) < 1e-9);
        }
    }
    // d = 1024 lies ten octaves right of d = 1: the log axis spaces them evenly.
    QCustomPlot* plot = view.plot(ScalingLabView::VariancePlot);
    const double octave = plot->xAxis->coordToPixel(2) - plot->xAxis->coordToPixel(1);
    QVERIFY(std::abs(plot->xAxis->coordToPixel(1024) - plot->xAxis->coordToPixel(1) - 10 * octave) < 1e-6);
    view.setCurrentDk(5000);
    QCOMPARE(view.currentDk(), 1024);
    QCOMPARE(guitest::find<QCPItemStraightLine>(*view.plot(ScalingLabView::GradientPlot),
                                                QStringLiteral("dkMarker"))
                 ->point1->coords()
                 .x(),
             1024.0);
}

void TestScalingLabGui::hoverShowsValuesAtNearestDk()
{
    const attn::ScalingLabCurves c = smallCurves();
    ScalingLabView view;
    view.resize(1000, 760);
    view.setCurves(c);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    QCOMPARE(view.nearestIndex(1.0), 0);
    QCOMPARE(view.nearestIndex(1024.0), int(c.size()) - 1);
    const int i70 = view.nearestIndex(70.0);
    QCOMPARE(c.dK[i70], 70);
    const int i64 = view.nearestIndex(64.0);
    QCOMPARE(c.dK[i64], 64);
    const QString text = view.valuesText(ScalingLabView::MaxWeightPlot, i64);
    QVERIFY(text.contains("d_k = 64"));
    QVERIFY2(text.contains(QLocale().toString(c.maxWeightRaw[i64], 'g', 3)), qPrintable(text));
    QVERIFY2(text.contains(QLocale().toString(c.maxWeightScaled[i64], 'g', 3)), qPrintable(text));
    QVERIFY(view.valuesText(ScalingLabView::VariancePlot, i64).contains("theory 64"));

    // A real pointer move over the entropy plot at d_k = 64.
    QCustomPlot* plot = view.plot(ScalingLabView::EntropyPlot);
    plot->replot();
    const QPoint pos(int(std::lround(plot->xAxis->coordToPixel(64))), plot->axisRect()->rect().center().y());
    QMouseEvent move(QEvent::MouseMove, pos, plot->mapToGlobal(pos), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QApplication::sendEvent(plot, &move);
    QTRY_COMPARE(QToolTip::text(), view.valuesText(ScalingLabView::EntropyPlot, i64));
    QVERIFY(QToolTip::text().contains(QLocale().toString(c.entropyRaw[i64], 'g', 3)));
}

void TestScalingLabGui::computeRunsInBackground()
{
    ScalingLabView view;
    QSignalSpy changed(&view, &ScalingLabView::curvesChanged);
    attn::ScalingLabConfig config;
    config.nKeys = 3;
    config.samples = 120;
    config.seed = 5;
    // A first request replaced at once by a second: only the second lands.
    attn::ScalingLabConfig first = config;
    first.samples = 4000;
    view.compute(first);
    view.compute(config);
    QVERIFY(view.isComputing());
    QVERIFY(changed.wait(20000));
    QCOMPARE(changed.count(), 1);
    QVERIFY(!view.isComputing());
    const attn::ScalingLabCurves direct = attn::runScalingLab(config).value();
    QCOMPARE(view.curves().samples, 120);
    QCOMPARE(view.curves().dK, direct.dK);
    QCOMPARE(view.curves().varRaw, direct.varRaw);
    QCOMPARE(view.curves().gradNormScaled, direct.gradNormScaled);
    // Destroying a view while it computes cancels and joins the thread.
    auto* busy = new ScalingLabView;
    busy->compute(first);
    delete busy;
}

void TestScalingLabGui::keysSpinBoxRecomputes()
{
    ScalingLabView view;
    view.setCurves(smallCurves(6, 50));
    QSignalSpy changed(&view, &ScalingLabView::curvesChanged);
    guitest::find<QSpinBox>(view, QStringLiteral("keysPerQuerySpin"))->setValue(64);
    QVERIFY(changed.wait(30000));
    QCOMPARE(view.curves().nKeys, 64);
    // 64 keys: the samples shrink to keep the run within the work bound.
    QCOMPARE(view.curves().samples, int(attn::kScalingLabMaxDraws / (65LL * attn::kScalingLabMaxDk)));
    QCOMPARE(view.plot(ScalingLabView::EntropyPlot)->graph(2)->data()->at(0)->value, std::log(64.0));
}

void TestScalingLabGui::imageFilesInEveryFormat()
{
    ScalingLabView view;
    view.setCurves(smallCurves());
    view.setCurrentDk(90);
    const auto files = view.imageFiles({"png", "svg", "pdf"}, QSize(640, 480));
    QVERIFY(files.ok());
    QCOMPARE(int(files->size()), 12);
    QCOMPARE(QString::fromStdString((*files)[0].name), QString("scaling_lab_variance.png"));
    QCOMPARE(QString::fromStdString((*files)[11].name), QString("scaling_lab_jacobian.pdf"));
    QVERIFY(!view.imageFiles({"gif"}, QSize(640, 480)).ok());
    QVERIFY(!view.imageFiles({"png"}, QSize(10, 10)).ok());
}

void TestScalingLabGui::compareReadoutsAreTheEngines_data()
{
    QTest::addColumn<int>("dK");
    QTest::addColumn<bool>("causal");
    QTest::newRow("d_k 4") << 4 << false;
    QTest::newRow("d_k 256") << 256 << false;
    QTest::newRow("d_k 1024 causal") << 1024 << true;
}

void TestScalingLabGui::compareReadoutsAreTheEngines()
{
    QFETCH(int, dK);
    QFETCH(bool, causal);
    attn::ModelConfig config;
    config.init = attn::InitMode::UnitVariance;
    config.dK = dK;
    const auto model = attn::buildModel(config);
    QVERIFY(model.ok());
    attn::AttentionOptions scaled;
    scaled.causal = causal;
    attn::AttentionOptions unscaled = scaled;
    unscaled.scale = attn::ScaleMode::None;
    const auto rs = attn::computeAttention(model->X, model->Wq, model->Wk, model->Wv, scaled);
    const auto ru = attn::computeAttention(model->X, model->Wq, model->Wk, model->Wv, unscaled);
    QVERIFY(rs.ok() && ru.ok());
    const attn::AttentionStats ss = attn::computeStatistics(*rs);
    const attn::AttentionStats su = attn::computeStatistics(*ru);

    QStringList tokens;
    for (const std::string& t : model->tokenization.tokens)
        tokens << QString::fromStdString(t);
    ScalingCompareView view;
    view.setData(std::make_shared<const attn::ScalingComparison>(attn::compareScaling(*rs)), tokens);

    auto* unscaledMap = guitest::find<attnlab::HeatmapView>(view, QStringLiteral("unscaledWeightsMap"));
    auto* scaledMap = guitest::find<attnlab::HeatmapView>(view, QStringLiteral("scaledWeightsMap"));
    QVERIFY((unscaledMap->values().array() == ru->weightsMatrix().array()).all());
    QVERIFY((scaledMap->values().array() == rs->weightsMatrix().array()).all());
    QCOMPARE(unscaledMap->rowLabels(), tokens);
    QCOMPARE(scaledMap->columnLabels(), tokens);
    QCOMPARE(unscaledMap->colorMap(), attnlab::HeatmapView::ColorMap::Sequential);

    using V = ScalingCompareView;
    const double expected[V::kReadoutCount][2] = {
        {su.rawVariance, ss.scaledVariance},
        {su.meanMaxWeight, ss.meanMaxWeight},
        {su.meanEntropyNats, ss.meanEntropyNats},
        {su.meanJacobianNorm, ss.meanJacobianNorm},
    };
    QTableWidget* table = guitest::find<QTableWidget>(view, QStringLiteral("scalingCompareTable"));
    for (int r = 0; r < V::kReadoutCount; ++r)
        for (int s = 0; s < 2; ++s) {
            const double shown = table->item(r, s)->data(Qt::UserRole).toDouble();
            QVERIFY2(closeRel(shown, expected[r][s], 1e-13),
                     qPrintable(QString("row %1 side %2: %3 vs %4")
                                    .arg(r)
                                    .arg(s)
                                    .arg(shown, 0, 'g', 17)
                                    .arg(expected[r][s], 0, 'g', 17)));
            QCOMPARE(table->item(r, s)->text(), QLocale().toString(shown, 'g', 4));
        }
    // The point of the view: at large d_k the unscaled rows are the peakier.
    if (dK >= 256) {
        QVERIFY(table->item(V::MeanMaxWeight, V::Unscaled)->data(Qt::UserRole).toDouble()
                > table->item(V::MeanMaxWeight, V::Scaled)->data(Qt::UserRole).toDouble());
        QVERIFY(view.summaryText().contains(QString("d_k = %1").arg(dK)));
    }
}

void TestScalingLabGui::compareNamesTheInitialisation()
{
    ScalingCompareView view;
    view.setInitMode(attn::InitMode::UnitVariance);
    QVERIFY(view.initText().contains("unit variance"));
    QVERIFY(view.initText().contains("textbook"));
    view.setInitMode(attn::InitMode::StandardNormal);
    QVERIFY(view.initText().contains("standard normal"));
    view.setInitMode(attn::InitMode::Article);
    QVERIFY(view.initText().contains("article"));
}

void TestScalingLabGui::lessonWalksEveryStage()
{
    LessonPanel panel;
    QSignalSpy changed(&panel, &LessonPanel::stepChanged);
    QSignalSpy finished(&panel, &LessonPanel::finished);
    QCOMPARE(panel.step(), 0);
    QCOMPARE(panel.stepIndicator(), QString("Step 1 of 13"));
    QVERIFY(!guitest::find<QPushButton>(panel, QStringLiteral("lessonBackButton"))->isEnabled());
    const LessonPanel::Stage order[] = {
        LessonPanel::Stage::Scores,         LessonPanel::Stage::Scale,
        LessonPanel::Stage::Softmax,        LessonPanel::Stage::Context,
        LessonPanel::Stage::DkExperiment,   LessonPanel::Stage::LearningMatters,
        LessonPanel::Stage::FlashTiles,     LessonPanel::Stage::HeadQueries,
        LessonPanel::Stage::HeadKeysValues, LessonPanel::Stage::HeadsAttend,
        LessonPanel::Stage::HeadsConcat,    LessonPanel::Stage::ModelHeads,
        LessonPanel::Stage::HeadLab};
    QSet<QString> titles;
    for (int s = 1; s < LessonPanel::kStepCount; ++s) {
        QTest::mouseClick(guitest::find<QPushButton>(panel, QStringLiteral("lessonNextButton")),
                          Qt::LeftButton);
        QCOMPARE(panel.step(), s);
        QCOMPARE(changed.count(), s);
        QCOMPARE(changed.last().at(0).toInt(), s);
        QCOMPARE(changed.last().at(1).value<LessonPanel::Stage>(), order[s]);
    }
    for (int s = 0; s < LessonPanel::kStepCount; ++s) {
        titles.insert(panel.title(s));
        // Two to five sentences for a student.
        const int sentences = int(panel.explanation(s).count(QRegularExpression("[.:)]\\s")) + 1);
        QVERIFY2(sentences >= 2 && sentences <= 7, qPrintable(panel.explanation(s)));
    }
    QCOMPARE(titles.size(), LessonPanel::kStepCount);
    QVERIFY(panel.explanation(4).contains("d_k"));
    QCOMPARE(panel.stepIndicator(), QString("Step 13 of 13"));
    QTest::mouseClick(guitest::find<QPushButton>(panel, QStringLiteral("lessonNextButton")), Qt::LeftButton);
    QCOMPARE(finished.count(), 1);
    QCOMPARE(panel.step(), LessonPanel::kStepCount - 1);
    // The d_k experiment, the last single-head step, reads the live comparison.
    panel.setStep(4);

    attn::ScalingComparison c;
    c.dK = 512;
    c.meanMaxRaw = 0.97;
    c.meanMaxScaled = 0.41;
    panel.setLiveComparison(c);
    QVERIFY(panel.liveText().contains("512"));
    QVERIFY(panel.liveText().contains(QLocale().toString(0.97, 'f', 2)));

    QTest::mouseClick(guitest::find<QPushButton>(panel, QStringLiteral("lessonBackButton")), Qt::LeftButton);
    QCOMPARE(changed.last().at(1).value<LessonPanel::Stage>(), LessonPanel::Stage::Context);
    const int before = changed.count();
    panel.setStep(3);  // no change, no signal
    QCOMPARE(changed.count(), before);
    panel.restart();
    QCOMPARE(changed.count(), before + 1);
    QCOMPARE(changed.last().at(1).value<LessonPanel::Stage>(), LessonPanel::Stage::Scores);
}

void TestScalingLabGui::commandWritesAllFiles()
{
    QTemporaryDir tmp;
    const QString out = tmp.filePath("lab out");
    const Run run = runLab({"--n-keys", "4", "--samples=300", "--seed", "7", "--export-dir", out, "--format",
                            "json,csv,png,svg,pdf"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    QStringList expected{"scaling_lab.csv", "scaling_lab.json"};
    for (const char* stem : {"variance", "max_weight", "entropy", "jacobian"})
        for (const char* ext : {"png", "svg", "pdf"})
            expected << QString("scaling_lab_%1.%2").arg(stem, ext);
    expected.sort();
    QCOMPARE(entries(out), expected);

    attn::ScalingLabConfig config;
    config.nKeys = 4;
    config.samples = 300;
    config.seed = 7;
    const attn::ScalingLabCurves c = attn::runScalingLab(config).value();

    QFile jsonFile(out + "/scaling_lab.json");
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(jsonFile.readAll()).object();
    QCOMPARE(json["n_keys"].toInt(), 4);
    QCOMPARE(json["samples"].toInt(), 300);
    QCOMPARE(json["seed"].toInt(), 7);
    const QJsonArray dk = json["d_k"].toArray();
    QCOMPARE(dk.size(), int(c.size()));
    for (int g = 0; g < dk.size(); ++g)
        QCOMPARE(dk[g].toInt(), c.dK[g]);
    const QStringList names = attnlab::scalingLabColumns();
    QCOMPARE(names.size(), 11);
    for (const QString& name : names.mid(1)) {
        const QJsonArray values = json[name].toArray();
        QCOMPARE(values.size(), int(c.size()));
        for (int g = 0; g < values.size(); ++g)
            QCOMPARE(values[g].toDouble(), column(c, name)[g]);
    }

    QFile csvFile(out + "/scaling_lab.csv");
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    const auto rows = attnlab::parseCsv(csvFile.readAll().toStdString());
    QVERIFY(rows.ok());
    QCOMPARE(int(rows->size()), int(c.size()) + 1);
    for (int k = 0; k < names.size(); ++k)
        QCOMPARE(QString::fromStdString((*rows)[0][k]), names[k]);
    for (std::size_t g = 0; g < c.size(); ++g) {
        const attnlab::CsvRow& row = (*rows)[g + 1];
        QCOMPARE(row[0], std::to_string(c.dK[g]));
        for (int k = 1; k < names.size(); ++k) {
            double v = 0;
            QVERIFY(attnlab::parseNumber(row[k], &v));
            QCOMPARE(v, column(c, names[k])[g]);
        }
    }

    const QImage png(out + "/scaling_lab_entropy.png");
    QCOMPARE(png.size(), ScalingLabView::defaultImageSize() * 2);
    QFile svgFile(out + "/scaling_lab_variance.svg");
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    const QByteArray svg = svgFile.readAll();
    QXmlStreamReader xml(svg);
    int texts = 0;
    while (!xml.atEnd())
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
            ++texts;
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(texts > 10);  // title, axis labels, ticks, legend
    QVERIFY(svg.contains("Variance of the scores"));
    QFile pdf(out + "/scaling_lab_jacobian.pdf");
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.readAll().startsWith("%PDF"));
}

void TestScalingLabGui::commandErrors_data()
{
    // OUT stands for a directory that must not come into being.
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("one key") << QStringList{"--n-keys", "1", "--export-dir", "OUT"} << "--n-keys";
    QTest::newRow("samples not a number")
        << QStringList{"--samples", "many", "--export-dir", "OUT"} << "--samples";
    QTest::newRow("no export dir") << QStringList{"--samples", "10"} << "--export-dir";
    QTest::newRow("unknown format") << QStringList{"--format", "json,gif", "--export-dir", "OUT"} << "gif";
    QTest::newRow("unknown option") << QStringList{"--d-k", "4", "--export-dir", "OUT"} << "--d-k";
    QTest::newRow("missing value") << QStringList{"--export-dir", "OUT", "--seed"} << "--seed";
}

void TestScalingLabGui::commandErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, mentions);
    QTemporaryDir tmp;
    const QString out = tmp.filePath("out");
    arguments.replaceInStrings(QRegularExpression("^OUT$"), out);
    const Run run = runLab(arguments);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.startsWith("attention-lab: "), run.err.constData());
    QCOMPARE(run.err.count('\n'), 1);
    QVERIFY2(run.err.contains(mentions.toUtf8()), run.err.constData());
    QVERIFY(!QFileInfo::exists(out));
}

void TestScalingLabGui::commandCannotWrite()
{
    // The export directory would have to be inside a regular file.
    QTemporaryDir tmp;
    QFile blocker(tmp.filePath("file"));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    const Run run =
        runLab({"--samples", "20", "--export-dir", tmp.filePath("file/out"), "--format", "json,png"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.startsWith("attention-lab: "), run.err.constData());
    QCOMPARE(run.err.count('\n'), 1);
    QCOMPARE(entries(tmp.path()), QStringList{"file"});

    const Run help = runLab({"--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("--n-keys"));
    QVERIFY(help.out.contains("scaling_lab.json"));
}

void TestScalingLabGui::commandChoosesTheSamples()
{
    // 1000 keys: the default 4000 samples would be 125 times the budget;
    // the command takes 2^25 / (1001 * 1024) = 32 and says so.
    QTemporaryDir tmp;
    const QString out = tmp.filePath("out");
    const Run run = runLab({"--n-keys", "1000", "--export-dir", out, "--format", "json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(run.err.count('\n'), 1);
    QVERIFY2(run.err.startsWith("attention-lab: 32 samples per d_k for 1000 keys"), run.err.constData());
    QCOMPARE(entries(out), QStringList{"scaling_lab.json"});
    QFile jsonFile(out + "/scaling_lab.json");
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(jsonFile.readAll()).object();
    QCOMPARE(json["n_keys"].toInt(), 1000);
    QCOMPARE(json["samples"].toInt(), 32);
}

void TestScalingLabGui::commandBeyondTheBudgetShowsProgress()
{
    // 2 keys: the budget is 2^25 / (3 * 1024) = 10922 samples; 12000 asked
    // for explicitly run, with a line at every tenth (stderr is no terminal).
    QTemporaryDir tmp;
    const QString out = tmp.filePath("out");
    const Run run = runLab(
        {"--n-keys", "2", "--samples", "12000", "--seed", "3", "--export-dir", out, "--format", "csv,json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QList<QByteArray> lines = run.err.trimmed().split('\n');
    QCOMPARE(lines.size(), 10);
    for (int i = 0; i < 10; ++i) {
        QVERIFY2(lines[i].startsWith("attention-lab: 12000 samples per d_k for 2 keys"),
                 lines[i].constData());
        QVERIFY2(lines[i].endsWith(QByteArray::number((i + 1) * 10) + "% done"), lines[i].constData());
    }
    QFile jsonFile(out + "/scaling_lab.json");
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(jsonFile.readAll()).object();
    QCOMPARE(json["samples"].toInt(), 12000);
    attn::ScalingLabConfig config;
    config.nKeys = 2;
    config.samples = 12000;
    config.seed = 3;
    config.dks = {1024};
    const attn::ScalingLabCurves direct = attn::runScalingLab(config).value();
    const QJsonArray var = json["var_raw"].toArray();
    QCOMPARE(var.last().toDouble(), direct.varRaw.back());
}

void TestScalingLabGui::progressWhileComputing()
{
    ScalingLabView view;  // not shown: it would start its own computation
    QSignalSpy changed(&view, &ScalingLabView::curvesChanged);
    auto* progress = guitest::find<QProgressBar>(view, QStringLiteral("scalingLabProgress"));
    QVERIFY(progress->isHidden());
    attn::ScalingLabConfig config;
    config.samples = 3000;
    view.compute(config);
    QVERIFY(!progress->isHidden());
    QCOMPARE(progress->value(), 0);
    // Part way: the bar has moved and the curves are not there yet.
    QTRY_VERIFY_WITH_TIMEOUT(progress->value() > 0 || changed.count() > 0, 30000);
    if (changed.count() == 0) {
        QVERIFY(progress->value() <= 100);
        QVERIFY(view.isComputing());
    }
    QVERIFY(changed.count() > 0 || changed.wait(60000));
    QVERIFY(progress->isHidden());
    QCOMPARE(view.curves().samples, 3000);
}

void TestScalingLabGui::legendHasNoPlaceholders()
{
    ScalingLabView view;
    for (int i = 0; i < ScalingLabView::kPlotCount; ++i)
        QVERIFY(!view.plot(ScalingLabView::Plot(i))->legend->visible());
    view.setCurves(smallCurves(5, 40));
    // Every entry names a graph that has data: no empty names, no "Graph 3".
    const int expectedItems[] = {4, 3, 3, 2};
    for (int i = 0; i < ScalingLabView::kPlotCount; ++i) {
        QCustomPlot* p = view.plot(ScalingLabView::Plot(i));
        QVERIFY(p->legend->visible());
        // The legend's grid counts its empty cells too.
        int items = 0;
        for (int k = 0; k < p->legend->itemCount(); ++k) {
            if (!p->legend->item(k))
                continue;
            ++items;
            auto* item = qobject_cast<QCPPlottableLegendItem*>(p->legend->item(k));
            QVERIFY(item);
            QVERIFY2(!item->plottable()->name().trimmed().isEmpty(), qPrintable(QString::number(k)));
            QVERIFY(!item->plottable()->name().startsWith("Graph"));
            QVERIFY(item->plottable()->interface1D()->dataCount() > 0);
        }
        QCOMPARE(items, expectedItems[i]);
    }
    QCOMPARE(view.plot(ScalingLabView::MaxWeightPlot)->graph(2)->name(),
             QString("uniform: 1/n = %1").arg(QLocale().toString(0.2, 'g', 3)));
}

void TestScalingLabGui::markerOnlyWithCurrentDk()
{
    // The command line's view follows no window: no "d_k = 1" on its plots.
    ScalingLabView view;
    view.setCurves(smallCurves(5, 40));
    QVERIFY(!view.isMarkerShown());
    for (int i = 0; i < ScalingLabView::kPlotCount; ++i)
        QVERIFY(!guitest::find<QCPItemStraightLine>(*view.plot(ScalingLabView::Plot(i)),
                                                    QStringLiteral("dkMarker"))
                     ->visible());
    const auto files = view.imageFiles({"svg"}, QSize(640, 480));
    QVERIFY(files.ok());
    for (const OutputFile& f : files.value()) {
        std::ostringstream svg;
        f.write(svg);
        QVERIFY(QByteArray::fromStdString(svg.str()).contains("d_k (log scale)"));
        QVERIFY2(!QByteArray::fromStdString(svg.str()).contains("d_k = "), f.name.c_str());
    }
    view.setCurrentDk(64);
    QVERIFY(view.isMarkerShown());
    QVERIFY(guitest::find<QCPItemStraightLine>(*view.plot(ScalingLabView::GradientPlot),
                                               QStringLiteral("dkMarker"))
                ->visible());
}

void TestScalingLabGui::plotsReflowAndScroll()
{
    QScrollArea area;
    auto* view = new ScalingLabView;
    area.setWidget(view);
    area.setWidgetResizable(true);
    area.setFrameShape(QFrame::NoFrame);
    area.resize(1380, 380);  // the lab's tab in a 1400 x 900 window with its docks
    area.show();
    QVERIFY(QTest::qWaitForWindowExposed(&area));
    QTRY_COMPARE(view->plotColumns(), 4);
    // Four across, every plot at least its minimum and all of it in view.
    for (int i = 0; i < ScalingLabView::kPlotCount; ++i) {
        QCustomPlot* p = view->plot(ScalingLabView::Plot(i));
        QVERIFY(p->width() >= p->minimumWidth() && p->height() >= p->minimumHeight());
        QVERIFY(area.viewport()->rect().contains(QRect(p->mapTo(area.viewport(), QPoint(0, 0)), p->size())));
    }
    // Narrow and low: two by two, taller than the view, and the wheel over a
    // plot scrolls the area.
    area.resize(800, 380);
    QTRY_COMPARE(view->plotColumns(), 2);
    QTRY_VERIFY(area.verticalScrollBar()->maximum() > 0);
    QCOMPARE(area.verticalScrollBar()->value(), 0);
    QCustomPlot* p = view->plot(ScalingLabView::VariancePlot);
    const QPointF at(p->width() / 2.0, p->height() / 2.0);
    QWheelEvent wheel(at, p->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(p, &wheel);
    QVERIFY(area.verticalScrollBar()->value() > 0);
    // Tall: two by two again, no scrolling.
    area.resize(1380, 900);
    QTRY_COMPARE(view->plotColumns(), 2);
}

QTEST_MAIN(TestScalingLabGui)
#include "tst_scalinglab.moc"
