// SPDX-License-Identifier: GPL-3.0-or-later
// The demo model as the Model tab's default (issue 39), in the window
// (offscreen): shown the Model tab with no model open, the window reads
// models/demo without bringing any tab forward, its summary says what it is
// (config.json's attention_lab_label), and every picture of it carries the
// label (the SVG's text); a model the user opened first is never replaced by
// the demo.
#include "demomodel.h"
#include "guitest.h"
#include "mainwindow.h"
#include "modelcontroller.h"
#include "modelexports.h"
#include "modelpanel.h"
#include "modelsession.h"
#include "pipelineview.h"

#include <QLabel>
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

QTEST_MAIN(TestDemoDefault)
#include "tst_demodefault.moc"
