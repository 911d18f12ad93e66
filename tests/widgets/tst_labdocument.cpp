// SPDX-License-Identifier: GPL-3.0-or-later
// Saved labs through the window and its document: save then open gives the
// identical state and results; the unsaved-changes question comes exactly
// when something would be lost (answered by an injected function that counts
// its calls); a failed save leaves the old file; the autosave is offered back
// after a run that did not close, never another live window's, kept when
// damaged, its failure told once; the presets open as described.

#include "mainwindow.h"

#include "commandline.h"

#include "attention.h"
#include "documentcontroller.h"
#include "labdocument.h"
#include "labfile.h"
#include "model.h"
#include "pipelineview.h"
#include "guitest.h"

#include <QAction>
#include <QCloseEvent>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QSignalSpy>
#include <QtTest>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace attnlab;

namespace {

bool sameMatrix(const attn::Matrix& a, const attn::Matrix& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols()
           && std::memcmp(a.data(), b.data(), sizeof(double) * std::size_t(a.size())) == 0;
}

bool sameLab(const LabState& a, const LabState& b)
{
    return a.config.sentence == b.config.sentence && a.config.tokenizer == b.config.tokenizer
           && a.config.seed == b.config.seed && a.config.dModel == b.config.dModel
           && a.config.dK == b.config.dK && a.config.dV == b.config.dV && a.config.init == b.config.init
           && a.options.scale == b.options.scale && a.options.customDivisor == b.options.customDivisor
           && a.options.causal == b.options.causal && sameMatrix(a.X, b.X) && sameMatrix(a.Wq, b.Wq)
           && sameMatrix(a.Wk, b.Wk) && sameMatrix(a.Wv, b.Wv);
}

QByteArray readBytes(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Counts the questions and gives a fixed answer.
struct Prompts {
    int unsaved = 0;
    int recovery = 0;
    LabDocument::UnsavedAnswer answer = LabDocument::UnsavedAnswer::Cancel;
    bool recover = true;
    QString savePath;

    void install(LabDocument* d)
    {
        d->setUnsavedPrompt([this](const QString&) {
            ++unsaved;
            return answer;
        });
        d->setRecoveryPrompt([this](const QDateTime&) {
            ++recovery;
            return recover;
        });
        d->setSavePathPrompt([this] { return savePath; });
    }
};

// A lab far from the defaults, hand edits included.
void makeChanges(MainWindow& w)
{
    Session* s = w.session();
    s->setSentence(QStringLiteral("the quick brown fox jumps"));
    s->setTokenizer(attn::TokenizerMode::Punctuation);
    s->setSeed(4242);
    s->setInit(attn::InitMode::UnitVariance);
    s->setDModel(8);
    s->setDK(5);
    s->setDV(3);
    s->setScaleMode(attn::ScaleMode::Custom);
    s->setCustomDivisor(2.5);
    s->setCausal(true);
    QVERIFY(s->setMatrixCell(MatrixId::X, 2, 3, -0.0));
    QVERIFY(s->setMatrixCell(MatrixId::Wk, 7, 4, 1e-300));
    QVERIFY(s->setMatrixCell(MatrixId::Wv, 0, 2, 0.1 + 0.2));
    w.setFocusQuery(3);
    guitest::find<PipelineView>(w, QStringLiteral("pipelineView"))->setIndependentRanges(true);
    guitest::find<QTabWidget>(w, QStringLiteral("mapsTabs"))->setCurrentIndex(1);
}

}  // namespace

class TestLabDocument : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void saveThenOpenGivesTheSameLab();
    void unsavedChangesAreAskedAbout();
    void closingAsksOnlyWhenSomethingIsLost();
    void saveAnswerSavesFirst();
    void failedSaveKeepsTheOldFile();
    void killedDuringSaveKeepsAWholeFile();
    void autosaveIsOfferedBack();
    void twoWindowsKeepTheirOwnAutosave();
    void damagedAutosaveIsKept();
    void autosaveFailureIsToldOnce();
    void timerAutosaveWritesOnItsOwnThread();
    void cleanCloseLeavesNoAutosave();
    void recentFiles();
    void presets_data();
    void presets();
    void commandLineLabStartsTheWindow();
    void commandLineLabKeepsItsFileForSave();
    void quitWithDiscardDoesNotComeBack();

private:
    QTemporaryDir dir_;
    QString path(const QString& name) const { return dir_.filePath(name); }
};

