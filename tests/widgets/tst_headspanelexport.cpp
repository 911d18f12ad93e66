// SPDX-License-Identifier: GPL-3.0-or-later
// The heads panel's exports: every head's pictures and numbers into a
// folder (the numbers read back equal to the engine's), and the grid, the
// average, the concat and the output as views of the export controller
// (pictures, numbers, the grid's context menu).

#include "headgridview.h"
#include "headresults.h"
#include "headspanel.h"
#include "heatmapview.h"
#include "matrixio.h"
#include "npy.h"
#include "viewexportcontroller.h"

#include <QAction>
#include <QApplication>
#include <QContextMenuEvent>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace attnlab;

class TestHeadsPanelExport : public QObject {
    Q_OBJECT
private slots:
    void everyHeadIntoAFolder();
    void registeredViews();
    void gridMenuOffersEveryHead();
};

namespace {

attn::Matrix readNpy(const QDir& dir, const QString& name)
{
    const attn::Expected<attn::Matrix> m = readNpyFile(dir.filePath(name));
    if (!m.ok())
        qFatal("%s: %s", qPrintable(name), m.error().message.c_str());
    return m.value();
}

std::unique_ptr<ViewExportController> controller(QWidget* window)
{
    return std::make_unique<ViewExportController>(
        window, [](const ExportOptions&) { return std::unique_ptr<ViewExporter>(); },
        [] { return ExportOptions(); });
}

}  // namespace

void TestHeadsPanelExport::everyHeadIntoAFolder()
{
    const headresults::Run run = headresults::article(3, true);
    const attn::MultiHeadResult& r = *run.result;
    HeadsPanel panel;
    panel.setResult(run.result, run.tokens, 0);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QDir dir(tmp.path());
    QVERIFY(panel.exportAll(tmp.path()).ok());
    for (const char* suffix : {"png", "svg", "pdf"})
        for (const QString& stem :
             {QStringLiteral("head_grid"), QStringLiteral("weights_average"), QStringLiteral("weights_head3"),
              QStringLiteral("scores_head1"), QStringLiteral("scaled_scores_head2"), QStringLiteral("concat"),
              QStringLiteral("output")})
            QVERIFY2(QFile::exists(dir.filePath(stem + QLatin1Char('.') + QLatin1String(suffix))),
                     qPrintable(stem));
    QVERIFY(!QImage(dir.filePath(QStringLiteral("head_grid.png"))).isNull());
    // The numbers, every head's, as the command line names them.
    for (int h = 0; h < 3; ++h) {
        const attn::AttentionResult& head = r.heads[std::size_t(h)];
        const QString tail = QStringLiteral("_head%1.npy").arg(h + 1);
        QCOMPARE(readNpy(dir, QStringLiteral("weights") + tail), head.weightsMatrix());
        QCOMPARE(readNpy(dir, QStringLiteral("scores") + tail), head.scores);
        QCOMPARE(readNpy(dir, QStringLiteral("scaled_scores") + tail), head.scaledMatrix());
        QCOMPARE(readNpy(dir, QStringLiteral("Q") + tail), head.Q);
        QCOMPARE(readNpy(dir, QStringLiteral("K") + tail), head.K);
        QCOMPARE(readNpy(dir, QStringLiteral("V") + tail), head.V);
        QCOMPARE(readNpy(dir, QStringLiteral("context") + tail), head.context);
        const attn::Expected<attn::Matrix> csv =
            readMatrixFile(dir.filePath(QStringLiteral("weights_head%1.csv").arg(h + 1)));
        QVERIFY(csv.ok());
        QCOMPARE(csv.value(), head.weightsMatrix());
    }
    QCOMPARE(readNpy(dir, QStringLiteral("weights_average.npy")), r.weightsAverage);
    QCOMPARE(readNpy(dir, QStringLiteral("concat.npy")), r.concat);
    QCOMPARE(readNpy(dir, QStringLiteral("output.npy")), r.output);
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("weights_head4.npy"))));
    // One head: refused with a reason, nothing written.
    HeadsPanel single;
    QTemporaryDir other;
    const attn::Status refused = single.exportAll(other.path());
    QVERIFY(!refused.ok());
    QVERIFY(QString::fromStdString(refused.error().message).contains(QStringLiteral("one head")));
    QVERIFY(QDir(other.path()).entryList(QDir::Files).isEmpty());
}

