// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tokens of the sentence as a row of chips, each with its vocabulary id.
// The chip colour is chosen by the id, so a repeated word visibly shares it.
// Clicking a chip asks to focus that token as the query. A chip shows at
// most kMaxChipEms widths of "M" of its token (displayLabel, then elided).

#include <QList>
#include <QStringList>
#include <QWidget>

namespace attnlab {

class TokenStrip : public QWidget {
    Q_OBJECT
public:
    explicit TokenStrip(QWidget* parent = nullptr);

    void setTokens(const QStringList& tokens, const QList<int>& ids);
    QStringList tokens() const { return tokens_; }
    QString chipText(int index) const { return labels_.value(index); }
    QList<int> ids() const { return ids_; }
    void setFocusIndex(int index);  // -1 for none
    int focusIndex() const { return focus_; }

    QRect chipRect(int index) const;
    QColor chipColor(int index) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void tokenClicked(int index);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;  // QEvent::ToolTip
    void changeEvent(QEvent* event) override;

private:
    void relayout();
    int chipAt(const QPoint& pos) const;

    QStringList tokens_;
    QStringList labels_;  // what each chip shows
    QList<int> ids_;
    QList<QRect> rects_;
    int focus_ = -1;
};

}  // namespace attnlab
