// SPDX-License-Identifier: GPL-3.0-or-later
// Pictures of the views drawn without a widget: this suite links the render
// library alone and runs under QGuiApplication on the offscreen platform.
// The weights map of a 4-token example must carry the exact colour of its
// weights (colormap over [0, 1]); SVG keeps the tokens as text and the
// colour bar as a gradient; PDF is one document.

#include "colormap.h"
#include "pictureencoder.h"
#include "scalingcomparisonfigure.h"
#include "viewexporter.h"

#include <QGuiApplication>
#include <QLocale>
#include <QTest>
#include <QXmlStreamReader>

#include <algorithm>
#include <cmath>

using namespace attnlab;

namespace {

AttentionSnapshot snapshot()
{
    attn::ModelConfig config;
    config.sentence = "cats chase small mice";
    config.seed = 3;
    config.dModel = 6;
    config.dK = 4;
    config.dV = 4;
    attn::Expected<AttentionSnapshot> s = computeSnapshot(config, attn::AttentionOptions());
    if (!s)
        qFatal("%s", s.error().message.c_str());
    return std::move(s.value());
}

bool hasColour(const QImage& image, QRgb rgb)
{
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if ((image.pixel(x, y) | 0xff000000u) == rgb)
                return true;
    return false;
}

}  // namespace

class TestViewExporter : public QObject {
    Q_OBJECT
private slots:
    void drawsWithoutWidgets();
    void svgKeepsTextAsText();
    void svgKeepsTheColourBarGradient();
    void pdfIsADocument();
    void scaledMapNamesItsRange();
    void comparisonIsTheFigures();
};

void TestViewExporter::drawsWithoutWidgets()
{
    QVERIFY(!QCoreApplication::instance()->inherits("QApplication"));
    const ViewExporter exporter(snapshot());
    const attn::AttentionResult& r = exporter.snapshot().head();
    const QImage weights = exporter.image(ExportView::Weights, QSize(600, 500));
    QCOMPARE(weights.size(), QSize(600, 500));
    // Four tokens: cells large enough to be drawn one by one in their colour.
    for (int i = 0; i < 4; ++i)
        QVERIFY2(hasColour(weights, colormap::sequentialRgb(r.weights(i, 3 - i), 0.0, 1.0)),
                 qPrintable(QString::number(i)));
    // The raw scores in the diverging map over the shared range.
    const QImage raw = exporter.image(ExportView::RawScores, QSize(600, 500));
    QVERIFY(raw != weights);
    for (ExportView view : ViewExporter::views()) {
        const QImage image = exporter.image(view, ViewExporter::defaultSize(view), 0.5);
        QCOMPARE(image.size(), ViewExporter::defaultSize(view) / 2);
    }
}

void TestViewExporter::svgKeepsTextAsText()
{
    const ViewExporter exporter(snapshot());
    const QByteArray svg = exporter.svg(ExportView::Weights, QSize(600, 500));
    QXmlStreamReader xml(svg);
    QStringList texts;
    while (!xml.atEnd())
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    for (const char* token : {"cats", "chase", "small", "mice"})
        QVERIFY2(texts.contains(QLatin1String(token)), token);
    QVERIFY(svg.contains("width=\"600\""));
}

void TestViewExporter::svgKeepsTheColourBarGradient()
{
    const ViewExporter exporter(snapshot());
    const QByteArray svg = exporter.svg(ExportView::Weights, QSize(600, 500));
    // The weights' bar runs from white (0) to deep blue (1) in one gradient.
    QXmlStreamReader xml(svg);
    int gradients = 0;
    QStringList stops;
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement)
            continue;
        if (xml.name() == QLatin1String("linearGradient"))
            ++gradients;
        else if (xml.name() == QLatin1String("stop"))
            stops << xml.attributes().value(QLatin1String("stop-color")).toString().toLower();
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(gradients >= 1);
    QVERIFY2(stops.contains(QStringLiteral("#ffffff")), qPrintable(stops.join(u' ')));
    QVERIFY2(stops.contains(QStringLiteral("#08306b")), qPrintable(stops.join(u' ')));
}

void TestViewExporter::pdfIsADocument()
{
    const ViewExporter exporter(snapshot());
    const QByteArray pdf = exporter.pdf(ExportView::Pipeline, QSize(1800, 720));
    QVERIFY(pdf.startsWith("%PDF"));
    QVERIFY(pdf.contains("/Font"));
}

// The scaled map's picture says which colour range it used: the one shared
// with the raw scores, or its own; its colour bar shows that range's ends
// (the largest |score|, or that over the divisor).
void TestViewExporter::scaledMapNamesItsRange()
{
    QLocale::setDefault(QLocale::c());
    const AttentionSnapshot s = snapshot();
    const double raw = s.head().maxAbsScore;
    const double own = s.head().maxAbsKeptScore / s.head().divisor;
    QVERIFY(own / raw >= 0.1);  // d_k 4: not washed out
    for (const bool independent : {false, true}) {
        ExportOptions options;
        options.independentRanges = independent;
        const ViewExporter exporter(s, -1, options);
        const QString svg = QString::fromUtf8(exporter.svg(ExportView::ScaledScores, QSize(1400, 900)));
        const QString said =
            independent ? QStringLiteral("(own colour range)") : QStringLiteral("(shared colour range)");
        QVERIFY2(svg.contains(said), qPrintable(said));
    }
}

// The scaled-vs-unscaled comparison is ScalingComparisonFigure's: its
// numbers are attn::compareScaling's (a softmax of the raw scores beside
// one of the scores over sqrt(d_k), each row summing to 1), its picture the
// one the exporter draws.
void TestViewExporter::comparisonIsTheFigures()
{
    const AttentionSnapshot s = snapshot();
    const ScalingComparisonFigure figure(s.head(), {"cats", "chase", "small", "mice"}, 1, s.config.sentence);
    const attn::ScalingComparison& c = figure.comparison();
    QCOMPARE(&figure.comparison(), &c);  // computed once
    QCOMPARE(c.dK, 4);
    const attn::Matrix& scores = s.head().scores;
    for (int i = 0; i < 4; ++i) {
        double rawSum = 0, scaledSum = 0, rawMax = -1e300, scaledMax = -1e300;
        for (int j = 0; j < 4; ++j) {
            rawMax = std::max(rawMax, scores(i, j));
            scaledMax = std::max(scaledMax, scores(i, j) / 2.0);
        }
        for (int j = 0; j < 4; ++j) {
            rawSum += std::exp(scores(i, j) - rawMax);
            scaledSum += std::exp(scores(i, j) / 2.0 - scaledMax);
        }
        for (int j = 0; j < 4; ++j) {
            QVERIFY(std::abs(c.weightsUnscaled(i, j) - std::exp(scores(i, j) - rawMax) / rawSum) < 1e-15);
            QVERIFY(std::abs(c.weightsScaled(i, j) - std::exp(scores(i, j) / 2.0 - scaledMax) / scaledSum)
                    < 1e-15);
        }
    }
    const ViewExporter exporter(s, 1);
    const QSize size(900, 500);
    const QImage drawn = renderPicture([&figure](QPainter& p, const QSize& z) { figure.paint(p, z); }, size);
    QCOMPARE(exporter.image(ExportView::ScalingComparison, size), drawn);
    QVERIFY(hasColour(drawn, colormap::sequentialRgb(c.weightsScaled(0, 0), 0.0, 1.0)));
}

QTEST_MAIN(TestViewExporter)
#include "tst_viewexporter.moc"
