// SPDX-License-Identifier: GPL-3.0-or-later
// The focused query's figure, drawn from the snapshot without a widget: the
// title names the query, each key is labelled, each weight printed as the
// honest share it is, every bar in its place; on white, no scroll bars.

#include "attentionsnapshot.h"
#include "focusedqueryfigure.h"
#include "pictureencoder.h"
#include "sharetext.h"

#include <QGuiApplication>
#include <QImage>
#include <QLocale>
#include <QPainter>
#include <QTest>

using namespace attnlab;

namespace {

AttentionSnapshot article()
{
    attn::Expected<AttentionSnapshot> s = computeSnapshot(attn::ModelConfig(), attn::AttentionOptions());
    if (!s)
        qFatal("%s", s.error().message.c_str());
    return std::move(s.value());
}

PaintFunction figure(const AttentionSnapshot& s, int query)
{
    return [&s, query](QPainter& p, const QSize& size) { paintFocusedQueryFigure(p, size, s, query); };
}

}  // namespace

class TestFocusedQueryFigure : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void namesTheQueryAndItsKeys();
    void drawsOnWhite();
};

void TestFocusedQueryFigure::namesTheQueryAndItsKeys()
{
    const AttentionSnapshot s = article();
    const attn::AttentionResult& r = s.head();
    QCOMPARE(r.tokens(), 6);
    const QString svg = QString::fromUtf8(svgPicture(figure(s, 1), QSize(1200, 700)));
    QVERIFY2(svg.contains(QStringLiteral("Query 2 “is”")), "title");
    for (const char* key : {"Life", "is", "short", "eat", "dessert", "first"})
        QVERIFY2(svg.contains(QStringLiteral(">%1<").arg(QLatin1String(key))), key);
    // Each weight of query 2 as printed (two digits, honest), each scaled score to two decimals.
    for (int j = 0; j < 6; ++j) {
        QVERIFY2(svg.contains(QStringLiteral(">%1<").arg(shareText(r.weights(1, j), 2))),
                 qPrintable(shareText(r.weights(1, j), 2)));
        const double scaled = r.scaled(1, j);
        QVERIFY2(svg.contains(
                     QStringLiteral(">%1<").arg(QString::number(scaled, 'f', std::abs(scaled) < 10 ? 2 : 1))),
                 qPrintable(QString::number(scaled)));
    }
}

void TestFocusedQueryFigure::drawsOnWhite()
{
    const AttentionSnapshot s = article();
    const QImage image = renderPicture(figure(s, 0), QSize(1200, 700));
    QCOMPARE(image.size(), QSize(1200, 700));
    // White corners and margins (no panel chrome), coloured bars inside.
    for (const QPoint p : {QPoint(0, 0), QPoint(1199, 0), QPoint(0, 699), QPoint(1199, 699), QPoint(5, 350)})
        QCOMPARE(image.pixel(p) | 0xff000000u, 0xffffffffu);
    int coloured = 0;
    for (int y = 0; y < image.height(); y += 4)
        for (int x = 0; x < image.width(); x += 4) {
            const QColor c = image.pixelColor(x, y);
            coloured += c.saturation() > 80;
        }
    QVERIFY(coloured > 500);
    // Another query, another picture.
    QVERIFY(image != renderPicture(figure(s, 3), QSize(1200, 700)));
}

QTEST_MAIN(TestFocusedQueryFigure)
#include "tst_focusedqueryfigure.moc"
