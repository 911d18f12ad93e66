// SPDX-License-Identifier: GPL-3.0-or-later
// The multi-head pictures and the grid's numbers: one file per picture,
// named as the numbers are, each a valid PNG, SVG or PDF; a head's map
// coloured by that head's numbers; the grid's cell table the engine's
// numbers to the last digit, and refused with a reason when too large.

#include "colormap.h"
#include "csv.h"
#include "headresults.h"
#include "headsexporter.h"
#include "numberformat.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QTest>
#include <QXmlStreamReader>

using namespace attnlab;

class TestHeadsExporter : public QObject {
    Q_OBJECT
private slots:
    void onePictureFilePerView();
    void picturesAreValidFiles();
    void headPictureShowsThatHead();
    void gridNumbersAreTheResults();
    void tooManyGridNumbersAreRefused();
};

namespace {

QStringList names(const std::vector<OutputFile>& files)
{
    QStringList out;
    for (const OutputFile& f : files)
        out << QString::fromStdString(f.name);
    return out;
}

QByteArray contents(const OutputFile& f)
{
    std::ostringstream out;
    f.write(out);
    const std::string s = out.str();
    return QByteArray(s.data(), qsizetype(s.size()));
}

}  // namespace

void TestHeadsExporter::onePictureFilePerView()
{
    const headresults::Run run = headresults::article(3, true);
    const HeadsExporter exporter(run.result, run.tokens);
    const attn::Expected<std::vector<OutputFile>> files = exporter.files(ImageFormat::Png, QSize(400, 300));
    QVERIFY(files.ok());
    QStringList expected{QStringLiteral("head_grid.png"), QStringLiteral("weights_average.png")};
    for (int h = 1; h <= 3; ++h)
        expected << QStringLiteral("scores_head%1.png").arg(h)
                 << QStringLiteral("scaled_scores_head%1.png").arg(h)
                 << QStringLiteral("weights_head%1.png").arg(h);
    expected << QStringLiteral("concat.png") << QStringLiteral("output.png");
    QCOMPARE(names(files.value()), expected);
    // Without W_o there is no output picture.
    const headresults::Run plain = headresults::article(2);
    const attn::Expected<std::vector<OutputFile>> fewer =
        HeadsExporter(plain.result, plain.tokens).files(ImageFormat::Svg, QSize(400, 300));
    QVERIFY(fewer.ok());
    QCOMPARE(int(fewer->size()), 2 + 3 * 2 + 1);
    QCOMPARE(QString::fromStdString(fewer->back().name), QStringLiteral("concat.svg"));
    // One head's result (null): nothing to draw.
    QVERIFY(HeadsExporter(nullptr, {}).files(ImageFormat::Png)->empty());
}

void TestHeadsExporter::picturesAreValidFiles()
{
    const headresults::Run run = headresults::article(3, true);
    const HeadsExporter exporter(run.result, run.tokens, HeadMapKind::Scaled, 1);
    const attn::Expected<std::vector<OutputFile>> png = exporter.files(ImageFormat::Png);
    QVERIFY(png.ok());
    for (const OutputFile& f : png.value()) {
        QVERIFY(f.problem.empty());
        const QImage image = QImage::fromData(contents(f), "PNG");
        QVERIFY2(!image.isNull(), f.name.c_str());
        const QSize expected = f.name == "head_grid.png"                          ? QSize(1200, 900)
                               : f.name == "concat.png" || f.name == "output.png" ? QSize(1200, 600)
                                                                                  : QSize(900, 800);
        QCOMPARE(image.size(), expected);
    }
    const attn::Expected<std::vector<OutputFile>> svg = exporter.files(ImageFormat::Svg);
    QVERIFY(svg.ok());
    for (const OutputFile& f : svg.value()) {
        QXmlStreamReader xml(contents(f));
        int elements = 0;
        bool text = false;
        while (!xml.atEnd())
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                ++elements;
                text = text || xml.name() == QLatin1String("text");
            }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(elements > 10);
        QVERIFY2(text, f.name.c_str());  // titles and labels stay text
    }
    const attn::Expected<std::vector<OutputFile>> pdf = exporter.files(ImageFormat::Pdf);
    QVERIFY(pdf.ok());
    for (const OutputFile& f : pdf.value()) {
        const QByteArray bytes = contents(f);
        QVERIFY2(bytes.startsWith("%PDF"), f.name.c_str());
        QVERIFY(bytes.contains("/Font"));
    }
}

