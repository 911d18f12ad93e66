// SPDX-License-Identifier: GPL-3.0-or-later
#include "noticebar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace attnlab {

NoticeBar::NoticeBar(QWidget* parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("noticeBar"));
    setAccessibleName(tr("Notice"));
    setFrameShape(QFrame::StyledPanel);
    // The tooltip colours of the palette: distinct from the window in light
    // and dark themes alike.
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::ToolTipBase);
    setForegroundRole(QPalette::ToolTipText);

    auto* icon = new QLabel(this);
    const int side = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    icon->setPixmap(
        style()->standardIcon(QStyle::SP_MessageBoxInformation, nullptr, this).pixmap(side, side));
    label_ = new QLabel(this);
    label_->setObjectName(QStringLiteral("noticeText"));
    label_->setWordWrap(true);
    label_->setTextFormat(Qt::PlainText);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label_->setForegroundRole(QPalette::ToolTipText);
    close_ = new QToolButton(this);
    close_->setObjectName(QStringLiteral("noticeDismissButton"));
    close_->setText(QStringLiteral("×"));
    close_->setAutoRaise(true);
    close_->setAccessibleName(tr("Dismiss the notice"));
    close_->setToolTip(tr("Dismiss"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(icon, 0, Qt::AlignTop);
    layout->addWidget(label_, 1);
    layout->addWidget(close_, 0, Qt::AlignTop);
    connect(close_, &QToolButton::clicked, this, &NoticeBar::dismiss);
    hide();
}

QString NoticeBar::text() const
{
    return isHidden() ? QString() : label_->text();
}

void NoticeBar::showNotice(const QString& text)
{
    if (text.isEmpty()) {
        dismiss();
        return;
    }
    label_->setText(text);
    setAccessibleDescription(text);
    show();
}

void NoticeBar::dismiss()
{
    label_->clear();
    hide();
}

void NoticeBar::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape) {
        dismiss();
        return;
    }
    QFrame::keyPressEvent(event);
}

}  // namespace attnlab
