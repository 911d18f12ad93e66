// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A message bar across the window: one sentence about something the
// application did that the user should know (their matrices grown, cut or
// kept by a change), shown until dismissed (the × button or Escape while it
// has focus) or replaced by the next one. Not for transient hints: those go
// to the status bar.

#include <QFrame>

class QLabel;
class QToolButton;

namespace attnlab {

class NoticeBar : public QFrame {
    Q_OBJECT
public:
    explicit NoticeBar(QWidget* parent = nullptr);

    QString text() const;
    // Shows `text`; an empty text hides the bar.
    void showNotice(const QString& text);
    void dismiss();

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    QLabel* label_;
    QToolButton* close_;
};

}  // namespace attnlab
