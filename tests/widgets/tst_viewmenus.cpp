// SPDX-License-Identifier: GPL-3.0-or-later
// Every view of the window exports and copies through one mechanism
// (ViewExportController): a right-click menu on every map and plot with
// Copy, Export picture… and Export numbers…; pictures of every view in PNG
// (of the asked pixel size), SVG and PDF; the export options (focus box,
// colour ranges, font scale) change the picture; the export dialog restores
// the last format and size; the numbers read back exactly; no label shows a
// literal '&'.

#include "mainwindow.h"
#include "exportactions.h"
#include "trainingview.h"
#include "session.h"

#include "exportdialog.h"
#include "heatmapview.h"
#include "matrixio.h"
#include "numberformat.h"
#include "pipelineview.h"
#include "scalinglabview.h"
#include "scorehistogramview.h"
#include "viewexportcontroller.h"
#include "csv.h"
#include "guitest.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QSet>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <qcustomplot.h>

using guitest::find;
using namespace attnlab;

namespace {

int distinctColours(const QImage& image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    return colours.size();
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A single '&' that Qt would turn into an underline, or show as it is.
bool hasMnemonic(const QString& text)
{
    for (int i = 0; i + 1 < text.size(); ++i)
        if (text[i] == QLatin1Char('&')) {
            if (text[i + 1] == QLatin1Char('&'))
                ++i;
            else if (!text[i + 1].isSpace())
                return true;
        }
    return false;
}

// Small curves so that the lab's plots have something to draw.
attn::ScalingLabCurves smallCurves()
{
    attn::ScalingLabConfig config;
    config.samples = 50;
    config.dks = {1, 4, 16, 64, 256, 1024};
    attn::Expected<attn::ScalingLabCurves> curves = attn::runScalingLab(config);
    return curves ? curves.value() : attn::ScalingLabCurves();
}

}  // namespace

class TestViewMenus : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void everyViewIsOffered();
    void everyViewExports_data();
    void everyViewExports();
    void rightClickMenuOnEveryMapAndPlot();
    void optionsChangeThePicture();
    void dialogExportsAndRemembers();
    void numbersReadBackExactly();
    void noLiteralAmpersandInLabels();

private:
    QTemporaryDir dir_;
};

void TestViewMenus::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(dir_, QStringLiteral("Attention Lab")));
}

void TestViewMenus::init()
{
    QSettings().clear();
}

void TestViewMenus::everyViewIsOffered()
{
    MainWindow w;
    const QList<ExportView> views = w.exports()->controller()->views();
    for (ExportView v :
         {ExportView::RawScores, ExportView::ScaledScores, ExportView::Weights, ExportView::Queries,
          ExportView::Keys, ExportView::Values, ExportView::Context, ExportView::ScoreHistogram,
          ExportView::Pipeline, ExportView::ScalingComparison, ExportView::FocusedQuery,
          ExportView::LabVariance, ExportView::LabMaxWeight, ExportView::LabEntropy, ExportView::LabJacobian})
        QVERIFY2(views.contains(v), qPrintable(ViewExporter::viewName(v)));
    // Each once, each with its own file name.
    QSet<QString> stems;
    for (ExportView v : views)
        stems.insert(w.exports()->controller()->stem(v));
    QCOMPARE(stems.size(), views.size());
}

void TestViewMenus::everyViewExports_data()
{
    QTest::addColumn<int>("view");
    MainWindow w;
    for (ExportView v : w.exports()->controller()->views())
        QTest::newRow(qPrintable(ViewExporter::fileStem(v))) << int(v);
}