void TestLabDocument::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(dir_, QStringLiteral("Attention Lab document test")));
}

void TestLabDocument::init()
{
    QSettings().clear();
}

void TestLabDocument::saveThenOpenGivesTheSameLab()
{
    const QString file = path(QStringLiteral("round.attnlab"));
    LabState saved;
    attn::AttentionResult savedResult;
    {
        MainWindow w;
        makeChanges(w);
        QVERIFY(w.documents()->document()->isModified());
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("Untitled")));
        QVERIFY(w.documents()->document()->saveAs(file));
        QVERIFY(!w.documents()->document()->isModified());
        QVERIFY(!w.isWindowModified());
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("round.attnlab")));
        saved = w.session()->inputs().state();
        savedResult = *w.session()->published()->shown();
    }
    MainWindow w;
    Prompts prompts;
    prompts.install(w.documents()->document());
    QVERIFY(w.documents()->openLab(file));
    QCOMPARE(prompts.unsaved, 0);  // nothing to lose yet
    QVERIFY(sameLab(w.session()->inputs().state(), saved));
    QCOMPARE(w.session()->inputs().editedCells, 3);
    // Same inputs, same arithmetic: the results agree bit for bit.
    const attn::AttentionResult& r = *w.session()->published()->shown();
    QVERIFY(sameMatrix(r.scores, savedResult.scores));
    QVERIFY(sameMatrix(r.scaledMatrix(), savedResult.scaledMatrix()));
    QVERIFY(sameMatrix(r.weightsMatrix(), savedResult.weightsMatrix()));
    QVERIFY(sameMatrix(r.context, savedResult.context));
    QCOMPARE(r.divisor, 2.5);
    QVERIFY(std::signbit(w.session()->inputs().matrix(MatrixId::X)(2, 3)));
    QCOMPARE(w.session()->published()->tokens(), QStringList({"the", "quick", "brown", "fox", "jumps"}));
    QCOMPARE(w.focusQuery(), 3);
    QVERIFY(guitest::find<PipelineView>(w, QStringLiteral("pipelineView"))->independentRanges());
    QCOMPARE(guitest::find<QTabWidget>(w, QStringLiteral("mapsTabs"))->currentIndex(), 1);
    QCOMPARE(w.documents()->document()->filePath(), QFileInfo(file).absoluteFilePath());
    QVERIFY(!w.documents()->document()->isModified());
    QVERIFY(!w.documents()->undoStack()->canUndo());
}

void TestLabDocument::unsavedChangesAreAskedAbout()
{
    const QString file = path(QStringLiteral("other.attnlab"));
    {
        MainWindow w;
        w.session()->setSentence(QStringLiteral("another lab"));
        QVERIFY(w.documents()->document()->saveAs(file));
    }
    MainWindow w;
    Prompts prompts;
    prompts.install(w.documents()->document());
    w.session()->setDK(7);
    QVERIFY(w.documents()->document()->isModified());

    prompts.answer = LabDocument::UnsavedAnswer::Cancel;
    QVERIFY(!w.documents()->openLab(file));
    QCOMPARE(prompts.unsaved, 1);
    QCOMPARE(w.session()->inputs().config.dK, 7);
    QVERIFY(!w.documents()->newLab());
    QCOMPARE(prompts.unsaved, 2);
    QCOMPARE(w.session()->inputs().config.dK, 7);
    QVERIFY(!w.documents()->openPreset(DocumentController::presets().front()));
    QCOMPARE(prompts.unsaved, 3);

    prompts.answer = LabDocument::UnsavedAnswer::Discard;
    QVERIFY(w.documents()->openLab(file));
    QCOMPARE(prompts.unsaved, 4);
    QCOMPARE(w.session()->inputs().config.sentence, std::string("another lab"));
    // Opened and untouched: no question.
    QVERIFY(w.documents()->newLab());
    QCOMPARE(prompts.unsaved, 4);
    QCOMPARE(w.session()->inputs().config.sentence, std::string(attn::kArticleSentence));
    QVERIFY(w.documents()->document()->filePath().isEmpty());
    // Undoing back to the saved state leaves nothing to ask about.
    w.session()->setSeed(5);
    w.documents()->undoStack()->undo();
    QVERIFY(w.documents()->openLab(file));
    QCOMPARE(prompts.unsaved, 4);
}

