// SPDX-License-Identifier: GPL-3.0-or-later
// The model grid: the layers x heads tiles at hand-worked places for GPT-2
// small's 12 x 12 and the tiny checkpoint's 2 x 4, inside the picture and
// apart; hit testing at every tile and in the gaps; each tile showing its
// own head's weights from the tiny checkpoint's real pass (against the
// reference file and the colour map at the cells' centres); the selected
// and hovered outlines; the ranking overlay's numbers and marks.

#include "colormap.h"
#include "modelgridlayout.h"
#include "modelgridrenderer.h"
#include "tiletokenlabels.h"
#include "tinygpt2run.h"

#include <QFontMetrics>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QTest>

using namespace attnlab;

class TestModelGridRenderer : public QObject {
    Q_OBJECT
private slots:
    void gpt2SmallAtTheWindowSize();
    void keyValueGroups();
    void tilesFitApart_data();
    void tilesFitApart();
    void hitTesting();
    void tilesShowTheirHeadsWeights();
    void selectedAndHoveredOutlines();
    void rankingOverlay();
    void noResultNoTiles();
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

QImage picture(const ModelGridRenderer& r, const QSize& size)
{
    QImage image(size, QImage::Format_RGB32);
    QPainter painter(&image);
    r.paint(painter, size, exportStyle(), Qt::red);
    return image;
}

QPoint cellCentre(const QRect& map, int n, int row, int col)
{
    return {map.left() + int((col + 0.5) * map.width() / n), map.top() + int((row + 0.5) * map.height() / n)};
}

}  // namespace

void TestModelGridRenderer::gpt2SmallAtTheWindowSize()
{
    // 1024 x 700, 16 px lines, "L12" 30 px wide. By hand: pad 4; legend
    // (4, 680, 1016, 16), the grid above y = 676; labels take 20 px on top
    // and 38 on the left, leaving 982 x 656 from (38, 20); a cell of
    // min(982 / 12, 656 / 12) = 54 gives a gap of 5, maps of
    // min((982 - 55) / 12, (656 - 55) / 12) = 50, a grid of 655 x 655
    // centred from x = 38 + (982 - 655) / 2 = 201, y = 20 + 1 / 2 = 20.
    const ModelGridLayout l = ModelGridLayout::compute(QSize(1024, 700), 12, 12, 16, 30);
    QCOMPARE(l.legend, QRect(4, 680, 1016, 16));
    QCOMPARE(l.gap, 5);
    QCOMPARE(l.side, 50);
    QCOMPARE(l.tile(0, 0), QRect(201, 20, 50, 50));
    QCOMPARE(l.tile(0, 11), QRect(201 + 11 * 55, 20, 50, 50));
    QCOMPARE(l.tile(11, 0), QRect(201, 20 + 11 * 55, 50, 50));
    QCOMPARE(l.tile(11, 11), QRect(806, 625, 50, 50));
    QCOMPARE(l.tile(4, 7), QRect(201 + 7 * 55, 20 + 4 * 55, 50, 50));
    QCOMPARE(l.layerLabels[3], QRect(201 - 38, 20 + 3 * 55, 34, 50));
    QCOMPARE(l.headLabels[5], QRect(201 + 5 * 55, 0, 50, 16));
    // The tiny model's 2 x 4: cells of min(982 / 4, 656 / 2) = 245 give a
    // gap of 8 (half a line), maps of min((982 - 24) / 4, (656 - 8) / 2) = 239.
    const ModelGridLayout tiny = ModelGridLayout::compute(QSize(1024, 700), 2, 4, 16, 30);
    QCOMPARE(tiny.gap, 8);
    QCOMPARE(tiny.side, 239);
    QCOMPARE(tiny.tile(1, 3).bottomRight(), tiny.tile(0, 0).topLeft() + QPoint(3 * 247 + 238, 247 + 238));
}

