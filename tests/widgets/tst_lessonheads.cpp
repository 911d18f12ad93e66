// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson's multi-head steps in the real window at 1024x700: each sets the
// article's three heads and shows the session's own numbers, checked against
// raschka_self_attention.json's multi_head_derived (PyTorch, float32): the
// queries of x_2 per head, each head's keys and values, the weights the grid
// shows, the concatenation and W_o. Stepping back before them or leaving the
// lesson puts back the lab of the earlier steps, one head.
#include "guitest.h"
#include "documentcontroller.h"
#include "headgridview.h"
#include "headspanel.h"
#include "labdocument.h"
#include "heatmapview.h"
#include "lessonpanel.h"
#include "mainwindow.h"
#include "pipelineview.h"
#include "scalingcompareview.h"
#include "session.h"
#include "testdata.h"

#include <QAction>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QUndoStack>
#include <QtTest>

using namespace attnlab;
using Stage = LessonPanel::Stage;

namespace {

QJsonObject multiHeadReference()
{
    return testdata::readJson("raschka_self_attention.json")["multi_head_derived"].toObject();
}

// Head i's slice of a (h, rows, cols) reference tensor.
attn::Matrix slice(const QJsonObject& mh, const char* key, int head)
{
    return testdata::toMatrix(mh[QLatin1String(key)].toArray()[head]);
}

// Lesson mode opened and Next clicked up to `stage`.
void stepTo(MainWindow& window, Stage stage)
{
    if (!guitest::find<QAction>(window, QStringLiteral("lessonModeAction"))->isChecked())
        guitest::find<QAction>(window, QStringLiteral("lessonModeAction"))->trigger();
    LessonPanel* lesson = guitest::find<LessonPanel>(window, QStringLiteral("lessonPanel"));
    while (lesson->stage() != stage)
        QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonNextButton")),
                          Qt::LeftButton);
}

// Every number written with four decimals in `text`, in order.
QList<double> numbersIn(const QString& text)
{
    QList<double> out;
    static const QRegularExpression number(QStringLiteral("-?\\d+\\.\\d{4}"));
    for (auto it = number.globalMatch(text); it.hasNext();)
        out << it.next().captured().toDouble();
    return out;
}

// The step's text is whole in the dock: the body does not scroll and the
// buttons are on screen.
bool fitsTheDock(LessonPanel* lesson)
{
    QTest::qWait(20);
    return !guitest::find<QScrollArea>(*lesson, QStringLiteral("lessonBodyScroll"))
                ->verticalScrollBar()
                ->isVisible()
           && guitest::find<QPushButton>(*lesson, QStringLiteral("lessonNextButton"))->isVisible()
           && guitest::find<QPushButton>(*lesson, QStringLiteral("lessonBackButton"))->isVisible();
}

}  // namespace

class TestLessonHeads : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void stepsAfterTheExperiment();
    void queriesOfEachHead();
    void keysAndValuesOfAChosenHead();
    void eachHeadAttendsDifferently();
    void concatenationAndOutputProjection();
    void steppingBackRestoresOneHead();
    void leavingTheLessonRestoresOneHead();
    void theUsersChangesStayWithOneHead();
    void headsTabShowsOneHeadAfterTheLesson();

private:
    std::unique_ptr<MainWindow> window_;
    QTemporaryDir settingsDir_;
};

void TestLessonHeads::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestLessonHeads::init()
{
    QSettings().clear();
    window_ = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window_);
}

