// SPDX-License-Identifier: GPL-3.0-or-later
#include "svgpaintdevice.h"

#include <QBuffer>
#include <QGradient>
#include <QHash>
#include <QImage>
#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QTextItem>

#include <cmath>

namespace attnlab {

namespace {

QByteArray num(double v)
{
    // Two decimals are finer than any screen pixel; trailing zeros dropped.
    if (std::abs(v) < 0.005)
        return "0";
    QByteArray text = QByteArray::number(v, 'f', 2);
    while (text.endsWith('0'))
        text.chop(1);
    if (text.endsWith('.'))
        text.chop(1);
    return text;
}

QByteArray escaped(const QString& text)
{
    return text.toHtmlEscaped().replace(QLatin1Char('\''), QLatin1String("&#39;")).toUtf8();
}

QByteArray colorAttributes(const char* what, const QColor& color)
{
    QByteArray out = QByteArray(what) + "=\"" + color.name(QColor::HexRgb).toLatin1() + '"';
    if (color.alpha() < 255)
        out += QByteArray(" ") + what + "-opacity=\"" + num(color.alphaF()) + '"';
    return out;
}

QColor brushColor(const QBrush& brush)
{
    if (const QGradient* g = brush.gradient(); g && !g->stops().isEmpty())
        return g->stops().first().second;
    return brush.color();
}

QByteArray pathData(const QPainterPath& path)
{
    QByteArray d;
    for (int i = 0; i < path.elementCount(); ++i) {
        const QPainterPath::Element e = path.elementAt(i);
        switch (e.type) {
        case QPainterPath::MoveToElement: d += 'M' + num(e.x) + ' ' + num(e.y); break;
        case QPainterPath::LineToElement: d += 'L' + num(e.x) + ' ' + num(e.y); break;
        case QPainterPath::CurveToElement: {
            const QPainterPath::Element c2 = path.elementAt(i + 1);
            const QPainterPath::Element end = path.elementAt(i + 2);
            d += 'C' + num(e.x) + ' ' + num(e.y) + ' ' + num(c2.x) + ' ' + num(c2.y) + ' ' + num(end.x) + ' '
                 + num(end.y);
            i += 2;
            break;
        }
        case QPainterPath::CurveToDataElement: break;
        }
    }
    return d;
}

}  // namespace

// Keeps the painter's state as it changes and appends one element per
// drawing call, in device pixels.
class SvgPaintEngine : public QPaintEngine {
public:
    SvgPaintEngine(const QSize& size, int dpi)
        : QPaintEngine(QPaintEngine::AllFeatures
                       & ~(QPaintEngine::PatternBrush | QPaintEngine::PerspectiveTransform
                           | QPaintEngine::ConicalGradientFill | QPaintEngine::PorterDuff)),
          size_(size),
          dpi_(dpi)
    {
    }

    bool begin(QPaintDevice*) override
    {
        body_.clear();
        defs_.clear();
        clipIds_.clear();
        document_.clear();
        clip_.clear();
        return true;
    }

    bool end() override
    {
        document_ =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" "
            "xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" width=\""
            + QByteArray::number(size_.width()) + "\" height=\"" + QByteArray::number(size_.height())
            + "\" viewBox=\"0 0 " + QByteArray::number(size_.width()) + ' '
            + QByteArray::number(size_.height()) + "\">\n";
        if (!defs_.isEmpty())
            document_ += "<defs>\n" + defs_ + "</defs>\n";
        document_ += body_ + "</svg>\n";
        return true;
    }

    Type type() const override { return QPaintEngine::User; }

    void updateState(const QPaintEngineState& state) override
    {
        const DirtyFlags flags = state.state();
        if (flags & DirtyPen)
            pen_ = state.pen();
        if (flags & DirtyBrush)
            brush_ = state.brush();
        if (flags & DirtyFont)
            font_ = state.font();
        if (flags & DirtyTransform)
            transform_ = state.transform();
        if (flags & (DirtyClipPath | DirtyClipRegion | DirtyClipEnabled | DirtyTransform))
            updateClip();
    }

