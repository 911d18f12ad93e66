// SPDX-License-Identifier: GPL-3.0-or-later
// The GPT-2 views' exports in the window (ModelExports through the window's
// ViewExportController), against the command line's files for the same
// state: the tiny reference checkpoint, the lesson sentence typed into the
// sentence field, then `attention-lab --model DIR --sentence TEXT
// --format json,png,svg,pdf --export-dir OUT` run as a user would. File >
// Export all views writes the same model files, the PNGs pixel for pixel,
// the SVGs and model_attention.json byte for byte, with GPT-2's scale, with
// "none" and with a temperature set after the pass. One view's picture is
// the view as shown (the shown layer's head view equals the command line's
// head_view_layer<N>). Without a model the model views are not offered and
// Export all views writes the rest. The Lens page's rollout and A/B
// difference maps export alone once computed: their numbers against a
// plain-loop rollout of the shown pass and the pass's own weights; the
// difference's picture is --compare's, pixel for pixel.
#include "modelsession.h"
#include "exportactions.h"
#include "guitest.h"
#include "headlabpanel.h"
#include "headlinesview.h"
#include "heatmapview.h"
#include "lenspanel.h"
#include "mainwindow.h"
#include "modelcontroller.h"
#include "modelexports.h"
#include "modelcomparison.h"
#include "modelgridview.h"
#include "modelpanel.h"
#include "modelreadings.h"
#include "nexttokenview.h"
#include "pipelineview.h"
#include "runapp.h"
#include "testdata.h"
#include "viewexportcontroller.h"

#include <QClipboard>
#include <QContextMenuEvent>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnlab;

namespace {

QString tinyFolder()
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");
}

QString lessonSentence()
{
    return testdata::readJson(QStringLiteral("gpt2/tiny-gpt2/reference.json"))["cases"]
        .toArray()[0]
        .toObject()["sentence"]
        .toString();
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The model's files among a folder's (the window's Export all views writes the other views too).
QStringList modelFiles(const QString& dir)
{
    QStringList out;
    for (const QString& name : QDir(dir).entryList(QDir::Files, QDir::Name))
        if (name.startsWith(QLatin1String("model_")) || name.startsWith(QLatin1String("head_view"))
            || name.startsWith(QLatin1String("next_token")))
            out << name;
    return out;
}

bool samePng(const QByteArray& a, const QByteArray& b, QString* why)
{
    QImage x, y;
    if (!x.loadFromData(a, "PNG") || !y.loadFromData(b, "PNG")) {
        *why = QStringLiteral("not a PNG");
        return false;
    }
    if (x.size() != y.size()) {
        *why = QStringLiteral("%1 x %2 against %3 x %4")
                   .arg(x.width())
                   .arg(x.height())
                   .arg(y.width())
                   .arg(y.height());
        return false;
    }
    x = x.convertToFormat(QImage::Format_ARGB32);
    y = y.convertToFormat(QImage::Format_ARGB32);
    for (int r = 0; r < x.height(); ++r)
        for (int c = 0; c < x.width(); ++c)
            if (x.pixel(c, r) != y.pixel(c, r)) {
                *why = QStringLiteral("pixel (%1, %2) differs").arg(c).arg(r);
                return false;
            }
    return true;
}

class Window {
public:
    Window() : window_(guitest::shownWindow<MainWindow>(QSize(1280, 800))) {}
    MainWindow* operator->() const { return window_.get(); }
    MainWindow& operator*() const { return *window_; }
    ModelSession* session() const { return window_->models()->session(); }

    bool open(const QString& folder = tinyFolder())
    {
        QSignalSpy opened(session(), &ModelSession::modelOpened);
        window_->models()->openModel(folder);
        return opened.wait(10000);
    }
    bool type(const QString& sentence)
    {
        QSignalSpy changed(session(), &ModelSession::resultChanged);
        QLineEdit* edit = guitest::find<QLineEdit>(*window_, QStringLiteral("sentenceEdit"));
        if (!edit)
            return false;
        edit->selectAll();
        QTest::keyClick(edit, Qt::Key_Delete);
        QTest::keyClicks(edit, sentence);
        return QTest::qWaitFor([&] { return !changed.isEmpty() && !session()->isComputing(); }, 10000)
               && session()->result() && session()->sentence() == sentence;
    }
    // A pass requested by a what-if edit, waited for.
    bool scaleNone()
    {
        QSignalSpy changed(session(), &ModelSession::resultChanged);
        if (!session()->setScale(attn::ScaleMode::None, 0.0, ScaleScope::AllLayers))
            return false;
        return changed.wait(10000) && !session()->isComputing();
    }

private:
    std::unique_ptr<MainWindow> window_;
};

}  // namespace

class TestModelExports : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void noModelNoModelViews();
    void exportAllIsTheCommandLines_data();
    void exportAllIsTheCommandLines();
    void oneViewAsShown();
    void rightClickMenus();
    void ropeIsTheCommandLines();
    void lensMaps();

private:
    QTemporaryDir settingsDir_;
};