void TestModelGridRenderer::keyValueGroups()
{
    // Without groups (GPT-2, kvHeads = heads, or a count that does not divide
    // the heads) the layout is unchanged: the tiny model's 2 x 4 as above.
    const ModelGridLayout plain = ModelGridLayout::compute(QSize(1024, 700), 2, 4, 16, 30);
    for (const int kv : {0, 4, 3, 8}) {
        const ModelGridLayout l = ModelGridLayout::compute(QSize(1024, 700), 2, 4, 16, 30, 0, 0, kv);
        QVERIFY(l.groupLabels.empty());
        QCOMPARE(l.tiles, plain.tiles);
        QCOMPARE(l.headLabels, plain.headLabels);
    }
    // 4 query heads on 2 K/V heads: a second label line (16 + 4 px), so the
    // cells are min(982 / 4, (656 - 20) / 2) = 245 again, gap 8, maps
    // min((982 - 24) / 4, (636 - 8) / 2) = 239 still; one label over H1-H2,
    // one over H3-H4, on the line above the head labels.
    const ModelGridLayout g = ModelGridLayout::compute(QSize(1024, 700), 2, 4, 16, 30, 0, 0, 2);
    QCOMPARE(g.side, 239);
    QCOMPARE(int(g.groupLabels.size()), 2);
    for (int kv = 0; kv < 2; ++kv) {
        const QRect& r = g.groupLabels[std::size_t(kv)];
        QCOMPARE(r.left(), g.tile(0, 2 * kv).left());
        QCOMPARE(r.right(), g.tile(0, 2 * kv + 1).right());
        QCOMPARE(r.height(), 16);
        QCOMPARE(r.bottom() + 1 + 4, g.headLabels[std::size_t(2 * kv)].top());
    }
    QVERIFY(g.groupLabels[0].right() < g.groupLabels[1].left());
    // One K/V head for all (multi-query attention): one label over every head.
    const ModelGridLayout one = ModelGridLayout::compute(QSize(1024, 700), 2, 4, 16, 30, 0, 0, 1);
    QCOMPARE(int(one.groupLabels.size()), 1);
    QCOMPARE(one.groupLabels[0].left(), one.tile(0, 0).left());
    QCOMPARE(one.groupLabels[0].right(), one.tile(0, 3).right());
}

void TestModelGridRenderer::tilesFitApart_data()
{
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("heads");
    QTest::addColumn<QSize>("size");
    for (const auto& [layers, heads] :
         {std::pair{12, 12}, std::pair{2, 4}, std::pair{24, 16}, std::pair{48, 25}})
        for (const QSize size : {QSize(1024, 700), QSize(400, 300), QSize(1600, 1000), QSize(300, 1200)})
            QTest::addRow("%dx%d_%dx%d", layers, heads, size.width(), size.height())
                << layers << heads << size;
}

void TestModelGridRenderer::tilesFitApart()
{
    QFETCH(int, layers);
    QFETCH(int, heads);
    QFETCH(QSize, size);
    const ModelGridLayout l = ModelGridLayout::compute(size, layers, heads, 16, 30);
    QCOMPARE(int(l.tiles.size()), layers * heads);
    QVERIFY(l.side > 0);
    const QRect picture(QPoint(0, 0), size);
    for (std::size_t i = 0; i < l.tiles.size(); ++i) {
        const QRect& t = l.tiles[i];
        QCOMPARE(t.width(), t.height());
        QVERIFY(picture.contains(t));
        QVERIFY(!t.intersects(l.legend));
        for (const QRect& label : l.layerLabels)
            QVERIFY(!t.intersects(label));
        for (const QRect& label : l.headLabels)
            QVERIFY(!t.intersects(label));
        // Apart by the gap, which leaves room for a 2 px outline.
        for (std::size_t j = i + 1; j < l.tiles.size(); ++j)
            QVERIFY(!t.adjusted(-1, -1, 1, 1).intersects(l.tiles[j].adjusted(-1, -1, 1, 1)));
    }
    QVERIFY(l.gap >= 3);
    for (const QRect& label : l.layerLabels)
        QVERIFY(picture.contains(label));
    for (const QRect& label : l.headLabels)
        QVERIFY(picture.contains(label));
    if (!l.legend.isEmpty())
        QVERIFY(picture.contains(l.legend));
    // The maps use the room: in the limiting direction, what the grid
    // leaves is the labels and the legend (under 60 px here) and less than
    // a pixel per map.
    const int gridWidth = heads * l.side + (heads - 1) * l.gap;
    const int gridHeight = layers * l.side + (layers - 1) * l.gap;
    QVERIFY(size.width() - gridWidth < heads + 60 || size.height() - gridHeight < layers + 60);
}

