// SPDX-License-Identifier: GPL-3.0-or-later
// The Training tab on real widgets: started, its curves fill and equal the
// engine's run of the same settings; pause, one step and reset; the window's
// d_k followed; the readout's steps to the target from the curves; the
// probes' heatmaps; pictures, right-click numbers and the curves' files; bad
// entries (a NaN learning rate, absurd sizes) named and never run. Waits are
// on signals; the timeouts only stop a hung test.

#include "mainwindow.h"

#include "exportactions.h"
#include "guitest.h"
#include "session.h"
#include "training_lab.h"
#include "trainingplots.h"
#include "trainingprobesview.h"
#include "trainingview.h"
#include "viewexportcontroller.h"

#include <qcustomplot.h>

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using guitest::find;
using namespace attnlab;

namespace {

constexpr int kHangGuardMs = 300000;

attn::TrainingSettings smallSettings(int steps = 40)
{
    attn::TrainingSettings s;
    s.task.nKeys = 8;
    s.task.dModel = 16;
    s.task.classes = 4;
    s.task.batch = 16;
    s.dK = 16;
    s.steps = steps;
    s.seed = 5;
    return s;
}

bool waitStopped(TrainingView& view)
{
    QSignalSpy stopped(view.run(), &TrainingLabRun::stopped);
    return stopped.wait(kHangGuardMs);
}

}  // namespace

class TestTrainingView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void startFillsTheCurvesOfTheEngine();
    void pauseStepAndReset();
    void readoutCountsTheSteps();
    void badEntriesAreNamed();
    void picturesAndFiles();
    void windowHasTheTab();

private:
    QTemporaryDir settingsDir_;
};

void TestTrainingView::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("tst_trainingview")));
}

