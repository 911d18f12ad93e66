// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One picture in PNG, SVG or PDF from any drawing function: the function
// paints (0, 0, size) in its painter's coordinates and is called once per
// picture. The painter is a plain QPainter: a view that draws with a
// painter of its own (a QCustomPlot) records into a QPicture and replays it.
//
// PNG: size times scale pixels (scale multiplies the pixels, not the layout),
// on white. SVG (Qt SVG's QSvgGenerator, gradients kept, the size in
// pixels) and PDF (QPdfWriter) are vectors at 96 dpi,
// the page the picture's size, text kept as text.
//
// A font scale makes text and lines that many times larger in the same
// picture: the function lays out for size / fontScale and is drawn scaled up.

#include "attentionexport.h"
#include "expected.h"

#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>

#include <functional>
#include <vector>

class QPainter;

namespace attnlab {

using PaintFunction = std::function<void(QPainter& painter, const QSize& size)>;

// The function drawn `fontScale` times larger (1: as it is).
PaintFunction withFontScale(PaintFunction paint, qreal fontScale);

QImage renderPicture(const PaintFunction& paint, const QSize& size, qreal scale = 1.0);
QByteArray svgPicture(const PaintFunction& paint, const QSize& size);
QByteArray pdfPicture(const PaintFunction& paint, const QSize& size, const QString& title);
// Checks the size and scale (ViewExporter::checkSize) first.
attn::Expected<QByteArray> encodePicture(const PaintFunction& paint, ImageFormat format, const QSize& size,
                                         qreal scale, const QString& title);
// The same picture as the file "<stem>.png" (".svg", ".pdf"), its PDF titled `stem`.
attn::Expected<OutputFile> pictureFile(const PaintFunction& paint, ImageFormat format, const QSize& size,
                                       const QString& stem);
// pictureFile appended to `files`, at `size` or, when that is empty, at
// `defaultSize` (the exporters' own size for the picture).
attn::Status appendPictureFile(std::vector<OutputFile>* files, const PaintFunction& paint, ImageFormat format,
                               const QSize& size, const QSize& defaultSize, const QString& stem);

}  // namespace attnlab