void TestLessonHeads::stepsAfterTheExperiment()
{
    QCOMPARE(LessonPanel::kStepCount, 13);
    QCOMPARE(LessonPanel::stepOf(Stage::DkExperiment), 4);
    QCOMPARE(LessonPanel::stepOf(Stage::LearningMatters), 5);
    const Stage heads[] = {Stage::HeadQueries, Stage::HeadKeysValues, Stage::HeadsAttend, Stage::HeadsConcat};
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(LessonPanel::stageOfStep(7 + i), heads[i]);
        QVERIFY(LessonPanel::isMultiHead(heads[i]));
    }
    QVERIFY(!LessonPanel::isMultiHead(Stage::DkExperiment));
    QVERIFY(!LessonPanel::isMultiHead(Stage::LearningMatters));
    QVERIFY(!LessonPanel::isMultiHead(Stage::FlashTiles));
    LessonPanel* lesson = guitest::find<LessonPanel>(*window_, QStringLiteral("lessonPanel"));
    stepTo(*window_, Stage::DkExperiment);
    QCOMPARE(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonNextButton"))->text(),
             QStringLiteral("&Next"));
    QCOMPARE(window_->session()->published()->headCount(), 1);
    stepTo(*window_, Stage::HeadsConcat);
    QCOMPARE(lesson->stepIndicator(), QStringLiteral("Step 11 of 13"));
    QCOMPARE(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonNextButton"))->text(),
             QStringLiteral("&Next"));
    // The model step after them is the last (tst_lessonmodel).
    QVERIFY(!LessonPanel::isMultiHead(Stage::ModelHeads));
    QCOMPARE(LessonPanel::stageOfStep(11), Stage::ModelHeads);
}

void TestLessonHeads::queriesOfEachHead()
{
    const QJsonObject mh = multiHeadReference();
    Session* session = window_->session();
    const int undoSteps = window_->documents()->undoStack()->count();
    stepTo(*window_, Stage::HeadQueries);
    LessonPanel* lesson = guitest::find<LessonPanel>(*window_, QStringLiteral("lessonPanel"));

    // The article's set-up, from the unit variance of the experiment.
    QCOMPARE(session->published()->headCount(), 3);
    QCOMPARE(session->inputs().heads.layout, attn::HeadLayout::Independent);
    QVERIFY(!session->inputs().heads.outputProjection);
    const attn::ModelConfig& c = session->inputs().config;
    QCOMPARE(c.init, attn::InitMode::Article);
    QCOMPARE(c.seed, std::uint64_t(123));
    QCOMPARE(QString::fromStdString(c.sentence), QStringLiteral("Life is short, eat dessert first"));
    QCOMPARE(c.dModel, 16);
    QCOMPARE(c.dK, 24);
    QCOMPARE(c.dV, 28);
    // The experiment's unit variance and the heads: two steps, each undoable.
    QCOMPARE(window_->documents()->undoStack()->count(), undoSteps + 2);
    QCOMPARE(window_->documents()->undoStack()->text(window_->documents()->undoStack()->count() - 1),
             QStringLiteral("Three heads for the lesson"));
    QCOMPARE(window_->focusQuery(), LessonPanel::kArticleQuery);
    QCOMPARE(guitest::find<PipelineView>(*window_, QStringLiteral("pipelineView"))->highlightedMap(),
             guitest::find<HeatmapView>(*window_, QStringLiteral("queryMap")));

    // The panel shows the session's heads: their queries of x_2.
    QCOMPARE(lesson->heads().get(), session->published()->heads().get());
    const attn::Matrix query2 = testdata::toMatrix(mh["multihead_query_2"]);
    QCOMPARE(query2.rows(), 3);
    QCOMPARE(query2.cols(), 24);
    const QString live = guitest::find<QLabel>(*lesson, QStringLiteral("lessonLiveText"))->text();
    QCOMPARE(live, lesson->liveText());
    QVERIFY(guitest::find<QLabel>(*lesson, QStringLiteral("lessonLiveText"))->isVisible());
    for (const char* s : {"3 × 24 × 16", "3 × 28 × 16", "3 × 16 × 6", "query_2 (3 × 24)"})
        QVERIFY2(live.contains(QString::fromUtf8(s)), s);
    const QList<double> shown = numbersIn(live);
    QCOMPARE(shown.size(), 3 * 2);
    const QStringList tipLines =
        guitest::find<QLabel>(*lesson, QStringLiteral("lessonLiveText"))->toolTip().split(QLatin1Char('\n'));
    QCOMPARE(tipLines.size(), 3);
    for (int i = 0; i < 3; ++i) {
        const attn::RowVector q = session->published()->heads()->heads[std::size_t(i)].Q.row(1);
        QVERIFY2(testdata::maxAbsDiff(q, query2.row(i)) < 2e-6, qPrintable(QString::number(i)));
        // Written with four decimals: the first two in the text, all 24 on hover.
        for (int j = 0; j < 2; ++j)
            QVERIFY(std::abs(shown[2 * i + j] - query2(i, j)) < 0.5e-4 + 2e-6);
        const QList<double> all = numbersIn(tipLines[i]);
        QCOMPARE(all.size(), 24);
        for (int j = 0; j < 24; ++j)
            QVERIFY2(std::abs(all[j] - query2(i, j)) < 0.5e-4 + 2e-6, qPrintable(tipLines[i]));
    }
    // One button per head, the session's checked.
    for (int i = 0; i < 3; ++i)
        QVERIFY(guitest::find<QToolButton>(*lesson, QStringLiteral("lessonHeadButton%1").arg(i + 1))
                    ->isVisible());
    QVERIFY(!guitest::find<QToolButton>(*lesson, QStringLiteral("lessonHeadButton4"))->isVisible());
    QVERIFY(guitest::find<QToolButton>(*lesson, QStringLiteral("lessonHeadButton1"))->isChecked());
    QVERIFY(fitsTheDock(lesson));
}

