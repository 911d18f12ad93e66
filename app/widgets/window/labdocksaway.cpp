// SPDX-License-Identifier: GPL-3.0-or-later
#include "labdocksaway.h"

#include "presentationmode.h"

#include <QDockWidget>
#include <QAction>
#include <QTabBar>
#include <QTabWidget>

#include <utility>

namespace attnlab {

namespace {

// Whether `dock` is the front tab of its group (or not tabbed): behind
// another it counts as shown but is not visible to a reader. QMainWindow's
// tab bars carry each tab's dock as its data.
bool inFront(const QDockWidget* dock)
{
    const QWidget* window = dock->parentWidget();
    if (!window)
        return true;
    for (const QTabBar* bar : window->findChildren<QTabBar*>(Qt::FindDirectChildrenOnly))
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabData(i).value<quintptr>() == quintptr(dock))
                return i == bar->currentIndex();
    return true;
}

}  // namespace

LabDocksAway::LabDocksAway(QTabWidget* tabs, QWidget* page, PresentationMode* presentation,
                           QList<QDockWidget*> docks, QObject* parent)
    : QObject(parent), tabs_(tabs), page_(page), presentation_(presentation)
{
    for (QDockWidget* dock : docks)
        docks_.append(dock);
    connect(tabs_, &QTabWidget::currentChanged, this, &LabDocksAway::follow);
    if (presentation_)
        connect(presentation_, &PresentationMode::activeChanged, this, &LabDocksAway::follow);
    follow();
}

void LabDocksAway::follow()
{
    // Presentation mode hides every dock and restores its own saved layout.
    if (presentation_ && presentation_->isActive())
        return;
    QWidget* current = tabs_->currentWidget();
    // The tab's page may be a scroll area holding it.
    const bool onPage = page_ && current && (current == page_ || current->isAncestorOf(page_));
    if (onPage)
        putAway();
    else
        bringBack();
}

void LabDocksAway::putAway()
{
    away_ = true;
    for (const QPointer<QDockWidget>& dock : docks_)
        // Shown as the View menu says: a tabbed dock behind another counts.
        if (dock && !dock->isFloating() && dock->toggleViewAction()->isChecked()) {
            if (inFront(dock))
                raised_.append(dock);
            dock->hide();
            if (!hidden_.contains(dock))
                hidden_.append(dock);
        }
}

void LabDocksAway::bringBack()
{
    away_ = false;
    const QList<QPointer<QDockWidget>> hidden = std::exchange(hidden_, {});
    for (const QPointer<QDockWidget>& dock : hidden)
        if (dock)
            dock->show();
    // The tabs that were in front come to the front again.
    for (const QPointer<QDockWidget>& dock : std::exchange(raised_, {}))
        if (dock)
            dock->raise();
}

void LabDocksAway::withDocksShown(const std::function<void()>& f)
{
    if (!away_ || hidden_.isEmpty()) {
        f();
        return;
    }
    for (const QPointer<QDockWidget>& dock : hidden_)
        if (dock)
            dock->show();
    for (const QPointer<QDockWidget>& dock : raised_)
        if (dock)
            dock->raise();
    f();
    for (const QPointer<QDockWidget>& dock : hidden_)
        if (dock)
            dock->hide();
}

}  // namespace attnlab