void TestLabDocument::closingAsksOnlyWhenSomethingIsLost()
{
    MainWindow w;
    Prompts prompts;
    prompts.install(w.documents()->document());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.close());  // nothing changed
    QCOMPARE(prompts.unsaved, 0);

    w.show();
    w.session()->setCausal(true);
    prompts.answer = LabDocument::UnsavedAnswer::Cancel;
    QVERIFY(!w.close());
    QCOMPARE(prompts.unsaved, 1);
    QVERIFY(w.isVisible());
    prompts.answer = LabDocument::UnsavedAnswer::Discard;
    QVERIFY(w.close());
    QCOMPARE(prompts.unsaved, 2);
    QVERIFY(!w.isVisible());
}

void TestLabDocument::saveAnswerSavesFirst()
{
    MainWindow w;
    Prompts prompts;
    prompts.install(w.documents()->document());
    w.session()->setDV(9);
    prompts.answer = LabDocument::UnsavedAnswer::Save;
    // No file chosen: the save fails and nothing is discarded.
    QVERIFY(!w.documents()->newLab());
    QCOMPARE(w.session()->inputs().config.dV, 9);
    prompts.savePath = path(QStringLiteral("asked.attnlab"));
    QVERIFY(w.documents()->newLab());
    QCOMPARE(prompts.unsaved, 2);
    attn::Expected<LabState> back = readLabFile(prompts.savePath);
    QVERIFY(back.ok());
    QCOMPARE(back.value().config.dV, 9);
    QCOMPARE(back.value().Wv.cols(), 9);
    QCOMPARE(w.session()->inputs().config.dV, 28);
}

void TestLabDocument::failedSaveKeepsTheOldFile()
{
    const QString file = path(QStringLiteral("keep.attnlab"));
    MainWindow w;
    QVERIFY(w.documents()->document()->saveAs(file));
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray old = f.readAll();
    f.close();
    // Parameters without a result cannot be saved; the file stays as it was.
    w.session()->setSentence(QString());
    QVERIFY(!w.session()->problem().isEmpty());
    const attn::Status refused = w.documents()->document()->save();
    QVERIFY(!refused);
    QVERIFY(QString::fromStdString(refused.error().message).contains(w.session()->problem()));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), old);
    f.close();
    // A directory that does not exist: refused, nothing created.
    QVERIFY(!w.documents()->document()->saveAs(path(QStringLiteral("missing/lab.attnlab"))));
    QVERIFY(!QFileInfo::exists(path(QStringLiteral("missing"))));
}

void TestLabDocument::killedDuringSaveKeepsAWholeFile()
{
    // A child process saves a large lab over and over and is killed at some
    // point; the file left is always one whole lab, the old or the new one.
    const QString file = path(QStringLiteral("killed.attnlab"));
    MainWindow w;
    w.session()->setDModel(256);
    w.session()->setDK(256);
    const LabState small = w.session()->inputs().state();
    QVERIFY(w.documents()->document()->saveAs(file));
    w.session()->setSentence(
        QStringLiteral("a much longer sentence makes a larger embedding "
                       "matrix to write out to the file"));
    const LabState large = w.session()->inputs().state();
    for (int delayMs : {2, 15, 40}) {
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            for (;;)
                saveLabFile(file, large);
        }
        QTest::qWait(delayMs);
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        attn::Expected<LabState> back = readLabFile(file);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QVERIFY(sameLab(back.value(), small) || sameLab(back.value(), large));
    }
}

