// SPDX-License-Identifier: GPL-3.0-or-later
// The next-token panel on the tiny checkpoint's real top 10: bars whose
// lengths are the probabilities over the largest, drawn in the bar colour
// to their ends; the caption's softmax and temperature; percent texts.

#include "nexttokenrenderer.h"
#include "tinygpt2run.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QTest>

#include <cmath>

using namespace attnlab;

class TestNextTokenRenderer : public QObject {
    Q_OBJECT
private slots:
    void barsProportionalToProbabilities();
    void temperatureInTheCaption();
    void valuesFitTheWidth();
    void rowsGetALineEach();
    void percentText_data();
    void percentText();
};

namespace {

QStringList topLabels(const tinygpt2::Run& run)
{
    QStringList labels;
    for (const attn::TopToken& t : run.result->top)
        labels << run.tokenizer.token(t.id).display;
    return labels;
}

}  // namespace

void TestNextTokenRenderer::barsProportionalToProbabilities()
{
    const tinygpt2::Run run = tinygpt2::run();
    const auto& top = run.result->top;
    QCOMPARE(int(top.size()), 10);
    // reference.json's top of the lesson sentence.
    QCOMPARE(top[0].id, run.reference["last_logits_top5"][0]["id"].toInt());
    NextTokenRenderer panel;
    QFont font;
    font.setPixelSize(13);
    panel.setFont(font);
    panel.setPrediction(top, topLabels(run), 1.0, run.tokens.back());
    QCOMPARE(panel.entries()[0].text, run.tokenizer.token(top[0].id).display);
    const QSize size(700, 400);
    const NextTokenRenderer::Layout& l = panel.layout(size);
    const int full = l.bars[0].width();
    QVERIFY(full > 200);
    QCOMPARE(panel.barRect(size, 0).width(), full);
    for (int i = 0; i < 10; ++i) {
        const QRect b = panel.barRect(size, i);
        QCOMPARE(b.left(), l.bars[0].left());
        QVERIFY(std::abs(b.width() - top[std::size_t(i)].probability / top[0].probability * full) <= 0.5);
        if (i > 0)
            QVERIFY(b.top() > panel.barRect(size, i - 1).bottom());
    }
    QImage image(size, QImage::Format_RGB32);
    QPainter painter(&image);
    HeatmapStyle style;
    style.background = Qt::white;
    style.text = Qt::black;
    style.frame = Qt::gray;
    panel.paint(painter, size, style, Qt::blue);
    painter.end();
    for (int i = 0; i < 10; ++i) {
        const QRect b = panel.barRect(size, i);
        QCOMPARE(QColor(image.pixel(b.right(), b.center().y())), QColor(Qt::blue));
        QCOMPARE(QColor(image.pixel(b.right() + 2, b.center().y())), QColor(Qt::white));
        QCOMPARE(panel.entryAt(size, b.center()), i);
    }
    QCOMPARE(panel.entryAt(size, QPoint(5, 2)), -1);
}

// The value column says as much as fits whole: everything on a wide
// panel, without the logit, then the percent alone, narrower (the Model
// tab at 1024 x 700 is about 390 pixels wide); the caption keeps the
// softmax and T, dropping "Next token after …" first.
void TestNextTokenRenderer::valuesFitTheWidth()
{
    const tinygpt2::Run run = tinygpt2::run();
    NextTokenRenderer panel;
    QFont font;
    font.setPixelSize(12);
    panel.setFont(font);
    panel.setPrediction(run.result->top, topLabels(run), 1.0, run.tokens.back());
    const QFontMetrics fm(font);
    using Detail = NextTokenRenderer::ValueDetail;
    Detail previous = Detail::Full;
    bool dropped = false;
    for (const int width : {1000, 390, 300, 200}) {
        const QSize size(width, 300);
        const NextTokenRenderer::Layout& l = panel.layout(size);
        QVERIFY(int(l.detail) <= int(previous));  // less as it narrows
        previous = l.detail;
        dropped = dropped || l.detail != Detail::Full;
        for (int i = 0; i < 10; ++i) {
            const QString text = NextTokenRenderer::valueText(panel.entries()[std::size_t(i)], l.detail);
            QVERIFY2(fm.horizontalAdvance(text) <= l.values[std::size_t(i)].width(),
                     qPrintable(QStringLiteral("%1 at %2").arg(text).arg(width)));
            QVERIFY(
                text.startsWith(NextTokenRenderer::percentText(panel.entries()[std::size_t(i)].probability)));
            QVERIFY(l.bars[std::size_t(i)].width() >= width / 4 - 1);
        }
        const QString caption = l.captionShort ? panel.shortCaptionText() : panel.captionText();
        QVERIFY(caption.endsWith(QStringLiteral("softmax(logits / T), T = 1.0")));
    }
    QCOMPARE(panel.layout(QSize(1000, 300)).detail, Detail::Full);
    QVERIFY(!panel.layout(QSize(1000, 300)).captionShort);
    QVERIFY(dropped);
    QVERIFY(panel.layout(QSize(200, 300)).captionShort);
    QCOMPARE(panel.shortCaptionText(), QStringLiteral("Top 10: softmax(logits / T), T = 1.0"));
    const NextTokenRenderer::Entry e{42, QStringLiteral("x"), 1.5, 0.25};
    QCOMPARE(NextTokenRenderer::valueText(e, Detail::PercentId), QStringLiteral("25.0 % · id 42"));
    QCOMPARE(NextTokenRenderer::valueText(e, Detail::Percent), QStringLiteral("25.0 %"));
    QCOMPARE(NextTokenRenderer::valueText(e, Detail::Full), NextTokenRenderer::valueText(e));
}