void TestHeadsExporter::headPictureShowsThatHead()
{
    const headresults::Run run = headresults::article(3);
    const HeadsExporter exporter(run.result, run.tokens);
    const QSize size(900, 800);
    QImage image(size, QImage::Format_RGB32);
    {
        QPainter painter(&image);
        exporter.paintHead(painter, size, 1, HeadMapKind::Weights);
    }
    // The geometry of the same map (font and title as the picture's).
    HeadGridRenderer grid;
    grid.setResult(run.result, run.tokens);
    HeatmapRenderer& map = grid.tileMap(1);
    QFont font = QGuiApplication::font();
    font.setPixelSize(800 / 42);
    map.setFont(font);
    map.setTitle(QStringLiteral("Head 2: attention weights A_2 (rows sum to 1)"));
    const attn::Matrix w = run.result->heads[1].weightsMatrix();
    const attn::Matrix other = run.result->heads[0].weightsMatrix();
    int differ = 0;
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            const QRect cell = map.cellRect(size, i, j);
            QVERIFY(!cell.isEmpty());
            // A corner of the cell: the printed number sits in its middle.
            const QPoint p = cell.topLeft() + QPoint(2, 2);
            QCOMPARE(QColor(image.pixel(p)).name(),
                     QColor(colormap::sequentialRgb(w(i, j), 0.0, 1.0)).name());
            if (colormap::sequentialRgb(other(i, j), 0.0, 1.0) != colormap::sequentialRgb(w(i, j), 0.0, 1.0))
                ++differ;
        }
    QVERIFY(differ > 5);
}

void TestHeadsExporter::gridNumbersAreTheResults()
{
    attn::ModelConfig config;
    const headresults::Run run =
        headresults::run(config, 3, false, attn::AttentionOptions{attn::ScaleMode::SqrtDk, 1.0, true});
    const attn::MultiHeadResult& r = *run.result;
    const HeadsExporter exporter(run.result, run.tokens);
    QVERIFY(exporter.gridNumbersProblem().isEmpty());
    const attn::Expected<std::vector<CsvRow>> rows = parseCsv(exporter.gridNumbers());
    QVERIFY(rows.ok());
    QCOMPARE(int(rows->size()), 1 + 36);
    const CsvRow& header = rows->front();
    QCOMPARE(int(header.size()), 4 + 3 * 3 + 1);
    QCOMPARE(header[4], std::string("score_head1"));
    QCOMPARE(header[8], std::string("scaled_score_head2"));
    QCOMPARE(header[13], std::string("weight_average"));
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            const CsvRow& row = (*rows)[std::size_t(1 + i * 6 + j)];
            QCOMPARE(row[1], run.tokens[i].toStdString());
            QCOMPARE(row[3], run.tokens[j].toStdString());
            for (int h = 0; h < 3; ++h) {
                double score = 0, scaled = 0, weight = 0;
                QVERIFY(parseNumber(row[std::size_t(4 + 3 * h)], &score));
                QVERIFY(parseNumber(row[std::size_t(5 + 3 * h)], &scaled));
                QVERIFY(parseNumber(row[std::size_t(6 + 3 * h)], &weight));
                const attn::AttentionResult& head = r.heads[std::size_t(h)];
                QCOMPARE(score, head.scores(i, j));
                QCOMPARE(scaled, head.scaled(i, j));  // -inf above the diagonal: causal
                QCOMPARE(weight, head.weights(i, j));
            }
            double average = 0;
            QVERIFY(parseNumber(row[13], &average));
            QCOMPARE(average, r.weightsAverage(i, j));
        }
    QVERIFY(std::isinf(r.heads[0].scaled(0, 1)));
}

void TestHeadsExporter::tooManyGridNumbersAreRefused()
{
    // 280² cells × (3 × 64 + 1) values: 15 million numbers.
    const headresults::Run run = headresults::sized(280, 64, 8, 2, 1);
    const HeadsExporter exporter(run.result, run.tokens);
    QVERIFY(exporter.gridNumbers().empty());
    QVERIFY2(exporter.gridNumbersProblem().contains(
                 QStringLiteral("64 heads at 280 tokens make 15131200 numbers")),
             qPrintable(exporter.gridNumbersProblem()));
}

QTEST_MAIN(TestHeadsExporter)
#include "tst_headsexporter.moc"
