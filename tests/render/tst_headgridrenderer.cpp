// SPDX-License-Identifier: GPL-3.0-or-later
// The head grid's geometry and pictures: h tiles and the average, inside the
// picture and apart, at every head count and size; each tile showing its own
// head's numbers in the colour map's colours (checked against the colour
// map itself at the cells' centres), the average the engine's, and a map of
// hundreds of tokens sampled at the tile's pixels; after an edit of one
// head, the other heads' tiles kept and the picture a fresh grid's.

#include "cellsource.h"
#include "colormap.h"
#include "headgridlayout.h"
#include "headgridrenderer.h"
#include "sharetext.h"
#include "headresults.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace attnlab;

class TestHeadGridRenderer : public QObject {
    Q_OBJECT
private slots:
    void tilesFitApart_data();
    void tilesFitApart();
    void captionsGoWhenTilesAreTiny();
    void tilesShowTheirHeadsWeights();
    void tilesShowRawAndScaledScores();
    void largeMapsAreSampled();
    void captionsShortenToFit();
    void unchangedHeadsKeepTheirTiles();
    void tokenLabelsWhereTheyFit_data();
    void tokenLabelsWhereTheyFit();
    void tilesCarryTheirTokens();
};

namespace {

HeatmapStyle exportStyle()
{
    HeatmapStyle style;
    style.background = Qt::white;
    style.text = Qt::black;
    style.frame = Qt::gray;
    return style;
}

QImage picture(const HeadGridRenderer& r, const QSize& size)
{
    QImage image(size, QImage::Format_RGB32);
    QPainter painter(&image);
    r.paint(painter, size, exportStyle(), Qt::red);
    return image;
}

// The pixel at the centre of cell (row, col) of an n x n map drawn in `map`.
QPoint cellCentre(const QRect& map, int n, int row, int col)
{
    return {map.left() + int((col + 0.5) * map.width() / n), map.top() + int((row + 0.5) * map.height() / n)};
}

}  // namespace

void TestHeadGridRenderer::tilesFitApart_data()
{
    QTest::addColumn<int>("heads");
    QTest::addColumn<QSize>("size");
    for (const int h : {1, 3, 8, 64})
        for (const QSize size : {QSize(240, 180), QSize(420, 300), QSize(1600, 1000), QSize(300, 1200)})
            QTest::addRow("h%d_%dx%d", h, size.width(), size.height()) << h << size;
}

void TestHeadGridRenderer::tilesFitApart()
{
    QFETCH(int, heads);
    QFETCH(QSize, size);
    const HeadGridLayout l = HeadGridLayout::compute(size, heads + 1, 16);
    QCOMPARE(int(l.tiles.size()), heads + 1);
    QVERIFY(l.columns * l.rows >= heads + 1);
    QVERIFY((l.rows - 1) * l.columns < heads + 1);  // no empty row
    const QRect picture(QPoint(0, 0), size);
    for (std::size_t i = 0; i < l.tiles.size(); ++i) {
        const HeadGridTile& t = l.tiles[i];
        QVERIFY2(!t.map.isEmpty(), qPrintable(QString::number(i)));
        QCOMPARE(t.map.width(), t.map.height());
        QVERIFY(picture.contains(t.frame));
        QVERIFY(t.frame.contains(t.map));
        if (!t.caption.isEmpty()) {
            QVERIFY(t.frame.contains(t.caption));
            QVERIFY(!t.caption.intersects(t.map));
        }
        QVERIFY(!l.legend.intersects(t.frame));
        for (std::size_t j = i + 1; j < l.tiles.size(); ++j)
            QVERIFY2(!t.frame.intersects(l.tiles[j].frame),
                     qPrintable(QStringLiteral("%1 %2").arg(i).arg(j)));
        // Every tile the same size, in reading order.
        QCOMPARE(t.map.size(), l.tiles.front().map.size());
        QCOMPARE(l.tileAt(t.map.center()), int(i));
    }
    QCOMPARE(l.tileAt(QPoint(-1, -1)), -1);
    if (!l.legend.isEmpty())
        QVERIFY(picture.contains(l.legend));
    // The maps take a fair share of the picture: no better column count
    // would give them twice the side.
    const int side = l.tiles.front().map.width();
    QVERIFY(side * 2 > std::min(size.width() / l.columns, size.height() / l.rows) / 2);
}

