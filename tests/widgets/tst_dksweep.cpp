// SPDX-License-Identifier: GPL-3.0-or-later
// The d_k play button (DkSweep behind DkSweepButton), driven in the window:
// the sequence of d_k it shows (the slider's log-even steps up to 1024 and
// back), stopping, one undo step for the whole sweep, and the numbered PNG
// frames it writes into a folder.

#include "mainwindow.h"

#include "dksweep.h"
#include "dksweepbutton.h"
#include "dksweepframes.h"
#include "dksweepsource.h"
#include "documentcontroller.h"
#include "exportactions.h"
#include "lessoncontroller.h"
#include "scaling_lab.h"
#include "scalingcompareview.h"
#include "session.h"
#include "viewexporter.h"
#include "guitest.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

using guitest::find;
using namespace attnlab;

class TestDkSweep : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void sequenceIsTheSlidersStepsUpAndBack();
    void playButtonSweepsEveryView();
    void playButtonStops();
    void recordsNumberedFrames();
    void framesAreEachStepsOwnResult();
    void recordingMakesAMissingFolder();
    void asksBeforeDroppingTheUsersWeights();

private:
    QTemporaryDir settingsDir_;
};

void TestDkSweep::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestDkSweep::init()
{
    QSettings().clear();
}

void TestDkSweep::sequenceIsTheSlidersStepsUpAndBack()
{
    const std::vector<int> s = DkSweep::sequence();
    const std::vector<int> grid = attn::defaultScalingLabDks();
    QCOMPARE(s.size(), 2 * grid.size() - 1);
    QCOMPARE(s.front(), 1);
    QCOMPARE(s[grid.size() - 1], 1024);
    QCOMPARE(s.back(), 1);
    for (std::size_t i = 0; i < grid.size(); ++i) {
        QCOMPARE(s[i], grid[i]);
        QCOMPARE(s[s.size() - 1 - i], grid[i]);
    }
    // The slider's steps: what the Right arrow key visits from 1 to 1024.
    MainWindow window;
    window.restoreSettings();
    QSlider* slider = find<QSlider>(window, QStringLiteral("dKSlider"));
    find<QSpinBox>(window, QStringLiteral("dKSpin"))->setValue(1);
    std::vector<int> keys{window.session()->published()->dK()};
    while (window.session()->published()->dK() < 1024) {
        QTest::keyClick(slider, Qt::Key_Right);
        keys.push_back(window.session()->published()->dK());
    }
    QCOMPARE(keys, grid);
    // Log-even: about 8 steps an octave, never more than a factor 2^(1/4) apart above 8.
    for (std::size_t i = 1; i < grid.size(); ++i) {
        QVERIFY(grid[i] > grid[i - 1]);
        if (grid[i - 1] >= 8)
            QVERIFY(double(grid[i]) / grid[i - 1] < 1.2);
    }
    QCOMPARE(DkSweep::frameFileName(1), QStringLiteral("frame_0001.png"));
    QCOMPARE(DkSweep::frameFileName(125), QStringLiteral("frame_0125.png"));
}