void TestModelGridRenderer::hitTesting()
{
    const tinygpt2::Run run = tinygpt2::run();
    ModelGridRenderer grid;
    QFont font;
    font.setPixelSize(13);
    grid.setFont(font);
    grid.setResult(run.result, run.tokens);
    QCOMPARE(grid.layerCount(), 2);
    QCOMPARE(grid.headCount(), 4);
    QCOMPARE(grid.tokens(), 10);
    const QSize size(1024, 700);
    const ModelGridLayout& l = grid.layout(size);
    for (int layer = 0; layer < 2; ++layer)
        for (int head = 0; head < 4; ++head) {
            const QRect t = grid.tileRect(size, layer, head);
            QCOMPARE(t, l.tile(layer, head));
            for (const QPoint p : {t.topLeft(), t.center(), t.bottomRight()}) {
                int gotLayer = -1;
                int gotHead = -1;
                QVERIFY(grid.tileAt(size, p, &gotLayer, &gotHead));
                QCOMPARE(gotLayer, layer);
                QCOMPARE(gotHead, head);
            }
            // Just outside: the gap, the labels, nothing.
            int a = 0;
            int b = 0;
            if (head < 3)
                QVERIFY(!grid.tileAt(size, t.topRight() + QPoint(1, 0), &a, &b));
            if (layer < 1)
                QVERIFY(!grid.tileAt(size, t.bottomLeft() + QPoint(0, 1), &a, &b));
        }
    int a = 0;
    int b = 0;
    QVERIFY(!grid.tileAt(size, QPoint(0, 0), &a, &b));
    QVERIFY(!grid.tileAt(size, l.tile(0, 0).topLeft() - QPoint(1, 1), &a, &b));
    QVERIFY(!grid.tileAt(size, l.tile(1, 3).bottomRight() + QPoint(1, 1), &a, &b));
    QCOMPARE(grid.tileRect(size, 2, 0), QRect());
    QCOMPARE(grid.tileRect(size, 0, -1), QRect());
    // The cell under a point: row 9 ("␣new"), column 5 ("␣cinema") of L2 H3.
    const QRect t = l.tile(1, 2);
    int layer = -1;
    int head = -1;
    int row = -1;
    int col = -1;
    QVERIFY(grid.cellAt(size, cellCentre(t, 10, 9, 5), &layer, &head, &row, &col));
    QCOMPARE(QList<int>({layer, head, row, col}), QList<int>({1, 2, 9, 5}));
    QCOMPARE(run.tokens[9], QStringLiteral("␣new"));
    QCOMPARE(run.tokens[5], QStringLiteral("␣cinema"));
    QVERIFY(grid.cellText(1, 2, 9, 5).startsWith(QStringLiteral("layer 2 · head 3: “␣new” → “␣cinema” 0.")));
    QVERIFY(grid.cellText(1, 2, 3, 5).endsWith(QStringLiteral("masked")));
}

void TestModelGridRenderer::tilesShowTheirHeadsWeights()
{
    const tinygpt2::Run run = tinygpt2::run();
    ModelGridRenderer grid;
    grid.setResult(run.result, run.tokens);
    const QSize size(1024, 700);
    const QImage image = picture(grid, size);
    const ModelGridLayout& l = grid.layout(size);
    const int n = 10;
    int differ = 0;
    for (int layer = 0; layer < 2; ++layer)
        for (int head = 0; head < 4; ++head)
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    const double w = tinygpt2::referenceWeight(run, layer, head, i, j);
                    QVERIFY(std::abs(grid.value(layer, head, i, j) - w) <= 1e-12);
                    // Ten tokens: the linear 0 … 1 scale.
                    const QRgb expected = colormap::sequentialRgb(grid.value(layer, head, i, j), 0.0, 1.0);
                    const QPoint p = cellCentre(l.tile(layer, head), n, i, j);
                    QCOMPARE(QColor(image.pixel(p)).name(), QColor(expected).name());
                    const double other = tinygpt2::referenceWeight(run, layer, (head + 1) % 4, i, j);
                    if (colormap::sequentialRgb(other, 0.0, 1.0) != expected)
                        ++differ;
                }
    QVERIFY(differ > 100);
    // A known cell: layer 1, head 1, "Jane" attending to itself is weight 1
    // (the causal mask leaves the first query one key), the deep blue end;
    // the masked cell above it is white.
    QCOMPARE(grid.value(0, 0, 0, 0), 1.0);
    QCOMPARE(image.pixel(cellCentre(l.tile(0, 0), n, 0, 0)), colormap::kSequentialHigh);
    QCOMPARE(image.pixel(cellCentre(l.tile(0, 0), n, 0, 1)), colormap::kSequentialLow);
}