void TestHeadGridRenderer::tokenLabelsWhereTheyFit_data()
{
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("tokens");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("labelled");
    QTest::newRow("article 3 heads, window") << 3 << 6 << QSize(1000, 640) << true;
    QTest::newRow("article 8 heads, export") << 8 << 6 << QSize(1600, 1000) << true;
    QTest::newRow("article 64 heads, window") << 64 << 6 << QSize(1000, 640) << false;
    QTest::newRow("300 tokens") << 3 << 300 << QSize(1600, 1000) << false;
    QTest::newRow("small") << 3 << 6 << QSize(240, 180) << false;
}

// Labels only where each row keeps a line of text; then the map stays
// square, right of its row labels and below its column labels, all inside
// its tile.
void TestHeadGridRenderer::tokenLabelsWhereTheyFit()
{
    QFETCH(int, heads);
    QFETCH(int, tokens);
    QFETCH(QSize, size);
    QFETCH(bool, labelled);
    const int line = 16;
    const HeadGridLayout l = HeadGridLayout::compute(size, heads + 1, line, {tokens, 60});
    const HeadGridLayout plain = HeadGridLayout::compute(size, heads + 1, line);
    for (const HeadGridTile& t : l.tiles) {
        QCOMPARE(t.map.width(), t.map.height());
        QCOMPARE(!t.rowLabels.isEmpty(), labelled);
        QCOMPARE(!t.columnLabels.isEmpty(), labelled);
        if (!labelled) {
            QCOMPARE(t.map.size(), plain.tiles.front().map.size());
            continue;
        }
        QVERIFY(t.map.height() >= tokens * line);
        QVERIFY(t.frame.contains(t.rowLabels) && t.frame.contains(t.columnLabels) && t.frame.contains(t.map));
        QVERIFY(t.rowLabels.right() < t.map.left());
        QCOMPARE(t.rowLabels.top(), t.map.top());
        QVERIFY(t.columnLabels.bottom() < t.map.top());
        QCOMPARE(t.columnLabels.left(), t.map.left());
        QVERIFY(t.caption.bottom() < t.columnLabels.top());
        QVERIFY(t.rowLabels.width() <= 60);
    }
}

// The article's three heads in a window-sized grid: every tile names its
// queries and keys (drawn in text colour beside and above the map); a grid
// of tiny tiles names none.
void TestHeadGridRenderer::tilesCarryTheirTokens()
{
    const headresults::Run run = headresults::article(3);
    HeadGridRenderer grid;
    grid.setResult(run.result, run.tokens);
    const QSize size(1000, 640);
    const HeadGridLayout& l = grid.layout(size);
    const QImage image = picture(grid, size);
    for (const HeadGridTile& t : l.tiles) {
        QVERIFY(!t.rowLabels.isEmpty());
        QVERIFY(grid.columnLabelsFit(t));
        // Dark text pixels in both label strips.
        int rowInk = 0;
        int columnInk = 0;
        for (int y = t.rowLabels.top(); y <= t.rowLabels.bottom(); ++y)
            for (int x = t.rowLabels.left(); x <= t.rowLabels.right(); ++x)
                rowInk += qGray(image.pixel(x, y)) < 100;
        for (int y = t.columnLabels.top(); y <= t.columnLabels.bottom(); ++y)
            for (int x = t.columnLabels.left(); x <= t.columnLabels.right(); ++x)
                columnInk += qGray(image.pixel(x, y)) < 100;
        QVERIFY(rowInk > 50);
        QVERIFY(columnInk > 50);
    }
    QVERIFY(grid.layout(QSize(240, 180)).tiles.front().rowLabels.isEmpty());
}

void TestHeadGridRenderer::captionsGoWhenTilesAreTiny()
{
    // 65 tiles in 240 x 180 with 16 px lines: captions would leave maps of
    // a few pixels, so they go (the tooltips name the heads).
    const HeadGridLayout tiny = HeadGridLayout::compute(QSize(240, 180), 65, 16);
    QVERIFY(tiny.tiles.front().caption.isEmpty());
    const HeadGridLayout large = HeadGridLayout::compute(QSize(1600, 1000), 65, 16);
    QCOMPARE(large.tiles.front().caption.height(), 16 + 2);
    QVERIFY(large.tiles.front().map.width() >= 100);
}

