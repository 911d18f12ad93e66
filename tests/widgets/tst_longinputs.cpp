// SPDX-License-Identifier: GPL-3.0-or-later
// Long inputs in the window's views: the weights map's colour scale chosen
// for the number of tokens (and its picture at 2000 tokens), repeated words
// labelled with their positions, and the focused query's keys sorted by any
// column. Real widgets over a real Session, offscreen.

#include "focuspanel.h"
#include "guitest.h"
#include "mainwindow.h"
#include "heatmapview.h"
#include "pipelineview.h"
#include "presentation.h"
#include "session.h"
#include "statisticspanel.h"
#include "viewexporter.h"
#include "weightsscale.h"

#include <QComboBox>
#include <QMenu>
#include <QTemporaryDir>
#include <QHeaderView>
#include <QTableView>
#include <QtTest>

#include <qcustomplot.h>

using namespace attnlab;

namespace {

// n distinct words (w1 w2 ...), so that no label carries a position.
QString distinctWords(int n)
{
    QStringList words;
    for (int i = 1; i <= n; ++i)
        words << QStringLiteral("w%1").arg(i);
    return words.join(QLatin1Char(' '));
}

// Rows of the cells' area (sampled every `step` pixel rows) holding a
// pixel that is not white.
double nonWhiteRowShare(const QImage& image, const QRect& cells)
{
    int rows = 0;
    int coloured = 0;
    for (int y = cells.top(); y <= cells.bottom(); ++y, ++rows) {
        for (int x = cells.left(); x <= cells.right(); ++x) {
            const QRgb p = image.pixel(x, y);
            if (qRed(p) < 245 || qGreen(p) < 245 || qBlue(p) < 245) {
                ++coloured;
                break;
            }
        }
    }
    return rows ? double(coloured) / rows : 0.0;
}

}  // namespace

class TestLongInputs : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void weightsScaleRule_data();
    void weightsScaleRule();
    void weightsMapAt2000TokensIsNotWhite();
    void weightsScaleIsSwitchableAndExported();
    void positionedLabels_data();
    void positionedLabels();
    void repeatedWordsCarryTheirPositionInTheViews();
    void focusTableSortsByEveryColumn();
    void weightsScaleMenuIsRemembered();

private:
    QTemporaryDir settingsDir_;
};

void TestLongInputs::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestLongInputs::weightsScaleRule_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("scale");
    QTest::addColumn<double>("logLow");
    QTest::addColumn<QString>("caption");
    using S = HeatmapView::ColorScale;
    using M = WeightsScaleMode;
    // The bottom of the log scale: 10^floor(log10(0.01 / n)).
    QTest::newRow("lesson") << int(M::Automatic) << 6 << int(S::Linear) << 1e-3
                            << "Colour: linear 0 … 1 (automatic, ≤ 32 tokens)";
    QTest::newRow("32 tokens") << int(M::Automatic) << 32 << int(S::Linear) << 1e-4
                               << "Colour: linear 0 … 1 (automatic, ≤ 32 tokens)";
    QTest::newRow("33 tokens") << int(M::Automatic) << 33 << int(S::Log) << 1e-4
                               << "Colour: log 10⁻⁴ … 1 (automatic, > 32 tokens)";
    QTest::newRow("2000 tokens") << int(M::Automatic) << 2000 << int(S::Log) << 1e-6
                                 << "Colour: log 10⁻⁶ … 1 (automatic, > 32 tokens)";
    QTest::newRow("linear asked") << int(M::Linear) << 2000 << int(S::Linear) << 1e-6
                                  << "Colour: linear 0 … 1";
    QTest::newRow("per row asked") << int(M::PerRow) << 6 << int(S::PerRow) << 1e-3
                                   << "Colour: per row, 0 … row max";
    QTest::newRow("log asked") << int(M::Log) << 6 << int(S::Log) << 1e-3 << "Colour: log 10⁻³ … 1";
}

void TestLongInputs::weightsScaleRule()
{
    QFETCH(int, mode);
    QFETCH(int, tokens);
    QFETCH(int, scale);
    QFETCH(double, logLow);
    QFETCH(QString, caption);
    const WeightsScale s = chooseWeightsScale(WeightsScaleMode(mode), tokens);
    QCOMPARE(int(s.scale), scale);
    QCOMPARE(s.logLow, logLow);
    QCOMPARE(s.caption, caption);
    for (const WeightsScaleMode m : weightsScaleModes()) {
        WeightsScaleMode back = WeightsScaleMode::Log;
        QVERIFY(weightsScaleModeFromKey(weightsScaleModeKey(m), &back));
        QCOMPARE(back, m);
    }
}

