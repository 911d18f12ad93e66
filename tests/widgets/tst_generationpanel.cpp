// SPDX-License-Identifier: GPL-3.0-or-later
// The Model tab's "Generate" page in the window (real widgets, offscreen),
// on the tiny GPT-2 and the tiny Llama (grouped-query attention: 4 query
// heads share 2 key/value heads), driven by its controls' object names:
// - greedy Generate N gives the ids of N repeated full passes
//   (attn::DecoderModel::run over the growing text, the largest logit
//   each time, computed here), and N Steps the same;
// - the last step's attention map equals the full pass's last row of the
//   selected layer (1e-12);
// - the table's bytes are 2 x layers x key/value heads x head_dim x 8 x
//   cached tokens with the numbers read from config.json here, the other
//   column the same with the query heads;
// - sampling (seeded, temperature, top-k): Generate N equals N Steps and
//   the command line's attn::generate;
// - Reset and a new sentence clear the table and the text;
// - with heads ablated in the head lab (the demo model's induction head,
//   zero and mean) the tokens are those of whole ablated passes, the
//   first one the ablated next-token panel's top token, the page names
//   the heads, and another ablation clears the generation.
#include "decoder_model.h"
#include "demomodel.h"
#include "generation.h"
#include "generationpanel.h"
#include "generationsession.h"
#include "guitest.h"
#include "heatmapview.h"
#include "mainwindow.h"
#include "modelcontroller.h"
#include "modelfamilies.h"
#include "modelgridview.h"
#include "modelpanel.h"
#include "modelsession.h"
#include "nexttokenview.h"
#include "testdata.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace attnlab;

namespace {

struct Shape {
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;
    int headDim = 0;
};

// The cache's shape from config.json, read here (GPT-2's or Llama's keys).
Shape shapeFromConfig(const QString& folder)
{
    QFile file(folder + QStringLiteral("/config.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QJsonObject c = QJsonDocument::fromJson(file.readAll()).object();
    Shape s;
    const bool gpt2 = c.contains(QStringLiteral("n_layer"));
    s.layers = c[gpt2 ? "n_layer" : "num_hidden_layers"].toInt();
    s.heads = c[gpt2 ? "n_head" : "num_attention_heads"].toInt();
    s.kvHeads = gpt2 ? s.heads : c["num_key_value_heads"].toInt(s.heads);
    s.headDim = c[gpt2 ? "n_embd" : "hidden_size"].toInt() / s.heads;
    return s;
}

// The largest logit, the smaller id on a tie.
int argmax(const attn::RowVector& logits)
{
    int best = 0;
    for (int j = 1; j < int(logits.size()); ++j)
        if (logits[j] > logits[best])
            best = j;
    return best;
}

// n greedy tokens by n full passes over the growing text.
std::vector<int> greedyByFullPasses(const attn::DecoderModel& model, std::vector<int> ids, int n,
                                    attn::DecoderRunOptions options = attn::DecoderRunOptions())
{
    std::vector<int> out;
    options.keepMaps = false;
    for (int k = 0; k < n; ++k) {
        const attn::Expected<attn::DecoderResult> pass = model.run(ids, options);
        if (!pass)
            return {};
        out.push_back(argmax(pass->lastLogits));
        ids.push_back(out.back());
    }
    return out;
}

bool typeSentence(MainWindow& window, const QString& sentence)
{
    ModelSession* session = window.models()->session();
    QSignalSpy changed(session, &ModelSession::resultChanged);
    QLineEdit* edit = guitest::find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    if (!edit)
        return false;
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, sentence);
    return QTest::qWaitFor([&] { return !changed.isEmpty() && !session->isComputing(); }, 10000)
           && session->result() && session->sentence() == sentence;
}

std::vector<int> tableIds(QTableWidget* table)
{
    std::vector<int> ids;
    for (int r = 0; r < table->rowCount(); ++r)
        ids.push_back(table->item(r, 1)->data(Qt::UserRole).toInt());
    return ids;
}

const QString kSentence = QStringLiteral("The cat sat on the mat because");

}  // namespace

class TestGenerationPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void greedyEqualsFullPasses_data();
    void greedyEqualsFullPasses();
    void samplingEqualsStepsAndCommandLine();
    void followsTheWhatIfs();
    void followsTheAblation_data();
    void followsTheAblation();

private:
    // Opens `folder`, types the sentence and brings the Generate page forward.
    bool open(MainWindow& window, const QString& folder, const QString& sentence = kSentence);

