// SPDX-License-Identifier: GPL-3.0-or-later
#include "generationpanel.h"

#include "elidedlabel.h"
#include "tokenitemdelegate.h"
#include "generationsession.h"
#include "heatmapview.h"
#include "modelsession.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <limits>

namespace attnlab {

namespace {

QTableWidgetItem* item(const QString& text, const QVariant& value, bool number)
{
    auto* cell = new QTableWidgetItem(text);
    cell->setData(Qt::UserRole, value);
    if (number)
        cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return cell;
}

QTableWidgetItem* bytesItem(std::int64_t bytes)
{
    return item(QLocale().toString(qlonglong(bytes)), qlonglong(bytes), true);
}

}  // namespace

GenerationPanel::GenerationPanel(ModelSession* model, GenerationSession* generation, QWidget* parent)
    : QWidget(parent), model_(model), generation_(generation)
{
    count_ = new QSpinBox(this);
    count_->setObjectName(QStringLiteral("generateCountBox"));
    count_->setRange(1, attn::kMaxGeneratedTokens);
    count_->setValue(10);
    count_->setAccessibleName(tr("Tokens to generate"));
    count_->setToolTip(tr("How many tokens Generate adds after the sentence."));
    sample_ = new QCheckBox(tr("Sample"), this);
    sample_->setObjectName(QStringLiteral("generateSampleBox"));
    sample_->setToolTip(
        tr("Off: greedy, the most likely token each step. On: a draw from softmax(logits / T) over "
           "the top-k tokens (0: all), with PyTorch's generator seeded as given."));
    temperature_ = new QDoubleSpinBox(this);
    temperature_->setObjectName(QStringLiteral("generateTemperatureBox"));
    temperature_->setRange(attn::kMinTemperature, attn::kMaxTemperature);
    temperature_->setSingleStep(0.1);
    temperature_->setValue(1.0);
    temperature_->setPrefix(tr("T "));
    temperature_->setAccessibleName(tr("Sampling temperature"));
    topK_ = new QSpinBox(this);
    topK_->setObjectName(QStringLiteral("generateTopKBox"));
    topK_->setRange(0, 1000000);
    topK_->setPrefix(tr("top-k "));
    topK_->setSpecialValueText(tr("top-k all"));
    topK_->setAccessibleName(tr("Top-k"));
    seed_ = new QSpinBox(this);
    seed_->setObjectName(QStringLiteral("generateSeedBox"));
    seed_->setRange(0, std::numeric_limits<int>::max());
    seed_->setPrefix(tr("seed "));
    seed_->setAccessibleName(tr("Seed"));
    generate_ = new QPushButton(tr("Generate"), this);
    generate_->setObjectName(QStringLiteral("generateButton"));
    generate_->setToolTip(
        tr("Generate N tokens after the sentence, from the start: the prefill, then "
           "one decode step per token against the cached keys and values."));
    step_ = new QPushButton(tr("Step"), this);
    step_->setObjectName(QStringLiteral("generateStepButton"));
    step_->setToolTip(tr("One more token: one new query row against the cache."));
    reset_ = new QPushButton(tr("Reset"), this);
    reset_->setObjectName(QStringLiteral("generateResetButton"));
    reset_->setToolTip(tr("Stop, and forget the tokens and the cache."));

    table_ = new QTableWidget(0, 6, this);
    table_->setObjectName(QStringLiteral("generateStepsTable"));
    table_->setItemDelegateForColumn(1, new TokenItemDelegate(table_));
    table_->setHorizontalHeaderLabels(
        {tr("step"), tr("token"), tr("p"), tr("cached"), tr("K/V bytes"), tr("1 K/V per head")});
    table_->horizontalHeaderItem(3)->setToolTip(
        tr("Tokens in the key/value cache after the step: the keys the new row attends to."));
    table_->horizontalHeaderItem(4)->setToolTip(
        tr("The cache: 2 (K and V) × layers × key/value heads × head_dim × 8 bytes (a double, as the "
           "engine computes) × cached tokens."));
    table_->horizontalHeaderItem(5)->setToolTip(
        tr("The same with one K and V per query head: what the cache would take without grouped-query "
           "attention (equal for a model without it, GPT-2)."));
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 4);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setAccessibleName(tr("Generated tokens and the cache"));
    table_->resizeColumnsToContents();