void TestDkSweep::playButtonSweepsEveryView()
{
    MainWindow window;
    window.restoreSettings();
    window.resize(1300, 850);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.lessons()->startScalingDemo();
    DkSweep* sweep = find<DkSweep>(window, QStringLiteral("dkSweep"));
    sweep->setInterval(0);
    auto* button = find<DkSweepButton>(window, QStringLiteral("dkPlayButton"));
    QVERIFY(button->isVisible());
    const int steps = window.documents()->undoStack()->count();
    const int startDk = window.session()->published()->dK();

    std::vector<int> shown;
    bool viewsAgree = true;
    connect(sweep, &DkSweep::stepped, this, [&](int, int dK) {
        shown.push_back(window.session()->published()->dK());
        viewsAgree =
            viewsAgree && find<QSpinBox>(window, QStringLiteral("dKSpin"))->value() == dK
            && find<QSlider>(window, QStringLiteral("dKSlider"))->value() == attn::sliderPositionFromDk(dK)
            && find<ScalingCompareView>(window, QStringLiteral("scalingCompareView"))->comparison().dK == dK;
    });
    QSignalSpy finished(sweep, &DkSweep::finished);
    QTest::mouseClick(button, Qt::LeftButton, {}, QPoint(10, button->height() / 2));
    QVERIFY(sweep->isRunning());
    QCOMPARE(button->text(), QStringLiteral("■ Stop"));
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.first().first().toBool(), true);
    QCOMPARE(shown, DkSweep::sequence());
    QVERIFY(viewsAgree);
    QVERIFY(!sweep->isRunning());
    QCOMPARE(button->text(), QStringLiteral("▶ Play"));
    // It ends where the teacher started.
    QCOMPARE(window.session()->published()->dK(), startDk);
    QCOMPARE(find<QSpinBox>(window, QStringLiteral("dKSpin"))->value(), startDk);
    // At most one undo step for the whole sweep (none when it changed nothing).
    const int after = window.documents()->undoStack()->count();
    QVERIFY(after == steps || after == steps + 1);
    if (after == steps + 1) {
        window.documents()->undoStack()->undo();
        QCOMPARE(window.session()->published()->dK(), startDk);
    }
}

void TestDkSweep::playButtonStops()
{
    MainWindow window;
    window.restoreSettings();
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    DkSweep* sweep = find<DkSweep>(window, QStringLiteral("dkSweep"));
    sweep->setInterval(20);
    auto* button = find<DkSweepButton>(window, QStringLiteral("dkPlayButton"));
    QSignalSpy stepped(sweep, &DkSweep::stepped);
    QSignalSpy finished(sweep, &DkSweep::finished);
    QTest::mouseClick(button, Qt::LeftButton, {}, QPoint(10, button->height() / 2));
    QTRY_VERIFY(stepped.size() >= 5);
    QTest::mouseClick(button, Qt::LeftButton, {}, QPoint(10, button->height() / 2));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.first().first().toBool(), false);
    QVERIFY(!sweep->isRunning());
    const int steps = int(stepped.size());
    const int last = DkSweep::sequence()[std::size_t(steps - 1)];
    // The stop may come while the next step's d_k is applied and its result
    // still in the worker (a loaded machine): the lab stays at the d_k it
    // has, the last step shown or the one after it, and its result arrives.
    const int atStop = window.session()->inputs().config.dK;
    const auto& sequence = DkSweep::sequence();
    QVERIFY2(
        atStop == last || (std::size_t(steps) < sequence.size() && atStop == sequence[std::size_t(steps)]),
        qPrintable(QStringLiteral("d_k %1 at the stop, last step %2").arg(atStop).arg(last)));
    QTRY_COMPARE(window.session()->published()->dK(), atStop);
    QTest::qWait(100);
    QCOMPARE(int(stepped.size()), steps);
    QCOMPARE(window.session()->published()->dK(), atStop);

    // Taking the d_k spin box during a sweep stops it there.
    finished.clear();
    QTest::mouseClick(button, Qt::LeftButton, {}, QPoint(10, button->height() / 2));
    QTRY_VERIFY(sweep->step() >= 3);
    find<QSpinBox>(window, QStringLiteral("dKSpin"))->setValue(77);
    QCOMPARE(finished.size(), 1);
    QVERIFY(!sweep->isRunning());
    QTRY_COMPARE(window.session()->published()->dK(), 77);
    QCOMPARE(button->text(), QStringLiteral("▶ Play"));
}

