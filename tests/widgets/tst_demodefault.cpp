// SPDX-License-Identifier: GPL-3.0-or-later
// The demo model as the Model tab's default (issue 39), in the window
// (offscreen): shown the Model tab with no model open, the window reads
// models/demo without bringing any tab forward, its summary says what it is
// (config.json's attention_lab_label), and every picture of it carries the
// label (the SVG's text); a model the user opened first is never replaced by
// the demo. The lesson's head-lab step on it: the sentence given, the
// Scores page on the induction score, the heads a plain loop over the
// pass's weights ranks first named with their scores, the copied token's
// probability, and the button that removes the induction head (one undo
// step) with the probability without it.
#include "cinemalesson.h"
#include "copylesson.h"
#include "demomodel.h"
#include "documentcontroller.h"
#include "head_scores.h"
#include "headlabpanel.h"
#include "lessonpanel.h"
#include "modelfamilies.h"
#include "guitest.h"
#include "mainwindow.h"
#include "modelcontroller.h"
#include "modelexports.h"
#include "modelpanel.h"
#include "modelsession.h"
#include "pipelineview.h"

#include <QAction>
#include <QLabel>
#include <QPushButton>
#include <QUndoStack>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <sstream>

using namespace attnlab;

namespace {

const QString kLabel =
    QStringLiteral("a 2-layer demo model set by hand to copy repeated spans, not a language model");

}  // namespace

class TestDemoDefault : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void shownUntilAFolderIsOpened();
    void aChosenModelStays();
    void lessonFindsAndRemovesTheInductionHead();

private:
    QTemporaryDir settingsDir_;
};

void TestDemoDefault::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
    QVERIFY(demoModelFolder());
}

void TestDemoDefault::shownUntilAFolderIsOpened()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelController* models = window->models();
    ModelSession* session = models->session();
    PipelineView* pipeline = guitest::find<PipelineView>(*window, QStringLiteral("pipelineView"));
    QVERIFY(!session->hasModel());
    QVERIFY(!session->isLoading());  // nothing is read before the tab is shown

    QWidget* before = pipeline->currentPage();
    QVERIFY(before != models->panel());
    QSignalSpy opened(session, &ModelSession::modelOpened);
    pipeline->showPage(models->panel());
    QVERIFY(opened.wait(10000));
    QCOMPARE(session->modelFolder(), demoModelFolder().value());
    QCOMPARE(session->model()->label, kLabel);
    const QString summary = guitest::find<QLabel>(*models->panel(), QStringLiteral("modelSummary"))->text();
    QVERIFY2(summary.startsWith(QStringLiteral("demo: ") + kLabel), qPrintable(summary));

    // Back on the first page: the demo never brings its tab forward.
    pipeline->showPage(before);
    QTRY_VERIFY(session->result() && !session->isComputing());
    QCOMPARE(pipeline->currentPage(), before);

    // Every picture of it says what it is.
    const attn::Expected<std::vector<OutputFile>> files = models->exports()->pictureFiles(QSize(600, 450));
    QVERIFY(files);
    int svgs = 0;
    for (const OutputFile& f : files.value()) {
        if (f.name.size() < 4 || f.name.compare(f.name.size() - 4, 4, ".svg") != 0)
            continue;
        std::ostringstream out;
        f.write(out);
        QVERIFY2(QString::fromStdString(out.str()).contains(QStringLiteral("not a language model")),
                 f.name.c_str());
        ++svgs;
    }
    QVERIFY(svgs >= 3);  // model_view, a head view per layer, next_token

    // A folder the user opens replaces it, and the tab comes forward.
    QSignalSpy again(session, &ModelSession::modelOpened);
    models->openModel(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2"));
    QVERIFY(again.wait(10000));
    QVERIFY(session->model()->label.isEmpty());
    QCOMPARE(pipeline->currentPage(), models->panel());
}

void TestDemoDefault::aChosenModelStays()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelController* models = window->models();
    ModelSession* session = models->session();
    QSignalSpy opened(session, &ModelSession::modelOpened);
    models->openModel(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2"));
    QVERIFY(opened.wait(10000));
    QTRY_VERIFY(models->panel()->isVisible());
    guitest::find<PipelineView>(*window, QStringLiteral("pipelineView"))
        ->showPage(guitest::find<QWidget>(*window, QStringLiteral("modelHeadLines")));
    QTest::qWait(50);
    QVERIFY(!session->isLoading());
    QCOMPARE(opened.count(), 1);
    QVERIFY(session->modelFolder().endsWith(QStringLiteral("tiny-gpt2")));
}

namespace {

// The head first by a plain loop over every head's weights (ties: the first).
struct LoopHead {
    int layer = -1, head = -1;
    double score = -1.0;
};

LoopHead firstByLoop(const attn::DecoderResult& r, const std::vector<int>& ids, bool induction)
{
    LoopHead best;
    const int n = int(ids.size());
    for (int l = 0; l < int(r.layers.size()); ++l)
        for (int h = 0; h < int(r.layers[std::size_t(l)].heads.size()); ++h) {
            const attn::Matrix& a = r.layers[std::size_t(l)].heads[std::size_t(h)].weightsMatrix();
            double total = 0.0;
            int rows = 0;
            for (int i = 1; i < n; ++i) {
                if (!induction) {
                    total += a(i, i - 1);
                    ++rows;
                    continue;
                }
                double row = 0.0;
                bool defined = false;
                for (int j = 1; j < i; ++j)
                    if (ids[std::size_t(j - 1)] == ids[std::size_t(i)]) {
                        row += a(i, j);
                        defined = true;
                    }
                if (defined) {
                    total += row;
                    ++rows;
                }
            }
            const double score = rows ? total / rows : -1.0;
            if (score > best.score)
                best = {l, h, score};
        }
    return best;
}

double probabilityByLoop(const attn::RowVector& logits, int id)
{
    const double top = logits.maxCoeff();
    double sum = 0.0;
    for (Eigen::Index j = 0; j < logits.size(); ++j)
        sum += std::exp(logits[j] - top);
    return std::exp(logits[id] - top) / sum;
}

QString percent(double p)
{
    return QString::number(100.0 * p, 'f', 1) + QStringLiteral(" %");
}

}  // namespace