void TestLessonHeads::keysAndValuesOfAChosenHead()
{
    const QJsonObject mh = multiHeadReference();
    Session* session = window_->session();
    stepTo(*window_, Stage::HeadKeysValues);
    LessonPanel* lesson = guitest::find<LessonPanel>(*window_, QStringLiteral("lessonPanel"));
    PipelineView* pipeline = guitest::find<PipelineView>(*window_, QStringLiteral("pipelineView"));
    QCOMPARE(session->published()->headCount(), 3);
    QCOMPARE(pipeline->highlightedMap(), pipeline->keyMap());
    QVERIFY(pipeline->keyMap()->isVisible()
            && guitest::find<HeatmapView>(*pipeline, QStringLiteral("valueMap"))->isVisible());
    QVERIFY(lesson->liveText().contains(QStringLiteral("Keys 3 × 6 × 24, values 3 × 6 × 28")));
    for (int i : {0, 1, 2}) {
        QTest::mouseClick(
            guitest::find<QToolButton>(*lesson, QStringLiteral("lessonHeadButton%1").arg(i + 1)),
            Qt::LeftButton);
        QCOMPARE(session->inputs().selectedHead, i);
        QVERIFY(guitest::find<QToolButton>(*lesson, QStringLiteral("lessonHeadButton%1").arg(i + 1))
                    ->isChecked());
        const attn::Matrix keys = slice(mh, "keys", i);
        const attn::Matrix values = slice(mh, "values", i);
        QVERIFY(testdata::maxAbsDiff(session->published()->shown()->K, keys) < 1e-5);
        QVERIFY(testdata::maxAbsDiff(session->published()->shown()->V, values) < 1e-5);
        // The tab's maps are the chosen head's.
        QVERIFY(testdata::maxAbsDiff(pipeline->keyMap()->values(), keys) < 1e-5);
        QVERIFY(testdata::maxAbsDiff(
                    guitest::find<HeatmapView>(*pipeline, QStringLiteral("valueMap"))->values(), values)
                < 1e-5);
        QVERIFY(testdata::maxAbsDiff(pipeline->queryMap()->values(), slice(mh, "queries", i)) < 1e-5);
        const QString live = guitest::find<QLabel>(*lesson, QStringLiteral("lessonLiveText"))->text();
        QVERIFY(live.contains(QStringLiteral("Head %1 shown").arg(i + 1)));
        const QList<double> shown = numbersIn(live);
        QCOMPARE(shown.size(), 6);
        for (int j = 0; j < 3; ++j) {
            QVERIFY(std::abs(shown[j] - keys(1, j)) < 0.5e-4 + 1e-5);
            QVERIFY(std::abs(shown[3 + j] - values(1, j)) < 0.5e-4 + 1e-5);
        }
        QVERIFY(fitsTheDock(lesson));
    }
}

