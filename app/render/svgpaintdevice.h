// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A paint device that records QPainter calls as an SVG document, for vector
// export without the Qt SVG module (not installed here).
//
// Paths, polygons and lines become <path> elements in device pixels (the
// painter's transform applied), text becomes <text> (selectable, in the
// painter's font family and pixel size, rotated text through a transform),
// pixmaps and images become embedded PNG <image> elements. Solid pens and
// brushes only: a gradient brush is drawn with its first colour, a pattern
// brush with its colour. Rectangular clips become <clipPath>s.
//
//   SvgPaintDevice device(QSize(800, 600));
//   QPainter painter(&device);
//   ... draw ...
//   painter.end();
//   QByteArray svg = device.svg();

#include <QByteArray>
#include <QPaintDevice>
#include <QSize>

#include <memory>

namespace attnlab {

class SvgPaintEngine;

class SvgPaintDevice : public QPaintDevice {
public:
    // size in pixels; dpi decides how point sizes of fonts become pixels.
    explicit SvgPaintDevice(const QSize& size, int dpi = 96);
    ~SvgPaintDevice() override;
    SvgPaintDevice(const SvgPaintDevice&) = delete;
    SvgPaintDevice& operator=(const SvgPaintDevice&) = delete;

    QPaintEngine* paintEngine() const override;
    QSize size() const { return size_; }

    // The whole document; complete once the painter has ended.
    QByteArray svg() const;

protected:
    int metric(PaintDeviceMetric metric) const override;

private:
    QSize size_;
    int dpi_;
    std::unique_ptr<SvgPaintEngine> engine_;
};

}  // namespace attnlab