void TestHeadsPanelExport::registeredViews()
{
    QWidget window;
    const auto exports = controller(&window);
    const headresults::Run run = headresults::article(3);
    HeadsPanel panel;
    panel.setResult(run.result, run.tokens, 2);
    panel.registerExports(exports.get());
    for (const ExportView v :
         {ExportView::HeadGrid, ExportView::HeadAverage, ExportView::HeadConcat, ExportView::HeadOutput})
        QVERIFY(exports->hasView(v) && exports->views().contains(v));
    QCOMPARE(exports->stem(ExportView::HeadGrid), QStringLiteral("head_grid"));
    QTemporaryDir tmp;
    for (const char* suffix : {"png", "svg", "pdf"}) {
        const QString path = QDir(tmp.path()).filePath(QStringLiteral("grid.") + QLatin1String(suffix));
        QVERIFY(
            exports->writePicture(ExportView::HeadGrid, path, QSize(800, 600), 1.0, ExportOptions()).ok());
        QVERIFY(QFileInfo(path).size() > 1000);
    }
    const QImage grid = exports->image(ExportView::HeadGrid, QSize(800, 600), 1.0, ExportOptions());
    QCOMPARE(grid.size(), QSize(800, 600));
    // The average's numbers: the labelled matrix the import reads back.
    const attn::Expected<std::string> average = exports->numbers(ExportView::HeadAverage);
    QVERIFY(average.ok());
    const attn::Expected<LabelledMatrix> back = readMatrixCsv(average.value());
    QVERIFY(back.ok());
    QCOMPARE(back->values, run.result->weightsAverage);
    const attn::Expected<std::string> cells = exports->numbers(ExportView::HeadGrid);
    QVERIFY(cells.ok());
    QVERIFY(cells->rfind("query_index,query,key_index,key,score_head1,", 0) == 0);
    // No output projection: no numbers for it, said so.
    QVERIFY(!exports->numbers(ExportView::HeadOutput).ok());
}

void TestHeadsPanelExport::gridMenuOffersEveryHead()
{
    QWidget window;
    const auto exports = controller(&window);
    const headresults::Run run = headresults::article(2);
    HeadsPanel panel;
    panel.resize(900, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setResult(run.result, run.tokens, 0);
    panel.registerExports(exports.get());
    HeadGridView* grid = panel.grid();
    QContextMenuEvent event(QContextMenuEvent::Mouse, grid->tileMapRect(1).center(),
                            grid->mapToGlobal(grid->tileMapRect(1).center()));
    QApplication::sendEvent(grid, &event);
    QVERIFY(event.isAccepted());
    auto* menu = panel.findChild<QMenu*>(QStringLiteral("exportMenu"));
    QVERIFY(menu);
    QVERIFY(menu->findChild<QAction*>(QStringLiteral("exportMenuPicture")));
    auto* every = menu->findChild<QAction*>(QStringLiteral("exportEveryHead"));
    QVERIFY(every && every->isEnabled());
    QTemporaryDir tmp;
    panel.setDirectoryPrompt([&tmp] { return tmp.path(); });
    QSignalSpy messages(&panel, &HeadsPanel::message);
    every->trigger();
    QCOMPARE(messages.count(), 1);
    QVERIFY2(messages.first().at(0).toString().startsWith(
                 QStringLiteral("Wrote the 2 heads' pictures and numbers")),
             qPrintable(messages.first().at(0).toString()));
    QVERIFY(QFile::exists(QDir(tmp.path()).filePath(QStringLiteral("weights_head2.npy"))));
    menu->close();
}

QTEST_MAIN(TestHeadsPanelExport)
#include "tst_headspanelexport.moc"
