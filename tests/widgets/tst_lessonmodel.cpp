// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson's question on an opened GPT-2 (real widgets, offscreen): with
// the tiny random checkpoint open and the cinema preset applied, the Model
// tab's line ranks the heads by the last token's weight on "␣cinema" and
// "␣watch" exactly as a plain loop over runGpt2's own weights ranks them;
// the lesson's last step gives the model the sentence up to the blank (one
// undo step) and names the same heads and runGpt2's top next tokens; with
// no model open it says where a GPT-2 folder comes from.
#include "cinemalesson.h"
#include "documentcontroller.h"
#include "gpt2.h"
#include "gpt2checkpoint.h"
#include "modelsession.h"
#include "gpt2tokenizer.h"
#include "guitest.h"
#include "lessonpanel.h"
#include "mainwindow.h"
#include "modelcontroller.h"
#include "modelpanel.h"
#include "pipelineview.h"
#include "session.h"

#include <QAction>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace attnlab;
using Stage = LessonPanel::Stage;

namespace {

QString tinyFolder()
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");
}

// What the test computes on its own from runGpt2: for `piece`, the three
// heads with the largest weight from the last token on it, as the texts
// write them, and the five most likely next tokens.
struct Independent {
    QStringList cinema;  // "layer 1 · head 3 (0.307)"
    QStringList watch;
    QStringList cinemaShort;  // the Model tab's "L1 H3 0.307"
    QStringList watchShort;
    QStringList next;  // "“␣film” 1.8 %"
    QString last;
};

QStringList rankedByLoop(const attn::DecoderResult& r, int key, bool brief = false)
{
    struct Entry {
        int layer, head;
        double w;
    };
    std::vector<Entry> all;
    const int last = r.tokens() - 1;
    for (int l = 0; l < int(r.layers.size()); ++l)
        for (int h = 0; h < int(r.layers[std::size_t(l)].heads.size()); ++h)
            all.push_back({l, h, r.layers[std::size_t(l)].heads[std::size_t(h)].weights(last, key)});
    std::stable_sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.w > b.w; });
    QStringList out;
    for (int i = 0; i < 3; ++i)
        out << QString::fromUtf8(brief ? "L%1 H%2 %3" : "layer %1 · head %2 (%3)")
                   .arg(all[std::size_t(i)].layer + 1)
                   .arg(all[std::size_t(i)].head + 1)
                   .arg(QString::number(all[std::size_t(i)].w, 'f', 3));
    return out;
}

Independent independent(const QString& sentence)
{
    const auto checkpoint = readGpt2Checkpoint(tinyFolder());
    const auto tokenizer = Gpt2Tokenizer::fromFolder(tinyFolder());
    if (!checkpoint.ok() || !tokenizer.ok())
        qFatal("the tiny checkpoint did not read");
    const std::vector<ModelToken> tokens = tokenizer->encode(sentence);
    std::vector<int> ids;
    for (const ModelToken& t : tokens)
        ids.push_back(t.id);
    const auto result = attn::runGpt2(checkpoint->weights, ids);
    if (!result.ok())
        qFatal("runGpt2: %s", result.error().message.c_str());
    Independent out;
    out.last = tokens.back().display;
    // By the pieces, not by position.
    for (int i = 0; i < int(tokens.size()); ++i) {
        if (tokens[std::size_t(i)].piece == QStringLiteral("Ġcinema")) {
            out.cinema = rankedByLoop(*result, i);
            out.cinemaShort = rankedByLoop(*result, i, true);
        }
        if (tokens[std::size_t(i)].piece == QStringLiteral("Ġwatch")) {
            out.watch = rankedByLoop(*result, i);
            out.watchShort = rankedByLoop(*result, i, true);
        }
    }
    for (int i = 0; i < 5; ++i) {
        const attn::TopToken& t = result->top[std::size_t(i)];
        out.next << QStringLiteral("“%1” %2").arg(tokenizer->token(t.id).display,
                                                  CinemaLesson::percentText(t.probability));
    }
    return out;
}

bool waitForSentence(ModelSession* session, const QString& sentence)
{
    return QTest::qWaitFor(
        [&] { return session->result() && session->sentence() == sentence && !session->isComputing(); },
        10000);
}

void stepTo(MainWindow& window, Stage stage)
{
    if (!guitest::find<QAction>(window, QStringLiteral("lessonModeAction"))->isChecked())
        guitest::find<QAction>(window, QStringLiteral("lessonModeAction"))->trigger();
    LessonPanel* lesson = guitest::find<LessonPanel>(window, QStringLiteral("lessonPanel"));
    while (lesson->stage() != stage)
        QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonNextButton")),
                          Qt::LeftButton);
}

}  // namespace

class TestLessonModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cinemaPresetRanksTheHeads();
    void lessonStepGivesTheBlank();
    void lessonStepWithoutAModel();
    void experimentTakesTheLabBackFromAModelHead();
    void modelStepStatesTheWhatIfSettings();

private:
    QTemporaryDir settingsDir_;
};