void TestModelGridRenderer::selectedAndHoveredOutlines()
{
    const tinygpt2::Run run = tinygpt2::run();
    ModelGridRenderer grid;
    grid.setResult(run.result, run.tokens);
    const QSize size(1024, 700);
    const QImage plain = picture(grid, size);
    grid.setSelectedTile(1, 2);
    grid.setHoveredTile(0, 3);
    QCOMPARE(grid.selectedLayer(), 1);
    QCOMPARE(grid.selectedHead(), 2);
    const QImage image = picture(grid, size);
    const QRect selected = grid.tileRect(size, 1, 2);
    const QRect hovered = grid.tileRect(size, 0, 3);
    QCOMPARE(QColor(image.pixel(selected.center().x(), selected.top() - 1)), QColor(Qt::red));
    QCOMPARE(QColor(image.pixel(selected.left() - 2, selected.center().y())), QColor(Qt::red));
    QVERIFY(QColor(plain.pixel(selected.center().x(), selected.top() - 1)) != QColor(Qt::red));
    QCOMPARE(QColor(image.pixel(hovered.center().x(), hovered.top() - 2)), QColor(Qt::black));
    QCOMPARE(QColor(plain.pixel(hovered.center().x(), hovered.top() - 2)), QColor(Qt::white));
    // Out of range: none.
    grid.setSelectedTile(2, 0);
    QCOMPARE(grid.selectedLayer(), -1);
    QCOMPARE(grid.selectedHead(), -1);
}

void TestModelGridRenderer::rankingOverlay()
{
    const tinygpt2::Run run = tinygpt2::run();
    ModelGridRenderer grid;
    QFont font;
    font.setPixelSize(13);
    grid.setFont(font);
    grid.setResult(run.result, run.tokens);
    // The lesson's table: the weight from the last token ("␣new", 9) to
    // "␣cinema" (5) in every head.
    attn::Matrix table(2, 4);
    for (int layer = 0; layer < 2; ++layer)
        for (int head = 0; head < 4; ++head)
            table(layer, head) =
                run.result->layers[std::size_t(layer)].heads[std::size_t(head)].weights(9, 5);
    grid.setRanking(table, QStringLiteral("weight from “␣new” to “␣cinema”"), 2);
    QVERIFY(grid.hasRanking());
    // The two largest by an independent pass over the table.
    int best = 0;
    for (int i = 1; i < 8; ++i)
        if (table(i / 4, i % 4) > table(best / 4, best % 4))
            best = i;
    int second = best == 0 ? 1 : 0;
    for (int i = 0; i < 8; ++i)
        if (i != best && table(i / 4, i % 4) > table(second / 4, second % 4))
            second = i;
    QCOMPARE(grid.markedTiles(), std::vector<int>({best, second}));
    QVERIFY(grid.legendText().endsWith(QStringLiteral("numbers: weight from “␣new” to “␣cinema”")));
    const QSize size(1024, 700);
    const QImage image = picture(grid, size);
    // A marked tile's number sits on the text colour, an unmarked one's on white.
    const QRect marked = grid.tileRect(size, best / 4, best % 4);
    QCOMPARE(QColor(image.pixel(marked.center().x(), marked.bottom() - 1)), QColor(Qt::black));
    int plain = 0;
    while (plain == best || plain == second)
        ++plain;
    const QRect other = grid.tileRect(size, plain / 4, plain % 4);
    QCOMPARE(QColor(image.pixel(other.center().x() - 1, other.bottom() - 1)).name(),
             QColor(Qt::white).name());
    // A table of another shape clears it.
    grid.setRanking(attn::Matrix::Zero(4, 2), QStringLiteral("wrong"));
    QVERIFY(!grid.hasRanking());
    QVERIFY(grid.markedTiles().empty());
}

void TestModelGridRenderer::noResultNoTiles()
{
    ModelGridRenderer grid;
    QCOMPARE(grid.layerCount(), 0);
    int a = 0;
    int b = 0;
    QVERIFY(!grid.tileAt(QSize(400, 300), QPoint(200, 150), &a, &b));
    const QImage image = picture(grid, QSize(400, 300));
    QCOMPARE(QColor(image.pixel(5, 5)), QColor(Qt::white));
}