void TestHeadGridRenderer::tilesShowTheirHeadsWeights()
{
    const headresults::Run run = headresults::article(3);
    const attn::MultiHeadResult& r = *run.result;
    HeadGridRenderer grid;
    grid.setResult(run.result, run.tokens);
    QCOMPARE(grid.tileCount(), 4);
    const QSize size(700, 500);
    const QImage image = picture(grid, size);
    const HeadGridLayout& l = grid.layout(size);
    const int n = r.heads.front().tokens();
    QCOMPARE(n, 6);
    int differ = 0;
    for (int h = 0; h < 3; ++h) {
        const attn::Matrix w = r.heads[std::size_t(h)].weightsMatrix();
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                // Six tokens: the linear 0 … 1 scale of the pipeline's weights.
                const QRgb expected = colormap::sequentialRgb(w(i, j), 0.0, 1.0);
                const QPoint p = cellCentre(l.tiles[std::size_t(h)].map, n, i, j);
                QCOMPARE(QColor(image.pixel(p)).name(), QColor(expected).name());
                QCOMPARE(grid.value(h, i, j), w(i, j));
                // Head h's tile is not another head's picture.
                const attn::Matrix other = r.heads[std::size_t((h + 1) % 3)].weightsMatrix();
                if (colormap::sequentialRgb(other(i, j), 0.0, 1.0) != expected)
                    ++differ;
            }
    }
    QVERIFY(differ > 10);
    // The last tile: the engine's average.
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const QPoint p = cellCentre(l.tiles[3].map, n, i, j);
            QCOMPARE(QColor(image.pixel(p)).name(),
                     QColor(colormap::sequentialRgb(r.weightsAverage(i, j), 0.0, 1.0)).name());
        }
    // The selected head's outline, in the highlight colour, just outside its map.
    grid.setSelectedHead(1);
    const QImage selected = picture(grid, size);
    const QRect map = l.tiles[1].map;
    QCOMPARE(QColor(selected.pixel(map.center().x(), map.top() - 1)), QColor(Qt::red));
    QVERIFY(QColor(image.pixel(map.center().x(), map.top() - 1)) != QColor(Qt::red));
}

void TestHeadGridRenderer::tilesShowRawAndScaledScores()
{
    const headresults::Run run = headresults::article(3);
    const attn::MultiHeadResult& r = *run.result;
    HeadGridRenderer grid;
    grid.setResult(run.result, run.tokens);
    const int n = 6;
    for (const HeadMapKind kind : {HeadMapKind::Scores, HeadMapKind::Scaled}) {
        grid.setKind(kind);
        // One range for every head: the largest magnitude over all of them.
        double m = 0.0;
        for (const attn::AttentionResult& head : r.heads) {
            const attn::Matrix s = kind == HeadMapKind::Scores ? head.scores : head.scaledMatrix();
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    if (std::isfinite(s(i, j)))
                        m = std::max(m, std::abs(s(i, j)));
        }
        const QSize size(640, 480);
        const QImage image = picture(grid, size);
        const HeadGridLayout& l = grid.layout(size);
        for (int h = 0; h < 3; ++h) {
            const attn::AttentionResult& head = r.heads[std::size_t(h)];
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    const double v = kind == HeadMapKind::Scores ? head.scores(i, j) : head.scaled(i, j);
                    const QPoint p = cellCentre(l.tiles[std::size_t(h)].map, n, i, j);
                    QCOMPARE(QColor(image.pixel(p)).name(), QColor(colormap::divergingRgb(v, m)).name());
                }
        }
        // The average stays the weights'.
        const QPoint p = cellCentre(l.tiles[3].map, n, 2, 1);
        QCOMPARE(QColor(image.pixel(p)).name(),
                 QColor(colormap::sequentialRgb(r.weightsAverage(2, 1), 0.0, 1.0)).name());
    }
}

void TestHeadGridRenderer::largeMapsAreSampled()
{
    // 600 tokens, 8 heads: each tile shows the cell at each pixel's centre,
    // on the log scale the pipeline uses at this size (10⁻⁵ … 1: at least a
    // hundred times below 1/600).
    const headresults::Run run = headresults::sized(600, 8);
    const attn::MultiHeadResult& r = *run.result;
    HeadGridRenderer grid;
    grid.setResult(run.result, run.tokens);
    const QSize size(900, 600);
    const QImage image = picture(grid, size);
    const HeadGridLayout& l = grid.layout(size);
    QCOMPARE(int(l.tiles.size()), 9);
    const int n = 600;
    for (const int h : {0, 5}) {
        const QRect map = l.tiles[std::size_t(h)].map;
        QVERIFY(map.width() < n);
        const std::vector<int> cols = cellsAtPixels(n, map.width());
        const std::vector<int> rows = cellsAtPixels(n, map.height());
        for (const int px : {3, map.width() / 2, map.width() - 2}) {
            const int py = map.height() / 3;
            const double w = r.heads[std::size_t(h)].weights(rows[std::size_t(py)], cols[std::size_t(px)]);
            QCOMPARE(QColor(image.pixel(map.left() + px, map.top() + py)).name(),
                     QColor(colormap::sequentialLogRgb(w, 1e-5, 1.0)).name());
        }
    }
}