    QTemporaryDir settingsDir_;
};

void TestGenerationPanel::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

bool TestGenerationPanel::open(MainWindow& window, const QString& folder, const QString& sentence)
{
    ModelSession* session = window.models()->session();
    QSignalSpy opened(session, &ModelSession::modelOpened);
    window.models()->openModel(folder);
    if (!opened.wait(10000) || !typeSentence(window, sentence))
        return false;
    ModelPanel* panel = window.models()->panel();
    auto* tabs = guitest::find<QTabWidget>(*panel, QStringLiteral("modelHeadLab"));
    auto* page = guitest::find<GenerationPanel>(*panel, QStringLiteral("modelGenerationPanel"));
    if (!tabs || !page || tabs->tabText(tabs->indexOf(page)) != QStringLiteral("Generate"))
        return false;
    tabs->setCurrentWidget(page);
    return page->isVisible();
}

// Clicks `button` and waits for the table to hold `steps` rows, done.
static bool click(MainWindow& window, const char* button, int steps)
{
    ModelPanel* panel = window.models()->panel();
    GenerationSession* generation = panel->generation();
    auto* push = guitest::find<QPushButton>(*panel, QLatin1String(button));
    auto* table = guitest::find<QTableWidget>(*panel, QStringLiteral("generateStepsTable"));
    if (!push || !table || !push->isEnabled())
        return false;
    QTest::mouseClick(push, Qt::LeftButton);
    return QTest::qWaitFor([&] { return !generation->isRunning() && table->rowCount() == steps; }, 20000);
}

void TestGenerationPanel::greedyEqualsFullPasses_data()
{
    QTest::addColumn<QString>("folder");
    QTest::newRow("tiny-gpt2") << QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");
    QTest::newRow("tiny-llama") << QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/tiny-llama");
}

