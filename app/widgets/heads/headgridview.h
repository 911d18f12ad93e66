// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The head grid: every head's map as a small labelled tile, and the heads'
// average, drawn by HeadGridRenderer from the result it is handed (it reads
// no session and does no arithmetic). A click on a tile, or the arrow keys
// then Enter or Space, picks that head (headActivated); the selected head is
// outlined. Tooltips name the head, the cell's tokens and its number.

#include "headgridrenderer.h"
#include "multihead.h"

#include <QStringList>
#include <QWidget>

#include <memory>

namespace attnlab {

class HeadGridView : public QWidget {
    Q_OBJECT
public:
    explicit HeadGridView(QWidget* parent = nullptr);
    ~HeadGridView() override;

    // Null: no tiles. selectedHead is 0-based (-1: none outlined).
    // changedHeads: see HeadGridRenderer::setResult.
    void setResult(std::shared_ptr<const attn::MultiHeadResult> result, const QStringList& tokenLabels,
                   int selectedHead, const std::vector<int>* changedHeads = nullptr);
    std::shared_ptr<const attn::MultiHeadResult> result() const { return renderer_.result(); }
    QStringList tokenLabels() const { return renderer_.tokenLabels(); }
    void setSelectedHead(int head);
    int selectedHead() const { return renderer_.selectedHead(); }
    void setKind(HeadMapKind kind);
    HeadMapKind kind() const { return renderer_.kind(); }
    void setWeightsScaleMode(WeightsScaleMode mode);

    int headCount() const { return renderer_.headCount(); }
    int tileCount() const { return renderer_.tileCount(); }
    // The keyboard's tile (-1: none yet).
    int cursorTile() const { return renderer_.cursorTile(); }
    // Geometry at the widget's size, for tests: a tile's frame and map, the
    // tile under a point (-1: none).
    QRect tileRect(int tile) const;
    QRect tileMapRect(int tile) const;
    int tileAt(const QPoint& pos) const;
    QString toolTipAt(const QPoint& pos) const;

    const HeadGridRenderer& renderer() const { return renderer_; }
    // The grid as drawn for an exported picture: white, black text.
    void renderTo(QPainter& painter, const QSize& size) const;

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

signals:
    // A head picked by click or keyboard (0-based).
    void headActivated(int head);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;  // QEvent::ToolTip, focus
    void changeEvent(QEvent* event) override;

private:
    void activate(int tile);
    void moveCursor(int rows, int cols);
    void updateAccessibleText();

    HeadGridRenderer renderer_;
};

}  // namespace attnlab