void TestViewMenus::everyViewExports()
{
    QFETCH(int, view);
    MainWindow w;
    w.resize(1400, 900);
    find<ScalingLabView>(w, QStringLiteral("scalingLabView"))->setCurves(smallCurves());
    // The heads' views draw several heads (with one, there is nothing to show).
    if (ExportView(view) == ExportView::HeadGrid || ExportView(view) == ExportView::HeadAverage
        || ExportView(view) == ExportView::HeadConcat || ExportView(view) == ExportView::HeadOutput) {
        attn::HeadsConfig heads;
        heads.heads = 3;
        heads.outputProjection = true;
        w.session()->setHeadsConfig(heads);
        QCOMPARE(w.session()->published()->headCount(), 3);
    }
    // The training lab's plots draw steps taken (before the first, there is nothing to show).
    if (ExportView(view) >= ExportView::TrainingLoss && ExportView(view) <= ExportView::TrainingSaturated) {
        auto* training = w.findChild<TrainingView*>();
        QVERIFY(training);
        for (int i = 0; i < 3; ++i) {
            QSignalSpy shown(training, &TrainingView::snapshotShown);
            training->step();
            QVERIFY(shown.wait(20000));
        }
    }
    ViewExportController* exports = w.exports()->controller();
    const ExportOptions options = exports->defaultOptions();
    const QSize size(640, 420);
    const attn::Expected<QByteArray> png =
        exports->picture(ExportView(view), ImageFormat::Png, size, 1.5, options);
    QVERIFY(png);
    QImage image;
    QVERIFY(image.loadFromData(png.value(), "PNG"));
    QCOMPARE(image.size(), QSize(960, 630));
    QVERIFY2(distinctColours(image) >= 8, qPrintable(QString::number(distinctColours(image))));

    const attn::Expected<QByteArray> svg =
        exports->picture(ExportView(view), ImageFormat::Svg, size, 1.0, options);
    QVERIFY(svg);
    QVERIFY(svg.value().size() > 1000);
    QXmlStreamReader xml(svg.value());
    int elements = 0;
    while (!xml.atEnd())
        elements += xml.readNext() == QXmlStreamReader::StartElement;
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(elements > 10);

    const attn::Expected<QByteArray> pdf =
        exports->picture(ExportView(view), ImageFormat::Pdf, size, 1.0, options);
    QVERIFY(pdf);
    QVERIFY(pdf.value().startsWith("%PDF"));
    QVERIFY(pdf.value().size() > 1000);

    // The numbers too.
    const attn::Expected<std::string> csv = exports->numbers(ExportView(view));
    QVERIFY2(csv, csv ? "" : csv.error().message.c_str());
    QVERIFY(csv.value().size() > 20);
}

void TestViewMenus::rightClickMenuOnEveryMapAndPlot()
{
    MainWindow w;
    w.restoreSettings();
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    find<ScalingLabView>(w, QStringLiteral("scalingLabView"))->setCurves(smallCurves());
    PipelineView* p = find<PipelineView>(w, QStringLiteral("pipelineView"));
    struct Target {
        QWidget* widget;
        ExportView view;
    };
    QList<Target> targets;
    const QList<HeatmapView*> maps = p->maps();
    for (int i = 0; i < maps.size(); ++i)
        targets.append({maps[i], ExportView(int(ExportView::RawScores) + i)});
    targets.append({find<QWidget>(w, QStringLiteral("pipelinePage")), ExportView::Pipeline});
    // A child of the comparison view: the menu is the view's.
    targets.append({find<HeatmapView>(w, QStringLiteral("scaledWeightsMap")), ExportView::ScalingComparison});
    targets.append(
        {find<HeatmapView>(w, QStringLiteral("unscaledWeightsMap")), ExportView::ScalingComparison});
    targets.append(
        {find<ScoreHistogramView>(w, QStringLiteral("scoreHistogramView")), ExportView::ScoreHistogram});
    for (int i = 0; i < ScalingLabView::kPlotCount; ++i)
        targets.append(
            {find<ScalingLabView>(w, QStringLiteral("scalingLabView"))->plot(ScalingLabView::Plot(i)),
             ExportView(int(ExportView::LabVariance) + i)});
    targets.append({find<QCustomPlot>(w, QStringLiteral("focusPlot")), ExportView::FocusedQuery});

    for (const Target& t : targets) {
        p->showPage(t.widget);
        QApplication::processEvents();
        const QString where = t.widget->objectName() + QLatin1Char(' ') + ViewExporter::fileStem(t.view);
        QContextMenuEvent event(QContextMenuEvent::Mouse, QPoint(20, 20),
                                t.widget->mapToGlobal(QPoint(20, 20)));
        QApplication::sendEvent(t.widget, &event);
        QTRY_VERIFY2(qobject_cast<QMenu*>(QApplication::activePopupWidget()), qPrintable(where));
        auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        QCOMPARE(menu->title(), ViewExporter::viewName(t.view));
        QStringList texts;
        for (QAction* a : menu->actions())
            texts.append(a->text());
        QCOMPARE(texts, QStringList({QStringLiteral("&Copy"), QStringLiteral("Export &picture…"),
                                     QStringLiteral("Export &numbers…")}));
        QGuiApplication::clipboard()->clear();
        menu->actions().first()->trigger();
        menu->close();
        const QImage copied = QGuiApplication::clipboard()->image();
        QVERIFY2(!copied.isNull(), qPrintable(where));
        QCOMPARE(copied.size(), (QSizeF(ViewExporter::defaultSize(t.view)) * w.devicePixelRatioF()).toSize());
        QVERIFY2(distinctColours(copied) >= 8, qPrintable(where));
    }
}