void TestGenerationPanel::greedyEqualsFullPasses()
{
    QFETCH(QString, folder);
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1280, 720));
    QVERIFY(window);
    QVERIFY(open(*window, folder));
    ModelPanel* panel = window->models()->panel();
    auto* table = guitest::find<QTableWidget>(*panel, QStringLiteral("generateStepsTable"));
    auto* text = guitest::find<QLabel>(*panel, QStringLiteral("generateText"));
    auto* count = guitest::find<QSpinBox>(*panel, QStringLiteral("generateCountBox"));
    QVERIFY(table && text && count);
    QVERIFY(!guitest::find<QCheckBox>(*panel, QStringLiteral("generateSampleBox"))->isChecked());

    // The reference: the model read here, its passes over the growing text.
    const attn::Expected<ModelFolder> model = readModelFolder(folder);
    QVERIFY(model);
    const std::vector<int> prompt = model->tokenizer->encodeIds(kSentence);
    const int p = int(prompt.size());
    QVERIFY(p > 3);
    const int n = 6;
    const std::vector<int> expected = greedyByFullPasses(*model->decoder, prompt, n);
    QCOMPARE(int(expected.size()), n);

    count->setValue(n);
    QVERIFY(click(*window, "generateButton", n));
    QCOMPARE(tableIds(table), expected);
    QCOMPARE(panel->generation()->promptIds(), prompt);

    const Shape s = shapeFromConfig(folder);
    QVERIFY(s.layers > 0 && s.kvHeads > 0 && s.headDim > 0);
    for (int i = 0; i < n; ++i) {
        const qint64 tokens = p + i;  // the prompt and the tokens before this one
        QCOMPARE(table->item(i, 3)->data(Qt::UserRole).toLongLong(), tokens);
        QCOMPARE(table->item(i, 4)->data(Qt::UserRole).toLongLong(),
                 2LL * s.layers * s.kvHeads * s.headDim * 8 * tokens);
        QCOMPARE(table->item(i, 5)->data(Qt::UserRole).toLongLong(),
                 2LL * s.layers * s.heads * s.headDim * 8 * tokens);
    }
    if (s.kvHeads < s.heads)
        QVERIFY(table->item(0, 4)->data(Qt::UserRole).toLongLong()
                < table->item(0, 5)->data(Qt::UserRole).toLongLong());

    // The last step's row (the query at p + n - 2) against the full pass's
    // last row over the same tokens, in the selected layer.
    ModelSession* session = window->models()->session();
    session->selectHead(1, 0);
    QCOMPARE(panel->generationPanel()->shownStep(), n - 1);
    auto* map = guitest::find<HeatmapView>(*panel, QStringLiteral("generateAttentionMap"));
    const attn::Matrix shown = map->values();
    QCOMPARE(int(shown.rows()), s.heads);
    QCOMPARE(int(shown.cols()), p + n - 1);
    std::vector<int> upTo = prompt;
    upTo.insert(upTo.end(), expected.begin(), expected.end() - 1);
    const attn::Expected<attn::DecoderResult> full = model->decoder->run(upTo, attn::DecoderRunOptions());
    QVERIFY(full);
    for (int h = 0; h < s.heads; ++h) {
        const attn::AttentionResult& r = full->layers[1].heads[std::size_t(h)];
        for (int j = 0; j < p + n - 1; ++j) {
            const double want = r.weights(p + n - 2, j);
            QVERIFY2(std::abs(shown(h, j) - want) <= 1e-12 * std::max(1.0, std::abs(want)),
                     qPrintable(QStringLiteral("head %1 key %2").arg(h).arg(j)));
        }
    }
    // The page has the Model tab's body to itself at 1280 x 720: the grid
    // and the next-token bars step aside, the table shows every step, the
    // map has room for its rows. Its layer box picks the grid's layer.
    QVERIFY(!panel->grid()->isVisible() && !panel->nextTokenView()->isVisible());
    QVERIFY2(table->viewport()->height() >= n * table->rowHeight(0),
             qPrintable(QStringLiteral("%1 px for %2 rows").arg(table->viewport()->height()).arg(n)));
    QVERIFY2(map->height() >= 200, qPrintable(QString::number(map->height())));
    QVERIFY(map->width() >= panel->width() / 3);
    auto* layerBox = guitest::find<QSpinBox>(*panel, QStringLiteral("generateLayerBox"));
    QVERIFY(layerBox);
    QCOMPARE(layerBox->value(), 2);
    layerBox->setValue(1);
    QCOMPARE(session->selectedLayer(), 0);
    const attn::Matrix first = map->values();
    const attn::AttentionResult& r0 = full->layers[0].heads[std::size_t(s.heads - 1)];
    for (int j = 0; j < p + n - 1; ++j)
        QVERIFY(std::abs(first(s.heads - 1, j) - r0.weights(p + n - 2, j)) <= 1e-12);
    auto* tabs = guitest::find<QTabWidget>(*panel, QStringLiteral("modelHeadLab"));
    tabs->setCurrentIndex(0);
    QVERIFY(panel->grid()->isVisible());
    tabs->setCurrentWidget(panel->generationPanel());

    const attn::Expected<QString> continued = model->tokenizer->decode(expected);
    QVERIFY(continued);
    QVERIFY2(text->text().contains(continued->toHtmlEscaped()), qPrintable(text->text()));

    // Reset clears; three Steps give the first three tokens.
    QVERIFY(click(*window, "generateResetButton", 0));
    QVERIFY(panel->generation()->steps().empty());
    QVERIFY(map->values().size() == 0);
    for (int k = 1; k <= 3; ++k)
        QVERIFY(click(*window, "generateStepButton", k));
    QCOMPARE(tableIds(table), std::vector<int>(expected.begin(), expected.begin() + 3));

    // A new sentence clears the generation.
    QVERIFY(typeSentence(*window, QStringLiteral("Life is short, eat dessert first")));
    QTRY_COMPARE(table->rowCount(), 0);
    QVERIFY(panel->generation()->steps().empty());
    QVERIFY(panel->generation()->promptIds().empty());
}

