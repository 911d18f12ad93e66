#pragma once
// A labelled heatmap of one matrix: rows and columns carry token (or
// dimension) labels, a colour scale with numbers sits beside the cells, cell
// values are printed inside the cells whenever they fit legibly, and entries
// equal to -inf are drawn as masked (hatched), not as a colour. Above the
// legible size the cells are drawn as one scaled image without text.
//
// The view draws what it is given and does no arithmetic on the matrix.

#include "matrix.h"

#include <QImage>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <functional>

namespace attnlab {

class HeatmapView : public QWidget {
    Q_OBJECT
public:
    enum class ColorMap {
        Diverging,   // blue - white - red, centred on zero over [-m, m]
        Sequential,  // white to deep blue over [lo, hi], e.g. weights in [0, 1]
    };

    explicit HeatmapView(QWidget* parent = nullptr);

    void setTitle(const QString& title);
    QString title() const;
    void setColorMap(ColorMap map);
    ColorMap colorMap() const;

    // values: (rows, cols); rowLabels.size() == rows, colLabels.size() == cols.
    void setData(const attn::Matrix& values, const QStringList& rowLabels,
                 const QStringList& colLabels);
    const attn::Matrix& values() const;
    QStringList rowLabels() const;
    QStringList columnLabels() const;

    // The colour range. Diverging maps use [-m, m] with m = max(|lo|, |hi|).
    void setRange(double lo, double hi);
    double rangeLow() const;
    double rangeHigh() const;

    // Decimals printed in cells and on the colour scale.
    void setDecimals(int decimals);

    // Highlighted query row (-1 for none).
    void setFocusRow(int row);
    int focusRow() const;

    // Text for the tooltip of a cell; without a provider the tooltip gives
    // the labels and the value.
    void setToolTipProvider(std::function<QString(int row, int col)> provider);

    // Geometry, for tests and for other views: the cell under a point
    // (false outside the cells), and the rectangle of a cell.
    bool cellAt(const QPoint& pos, int* row, int* col) const;
    QRect cellRect(int row, int col) const;
    QRect cellsArea() const;
    bool cellTextVisible() const;  // true when values are printed in cells

    // Renders the view (title, labels, scale) into an image of the given size
    // in device-independent pixels, for export and tests.
    QImage renderImage(const QSize& size, qreal devicePixelRatio = 1.0) const;

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

signals:
    void cellHovered(int row, int col);
    void rowClicked(int row);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;  // QEvent::ToolTip
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;  // palette / font changes

private:
    struct Layout;
    Layout computeLayout(const QSize& size, const QFontMetrics& fm) const;
    void paintInto(QPainter& painter, const QSize& size) const;
    void rebuildCellImage();

    QString title_;
    ColorMap colorMap_ = ColorMap::Diverging;
    attn::Matrix values_;
    QStringList rowLabels_;
    QStringList colLabels_;
    double lo_ = -1.0;
    double hi_ = 1.0;
    int decimals_ = 2;
    int focusRow_ = -1;
    std::function<QString(int, int)> toolTipProvider_;
    QImage cellImage_;  // one pixel per cell, scaled when painted
};

}  // namespace attnlab