// Token labels by the head grid's rule: with their room taken (the widest
// label 60 of at most six lines, plus a pad of 4; a line plus 2 above) each
// row of the tile still has a 16 px line.
void TestModelGridRenderer::tokenLabelsWhereTheyFit()
{
    // The tiny model's 2 x 4 over ten tokens at 1600 x 1000: the area is
    // 1558 x 956 from (38, 20) (as at the window's size), a gap of 8, maps
    // of min((1558 - 24) / 4 - 64, (956 - 8) / 2 - 18) = 319 >= 10 x 16.
    const ModelGridLayout l = ModelGridLayout::compute(QSize(1600, 1000), 2, 4, 16, 30, 10, 60);
    QVERIFY(l.tokenLabels());
    QCOMPARE(l.side, 319);
    QCOMPARE(l.tileStep, QSize(64 + 319 + 8, 18 + 319 + 8));
    // The grid (4 x 391 - 8 = 1556 wide, 2 x 345 - 8 = 682 high) centred:
    // x = 38 + 1 + 64, y = 20 + 137 + 18.
    QCOMPARE(l.tile(0, 0), QRect(103, 175, 319, 319));
    QCOMPARE(l.rowLabels[0], QRect(39, 175, 60, 319));
    QCOMPARE(l.columnLabels[0], QRect(103, 157, 319, 18));
    QCOMPARE(l.headLabels[0], QRect(103, 137, 319, 16));
    QCOMPARE(l.layerLabels[1], QRect(39 - 38, 175 + 345, 34, 319));
    const QRect picture(QPoint(0, 0), QSize(1600, 1000));
    for (std::size_t i = 0; i < l.tiles.size(); ++i) {
        QVERIFY(picture.contains(l.rowLabels[i]) && picture.contains(l.columnLabels[i]));
        QVERIFY(l.rowLabels[i].right() < l.tiles[i].left());
        QVERIFY(l.columnLabels[i].bottom() < l.tiles[i].top());
        for (std::size_t j = 0; j < l.tiles.size(); ++j)
            QVERIFY(!l.rowLabels[i].intersects(l.tiles[j]) && !l.columnLabels[i].intersects(l.tiles[j]));
    }
    // Hit testing skips the labels.
    int layer = -1;
    int head = -1;
    QVERIFY(l.tileAt(l.tile(1, 2).topLeft(), &layer, &head));
    QCOMPARE(QList<int>({layer, head}), QList<int>({1, 2}));
    QVERIFY(!l.tileAt(l.rowLabels[6].center(), &layer, &head));
    QVERIFY(!l.tileAt(l.columnLabels[6].center(), &layer, &head));
    // GPT-2 small's 12 x 12 at the window's size: maps of 50 px hold no
    // ten lines, and the layout is the unlabelled one.
    const ModelGridLayout small = ModelGridLayout::compute(QSize(1024, 700), 12, 12, 16, 30, 10, 60);
    QVERIFY(!small.tokenLabels());
    QCOMPARE(small.side, 50);
    QCOMPARE(small.tile(0, 0), QRect(201, 20, 50, 50));
    // Nor do 30 tokens (480 px) in the tiny model's maps.
    QVERIFY(!ModelGridLayout::compute(QSize(1600, 1000), 2, 4, 16, 30, 30, 60).tokenLabels());
}

// The tiny model's tiles at 2400 x 1400 name their queries and keys in the
// text colour; at 400 x 300 the maps are too small for ten lines.
void TestModelGridRenderer::tilesCarryTheirTokens()
{
    const tinygpt2::Run run = tinygpt2::run();
    ModelGridRenderer grid;
    QFont font;
    font.setPixelSize(13);
    grid.setFont(font);
    grid.setResult(run.result, run.tokens);
    // Wide enough for the keys' labels above the maps too (32 px columns
    // at 1600 x 1000 are not: " cinema" would keep under two letters).
    const QSize size(2400, 1400);
    const ModelGridLayout& l = grid.layout(size);
    QVERIFY(l.tokenLabels());
    QVERIFY(tileColumnLabelsFit(QFontMetrics(font), run.tokens, l.side));
    const QImage image = picture(grid, size);
    const auto ink = [&image](const QRect& r) {
        int dark = 0;
        for (int y = r.top(); y <= r.bottom(); ++y)
            for (int x = r.left(); x <= r.right(); ++x)
                dark += qGray(image.pixel(x, y)) < 100;
        return dark;
    };
    for (std::size_t i = 0; i < l.tiles.size(); ++i) {
        QVERIFY(ink(l.rowLabels[i]) > 50);
        QVERIFY(ink(l.columnLabels[i]) > 50);
    }
    // The selected tile keeps its outline over the labelled layout.
    grid.setSelectedTile(1, 2);
    const QImage selected = picture(grid, size);
    const QRect t = l.tile(1, 2);
    QCOMPARE(QColor(selected.pixel(t.left() - 1, t.center().y())), QColor(Qt::red));
    // Too small for ten lines a map: no labels, the unlabelled layout.
    const QSize small(400, 300);
    QVERIFY(!grid.layout(small).tokenLabels());
    QCOMPARE(grid.layout(small).side,
             ModelGridLayout::compute(small, 2, 4, QFontMetrics(font).height(),
                                      QFontMetrics(font).horizontalAdvance(QStringLiteral("L2")))
                 .side);
}

QTEST_MAIN(TestModelGridRenderer)
#include "tst_modelgridrenderer.moc"
