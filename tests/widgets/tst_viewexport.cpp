// SPDX-License-Identifier: GPL-3.0-or-later
// Pictures of the views: PNGs of the requested size that are not blank, SVG
// that parses as XML with the token labels as <text>, a one-page PDF, the
// clipboard, "export all views", the numbers, and the command line's
// --format png,svg,pdf --size WxH run on the built executable.

#include "mainwindow.h"

#include "exportactions.h"
#include "npy.h"
#include "scaling_lab.h"
#include "scalinglabview.h"
#include "viewexporter.h"
#include "guitest.h"
#include "lastfolder.h"

#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QApplication>
#include <QFileDialog>
#include <QTimer>
#include <QtTest>

using namespace attnlab;

namespace {

int distinctColours(const QImage& image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            colours.insert(image.pixel(x, y));
    return colours.size();
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The text of every <text> element.
QStringList svgTexts(const QByteArray& svg, QString* error)
{
    QStringList texts;
    QXmlStreamReader xml(svg);
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
            texts.append(xml.readElementText(QXmlStreamReader::IncludeChildElements));
    }
    if (xml.hasError())
        *error = xml.errorString();
    return texts;
}

int pdfPages(const QByteArray& pdf)
{
    return int(QString::fromLatin1(pdf).count(QRegularExpression(QStringLiteral("/Type\\s*/Page(?!s)"))));
}

}  // namespace

class TestViewExport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void pngHasTheRequestedSize_data();
    void pngHasTheRequestedSize();
    void figureIsLaidOutForSlides();
    void svgKeepsTextAsText();
    void pdfIsOnePageOfVectors();
    void sizesAreChecked();
    void clipboardGetsTheFigure();
    void exportAllViews();
    void exportNumbers();
    void commandLinePictures();
    void folderDialogStartsInTheLastFolder();

private:
    QTemporaryDir dir_;
};

void TestViewExport::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(dir_));
}

void TestViewExport::pngHasTheRequestedSize_data()
{
    QTest::addColumn<int>("view");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<double>("scale");
    QTest::newRow("pipeline 1x") << int(ExportView::Pipeline) << QSize(1600, 640) << 1.0;
    QTest::newRow("pipeline 2x") << int(ExportView::Pipeline) << QSize(1000, 420) << 2.0;
    QTest::newRow("weights") << int(ExportView::Weights) << QSize(700, 600) << 1.0;
    QTest::newRow("raw scores 1.5x") << int(ExportView::RawScores) << QSize(400, 300) << 1.5;
    QTest::newRow("context") << int(ExportView::Context) << QSize(900, 500) << 1.0;
}

void TestViewExport::pngHasTheRequestedSize()
{
    QFETCH(int, view);
    QFETCH(QSize, size);
    QFETCH(double, scale);
    MainWindow w;
    const QString file = dir_.filePath(QStringLiteral("view%1.png").arg(view));
    QVERIFY(w.exports()->exportView(ExportView(view), file, size, scale));
    QImage image;
    QVERIFY(image.load(file, "PNG"));
    QCOMPARE(image.size(), (QSizeF(size) * scale).toSize());
    // The heatmap colours, the text and the white ground.
    QVERIFY2(distinctColours(image) >= 40, qPrintable(QString::number(distinctColours(image))));
    // Not mostly empty: well over a tenth of the pixels are not white.
    int inked = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            inked += image.pixel(x, y) != qRgb(255, 255, 255);
    QVERIFY(inked > image.width() * image.height() / 4 / 10);
}

void TestViewExport::figureIsLaidOutForSlides()
{
    // The three maps sit side by side: the left, middle and right thirds of
    // the figure's middle band each hold a map's colours.
    MainWindow w;
    const QImage image = w.exports()->makeViewExporter()->image(ExportView::Pipeline, QSize(1800, 720));
    const int top = image.height() / 4;
    const int bottom = image.height() * 3 / 4;
    for (int third = 0; third < 3; ++third) {
        const QImage band = image.copy(third * image.width() / 3, top, image.width() / 3, bottom - top);
        QVERIFY2(distinctColours(band) >= 30, qPrintable(QString::number(third)));
    }
    // The weights use the sequential map: the weights' third has blue cells.
    const QImage right = image.copy(image.width() * 2 / 3, top, image.width() / 3, bottom - top);
    bool blue = false;
    for (int y = 0; y < right.height() && !blue; y += 3)
        for (int x = 0; x < right.width() && !blue; x += 3) {
            const QColor c = right.pixelColor(x, y);
            blue = c.blue() > 150 && c.red() < 120;
        }
    QVERIFY(blue);
}

