// SPDX-License-Identifier: GPL-3.0-or-later
// Pathological tokens in the whole window, offscreen: a word of 150,000
// letters (it took the window to 3.4 GB, then a crash in painting) and a
// letter with 60,000 combining marks (42 s to the first paint). The window
// shows and paints every view within a time bound, its memory grows by
// little, and every view shows the token cut by displayLabel and elided.

#include "displaylabel.h"
#include "focuspanel.h"
#include "guitest.h"
#include "heatmapview.h"
#include "mainwindow.h"
#include "matrixtablemodel.h"
#include "session.h"
#include "statisticstablemodel.h"
#include "tokenstrip.h"

#include <QFile>
#include <QLabel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <qcustomplot.h>

using namespace attnlab;

namespace {

// The resident memory of this process in MiB (Linux), or -1.
long residentMiB()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLong() / 1024;
    }
    return -1;
}

QString times(const QString& piece, int count)
{
    QString text;
    text.reserve(piece.size() * count);
    for (int i = 0; i < count; ++i)
        text += piece;
    return text;
}

}  // namespace

class TestPathologicalLabels : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void windowPaintsThem_data();
    void windowPaintsThem();

private:
    QTemporaryDir settingsDir_;
};

void TestPathologicalLabels::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestPathologicalLabels::windowPaintsThem_data()
{
    QTest::addColumn<QString>("token");
    QTest::addColumn<QString>("label");  // what displayLabel keeps
    const QString ellipsis = QStringLiteral("\u2026");
    QTest::newRow("150,000 letters") << times(QStringLiteral("x"), 150000)
                                     << times(QStringLiteral("x"), 64) + ellipsis;
    // The sentence field lays out the whole sentence it holds (the user's
    // text, not a label): HarfBuzz takes about 3.5 s here for 60,000 marks,
    // linearly. Every label is cut to displayLabel's length, checked below;
    // how long painting takes is the bench's to measure, not a test's.
    QTest::newRow("a and 60,000 combining marks")
        << QStringLiteral("a") + times(QStringLiteral("\u0301"), 60000)
        << QStringLiteral("a") + times(QStringLiteral("\u0301"), 31) + ellipsis;
}

void TestPathologicalLabels::windowPaintsThem()
{
    QFETCH(QString, token);
    QFETCH(QString, label);
    QCOMPARE(displayLabel(token), label);

    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1400, 900));
    QVERIFY(window);
    Session* session = window->session();
    const long before = residentMiB();
    session->setSentence(QStringLiteral("the ") + token + QStringLiteral(" sat"));
    session->waitForResult();
    QTRY_COMPARE_WITH_TIMEOUT(session->published()->tokenCount(), 3, 10000);
    QCoreApplication::processEvents();
    // Every widget painted, now (grab paints the whole window into a picture).
    const QImage picture = window->grab().toImage();
    QVERIFY(!picture.isNull());
    const long after = residentMiB();
    if (before >= 0 && after >= 0)
        QVERIFY2(after - before < 400, qPrintable(QStringLiteral("%1 MiB -> %2 MiB").arg(before).arg(after)));

    QCOMPARE(session->published()->tokens().value(1), token);  // the token itself is whole
    QCOMPARE(session->published()->labels().value(1), label);

    // The maps (window and pictures alike) label it with the cut text.
    for (const char* name : {"rawScoresMap", "scaledScoresMap", "weightsMap", "queryMap", "contextMap"}) {
        auto* map = guitest::find<HeatmapView>(*window, QLatin1String(name));
        QCOMPARE(map->rowLabels().value(1), label);
    }
    // The chip: the cut text elided to at most 16 widths of "M".
    auto* strip = guitest::find<TokenStrip>(*window, QStringLiteral("tokenStrip"));
    const QString chip = strip->chipText(1);
    QVERIFY2(chip.endsWith(QStringLiteral("\u2026")), qPrintable(chip.left(80)));
    QVERIFY(label.startsWith(chip.chopped(1)));
    const QFontMetrics fm(strip->font());
    QVERIFY(strip->chipRect(1).width() <= 16 * fm.horizontalAdvance(QLatin1Char('M')) + 2 * 8);
    QVERIFY(strip->width() < 4000);

    // The focus panel on that query: its title, the mix and the keys.
    auto* focus = guitest::find<FocusPanel>(*window, QStringLiteral("focusPanel"));
    focus->setQuery(1);
    QCoreApplication::processEvents();
    auto* title = guitest::find<QLabel>(*window, QStringLiteral("focusTitle"));
    QVERIFY2(title->text().size() < 200, qPrintable(title->text().left(200)));
    QVERIFY(title->text().contains(QStringLiteral("\u2026")));
    auto* mixing = guitest::find<QLabel>(*window, QStringLiteral("focusMixingLabel"));
    QVERIFY(mixing->text().size() < 400);
    auto ticker = focus->plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    for (const QString& tick : ticker->ticks())
        QVERIFY(tick.size() <= label.size());

    // The tables: the statistics' query column and X's row header.
    for (QTableView* table : window->findChildren<QTableView*>()) {
        QAbstractItemModel* model = table->model();
        for (int r = 0; r < model->rowCount(); ++r) {
            for (int c = 0; c < model->columnCount(); ++c)
                QVERIFY(model->data(model->index(r, c)).toString().size() <= label.size() + 8);
            QVERIFY(model->headerData(r, Qt::Vertical).toString().size() <= label.size() + 8);
        }
    }
    // Every view that labels the token paints again. (The sentence field
    // draws the user's whole sentence, every mark of it: not a label.)
    for (const char* name : {"pipelineView", "tokenStrip", "focusPanel", "statisticsPanel"}) {
        QWidget* view = guitest::find<QWidget>(*window, QLatin1String(name));
        QVERIFY2(!view->grab().isNull(), name);
    }
}

QTEST_MAIN(TestPathologicalLabels)
#include "tst_pathologicallabels.moc"
