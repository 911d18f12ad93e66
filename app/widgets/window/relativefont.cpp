// SPDX-License-Identifier: GPL-3.0-or-later
#include "relativefont.h"

#include <QEvent>
#include <QFont>
#include <QPointer>
#include <QWidget>

namespace attnlab {

namespace {

class RelativeFont : public QObject {
public:
    RelativeFont(QWidget* widget, double factor, bool bold)
        : QObject(widget), widget_(widget), factor_(factor), bold_(bold)
    {
        widget_->installEventFilter(this);
        watchParent();
    }

    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::FontChange && watched == parent_ && parent_)
            apply();
        else if (event->type() == QEvent::ParentChange && watched == widget_)
            watchParent();  // put in a layout of another widget
        return QObject::eventFilter(watched, event);
    }

private:
    void watchParent()
    {
        if (parent_)
            parent_->removeEventFilter(this);
        parent_ = widget_->parentWidget();
        if (parent_)
            parent_->installEventFilter(this);
        apply();
    }

    void apply()
    {
        QFont font = widget_->parentWidget() ? widget_->parentWidget()->font() : QFont();
        if (font.pointSizeF() > 0)
            font.setPointSizeF(font.pointSizeF() * factor_);
        else
            font.setPixelSize(int(font.pixelSize() * factor_ + 0.5));
        if (bold_)
            font.setBold(true);
        widget_->setFont(font);
    }

    QWidget* widget_;
    QPointer<QWidget> parent_;
    double factor_;
    bool bold_;
};

}  // namespace

void setRelativeFont(QWidget* widget, double factor, bool bold)
{
    new RelativeFont(widget, factor, bold);
}

}  // namespace attnlab