void TestLessonHeads::eachHeadAttendsDifferently()
{
    const QJsonObject mh = multiHeadReference();
    Session* session = window_->session();
    stepTo(*window_, Stage::HeadsAttend);
    LessonPanel* lesson = guitest::find<LessonPanel>(*window_, QStringLiteral("lessonPanel"));
    auto* panel = guitest::find<HeadsPanel>(*window_, QStringLiteral("headsPanel"));
    QCOMPARE(guitest::find<PipelineView>(*window_, QStringLiteral("pipelineView"))->currentPage(), panel);
    QVERIFY(panel->isVisible());
    QCOMPARE(guitest::find<PipelineView>(*window_, QStringLiteral("pipelineView"))->highlightedMap(),
             nullptr);
    QCOMPARE(panel->kind(), HeadMapKind::Weights);
    QCOMPARE(panel->result().get(), session->published()->heads().get());
    QCOMPARE(panel->grid()->headCount(), 3);
    QCOMPARE(panel->grid()->tileCount(), 4);  // and the average
    const QStringList tokens = session->published()->labels();
    const QString live = guitest::find<QLabel>(*lesson, QStringLiteral("lessonLiveText"))->text();
    attn::Matrix average = attn::Matrix::Zero(6, 6);
    QStringList favourites;
    for (int i = 0; i < 3; ++i) {
        const attn::Matrix weights = slice(mh, "weights", i);
        average += weights / 3;
        QVERIFY(testdata::maxAbsDiff(session->published()->heads()->heads[std::size_t(i)].weightsMatrix(),
                                     weights)
                < 1e-6);
        // The key each head weighs most for x_2, by a loop over the reference.
        int best = 0;
        for (int j = 1; j < 6; ++j)
            if (weights(1, j) > weights(1, best))
                best = j;
        favourites << tokens[best];
        QVERIFY2(live.contains(QStringLiteral("head %1 on “%2” (%3)")
                                   .arg(i + 1)
                                   .arg(tokens[best], QLocale().toString(weights(1, best), 'f', 2))),
                 qPrintable(live));
    }
    // They do differ, here: three heads, three different keys.
    QCOMPARE(favourites,
             QStringList({QStringLiteral("short"), QStringLiteral("Life"), QStringLiteral("is")}));
    QVERIFY(testdata::maxAbsDiff(session->published()->heads()->weightsAverage, average) < 1e-6);
    QVERIFY(fitsTheDock(lesson));

    // A click on a head in the grid: the session's head and the lesson's.
    HeadGridView* grid = panel->grid();
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->tileMapRect(2).center());
    QCOMPARE(session->inputs().selectedHead, 2);
    QVERIFY(guitest::find<QToolButton>(*lesson, QStringLiteral("lessonHeadButton3"))->isChecked());
    QVERIFY(!guitest::find<QToolButton>(*lesson, QStringLiteral("lessonHeadButton1"))->isChecked());
}

