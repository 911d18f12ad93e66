// SPDX-License-Identifier: GPL-3.0-or-later
#include "lenspanel.h"

#include "colormap.h"
#include "tokenitemdelegate.h"
#include "heatmapview.h"
#include "modelcomparison.h"
#include "modelreadings.h"
#include "modelsession.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace attnlab {

namespace {

QString percent(double probability)
{
    return QString::number(100.0 * probability, 'f', 1) + QStringLiteral(" %");
}

}  // namespace

LensPanel::LensPanel(ModelSession* session, ModelReadings* readings, ModelComparison* comparison,
                     QWidget* parent)
    : QWidget(parent), session_(session), readings_(readings), comparison_(comparison)
{
    chooser_ = new QComboBox(this);
    chooser_->setObjectName(QStringLiteral("modelLensChooser"));
    chooser_->setAccessibleName(tr("Reading"));
    chooser_->addItem(tr("logit lens"), int(Reading::LogitLens));
    chooser_->addItem(tr("rollout"), int(Reading::Rollout));
    chooser_->addItem(tr("A/B difference"), int(Reading::Difference));
    chooser_->setToolTip(
        tr("logit lens: after each layer, the next token read from the residual stream through the "
           "final norm and the unembedding, at every position (the last layer's is the model's own);\n"
           "rollout: per layer B = ½ (the mean of its heads' weights) + ½ I, rows renormalised, "
           "R = B_L … B_1: how much each position draws on each token through every layer;\n"
           "A/B difference: map B minus map A of two runs of equal length (the selected head's "
           "weights or the rollout): intact against ablated, scaled against unscaled, or this "
           "sentence against another."));
    caption_ = new QLabel(this);
    caption_->setObjectName(QStringLiteral("modelLensCaption"));
    caption_->setWordWrap(true);
    caption_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    lens_ = new QTableWidget(this);
    lens_->setObjectName(QStringLiteral("modelLensTable"));
    lens_->setItemDelegate(new TokenItemDelegate(lens_));
    lens_->setAccessibleName(tr("Logit lens: the most likely next token after each layer"));
    lens_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    lens_->setSelectionMode(QAbstractItemView::NoSelection);
    lens_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustIgnored);
    lens_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    lens_->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);

    rollout_ = new HeatmapView(this);
    rollout_->setObjectName(QStringLiteral("modelRolloutView"));
    rollout_->setColorMap(HeatmapView::ColorMap::Sequential);
    rollout_->setDecimals(2);
    rollout_->setAccessibleName(tr("Attention rollout"));

    differencePage_ = new QWidget(this);
    compareKind_ = new QComboBox(differencePage_);
    compareKind_->setObjectName(QStringLiteral("modelCompareKind"));
    compareKind_->setAccessibleName(tr("Runs compared"));
    compareKind_->addItem(tr("intact vs ablated"), int(ComparisonKind::IntactVsAblated));
    compareKind_->addItem(tr("scaled vs unscaled"), int(ComparisonKind::ScaledVsUnscaled));
    compareKind_->addItem(tr("vs another sentence"), int(ComparisonKind::OtherSentence));
    compareKind_->setToolTip(
        tr("A and B, two runs over the same number of tokens that differ in one thing:\n"
           "intact vs ablated: A the intact pass, B without the heads of the Ablation page;\n"
           "scaled vs unscaled: A every score ÷ √d_k (as trained), B ÷ 1;\n"
           "vs another sentence: A this sentence, B the one typed below (the same token count)."));
    compareMap_ = new QComboBox(differencePage_);
    compareMap_->setObjectName(QStringLiteral("modelCompareMap"));
    compareMap_->setAccessibleName(tr("Map compared"));
    compareMap_->addItem(tr("selected head"), int(ComparedMap::SelectedHead));
    compareMap_->addItem(tr("rollout"), int(ComparedMap::Rollout));
    compareMap_->setToolTip(tr("The selected head's weights (choose it in the grid) or the rollout."));
    otherSentence_ = new QLineEdit(differencePage_);
    otherSentence_->setObjectName(QStringLiteral("modelCompareSentence"));
    otherSentence_->setAccessibleName(tr("Other sentence"));
    otherSentence_->setPlaceholderText(tr("Another sentence of as many tokens"));
    otherSentence_->setToolTip(
        tr("Run B's sentence: as many tokens as this one (the tokens line above "
           "counts them)."));
    difference_ = new HeatmapView(differencePage_);
    difference_->setObjectName(QStringLiteral("modelDifferenceView"));
    difference_->setColorMap(HeatmapView::ColorMap::Diverging);
    difference_->setDecimals(2);
    difference_->setAccessibleName(tr("Map B minus map A"));
    auto* compareRow = new QHBoxLayout;
    compareRow->addWidget(compareKind_, 1);
    compareRow->addWidget(compareMap_);
    auto* differenceLayout = new QVBoxLayout(differencePage_);
    differenceLayout->setContentsMargins(0, 0, 0, 0);
    differenceLayout->setSpacing(2);
    differenceLayout->addLayout(compareRow);
    differenceLayout->addWidget(otherSentence_);
    differenceLayout->addWidget(difference_, 1);
    otherSentence_->hide();

    stack_ = new QStackedWidget(this);
    stack_->addWidget(lens_);
    stack_->addWidget(rollout_);
    stack_->addWidget(differencePage_);

    auto* row = new QHBoxLayout;
    auto* label = new QLabel(tr("Read:"), this);
    label->setBuddy(chooser_);
    row->addWidget(label);
    row->addWidget(chooser_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addLayout(row);
    layout->addWidget(caption_);
    layout->addWidget(stack_, 1);

    connect(chooser_, &QComboBox::currentIndexChanged, this, [this] {
        stack_->setCurrentIndex(chooser_->currentIndex());
        want();
        refresh();
    });
    connect(compareKind_, &QComboBox::currentIndexChanged, this, [this] {
        const auto kind = ComparisonKind(compareKind_->currentData().toInt());
        otherSentence_->setVisible(kind == ComparisonKind::OtherSentence);
        comparison_->setKind(kind);
    });
    connect(compareMap_, &QComboBox::currentIndexChanged, this,
            [this] { comparison_->setMap(ComparedMap(compareMap_->currentData().toInt())); });
    connect(otherSentence_, &QLineEdit::textChanged, comparison_, &ModelComparison::setOtherSentence);
    connect(readings_, &ModelReadings::changed, this, &LensPanel::refresh);
    connect(readings_, &ModelReadings::computingChanged, this, &LensPanel::refresh);
    connect(comparison_, &ModelComparison::changed, this, &LensPanel::refresh);
    connect(comparison_, &ModelComparison::computingChanged, this, &LensPanel::refresh);
    refresh();
}