void TestLessonModel::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestLessonModel::cinemaPresetRanksTheHeads()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelSession* session = window->models()->session();
    ModelPanel* panel = window->models()->panel();
    QSignalSpy opened(session, &ModelSession::modelOpened);
    window->models()->openModel(tinyFolder());
    QVERIFY(opened.wait(10000));
    // The article's sentence has neither piece: no line.
    QVERIFY(waitForSentence(session, QStringLiteral("Life is short, eat dessert first")));
    QVERIFY(guitest::find<QLabel>(*panel, QStringLiteral("modelLessonRanking"))->isHidden());

    QVERIFY(window->documents()->openPreset(QStringLiteral(":/presets/jane-cinema.attnlab")));
    const QString sentence = QStringLiteral("Jane is going to the cinema to watch a new film");
    QVERIFY(waitForSentence(session, sentence));
    const Independent expected = independent(sentence);
    QCOMPARE(expected.last, QStringLiteral("␣film"));
    QCOMPARE(expected.cinema.size(), 3);
    QCOMPARE(expected.watch.size(), 3);
    QVERIFY(!guitest::find<QLabel>(*panel, QStringLiteral("modelLessonRanking"))->isHidden());
    QCOMPARE(guitest::find<QLabel>(*panel, QStringLiteral("modelLessonRanking"))->text(),
             QStringLiteral("Largest weights from the last token “␣film” → “␣cinema”: %1 · → “␣watch”: %2")
                 .arg(expected.cinemaShort.join(QStringLiteral(", ")),
                      expected.watchShort.join(QStringLiteral(", "))));
}

void TestLessonModel::lessonStepGivesTheBlank()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelSession* session = window->models()->session();
    QSignalSpy opened(session, &ModelSession::modelOpened);
    window->models()->openModel(tinyFolder());
    QVERIFY(opened.wait(10000));
    stepTo(*window, Stage::HeadsConcat);
    const int undoSteps = window->documents()->undoStack()->count();
    LessonPanel* lesson = guitest::find<LessonPanel>(*window, QStringLiteral("lessonPanel"));
    QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonNextButton")),
                      Qt::LeftButton);
    QCOMPARE(lesson->stepIndicator(), QStringLiteral("Step 12 of 13"));
    QCOMPARE(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonNextButton"))->text(),
             QStringLiteral("&Next"));
    const QString blank = QStringLiteral("Jane is going to the cinema to watch a new");
    QVERIFY(waitForSentence(session, blank));
    QCOMPARE(guitest::find<PipelineView>(*window, QStringLiteral("pipelineView"))->currentPage(),
             window->models()->panel());
    QVERIFY(lesson->explanation(lesson->step()).contains(blank));

    const Independent expected = independent(blank);
    QCOMPARE(expected.last, QStringLiteral("␣new"));
    const QString live = lesson->liveText();
    QVERIFY(guitest::find<QLabel>(*lesson, QStringLiteral("lessonLiveText"))->isVisible());
    QCOMPARE(guitest::find<QLabel>(*lesson, QStringLiteral("lessonLiveText"))->text(), live);
    QVERIFY2(live.contains(QStringLiteral("the last “␣new”")), qPrintable(live));
    QVERIFY2(live.contains(QStringLiteral("on “␣cinema”: ") + expected.cinema.join(QStringLiteral(", "))),
             qPrintable(live));
    QVERIFY2(live.contains(QStringLiteral("on “␣watch”: ") + expected.watch.join(QStringLiteral(", "))),
             qPrintable(live));
    QVERIFY2(live.contains(QStringLiteral("The most likely next tokens: ")
                           + expected.next.join(QStringLiteral(", "))),
             qPrintable(live));
    // Honest about what it measured.
    QVERIFY(live.contains(QStringLiteral("does not mean that the model understands")));
    QVERIFY(live.contains(QStringLiteral("random weights ranks random heads")));

    // One undo step (after leaving the lesson's heads), and undo gives the sentence back.
    QCOMPARE(window->documents()->undoStack()->count(), undoSteps + 2);
    QCOMPARE(window->documents()->undoStack()->undoText(),
             QStringLiteral("The lesson's sentence for the model"));
    window->documents()->undoStack()->undo();
    QVERIFY(waitForSentence(session, QStringLiteral("Life is short, eat dessert first")));
}