void TestViewExport::svgKeepsTextAsText()
{
    MainWindow w;
    const QString file = dir_.filePath(QStringLiteral("pipeline.svg"));
    QVERIFY(w.exports()->exportView(ExportView::Pipeline, file, QSize(1500, 600)));
    const QByteArray svg = readAll(file);
    QString error;
    const QStringList texts = svgTexts(svg, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(svg.contains("width=\"1500\""));
    for (const QString& token : w.session()->published()->tokens())
        QVERIFY2(texts.count(token) >= 6, qPrintable(token));  // rows and columns of three maps
    QVERIFY(texts.contains(QStringLiteral("softmax")));
    QVERIFY(texts.contains(QStringLiteral("÷ √24")));
    bool caption = false;
    for (const QString& t : texts)
        caption = caption || t.startsWith(QStringLiteral("A = softmax(Q Kᵀ ÷ √24)"));
    QVERIFY(caption);

    // A single map as well.
    const QString single = dir_.filePath(QStringLiteral("weights.svg"));
    QVERIFY(w.exports()->exportView(ExportView::Weights, single, QSize(600, 500)));
    const QStringList mapTexts = svgTexts(readAll(single), &error);
    QVERIFY(error.isEmpty());
    QVERIFY(mapTexts.contains(QStringLiteral("dessert")));
}

void TestViewExport::pdfIsOnePageOfVectors()
{
    MainWindow w;
    for (ExportView view : {ExportView::Pipeline, ExportView::ScaledScores}) {
        const QString file = dir_.filePath(ViewExporter::fileStem(view) + QStringLiteral(".pdf"));
        QVERIFY(w.exports()->exportView(view, file, ViewExporter::defaultSize(view)));
        const QByteArray pdf = readAll(file);
        QVERIFY(pdf.startsWith("%PDF"));
        QCOMPARE(pdfPages(pdf), 1);
        // Text as text: the PDF embeds a font.
        QVERIFY(pdf.contains("/FontFile") || pdf.contains("/Font"));
    }
}

void TestViewExport::sizesAreChecked()
{
    MainWindow w;
    QVERIFY(!w.exports()->exportView(ExportView::Weights, dir_.filePath(QStringLiteral("tiny.png")),
                                     QSize(50, 400)));
    QVERIFY(!w.exports()->exportView(ExportView::Weights, dir_.filePath(QStringLiteral("huge.png")),
                                     QSize(9000, 9000), 2.0));
    QVERIFY(!w.exports()->exportView(ExportView::Weights, dir_.filePath(QStringLiteral("bad.gif")),
                                     QSize(400, 400)));
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("tiny.png"))));
}

void TestViewExport::clipboardGetsTheFigure()
{
    MainWindow w;
    QGuiApplication::clipboard()->clear();
    w.findChild<QAction*>(QStringLiteral("copyFigureAction"))->trigger();
    const QImage image = QGuiApplication::clipboard()->image();
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), ViewExporter::defaultSize(ExportView::Pipeline) * w.devicePixelRatioF());
    QVERIFY(distinctColours(image) >= 40);
}

void TestViewExport::exportAllViews()
{
    MainWindow w;
    // Before the d_k lab's curves exist, its plots are left out; after,
    // every view is written, the widget-drawn ones too.
    const QString before = dir_.filePath(QStringLiteral("before"));
    QVERIFY(!guitest::find<ScalingLabView>(w, QStringLiteral("scalingLabView"))->hasCurves());
    QVERIFY(w.exports()->exportAllViews(before, QSize(500, 400)));
    // The snapshot's views, the scaled-vs-unscaled comparison and the focused query.
    QCOMPARE(QDir(before).entryList(QDir::Files).size(), (ViewExporter::views().size() + 2) * 3);
    QVERIFY(QFileInfo::exists(QDir(before).filePath(QStringLiteral("scaled_vs_unscaled.png"))));
    QVERIFY(QFileInfo::exists(QDir(before).filePath(QStringLiteral("scaled_vs_unscaled.svg"))));
    QVERIFY(QFileInfo::exists(QDir(before).filePath(QStringLiteral("scaled_vs_unscaled.pdf"))));

    attn::ScalingLabConfig config;
    config.nKeys = 5;
    config.samples = 40;
    config.seed = 99;
    guitest::find<ScalingLabView>(w, QStringLiteral("scalingLabView"))
        ->setCurves(attn::runScalingLab(config).value());
    const QString out = dir_.filePath(QStringLiteral("all"));
    QVERIFY(w.exports()->exportAllViews(out, QSize(500, 400)));
    const QStringList files = QDir(out).entryList(QDir::Files);
    QList<ExportView> views = ViewExporter::views();
    views << ExportView::ScalingComparison << ExportView::FocusedQuery << ExportView::LabVariance
          << ExportView::LabMaxWeight << ExportView::LabEntropy << ExportView::LabJacobian;
    QCOMPARE(files.size(), views.size() * 3);
    for (ExportView view : views) {
        const QString stem = ViewExporter::fileStem(view);
        QImage png;
        QVERIFY2(png.load(QDir(out).filePath(stem + QStringLiteral(".png"))), qPrintable(stem));
        QCOMPARE(png.size(), QSize(500, 400));
        QVERIFY(distinctColours(png) >= 3);
        QVERIFY(readAll(QDir(out).filePath(stem + QStringLiteral(".pdf"))).startsWith("%PDF"));
        QString error;
        svgTexts(readAll(QDir(out).filePath(stem + QStringLiteral(".svg"))), &error);
        QVERIFY2(error.isEmpty(), qPrintable(stem + ": " + error));
    }
}

