// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Undo and redo by keyboard from any widget of a window. A line edit (the
// sentence field, a spin box's text, a table cell's editor) claims Ctrl+Z,
// Ctrl+Shift+Z and Ctrl+Y for its own text history even when that history is
// empty, so the window's Undo and Redo never saw them. This filter, on the
// application, lets the editor keep a key only while it has something of its
// own to undo or redo; otherwise the key goes on to the window's action
// (the lab's QUndoStack).

#include <QObject>

class QAction;
class QWidget;

namespace attnlab {

class UndoShortcuts : public QObject {
    Q_OBJECT
public:
    // `window`: whose widgets are routed; `undo`, `redo`: its actions, whose
    // shortcuts are the keys routed.
    UndoShortcuts(QWidget* window, QAction* undo, QAction* redo);
    ~UndoShortcuts() override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* window_;
    QAction* undo_;
    QAction* redo_;
};

}  // namespace attnlab
