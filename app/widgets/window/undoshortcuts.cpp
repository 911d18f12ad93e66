// SPDX-License-Identifier: GPL-3.0-or-later
#include "undoshortcuts.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QLineEdit>

namespace attnlab {

namespace {

bool matches(const QAction* action, const QKeyEvent* key)
{
    const QKeySequence pressed(key->keyCombination());
    for (const QKeySequence& s : action->shortcuts())
        if (s.matches(pressed) == QKeySequence::ExactMatch)
            return true;
    return false;
}

// The text field behind the widget with the keyboard focus, if it is one.
QLineEdit* lineEditOf(QObject* watched)
{
    if (auto* edit = qobject_cast<QLineEdit*>(watched))
        return edit;
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(watched))
        return spin->findChild<QLineEdit*>();
    return nullptr;
}

// Also across a floating dock, which is a window of its own.
bool inside(const QWidget* widget, const QWidget* window)
{
    for (const QWidget* w = widget; w; w = w->parentWidget())
        if (w == window)
            return true;
    return false;
}

}  // namespace

UndoShortcuts::UndoShortcuts(QWidget* window, QAction* undo, QAction* redo)
    : QObject(window), window_(window), undo_(undo), redo_(redo)
{
    qApp->installEventFilter(this);
}

UndoShortcuts::~UndoShortcuts()
{
    qApp->removeEventFilter(this);
}

bool UndoShortcuts::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::ShortcutOverride)
        return false;
    QLineEdit* edit = lineEditOf(watched);
    if (!edit || !inside(edit, window_))
        return false;
    const auto* key = static_cast<QKeyEvent*>(event);
    const bool undo = matches(undo_, key);
    const bool redo = !undo && matches(redo_, key);
    if (!undo && !redo)
        return false;
    const bool own = !edit->isReadOnly() && (undo ? edit->isUndoAvailable() : edit->isRedoAvailable());
    // Swallowed unaccepted, the override lets the shortcut reach the action.
    return !own;
}

}  // namespace attnlab