void TestLabDocument::autosaveIsOfferedBack()
{
    const QString folder = path(QStringLiteral("autosave-1"));
    LabState crashed;
    QString autosave;
    {
        MainWindow w;
        w.documents()->document()->setAutosaveFolder(folder);
        autosave = w.documents()->document()->autosavePath();
        QCOMPARE(QFileInfo(autosave).absolutePath(), QFileInfo(folder).absoluteFilePath());
        // Not modified: no autosave.
        QVERIFY(w.documents()->document()->autosave());
        QVERIFY(!QFileInfo::exists(autosave));
        w.documents()->document()->setAutosaveInterval(20);
        makeChanges(w);
        QTRY_VERIFY(QFileInfo::exists(autosave));
        QVERIFY(QFileInfo::exists(autosave + ".lock"));  // held while the window lives
        crashed = w.session()->inputs().state();
        // No closeEvent: the run ends as if it had crashed.
    }
    const QString kept = path(QStringLiteral("autosave-copy.attnlab"));
    QVERIFY(QFile::copy(autosave, kept));
    {
        MainWindow w;
        Prompts prompts;
        prompts.install(w.documents()->document());
        w.documents()->document()->setAutosaveFolder(folder);
        prompts.recover = false;
        QCOMPARE(w.documents()->document()->orphanedAutosaves(), QStringList{autosave});
        QVERIFY(!w.documents()->document()->offerRecovery());
        QCOMPARE(prompts.recovery, 1);
        QCOMPARE(w.session()->inputs().config.sentence, std::string(attn::kArticleSentence));
        QVERIFY(!QFileInfo::exists(autosave));  // declined: gone
        QVERIFY(!w.documents()->document()->offerRecovery());
        QCOMPARE(prompts.recovery, 1);  // nothing left to offer
    }
    QVERIFY(QFile::copy(kept, autosave));
    MainWindow w;
    Prompts prompts;
    prompts.install(w.documents()->document());
    w.documents()->document()->setAutosaveFolder(folder);
    prompts.recover = true;
    QVERIFY(w.documents()->document()->offerRecovery());
    QCOMPARE(prompts.recovery, 1);
    QVERIFY(sameLab(w.session()->inputs().state(), crashed));
    QCOMPARE(w.focusQuery(), 3);
    QVERIFY(w.documents()->document()->isModified());  // recovered, not saved anywhere
    QVERIFY(w.documents()->document()->filePath().isEmpty());
    // The window's own autosave took the lab over; the old file went.
    QVERIFY(!QFileInfo::exists(autosave));
    QVERIFY(w.documents()->document()->hasAutosave());
    QVERIFY(sameLab(readLabFile(w.documents()->document()->autosavePath()).value(), crashed));
}

// Two windows on one profile: the second is not told the first "did not
// close normally", and nothing it does removes the first one's autosave.
void TestLabDocument::twoWindowsKeepTheirOwnAutosave()
{
    const QString folder = path(QStringLiteral("autosave-two"));
    MainWindow first;
    first.documents()->document()->setAutosaveFolder(folder);
    makeChanges(first);
    QVERIFY(first.documents()->document()->autosave());
    const QString firstFile = first.documents()->document()->autosavePath();
    QVERIFY(QFileInfo::exists(firstFile));

    MainWindow second;
    Prompts prompts;
    prompts.install(second.documents()->document());
    prompts.recover = false;
    second.documents()->document()->setAutosaveFolder(folder);
    QVERIFY(second.documents()->document()->orphanedAutosaves().isEmpty());
    QVERIFY(!second.documents()->document()->offerRecovery());
    QCOMPARE(prompts.recovery, 0);
    second.session()->setSeed(77);
    QVERIFY(second.documents()->document()->autosave());
    QVERIFY(second.documents()->document()->autosavePath() != firstFile);
    second.documents()->document()->closeCleanly();
    QVERIFY(QFileInfo::exists(firstFile));
    QVERIFY(sameLab(readLabFile(firstFile).value(), first.session()->inputs().state()));
}

// A truncated autosave answered with Restore: the lab on display stays,
// the user is told, and the file is kept (renamed, so it is not offered at
// every start).
void TestLabDocument::damagedAutosaveIsKept()
{
    const QString folder = path(QStringLiteral("autosave-damaged"));
    QString autosave;
    QByteArray bytes;
    {
        MainWindow w;
        w.documents()->document()->setAutosaveFolder(folder);
        makeChanges(w);
        QVERIFY(w.documents()->document()->autosave());
        autosave = w.documents()->document()->autosavePath();
    }
    {
        QFile file(autosave);
        QVERIFY(file.open(QIODevice::ReadWrite));
        bytes = file.readAll().left(300);
        QVERIFY(file.resize(0));
        file.write(bytes);
    }
    MainWindow w;
    Prompts prompts;
    prompts.install(w.documents()->document());
    w.documents()->document()->setAutosaveFolder(folder);
    const LabState before = w.session()->inputs().state();
    const LabDocument::Recovery recovery = w.documents()->document()->offerRecovery();
    QVERIFY(!recovery.restored);
    QCOMPARE(prompts.recovery, 1);
    QVERIFY2(recovery.problem.startsWith("The automatically saved lab could not be restored: "),
             qPrintable(recovery.problem));
    QVERIFY2(recovery.problem.endsWith(QStringLiteral("It is kept as '%1.damaged'.").arg(autosave)),
             qPrintable(recovery.problem));
    QVERIFY(sameLab(w.session()->inputs().state(), before));
    QCOMPARE(readBytes(autosave + ".damaged"), bytes);
    QVERIFY(w.documents()->document()->orphanedAutosaves().isEmpty());
}

