// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelpanel.h"

#include "keyvaluesharing.h"
#include "tokenitemdelegate.h"

#include "cinemalesson.h"
#include "elidedlabel.h"
#include "generationpanel.h"
#include "generationsession.h"
#include "headlabpanel.h"
#include "lenspanel.h"
#include "maskwhatifbox.h"
#include "modelcomparison.h"
#include "modelfamilies.h"
#include "modelreadings.h"
#include "modelsession.h"
#include "modelgridrenderer.h"
#include "modelgridview.h"
#include "nexttokenview.h"
#include "qknormwhatifbox.h"
#include "rotarypanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTextBrowser>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QTextDocument>
#include <QPushButton>
#include <QTabBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace attnlab {

namespace {

QTableWidget* makeTable(const QStringList& headers, const QString& name, QWidget* parent)
{
    auto* table = new QTableWidget(0, int(headers.size()), parent);
    table->setObjectName(name);
    table->setHorizontalHeaderLabels(headers);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 4);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustIgnored);
    return table;
}

QTableWidgetItem* numberItem(double value, int decimals)
{
    auto* item = new QTableWidgetItem(QString::number(value, 'f', decimals));
    item->setData(Qt::UserRole, value);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

// A piece and its subscripted id, as showTokens writes them.
void writePiece(QTextCursor& cursor, const QString& text, int id)
{
    QTextCharFormat sub;
    sub.setVerticalAlignment(QTextCharFormat::AlignSubScript);
    cursor.insertText(text + QLatin1Char(' '), QTextCharFormat());
    cursor.insertText(QString::number(id), sub);
}

// The height of `lines` lines of pieces in `font`, as the view lays them out.
int linesOfPieces(const QFont& font, int lines)
{
    QTextDocument probe;
    probe.setDefaultFont(font);
    probe.setDocumentMargin(0);
    QTextCursor cursor(&probe);
    for (int i = 0; i < lines; ++i) {
        if (i > 0)
            cursor.insertBlock();
        writePiece(cursor, QStringLiteral("␣Jg"), 22041);
    }
    return int(std::ceil(probe.size().height()));
}

}  // namespace