    // Which heads the tokens are made without: the head lab's ablation.
    ablation_ = new ElidedLabel(this);
    ablation_->setObjectName(QStringLiteral("generateAblation"));
    ablation_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    ablation_->setAccessibleName(tr("Heads ablated in the generation"));
    text_ = new QLabel(this);
    text_->setObjectName(QStringLiteral("generateText"));
    text_->setWordWrap(true);
    text_->setTextFormat(Qt::RichText);
    text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    text_->setAccessibleName(tr("The continued text"));
    caption_ = new ElidedLabel(this);
    caption_->setObjectName(QStringLiteral("generateCaption"));
    caption_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layer_ = new QSpinBox(this);
    layer_->setObjectName(QStringLiteral("generateLayerBox"));
    layer_->setPrefix(tr("layer "));
    layer_->setAccessibleName(tr("Layer of the attention map"));
    layer_->setToolTip(tr("The layer whose heads the map shows (the grid's selected layer)."));
    map_ = new HeatmapView(this);
    map_->setObjectName(QStringLiteral("generateAttentionMap"));
    map_->setColorMap(MapColors::Sequential);
    map_->setRange(0.0, 1.0);
    map_->setCompactLayout(CompactLayout::WithRowLabels);
    map_->setDecimals(2);

    // One row of controls: the page has the Model tab's whole body but few
    // lines of it at 1280 x 720 with the docks shown.
    auto* controls = new QHBoxLayout;
    controls->addWidget(count_);
    controls->addWidget(generate_);
    controls->addWidget(step_);
    controls->addWidget(reset_);
    controls->addSpacing(8);
    controls->addWidget(sample_);
    controls->addWidget(temperature_);
    controls->addWidget(topK_);
    controls->addWidget(seed_);
    controls->addStretch(1);
    auto* below = new QWidget(this);
    auto* belowLayout = new QVBoxLayout(below);
    belowLayout->setContentsMargins(0, 0, 0, 0);
    belowLayout->setSpacing(2);
    auto* mapTitle = new QHBoxLayout;
    mapTitle->addWidget(layer_);
    mapTitle->addWidget(caption_, 1);
    belowLayout->addLayout(mapTitle);
    belowLayout->addWidget(map_, 1);
    // Side by side: the tab has few lines of height at 1024 x 700.
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setChildrenCollapsible(false);
    split->addWidget(table_);
    split->addWidget(below);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addLayout(controls);
    layout->addWidget(ablation_);
    layout->addWidget(text_);
    layout->addWidget(split, 1);

    connect(generate_, &QPushButton::clicked, this, [this] { request(false); });
    connect(step_, &QPushButton::clicked, this, [this] { request(true); });
    connect(reset_, &QPushButton::clicked, generation_, &GenerationSession::reset);
    connect(sample_, &QCheckBox::toggled, this, &GenerationPanel::showMode);
    connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) {
        shownStep_ = row;
        showStep();
    });
    connect(generation_, &GenerationSession::stepsChanged, this, &GenerationPanel::showSteps);
    connect(generation_, &GenerationSession::runningChanged, this, &GenerationPanel::showRunning);
    connect(generation_, &GenerationSession::problemChanged, this, &GenerationPanel::message);
    connect(model_, &ModelSession::selectionChanged, this, &GenerationPanel::showStep);
    connect(model_, &ModelSession::modelOpened, this, &GenerationPanel::showLayers);
    connect(model_, &ModelSession::modelOpened, this, &GenerationPanel::showAblation);
    connect(model_, &ModelSession::ablationChanged, this, &GenerationPanel::showAblation);
    connect(layer_, &QSpinBox::valueChanged, this, [this](int layer) {
        if (model_->hasModel() && layer - 1 != model_->selectedLayer())
            model_->selectHead(layer - 1, model_->selectedHead());
    });
    showLayers();
    showMode();
    showRunning(false);
    showSteps();
    showAblation();
}

void GenerationPanel::showAblation()
{
    const QString text = generation_->ablationText();
    ablation_->setText(text);
    ablation_->setToolTip(
        tr("%1\nThe head lab's Ablation page chooses the heads; the next-token panel and the generation "
           "both run without them.")
            .arg(text));
    // Bold while heads are ablated: the tokens are not the model's own.
    QFont font = ablation_->font();
    font.setBold(!generation_->ablatedHeads().empty());
    ablation_->setFont(font);
}

void GenerationPanel::showLayers()
{
    const bool model = model_->hasModel();
    const QSignalBlocker quiet(layer_);
    layer_->setRange(1, model ? model_->config().layers : 1);
    layer_->setValue(model ? model_->selectedLayer() + 1 : 1);
    layer_->setEnabled(model);
}

void GenerationPanel::request(bool step)
{
    TokenChoiceOptions choice;
    choice.sample = sample_->isChecked();
    choice.temperature = choice.sample ? temperature_->value() : 1.0;
    choice.topK = choice.sample ? topK_->value() : 0;
    choice.seed = choice.sample ? std::uint64_t(seed_->value()) : 0;
    const attn::Status started =
        step ? generation_->step(choice) : generation_->generate(count_->value(), choice);
    if (!started)
        emit message(QString::fromStdString(started.error().message));
}

void GenerationPanel::showMode()
{
    const bool sample = sample_->isChecked();
    temperature_->setEnabled(sample);
    topK_->setEnabled(sample);
    seed_->setEnabled(sample);
}