    void drawPath(const QPainterPath& path) override
    {
        const QPainterPath mapped = transform_.map(path);
        QByteArray style = fillAttributes(mapped.fillRule());
        appendElement("<path d=\"" + pathData(mapped) + "\" " + style + ' ' + strokeAttributes() + "/>");
    }

    void drawPolygon(const QPointF* points, int count, PolygonDrawMode mode) override
    {
        if (count < 1)
            return;
        QPainterPath path;
        path.moveTo(points[0]);
        for (int i = 1; i < count; ++i)
            path.lineTo(points[i]);
        const QPainterPath mapped = transform_.map(path);
        QByteArray d = pathData(mapped);
        QByteArray fill = "fill=\"none\"";
        if (mode != PolylineMode) {
            d += 'Z';
            fill = fillAttributes(mode == OddEvenMode ? Qt::OddEvenFill : Qt::WindingFill);
        }
        appendElement("<path d=\"" + d + "\" " + fill + ' ' + strokeAttributes() + "/>");
    }

    void drawTextItem(const QPointF& p, const QTextItem& item) override
    {
        const QFont font = item.font();
        const double pixels = font.pixelSize() > 0 ? font.pixelSize() : font.pointSizeF() * dpi_ / 72.0;
        QByteArray position;
        if (transform_.type() <= QTransform::TxTranslate) {
            const QPointF at = transform_.map(p);
            position = "x=\"" + num(at.x()) + "\" y=\"" + num(at.y()) + '"';
        } else {
            position = "x=\"" + num(p.x()) + "\" y=\"" + num(p.y()) + "\" transform=\"matrix("
                       + num(transform_.m11()) + ' ' + num(transform_.m12()) + ' ' + num(transform_.m21())
                       + ' ' + num(transform_.m22()) + ' ' + num(transform_.dx()) + ' ' + num(transform_.dy())
                       + ")\"";
        }
        QByteArray attributes = position + " font-family=\"" + escaped(font.family()) + "\" font-size=\""
                                + num(pixels) + "\" " + colorAttributes("fill", pen_.color());
        if (font.weight() >= QFont::DemiBold)
            attributes += " font-weight=\"bold\"";
        if (font.italic())
            attributes += " font-style=\"italic\"";
        appendElement("<text " + attributes + " xml:space=\"preserve\">" + escaped(item.text()) + "</text>");
    }

    void drawPixmap(const QRectF& r, const QPixmap& pm, const QRectF& sr) override
    {
        drawImage(r, pm.toImage(), sr, Qt::AutoColor);
    }

    void drawImage(const QRectF& r, const QImage& image, const QRectF& sr, Qt::ImageConversionFlags) override
    {
        const QImage part = sr == QRectF(image.rect()) ? image : image.copy(sr.toAlignedRect());
        QByteArray png;
        QBuffer buffer(&png);
        buffer.open(QIODevice::WriteOnly);
        part.save(&buffer, "PNG");
        const QTransform& t = transform_;
        appendElement("<image x=\"" + num(r.x()) + "\" y=\"" + num(r.y()) + "\" width=\"" + num(r.width())
                      + "\" height=\"" + num(r.height())
                      + "\" preserveAspectRatio=\"none\" transform=\"matrix(" + num(t.m11()) + ' '
                      + num(t.m12()) + ' ' + num(t.m21()) + ' ' + num(t.m22()) + ' ' + num(t.dx()) + ' '
                      + num(t.dy()) + ")\" xlink:href=\"data:image/png;base64," + png.toBase64() + "\"/>");
    }

