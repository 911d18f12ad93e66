// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A labelled heatmap of one matrix: rows and columns carry token (or
// dimension) labels, a colour scale with numbers sits beside the cells, cell
// values are printed inside the cells whenever they fit legibly, and entries
// equal to -inf are drawn as masked (hatched), not as a colour. Above the
// legible size the cells are drawn as one scaled image without text.
//
// The view draws what it is given, through HeatmapRenderer (layout and
// painting), and does no arithmetic on the matrix; it handles the events,
// zoom and pan, tooltips and keyboard focus.

#include "cellsource.h"
#include "heatmaprenderer.h"
#include "mapscale.h"
#include "matrix.h"
#include "weightsscale.h"

#include <QImage>
#include <QRect>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <memory>

class QPainter;

namespace attnlab {

class HeatmapView : public QWidget {
    Q_OBJECT
public:
    using ColorMap = MapColors;
    using ColorScale = MapScale;

    explicit HeatmapView(QWidget* parent = nullptr);
    ~HeatmapView() override;

    void setTitle(const QString& title);
    QString title() const;
    void setColorMap(ColorMap map);
    ColorMap colorMap() const;

    // values: (rows, cols); rowLabels.size() == rows, colLabels.size() == cols.
    // Missing labels are numbered from 0, extra ones are ignored.
    void setData(const attn::Matrix& values, const QStringList& rowLabels, const QStringList& colLabels);
    // The same without a copy: the view keeps `cells` and reads what it draws.
    void setCells(std::shared_ptr<const CellSource> cells, const QStringList& rowLabels,
                  const QStringList& colLabels);
    // Every value shown, as a matrix (for tests and export).
    attn::Matrix values() const;
    double value(int row, int col) const;
    int rowCount() const;
    int columnCount() const;
    QStringList rowLabels() const;
    QStringList columnLabels() const;
    // The column labels as drawn at the widget's size: every step-th one,
    // elided to the room it has (empty where they are hidden).
    QStringList shownColumnLabels() const;

    // The colour range. Diverging maps use [-m, m] with m = max(|lo|, |hi|).
    void setRange(double lo, double hi);
    double rangeLow() const;
    double rangeHigh() const;

    void setColorScale(ColorScale scale, double logLow = 1e-4);
    ColorScale colorScale() const;  // as drawn: Linear on a diverging map
    double logLow() const;
    // One line under the cells naming the colour scale (empty: none).
    void setScaleCaption(const QString& caption);
    QString scaleCaption() const;
    // The colour bar's tick texts from bottom to top, as drawn at the
    // widget's size ("low … high" alone where the bar is under two lines).
    QStringList scaleTickTexts() const;

    // Decimals printed in cells and on the colour scale.
    void setDecimals(int decimals);
    int decimals() const;

    // Zoom and pan: the block of cells shown (x: first column, y: first
    // row), laid out as the whole map is otherwise, with the labels thinned
    // for its cell size; all cells unless zoomed in. Ctrl+wheel, + and -
    // zoom; the wheel (Shift: sideways), a drag, Left/Right, Shift+Up/Down
    // and Page Up/Down pan; 0 shows every cell again.
    QRect shownBlock() const;
    void setShownBlock(const QRect& block);  // clamped to the map, at least one cell
    bool isZoomed() const;
    // Factor > 1 zooms in, keeping cell (row, col) (default: the block's
    // centre) under the same point.
    void zoomBy(double factor, int row = -1, int col = -1);
    void panBy(int rows, int cols);
    void resetZoom();

    // The compact layout (HeatmapLayoutInput::compact), for a row of maps
    // (CompactMaps).
    void setCompactLayout(CompactLayout compact);
    CompactLayout compactLayout() const { return renderer_.compactLayout(); }

    // Highlighted query row (-1 for none); zoomed in, the block pans to show it.
    void setFocusRow(int row);
    int focusRow() const;

    // Text for the tooltip of a cell; without a provider the tooltip gives
    // the labels and the value.
    void setToolTipProvider(std::function<QString(int row, int col)> provider);

    // The colour a finite value is drawn with under the current map and
    // range on a linear scale, and the colour cell (row, col) is drawn with
    // under the current scale.
    QColor colorFor(double value) const;
    QColor cellColor(int row, int col) const;

    // Geometry, for tests and for other views: the cell under a point
    // (false outside the cells), and the rectangle of a cell.
    bool cellAt(const QPoint& pos, int* row, int* col) const;
    QRect cellRect(int row, int col) const;
    QRect cellsArea() const;
    bool cellTextVisible() const;  // true when values are printed in cells
    // Every n-th row is labelled (1: every row; 0: none).
    int rowLabelStep() const { return renderer_.layout(size()).rowLabelStep; }
    bool cellImageMode() const;  // true when cells are drawn as one scaled image

    // Renders the view (title, labels, scale) into an image of the given size
    // in device-independent pixels, for export and tests.
    QImage renderImage(const QSize& size, qreal devicePixelRatio = 1.0) const;
    // The same onto any painter (PDF, SVG, a figure of several maps), laid
    // out for `size` in the painter's current coordinates.
    void renderTo(QPainter& painter, const QSize& size) const;

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

signals:
    // Emitted when the pointer moves onto another cell.
    void cellHovered(int row, int col);
    // Emitted when a cell or a row label is clicked (zoomed in: released
    // without dragging).
    void rowClicked(int row);
    void shownBlockChanged(const QRect& block);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;  // QEvent::ToolTip, QEvent::Leave
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;  // palette / font changes

private:
    HeatmapStyle screenStyle() const;

    HeatmapRenderer renderer_;
    std::function<QString(int, int)> toolTipProvider_;
    // A press on the cells while zoomed in: a drag pans, a release without
    // one clicks the row.
    QPoint pressPos_;
    QRect pressBlock_;
    int pressRow_ = -1;
    bool dragging_ = false;
    int hoverRow_ = -1;
    int hoverCol_ = -1;
};

// Shows `scale` on `map` (scale, log bottom and caption).
void applyWeightsScale(HeatmapView* map, const WeightsScale& scale);

}  // namespace attnlab