void GenerationPanel::showRunning(bool running)
{
    step_->setEnabled(!running);
    generate_->setText(running ? tr("Restart") : tr("Generate"));
}

void GenerationPanel::showSteps()
{
    showAblation();
    const std::vector<attn::GeneratedToken>& steps = generation_->steps();
    const int before = table_->rowCount();
    const bool followLast = shownStep_ < 0 || shownStep_ == before - 1;
    if (int(steps.size()) < before)
        table_->setRowCount(0);
    const int from = table_->rowCount();
    table_->setRowCount(int(steps.size()));
    for (int i = from; i < int(steps.size()); ++i) {
        const attn::GeneratedToken& t = steps[std::size_t(i)];
        table_->setItem(i, 0, item(QString::number(i + 1), i + 1, true));
        auto* token = item(generation_->tokenText(t.id), t.id, false);
        token->setToolTip(tr("id %1, position %2").arg(t.id).arg(t.position));
        table_->setItem(i, 1, token);
        table_->setItem(i, 2, item(QString::number(t.probability, 'f', 4), t.probability, true));
        if (t.wholePass) {
            // Mean ablation: a whole pass over the text, no cache.
            const QString why =
                tr("A whole pass over the %1 tokens so far: the mean over the positions moves "
                   "with each token, so no cache is kept.")
                    .arg(t.cacheTokens);
            for (int column = 3; column < 6; ++column) {
                auto* none = item(QStringLiteral("–"), QVariant(), true);
                none->setToolTip(why);
                table_->setItem(i, column, none);
            }
        } else {
            table_->setItem(i, 3, item(QString::number(t.cacheTokens), t.cacheTokens, true));
            table_->setItem(i, 4, bytesItem(t.cacheBytes));
            table_->setItem(i, 5, bytesItem(t.cacheBytesOneKvPerQueryHead));
        }
    }
    if (from == 0 && !steps.empty())
        table_->resizeColumnsToContents();
    if (steps.empty()) {
        text_->setText(tr("Prefill: every row once; then one new row a step, against the cache."));
        shownStep_ = -1;
        showStep();
    } else {
        text_->setText(
            tr("%1<b>%2</b>")
                .arg(generation_->promptText().toHtmlEscaped(), generation_->continuation().toHtmlEscaped()));
        if (followLast)
            table_->setCurrentCell(int(steps.size()) - 1, 0);
    }
}

void GenerationPanel::showStep()
{
    const int step = shownStep_;
    const int layer = model_->selectedLayer();
    {
        const QSignalBlocker quiet(layer_);
        layer_->setValue(layer + 1);
    }
    if (step < 0 || step >= int(generation_->steps().size())) {
        caption_->setText(tr("A step's new row: its attention per head of the layer."));
        map_->setData(attn::Matrix(), {}, {});
        return;
    }
    if (!generation_->hasAttention(step)) {
        caption_->setText(tr("Step %1's rows were let go (the steps keep %2 MB of them, the latest); "
                             "the table keeps its numbers.")
                              .arg(step + 1)
                              .arg(GenerationSession::kAttentionBudget / (1024 * 1024)));
        caption_->setToolTip(caption_->text());
        map_->setData(attn::Matrix(), {}, {});
        return;
    }
    const attn::Matrix rows = generation_->attention(step, layer);
    QStringList heads;
    for (int h = 0; h < rows.rows(); ++h)
        heads << tr("h%1").arg(h + 1);
    QStringList keys;
    for (const QString& k : generation_->keyLabels(step))
        keys << k;
    const bool whole = generation_->steps()[std::size_t(step)].wholePass;
    caption_->setText((whole ? tr("step %1: query position %2 over %3 keys (a whole pass), a row per head")
                             : tr("step %1: query position %2 over %3 cached keys, a row per head"))
                          .arg(step + 1)
                          .arg(generation_->steps()[std::size_t(step)].position - 1)
                          .arg(rows.cols()));
    if (whole)
        caption_->setToolTip(tr("Step %1, layer %2: the last query row (position %3) of a whole pass over "
                                "the %4 tokens so far, one row per head; no cache is kept (the mean "
                                "ablation moves with each token).")
                                 .arg(step + 1)
                                 .arg(layer + 1)
                                 .arg(generation_->steps()[std::size_t(step)].position - 1)
                                 .arg(rows.cols()));
    else
        caption_->setToolTip(tr("Step %1, layer %2: the new query row (position %3) over the %4 cached keys, "
                                "one row per head; the cache holds %5 bytes in each of the %6 layers.")
                                 .arg(step + 1)
                                 .arg(layer + 1)
                                 .arg(generation_->steps()[std::size_t(step)].position - 1)
                                 .arg(rows.cols())
                                 .arg(QLocale().toString(qlonglong(generation_->cacheBytesPerLayer(step))))
                                 .arg(generation_->layers()));
    map_->setData(rows, heads, keys);
}

}  // namespace attnlab