void TestModelExports::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestModelExports::noModelNoModelViews()
{
    Window w;
    QVERIFY(w.operator->());
    ViewExportController* exports = w->exports()->controller();
    const QList<ExportView> views = exports->views();
    for (const ExportView v :
         {ExportView::ModelGrid, ExportView::ModelHeadView, ExportView::ModelNextToken,
          ExportView::ModelRotary, ExportView::ModelRollout, ExportView::ModelDifference}) {
        QVERIFY2(!views.contains(v), qPrintable(ViewExporter::viewName(v)));
        QVERIFY(exports->hasView(v));
        const attn::Expected<QByteArray> png =
            exports->picture(v, ImageFormat::Png, QSize(400, 300), 1.0, exports->defaultOptions());
        QVERIFY(!png);
        QVERIFY2(QString::fromStdString(png.error().message).startsWith(QStringLiteral("No model is open")),
                 png.error().message.c_str());
        QVERIFY(!exports->numbers(v));
    }
    QVERIFY(views.contains(ExportView::Pipeline));
    // Export all views writes every other view and says nothing of the model.
    QTemporaryDir out;
    const attn::Status written = w->exports()->exportAllViews(out.path());
    QVERIFY2(written, written ? "" : written.error().message.c_str());
    QVERIFY(QFile::exists(out.filePath(QStringLiteral("pipeline.png"))));
    QCOMPARE(modelFiles(out.path()), QStringList());
    ModelExports* model = w->models()->exports();
    QVERIFY(!model->hasResult());
    QVERIFY(model->jsonFiles().empty());
    const attn::Status json = model->exportJson(out.filePath(QStringLiteral("m.json")));
    QVERIFY(!json);
    QVERIFY(!QFile::exists(out.filePath(QStringLiteral("m.json"))));
}

void TestModelExports::exportAllIsTheCommandLines_data()
{
    QTest::addColumn<QString>("state");
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("sqrt-dk") << QString() << QStringList();
    QTest::newRow("scale none") << QStringLiteral("none")
                                << QStringList{QStringLiteral("--scale"), QStringLiteral("none")};
    QTest::newRow("temperature 2") << QStringLiteral("T2")
                                   << QStringList{QStringLiteral("--temperature"), QStringLiteral("2")};
    // The head lab: heads ablated in the window are --ablate's files (the
    // ablated pass, its next tokens, next_token_intact); the probe --probe's.
    QTest::newRow("ablate") << QStringLiteral("ablate")
                            << QStringList{QStringLiteral("--ablate"), QStringLiteral("0.0,1.2"),
                                           QStringLiteral("--ablation"), QStringLiteral("mean")};
    QTest::newRow("probe ablated") << QStringLiteral("probe")
                                   << QStringList{QStringLiteral("--probe"), QStringLiteral("repeat:5:3"),
                                                  QStringLiteral("--ablate"), QStringLiteral("0.1")};
}