// A panel too short for ten rows of text shows the first ones that get a
// line each (at 1024 x 700 with a notice bar the rows were 8 pixels for
// 12-pixel text and overprinted) and says how many of the ten it shows.
void TestNextTokenRenderer::rowsGetALineEach()
{
    const tinygpt2::Run run = tinygpt2::run();
    NextTokenRenderer panel;
    QFont font;
    font.setPixelSize(12);
    panel.setFont(font);
    panel.setPrediction(run.result->top, topLabels(run), 1.0, run.tokens.back());
    const QFontMetrics fm(font);
    QCOMPARE(int(panel.layout(QSize(390, 300)).rows.size()), 10);
    QCOMPARE(panel.noteText(10).contains(QStringLiteral("of 10")), false);
    const QSize size(390, 120);
    const NextTokenRenderer::Layout& l = panel.layout(size);
    const int shown = int(l.rows.size());
    QVERIFY2(shown >= 1 && shown < 10, qPrintable(QString::number(shown)));
    QCOMPARE(int(l.bars.size()), shown);
    for (int i = 0; i < shown; ++i) {
        QVERIFY(l.rows[std::size_t(i)].height() >= fm.height());
        if (i > 0)
            QVERIFY(l.rows[std::size_t(i)].top() > l.rows[std::size_t(i - 1)].bottom());
        QCOMPARE(panel.entryAt(size, l.rows[std::size_t(i)].center()), i);
    }
    QVERIFY(l.rows.back().bottom() < l.note.top());
    QVERIFY(panel.barRect(size, shown).isNull());
    QVERIFY(panel.noteText(shown).startsWith(QStringLiteral("the first %1 of 10").arg(shown)));
    QImage image(size, QImage::Format_RGB32);
    QPainter painter(&image);
    panel.paint(painter, size, HeatmapStyle(), Qt::blue);
}

void TestNextTokenRenderer::temperatureInTheCaption()
{
    const tinygpt2::Run run = tinygpt2::run();
    NextTokenRenderer panel;
    panel.setPrediction(run.result->top, topLabels(run), 1.0, run.tokens.back());
    QCOMPARE(panel.captionText(),
             QStringLiteral("Next token after “␣new”, top 10: softmax(logits / T), T = 1.0"));
    // T = 0.5 sharpens: the first token's probability grows, the caption says T.
    const tinygpt2::Run cold = tinygpt2::run(0, 0.5);
    panel.setPrediction(cold.result->top, topLabels(cold), cold.result->temperature);
    QCOMPARE(panel.captionText(), QStringLiteral("Next token, top 10: softmax(logits / T), T = 0.5"));
    QVERIFY(cold.result->top[0].probability > run.result->top[0].probability);
    QCOMPARE(NextTokenRenderer::softmaxText(1.25), QStringLiteral("softmax(logits / T), T = 1.25"));
    QCOMPARE(NextTokenRenderer::softmaxText(2.0), QStringLiteral("softmax(logits / T), T = 2.0"));
    QCOMPARE(NextTokenRenderer::valueText(panel.entries()[0]),
             QStringLiteral("%1 · id %2 · logit %3")
                 .arg(NextTokenRenderer::percentText(cold.result->top[0].probability))
                 .arg(cold.result->top[0].id)
                 .arg(cold.result->top[0].logit, 0, 'f', 3));
}

void TestNextTokenRenderer::percentText_data()
{
    QTest::addColumn<double>("probability");
    QTest::addColumn<QString>("text");
    QTest::newRow("one") << 1.0 << QStringLiteral("100.0 %");
    QTest::newRow("tenths") << 0.123 << QStringLiteral("12.3 %");
    QTest::newRow("under 1 %: three digits") << 0.00836 << QStringLiteral("0.836 %");
    QTest::newRow("small") << 0.000412 << QStringLiteral("0.0412 %");
    QTest::newRow("below a millionth") << 3.12e-9 << QStringLiteral("3.12e-07 %");
    QTest::newRow("zero") << 0.0 << QStringLiteral("0.0 %");
}

void TestNextTokenRenderer::percentText()
{
    QFETCH(double, probability);
    QFETCH(QString, text);
    QCOMPARE(NextTokenRenderer::percentText(probability), text);
}

QTEST_MAIN(TestNextTokenRenderer)
#include "tst_nexttokenrenderer.moc"