void TestLessonModel::lessonStepWithoutAModel()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    stepTo(*window, Stage::HeadsConcat);
    const QString before = window->models()->session()->sentence();
    const int undoSteps = window->documents()->undoStack()->count();
    LessonPanel* lesson = guitest::find<LessonPanel>(*window, QStringLiteral("lessonPanel"));
    QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonNextButton")),
                      Qt::LeftButton);
    QCOMPARE(lesson->stage(), Stage::ModelHeads);
    QVERIFY(!lesson->modelOpen());
    const QString text = lesson->explanation(lesson->step());
    QVERIFY(text.contains(QStringLiteral("File > Open model")));
    QVERIFY(text.contains(QStringLiteral("README")));
    QVERIFY(text.contains(QStringLiteral("gpt2, distilgpt2 or gpt2-medium")));
    QVERIFY(lesson->liveText().isEmpty());
    QVERIFY(guitest::find<QLabel>(*lesson, QStringLiteral("lessonLiveText"))->isHidden());
    // Without a model the sentence stays: the one new undo step is the lesson's heads leaving.
    QCOMPARE(window->models()->session()->sentence(), before);
    QCOMPARE(window->documents()->undoStack()->count(), undoSteps + 1);
    QCOMPARE(window->documents()->undoStack()->undoText(),
             QStringLiteral("One head again after the lesson's heads"));
}

// Step 5's statements are about unit-variance q and k: with a GPT-2 head in
// the pipeline (its q and k spread as trained: a score variance of 31.4 raw
// and 7.84 scaled at d_k 4 in the tiny checkpoint) the step puts the lab's
// own unit-variance matrices back, in one undo step that brings the head back.
void TestLessonModel::experimentTakesTheLabBackFromAModelHead()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelSession* model = window->models()->session();
    QSignalSpy opened(model, &ModelSession::modelOpened);
    window->models()->openModel(tinyFolder());
    QVERIFY(opened.wait(10000));
    QVERIFY(waitForSentence(model, QStringLiteral("Life is short, eat dessert first")));
    Session* lab = window->session();
    QTest::mouseClick(
        guitest::find<QPushButton>(*window->models()->panel(), QStringLiteral("modelShowButton")),
        Qt::LeftButton);
    QTRY_VERIFY(lab->inputs().borrowed.active());
    const int headDk = lab->inputs().config.dK;
    const int undoSteps = window->documents()->undoStack()->count();

    stepTo(*window, Stage::DkExperiment);
    QTRY_VERIFY(!lab->isComputing());
    QVERIFY(!lab->inputs().borrowed.active());
    QCOMPARE(lab->inputs().config.init, attn::InitMode::UnitVariance);
    QCOMPARE(window->documents()->undoStack()->count(), undoSteps + 1);
    QCOMPARE(window->documents()->undoStack()->undoText(),
             QStringLiteral("The lab's own matrices for the lesson's experiment"));
    LessonPanel* lesson = guitest::find<LessonPanel>(*window, QStringLiteral("lessonPanel"));
    const QString notice = guitest::find<QLabel>(*lesson, QStringLiteral("lessonInitNotice"))->text();
    QVERIFY2(notice.contains(QStringLiteral("in place of GPT-2 layer 1, head 1")), qPrintable(notice));
    // The live line is the lab's own numbers now: unit-variance q and k give
    // a scaled score variance near 1 (the article's 6 tokens: a loose bound).
    const attn::ScalingComparison& c = *lab->published()->comparison();
    QVERIFY2(c.varScaled > 0.05 && c.varScaled < 5.0, qPrintable(QString::number(c.varScaled)));

    window->documents()->undoStack()->undo();
    QTRY_VERIFY(lab->inputs().borrowed.active());
    QCOMPARE(lab->inputs().config.dK, headDk);
}

// The model step's findings name the what-if settings they were measured
// under when those are not the model as trained.
void TestLessonModel::modelStepStatesTheWhatIfSettings()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelSession* session = window->models()->session();
    QSignalSpy opened(session, &ModelSession::modelOpened);
    window->models()->openModel(tinyFolder());
    QVERIFY(opened.wait(10000));
    QVERIFY(session->setScale(attn::ScaleMode::None, 1.0, ScaleScope::AllLayers));
    QVERIFY(session->setTemperature(0.1));
    stepTo(*window, Stage::ModelHeads);
    const QString blank = QStringLiteral("Jane is going to the cinema to watch a new");
    QVERIFY(waitForSentence(session, blank));
    LessonPanel* lesson = guitest::find<LessonPanel>(*window, QStringLiteral("lessonPanel"));
    QTRY_VERIFY(lesson->liveText().contains(QStringLiteral("the last “␣new”")));
    const int heads = session->config().layers * session->config().heads;
    const int headDim = session->config().headDim;
    const QString live = lesson->liveText();
    QVERIFY2(
        live.contains(QStringLiteral("Measured under the Model tab's what-if settings, not the model as "
                                     "trained: scores divided by 1 instead of √%1 = %2 in %3 of %3 heads; "
                                     "temperature 0.1.")
                          .arg(headDim)
                          .arg(QString::number(std::sqrt(double(headDim)), 'g', 4))
                          .arg(heads)),
        qPrintable(live));

    // As trained: no such words.
    session->resetScale();
    QVERIFY(session->setTemperature(1.0));
    QTRY_VERIFY(!session->isComputing());
    QTRY_VERIFY(!lesson->liveText().contains(QStringLiteral("what-if")));
    QVERIFY(lesson->liveText().contains(QStringLiteral("the last “␣new”")));
}

QTEST_MAIN(TestLessonModel)
#include "tst_lessonmodel.moc"
