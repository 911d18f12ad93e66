// SPDX-License-Identifier: GPL-3.0-or-later
// The model's three pictures on the tiny checkpoint's real pass: PNG, SVG
// and PDF of the model view, the head view and the next-token panel, each
// non-empty at its size; the SVG's text holds the titles, the token texts
// (their leading-space mark "␣" drawn as a bracket of lines, spacemark.h),
// the head and layer labels, the next tokens and the temperature; no "random weights" unless a caption says
// so; written together, and nothing for a result without maps.

#include "modelpicturesexporter.h"
#include "tinygpt2run.h"

#include <QDir>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <sstream>

using namespace attnlab;

class TestModelPicturesExporter : public QObject {
    Q_OBJECT
private slots:
    void threePicturesInEachFormat();
    void svgHoldsTheTexts();
    void titlesNameTheModelOnly();
    void captionUnderEveryTitle();
    void writtenTogetherOrNotAtAll();
};

namespace {

QByteArray contents(const OutputFile& f)
{
    std::ostringstream out;
    f.write(out);
    return QByteArray::fromStdString(out.str());
}

// Every <text> element's characters, joined by newlines.
QString svgText(const QByteArray& svg)
{
    QXmlStreamReader xml(svg);
    QStringList texts;
    while (!xml.atEnd())
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements);
    if (xml.hasError())
        qFatal("SVG: %s", qPrintable(xml.errorString()));
    return texts.join(QLatin1Char('\n'));
}

// The <polyline>s of four points: the leading-space marks' brackets (the
// head view's lines have two).
int bracketCount(const QByteArray& svg)
{
    QXmlStreamReader xml(svg);
    int count = 0;
    while (!xml.atEnd())
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("polyline")
            && xml.attributes().value(QLatin1String("points")).trimmed().split(QLatin1Char(' ')).size() == 4)
            ++count;
    return count;
}

// A label's text in the SVG: the marks are lines, not characters.
QString withoutMarks(QString label)
{
    return label.remove(QChar(0x2423));
}

QStringList topLabels(const tinygpt2::Run& run)
{
    QStringList labels;
    for (const attn::TopToken& t : run.result->top)
        labels << run.tokenizer.token(t.id).display;
    return labels;
}

ModelPictureOptions lessonOptions()
{
    ModelPictureOptions o;
    o.modelName = QStringLiteral("tiny-gpt2");
    o.sentence = QStringLiteral("Jane is going to the cinema to watch a new");
    o.selectedLayer = 1;
    o.selectedHead = 2;
    return o;
}

}  // namespace

void TestModelPicturesExporter::threePicturesInEachFormat()
{
    const tinygpt2::Run run = tinygpt2::run();
    const ModelPicturesExporter exporter(run.result, run.tokens, topLabels(run), lessonOptions());
    QVERIFY(!exporter.isEmpty());
    const auto png = exporter.files(ImageFormat::Png);
    QVERIFY2(png.ok(), png.ok() ? "" : png.error().message.c_str());
    QCOMPARE(int(png->size()), 3);
    const std::vector<std::pair<std::string, QSize>> expected{
        {"model_view.png", ModelPicturesExporter::modelViewSize()},
        {"head_view.png", ModelPicturesExporter::headViewSize()},
        {"next_token.png", ModelPicturesExporter::nextTokenSize()}};
    for (std::size_t i = 0; i < 3; ++i) {
        const OutputFile& f = png.value()[i];
        QCOMPARE(f.name, expected[i].first);
        QVERIFY(f.problem.empty());
        const QImage image = QImage::fromData(contents(f), "PNG");
        QCOMPARE(image.size(), expected[i].second);
        // Drawn: not one colour.
        int dark = 0;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3)
                dark += qGray(image.pixel(x, y)) < 128 ? 1 : 0;
        QVERIFY2(dark > 100, f.name.c_str());
    }
    // A size of the caller's for all three.
    const auto small = exporter.files(ImageFormat::Png, QSize(640, 480));
    QVERIFY(small.ok());
    for (const OutputFile& f : small.value())
        QCOMPARE(QImage::fromData(contents(f), "PNG").size(), QSize(640, 480));
    const auto pdf = exporter.files(ImageFormat::Pdf);
    QVERIFY(pdf.ok());
    QCOMPARE(pdf->back().name, std::string("next_token.pdf"));
    for (const OutputFile& f : pdf.value()) {
        const QByteArray bytes = contents(f);
        QVERIFY2(bytes.startsWith("%PDF"), f.name.c_str());
        QVERIFY(bytes.contains("/Font"));  // text kept as text
    }
}