LensPanel::Reading LensPanel::reading() const
{
    return Reading(chooser_->currentData().toInt());
}

void LensPanel::setReading(Reading reading)
{
    chooser_->setCurrentIndex(chooser_->findData(int(reading)));
}

void LensPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    shown_ = true;
    want();
}

void LensPanel::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    shown_ = false;
    want();
}

void LensPanel::want()
{
    const bool difference = reading() == Reading::Difference;
    readings_->setWanted(shown_ && !difference);
    comparison_->setWanted(shown_ && difference);
}

void LensPanel::refresh()
{
    // The choices as the comparison has them, however they were set (a
    // caller may set the comparison itself).
    for (const auto& [box, value] : {std::pair<QComboBox*, int>{compareKind_, int(comparison_->kind())},
                                     std::pair<QComboBox*, int>{compareMap_, int(comparison_->map())}}) {
        const QSignalBlocker block(box);
        box->setCurrentIndex(box->findData(value));
    }
    otherSentence_->setVisible(comparison_->kind() == ComparisonKind::OtherSentence);
    QString text;
    if (reading() == Reading::Difference) {
        if (!comparison_->problem().isEmpty())
            text = comparison_->problem();
        else if (comparison_->difference().size() == 0)
            text = comparison_->isComputing() ? tr("Comparing the two runs…") : QString();
        else
            text =
                comparison_->caption() + (comparison_->isComputing() ? tr(" Comparing again…") : QString());
    } else if (!session_->hasModel())
        text = tr("Open a model to read its passes.");
    else if (!readings_->problem().isEmpty())
        text = readings_->problem();
    else if (!readings_->hasReadings())
        text = readings_->isComputing() ? tr("Reading the pass…") : tr("Type a sentence to read its pass.");
    else
        text = readings_->passText() + (readings_->isComputing() ? tr(" Reading the new pass…") : QString());
    caption_->setText(text);
    caption_->setToolTip(text);
    // Both readings, whichever is shown: the chooser then switches at once.
    showLens();
    showRollout();
    showDifference();
}