void TestViewMenus::optionsChangeThePicture()
{
    MainWindow w;
    find<ScalingLabView>(w, QStringLiteral("scalingLabView"))->setCurves(smallCurves());
    ViewExportController* exports = w.exports()->controller();
    const QSize size(600, 500);
    const auto picture = [&](ExportView view, const ExportOptions& o) {
        return exports->image(view, size, 1.0, o);
    };
    ExportOptions plain;
    ExportOptions noFocus;
    noFocus.focusBox = false;
    ExportOptions independent;
    independent.independentRanges = true;
    ExportOptions large;
    large.fontScale = 2.0;
    QCOMPARE(picture(ExportView::Weights, plain), picture(ExportView::Weights, plain));
    QVERIFY(picture(ExportView::Weights, plain) != picture(ExportView::Weights, noFocus));
    QVERIFY(picture(ExportView::ScalingComparison, plain) != picture(ExportView::ScalingComparison, noFocus));
    // The article example's raw scores span far more than the scaled ones.
    QVERIFY(picture(ExportView::ScaledScores, plain) != picture(ExportView::ScaledScores, independent));
    QVERIFY(picture(ExportView::Pipeline, plain) != picture(ExportView::Pipeline, independent));
    for (ExportView v : {ExportView::Weights, ExportView::Pipeline, ExportView::LabEntropy})
        QVERIFY2(picture(v, plain) != picture(v, large), qPrintable(ViewExporter::fileStem(v)));
    // Larger text: the title's ink reaches lower down the picture.
    const auto inkRows = [](const QImage& image) {
        int rows = 0;
        for (int y = 0; y < image.height() / 8; ++y)
            for (int x = 0; x < image.width(); ++x)
                if (qGray(image.pixel(x, y)) < 128) {
                    ++rows;
                    break;
                }
        return rows;
    };
    QVERIFY(inkRows(picture(ExportView::Pipeline, large)) > inkRows(picture(ExportView::Pipeline, plain)));
}

void TestViewMenus::dialogExportsAndRemembers()
{
    MainWindow w;
    ViewExportController* exports = w.exports()->controller();
    const QString path = dir_.filePath(QStringLiteral("entropy_plot"));
    exports->setSavePathPrompt([&](const QString&, const QString& suggested, const QString&) {
        if (!suggested.endsWith(QLatin1String("scaling_lab_entropy.svg")))
            qWarning("suggested %s", qPrintable(suggested));
        return path;
    });
    exports->setDialogRunner([](ExportDialog& d) {
        if (d.view() != ExportView::LabEntropy)
            return false;
        d.setFormat(ImageFormat::Svg);
        d.setPictureSize(QSize(1280, 720));
        ExportOptions o = d.options();
        o.fontScale = 1.5;
        d.setOptions(o);
        d.accept();
        return true;
    });
    QSignalSpy messages(exports, &ViewExportController::message);
    exports->exportPicture(ExportView::LabEntropy);
    QCOMPARE(messages.size(), 1);
    const QByteArray svg = readAll(path + QStringLiteral(".svg"));
    QVERIFY2(svg.contains("<svg"), qPrintable(messages.first().first().toString()));
    QVERIFY(svg.contains("width=\"1280"));

    // A new dialog opens on the last format, that view's last size and the font scale.
    ExportDialog again(
        QList<ExportDialog::Choice>{{ExportView::LabEntropy, QStringLiteral("entropy"), QSize(820, 560)},
                                    {ExportView::Weights, QStringLiteral("weights"), QSize(900, 800)}},
        nullptr);
    again.setView(ExportView::LabEntropy);
    QCOMPARE(again.format(), ImageFormat::Svg);
    QCOMPARE(again.pictureSize(), QSize(1280, 720));
    QCOMPARE(again.options().fontScale, 1.5);
    again.setView(ExportView::Weights);  // not exported yet: its default size
    QCOMPARE(again.pictureSize(), QSize(900, 800));
    again.setView(ExportView::LabEntropy);
    QCOMPARE(again.pictureSize(), QSize(1280, 720));
    // Cancelled: nothing remembered.
    again.setFormat(ImageFormat::Pdf);
    again.reject();
    QCOMPARE(ExportDialog().format(), ImageFormat::Svg);
}