// An autosave that cannot be written (a file where its folder should be):
// said once, not at every interval, and again after a write that worked.
void TestLabDocument::autosaveFailureIsToldOnce()
{
    const QString blocked = path(QStringLiteral("not-a-folder"));
    QFile file(blocked);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    MainWindow w;
    QSignalSpy told(w.documents()->document(), &LabDocument::autosaveFailed);
    w.documents()->document()->setAutosaveFolder(blocked + "/autosave");
    w.session()->setSeed(5);
    QVERIFY(!w.documents()->document()->autosave());
    QVERIFY(!w.documents()->document()->autosave());
    QCOMPARE(told.count(), 1);
    QVERIFY2(told.first().first().toString().startsWith("The lab could not be saved automatically ("),
             qPrintable(told.first().first().toString()));
    w.documents()->document()->setAutosaveFolder(path(QStringLiteral("autosave-ok")));
    QVERIFY(w.documents()->document()->autosave());
    w.documents()->document()->setAutosaveFolder(blocked + "/autosave");
    QVERIFY(!w.documents()->document()->autosave());
    QCOMPARE(told.count(), 2);
}

// The timer's autosave: the state as it was when taken, written on the
// autosave thread while the window goes on; one write at a time; a close
// or a save waits for it (so no file comes back after them); a failure is
// told as a synchronous one is.
void TestLabDocument::timerAutosaveWritesOnItsOwnThread()
{
    MainWindow w;
    LabDocument* doc = w.documents()->document();
    doc->setAutosaveInterval(3600 * 1000);  // only the calls below
    doc->setAutosaveFolder(path(QStringLiteral("autosave-thread")));
    QSignalSpy written(doc, &LabDocument::autosaveWritten);
    makeChanges(w);
    const LabState taken = w.session()->inputs().state();
    doc->autosaveInBackground();
    QVERIFY(doc->autosaveInFlight());
    w.session()->setSeed(77);     // after the state was taken: not in this write
    doc->autosaveInBackground();  // skipped: one write is in flight
    QTRY_COMPARE(written.count(), 1);
    QCOMPARE(written.first().first().toBool(), true);
    QVERIFY(!doc->autosaveInFlight());
    attn::Expected<LabState> read = readLabFile(doc->autosavePath());
    QVERIFY2(read, read ? "" : read.error().message.c_str());
    QCOMPARE(read->config.seed, taken.config.seed);
    QCOMPARE(read->config.sentence, taken.config.sentence);
    QCOMPARE(read->X, taken.X);
    QCOMPARE(read->Wk, taken.Wk);
    QTest::qWait(50);
    QCOMPARE(written.count(), 1);  // the second call wrote nothing

    // The next write has the newer seed; a clean close right after it
    // waits for it, and then removes the file.
    doc->autosaveInBackground();
    QVERIFY(doc->autosaveInFlight());
    doc->closeCleanly();
    QVERIFY(!doc->autosaveInFlight());
    QCOMPARE(written.count(), 2);
    QTest::qWait(50);
    QVERIFY(!QFileInfo::exists(doc->autosavePath()));

    // A folder that cannot be made: said once, as autosave() says it.
    const QString blocked = path(QStringLiteral("not-a-folder-2"));
    QFile file(blocked);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    QSignalSpy told(doc, &LabDocument::autosaveFailed);
    doc->setAutosaveFolder(blocked + "/autosave");
    doc->autosaveInBackground();
    doc->autosaveInBackground();
    QCOMPARE(told.count(), 1);
    QCOMPARE(written.count(), 4);
    QCOMPARE(written.last().first().toBool(), false);
}