void TestModelPicturesExporter::svgHoldsTheTexts()
{
    const tinygpt2::Run run = tinygpt2::run();
    const ModelPicturesExporter exporter(run.result, run.tokens, topLabels(run), lessonOptions());
    const auto svg = exporter.files(ImageFormat::Svg);
    QVERIFY(svg.ok());
    QCOMPARE(svg->front().name, std::string("model_view.svg"));
    const QString grid = svgText(contents(svg.value()[0]));
    const QString lines = svgText(contents(svg.value()[1]));
    const QString next = svgText(contents(svg.value()[2]));
    QVERIFY(grid.contains(exporter.modelViewTitle()));
    QVERIFY(grid.contains(QStringLiteral("attention weights of 2 layers × 4 heads")));
    for (const QString& label :
         {QStringLiteral("L1"), QStringLiteral("L2"), QStringLiteral("H1"), QStringLiteral("H4")})
        QVERIFY2(grid.contains(label), qPrintable(label));
    QVERIFY(grid.contains(QStringLiteral("“Jane is going to the cinema to watch a new” (10 tokens)")));
    // The head view: every token's display text, in both columns, each
    // leading space a bracket: "Jane" and nine "␣word"s, twice.
    QVERIFY(lines.contains(QStringLiteral("tiny-gpt2: head view of layer 2, query → key")));
    for (const QString& token : run.tokens)
        QVERIFY2(lines.count(withoutMarks(token)) >= 2, qPrintable(token));
    QVERIFY(lines.contains(QStringLiteral("cinema")));
    QVERIFY(!lines.contains(QChar(0x2423)));
    QCOMPARE(run.tokens.filter(QChar(0x2423)).size(), 9);
    QCOMPARE(bracketCount(contents(svg.value()[1])), 2 * 9);
    QVERIFY(lines.contains(QStringLiteral("Layer 2 of 2 · 4 of 4 heads")));
    // The panel: the ten next tokens and the temperature; a bracket for
    // each leading space, the caption's "after “␣new”" included.
    int marks = 1;
    for (const QString& label : topLabels(run)) {
        QVERIFY2(next.contains(withoutMarks(label)), qPrintable(label));
        marks += int(label.count(QChar(0x2423)));
    }
    QVERIFY(next.contains(QStringLiteral("after “\nnew”")));  // two texts, the bracket between
    QCOMPARE(bracketCount(contents(svg.value()[2])), marks);
    QVERIFY(next.contains(QStringLiteral("softmax(logits / T), T = 1.0")));
    QVERIFY(next.contains(QStringLiteral("0.836 %")));
}

void TestModelPicturesExporter::titlesNameTheModelOnly()
{
    // The pictures claim nothing about the weights: that is the caption's
    // to say (--caption; docs/manual.md's picture of the tiny checkpoint).
    const tinygpt2::Run run = tinygpt2::run();
    const ModelPicturesExporter exporter(run.result, run.tokens, topLabels(run), lessonOptions());
    const auto svg = exporter.files(ImageFormat::Svg);
    QVERIFY(svg.ok());
    for (const OutputFile& f : svg.value())
        QVERIFY2(!svgText(contents(f)).contains(QStringLiteral("random weights")), f.name.c_str());
    QCOMPARE(exporter.modelViewTitle(), QStringLiteral("tiny-gpt2: attention weights of 2 layers × 4 heads"));
}