void TestModelExports::exportAllIsTheCommandLines()
{
    QFETCH(QString, state);
    QFETCH(QStringList, arguments);
    Window w;
    QVERIFY(w.open());
    const QString sentence = lessonSentence();
    QVERIFY(w.type(sentence));
    if (state == QLatin1String("none"))
        QVERIFY(w.scaleNone());
    if (state == QLatin1String("T2"))
        QVERIFY(w.session()->setTemperature(2.0));
    if (state == QLatin1String("ablate")) {
        QVERIFY(w.session()->setAblation({{1, 2}, {0, 0}}, attn::HeadAblation::Mean));
        QVERIFY(QTest::qWaitFor([&] { return !w.session()->isComputing(); }, 10000));
        QVERIFY(w->models()->exports()->exportsAblated());
    }
    if (state == QLatin1String("probe")) {
        QVERIFY(w.session()->setProbe(RepeatProbe{5, 3}));
        QVERIFY(w.session()->setAblation({{0, 1}}, attn::HeadAblation::Zero));
        QVERIFY(QTest::qWaitFor([&] { return !w.session()->isComputing(); }, 10000));
        QVERIFY(w.session()->resultProbe() && w.session()->ablatedProbeLoss());
    }
    // Another selection and layer than the first: Export all views is the
    // command line's set whatever is selected.
    w.session()->selectHead(1, 2);

    QTemporaryDir window;
    const attn::Status written = w->exports()->exportAllViews(window.path());
    QVERIFY2(written, written ? "" : written.error().message.c_str());
    QTemporaryDir cli;
    QStringList input{QStringLiteral("--sentence"), sentence};
    if (state == QLatin1String("probe"))
        input.clear();  // the probe instead of the sentence
    const apptest::Run run =
        apptest::runApp(QStringList{QStringLiteral("--model"), tinyFolder()} + input
                        + QStringList{QStringLiteral("--export-dir"), cli.path(), QStringLiteral("--format"),
                                      QStringLiteral("json,png,svg,pdf")}
                        + arguments);
    QVERIFY2(run.exitCode == 0, run.err.constData());

    const QStringList expected = modelFiles(cli.path());
    // model_view, head_view_layer1, head_view_layer2, next_token in three formats, and the JSON.
    QCOMPARE(expected.size(), 13);
    QCOMPARE(modelFiles(window.path()), expected);
    for (const QString& name : expected) {
        const QByteArray mine = readAll(window.filePath(name));
        const QByteArray theirs = readAll(cli.filePath(name));
        QVERIFY2(!mine.isEmpty(), qPrintable(name));
        if (name.endsWith(QLatin1String(".png"))) {
            QString why;
            QVERIFY2(samePng(mine, theirs, &why), qPrintable(name + QStringLiteral(": ") + why));
        } else if (name.endsWith(QLatin1String(".pdf"))) {
            QVERIFY(mine.startsWith("%PDF"));
        } else {
            QVERIFY2(mine == theirs, qPrintable(name));  // SVG and JSON: the same bytes
        }
    }
    // The state shows in the files: the scale in the titles and the JSON,
    // the temperature in the JSON's probabilities.
    const QJsonObject json = apptest::readJsonFile(window.filePath(QStringLiteral("model_attention.json")));
    QCOMPARE(json["temperature"].toDouble(), state == QLatin1String("T2") ? 2.0 : 1.0);
    QCOMPARE(json["scale"].toObject()["mode"].toString(),
             state == QLatin1String("none") ? QStringLiteral("none") : QStringLiteral("sqrt-dk"));
    QCOMPARE(readAll(window.filePath(QStringLiteral("model_view.svg"))).contains("scale none"),
             state == QLatin1String("none"));
    QCOMPARE(json.contains(QStringLiteral("ablated")),
             state == QLatin1String("ablate") || state == QLatin1String("probe"));
    QCOMPARE(json.contains(QStringLiteral("probe")), state == QLatin1String("probe"));

    // File > Export model attention (JSON) writes the same file.
    const QString single = window.filePath(QStringLiteral("single.json"));
    QVERIFY(w->models()->exports()->exportJson(single));
    QCOMPARE(readAll(single), readAll(cli.filePath(QStringLiteral("model_attention.json"))));
}

