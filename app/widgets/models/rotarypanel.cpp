// SPDX-License-Identifier: GPL-3.0-or-later
#include "rotarypanel.h"

#include "modelsession.h"
#include "rotaryselection.h"

#include <QDialog>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QToolTip>
#include <QVBoxLayout>

namespace attnlab {

RotaryView::RotaryView(QWidget* parent) : QWidget(parent)
{
    setAccessibleName(tr("Rotary positions of the selected head"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    renderer_.setFont(font());
}

QSize RotaryView::minimumSizeHint() const
{
    return QSize(20 * fontMetrics().averageCharWidth(), 6 * fontMetrics().height());
}

QSize RotaryView::sizeHint() const
{
    return QSize(90 * fontMetrics().averageCharWidth(), 30 * fontMetrics().height());
}

void RotaryView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    renderer_.paint(painter, size(), HeatmapStyle::fromPalette(palette(), true));
}

bool RotaryView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const QString text = renderer_.toolTip(renderer_.hitTest(size(), help->pos()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void RotaryView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange) {
        renderer_.setFont(font());
        update();
    }
    QWidget::changeEvent(event);
}

RotaryPanel::RotaryPanel(ModelSession* session, bool larger, QWidget* parent)
    : QWidget(parent), session_(session), view_(new RotaryView(this))
{
    view_->setObjectName(QStringLiteral("modelRotaryView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    if (larger) {
        // On top: the page is short in the tab (1024 x 700), the window is not.
        open_ = new QPushButton(tr("Larger view…"), this);
        open_->setObjectName(QStringLiteral("modelRotaryOpenButton"));
        open_->setToolTip(tr("The same maps in a window of their own, following the selected head."));
        auto* hint = new QLabel(tr("Hover a cell for its numbers."), this);
        auto* row = new QHBoxLayout;
        row->addWidget(hint, 1);
        row->addWidget(open_);
        layout->addLayout(row);
        connect(open_, &QPushButton::clicked, this, &RotaryPanel::openWindow);
    }
    layout->addWidget(view_, 1);
    connect(session_, &ModelSession::modelOpened, this, &RotaryPanel::refresh);
    connect(session_, &ModelSession::resultChanged, this, &RotaryPanel::refresh);
    connect(session_, &ModelSession::selectionChanged, this, &RotaryPanel::refresh);
    refresh();
}

void RotaryPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (stale_)
        refresh();
}

void RotaryPanel::refresh()
{
    stale_ = true;
    if (!isVisible())
        return;
    stale_ = false;
    const attn::Expected<attn::RotaryHead> head = selectedRotaryHead(*session_);
    if (open_)
        open_->setEnabled(head.ok());
    if (!head) {
        view_->renderer().clear(QString::fromStdString(head.error().message));
        view_->update();
        return;
    }
    QStringList labels;
    for (const ModelToken& t : session_->resultTokens())
        labels << t.display;
    view_->renderer().setHead(*head, labels, RotaryRenderer::headTitle(session_->config(), *head),
                              rotaryFrequencyText(*session_, *head));
    view_->update();
}

void RotaryPanel::openWindow()
{
    if (!window_) {
        window_ = new QDialog(this);
        window_->setObjectName(QStringLiteral("modelRotaryWindow"));
        window_->setWindowTitle(tr("RoPE: scores with and without the rotation"));
        auto* layout = new QVBoxLayout(window_);
        layout->setContentsMargins(4, 4, 4, 4);
        layout->addWidget(new RotaryPanel(session_, false, window_));
        window_->resize(900, 520);
    }
    window_->show();
    window_->raise();
    window_->activateWindow();
}

}  // namespace attnlab
