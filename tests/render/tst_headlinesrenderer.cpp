// SPDX-License-Identifier: GPL-3.0-or-later
// The head view on the tiny checkpoint's real pass: its lines are the
// layer's weights (every unmasked one, then those above the threshold, the
// strongest under the cap), heads switched off draw nothing, a hovered
// query or key keeps only its own lines, a line's pixels are its head's
// colour at its weight's opacity; the columns' hit testing; and 1024
// tokens capped to the strongest lines with labels thinned out.

#include "headlinesrenderer.h"
#include "tinygpt2run.h"

#include <QElapsedTimer>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace attnlab;

class TestHeadLinesRenderer : public QObject {
    Q_OBJECT
private slots:
    void linesAreTheLayersWeights();
    void thresholdAndCap();
    void headMask();
    void hoveredQueryAndKey();
    void linePixels();
    void hitTesting();
    void screenKeepsTheLinesAsAnImage();
    void longSentenceIsCapped();
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

QImage picture(const HeadLinesRenderer& r, const QSize& size)
{
    QImage image(size, QImage::Format_RGB32);
    QPainter painter(&image);
    r.paint(painter, size, exportStyle(), Qt::red);
    return image;
}

// Every (head, query, key) of `layer` with a weight of at least `min`, by
// an independent pass over the weights matrices.
std::vector<HeadLinesRenderer::Line> allLines(const attn::DecoderResult& r, int layer, double min)
{
    std::vector<HeadLinesRenderer::Line> out;
    const auto& heads = r.layers[std::size_t(layer)].heads;
    for (int h = 0; h < int(heads.size()); ++h) {
        const attn::Matrix w = heads[std::size_t(h)].weightsMatrix();
        for (int q = 0; q < w.rows(); ++q)
            for (int k = 0; k <= q; ++k)
                if (w(q, k) >= min && w(q, k) > 0.0)
                    out.push_back({h, q, k, w(q, k)});
    }
    return out;
}

}  // namespace

void TestHeadLinesRenderer::linesAreTheLayersWeights()
{
    const tinygpt2::Run run = tinygpt2::run();
    HeadLinesRenderer view;
    view.setResult(run.result, run.tokens);
    view.setLayer(1);
    view.setMinWeight(0.0);
    QCOMPARE(view.layer(), 1);
    QCOMPARE(view.headCount(), 4);
    // Causal: 1 + 2 + … + 10 = 55 keys per head, every weight positive.
    const auto expected = allLines(*run.result, 1, 0.0);
    QCOMPARE(int(expected.size()), 4 * 55);
    QCOMPARE(int(view.lines().size()), 4 * 55);
    QCOMPARE(view.candidateLines(), 220LL);
    for (const auto& line : view.lines()) {
        QVERIFY(line.key <= line.query);
        QVERIFY(std::abs(line.weight - tinygpt2::referenceWeight(run, 1, line.head, line.query, line.key))
                <= 1e-12);
    }
    // Weakest first, so the strongest are drawn on top.
    for (std::size_t i = 1; i < view.lines().size(); ++i)
        QVERIFY(view.lines()[i - 1].weight <= view.lines()[i].weight);
    QCOMPARE(view.captionText(),
             QStringLiteral("Layer 2 of 2 · 4 of 4 heads · line opacity = attention weight"));
    // Out of range: clamped.
    view.setLayer(7);
    QCOMPARE(view.layer(), 1);
}

void TestHeadLinesRenderer::thresholdAndCap()
{
    const tinygpt2::Run run = tinygpt2::run();
    HeadLinesRenderer view;
    view.setResult(run.result, run.tokens);
    view.setMinWeight(0.1);
    const auto above = allLines(*run.result, 0, 0.1);
    QVERIFY(above.size() > 20 && above.size() < 220);
    QCOMPARE(int(view.lines().size()), int(above.size()));
    QVERIFY(view.captionText().endsWith(QStringLiteral(" · weights ≥ 0.1")));
    // The five strongest of them.
    view.setMaxLines(5);
    std::vector<double> weights;
    for (const auto& line : above)
        weights.push_back(line.weight);
    std::sort(weights.begin(), weights.end());
    QCOMPARE(int(view.lines().size()), 5);
    for (int i = 0; i < 5; ++i)
        QCOMPARE(view.lines()[std::size_t(i)].weight, weights[weights.size() - 5 + std::size_t(i)]);
    QCOMPARE(view.candidateLines(), (long long)above.size());
    QVERIFY(view.captionText().endsWith(
        QStringLiteral(" · the 5 strongest of %1 lines ≥ 0.1").arg(above.size())));
}