void TestHeadGridRenderer::captionsShortenToFit()
{
    const headresults::Run run = headresults::article(3);
    HeadGridRenderer grid;
    grid.setResult(run.result, run.tokens);
    const QString full = grid.tileCaption(1, 1000);
    QVERIFY2(full.startsWith(QStringLiteral("head 2 · max 0.")), qPrintable(full));
    QCOMPARE(full, QStringLiteral("head 2 · max %1").arg(shareText(run.result->stats[1].meanMaxWeight, 2)));
    const QFontMetrics fm(grid.font());
    // Selected (drawn bold where that fits), the tile keeps its "max": the
    // words are chosen as for its neighbours.
    const int fullWidth = fm.horizontalAdvance(full);
    grid.setSelectedHead(1);
    QCOMPARE(grid.tileCaption(1, fullWidth), full);
    grid.setSelectedHead(-1);
    const int nameOnly = fm.horizontalAdvance(QStringLiteral("head 2"));
    QCOMPARE(grid.tileCaption(1, nameOnly), QStringLiteral("head 2"));
    QCOMPARE(grid.tileCaption(1, fm.horizontalAdvance(QStringLiteral("2"))), QStringLiteral("2"));
    QVERIFY(fm.horizontalAdvance(grid.tileCaption(3, 30)) <= 30);
    QCOMPARE(grid.tileName(3), QStringLiteral("average of 3 heads"));
}

void TestHeadGridRenderer::unchangedHeadsKeepTheirTiles()
{
    // The article's three heads, then head 1's W_q edited and that head
    // alone computed again over a copy (as the session's worker does).
    headresults::Run run = headresults::article(3);
    const std::shared_ptr<const attn::MultiHeadResult> before = run.result;
    run.params.heads[1].Wq(0, 0) += 1.5;
    run.params.heads[1].Wq(2, 1) -= 2.0;
    attn::MultiHeadResult edited = *before;
    QVERIFY(attn::recomputeHeadsInto(run.X, run.params, {1}, {}, &edited));
    auto after = std::make_shared<const attn::MultiHeadResult>(std::move(edited));
    QVERIFY(after->heads[1].weightsMatrix() != before->heads[1].weightsMatrix());
    const QStringList& tokens = run.tokens;
    const QSize size(700, 500);

    for (const HeadMapKind kind : {HeadMapKind::Weights, HeadMapKind::Scores, HeadMapKind::Scaled}) {
        HeadGridRenderer grid;
        grid.setKind(kind);
        grid.setResult(before, tokens);
        picture(grid, size);  // every tile's picture made
        std::vector<const HeatmapRenderer*> tiles;
        for (int t = 0; t < grid.tileCount(); ++t)
            tiles.push_back(&grid.tileMap(t));
        const std::vector<int> changed{1};
        grid.setResult(after, tokens, &changed);
        HeadGridRenderer fresh;
        fresh.setKind(kind);
        fresh.setResult(after, tokens);
        // The picture is the fresh grid's, pixel for pixel, and the numbers its.
        QCOMPARE(picture(grid, size), picture(fresh, size));
        for (int t = 0; t < 4; ++t)
            QCOMPARE(grid.value(t, 3, 2), fresh.value(t, 3, 2));
        QVERIFY(&grid.tileMap(1) != tiles[1]);
        QVERIFY(&grid.tileMap(3) != tiles[3]);  // the average changed too
        // Heads 0 and 2 kept their maps where their colours stay: always
        // for the weights, for the scores while the heads' shared range does.
        if (kind == HeadMapKind::Weights) {
            QVERIFY(&grid.tileMap(0) == tiles[0]);
            QVERIFY(&grid.tileMap(2) == tiles[2]);
        }
    }

    // The kept tiles are the old pictures: told wrongly that no head
    // changed, the grid still shows head 1 as it was.
    HeadGridRenderer grid;
    grid.setResult(before, tokens);
    const QImage old = picture(grid, size);
    const std::vector<int> none;
    grid.setResult(after, tokens, &none);
    const QImage image = picture(grid, size);
    const QRect head1 = grid.layout(size).tiles[1].map;
    const QRect head0 = grid.layout(size).tiles[0].map;
    QCOMPARE(image.copy(head1), old.copy(head1));
    QCOMPARE(image.copy(head0), old.copy(head0));
    HeadGridRenderer fresh;
    fresh.setResult(after, tokens);
    QVERIFY(picture(fresh, size).copy(head1) != old.copy(head1));
}

QTEST_MAIN(TestHeadGridRenderer)
#include "tst_headgridrenderer.moc"