void TestGenerationPanel::samplingEqualsStepsAndCommandLine()
{
    const QString folder = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/tiny-llama");
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1280, 720));
    QVERIFY(window);
    QVERIFY(open(*window, folder));
    ModelPanel* panel = window->models()->panel();
    auto* table = guitest::find<QTableWidget>(*panel, QStringLiteral("generateStepsTable"));
    guitest::find<QCheckBox>(*panel, QStringLiteral("generateSampleBox"))->setChecked(true);
    guitest::find<QDoubleSpinBox>(*panel, QStringLiteral("generateTemperatureBox"))->setValue(1.5);
    guitest::find<QSpinBox>(*panel, QStringLiteral("generateTopKBox"))->setValue(40);
    guitest::find<QSpinBox>(*panel, QStringLiteral("generateSeedBox"))->setValue(7);
    const int n = 8;
    guitest::find<QSpinBox>(*panel, QStringLiteral("generateCountBox"))->setValue(n);

    const attn::Expected<ModelFolder> model = readModelFolder(folder);
    QVERIFY(model);
    attn::GenerationOptions options;
    options.maxNewTokens = n;
    options.sample = true;
    options.temperature = 1.5;
    options.topK = 40;
    options.seed = 7;
    const attn::Expected<attn::Generation> cli =
        attn::generate(*model->decoder, model->tokenizer->encodeIds(kSentence), options);
    QVERIFY(cli);

    QVERIFY(click(*window, "generateButton", n));
    const std::vector<int> generated = tableIds(table);
    QCOMPARE(generated, cli->generatedIds());
    for (int i = 0; i < n; ++i)
        QCOMPARE(table->item(i, 2)->data(Qt::UserRole).toDouble(), cli->tokens[std::size_t(i)].probability);
    QVERIFY(click(*window, "generateResetButton", 0));
    for (int k = 1; k <= n; ++k)
        QVERIFY(click(*window, "generateStepButton", k));
    QCOMPARE(tableIds(table), generated);
}

// The Model tab's what-ifs hold for every step: with the mask what-if
// "sink:1,window:2" the tokens are the argmax of whole passes with that
// mask, and changing the what-if clears the generation.
void TestGenerationPanel::followsTheWhatIfs()
{
    const QString folder = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/tiny-llama");
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1280, 720));
    QVERIFY(window);
    QVERIFY(open(*window, folder));
    ModelPanel* panel = window->models()->panel();
    ModelSession* session = window->models()->session();
    const attn::AttentionMask mask = attn::AttentionMask::sinkWindow(1, 2);
    QSignalSpy computed(session, &ModelSession::resultChanged);
    QVERIFY(session->setMaskWhatIf(mask));
    QTRY_VERIFY(!computed.isEmpty() && !session->isComputing());
    auto* table = guitest::find<QTableWidget>(*panel, QStringLiteral("generateStepsTable"));
    guitest::find<QSpinBox>(*panel, QStringLiteral("generateCountBox"))->setValue(4);
    QVERIFY(click(*window, "generateButton", 4));

    const attn::Expected<ModelFolder> model = readModelFolder(folder);
    QVERIFY(model);
    attn::DecoderRunOptions options;
    options.mask = mask;
    const std::vector<int> prompt = model->tokenizer->encodeIds(kSentence);
    QCOMPARE(tableIds(table), greedyByFullPasses(*model->decoder, prompt, 4, options));
    QVERIFY(tableIds(table) != greedyByFullPasses(*model->decoder, prompt, 4));

    QVERIFY(session->setMaskWhatIf(std::nullopt));
    QTRY_COMPARE(table->rowCount(), 0);
}