void TestHeadLinesRenderer::headMask()
{
    const tinygpt2::Run run = tinygpt2::run();
    HeadLinesRenderer view;
    view.setResult(run.result, run.tokens);
    view.setMinWeight(0.0);
    view.setHeadMask({true, false, true});
    QVERIFY(view.headShown(0));
    QVERIFY(!view.headShown(1));
    QVERIFY(view.headShown(3));  // beyond the mask
    QCOMPARE(int(view.lines().size()), 3 * 55);
    for (const auto& line : view.lines())
        QVERIFY(line.head != 1);
    QVERIFY(view.captionText().contains(QStringLiteral("3 of 4 heads")));
    // The legend: head 2's swatch is hollow, head 1's filled with its colour.
    const QSize size(800, 500);
    const QImage image = picture(view, size);
    const HeadLinesLayout& l = view.layout(size);
    QCOMPARE(int(l.legend.size()), 4);
    const auto swatchCentre = [&](int h) {
        const QRect& r = l.legend[std::size_t(h)];
        return QPoint(r.left() + r.height() * 7 / 20, r.center().y());
    };
    QCOMPARE(QColor(image.pixel(swatchCentre(0))), HeadLinesRenderer::headColor(0));
    QCOMPARE(QColor(image.pixel(swatchCentre(1))), QColor(Qt::white));
    QCOMPARE(view.legendHeadAt(size, swatchCentre(2)), 2);
    QCOMPARE(view.legendHeadAt(size, QPoint(size.width() - 2, l.legend[0].center().y())), -1);
}

void TestHeadLinesRenderer::hoveredQueryAndKey()
{
    const tinygpt2::Run run = tinygpt2::run();
    HeadLinesRenderer view;
    view.setResult(run.result, run.tokens);
    view.setLayer(1);
    view.setMinWeight(0.0);
    view.setHoveredToken(9);  // "␣new": where it looks
    QCOMPARE(int(view.lines().size()), 4 * 10);
    for (const auto& line : view.lines())
        QCOMPARE(line.query, 9);
    view.setHoveredToken(5, true);  // "␣cinema": who looks at it (queries 5..9)
    QVERIFY(view.hoveredKeySide());
    QCOMPARE(int(view.lines().size()), 4 * 5);
    for (const auto& line : view.lines()) {
        QCOMPARE(line.key, 5);
        QVERIFY(line.query >= 5);
    }
    view.setHoveredToken(10);  // out of range: none
    QCOMPARE(view.hoveredToken(), -1);
    QCOMPARE(int(view.lines().size()), 220);
}

void TestHeadLinesRenderer::linePixels()
{
    const tinygpt2::Run run = tinygpt2::run();
    HeadLinesRenderer view;
    QFont font;
    font.setPixelSize(13);
    view.setFont(font);
    view.setResult(run.result, run.tokens);
    view.setLayer(1);
    // Head 3 alone from "␣new": its lines fan out, apart at their middles.
    view.setHeadMask({false, false, true, false});
    view.setHoveredToken(9);
    view.setMinWeight(0.0);
    const QSize size(1024, 700);
    const QImage image = picture(view, size);
    const HeadLinesLayout& l = view.layout(size);
    const QColor c = HeadLinesRenderer::headColor(2);
    int checked = 0;
    for (const auto& line : view.lines()) {
        const double x = (l.queryAnchor() + l.keyAnchor()) / 2;
        const double y = (l.rowCentre(line.query) + l.rowCentre(line.key)) / 2;
        // The line's colour over white at its weight's opacity.
        const QColor got(image.pixel(int(std::floor(x)), int(std::floor(y))));
        const auto blend = [&](int channel) { return 255 * (1 - line.weight) + channel * line.weight; };
        QVERIFY2(std::abs(got.red() - blend(c.red())) <= 12 && std::abs(got.green() - blend(c.green())) <= 12
                     && std::abs(got.blue() - blend(c.blue())) <= 12,
                 qPrintable(
                     QStringLiteral("key %1 weight %2: %3").arg(line.key).arg(line.weight).arg(got.name())));
        ++checked;
    }
    QCOMPARE(checked, 10);
}

