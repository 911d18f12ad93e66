// SPDX-License-Identifier: GPL-3.0-or-later
#include "flashtilesview.h"

#include "flashtilesrenderer.h"
#include "flashwalk.h"
#include "heatmapstyle.h"
#include "session.h"

#include <QBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>

namespace attnlab {

namespace {

// The picture: the renderer's, on screen; the walk's keys.
class FlashTilesCanvas : public QWidget {
public:
    explicit FlashTilesCanvas(FlashWalk* walk, QWidget* parent = nullptr) : QWidget(parent), walk_(walk)
    {
        setFocusPolicy(Qt::StrongFocus);
        setMinimumSize(160, 140);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter painter(this);
        painter.setRenderHint(QPainter::Antialiasing, false);
        FlashTilesRenderer::paintMap(painter, QRectF(rect()), *walk_, font(),
                                     HeatmapStyle::fromPalette(palette(), true));
        if (hasFocus()) {
            painter.setPen(QPen(palette().color(QPalette::Highlight), 1.0, Qt::DotLine));
            painter.drawRect(rect().adjusted(0, 0, -1, -1));
        }
    }
    void keyPressEvent(QKeyEvent* event) override
    {
        switch (event->key()) {
        case Qt::Key_Right:
        case Qt::Key_Space: walk_->stepForward(); break;
        case Qt::Key_Left: walk_->back(); break;
        case Qt::Key_Home: walk_->first(); break;
        case Qt::Key_End: walk_->last(); break;
        case Qt::Key_P: walk_->setPlaying(!walk_->playing()); break;
        default: QWidget::keyPressEvent(event); return;
        }
        event->accept();
    }
    void focusInEvent(QFocusEvent* event) override
    {
        QWidget::focusInEvent(event);
        update();
    }
    void focusOutEvent(QFocusEvent* event) override
    {
        QWidget::focusOutEvent(event);
        update();
    }

private:
    FlashWalk* walk_;
};

// The current tile's rows: m, rescale, l, O.
class FlashStateCanvas : public QWidget {
public:
    explicit FlashStateCanvas(FlashWalk* walk, QWidget* parent = nullptr) : QWidget(parent), walk_(walk)
    {
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
        setMinimumWidth(300);
    }
    QSize sizeHint() const override { return {560, int(FlashTilesRenderer::stateHeight(*walk_, font()))}; }
    QSize minimumSizeHint() const override { return {300, 120}; }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter painter(this);
        FlashTilesRenderer::paintState(painter, QRectF(rect()), *walk_, font(),
                                       HeatmapStyle::fromPalette(palette(), true));
    }

private:
    FlashWalk* walk_;
};

QSpinBox* blockBox(const QString& name, const QString& accessible, int value)
{
    auto* box = new QSpinBox;
    box->setObjectName(name);
    box->setAccessibleName(accessible);
    box->setRange(1, FlashWalk::kMaxTokens);
    box->setValue(value);
    box->setKeyboardTracking(false);
    return box;
}

QPushButton* button(const QString& name, const QString& text, const QString& tip)
{
    auto* b = new QPushButton(text);
    b->setObjectName(name);
    b->setToolTip(tip);
    b->setAccessibleDescription(tip);
    return b;
}

QLabel* line(const QString& name)
{
    auto* label = new QLabel;
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

}  // namespace

FlashTilesView::FlashTilesView(Session* session, QWidget* parent)
    : QWidget(parent), session_(session), walk_(new FlashWalk(this))
{
    rows_ = blockBox(QStringLiteral("flashBlockRows"), tr("Query block B_r"), FlashWalk::kDefaultBlockRows);
    cols_ = blockBox(QStringLiteral("flashBlockCols"), tr("Key block B_c"), FlashWalk::kDefaultBlockCols);
    first_ = button(QStringLiteral("flashFirst"), tr("First"), tr("The first tile (Home)"));
    back_ = button(QStringLiteral("flashBack"), tr("Back"), tr("One tile back (Left)"));
    step_ = button(QStringLiteral("flashStep"), tr("Step"), tr("The next tile (Right or Space)"));
    last_ = button(QStringLiteral("flashLast"), tr("Last"),
                   tr("The last tile: O / l against the lab's context (End)"));
    play_ = button(QStringLiteral("flashPlay"), tr("Play"), tr("Step through the tiles one by one (P)"));
    play_->setCheckable(true);
    stepText_ = line(QStringLiteral("flashStepText"));
    endText_ = line(QStringLiteral("flashEndText"));
    memoryText_ = line(QStringLiteral("flashMemoryText"));
    canvas_ = new FlashTilesCanvas(walk_);
    canvas_->setObjectName(QStringLiteral("flashTilesCanvas"));
    canvas_->setAccessibleName(tr("Score map in tiles"));
    state_ = new FlashStateCanvas(walk_);
    state_->setObjectName(QStringLiteral("flashStateCanvas"));
    state_->setAccessibleName(tr("The tile's query rows: m, rescale, l and O"));

    auto* rowsLabel = new QLabel(tr("Tiles of B_r"));
    rowsLabel->setBuddy(rows_);
    auto* colsLabel = new QLabel(tr("queries \u00d7 B_c"));
    colsLabel->setBuddy(cols_);
    auto* keysLabel = new QLabel(tr("keys"));
    auto* controls = new QHBoxLayout;
    controls->addWidget(rowsLabel);
    controls->addWidget(rows_);
    controls->addWidget(colsLabel);
    controls->addWidget(cols_);
    controls->addWidget(keysLabel);
    controls->addSpacing(16);
    for (QPushButton* b : {first_, back_, step_, last_, play_})
        controls->addWidget(b);
    controls->addStretch(1);

    // The map on the left; the step, the tile's rows, the end and the memory beside it.
    auto* side = new QVBoxLayout;
    side->addWidget(stepText_);
    side->addWidget(state_, 1);
    side->addWidget(endText_);
    side->addWidget(memoryText_);
    auto* body = new QHBoxLayout;
    body->addWidget(canvas_, 1);
    body->addLayout(side, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(body, 1);

    QWidget* order[] = {rows_, cols_, first_, back_, step_, last_, play_, canvas_};
    for (std::size_t i = 1; i < std::size(order); ++i)
        QWidget::setTabOrder(order[i - 1], order[i]);

    const auto blocks = [this] { walk_->setBlocks(rows_->value(), cols_->value()); };
    connect(rows_, &QSpinBox::valueChanged, this, blocks);
    connect(cols_, &QSpinBox::valueChanged, this, blocks);
    connect(first_, &QPushButton::clicked, walk_, &FlashWalk::first);
    connect(back_, &QPushButton::clicked, walk_, &FlashWalk::back);
    connect(step_, &QPushButton::clicked, walk_, &FlashWalk::stepForward);
    connect(last_, &QPushButton::clicked, walk_, &FlashWalk::last);
    connect(play_, &QPushButton::toggled, walk_, &FlashWalk::setPlaying);
    connect(walk_, &FlashWalk::playingChanged, this, [this](bool on) {
        const QSignalBlocker block(play_);
        play_->setChecked(on);
        play_->setText(on ? tr("Pause") : tr("Play"));
    });
    connect(walk_, &FlashWalk::changed, this, &FlashTilesView::showWalk);
    connect(walk_, &FlashWalk::currentChanged, this, &FlashTilesView::showStep);

    if (session_) {
        connect(session_, &Session::resultChanged, this, &FlashTilesView::follow);
        connect(session_, &Session::headSelected, this, &FlashTilesView::follow);
    }
    showWalk();
}

FlashTilesView::~FlashTilesView() = default;

void FlashTilesView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (stale_)
        follow();
}

void FlashTilesView::follow()
{
    stale_ = true;
    if (!session_ || !isVisible())
        return;
    stale_ = false;
    const std::shared_ptr<const LabResult> published = session_->published();
    walk_->setResult(published->computed() ? session_->shownResult() : nullptr, published->labels());
}

void FlashTilesView::showWalk()
{
    const int n = walk_->tokens();
    for (QSpinBox* box : {rows_, cols_}) {
        const QSignalBlocker block(box);
        box->setMaximum(n > 0 ? std::min(n, FlashWalk::kMaxTokens) : FlashWalk::kMaxTokens);
    }
    {
        const QSignalBlocker block(rows_);
        rows_->setValue(walk_->blockRows());
    }
    {
        const QSignalBlocker block(cols_);
        cols_->setValue(walk_->blockCols());
    }
    memoryText_->setText(walk_->memoryText());
    showStep();
}

void FlashTilesView::showStep()
{
    const bool ready = walk_->ready();
    // The map says a problem itself; this line says only what to do.
    stepText_->setText(ready ? (walk_->adjustment().isEmpty()
                                    ? walk_->stepText()
                                    : walk_->adjustment() + QLatin1Char(' ') + walk_->stepText())
                             : QString());
    endText_->setText(walk_->endText());
    // Enabled at the ends too (they do nothing there): a button that goes
    // grey under the keyboard's focus would send the focus elsewhere.
    for (QPushButton* b : {first_, back_, step_, last_, play_})
        b->setEnabled(ready);
    canvas_->update();
    state_->updateGeometry();
    state_->update();
}

}  // namespace attnlab