void TestLessonHeads::concatenationAndOutputProjection()
{
    const QJsonObject mh = multiHeadReference();
    Session* session = window_->session();
    stepTo(*window_, Stage::HeadsAttend);
    QVERIFY(!session->inputs().heads.outputProjection);
    stepTo(*window_, Stage::HeadsConcat);
    LessonPanel* lesson = guitest::find<LessonPanel>(*window_, QStringLiteral("lessonPanel"));
    QVERIFY(session->inputs().heads.outputProjection);
    QCOMPARE(session->published()->headCount(), 3);
    QCOMPARE(window_->documents()->undoStack()->text(window_->documents()->undoStack()->count() - 1),
             QStringLiteral("Output projection W_o for the lesson"));
    auto* panel = guitest::find<HeadsPanel>(*window_, QStringLiteral("headsPanel"));
    QCOMPARE(guitest::find<PipelineView>(*window_, QStringLiteral("pipelineView"))->currentPage(), panel);
    QTRY_VERIFY(panel->outputView()->isVisible());

    const std::shared_ptr<const attn::MultiHeadResult> multi = session->published()->heads();
    const attn::Matrix& concat = multi->concat;
    QCOMPARE(concat.rows(), 6);
    QCOMPARE(concat.cols(), 84);
    for (int i = 0; i < 3; ++i)
        QVERIFY(testdata::maxAbsDiff(concat.middleCols(28 * i, 28), slice(mh, "context", i)) < 1e-5);
    // output = concat W_o, by a plain loop.
    const attn::Matrix& Wo = session->inputs().multiHead.independent.Wo;
    QCOMPARE(Wo.rows(), 84);
    QCOMPARE(Wo.cols(), 16);
    QVERIFY(multi->hasOutput());
    double largest = 0;
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 16; ++c) {
            double sum = 0;
            for (int k = 0; k < 84; ++k)
                sum += concat(r, k) * Wo(k, c);
            largest = std::max(largest, std::abs(sum - multi->output(r, c)));
        }
    QVERIFY(largest < 1e-12);
    QCOMPARE(testdata::maxAbsDiff(guitest::find<HeatmapView>(*panel, QStringLiteral("concatMap"))->values(),
                                  concat),
             0.0);
    QCOMPARE(testdata::maxAbsDiff(panel->outputView()->values(), multi->output), 0.0);
    const QString live = guitest::find<QLabel>(*lesson, QStringLiteral("lessonLiveText"))->text();
    for (const char* s : {"concat: 6 × 84 (3 heads × d_v 28)", "W_o: 84 × 16", "output = concat W_o: 6 × 16"})
        QVERIFY2(live.contains(QString::fromUtf8(s)), qPrintable(live));
    QVERIFY(fitsTheDock(lesson));
    // The output map is scrolled into view (as much of it as the page's
    // viewport holds).
    auto* scroll = guitest::find<QScrollArea>(*window_, QStringLiteral("headsPanelScroll"));
    QWidget* output = panel->outputView();
    const auto shownHeight = [&] {
        return scroll->viewport()
            ->rect()
            .intersected(QRect(output->mapTo(scroll->viewport(), QPoint(0, 0)), output->size()))
            .height();
    };
    QTRY_VERIFY2(shownHeight() >= std::min(output->height(), scroll->viewport()->height()) - 1,
                 qPrintable(QStringLiteral("%1 of %2 pixels in a viewport of %3")
                                .arg(shownHeight())
                                .arg(output->height())
                                .arg(scroll->viewport()->height())));
}