void TestLabDocument::cleanCloseLeavesNoAutosave()
{
    const QString folder = path(QStringLiteral("autosave-2"));
    QString autosave;
    {
        MainWindow w;
        Prompts prompts;
        prompts.install(w.documents()->document());
        prompts.answer = LabDocument::UnsavedAnswer::Discard;
        w.documents()->document()->setAutosaveFolder(folder);
        autosave = w.documents()->document()->autosavePath();
        w.show();
        w.session()->setSeed(9);
        QVERIFY(w.documents()->document()->autosave());
        QVERIFY(QFileInfo::exists(autosave));
        QVERIFY(w.close());
        QCOMPARE(prompts.unsaved, 1);
    }
    QVERIFY(!QFileInfo::exists(autosave));
    QVERIFY(!QFileInfo::exists(autosave + ".lock"));
    // Saving also clears it.
    MainWindow w;
    w.documents()->document()->setAutosaveFolder(folder);
    autosave = w.documents()->document()->autosavePath();
    w.session()->setSeed(10);
    QVERIFY(w.documents()->document()->autosave());
    QVERIFY(QFileInfo::exists(autosave));
    QVERIFY(w.documents()->document()->saveAs(path(QStringLiteral("saved.attnlab"))));
    QVERIFY(!QFileInfo::exists(autosave));
}

void TestLabDocument::recentFiles()
{
    MainWindow w;
    QStringList saved;
    for (int i = 0; i < LabDocument::kMaxRecentFiles + 2; ++i) {
        const QString file = path(QStringLiteral("recent%1.attnlab").arg(i));
        w.session()->setSeed(quint64(i));
        QVERIFY(w.documents()->document()->saveAs(file));
        saved.prepend(QFileInfo(file).absoluteFilePath());
    }
    QCOMPARE(w.documents()->document()->recentFiles(), saved.mid(0, LabDocument::kMaxRecentFiles));
    auto* menu = w.findChild<QMenu*>(QStringLiteral("recentMenu"));
    QVERIFY(menu);
    QVERIFY(menu->actions().size() >= LabDocument::kMaxRecentFiles);
    // The recent entry opens the file.
    w.documents()->openLab(saved.back());
    QCOMPARE(w.documents()->document()->recentFiles().front(), saved.back());
    w.documents()->document()->clearRecentFiles();
    QVERIFY(w.documents()->document()->recentFiles().isEmpty());
    QVERIFY(!menu->isEnabled());
}

void TestLabDocument::presets_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("sentence");
    QTest::addColumn<int>("dModel");
    QTest::addColumn<int>("dK");
    QTest::addColumn<int>("dV");
    QTest::addColumn<int>("init");
    QTest::newRow("article") << "article-example" << QString::fromLatin1(attn::kArticleSentence) << 16 << 24
                             << 28 << int(attn::InitMode::Article);
    QTest::newRow("lesson") << "jane-cinema"
                            << "Jane is going to the cinema to watch a new film" << 16 << 24 << 28
                            << int(attn::InitMode::UnitVariance);
    QTest::newRow("scaling") << "scaling-demo" << QString::fromLatin1(attn::kArticleSentence) << 16 << 512
                             << 16 << int(attn::InitMode::UnitVariance);
}

void TestLabDocument::presets()
{
    QFETCH(QString, name);
    QFETCH(QString, sentence);
    QFETCH(int, dModel);
    QFETCH(int, dK);
    QFETCH(int, dV);
    QFETCH(int, init);
    MainWindow w;
    const QString resource = QStringLiteral(":/presets/%1.attnlab").arg(name);
    QVERIFY(DocumentController::presets().contains(resource));
    QVERIFY(w.findChild<QAction*>(QStringLiteral("preset_") + name));
    w.findChild<QAction*>(QStringLiteral("preset_") + name)->trigger();
    const attn::ModelConfig& c = w.session()->inputs().config;
    QCOMPARE(QString::fromStdString(c.sentence), sentence);
    QCOMPARE(c.seed, std::uint64_t(123));
    QCOMPARE(c.dModel, dModel);
    QCOMPARE(c.dK, dK);
    QCOMPARE(c.dV, dV);
    QCOMPARE(int(c.init), init);
    QVERIFY(w.documents()->document()->filePath().isEmpty());
    QVERIFY(!w.documents()->document()->isModified());
    // The stored matrices are the seed's draws: the engine from the
    // parameters alone gives the same attention.
    attn::Expected<attn::Model> model = attn::buildModel(c);
    QVERIFY(model.ok());
    QCOMPARE(w.session()->inputs().editedCells, 0);
    attn::Expected<attn::AttentionResult> r =
        attn::computeAttention(model.value().X, model.value().Wq, model.value().Wk, model.value().Wv, {});
    QVERIFY(r.ok());
    QVERIFY(sameMatrix(w.session()->published()->shown()->weightsMatrix(), r.value().weightsMatrix()));
}