void TestHeadLinesRenderer::hitTesting()
{
    const tinygpt2::Run run = tinygpt2::run();
    HeadLinesRenderer view;
    view.setResult(run.result, run.tokens);
    const QSize size(1024, 700);
    const HeadLinesLayout& l = view.layout(size);
    QCOMPARE(l.tokens, 10);
    QCOMPARE(l.labelStep, 1);
    QVERIFY(l.queries.right() < l.keys.left());
    QCOMPARE(l.rowHeight, double(l.queries.height()) / 10);
    for (int i = 0; i < 10; ++i) {
        bool key = true;
        QCOMPARE(view.tokenAt(size, QPoint(l.queries.center().x(), int(l.rowCentre(i))), &key), i);
        QVERIFY(!key);
        QCOMPARE(view.tokenAt(size, QPoint(l.keys.center().x(), int(l.rowCentre(i))), &key), i);
        QVERIFY(key);
    }
    bool key = false;
    QCOMPARE(view.tokenAt(size, QPoint(size.width() / 2, int(l.rowCentre(3))), &key), -1);
    QCOMPARE(view.tokenAt(size, QPoint(l.queries.center().x(), l.queries.top() - 1), &key), -1);
    QVERIFY(QRect(QPoint(0, 0), size).contains(l.queries));
    QVERIFY(QRect(QPoint(0, 0), size).contains(l.keys));
}

void TestHeadLinesRenderer::screenKeepsTheLinesAsAnImage()
{
    const tinygpt2::Run run = tinygpt2::run();
    HeadLinesRenderer view;
    view.setResult(run.result, run.tokens);
    const QSize size(800, 600);
    HeatmapStyle screen = exportStyle();
    screen.screen = true;
    const auto draw = [&](const HeatmapStyle& style) {
        QImage image(size, QImage::Format_RGB32);
        QPainter painter(&image);
        view.paint(painter, size, style, Qt::red);
        return image;
    };
    // The kept image gives the lines the export draws, within rounding.
    const QImage vector = draw(exportStyle());
    const QImage first = draw(screen);
    const QImage again = draw(screen);
    QCOMPARE(again, first);
    int differ = 0;
    for (int y = 0; y < size.height(); ++y)
        for (int x = 0; x < size.width(); ++x) {
            const QColor a(vector.pixel(x, y));
            const QColor b(first.pixel(x, y));
            if (std::abs(a.red() - b.red()) > 3 || std::abs(a.green() - b.green()) > 3
                || std::abs(a.blue() - b.blue()) > 3)
                ++differ;
        }
    QCOMPARE(differ, 0);
    // A change of the lines draws them again.
    view.setHoveredToken(9);
    QVERIFY(draw(screen) != first);
    view.setHoveredToken(-1);
    QCOMPARE(draw(screen), first);
}

void TestHeadLinesRenderer::longSentenceIsCapped()
{
    // 1024 tokens through four causal heads of a plain X (no model): about
    // two million lines, of which the 2000 strongest are kept.
    const int n = 1024;
    attn::Matrix X(n, 8);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < 8; ++j)
            X(i, j) = std::sin(0.37 * (i + 1) * (j + 1)) * 2.0;
    auto result = std::make_shared<attn::DecoderResult>();
    result->tokenIds.assign(std::size_t(n), 0);
    result->layers.resize(1);
    attn::AttentionOptions options;
    options.causal = true;
    for (int h = 0; h < 4; ++h) {
        attn::Matrix W = attn::Matrix::Identity(8, 8) * (1.0 + h);
        auto head = attn::computeAttention(X, W, W.transpose(), W, options);
        QVERIFY(head.ok());
        result->layers[0].heads.push_back(std::move(head).value());
    }
    QStringList tokens;
    for (int i = 0; i < n; ++i)
        tokens << QStringLiteral("t%1").arg(i);
    HeadLinesRenderer view;
    view.setResult(result, tokens);
    view.setMinWeight(0.0);
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(int(view.lines().size()), HeadLinesRenderer::kDefaultMaxLines);
    QCOMPARE(view.candidateLines(), 4LL * n * (n + 1) / 2);
    // The kept are the strongest: no dropped weight is above the weakest kept.
    const double weakest = view.lines().front().weight;
    long long stronger = 0;
    for (const attn::AttentionResult& head : result->layers[0].heads) {
        const attn::Matrix w = head.weightsMatrix();
        for (int q = 0; q < n; ++q)
            for (int k = 0; k <= q; ++k)
                stronger += w(q, k) > weakest ? 1 : 0;
    }
    QVERIFY(stronger < HeadLinesRenderer::kDefaultMaxLines);
    const QSize size(1024, 700);
    const QImage image = picture(view, size);
    // A label every labelStep rows: the rows are below a line's height.
    QVERIFY(view.layout(size).labelStep > 10);
    QVERIFY(view.captionText().contains(QStringLiteral("the 2000 strongest of 2099200 lines")));
    // Choosing and drawing them is not a hang (about 0.1 s here).
    QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
}

QTEST_MAIN(TestHeadLinesRenderer)
#include "tst_headlinesrenderer.moc"