void TestTrainingView::startFillsTheCurvesOfTheEngine()
{
    TrainingView view;
    view.resize(1000, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const attn::TrainingSettings settings = smallSettings();
    view.showSettings(settings);
    QCOMPARE(view.snapshot()->settings.dK, 16);  // at step 0 the settings apply at once
    QCOMPARE(view.plot(TrainingView::LossPlot)->graphCount(), 2);
    QTest::mouseClick(find<QPushButton>(view, QStringLiteral("trainingStartButton")), Qt::LeftButton);
    QVERIFY(view.run()->isRunning() || view.snapshot()->finished);
    QVERIFY(waitStopped(view));
    QVERIFY(view.snapshot()->finished);
    QVERIFY(!find<QPushButton>(view, QStringLiteral("trainingStepButton"))->isEnabled());

    attn::TrainingLab direct(settings, TrainingLabRun::kProbes);
    direct.run();
    const auto& want = direct.curves();
    for (int r = 0; r < 2; ++r) {
        // The graphs hold the engine's numbers at steps 1..N.
        QCPGraph* loss = view.plot(TrainingView::LossPlot)->graph(r);
        QCOMPARE(loss->dataCount(), settings.steps);
        for (int s = 0; s < settings.steps; ++s) {
            QCOMPARE(loss->data()->at(s)->key, double(s + 1));
            QCOMPARE(loss->data()->at(s)->value, want[std::size_t(r)].loss[std::size_t(s)]);
        }
        QCPGraph* gradK = view.plot(TrainingView::GradientPlot)->graph(2 * r + 1);
        QCOMPARE(gradK->data()->at(settings.steps - 1)->value, want[std::size_t(r)].gradNormK.back());
        QCPGraph* saturated = view.plot(TrainingView::SaturatedPlot)->graph(r);
        QCOMPARE(saturated->data()->at(0)->value, want[std::size_t(r)].saturatedWrong.front());
        QCOMPARE(view.plot(TrainingView::EntropyPlot)->graph(r)->data()->at(7)->value,
                 want[std::size_t(r)].entropy[7]);
    }
    // The probes' heatmaps show the engine's attention, and its targets.
    auto* probes = find<TrainingProbesView>(view, QStringLiteral("trainingProbes"));
    const auto& runs = probes->runs();
    QCOMPARE(runs.size(), std::size_t(2));
    QVERIFY(runs[1].attention == direct.probeAttention(1));
    QCOMPARE(probes->targets(), direct.probes().targets);
    QCOMPARE(view.plot(TrainingView::LossPlot)->xAxis->range().upper, double(settings.steps));
}

void TestTrainingView::pauseStepAndReset()
{
    TrainingView view;
    view.show();
    attn::TrainingSettings settings = smallSettings(attn::kTrainingMaxSteps);
    view.showSettings(settings);
    QSignalSpy shown(&view, &TrainingView::snapshotShown);
    auto* start = find<QPushButton>(view, QStringLiteral("trainingStartButton"));
    auto* step = find<QPushButton>(view, QStringLiteral("trainingStepButton"));
    start->click();
    QVERIFY(start->text().contains(QStringLiteral("Pause")));
    QVERIFY(!step->isEnabled());
    QVERIFY(shown.wait(kHangGuardMs));
    start->click();  // pause
    QVERIFY(waitStopped(view));
    QVERIFY(start->text().contains(QStringLiteral("Play")));
    const int paused = view.snapshot()->stepsDone;
    QVERIFY(paused > 0 && paused < settings.steps);
    QCOMPARE(view.plot(TrainingView::AccuracyPlot)->graph(0)->dataCount(), paused);
    QVERIFY(
        view.findChild<QLabel*>(QStringLiteral("trainingStatus"))->text().contains(QString::number(paused)));

    QVERIFY(step->isEnabled());
    step->click();
    QVERIFY(waitStopped(view));
    QCOMPARE(view.snapshot()->stepsDone, paused + 1);
    QCOMPARE(view.plot(TrainingView::LossPlot)->graph(1)->dataCount(), paused + 1);

    // A change mid-run waits for Reset, and says so.
    find<QSpinBox>(view, QStringLiteral("trainingDkSpin"))->setValue(32);
    QCOMPARE(view.snapshot()->settings.dK, 16);
    QVERIFY(
        view.findChild<QLabel*>(QStringLiteral("trainingStatus"))->text().contains(QStringLiteral("Reset")));
    find<QPushButton>(view, QStringLiteral("trainingResetButton"))->click();
    QCOMPARE(view.snapshot()->stepsDone, 0);
    QCOMPARE(view.snapshot()->settings.dK, 32);
    QCOMPARE(view.plot(TrainingView::LossPlot)->graph(0)->dataCount(), 0);
    QCOMPARE(view.snapshot()->curves[0].divisor, std::sqrt(32.0));
}

void TestTrainingView::readoutCountsTheSteps()
{
    TrainingView view;
    view.showSettings(smallSettings(60));
    find<QPushButton>(view, QStringLiteral("trainingStartButton"))->click();
    QVERIFY(waitStopped(view));
    // A target between the first and last loss of the scaled run.
    const auto& scaled = view.snapshot()->curves[0];
    const double target = (scaled.loss.front() + scaled.loss.back()) / 2;
    auto* edit = view.findChild<QLineEdit*>(QStringLiteral("trainingLossTarget"));
    edit->setText(QLocale().toString(target, 'g', 17));
    emit edit->editingFinished();
    QCOMPARE(view.lossTarget(), target);
    int first = -1;
    for (std::size_t s = 0; s < scaled.size(); ++s)
        if (scaled.loss[s] <= target) {
            first = int(s) + 1;
            break;
        }
    QVERIFY(first > 0);
    QCOMPARE(view.stepsToTarget().front(), first);
    QCOMPARE(view.stepsToTarget()[1], attn::stepsToReachLoss(view.snapshot()->curves[1], target));
    QVERIFY(view.readoutText().contains(QStringLiteral("%1 steps").arg(first)));
    // Unreachable: "not yet".
    view.setLossTarget(1e-9);
    QCOMPARE(view.stepsToTarget().front(), -1);
    QVERIFY(view.readoutText().contains(QStringLiteral("not yet")));
}

void TestTrainingView::badEntriesAreNamed()
{
    TrainingView view;
    view.show();
    auto* status = view.findChild<QLabel*>(QStringLiteral("trainingStatus"));
    auto* learningRate = find<QLineEdit>(view, QStringLiteral("trainingLearningRate"));
    learningRate->setText(QStringLiteral("nan"));
    emit learningRate->editingFinished();
    QVERIFY2(status->text().contains(QStringLiteral("learning rate")), qPrintable(status->text()));
    QSignalSpy message(&view, &TrainingView::message);
    find<QPushButton>(view, QStringLiteral("trainingStartButton"))->click();
    QCOMPARE(message.count(), 1);
    QVERIFY(!view.run()->isRunning());
    QCOMPARE(view.snapshot()->stepsDone, 0);
    learningRate->setText(QStringLiteral("-1"));
    emit learningRate->editingFinished();
    QVERIFY(status->text().contains(QStringLiteral("learning rate")));
    learningRate->setText(QStringLiteral("0.003"));
    emit learningRate->editingFinished();
    QVERIFY(!status->text().contains(QStringLiteral("must")));

    // Sizes at every limit at once: refused by the engine's check or run, never a crash.
    auto* batch = find<QSpinBox>(view, QStringLiteral("trainingBatchSpin"));
    batch->setValue(batch->maximum() + 5);
    QCOMPARE(batch->value(), attn::kTrainingMaxBatch);
    for (const char* name : {"trainingKeysSpin", "trainingDModelSpin", "trainingClassesSpin"}) {
        auto* spin = view.findChild<QSpinBox*>(QLatin1String(name));
        spin->setValue(spin->maximum());
    }
    find<QSpinBox>(view, QStringLiteral("trainingDkSpin"))->setValue(attn::kTrainingMaxDk);
    const auto entered = view.enteredSettings();
    if (!entered) {
        QVERIFY(!QString::fromStdString(entered.error().message).isEmpty());
        QVERIFY(status->text().contains(QString::fromStdString(entered.error().message)));
    }
    auto* beta = view.findChild<QLineEdit*>(QStringLiteral("trainingBeta"));
    beta->setText(QStringLiteral("inf"));
    emit beta->editingFinished();
    QVERIFY(status->text().contains(QStringLiteral("β")));
}

void TestTrainingView::picturesAndFiles()
{
    TrainingView view;
    view.resize(1000, 800);
    view.show();
    attn::TrainingSettings settings = smallSettings(25);
    settings.customDivisor = 2.0;
    view.showSettings(settings);
    QCOMPARE(view.plot(TrainingView::LossPlot)->graphCount(), 3);
    find<QPushButton>(view, QStringLiteral("trainingStartButton"))->click();
    QVERIFY(waitStopped(view));

    const auto files = view.imageFiles({QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")},
                                       QSize(400, 300));
    QVERIFY(files.ok());
    QCOMPARE(files->size(), std::size_t(3 * TrainingView::kPlotCount));
    QCOMPARE(QString::fromStdString(files->front().name), QStringLiteral("training_loss.png"));
    QVERIFY(!view.imageFiles({QStringLiteral("gif")}, QSize(400, 300)).ok());

    QTemporaryDir dir;
    QVERIFY(view.exportCurves(dir.path()));
    QFile json(dir.filePath(QStringLiteral("training_lab.json")));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(json.readAll()).object();
    QCOMPARE(root.value("d_k").toInt(), 16);
    const QJsonArray runs = root.value("runs").toArray();
    QCOMPARE(runs.size(), 3);
    QCOMPARE(runs[2].toObject().value("scale").toString(), QStringLiteral("custom"));
    QCOMPARE(runs[2].toObject().value("divisor").toDouble(), 2.0);
    const QJsonArray loss = runs[1].toObject().value("loss").toArray();
    QCOMPARE(loss.size(), settings.steps);
    QCOMPARE(loss[3].toDouble(), view.snapshot()->curves[1].loss[3]);
    QVERIFY(QFile(dir.filePath(QStringLiteral("training_lab.csv"))).size() > 100);
    const std::string csv = view.plotCsv(TrainingView::SaturatedPlot);
    QVERIFY(csv.rfind("step,saturated_wrong_sqrt-dk,saturated_wrong_none,saturated_wrong_custom\n", 0) == 0);
}

void TestTrainingView::windowHasTheTab()
{
    MainWindow window;
    window.restoreSettings();
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    TrainingView* view = find<TrainingView>(window, QStringLiteral("trainingView"));
    QVERIFY(view);
    auto* tabs = guitest::find<QTabWidget>(window, QStringLiteral("mapsTabs"));
    int index = -1;
    for (int t = 0; t < tabs->count(); ++t)
        if (tabs->tabText(t) == QLatin1String("Training"))
            index = t;
    QVERIFY(index >= 0);
    tabs->setCurrentIndex(index);
    // d_k follows the window's.
    window.session()->setDK(40);
    QTRY_COMPARE(find<QSpinBox>(*view, QStringLiteral("trainingDkSpin"))->value(), 40);
    QCOMPARE(view->snapshot()->settings.dK, 40);

    attn::TrainingSettings settings = smallSettings(12);
    settings.dK = 40;
    view->showSettings(settings);
    find<QPushButton>(*view, QStringLiteral("trainingStartButton"))->click();
    QVERIFY(waitStopped(*view));
    // At 1024 x 700 no plot's title is wider than its plot (the longer ones
    // drop their "· d_k = 40"); on a wide window every title names d_k.
    const auto titleOf = [](QCustomPlot* p) {
        return qobject_cast<QCPTextElement*>(p->plotLayout()->element(0, 0));
    };
    QCoreApplication::processEvents();
    for (int i = 0; i < TrainingPlots::kPlotCount; ++i) {
        QCPTextElement* title = titleOf(view->plot(TrainingView::Plot(i)));
        QVERIFY(title);
        QVERIFY2(QFontMetrics(title->font()).horizontalAdvance(title->text())
                     <= view->plot(TrainingView::Plot(i))->width(),
                 qPrintable(title->text()));
    }
    window.resize(1920, 1080);
    QTRY_VERIFY(
        titleOf(view->plot(TrainingView::GradientPlot))->text().endsWith(QStringLiteral("· d_k = 40")));
    for (int i = 0; i < TrainingPlots::kPlotCount; ++i)
        QVERIFY2(titleOf(view->plot(TrainingView::Plot(i)))->text().endsWith(QStringLiteral("· d_k = 40")),
                 qPrintable(titleOf(view->plot(TrainingView::Plot(i)))->text()));
    window.resize(1024, 700);
    QTRY_VERIFY(!titleOf(view->plot(TrainingView::GradientPlot))->text().contains(QStringLiteral("d_k")));
    // Pictures through the window's export machinery, and the numbers.
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("loss.svg"));
    QVERIFY(window.exports()->exportView(ExportView::TrainingLoss, file, QSize(600, 400)));
    QVERIFY(QFile(file).size() > 1000);
    const QString png = dir.filePath(QStringLiteral("entropy.png"));
    QVERIFY(window.exports()->exportView(ExportView::TrainingEntropy, png, QSize(600, 400)));
    QCOMPARE(QImage(png).size(), QSize(600, 400));
    const auto numbers = window.exports()->controller()->numbers(ExportView::TrainingGradient);
    QVERIFY(numbers.ok());
    QVERIFY(numbers->rfind("step,grad_norm_q_sqrt-dk,grad_norm_q_none,grad_norm_k_sqrt-dk", 0) == 0);
    QVERIFY(window.exports()->exportAllViews(dir.filePath(QStringLiteral("all"))));
    for (const char* name : {"training_loss.png", "training_saturated_wrong.pdf", "training_grad_norm.svg"})
        QVERIFY2(QFile::exists(dir.filePath(QStringLiteral("all/") + QLatin1String(name))), name);
}

QTEST_MAIN(TestTrainingView)
#include "tst_trainingview.moc"