void TestViewMenus::numbersReadBackExactly()
{
    MainWindow w;
    w.setFocusQuery(3);
    ViewExportController* exports = w.exports()->controller();
    const attn::AttentionResult& r = *w.session()->published()->shown();
    // A map: the labelled matrix, read back to the same doubles.
    const attn::Expected<std::string> weights = exports->numbers(ExportView::Weights);
    QVERIFY(weights);
    const attn::Expected<LabelledMatrix> m = readMatrixCsv(weights.value());
    QVERIFY(m);
    QVERIFY((m.value().values.array() == r.weightsMatrix().array()).all());
    const attn::Expected<std::string> q = exports->numbers(ExportView::Queries);
    QVERIFY(q);
    QVERIFY((readMatrixCsv(q.value()).value().values.array() == r.Q.array()).all());

    // The focused query: one row per key with q.k, the scaled score and the weight.
    const attn::Expected<std::string> focus = exports->numbers(ExportView::FocusedQuery);
    QVERIFY(focus);
    const attn::Expected<std::vector<CsvRow>> rows = parseCsv(focus.value());
    QVERIFY(rows);
    QCOMPARE(int(rows.value().size()), r.tokens() + 1);
    QCOMPARE(rows.value()[0],
             CsvRow({"query_index", "query", "key_index", "key", "score", "scaled_score", "weight"}));
    for (int j = 0; j < r.tokens(); ++j) {
        const CsvRow& row = rows.value()[std::size_t(j + 1)];
        QCOMPARE(row[0], std::string("3"));
        QCOMPARE(row[2], std::to_string(j));
        double score = 0, scaled = 0, weight = 0;
        QVERIFY(parseNumber(row[4], &score) && parseNumber(row[5], &scaled) && parseNumber(row[6], &weight));
        QCOMPARE(score, r.scores(3, j));
        QCOMPARE(scaled, r.scaled(3, j));
        QCOMPARE(weight, r.weights(3, j));
    }

    // A lab plot: one row per d_k.
    const attn::ScalingLabCurves curves = smallCurves();
    find<ScalingLabView>(w, QStringLiteral("scalingLabView"))->setCurves(curves);
    const attn::Expected<std::string> entropy = exports->numbers(ExportView::LabEntropy);
    QVERIFY(entropy);
    const attn::Expected<std::vector<CsvRow>> lab = parseCsv(entropy.value());
    QVERIFY(lab);
    QCOMPARE(lab.value().size(), curves.size() + 1);
    QCOMPARE(lab.value()[0], CsvRow({"d_k", "entropy_unscaled", "entropy_scaled"}));
    for (std::size_t i = 0; i < curves.size(); ++i) {
        QCOMPARE(lab.value()[i + 1][0], std::to_string(curves.dK[i]));
        double v = 0;
        QVERIFY(parseNumber(lab.value()[i + 1][2], &v));
        QCOMPARE(v, curves.entropyScaled[i]);
    }

    // Written to a file by the menu's action.
    const QString path = dir_.filePath(QStringLiteral("weights.csv"));
    exports->setSavePathPrompt([&](const QString&, const QString&, const QString&) { return path; });
    exports->exportNumbers(ExportView::Weights);
    QCOMPARE(readAll(path).toStdString(), weights.value());
}

void TestViewMenus::noLiteralAmpersandInLabels()
{
    MainWindow w;
    w.restoreSettings();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    ExportDialog dialog(&w);
    QList<QWidget*> widgets = w.findChildren<QWidget*>();
    widgets.append(dialog.findChildren<QWidget*>());
    for (QWidget* widget : widgets) {
        const QString where =
            QLatin1String(widget->metaObject()->className()) + QLatin1Char(' ') + widget->objectName();
        QVERIFY2(!hasMnemonic(widget->toolTip()),
                 qPrintable(where + QStringLiteral(": ") + widget->toolTip()));
        QVERIFY2(!hasMnemonic(widget->windowTitle()),
                 qPrintable(where + QStringLiteral(": ") + widget->windowTitle()));
        if (auto* label = qobject_cast<QLabel*>(widget); label && !label->buddy())
            QVERIFY2(!hasMnemonic(label->text()), qPrintable(where + QStringLiteral(": ") + label->text()));
        if (auto* combo = qobject_cast<QComboBox*>(widget))
            for (int i = 0; i < combo->count(); ++i)
                QVERIFY2(!hasMnemonic(combo->itemText(i)),
                         qPrintable(where + QStringLiteral(": ") + combo->itemText(i)));
    }
    for (QAction* a : w.findChildren<QAction*>()) {
        QVERIFY2(!hasMnemonic(a->statusTip()), qPrintable(a->text() + QStringLiteral(": ") + a->statusTip()));
        QVERIFY2(!hasMnemonic(a->toolTip()), qPrintable(a->text() + QStringLiteral(": ") + a->toolTip()));
    }
    for (ExportView v : w.exports()->controller()->views()) {
        std::unique_ptr<QMenu> menu(w.exports()->controller()->createMenu(v, &w));
        QVERIFY2(!hasMnemonic(menu->title()), qPrintable(menu->title()));
        for (QAction* a : menu->actions())
            QVERIFY2(!hasMnemonic(a->statusTip()), qPrintable(a->statusTip()));
    }
}

QTEST_MAIN(TestViewMenus)
#include "tst_viewmenus.moc"