void TestLabDocument::commandLineLabStartsTheWindow()
{
    const QString file = path(QStringLiteral("start.attnlab"));
    LabState state;
    {
        MainWindow w;
        makeChanges(w);
        QVERIFY(w.documents()->document()->saveAs(file));
        state = w.session()->inputs().state();
    }
    attn::Expected<LabState> read = readLabFile(file);
    QVERIFY(read.ok());
    WindowStart start;
    start.haveConfig = true;
    start.config = read.value().config;
    start.options = read.value().options;
    start.haveLab = true;
    start.lab = read.value();
    MainWindow w;
    w.restoreSettings(start);
    QVERIFY(sameLab(w.session()->inputs().state(), state));
    QCOMPARE(w.focusQuery(), 3);
    QVERIFY(!w.documents()->document()->isModified());
    QVERIFY(!w.documents()->undoStack()->canUndo());
}

// attention-lab FILE.attnlab (as a double-click runs it): the lab has its
// file, and Ctrl+S writes to it without asking where.
void TestLabDocument::commandLineLabKeepsItsFileForSave()
{
    const QString file = path(QStringLiteral("double-clicked.attnlab"));
    {
        MainWindow w;
        makeChanges(w);
        QVERIFY(w.documents()->document()->saveAs(file));
    }
    QByteArray program("attention-lab"), argument = file.toLocal8Bit();
    char* argv[] = {program.data(), argument.data(), nullptr};
    const CommandLineOutcome start = handleCommandLine(2, argv);
    QVERIFY(!start.exitNow);
    QVERIFY(start.haveLab);
    QCOMPARE(QString::fromStdString(start.labPath), file);
    MainWindow w;
    Prompts prompts;
    prompts.install(w.documents()->document());
    w.restoreSettings(start);
    QCOMPARE(w.documents()->document()->filePath(), QFileInfo(file).absoluteFilePath());
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("double-clicked.attnlab")));
    QCOMPARE(w.documents()->document()->recentFiles().value(0), QFileInfo(file).absoluteFilePath());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.session()->setSeed(777);
    QVERIFY(w.documents()->document()->isModified());
    QTest::keyClick(&w, Qt::Key_S, Qt::ControlModifier);
    QVERIFY(!w.documents()->document()->isModified());
    QCOMPARE(w.documents()->document()->filePath(), QFileInfo(file).absoluteFilePath());
    const attn::Expected<LabState> back = readLabFile(file);
    QVERIFY(back.ok());
    QCOMPARE(back.value().config.seed, std::uint64_t(777));
    QCOMPARE(back.value().config.sentence, std::string("the quick brown fox jumps"));
}

// Quit, answer Discard: the next start is neither the discarded lab's
// parameters nor its autosave.
void TestLabDocument::quitWithDiscardDoesNotComeBack()
{
    const QString folder = path(QStringLiteral("autosave-3"));
    {
        MainWindow w;
        w.restoreSettings();
        Prompts prompts;
        prompts.install(w.documents()->document());
        prompts.answer = LabDocument::UnsavedAnswer::Discard;
        w.documents()->document()->setAutosaveFolder(folder);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        makeChanges(w);
        QVERIFY(w.documents()->document()->autosave());
        QVERIFY(w.close());
        QCOMPARE(prompts.unsaved, 1);
    }
    MainWindow w;
    Prompts prompts;
    prompts.install(w.documents()->document());
    w.documents()->document()->setAutosaveFolder(folder);
    w.restoreSettings();
    w.offerRecovery();
    QCOMPARE(prompts.recovery, 0);
    const attn::ModelConfig& c = w.session()->inputs().config;
    QCOMPARE(c.sentence, std::string(attn::kArticleSentence));
    QCOMPARE(c.seed, std::uint64_t(123));
    QCOMPARE(c.tokenizer, attn::TokenizerMode::Article);
    QVERIFY(!w.documents()->document()->isModified());

    // Quitting a lab without unsaved changes still remembers its parameters.
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.session()->setSeed(55);
    QVERIFY(w.documents()->document()->saveAs(path(QStringLiteral("kept.attnlab"))));
    QVERIFY(w.close());
    MainWindow again;
    again.restoreSettings();
    QCOMPARE(again.session()->inputs().config.seed, std::uint64_t(55));
}

QTEST_MAIN(TestLabDocument)
#include "tst_labdocument.moc"