void TestLessonHeads::steppingBackRestoresOneHead()
{
    Session* session = window_->session();
    LessonPanel* lesson = guitest::find<LessonPanel>(*window_, QStringLiteral("lessonPanel"));
    stepTo(*window_, Stage::DkExperiment);
    const LabState experiment = session->inputs().state();
    QVERIFY(guitest::find<QLabel>(*lesson, QStringLiteral("lessonInitNotice"))
                ->text()
                .contains(QStringLiteral("switched to the unit-variance")));
    stepTo(*window_, Stage::HeadsConcat);
    QCOMPARE(session->published()->headCount(), 3);
    // Back within the heads' steps: still three.
    QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonBackButton")),
                      Qt::LeftButton);
    QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonBackButton")),
                      Qt::LeftButton);
    QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonBackButton")),
                      Qt::LeftButton);
    QCOMPARE(lesson->stage(), Stage::HeadQueries);
    QCOMPARE(session->published()->headCount(), 3);
    // Back to the experiment: its one head on unit variance, as it was.
    const int steps = window_->documents()->undoStack()->count();
    QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonBackButton")),
                      Qt::LeftButton);
    QCOMPARE(lesson->stage(), Stage::FlashTiles);
    QCOMPARE(session->published()->headCount(), 1);
    QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonBackButton")),
                      Qt::LeftButton);
    QCOMPARE(lesson->stage(), Stage::LearningMatters);
    QCOMPARE(session->published()->headCount(), 1);
    QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonBackButton")),
                      Qt::LeftButton);
    QCOMPARE(lesson->stage(), Stage::DkExperiment);
    QCOMPARE(session->published()->headCount(), 1);
    QVERIFY(!session->inputs().heads.multiHead());
    QVERIFY(!session->published()->heads());
    QCOMPARE(session->inputs().config.init, attn::InitMode::UnitVariance);
    QCOMPARE(session->inputs().matrix(MatrixId::Wq), experiment.Wq);
    QCOMPARE(session->inputs().matrix(MatrixId::X), experiment.X);
    QCOMPARE(window_->documents()->undoStack()->count(), steps + 1);
    QVERIFY(guitest::find<QLabel>(*lesson, QStringLiteral("lessonInitNotice"))->isVisible());
    QVERIFY(guitest::find<QLabel>(*lesson, QStringLiteral("lessonInitNotice"))
                ->text()
                .contains(QStringLiteral("switched to the unit-variance")));
    QVERIFY(!guitest::find<QToolButton>(*lesson, QStringLiteral("lessonHeadButton1"))->isVisible());
    QCOMPARE(guitest::find<PipelineView>(*window_, QStringLiteral("pipelineView"))->currentPage(),
             static_cast<QWidget*>(
                 guitest::find<ScalingCompareView>(*window_, QStringLiteral("scalingCompareView"))));
    // The earlier steps show one head too.
    QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonBackButton")),
                      Qt::LeftButton);
    QCOMPARE(session->published()->headCount(), 1);
    // Undo brings the heads back; Next sets them again.
    window_->documents()->undoStack()->undo();
    QCOMPARE(session->published()->headCount(), 3);
    window_->documents()->undoStack()->redo();
    QCOMPARE(session->published()->headCount(), 1);
    stepTo(*window_, Stage::HeadQueries);
    QCOMPARE(session->published()->headCount(), 3);
}

void TestLessonHeads::leavingTheLessonRestoresOneHead()
{
    Session* session = window_->session();
    stepTo(*window_, Stage::HeadsConcat);
    QVERIFY(session->inputs().heads.outputProjection);
    // Finish on the last step (the head lab's, after the heads) closes the
    // lesson, and the lab has one head again.
    stepTo(*window_, Stage::HeadLab);
    QTest::mouseClick(guitest::find<QPushButton>(*window_, QStringLiteral("lessonNextButton")),
                      Qt::LeftButton);
    QVERIFY(!guitest::find<QAction>(*window_, QStringLiteral("lessonModeAction"))->isChecked());
    QCOMPARE(session->published()->headCount(), 1);
    QVERIFY(!session->inputs().heads.multiHead());
    QCOMPARE(session->inputs().config.init, attn::InitMode::UnitVariance);
    // Edit > Undo keeps the heads for whoever wants to go on with them.
    window_->documents()->undoStack()->undo();
    QCOMPARE(session->published()->headCount(), 3);
    QVERIFY(session->inputs().heads.outputProjection);
    // Opened again, the lesson starts over; heads it did not set are the
    // user's and stay (the single-head steps show the head selected).
    guitest::find<QAction>(*window_, QStringLiteral("lessonModeAction"))->trigger();
    QCOMPARE(guitest::find<LessonPanel>(*window_, QStringLiteral("lessonPanel"))->step(), 0);
    QCOMPARE(session->published()->headCount(), 3);
    stepTo(*window_, Stage::HeadQueries);
    QCOMPARE(session->published()->headCount(), 3);
    QVERIFY(!session->inputs().heads.outputProjection);
    // Leaving puts back the lab from before the multi-head steps: those heads, with W_o.
    guitest::find<QAction>(*window_, QStringLiteral("lessonModeAction"))->trigger();
    QCOMPARE(session->published()->headCount(), 3);
    QVERIFY(session->inputs().heads.outputProjection);
}