void TestDemoDefault::lessonFindsAndRemovesTheInductionHead()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    ModelSession* session = window->models()->session();
    QSignalSpy opened(session, &ModelSession::modelOpened);
    guitest::find<QAction>(*window, QStringLiteral("lessonModeAction"))->trigger();
    LessonPanel* lesson = guitest::find<LessonPanel>(*window, QStringLiteral("lessonPanel"));
    lesson->setStep(LessonPanel::stepOf(LessonPanel::Stage::HeadLab));
    QCOMPARE(lesson->stepIndicator(), QStringLiteral("Step 13 of 13"));
    QVERIFY(opened.wait(10000));  // the step shows the Model tab, which reads the demo
    const QString sentence = QStringLiteral("The cat sat on the mat. The cat sat on the");
    QCOMPARE(CopyLesson::sentence(), sentence);
    QTRY_VERIFY_WITH_TIMEOUT(session->result() && session->sentence() == sentence && !session->isComputing(),
                             10000);
    QCOMPARE(guitest::find<PipelineView>(*window, QStringLiteral("pipelineView"))->currentPage(),
             window->models()->panel());
    HeadLabPanel* headLab = window->models()->panel()->headLab();
    QCOMPARE(headLab->scoreKind(), int(attn::HeadScoreKind::Induction));
    QCOMPARE(headLab->tabText(headLab->currentIndex()), QStringLiteral("Scores"));

    // The same pass computed here, and the heads ranked by plain loops.
    const attn::Expected<ModelFolder> demo = readModelFolder(demoModelFolder().value());
    QVERIFY(demo);
    const std::vector<int> ids = demo->tokenizer->encodeIds(sentence);
    QCOMPARE(int(ids.size()), 12);
    attn::DecoderRunOptions options;
    const attn::Expected<attn::DecoderResult> intact = demo->decoder->run(ids, options);
    QVERIFY(intact);
    const LoopHead previous = firstByLoop(*intact, ids, false);
    const LoopHead induction = firstByLoop(*intact, ids, true);
    QCOMPARE(previous.layer, 0);  // as the script set them
    QCOMPARE(previous.head, 0);
    QCOMPARE(induction.layer, 1);
    QCOMPARE(induction.head, 0);
    const int mat = demo->tokenizer->encodeIds(QStringLiteral(" mat")).front();
    const double p = probabilityByLoop(intact->lastLogits, mat);
    QVERIFY2(p > 0.9, qPrintable(QString::number(p)));

    const QString live = lesson->liveText();
    QVERIFY2(live.contains(QStringLiteral("The previous-token score is highest for layer 1 · head 1 (%1).")
                               .arg(QString::number(previous.score, 'f', 2))),
             qPrintable(live));
    QVERIFY2(live.contains(QStringLiteral("The induction score is highest for layer 2 · head 1 (%1).")
                               .arg(QString::number(induction.score, 'f', 2))),
             qPrintable(live));
    QVERIFY2(
        live.contains(QStringLiteral("The token to copy is “␣mat”: the model gives it %1.").arg(percent(p))),
        qPrintable(live));

    // Remove it: one undo step, and the copy falls by more than half.
    QPushButton* remove = lesson->removeHeadButton();
    QVERIFY(remove->isVisible());
    QCOMPARE(remove->text(), QStringLiteral("&Remove the induction head"));
    const int undoSteps = window->documents()->undoStack()->count();
    QTest::mouseClick(remove, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(session->ablatedResult() && !session->isComputing(), 10000);
    QCOMPARE(int(session->ablatedHeads().size()), 1);
    QCOMPARE(session->ablatedHeads().front().layer, 1);
    QCOMPARE(session->ablatedHeads().front().head, 0);
    QCOMPARE(window->documents()->undoStack()->count(), undoSteps + 1);
    options.headOutput = attn::ablationHook({attn::HeadIndex{1, 0}}, attn::HeadAblation::Zero);
    const attn::Expected<attn::DecoderResult> ablated = demo->decoder->run(ids, options);
    QVERIFY(ablated);
    const double q = probabilityByLoop(ablated->lastLogits, mat);
    QVERIFY2(q < 0.5 * p, qPrintable(QString::number(q)));
    QTRY_VERIFY(lesson->liveText().contains(
        QStringLiteral("Without layer 2 · head 1 (its output set to zero, every later layer recomputed): %1.")
            .arg(CinemaLesson::percentText(q))));
    QCOMPARE(remove->text(), QStringLiteral("&Put the head back"));
    // To look at the step as a user would: ATTNLAB_SHOT_DIR=DIR saves the window.
    if (const QString dir = qEnvironmentVariable("ATTNLAB_SHOT_DIR"); !dir.isEmpty())
        window->grab().save(dir + QStringLiteral("/lesson_head_lab.png"));

    // Undo brings the head back.
    window->documents()->undoStack()->undo();
    QTRY_VERIFY(session->ablatedHeads().empty() && !session->isComputing());
    QTRY_COMPARE(remove->text(), QStringLiteral("&Remove the induction head"));
    QVERIFY(!lesson->liveText().contains(QStringLiteral("Without")));
}

QTEST_MAIN(TestDemoDefault)
#include "tst_demodefault.moc"