void TestModelExports::oneViewAsShown()
{
    Window w;
    QVERIFY(w.open());
    const QString sentence = lessonSentence();
    QVERIFY(w.type(sentence));
    w.session()->selectHead(0, 3);  // the head view shows layer 1 (0-based 0)
    ViewExportController* exports = w->exports()->controller();
    for (const ExportView v : {ExportView::ModelGrid, ExportView::ModelHeadView, ExportView::ModelNextToken})
        QVERIFY2(exports->views().contains(v), qPrintable(ViewExporter::viewName(v)));

    QTemporaryDir cli;
    const apptest::Run run = apptest::runApp(
        {QStringLiteral("--model"), tinyFolder(), QStringLiteral("--sentence"), sentence,
         QStringLiteral("--export-dir"), cli.path(), QStringLiteral("--format"), QStringLiteral("png,svg")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const ExportOptions options = exports->defaultOptions();
    const auto picture = [&](ExportView v, ImageFormat format) {
        const attn::Expected<QByteArray> bytes =
            exports->picture(v, format, exports->defaultSize(v), 1.0, options);
        return bytes ? bytes.value() : QByteArray();
    };
    QString why;
    QVERIFY2(samePng(picture(ExportView::ModelHeadView, ImageFormat::Png),
                     readAll(cli.filePath(QStringLiteral("head_view_layer1.png"))), &why),
             qPrintable(why));
    QCOMPARE(picture(ExportView::ModelHeadView, ImageFormat::Svg),
             readAll(cli.filePath(QStringLiteral("head_view_layer1.svg"))));
    QVERIFY2(samePng(picture(ExportView::ModelNextToken, ImageFormat::Png),
                     readAll(cli.filePath(QStringLiteral("next_token.png"))), &why),
             qPrintable(why));
    // The model view as shown outlines the selected head: the same size as
    // the command line's, not the same pixels.
    const QByteArray grid = picture(ExportView::ModelGrid, ImageFormat::Png);
    QVERIFY(!samePng(grid, readAll(cli.filePath(QStringLiteral("model_view.png"))), &why));
    QVERIFY2(why.startsWith(QStringLiteral("pixel")), qPrintable(why));

    // The next tokens' numbers at the window's temperature, as CSV.
    QVERIFY(w.session()->setTemperature(2.0));
    const attn::Expected<std::string> csv = exports->numbers(ExportView::ModelNextToken);
    QVERIFY(csv);
    const QStringList rows = QString::fromStdString(csv.value()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 11);
    QCOMPARE(rows.first(), QStringLiteral("rank,id,token,logit,probability,temperature"));
    const attn::TopToken& top = w.session()->nextTokens().front();
    QVERIFY(rows[1].startsWith(QStringLiteral("1,%1,").arg(top.id)));
    QVERIFY(rows[1].endsWith(QStringLiteral(",2")));
    const QStringList fields = rows[1].split(QLatin1Char(','));
    QCOMPARE(fields[fields.size() - 2].toDouble(), top.probability);
    // The grid's numbers point to the JSON.
    const attn::Expected<std::string> gridNumbers = exports->numbers(ExportView::ModelGrid);
    QVERIFY(!gridNumbers);
    QVERIFY(QString::fromStdString(gridNumbers.error().message).contains(QStringLiteral("JSON")));
}

void TestModelExports::rightClickMenus()
{
    Window w;
    QVERIFY(w.open());
    QVERIFY(w.type(lessonSentence()));
    ModelController* models = w->models();
    const struct {
        QWidget* widget;
        ExportView view;
    } targets[] = {
        {models->panel()->grid(), ExportView::ModelGrid},
        {guitest::find<HeadLinesView>(*w, QStringLiteral("modelHeadLines")), ExportView::ModelHeadView},
        {models->panel()->nextTokenView(), ExportView::ModelNextToken}};
    const int selectedLayer = w.session()->selectedLayer();
    const int selectedHead = w.session()->selectedHead();
    for (const auto& t : targets) {
        guitest::find<PipelineView>(*w, QStringLiteral("pipelineView"))
            ->showPage(t.widget
                               == static_cast<QWidget*>(
                                   guitest::find<HeadLinesView>(*w, QStringLiteral("modelHeadLines")))
                           ? t.widget
                           : models->panel());
        QApplication::processEvents();
        QContextMenuEvent event(QContextMenuEvent::Mouse, QPoint(30, 30),
                                t.widget->mapToGlobal(QPoint(30, 30)));
        QApplication::sendEvent(t.widget, &event);
        QTRY_VERIFY(qobject_cast<QMenu*>(QApplication::activePopupWidget()));
        auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        QCOMPARE(menu->title(), ViewExporter::viewName(t.view));
        QCOMPARE(menu->actions().size(), 3);
        QGuiApplication::clipboard()->clear();
        menu->actions().first()->trigger();  // Copy
        menu->close();
        const QImage copied = QGuiApplication::clipboard()->image();
        QVERIFY(!copied.isNull());
        QCOMPARE(copied.size(),
                 (QSizeF(ViewExporter::defaultSize(t.view)) * w->devicePixelRatioF()).toSize());
    }
    // The right button picked no head.
    QCOMPARE(w.session()->selectedLayer(), selectedLayer);
    QCOMPARE(w.session()->selectedHead(), selectedHead);
}

// A model with RoPE: Export all views adds the selected head's rope.json
// and rope pictures, byte for byte and pixel for pixel those of --rope L.H;
// the RoPE view exports alone with its numbers. GPT-2 offers no RoPE view.
void TestModelExports::ropeIsTheCommandLines()
{
    Window w;
    QVERIFY(w.open());
    QVERIFY(w.type(QStringLiteral("The cat sat")));
    ViewExportController* exports = w->exports()->controller();
    QVERIFY(!exports->views().contains(ExportView::ModelRotary));
    QVERIFY(w.open(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/tiny-llama")));
    const QString sentence = QStringLiteral("The cat sat on the mat");
    QVERIFY(w.type(sentence));
    w.session()->selectHead(1, 3);
    QVERIFY(exports->views().contains(ExportView::ModelRotary));

    QTemporaryDir window;
    const attn::Status written = w->exports()->exportAllViews(window.path());
    QVERIFY2(written, written ? "" : written.error().message.c_str());
    QTemporaryDir cli;
    const apptest::Run run =
        apptest::runApp({QStringLiteral("--model"), QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/tiny-llama"),
                         QStringLiteral("--sentence"), sentence, QStringLiteral("--rope"),
                         QStringLiteral("1.3"), QStringLiteral("--export-dir"), cli.path(),
                         QStringLiteral("--format"), QStringLiteral("json,png,svg")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QByteArray json = readAll(window.filePath(QStringLiteral("rope.json")));
    QVERIFY(json.contains("\"layer\": 1"));
    QCOMPARE(json, readAll(cli.filePath(QStringLiteral("rope.json"))));
    QCOMPARE(readAll(window.filePath(QStringLiteral("rope.svg"))),
             readAll(cli.filePath(QStringLiteral("rope.svg"))));
    QString why;
    QVERIFY2(samePng(readAll(window.filePath(QStringLiteral("rope.png"))),
                     readAll(cli.filePath(QStringLiteral("rope.png"))), &why),
             qPrintable(why));
    QVERIFY(readAll(window.filePath(QStringLiteral("rope.pdf"))).startsWith("%PDF"));

    // The view alone, and its numbers: one row per query and key.
    const attn::Expected<QByteArray> png = exports->picture(ExportView::ModelRotary, ImageFormat::Png,
                                                            QSize(700, 400), 1.0, exports->defaultOptions());
    QVERIFY(png);
    const attn::Expected<std::string> csv = exports->numbers(ExportView::ModelRotary);
    QVERIFY(csv);
    const QStringList rows = QString::fromStdString(csv.value()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const int n = int(w.session()->resultTokens().size());
    QCOMPARE(rows.size(), 1 + n * n);
    QCOMPARE(rows.first(),
             QStringLiteral("query,key,distance,visible,score_without_rotation,score_with_rotation"));
    const QJsonObject rope = apptest::readJsonFile(window.filePath(QStringLiteral("rope.json")));
    const QStringList last = rows.last().split(QLatin1Char(','));
    QCOMPARE(last[5].toDouble(), rope["scores_with_rotation"].toArray()[n - 1].toArray()[n - 1].toDouble());
}

QTEST_MAIN(TestModelExports)
namespace {

// Rollout written out: B_l = 0.5 (mean of layer l's heads' weights) + 0.5 I,
// rows renormalised; R = B_L ... B_1.
attn::Matrix plainRollout(const attn::DecoderResult& pass)
{
    const int n = pass.tokens();
    std::vector<std::vector<double>> r(std::size_t(n), std::vector<double>(std::size_t(n), 0.0));
    for (int i = 0; i < n; ++i)
        r[std::size_t(i)][std::size_t(i)] = 1.0;
    for (const attn::DecoderLayer& layer : pass.layers) {
        std::vector<std::vector<double>> b(std::size_t(n), std::vector<double>(std::size_t(n), 0.0));
        const double heads = double(layer.heads.size());
        for (const attn::AttentionResult& head : layer.heads) {
            const attn::Matrix w = head.weightsMatrix();
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    b[std::size_t(i)][std::size_t(j)] += 0.5 * w(i, j) / heads;
        }
        for (int i = 0; i < n; ++i) {
            b[std::size_t(i)][std::size_t(i)] += 0.5;
            double sum = 0.0;
            for (int j = 0; j < n; ++j)
                sum += b[std::size_t(i)][std::size_t(j)];
            for (int j = 0; j < n; ++j)
                b[std::size_t(i)][std::size_t(j)] /= sum;
        }
        std::vector<std::vector<double>> next(std::size_t(n), std::vector<double>(std::size_t(n), 0.0));
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < n; ++k)
                for (int j = 0; j < n; ++j)
                    next[std::size_t(i)][std::size_t(j)] +=
                        b[std::size_t(i)][std::size_t(k)] * r[std::size_t(k)][std::size_t(j)];
        r = std::move(next);
    }
    attn::Matrix out(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            out(i, j) = r[std::size_t(i)][std::size_t(j)];
    return out;
}

// A CSV of cellTableCsv's shape: its rows split into fields (no quoted commas in these tokens).
QList<QStringList> csvRows(const std::string& csv)
{
    QList<QStringList> rows;
    for (const QString& line : QString::fromStdString(csv).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        rows << line.split(QLatin1Char(','));
    return rows;
}

int inkedPixels(const QByteArray& png)
{
    QImage image;
    if (!image.loadFromData(png, "PNG"))
        return -1;
    int inked = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            inked += image.pixel(x, y) != qRgb(255, 255, 255) ? 1 : 0;
    return inked;
}

}  // namespace

void TestModelExports::lensMaps()
{
    Window w;
    QVERIFY(w.open());
    const QString sentence = QStringLiteral("The cat sat on the mat. The cat sat");
    QVERIFY(w.type(sentence));
    ViewExportController* exports = w->exports()->controller();
    ModelPanel* panel = w->models()->panel();
    // Not computed (the Lens page never shown): not offered, refused with the reason.
    QVERIFY(!exports->views().contains(ExportView::ModelRollout));
    const attn::Expected<std::string> early = exports->numbers(ExportView::ModelRollout);
    QVERIFY(!early);
    QVERIFY2(QString::fromStdString(early.error().message).contains(QStringLiteral("Lens page")),
             early.error().message.c_str());

    LensPanel* lens = panel->lensPanel();
    panel->headLab()->setCurrentWidget(lens);
    lens->setReading(LensPanel::Reading::Rollout);
    QVERIFY(QTest::qWaitFor(
        [&] { return !panel->readings()->isComputing() && panel->readings()->hasReadings(); }, 20000));
    QVERIFY(exports->views().contains(ExportView::ModelRollout));
    // The view's right-click menu is the export's.
    QContextMenuEvent event(QContextMenuEvent::Mouse, QPoint(30, 30),
                            lens->rolloutView()->mapToGlobal(QPoint(30, 30)));
    QApplication::sendEvent(lens->rolloutView(), &event);
    QTRY_VERIFY(qobject_cast<QMenu*>(QApplication::activePopupWidget()));
    auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
    QCOMPARE(menu->title(), ViewExporter::viewName(ExportView::ModelRollout));
    QCOMPARE(menu->actions().size(), 3);
    menu->close();
    const int n = w.session()->result()->tokens();
    const attn::Matrix want = plainRollout(*w.session()->result());
    const attn::Expected<std::string> rollout = exports->numbers(ExportView::ModelRollout);
    QVERIFY(rollout);
    QList<QStringList> rows = csvRows(rollout.value());
    QCOMPARE(rows.size(), 1 + n * n);
    QCOMPARE(rows.first(), (QStringList{"query_index", "query", "key_index", "key", "rollout"}));
    for (int r = 1; r < rows.size(); ++r) {
        const int i = rows[r][0].toInt(), j = rows[r][2].toInt();
        QCOMPARE(rows[r][1], w.session()->resultTokens()[std::size_t(i)].display);
        QVERIFY2(std::abs(rows[r][4].toDouble() - want(i, j)) <= 1e-12, qPrintable(rows[r].join(',')));
    }
    const attn::Expected<QByteArray> rolloutPng = exports->picture(
        ExportView::ModelRollout, ImageFormat::Png, QSize(600, 600), 1.0, exports->defaultOptions());
    QVERIFY(rolloutPng);
    QVERIFY(inkedPixels(rolloutPng.value()) > 600 * 600 / 10);  // the cells, not a white page

    // The difference, scaled vs unscaled: A is the shown pass's selected head.
    QVERIFY(!exports->views().contains(ExportView::ModelDifference));
    panel->comparison()->setKind(ComparisonKind::ScaledVsUnscaled);
    lens->setReading(LensPanel::Reading::Difference);
    QVERIFY(QTest::qWaitFor(
        [&] { return !panel->comparison()->isComputing() && panel->comparison()->difference().rows() == n; },
        20000));
    QVERIFY(exports->views().contains(ExportView::ModelDifference));
    const attn::Matrix a = w.session()
                               ->result()
                               ->layers[std::size_t(w.session()->selectedLayer())]
                               .heads[std::size_t(w.session()->selectedHead())]
                               .weightsMatrix();
    const attn::Expected<std::string> difference = exports->numbers(ExportView::ModelDifference);
    QVERIFY(difference);
    rows = csvRows(difference.value());
    QCOMPARE(rows.size(), 1 + n * n);
    QCOMPARE(rows.first(), (QStringList{"query_index", "query", "key_index", "key", "a", "b", "b_minus_a"}));
    double largest = 0.0;
    for (int r = 1; r < rows.size(); ++r) {
        const int i = rows[r][0].toInt(), j = rows[r][2].toInt();
        QCOMPARE(rows[r][4].toDouble(), a(i, j));
        QCOMPARE(rows[r][6].toDouble(), rows[r][5].toDouble() - rows[r][4].toDouble());
        largest = std::max(largest, std::abs(rows[r][6].toDouble()));
    }
    QVERIFY(largest > 1e-3);  // unscaling changes this head's weights
    const attn::Expected<QByteArray> differencePng = exports->picture(
        ExportView::ModelDifference, ImageFormat::Png, QSize(600, 600), 1.0, exports->defaultOptions());
    QVERIFY(differencePng);
    QVERIFY(inkedPixels(differencePng.value()) > 600 * 600 / 10);
    // The command line's --compare draws the same picture, pixel for pixel.
    QTemporaryDir cli;
    const apptest::Run run = apptest::runApp(
        {QStringLiteral("--model"), tinyFolder(), QStringLiteral("--sentence"), sentence,
         QStringLiteral("--compare"), QStringLiteral("unscaled"), QStringLiteral("--compare-map"),
         QStringLiteral("%1.%2").arg(w.session()->selectedLayer()).arg(w.session()->selectedHead()),
         QStringLiteral("--export-dir"), cli.path(), QStringLiteral("--format"), QStringLiteral("png")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const attn::Expected<QByteArray> shown = exports->picture(
        ExportView::ModelDifference, ImageFormat::Png, ViewExporter::defaultSize(ExportView::ModelDifference),
        1.0, exports->defaultOptions());
    QVERIFY(shown);
    QString why;
    QVERIFY2(samePng(shown.value(), readAll(cli.filePath(QStringLiteral("difference.png"))), &why),
             qPrintable(why));
    // Export all views leaves them out, as the command line does.
    QTemporaryDir out;
    const attn::Status written = w->exports()->exportAllViews(out.path());
    QVERIFY2(written, written ? "" : written.error().message.c_str());
    QVERIFY(!QFile::exists(out.filePath(QStringLiteral("rollout.png"))));
    QVERIFY(!QFile::exists(out.filePath(QStringLiteral("difference.png"))));
}

#include "tst_modelexports.moc"
