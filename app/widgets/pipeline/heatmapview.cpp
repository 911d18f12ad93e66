// SPDX-License-Identifier: GPL-3.0-or-later
#include "heatmapview.h"

#include "focusframe.h"
#include "heatmapnavigation.h"

#include <QEvent>
#include <QApplication>
#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attnlab {

HeatmapView::~HeatmapView() = default;

HeatmapView::HeatmapView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    renderer_.setFont(font());
}

void HeatmapView::setTitle(const QString& title)
{
    renderer_.setTitle(title);
    // Screen readers announce the map by its title.
    if (!title.isEmpty())
        setAccessibleName(title);
    update();
}

QString HeatmapView::title() const
{
    return renderer_.title();
}

void HeatmapView::setColorMap(ColorMap map)
{
    renderer_.setColorMap(map);
    update();
}

HeatmapView::ColorMap HeatmapView::colorMap() const
{
    return renderer_.colorMap();
}

void HeatmapView::setData(const attn::Matrix& values, const QStringList& rowLabels,
                          const QStringList& colLabels)
{
    setCells(matrixCells(values), rowLabels, colLabels);
}

void HeatmapView::setCells(std::shared_ptr<const CellSource> cells, const QStringList& rowLabels,
                           const QStringList& colLabels)
{
    // A zoomed block stays where it is while it fits (a d_k step keeps it).
    const bool wasZoomed = isZoomed();
    const QRect before = shownBlock();
    renderer_.setCells(std::move(cells), rowLabels, colLabels);
    hoverRow_ = hoverCol_ = -1;
    if (wasZoomed && shownBlock() != before)
        emit shownBlockChanged(shownBlock());
    update();
}

attn::Matrix HeatmapView::values() const
{
    attn::Matrix m(rowCount(), columnCount());
    for (int r = 0; r < m.rows(); ++r)
        renderer_.cells().rowValues(r, m.data() + std::size_t(r) * m.cols());
    return m;
}

double HeatmapView::value(int row, int col) const
{
    return renderer_.cells().value(row, col);
}

int HeatmapView::rowCount() const
{
    return renderer_.rowCount();
}

int HeatmapView::columnCount() const
{
    return renderer_.columnCount();
}

QStringList HeatmapView::rowLabels() const
{
    return renderer_.rowLabels();
}

QStringList HeatmapView::columnLabels() const
{
    return renderer_.columnLabels();
}

QStringList HeatmapView::shownColumnLabels() const
{
    return renderer_.shownColumnLabels(size());
}

void HeatmapView::setRange(double lo, double hi)
{
    renderer_.setRange(lo, hi);
    update();
}

double HeatmapView::rangeLow() const
{
    return renderer_.rangeLow();
}

double HeatmapView::rangeHigh() const
{
    return renderer_.rangeHigh();
}

void HeatmapView::setColorScale(ColorScale scale, double logLow)
{
    renderer_.setColorScale(scale, logLow);
    update();
}

HeatmapView::ColorScale HeatmapView::colorScale() const
{
    return renderer_.colorScale();
}

double HeatmapView::logLow() const
{
    return renderer_.logLow();
}

void HeatmapView::setScaleCaption(const QString& caption)
{
    renderer_.setScaleCaption(caption);
    update();
}

QString HeatmapView::scaleCaption() const
{
    return renderer_.scaleCaption();
}

QStringList HeatmapView::scaleTickTexts() const
{
    return renderer_.scaleTickTexts(size());
}

void HeatmapView::setDecimals(int decimals)
{
    renderer_.setDecimals(decimals);
    update();
}

int HeatmapView::decimals() const
{
    return renderer_.decimals();
}

QRect HeatmapView::shownBlock() const
{
    return renderer_.shownBlock();
}

void HeatmapView::setShownBlock(const QRect& block)
{
    if (!renderer_.setShownBlock(block))
        return;
    hoverRow_ = hoverCol_ = -1;
    update();
    emit shownBlockChanged(shownBlock());
}

bool HeatmapView::isZoomed() const
{
    return renderer_.isZoomed();
}

void HeatmapView::resetZoom()
{
    setShownBlock(QRect());
}