void TestDkSweep::recordsNumberedFrames()
{
    MainWindow window;
    window.restoreSettings();
    DkSweep* sweep = find<DkSweep>(window, QStringLiteral("dkSweep"));
    sweep->setInterval(0);
    // The window's own frames (the pipeline figure under its d_k), small for speed.
    sweep->setFrameSize(QSize(360, 160));
    auto* button = find<DkSweepButton>(window, QStringLiteral("dkPlayButton"));
    QTemporaryDir frames;
    button->setFolderPrompt([&frames] { return frames.path(); });
    int asked = 0;
    button->setReplacePrompt([&asked](const QString&) {
        ++asked;
        return false;
    });
    QSignalSpy finished(sweep, &DkSweep::finished);
    QSignalSpy message(button, &DkSweepButton::message);
    find<QAction>(*button, QStringLiteral("dkRecordAction"))->trigger();
    QVERIFY(sweep->isRecording());
    QVERIFY(finished.wait(300000));
    QCOMPARE(finished.first().first().toBool(), true);

    const int n = int(DkSweep::sequence().size());
    QCOMPARE(n, 125);  // the slider's 63 steps up, 62 back
    QCOMPARE(sweep->framesWritten(), n);
    QStringList names = QDir(frames.path()).entryList(QDir::Files, QDir::Name);
    QCOMPARE(names.size(), n);
    for (int i = 1; i <= n; ++i) {
        const QString path = QDir(frames.path()).filePath(DkSweep::frameFileName(i));
        QVERIFY2(QFileInfo(path).size() > 1000, qPrintable(path));
        const QImage image(path);
        QCOMPARE(image.size(), QSize(360, 160));
    }
    // Different d_k, different pictures: the first and the middle differ.
    QVERIFY(QImage(QDir(frames.path()).filePath(DkSweep::frameFileName(1)))
            != QImage(QDir(frames.path()).filePath(DkSweep::frameFileName(n / 2 + 1))));
    QVERIFY(!message.isEmpty());
    QVERIFY(message.last().first().toString().contains(QString::number(n)));
    // Back at the d_k it started from.
    QCOMPARE(window.session()->published()->dK(), 24);

    // Frames already there are not replaced without asking.
    find<QAction>(*button, QStringLiteral("dkRecordAction"))->trigger();
    QCOMPARE(asked, 1);
    QVERIFY(!sweep->isRunning());
}

// Each frame is drawn from the result computed at its own d_k, not from the
// screen: the window's frame maker, asked for a step while the screen shows
// another d_k, gives the picture of the engine's result at the step's d_k
// (computeSnapshot of the lab's parameters with that d_k), titled with it.
void TestDkSweep::framesAreEachStepsOwnResult()
{
    MainWindow window;
    window.restoreSettings();
    QCOMPARE(window.session()->published()->dK(), 24);
    DkSweep* sweep = find<DkSweep>(window, QStringLiteral("dkSweep"));
    // The maker the window gives a recording that starts now.
    const DkSweep::FrameMaker maker = sweep->frameSource()();
    QVERIFY(bool(maker));
    const std::unique_ptr<ViewExporter> exporter = window.exports()->makeViewExporter();
    DkSweepFrameStyle style;
    style.focusRow = exporter->focusQuery();
    style.options = exporter->options();
    style.weightsScale = exporter->weightsScaleMode();
    DkSweepSource source(window.session()->inputs().state());
    QVERIFY(source.status().ok());
    const QSize size(300, 140);
    for (const int dK : {1, 2, 7, 24, 181, 1024, 3}) {
        const attn::Expected<AttentionSnapshot> own = source.at(dK);
        QVERIFY(own.ok());
        attn::ModelConfig config = window.session()->inputs().config;
        config.dK = dK;
        const attn::Expected<AttentionSnapshot> engine =
            computeSnapshot(config, window.session()->inputs().options);
        QVERIFY(engine.ok());
        QCOMPARE(int(own->head().Q.cols()), dK);
        QCOMPARE(own->head().weightsMatrix(), engine->head().weightsMatrix());
        QCOMPARE(own->head().scores, engine->head().scores);
        QCOMPARE(own->head().context, engine->head().context);
        const attn::Expected<QByteArray> frame = maker(dK, 5, 125, size);
        const attn::Expected<QByteArray> expected = dkSweepFramePng(engine.value(), 5, 125, size, style);
        QVERIFY(frame.ok() && expected.ok());
        QCOMPARE(QImage::fromData(frame.value()), QImage::fromData(expected.value()));
        QCOMPARE(DkSweepSource::title(dK), QStringLiteral("d_k = %1").arg(dK));
        // The screen stays where it was.
        QCOMPARE(window.session()->published()->dK(), 24);
    }
    // Another d_k, another picture.
    QVERIFY(QImage::fromData(dkSweepFramePng(source, 1, 1, 125, size, style).value())
            != QImage::fromData(dkSweepFramePng(source, 2, 1, 125, size, style).value()));
}