    const QByteArray& document() const { return document_; }

private:
    QByteArray strokeAttributes() const
    {
        if (pen_.style() == Qt::NoPen || pen_.brush().style() == Qt::NoBrush)
            return "stroke=\"none\"";
        // A cosmetic pen (or width 0) is that wide on the device whatever
        // the transform; any other pen scales with it.
        double width = pen_.widthF() > 0 ? pen_.widthF() : 1.0;
        if (!pen_.isCosmetic() && pen_.widthF() > 0)
            width *= std::sqrt(std::abs(transform_.determinant()));
        QByteArray out =
            colorAttributes("stroke", brushColor(pen_.brush())) + " stroke-width=\"" + num(width) + '"';
        switch (pen_.capStyle()) {
        case Qt::SquareCap: out += " stroke-linecap=\"square\""; break;
        case Qt::RoundCap: out += " stroke-linecap=\"round\""; break;
        default: break;
        }
        switch (pen_.joinStyle()) {
        case Qt::BevelJoin: out += " stroke-linejoin=\"bevel\""; break;
        case Qt::RoundJoin: out += " stroke-linejoin=\"round\""; break;
        default: break;
        }
        if (pen_.style() != Qt::SolidLine) {
            // Qt's dash pattern is in units of the pen width.
            QByteArray dashes;
            for (qreal dash : pen_.dashPattern())
                dashes += (dashes.isEmpty() ? "" : ",") + num(dash * width);
            if (!dashes.isEmpty())
                out += " stroke-dasharray=\"" + dashes + '"';
        }
        return out;
    }

    QByteArray fillAttributes(Qt::FillRule rule) const
    {
        if (brush_.style() == Qt::NoBrush)
            return "fill=\"none\"";
        QByteArray out = colorAttributes("fill", brushColor(brush_));
        if (rule == Qt::OddEvenFill)
            out += " fill-rule=\"evenodd\"";
        return out;
    }

    void updateClip()
    {
        clip_.clear();
        QPainter* p = painter();
        if (!p || !p->hasClipping())
            return;
        const QRectF rect = p->combinedTransform().mapRect(p->clipBoundingRect());
        const QByteArray key =
            num(rect.x()) + ' ' + num(rect.y()) + ' ' + num(rect.width()) + ' ' + num(rect.height());
        auto it = clipIds_.find(key);
        if (it == clipIds_.end()) {
            const QByteArray id = "clip" + QByteArray::number(clipIds_.size());
            defs_ += "<clipPath id=\"" + id + "\"><rect x=\"" + num(rect.x()) + "\" y=\"" + num(rect.y())
                     + "\" width=\"" + num(rect.width()) + "\" height=\"" + num(rect.height())
                     + "\"/></clipPath>\n";
            it = clipIds_.insert(key, id);
        }
        clip_ = *it;
    }

    void appendElement(const QByteArray& element)
    {
        if (clip_.isEmpty()) {
            body_ += element + '\n';
        } else {
            body_ += "<g clip-path=\"url(#" + clip_ + ")\">" + element + "</g>\n";
        }
    }

    QSize size_;
    int dpi_;
    QPen pen_;
    QBrush brush_;
    QFont font_;
    QTransform transform_;
    QByteArray clip_;  // id of the current clip, empty for none
    QHash<QByteArray, QByteArray> clipIds_;
    QByteArray defs_;
    QByteArray body_;
    QByteArray document_;
};

SvgPaintDevice::SvgPaintDevice(const QSize& size, int dpi)
    : size_(size), dpi_(dpi), engine_(std::make_unique<SvgPaintEngine>(size, dpi))
{
}

SvgPaintDevice::~SvgPaintDevice() = default;

QPaintEngine* SvgPaintDevice::paintEngine() const
{
    return engine_.get();
}

QByteArray SvgPaintDevice::svg() const
{
    return engine_->document();
}

int SvgPaintDevice::metric(PaintDeviceMetric metric) const
{
    switch (metric) {
    case PdmWidth: return size_.width();
    case PdmHeight: return size_.height();
    case PdmWidthMM: return int(std::lround(size_.width() * 25.4 / dpi_));
    case PdmHeightMM: return int(std::lround(size_.height() * 25.4 / dpi_));
    case PdmNumColors: return 0x7fffffff;
    case PdmDepth: return 32;
    case PdmDpiX:
    case PdmDpiY:
    case PdmPhysicalDpiX:
    case PdmPhysicalDpiY: return dpi_;
    case PdmDevicePixelRatio: return 1;
    case PdmDevicePixelRatioScaled: return int(devicePixelRatioFScale());
    default: return QPaintDevice::metric(metric);
    }
}

}  // namespace attnlab