void LensPanel::showLens()
{
    const attn::LogitLens& lens = readings_->lens();
    const std::vector<ModelToken>& tokens = readings_->tokens();
    lens_->clear();
    lens_->setRowCount(lens.layers);
    lens_->setColumnCount(lens.positions);
    if (lens.layers == 0)
        return;
    QStringList rows, columns;
    for (int l = 0; l < lens.layers; ++l)
        rows << tr("L%1").arg(l + 1);
    for (int i = 0; i < lens.positions; ++i)
        columns << (i < int(tokens.size()) ? tokens[std::size_t(i)].display : QString::number(i));
    lens_->setVerticalHeaderLabels(rows);
    lens_->setHorizontalHeaderLabels(columns);
    const QFontMetrics metrics = lens_->fontMetrics();
    // Room for "100.0 %" and about six characters of a token, with the cell's margins.
    constexpr int kMargins = 12;
    const int width =
        std::max(metrics.horizontalAdvance(percent(1.0)), 6 * metrics.averageCharWidth()) + kMargins;
    for (int l = 0; l < lens.layers; ++l) {
        for (int i = 0; i < lens.positions; ++i) {
            const std::vector<attn::TopToken>& top = lens.at(l, i);
            if (top.empty())
                continue;
            const attn::TopToken& best = top.front();
            const QString token = session_->vocabularyToken(best.id).display;
            auto* item = new QTableWidgetItem(metrics.elidedText(token, Qt::ElideRight, width - kMargins)
                                              + QLatin1Char('\n') + percent(best.probability));
            const QColor background = colormap::sequential(best.probability, 0.0, 1.0);
            item->setBackground(background);
            item->setForeground(colormap::contrastingText(background));
            item->setData(Qt::UserRole, best.id);
            item->setData(Qt::UserRole + 1, best.probability);
            item->setTextAlignment(Qt::AlignCenter);
            // Rich text, each token escaped: a token such as "<b>" stays text.
            QStringList tip;
            tip << tr("After layer %1, at “%2” (position %3), the next token:")
                       .arg(l + 1)
                       .arg(columns[i].toHtmlEscaped())
                       .arg(i);
            for (const attn::TopToken& t : top)
                tip << tr("%1  %2 (id %3)")
                           .arg(session_->vocabularyToken(t.id).display.toHtmlEscaped(),
                                percent(t.probability))
                           .arg(t.id);
            item->setToolTip(
                QStringLiteral("<p style='white-space:pre'>%1</p>").arg(tip.join(QStringLiteral("<br>"))));
            lens_->setItem(l, i, item);
        }
    }
    lens_->verticalHeader()->setDefaultSectionSize(2 * metrics.lineSpacing() + 4);
    lens_->horizontalHeader()->setDefaultSectionSize(width);
}

void LensPanel::showRollout()
{
    const attn::Matrix& r = readings_->rollout();
    QStringList labels;
    for (const ModelToken& t : readings_->tokens())
        labels << t.display;
    if (r.rows() == 0) {
        rollout_->setData(attn::Matrix(), {}, {});
        return;
    }
    rollout_->setData(r, labels, labels);
    rollout_->setRange(0.0, 1.0);
    rollout_->setTitle(tr("Attention rollout (rows: queries)"));
}

void LensPanel::showDifference()
{
    const attn::Matrix& d = comparison_->difference();
    if (d.rows() == 0) {
        difference_->setData(attn::Matrix(), {}, {});
        return;
    }
    difference_->setData(d, comparison_->labels(), comparison_->labels());
    // Symmetric about 0: white is no change, blue B below A, red above.
    difference_->setRange(-comparison_->colorLimit(), comparison_->colorLimit());
    difference_->setTitle(tr("B − A (rows: queries)"));
}

}  // namespace attnlab