void HeatmapView::setCompactLayout(CompactLayout compact)
{
    if (compact == renderer_.compactLayout())
        return;
    renderer_.setCompactLayout(compact);
    update();
}

void HeatmapView::setFocusRow(int row)
{
    if (!renderer_.setFocusRow(row))
        return;
    const int focus = renderer_.focusRow();
    const QRect b = shownBlock();
    if (isZoomed() && focus >= 0 && (focus < b.top() || focus > b.bottom()))
        panBy(focus < b.top() ? focus - b.top() : focus - b.bottom(), 0);
    update();
}

int HeatmapView::focusRow() const
{
    return renderer_.focusRow();
}

void HeatmapView::setToolTipProvider(std::function<QString(int row, int col)> provider)
{
    toolTipProvider_ = std::move(provider);
}

QColor HeatmapView::colorFor(double value) const
{
    return renderer_.colorFor(value);
}

QColor HeatmapView::cellColor(int row, int col) const
{
    return renderer_.cellColor(row, col);
}

bool HeatmapView::cellAt(const QPoint& pos, int* row, int* col) const
{
    const int r = renderer_.rowAt(size(), pos.y());
    const int c = renderer_.columnAt(size(), pos.x());
    if (r < 0 || c < 0)
        return false;
    if (row)
        *row = r;
    if (col)
        *col = c;
    return true;
}

QRect HeatmapView::cellRect(int row, int col) const
{
    return renderer_.cellRect(size(), row, col);
}

QRect HeatmapView::cellsArea() const
{
    return renderer_.layout(size()).cells;
}

bool HeatmapView::cellTextVisible() const
{
    return renderer_.layout(size()).cellText;
}

bool HeatmapView::cellImageMode() const
{
    return renderer_.layout(size()).imageMode;
}

HeatmapStyle HeatmapView::screenStyle() const
{
    return HeatmapStyle::fromPalette(palette(), true);
}

QImage HeatmapView::renderImage(const QSize& size, qreal devicePixelRatio) const
{
    const qreal dpr = devicePixelRatio > 0 ? devicePixelRatio : 1.0;
    QImage image((QSizeF(size) * dpr).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    // Same dots per inch as the widget so that fonts match the layout.
    image.setDotsPerMeterX(static_cast<int>(std::lround(logicalDpiX() / 0.0254)));
    image.setDotsPerMeterY(static_cast<int>(std::lround(logicalDpiY() / 0.0254)));
    image.fill(palette().color(QPalette::Window));
    QPainter painter(&image);
    renderer_.paint(painter, size, HeatmapStyle::fromPalette(palette()));
    return image;
}

void HeatmapView::renderTo(QPainter& painter, const QSize& size) const
{
    renderer_.paint(painter, size, HeatmapStyle::fromPalette(palette()));
}

QSize HeatmapView::minimumSizeHint() const
{
    return {220, 200};
}

QSize HeatmapView::sizeHint() const
{
    const QFontMetrics fm = fontMetrics();
    return heatmapSizeHint(
        rowCount(), columnCount(), fm.height(), fm.horizontalAdvance(QLatin1Char('M')),
        [&] { return fm.horizontalAdvance(renderer_.widestCellText()); }, minimumSizeHint());
}

void HeatmapView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    renderer_.paint(painter, size(), screenStyle());
    // Keyboard focus (Up/Down then move the focused query).
    if (hasFocus())
        drawFocusFrame(painter, *this);
}

void HeatmapView::changeEvent(QEvent* event)
{
    switch (event->type()) {
    case QEvent::FontChange:
    case QEvent::StyleChange:
        renderer_.setFont(font());
        // Larger than the application's (presentation mode): the numbers
        // may keep the normal size where the larger one does not fit.
        renderer_.setSmallestCellPointSize(QApplication::font().pointSizeF());
        update();
        updateGeometry();
        break;
    case QEvent::PaletteChange: update(); break;
    default: break;
    }
    QWidget::changeEvent(event);
}

void HeatmapView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    update();
}

void applyWeightsScale(HeatmapView* map, const WeightsScale& scale)
{
    map->setColorScale(scale.scale, scale.logLow);
    map->setScaleCaption(scale.caption);
}

}  // namespace attnlab