void TestLongInputs::weightsMapAt2000TokensIsNotWhite()
{
    // The unit-variance initialisation (the textbook's): at 2000 tokens the
    // weights are near 1/2000 = 5e-4, all but white on a linear 0 .. 1 scale.
    Session session;
    session.setInit(attn::InitMode::UnitVariance);
    session.setSentence(distinctWords(2000));
    session.waitForResult();
    QCOMPARE(session.published()->shown()->tokens(), 2000);
    PipelineView view(&session);
    view.resize(1500, 700);
    HeatmapView* weights = view.weightsMap();
    weights->resize(600, 600);
    QCOMPARE(weights->colorScale(), HeatmapView::ColorScale::Log);
    QVERIFY2(weights->scaleCaption().contains(QStringLiteral("log 10⁻⁶")),
             qPrintable(weights->scaleCaption()));
    const QImage automatic = weights->renderImage(weights->size());
    const double share = nonWhiteRowShare(automatic, weights->cellsArea());
    QVERIFY2(share > 0.9, qPrintable(QString::number(share)));
    // The same map on the linear scale is white in most rows: the test can fail.
    view.setWeightsScaleMode(WeightsScaleMode::Linear);
    QCOMPARE(weights->colorScale(), HeatmapView::ColorScale::Linear);
    const double linear = nonWhiteRowShare(weights->renderImage(weights->size()), weights->cellsArea());
    QVERIFY2(linear < 0.5, qPrintable(QString::number(linear)));
    // Per row, every row reaches its deep end somewhere.
    view.setWeightsScaleMode(WeightsScaleMode::PerRow);
    const double perRow = nonWhiteRowShare(weights->renderImage(weights->size()), weights->cellsArea());
    QVERIFY2(perRow > 0.9, qPrintable(QString::number(perRow)));
}

void TestLongInputs::weightsScaleIsSwitchableAndExported()
{
    Session session;
    session.setSentence(distinctWords(40));
    session.waitForResult();
    PipelineView view(&session);
    auto* box = view.findChild<QComboBox*>(QStringLiteral("weightsScaleBox"));
    QVERIFY(box);
    QCOMPARE(view.weightsMap()->colorScale(), HeatmapView::ColorScale::Log);  // automatic at 40
    QSignalSpy changed(&view, &PipelineView::weightsScaleModeChanged);
    box->setCurrentIndex(box->findData(int(WeightsScaleMode::PerRow)));
    QCOMPARE(changed.size(), 1);
    QCOMPARE(view.weightsScaleMode(), WeightsScaleMode::PerRow);
    QCOMPARE(view.weightsMap()->colorScale(), HeatmapView::ColorScale::PerRow);
    QCOMPARE(view.weightsMap()->scaleCaption(), QStringLiteral("Colour: per row, 0 … row max"));
    // A new result keeps the choice.
    session.setSentence(distinctWords(10));
    session.waitForResult();
    QCOMPARE(view.weightsMap()->colorScale(), HeatmapView::ColorScale::PerRow);
    // The exported weights map uses the scale the window shows: its picture
    // equals the window's map drawn at the same size.
    const AttentionSnapshot snapshot =
        singleHeadSnapshot(session.inputs().config, session.inputs().options, session.inputs().model,
                           *session.published()->shown(), {});
    ViewExporter exporter(snapshot);
    exporter.setWeightsScaleMode(view.weightsScaleMode());
    const QImage exported = exporter.image(ExportView::Weights, QSize(500, 400));
    ViewExporter automatic(snapshot);
    QVERIFY(exported != automatic.image(ExportView::Weights, QSize(500, 400)));
    // Exports of the window's own choice, as MainWindow makes them.
    QCOMPARE(exported, [&] {
        ViewExporter again(snapshot);
        again.setWeightsScaleMode(WeightsScaleMode::PerRow);
        return again.image(ExportView::Weights, QSize(500, 400));
    }());
}

void TestLongInputs::positionedLabels_data()
{
    QTest::addColumn<QStringList>("tokens");
    QTest::addColumn<QStringList>("labels");
    QTest::newRow("none repeat") << QStringList{"Life", "is", "short"} << QStringList{"Life", "is", "short"};
    QTest::newRow("to twice") << QStringList{"I", "want", "to", "go", "to", "school"}
                              << QStringList{"I", "want", "to#3", "go", "to#5", "school"};
    QTest::newRow("case differs") << QStringList{"The", "the"} << QStringList{"The", "the"};
    QTest::newRow("empty") << QStringList{} << QStringList{};
}

void TestLongInputs::positionedLabels()
{
    QFETCH(QStringList, tokens);
    QFETCH(QStringList, labels);
    QCOMPARE(attnlab::positionedLabels(tokens), labels);
}

