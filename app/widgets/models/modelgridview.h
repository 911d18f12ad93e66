// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The layers x heads grid of a model's pass, drawn by ModelGridRenderer from
// the result it is handed (it reads no session and computes nothing). A
// click on a tile picks that head (headActivated); the arrow keys move the
// selection and pick as they go. A left click or Enter also asks for the
// head in the pipeline (headShown). A Ctrl+click (or Ctrl+Enter) asks to
// ablate the head, or to stop ablating it (ablationToggled); ablated heads
// are drawn crossed out. Tooltips name the tile, the cell's tokens and its
// weight.

#include "gpt2.h"
#include "modelgridrenderer.h"

#include <QStringList>
#include <QWidget>

#include <memory>

namespace attnlab {

class ModelGridView : public QWidget {
    Q_OBJECT
public:
    explicit ModelGridView(QWidget* parent = nullptr);
    ~ModelGridView() override;

    // Null: no tiles. tokenLabels name the rows and columns in tooltips.
    void setResult(std::shared_ptr<const attn::DecoderResult> result, const QStringList& tokenLabels);
    std::shared_ptr<const attn::DecoderResult> result() const { return renderer_.result(); }
    void setSelected(int layer, int head);
    // One number per tile (ModelGridRenderer::setRanking), the three largest marked.
    void setRanking(const attn::Matrix& values, const QString& caption, bool colored = false);
    // The heads drawn crossed out, as layer * heads + head.
    void setCrossedTiles(std::vector<int> tiles);
    void clearRanking();
    int selectedLayer() const { return renderer_.selectedLayer(); }
    int selectedHead() const { return renderer_.selectedHead(); }
    int layers() const { return renderer_.layerCount(); }
    int heads() const { return renderer_.headCount(); }
    int tileCount() const { return layers() * heads(); }
    // What the view says while it has no maps: how to open a model, until
    // one is open.
    void setPlaceholder(const QString& text);
    QString placeholder() const { return placeholder_; }

    // At the widget's size, for tests.
    QRect tileRect(int layer, int head) const { return renderer_.tileRect(size(), layer, head); }
    const ModelGridRenderer& renderer() const { return renderer_; }

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

signals:
    void headActivated(int layer, int head);
    // Show this head in the pipeline (a left click, or Enter on the selected tile).
    void headShown(int layer, int head);
    void ablationToggled(int layer, int head);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;  // tooltips
    void changeEvent(QEvent* event) override;

private:
    ModelGridRenderer renderer_;
    QString placeholder_;
};

}  // namespace attnlab