void TestGenerationPanel::followsTheAblation_data()
{
    QTest::addColumn<bool>("mean");
    QTest::newRow("zero") << false;
    QTest::newRow("mean") << true;
}

void TestGenerationPanel::followsTheAblation()
{
    QFETCH(bool, mean);
    const attn::Expected<QString> folder = demoModelFolder();
    QVERIFY2(folder, folder ? "" : folder.error().message.c_str());
    // The demo model copies the repeat (" four, Privet Drive") with its
    // induction head, layer 1 head 0 (from 0); without it, it cannot.
    const QString repeat = QStringLiteral(
        "Mr and Mrs Dursley, of number four, Privet Drive, were proud to say. Mr and Mrs Dursley, of number");
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1280, 720));
    QVERIFY(window);
    QVERIFY(open(*window, *folder, repeat));
    ModelPanel* panel = window->models()->panel();
    ModelSession* session = window->models()->session();
    auto* table = guitest::find<QTableWidget>(*panel, QStringLiteral("generateStepsTable"));
    auto* label = guitest::find<QLabel>(*panel, QStringLiteral("generateAblation"));
    QVERIFY(table && label);
    QVERIFY(label->text().contains(QStringLiteral("intact")));
    const attn::HeadAblation kind = mean ? attn::HeadAblation::Mean : attn::HeadAblation::Zero;
    QSignalSpy computed(session, &ModelSession::resultChanged);
    QVERIFY(session->setAblation({{1, 0}}, kind));
    QTRY_VERIFY(!computed.isEmpty() && !session->isComputing());
    QVERIFY(label->text().contains(QStringLiteral("without L2 H1")));
    QVERIFY(label->text().contains(mean ? QStringLiteral("mean") : QStringLiteral("zero")));
    constexpr int n = 4;
    guitest::find<QSpinBox>(*panel, QStringLiteral("generateCountBox"))->setValue(n);
    QVERIFY(click(*window, "generateButton", n));

    const attn::Expected<ModelFolder> model = readModelFolder(*folder);
    QVERIFY(model);
    const std::vector<int> prompt = model->tokenizer->encodeIds(repeat);
    attn::DecoderRunOptions options;
    options.headOutput = attn::ablationHook({{1, 0}}, kind);
    const std::vector<int> ablated = greedyByFullPasses(*model->decoder, prompt, n, options);
    const std::vector<int> intact = greedyByFullPasses(*model->decoder, prompt, n);
    QCOMPARE(tableIds(table), ablated);
    QVERIFY(ablated != intact);
    QCOMPARE(intact.front(), model->tokenizer->encodeIds(QStringLiteral(" four")).front());
    // The first token is the ablated pass's top next token, as the head lab shows it.
    QCOMPARE(ablated.front(), argmax(session->ablatedLogits()));
    // Mean: a whole pass a step, no cache in the table.
    QCOMPARE(table->item(0, 3)->text() == QStringLiteral("–"), mean);
    // The map's caption says so too: no cache bytes for a whole pass.
    table->setCurrentCell(0, 0);
    auto* caption = guitest::find<QWidget>(*panel, QStringLiteral("generateCaption"));
    QVERIFY(caption);
    QTRY_VERIFY(caption->toolTip().startsWith(QStringLiteral("Step 1,")));
    QCOMPARE(caption->toolTip().contains(QStringLiteral("no cache is kept")), mean);
    QCOMPARE(caption->toolTip().contains(QStringLiteral("the cache holds")), !mean);
    QCOMPARE(panel->generation()->ablationText(), label->text());

    QVERIFY(session->setAblation({}, kind));
    QTRY_COMPARE(table->rowCount(), 0);
    QVERIFY(label->text().contains(QStringLiteral("intact")));
}

QTEST_MAIN(TestGenerationPanel)
#include "tst_generationpanel.moc"