ModelPanel::ModelPanel(ModelSession* session, QWidget* parent) : QWidget(parent), session_(session)
{
    // Elided, its tooltip whole: a long folder's path held the tab wider
    // than a 1280-pixel projector in presentation mode.
    summary_ = new ElidedLabel(this);
    summary_->setText(tr("No model open: File > Open model… reads a Hugging Face folder of a causal decoder "
                         "model (config.json, its weights and tokenizer; families: %1).")
                          .arg(supportedFamilyNames()));
    summary_->setObjectName(QStringLiteral("modelSummary"));
    summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    message_ = new QLabel(this);
    message_->setObjectName(QStringLiteral("modelMessage"));
    message_->setWordWrap(true);
    // Red by its palette, not a style sheet (which kept it from the font
    // presentation mode hands down).
    QPalette red = message_->palette();
    red.setColor(QPalette::WindowText, QColor(0xb3, 0x26, 0x1e));
    message_->setPalette(red);
    message_->hide();
    // A text view, not a word-wrapped label in a scroll area: the label laid
    // its whole text out again for every size its layout asked about (about
    // 40 ms a key at 256 tokens); the view lays it out once, at its width.
    tokens_ = new QTextBrowser(this);
    tokens_->setObjectName(QStringLiteral("modelTokens"));
    tokens_->setFrameShape(QFrame::NoFrame);
    tokens_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    tokens_->setFocusPolicy(Qt::ClickFocus);
    tokens_->viewport()->setAutoFillBackground(false);
    tokens_->document()->setDocumentMargin(0);
    tokens_->document()->setUndoRedoEnabled(false);
    tokens_->setToolTip(
        tr("The sentence as the model's tokenizer splits it: each piece and its "
           "vocabulary id; ␣ is a leading space."));

    grid_ = new ModelGridView(this);
    grid_->setObjectName(QStringLiteral("modelGrid"));
    grid_->setPlaceholder(
        tr("File > Open model… reads a Hugging Face model folder; its attention for "
           "the sentence shows here, one map per layer and head."));

    scale_ = new QComboBox(this);
    scale_->setObjectName(QStringLiteral("modelScaleBox"));
    scale_->addItem(tr("√d_k (as trained)"), int(attn::ScaleMode::SqrtDk));
    scale_->addItem(tr("1 (no scaling)"), int(attn::ScaleMode::None));
    scale_->addItem(tr("a custom divisor"), int(attn::ScaleMode::Custom));
    scale_->setAccessibleName(tr("What-if scale of the scores"));
    divisor_ = new QDoubleSpinBox(this);
    divisor_->setObjectName(QStringLiteral("modelDivisorBox"));
    divisor_->setRange(attn::kMinCustomDivisor, 1000.0);
    divisor_->setDecimals(3);
    divisor_->setValue(8.0);
    divisor_->setEnabled(false);
    divisor_->setAccessibleName(tr("Custom divisor"));
    scope_ = new QComboBox(this);
    scope_->setObjectName(QStringLiteral("modelScopeBox"));
    scope_->addItem(tr("every layer"), int(ScaleScope::AllLayers));
    scope_->addItem(tr("this layer"), int(ScaleScope::ThisLayer));
    scope_->addItem(tr("this head"), int(ScaleScope::ThisHead));
    scope_->setAccessibleName(tr("Where the scale applies"));
    scope_->setToolTip(
        tr("Where the divisor applies: every layer, the selected head's layer or the selected "
           "head alone. Choosing a scope applies the divisor shown there at once; “Reset to √d_k” "
           "undoes every change."));
    temperature_ = new QDoubleSpinBox(this);
    temperature_->setObjectName(QStringLiteral("modelTemperatureBox"));
    temperature_->setRange(0.05, 100.0);
    temperature_->setSingleStep(0.1);
    temperature_->setValue(1.0);
    temperature_->setAccessibleName(tr("Temperature"));
    temperature_->setToolTip(tr("Next-token probabilities = softmax(logits / T)."));
    reset_ = new QPushButton(tr("Reset to √d_k"), this);
    reset_->setObjectName(QStringLiteral("modelResetButton"));
    show_ = new QPushButton(this);
    show_->setObjectName(QStringLiteral("modelShowButton"));
    show_->setToolTip(
        tr("The selected head's raw scores, scaled scores and weights in the pipeline, its q_i, k_j, "
           "v_j in the focus panel and its Q, K, V in the Q/K/V tab (a click on a map does the same)."));
    show_->setEnabled(false);
    divisorCaption_ = new QLabel(this);
    divisorCaption_->setObjectName(QStringLiteral("modelDivisorCaption"));

    auto* whatIf = new QHBoxLayout;
    // Short labels: the scale's, the temperature's and the mask's controls
    // share one line at 1024 pixels (the tooltips say the rest).
    auto* whatIfLabel = new QLabel(tr("What if: scores ÷"), this);
    whatIfLabel->setToolTip(tr("What if the scores are divided by another divisor"));
    whatIf->addWidget(whatIfLabel);
    whatIf->addWidget(scale_);
    whatIf->addWidget(divisor_);
    whatIf->addWidget(new QLabel(tr("on"), this));
    whatIf->addWidget(scope_);
    whatIf->addWidget(reset_);
    whatIf->addSpacing(12);
    auto* temperatureLabel = new QLabel(tr("T:"), this);
    temperatureLabel->setToolTip(temperature_->toolTip());
    temperatureLabel->setBuddy(temperature_);
    whatIf->addWidget(temperatureLabel);
    whatIf->addWidget(temperature_);
    whatIf->addSpacing(12);
    maskWhatIf_ = new MaskWhatIfBox(session_, this);
    maskWhatIf_->setObjectName(QStringLiteral("modelMaskWhatIf"));
    whatIf->addWidget(maskWhatIf_);
    // Qwen3's QK-norm, off for a what-if (hidden for other models).
    qkNormWhatIf_ = new QkNormWhatIfBox(session_, this);
    connect(qkNormWhatIf_, &QkNormWhatIfBox::message, this, &ModelPanel::showMessage);
    whatIf->addWidget(qkNormWhatIf_);
    whatIf->addStretch(1);

    lesson_ = new QLabel(this);
    lesson_->setObjectName(QStringLiteral("modelLessonRanking"));
    // One line: the body below needs every pixel at 1024 x 700 (the bars).
    lesson_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    lesson_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    lesson_->setAccessibleName(tr("Heads looking at “cinema” and “watch”"));
    lesson_->setToolTip(
        tr("The lesson's question: the three heads (of every layer) whose weight from the last "
           "token on “␣cinema” and on “␣watch” is largest, L layer and H head counted from 1. "
           "Measured weights of this checkpoint, not a sign of understanding."));
    lesson_->hide();

    headCaption_ = new QLabel(this);
    headCaption_->setObjectName(QStringLiteral("modelHeadCaption"));
    lastRow_ = makeTable({tr("key"), tr("weight")}, QStringLiteral("modelLastRowTable"), this);
    lastRow_->setItemDelegateForColumn(0, new TokenItemDelegate(lastRow_));
    lastRow_->setAccessibleName(tr("Selected head's weights from the last token"));
    lastRow_->setToolTip(
        tr("Click a key to rank every head by its weight from the last token to it; "
           "click it again for no ranking."));
    next_ = new NextTokenView(this);
    next_->setObjectName(QStringLiteral("modelNextTokens"));
    headLab_ = new HeadLabPanel(session_, this);
    headLab_->setObjectName(QStringLiteral("modelHeadLab"));
    // The selected head's row is the tabs' first page, the head lab's two after it.
    auto* lastTokenPage = new QWidget(headLab_);
    auto* middle = new QVBoxLayout(lastTokenPage);
    middle->setContentsMargins(2, 2, 2, 2);
    middle->setSpacing(2);
    middle->addWidget(headCaption_);
    middle->addWidget(lastRow_, 1);
    middle->addWidget(divisorCaption_);
    headLab_->insertTab(0, lastTokenPage, tr("Last token"));
    headLab_->setCurrentIndex(0);
    // The logit lens and the rollout (issue 39), computed only while shown.
    readings_ = new ModelReadings(session_, this);
    // The A/B difference maps, the Lens page's third reading.
    comparison_ = new ModelComparison(session_, this);
    lens_ = new LensPanel(session_, readings_, comparison_, headLab_);
    lens_->setObjectName(QStringLiteral("modelLensPanel"));
    headLab_->addTab(lens_, tr("Lens"));
    // RoPE (issue 38): the selected head's scores with and without the rotation.
    rotary_ = new RotaryPanel(session_, true, headLab_);
    rotary_->setObjectName(QStringLiteral("modelRotaryPanel"));
    headLab_->addTab(rotary_, tr("RoPE"));
    // Generation with the key/value cache (issue 40): the head lab's last page.
    generation_ = new GenerationSession(session_, this);
    generationPanel_ = new GenerationPanel(session_, generation_, headLab_);
    generationPanel_->setObjectName(QStringLiteral("modelGenerationPanel"));
    // Its one row of controls needs the body's width, which it has when
    // shown; it must not widen the head lab beside the grid.
    generationPanel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    headLab_->addTab(generationPanel_, tr("Generate"));
    // Beside the grid at 1024 x 700 the pages' names share about 300 pixels:
    // every tab stays in view, its name shortened with "…" (whole in its tooltip).
    headLab_->setElideMode(Qt::ElideRight);
    headLab_->setUsesScrollButtons(false);
    const QStringList tips = {tr("Last token: the selected head's weights from the last token"),
                              tr("Scores: what each head does, and how it keeps scores in range"),
                              tr("Ablation: the prediction without the chosen heads"),
                              tr("Lens: the logit lens (the next token after each layer), the "
                                 "attention rollout and A/B difference maps"),
                              tr("RoPE: the selected head's scores with and without the rotation"),
                              tr("Generate: the key/value cache at work")};
    for (int i = 0; i < headLab_->count(); ++i)
        headLab_->setTabToolTip(i, i < tips.size() ? tips[i] : headLab_->tabText(i).remove(QLatin1Char('&')));
    side_ = new QWidget(this);
    auto* right = new QVBoxLayout(side_);
    right->setContentsMargins(0, 0, 0, 0);
    right->addWidget(next_, 1);
    right->addWidget(headLab_->comparison(), 1);
    auto* body = new QHBoxLayout;
    body->addWidget(grid_, 4);
    body->addWidget(headLab_, 3);
    body->addWidget(side_, 3);
    // Generation has a table, the text and a heads x keys map of its own:
    // its page takes the body's whole width (the grid's layer is chosen on
    // the page).
    connect(headLab_, &QTabWidget::currentChanged, this, [this] {
        const bool generating = headLab_->currentWidget() == generationPanel_;
        grid_->setVisible(!generating);
        side_->setVisible(!generating);
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    top->addWidget(summary_, 1);
    top->addWidget(show_);
    layout->addLayout(top);
    layout->addWidget(message_);
    // Two whole lines of pieces, scrolled beyond: a long sentence's list
    // otherwise took the height of the grid and the next-token bars.
    layout->addWidget(tokens_);
    layout->addLayout(whatIf);
    layout->addWidget(lesson_);
    layout->addLayout(body, 1);

    fitToFont();

    connect(grid_, &ModelGridView::headActivated, session_, &ModelSession::selectHead);
    connect(grid_, &ModelGridView::ablationToggled, headLab_, &HeadLabPanel::toggle);
    connect(headLab_, &HeadLabPanel::message, this, &ModelPanel::showMessage);
    connect(maskWhatIf_, &MaskWhatIfBox::message, this, &ModelPanel::showMessage);
    connect(generationPanel_, &GenerationPanel::message, this, &ModelPanel::showMessage);
    connect(headLab_, &HeadLabPanel::ablationShown, this, &ModelPanel::showAblated);
    connect(headLab_, &HeadLabPanel::scoreChosen, this, [this](int kind) {
        if (kind >= 0)
            rankKey_ = -1;  // the grid shows one set of numbers
        showRanking();
    });
    connect(session_, &ModelSession::selectionChanged, this, &ModelPanel::showSelection);
    connect(session_, &ModelSession::modelOpened, this, &ModelPanel::showModel);
    connect(session_, &ModelSession::resultChanged, this, &ModelPanel::showResult);
    connect(session_, &ModelSession::loadFailed, this, &ModelPanel::showMessage);
    connect(session_, &ModelSession::problemChanged, this, &ModelPanel::showMessage);
    connect(lastRow_, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (row != rankKey_)
            headLab_->setScoreKind(-1);
        rankBy(row == rankKey_ ? -1 : row);
    });
    connect(scale_, &QComboBox::activated, this, &ModelPanel::applyScale);
    connect(scope_, &QComboBox::activated, this, &ModelPanel::applyScale);
    connect(divisor_, &QDoubleSpinBox::editingFinished, this, [this] {
        if (scale_->currentData().toInt() == int(attn::ScaleMode::Custom))
            applyScale();
    });
    connect(show_, &QPushButton::clicked, this, &ModelPanel::showInPipeline);
    connect(reset_, &QPushButton::clicked, this, [this] {
        session_->resetScale();
        showSelection();
    });
    connect(temperature_, &QDoubleSpinBox::valueChanged, this, [this](double t) {
        const attn::Status set = session_->setTemperature(t);
        if (!set)
            showMessage(QString::fromStdString(set.error().message));
    });
    showSelection();
}

void ModelPanel::fitToFont()
{
    headCaption_->setMinimumHeight(2 * headCaption_->fontMetrics().lineSpacing() + 2);
    tokens_->setFixedHeight(linesOfPieces(tokens_->document()->defaultFont(), 2));
    lastRow_->verticalHeader()->setDefaultSectionSize(lastRow_->fontMetrics().height() + 4);
    lastRow_->resizeColumnToContents(0);  // the weight column stretches
    // The head lab is at least as wide as its pages' whole names: narrower,
    // they were elided to "R…" and "Sc…" beside a wide grid at 1024 x 700.
    // (Elision stays for a window narrower still.)
    QTabBar* bar = headLab_->tabBar();
    bar->setElideMode(Qt::ElideNone);
    const int names = bar->sizeHint().width();
    bar->setElideMode(Qt::ElideRight);
    headLab_->setMinimumWidth(std::min(names + 4, 420));
}

void ModelPanel::changeEvent(QEvent* event)
{
    // The children have the new font by now.
    if (event->type() == QEvent::FontChange)
        fitToFont();
    QWidget::changeEvent(event);
}

void ModelPanel::showMessage(const QString& text)
{
    message_->setText(text);
    message_->setVisible(!text.isEmpty());
}

void ModelPanel::showModel()
{
    showMessage(QString());
    // The folder's name on screen, its whole path in the tooltip.
    const QString folder = session_->modelFolder();
    QString name = QFileInfo(folder).fileName();
    QString path = folder;
    // What the model is, when its folder says (the demo model), before its shape.
    if (const QString label = session_->model()->label; !label.isEmpty()) {
        name = tr("%1: %2").arg(name.isEmpty() ? folder : name, label);
        path = tr("%1: %2").arg(folder, label);
    }
    summary_->setText(tr("%1 — %2").arg(name.isEmpty() ? folder : name, session_->modelSummary()));
    summary_->setToolTip(tr("%1 — %2").arg(path, session_->modelSummary()));
    maskWhatIf_->sync();
    grid_->setResult(nullptr, {});
    grid_->setPlaceholder(
        tr("The sentence's maps show here, one per layer and head, once the model "
           "has read it; the line above says what keeps a sentence out."));
    showSelection();
}

void ModelPanel::showTokens()
{
    // Written with a cursor in one edit block (one layout), not as HTML to
    // parse; nothing is done when the pieces are those shown.
    const std::vector<ModelToken>& tokens = session_->resultTokens();
    QList<QPair<QString, int>> pieces;
    pieces.reserve(qsizetype(tokens.size()));
    for (const ModelToken& t : tokens)
        pieces.append({t.display, t.id});
    if (pieces == shownPieces_ && !tokens_->document()->isEmpty() && session_->resultProbe() == shownProbe_)
        return;
    shownPieces_ = pieces;
    shownProbe_ = session_->resultProbe();
    QTextDocument* doc = tokens_->document();
    doc->clear();
    QTextCursor cursor(doc);
    const QTextCharFormat plain;
    cursor.beginEditBlock();
    const std::optional<RepeatProbe>& probe = session_->resultProbe();
    cursor.insertText(
        probe
            ? tr("%n token(s) of the probe (%1 random tokens, seed %2, repeated twice; the "
                 "sentence is kept): ",
                 nullptr, int(tokens.size()))
                  .arg(probe->span)
                  .arg(probe->seed)
            : tr("%n token(s) (%1): ", nullptr, int(tokens.size())).arg(session_->model()->tokenizer->name()),
        plain);
    for (qsizetype i = 0; i < pieces.size(); ++i) {
        if (i > 0)
            cursor.insertText(QStringLiteral(" · "), plain);
        writePiece(cursor, pieces[i].first, pieces[i].second);
    }
    cursor.endEditBlock();
}

void ModelPanel::showResult()
{
    showTokens();
    QStringList labels;
    for (const ModelToken& t : session_->resultTokens())
        labels << t.display;
    grid_->setKeyValueHeads(session_->config().kvHeads);
    grid_->setResult(session_->result(), labels);
    if (rankKey_ >= int(labels.size()))
        rankKey_ = -1;
    showRanking();
    lesson_->setText(CinemaLesson(*session_).panelText());
    lesson_->setVisible(!lesson_->text().isEmpty());
    QStringList nextLabels;
    for (const attn::TopToken& t : session_->nextTokens())
        nextLabels << session_->vocabularyToken(t.id).display;
    next_->setPrediction(session_->nextTokens(), nextLabels, session_->temperature(),
                         labels.isEmpty() ? QString() : labels.back());
    showSelection();
}

void ModelPanel::syncWhatIfs()
{
    if (temperature_->value() != session_->temperature()) {
        const QSignalBlocker block(temperature_);
        temperature_->setValue(session_->temperature());
    }
    maskWhatIf_->sync();
    qkNormWhatIf_->sync();
    showSelection();
}

void ModelPanel::showSelection()
{
    const int layer = session_->selectedLayer();
    const int head = session_->selectedHead();
    grid_->setSelected(layer, head);
    show_->setText(tr("Show layer %1 head %2 in the pipeline").arg(layer + 1).arg(head + 1));
    const attn::AttentionResult* shown = session_->head(layer, head);
    show_->setEnabled(shown != nullptr);
    const std::vector<ModelToken>& tokens = session_->resultTokens();
    if (!shown || tokens.empty()) {
        headCaption_->setText(ModelGridRenderer::tileName(layer, head));
        lastRow_->setRowCount(0);
    } else {
        const int last = shown->tokens() - 1;
        const QString sharing = keyValueSharingText(session_->config(), head);
        headCaption_->setText(
            tr("%1, ÷ %2\nfrom “%3”:")
                .arg(sharing.isEmpty() ? ModelGridRenderer::tileName(layer, head)
                                       : tr("%1 (%2)").arg(ModelGridRenderer::tileName(layer, head), sharing))
                .arg(shown->divisor)
                .arg(tokens[std::size_t(last)].display));
        lastRow_->setRowCount(last + 1);
        for (int j = 0; j <= last; ++j) {
            lastRow_->setItem(j, 0, new QTableWidgetItem(tokens[std::size_t(j)].display));
            lastRow_->setItem(j, 1, numberItem(shown->weights(last, j), 4));
        }
        lastRow_->resizeColumnToContents(0);
    }
    if (session_->hasModel()) {
        const attn::ScaleMode mode = session_->selectedScaleMode();
        scale_->setCurrentIndex(scale_->findData(int(mode)));
        divisor_->setEnabled(mode == attn::ScaleMode::Custom);
        if (mode == attn::ScaleMode::Custom)
            divisor_->setValue(session_->selectedDivisor());
        divisorCaption_->setText(tr("Next pass: ÷ %1 (√d_k = %2).")
                                     .arg(session_->selectedDivisor())
                                     .arg(std::sqrt(double(session_->config().headDim))));
    }
}

void ModelPanel::rankBy(int key)
{
    rankKey_ = key;
    showRanking();
}

void ModelPanel::showRanking()
{
    const std::vector<ModelToken>& tokens = session_->resultTokens();
    if (rankKey_ < 0 && headLab_->scoreKind() >= 0) {
        const attn::Matrix scores = headLab_->chosenScores();
        if (scores.size() == 0)
            grid_->clearRanking();
        else
            grid_->setRanking(scores, headLab_->scoreCaption(), headLab_->chosenScoresAreWeights());
        return;
    }
    const attn::Matrix table = session_->weightsFromLast(rankKey_);
    if (table.size() == 0) {
        grid_->clearRanking();
        return;
    }
    grid_->setRanking(
        table,
        tr("weight from “%1” to “%2”").arg(tokens.back().display, tokens[std::size_t(rankKey_)].display));
}

void ModelPanel::showAblated()
{
    std::vector<int> tiles;
    if (session_->hasModel())
        for (const attn::HeadIndex& h : session_->ablatedHeads())
            tiles.push_back(h.layer * session_->config().heads + h.head);
    grid_->setCrossedTiles(std::move(tiles));
    // While heads are ablated the table sets both passes' tokens side by
    // side, in the bars' place.
    next_->setVisible(headLab_->comparison()->isHidden());
}

void ModelPanel::applyScale()
{
    const auto mode = attn::ScaleMode(scale_->currentData().toInt());
    divisor_->setEnabled(mode == attn::ScaleMode::Custom);
    const attn::Status set =
        session_->setScale(mode, divisor_->value(), ScaleScope(scope_->currentData().toInt()));
    if (!set)
        showMessage(QString::fromStdString(set.error().message));
    else
        showSelection();
}

}  // namespace attnlab