// The caller's caption is a third line of every picture, below the title
// and the sentence, which it pushes down; none without one.
void TestModelPicturesExporter::captionUnderEveryTitle()
{
    const tinygpt2::Run run = tinygpt2::run();
    ModelPictureOptions options = lessonOptions();
    const QString caption = QStringLiteral("Random weights: this checkpoint is not trained");
    options.caption = caption;
    const ModelPicturesExporter captioned(run.result, run.tokens, topLabels(run), options);
    QCOMPARE(captioned.captionLine(), caption);
    const auto svg = captioned.files(ImageFormat::Svg);
    QVERIFY(svg.ok());
    QCOMPARE(int(svg->size()), 3);
    for (const OutputFile& f : svg.value())
        QVERIFY2(svgText(contents(f)).contains(caption), f.name.c_str());
    const ModelPicturesExporter plain(run.result, run.tokens, topLabels(run), lessonOptions());
    QVERIFY(plain.captionLine().isEmpty());
    const auto plainSvg = plain.files(ImageFormat::Svg);
    QVERIFY(plainSvg.ok());
    for (const OutputFile& f : plainSvg.value())
        QVERIFY(!svgText(contents(f)).contains(QStringLiteral("Random weights")));
    // The caption's line takes height from the grid: the first row of dark
    // pixels below the title block starts lower.
    const auto firstGridRow = [&](const ModelPicturesExporter& e) {
        QImage image(ModelPicturesExporter::modelViewSize(), QImage::Format_RGB32);
        QPainter painter(&image);
        e.paintModelView(painter, image.size());
        painter.end();
        // The grid's tiles are the only blue: the first row with a blue pixel.
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                if (c.blue() > c.red() + 60)
                    return y;
            }
        return -1;
    };
    const int withCaption = firstGridRow(captioned);
    const int without = firstGridRow(plain);
    QVERIFY(without > 0);
    QVERIFY2(withCaption > without, qPrintable(QStringLiteral("%1 vs %2").arg(withCaption).arg(without)));
}

void TestModelPicturesExporter::writtenTogetherOrNotAtAll()
{
    const tinygpt2::Run run = tinygpt2::run();
    QTemporaryDir dir;
    std::vector<OutputFile> all;
    const ModelPicturesExporter exporter(run.result, run.tokens, topLabels(run), lessonOptions());
    for (const ImageFormat format : {ImageFormat::Png, ImageFormat::Svg, ImageFormat::Pdf}) {
        auto files = exporter.files(format);
        QVERIFY(files.ok());
        for (OutputFile& f : files.value())
            all.push_back(std::move(f));
    }
    QVERIFY(writeFilesAtomically(dir.path(), all).ok());
    QStringList names = QDir(dir.path()).entryList(QDir::Files, QDir::Name);
    QCOMPARE(names, QStringList({"head_view.pdf", "head_view.png", "head_view.svg", "model_view.pdf",
                                 "model_view.png", "model_view.svg", "next_token.pdf", "next_token.png",
                                 "next_token.svg"}));
    for (const QString& name : names)
        QVERIFY(QFileInfo(dir.filePath(name)).size() > 1000);
    // A result without the maps (keepMaps off): an error and no files.
    auto bare = std::make_shared<attn::DecoderResult>(*run.result);
    for (attn::DecoderLayer& layer : bare->layers)
        layer.heads.clear();
    const ModelPicturesExporter none(bare, run.tokens, topLabels(run));
    QVERIFY(none.isEmpty());
    const auto files = none.files(ImageFormat::Png);
    QVERIFY(!files.ok());
    QCOMPARE(QString::fromStdString(files.error().message),
             QStringLiteral("The model's result holds no attention maps to draw."));
    // Every layer's head view, named by layer.
    ModelPictureOptions every = lessonOptions();
    every.everyLayer = true;
    const auto layers =
        ModelPicturesExporter(run.result, run.tokens, topLabels(run), every).files(ImageFormat::Svg);
    QVERIFY(layers.ok());
    QCOMPARE(int(layers->size()), 4);
    QCOMPARE(layers.value()[1].name, std::string("head_view_layer1.svg"));
    QCOMPARE(layers.value()[2].name, std::string("head_view_layer2.svg"));
    QVERIFY(
        svgText(contents(layers.value()[1])).contains(QStringLiteral("head view of layer 1, query → key")));
    QVERIFY(svgText(contents(layers.value()[2])).contains(QStringLiteral("Layer 2 of 2")));
    const ModelPicturesExporter null(nullptr, {}, {});
    QVERIFY(!null.files(ImageFormat::Svg).ok());
}

QTEST_MAIN(TestModelPicturesExporter)
#include "tst_modelpicturesexporter.moc"