void TestViewExport::exportNumbers()
{
    MainWindow w;
    QVERIFY(w.session()->setMatrixCell(MatrixId::Wv, 1, 2, 3.0));
    const QString out = dir_.filePath(QStringLiteral("numbers"));
    ExportFormats formats;
    formats.json = formats.csv = formats.npy = true;
    QVERIFY(w.exports()->exportNumbers(out, formats));
    QVERIFY(QFileInfo::exists(QDir(out).filePath(QStringLiteral("attention.json"))));
    QVERIFY(QFileInfo::exists(QDir(out).filePath(QStringLiteral("weights.csv"))));
    attn::Expected<attn::Matrix> wv = readNpyFile(QDir(out).filePath(QStringLiteral("W_v.npy")));
    QVERIFY(wv.ok());
    QCOMPARE(wv.value()(1, 2), 3.0);
    attn::Expected<attn::Matrix> weights = readNpyFile(QDir(out).filePath(QStringLiteral("weights.npy")));
    QVERIFY(weights.ok());
    QVERIFY((weights.value().array() == w.session()->published()->shown()->weightsMatrix().array()).all());
}

void TestViewExport::commandLinePictures()
{
    const QString out = dir_.filePath(QStringLiteral("cli"));
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));  // the program chooses offscreen itself
    process.setProcessEnvironment(env);
    process.start(
        QStringLiteral(ATTNLAB_EXECUTABLE),
        {QStringLiteral("--export-dir"), out, QStringLiteral("--format"), QStringLiteral("json,png,svg,pdf"),
         QStringLiteral("--size"), QStringLiteral("1000x600"), QStringLiteral("--d-k"), QStringLiteral("8")});
    QVERIFY(process.waitForFinished(120000));
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    QImage png;
    QVERIFY(png.load(QDir(out).filePath(QStringLiteral("pipeline.png"))));
    QCOMPARE(png.size(), QSize(1000, 600));
    QVERIFY(distinctColours(png) >= 40);
    for (ExportView view : ViewExporter::views())
        for (const char* suffix : {".png", ".svg", ".pdf"})
            QVERIFY(
                QFileInfo::exists(QDir(out).filePath(ViewExporter::fileStem(view) + QLatin1String(suffix))));
    QString error;
    const QStringList texts = svgTexts(readAll(QDir(out).filePath(QStringLiteral("weights.svg"))), &error);
    QVERIFY(error.isEmpty());
    QVERIFY(texts.contains(QStringLiteral("dessert")));
    QCOMPARE(pdfPages(readAll(QDir(out).filePath(QStringLiteral("pipeline.pdf")))), 1);
    QVERIFY(QFileInfo::exists(QDir(out).filePath(QStringLiteral("attention.json"))));

    // A bad size is a usage error and writes nothing.
    QProcess bad;
    bad.setProcessEnvironment(env);
    bad.start(
        QStringLiteral(ATTNLAB_EXECUTABLE),
        {QStringLiteral("--export-dir"), dir_.filePath(QStringLiteral("cli-bad")), QStringLiteral("--format"),
         QStringLiteral("png"), QStringLiteral("--size"), QStringLiteral("10x10")});
    QVERIFY(bad.waitForFinished(60000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("cli-bad"))));
}

// Export all views asks for a folder starting in the one chosen last (not
// $HOME), and remembers the folder chosen.
void TestViewExport::folderDialogStartsInTheLastFolder()
{
    MainWindow w;
    const QString last = dir_.filePath(QStringLiteral("last"));
    const QString chosen = dir_.filePath(QStringLiteral("chosen"));
    QVERIFY(QDir().mkpath(last) && QDir().mkpath(chosen));
    rememberFolder(FolderUse::Export, last);
    QString startedIn;
    QTimer::singleShot(0, this, [&] {
        QTRY_VERIFY(qobject_cast<QFileDialog*>(QApplication::activeModalWidget()));
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        startedIn = dialog->directory().absolutePath();
        dialog->selectFile(chosen);
        QMetaObject::invokeMethod(dialog, "accept");
    });
    guitest::find<QAction>(w, QStringLiteral("exportAllViewsAction"))->trigger();
    QCOMPARE(startedIn, last);
    QCOMPARE(lastFolder(FolderUse::Export), chosen);
    QVERIFY(QFileInfo::exists(QDir(chosen).filePath(QStringLiteral("pipeline.png"))));
}

QTEST_MAIN(TestViewExport)
#include "tst_viewexport.moc"