void TestLongInputs::repeatedWordsCarryTheirPositionInTheViews()
{
    Session session;
    session.setSentence(QStringLiteral("we want to go to the sea"));
    session.waitForResult();
    const QStringList want = {"we", "want", "to#3", "go", "to#5", "the", "sea"};
    QCOMPARE(session.published()->tokens()[2], QStringLiteral("to"));  // the tokens themselves are unchanged
    QCOMPARE(session.published()->labels(), want);
    PipelineView pipeline(&session);
    pipeline.resize(1400, 600);
    for (HeatmapView* map : {pipeline.rawScoresMap(), pipeline.scaledScoresMap(), pipeline.weightsMap()}) {
        QCOMPARE(map->rowLabels(), want);
        QCOMPARE(map->columnLabels(), want);
    }
    QCOMPARE(pipeline.queryMap()->rowLabels(), want);
    // The focused query: its vectors' row label and the bars' key labels.
    FocusPanel focus(&session);
    focus.resize(1000, 300);
    focus.show();  // laid out: the plot's width decides how many key labels fit
    QVERIFY(QTest::qWaitForWindowExposed(&focus));
    focus.setQuery(4);
    auto* qVector = focus.findChild<HeatmapView*>(QStringLiteral("focusQueryVector"));
    QVERIFY(qVector);
    QCOMPARE(qVector->rowLabels(), QStringList{"to#5"});
    auto ticker = focus.plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    QStringList ticks;
    for (const QString& t : ticker->ticks())
        ticks << t;
    QCOMPARE(ticks, want);
    // The statistics table names the key each query attends to most.
    StatisticsPanel stats(&session);
    auto* table = stats.findChild<QTableView*>();
    QVERIFY(table);
    const int argMax = session.published()->stats().rows[0].argMax;
    QCOMPARE(table->model()->index(0, 2).data().toString(), want[argMax]);
}

void TestLongInputs::focusTableSortsByEveryColumn()
{
    Session session;
    session.setSentence(QStringLiteral("we want to go to the sea and swim far out"));
    session.setCausal(true);
    session.waitForResult();
    FocusPanel focus(&session);
    focus.resize(1000, 400);
    focus.setQuery(7);
    QTableView* table = guitest::find<QTableView>(focus, QStringLiteral("focusTable"));
    QAbstractItemModel* model = table->model();
    const int n = session.published()->shown()->tokens();
    QCOMPARE(model->rowCount(), n + 1);
    const attn::AttentionResult& r = *session.published()->shown();
    // The numbers of column c for key j, as the engine has them.
    const auto number = [&](int c, int j) {
        switch (c) {
        case 1: return r.scores(7, j);
        case 2: return r.isMasked(7, j) ? -std::numeric_limits<double>::infinity() : r.scaled(7, j);
        default: return r.weights(7, j);
        }
    };
    // The key shown in row `row` of the table ("3 to").
    const auto keyAt = [&](int row) {
        return model->index(row, 0).data().toString().section(' ', 0, 0).toInt() - 1;
    };
    for (int c = 0; c < 4; ++c) {
        for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            // Through the header, as a click on it does.
            table->horizontalHeader()->setSortIndicator(c, order);
            QCOMPARE(model->index(n, 0).data().toString(), QStringLiteral("sum"));  // last either way
            QSet<int> keys;
            for (int row = 0; row < n; ++row) {
                keys.insert(keyAt(row));
                if (row == 0)
                    continue;
                const int a = keyAt(row - 1);
                const int b = keyAt(row);
                const double va = c == 0 ? a : number(c, a);
                const double vb = c == 0 ? b : number(c, b);
                QVERIFY2(order == Qt::AscendingOrder ? va <= vb : va >= vb,
                         qPrintable(
                             QStringLiteral("column %1 row %2: %3 then %4").arg(c).arg(row).arg(va).arg(vb)));
            }
            QCOMPARE(keys.size(), n);
        }
    }
    // Sorted by weight, the first row is the largest weight's key.
    table->horizontalHeader()->setSortIndicator(3, Qt::DescendingOrder);
    QCOMPARE(keyAt(0), session.published()->stats().rows[7].argMax);
}

void TestLongInputs::weightsScaleMenuIsRemembered()
{
    QSettings().clear();
    {
        MainWindow window;
        auto* menu = window.findChild<QMenu*>(QStringLiteral("weightsScaleMenu"));
        QVERIFY(menu);
        QCOMPARE(menu->actions().size(), 4);
        QVERIFY(menu->actions()[0]->isChecked());  // Automatic
        menu->actions()[3]->trigger();             // Logarithmic
        QCOMPARE(guitest::find<PipelineView>(window, QStringLiteral("pipelineView"))->weightsScaleMode(),
                 WeightsScaleMode::Log);
        QCOMPARE(guitest::find<HeatmapView>(window, QStringLiteral("weightsMap"))->colorScale(),
                 HeatmapView::ColorScale::Log);
        auto* box = window.findChild<QComboBox*>(QStringLiteral("weightsScaleBox"));
        QCOMPARE(box->currentData().toInt(), int(WeightsScaleMode::Log));
        // The box drives the menu's check marks too.
        box->setCurrentIndex(box->findData(int(WeightsScaleMode::PerRow)));
        QVERIFY(menu->actions()[2]->isChecked());
        QVERIFY(!menu->actions()[3]->isChecked());
        window.saveSettings();
    }
    MainWindow again;
    again.restoreSettings();
    QCOMPARE(guitest::find<PipelineView>(again, QStringLiteral("pipelineView"))->weightsScaleMode(),
             WeightsScaleMode::PerRow);
    QCOMPARE(guitest::find<HeatmapView>(again, QStringLiteral("weightsMap"))->colorScale(),
             HeatmapView::ColorScale::PerRow);
}

QTEST_MAIN(TestLongInputs)
#include "tst_longinputs.moc"