void TestLessonHeads::theUsersChangesStayWithOneHead()
{
    Session* session = window_->session();
    LessonPanel* lesson = guitest::find<LessonPanel>(*window_, QStringLiteral("lessonPanel"));
    stepTo(*window_, Stage::HeadKeysValues);
    // The student tries a sentence of their own on the heads.
    session->setSentence(QStringLiteral("the cat sat on the mat"));
    QCOMPARE(session->published()->headCount(), 3);
    QCOMPARE(session->published()->tokenCount(), 6);
    QVERIFY(lesson->liveText().contains(QStringLiteral("Head 1 shown")));
    while (lesson->stage() != Stage::DkExperiment)
        QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonBackButton")),
                          Qt::LeftButton);
    // One head, the sentence kept (not the lab from before the heads).
    QCOMPARE(session->published()->headCount(), 1);
    QVERIFY(!session->inputs().heads.multiHead());
    QCOMPARE(QString::fromStdString(session->inputs().config.sentence),
             QStringLiteral("the cat sat on the mat"));
    // ... and the experiment switching to unit variance, as it does.
    QCOMPARE(session->inputs().config.init, attn::InitMode::UnitVariance);
    QVERIFY(guitest::find<QLabel>(*lesson, QStringLiteral("lessonInitNotice"))
                ->text()
                .contains(QStringLiteral("switched to the unit-variance")));
}

// The Heads tab shows the lab's heads, one included: after the lesson's
// last step (one head again) its grid has that head, with the pipeline's
// weights, and a concatenation that is its context; so after a lab opened.
void TestLessonHeads::headsTabShowsOneHeadAfterTheLesson()
{
    Session* session = window_->session();
    LessonPanel* lesson = guitest::find<LessonPanel>(*window_, QStringLiteral("lessonPanel"));
    stepTo(*window_, Stage::HeadLab);
    QTest::mouseClick(guitest::find<QPushButton>(*lesson, QStringLiteral("lessonNextButton")),
                      Qt::LeftButton);
    QVERIFY(!guitest::find<QAction>(*window_, QStringLiteral("lessonModeAction"))->isChecked());
    QTRY_VERIFY(!session->isComputing());
    QCOMPARE(session->published()->headCount(), 1);
    auto* panel = guitest::find<HeadsPanel>(*window_, QStringLiteral("headsPanel"));
    PipelineView* pipeline = guitest::find<PipelineView>(*window_, QStringLiteral("pipelineView"));
    const auto checkOneHead = [&] {
        pipeline->showPage(panel);
        QTRY_VERIFY(panel->isVisible());
        QTRY_VERIFY(panel->grid()->result());
        QCOMPARE(panel->grid()->headCount(), 1);
        const attn::MultiHeadResult& shown = *panel->grid()->result();
        const attn::AttentionResult& r = *session->published()->shown();
        QVERIFY(testdata::maxAbsDiff(shown.heads[0].weightsMatrix(), r.weightsMatrix()) == 0.0);
        QVERIFY(testdata::maxAbsDiff(shown.concat, r.context) == 0.0);
        QVERIFY(testdata::maxAbsDiff(shown.weightsAverage, r.weightsMatrix()) == 0.0);
        QVERIFY(guitest::find<QLabel>(*panel, QStringLiteral("concatCaption"))
                    ->text()
                    .startsWith(QStringLiteral("One head")));
    };
    checkOneHead();

    // A lab saved and opened again (one head), the tab hidden meanwhile.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("one.attnlab"));
    QVERIFY(window_->documents()->document()->saveAs(path));
    pipeline->showPage(pipeline->rawScoresMap());
    QVERIFY(window_->documents()->openLab(path));
    QTRY_VERIFY(!session->isComputing());
    QCOMPARE(session->published()->tokenCount(), 6);
    checkOneHead();
    QCOMPARE(panel->grid()->result()->heads[0].tokens(), 6);
}

QTEST_MAIN(TestLessonHeads)
#include "tst_lessonheads.moc"
