// SPDX-License-Identifier: GPL-3.0-or-later
// The window's File > Export all views and Export numbers with the heads
// panel handed to ExportActions (Views::heads): with several heads every
// head's pictures and numbers are written beside the single-head files,
// the numbers the session's multi-head result to the last digit; with one
// head nothing of the heads is added.

#include "exportactions.h"
#include "focuspanel.h"
#include "guitest.h"
#include "headspanel.h"
#include "npy.h"
#include "pipelineview.h"
#include "scalingcompareview.h"
#include "scalinglabview.h"
#include "session.h"
#include "viewexportcontroller.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace attnlab;

class TestExportHeads : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void allViewsAndNumbersTakeTheHeads();

private:
    QTemporaryDir settingsDir_;
};

void TestExportHeads::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestExportHeads::allViewsAndNumbersTakeTheHeads()
{
    QWidget window;
    Session session;
    auto* pipeline = new PipelineView(&session, &window);
    auto* focus = new FocusPanel(&session, &window);
    auto* compare = new ScalingCompareView(&window);
    auto* lab = new ScalingLabView(&window);
    auto* heads = new HeadsPanel(&window);
    ExportActions actions(
        &session, {pipeline, focus, compare, lab, heads}, [] { return 0; }, &window);
    QVERIFY(actions.controller()->hasView(ExportView::HeadGrid));

    QTemporaryDir out;
    const QDir dir(out.path());
    // One head: the files of today.
    QVERIFY(!session.published()->heads());
    heads->setResult(session.published()->heads(), session.published()->labels(),
                     session.inputs().selectedHead);
    QVERIFY(actions.exportAllViews(dir.filePath(QStringLiteral("one")), QSize(400, 300)).ok());
    const int single = QDir(dir.filePath(QStringLiteral("one"))).entryList(QDir::Files).size();
    // The snapshot's views, the scaled-vs-unscaled comparison and the focused query.
    QCOMPARE(single, (ViewExporter::views().size() + 2) * 3);

    session.setHeadCount(3);
    QCOMPARE(session.published()->headCount(), 3);
    session.selectHead(1);
    const std::shared_ptr<const attn::MultiHeadResult> r = session.published()->heads();
    QVERIFY(r);
    heads->setResult(r, session.published()->labels(), session.inputs().selectedHead);
    const QString all = dir.filePath(QStringLiteral("all"));
    QVERIFY(actions.exportAllViews(all, QSize(400, 300)).ok());
    // The grid, the average, 3 × 3 head maps and the concat, in three formats.
    QCOMPARE(QDir(all).entryList(QDir::Files).size(), single + (2 + 9 + 1) * 3);
    for (const char* name :
         {"head_grid.png", "weights_average.svg", "scaled_scores_head3.pdf", "concat.png", "weights.png"})
        QVERIFY2(QFile::exists(QDir(all).filePath(QLatin1String(name))), name);

    const QString numbers = dir.filePath(QStringLiteral("numbers"));
    ExportFormats formats;
    formats.json = formats.csv = formats.npy = true;
    QVERIFY(actions.exportNumbers(numbers, formats).ok());
    for (int h = 0; h < 3; ++h) {
        const attn::Expected<attn::Matrix> w =
            readNpyFile(QDir(numbers).filePath(QStringLiteral("weights_head%1.npy").arg(h + 1)));
        QVERIFY(w.ok());
        QCOMPARE(w.value(), r->heads[std::size_t(h)].weightsMatrix());
    }
    const attn::Expected<attn::Matrix> average =
        readNpyFile(QDir(numbers).filePath(QStringLiteral("weights_average.npy")));
    QVERIFY(average.ok());
    QCOMPARE(average.value(), r->weightsAverage);
    // The single-head files are the head shown (head 2).
    const attn::Expected<attn::Matrix> shown =
        readNpyFile(QDir(numbers).filePath(QStringLiteral("weights.npy")));
    QVERIFY(shown.ok());
    QCOMPARE(shown.value(), r->heads[1].weightsMatrix());
    QVERIFY(QFile::exists(QDir(numbers).filePath(QStringLiteral("attention.json"))));
}

QTEST_MAIN(TestExportHeads)
#include "tst_exportheads.moc"