void TestDkSweep::recordingMakesAMissingFolder()
{
    MainWindow window;
    window.restoreSettings();
    DkSweep* sweep = find<DkSweep>(window, QStringLiteral("dkSweep"));
    sweep->setInterval(0);
    sweep->setFrameSize(QSize(200, 100));
    QTemporaryDir dir;
    // A file where a folder is asked for: refused, nothing started.
    QFile file(dir.filePath(QStringLiteral("file")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    attn::Status started = sweep->startRecording(dir.filePath(QStringLiteral("file/frames")));
    QVERIFY(!started);
    QVERIFY2(QString::fromStdString(started.error().message).contains(QStringLiteral("cannot be made")),
             started.error().message.c_str());
    QVERIFY(!sweep->isRunning());
    QCOMPARE(window.session()->published()->dK(), 24);

    const QString missing = dir.filePath(QStringLiteral("no/such/folder"));
    QSignalSpy finished(sweep, &DkSweep::finished);
    started = sweep->startRecording(missing);
    QVERIFY2(started.ok(), started ? "" : started.error().message.c_str());
    QVERIFY(QFileInfo(missing).isDir());
    QVERIFY(finished.wait(300000));
    QCOMPARE(QDir(missing).entryList(QDir::Files).size(), int(DkSweep::sequence().size()));
}

void TestDkSweep::asksBeforeDroppingTheUsersWeights()
{
    MainWindow window;
    window.restoreSettings();
    DkSweep* sweep = find<DkSweep>(window, QStringLiteral("dkSweep"));
    sweep->setInterval(0);
    auto* button = find<DkSweepButton>(window, QStringLiteral("dkPlayButton"));
    int asked = -1;
    bool answer = false;
    button->setDropPrompt([&](int cells) {
        asked = cells;
        return answer;
    });
    // Column 0 survives d_k = 1: nothing to ask.
    QVERIFY(window.session()->setMatrixCell(MatrixId::Wq, 2, 0, 7.5));
    QCOMPARE(sweep->userCellsDroppedAtDkOne(), 0);
    QVERIFY(window.session()->setMatrixCell(MatrixId::Wq, 3, 5, -7.5));
    QVERIFY(window.session()->setMatrixCell(MatrixId::Wk, 0, 23, 2.25));
    QCOMPARE(sweep->userCellsDroppedAtDkOne(), 2);
    const attn::Matrix Wq = window.session()->inputs().matrix(MatrixId::Wq);

    QTest::mouseClick(button, Qt::LeftButton, {}, QPoint(10, button->height() / 2));
    QCOMPARE(asked, 2);
    QVERIFY(!sweep->isRunning());
    QCOMPARE(window.session()->inputs().matrix(MatrixId::Wq), Wq);

    answer = true;
    QSignalSpy finished(sweep, &DkSweep::finished);
    QTest::mouseClick(button, Qt::LeftButton, {}, QPoint(10, button->height() / 2));
    QVERIFY(finished.wait(120000));
    QCOMPARE(window.session()->published()->dK(), 24);
    // Undo of the sweep brings the user's cells back.
    window.documents()->undoStack()->undo();
    QCOMPARE(window.session()->published()->dK(), 24);
    QCOMPARE(window.session()->inputs().matrix(MatrixId::Wq), Wq);
}

QTEST_MAIN(TestDkSweep)
#include "tst_dksweep.moc"
