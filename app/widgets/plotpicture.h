// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One QCustomPlot as a picture file's bytes: PNG at twice the size in
// pixels (for sharpness), SVG, or PDF with one device unit per pixel (so
// the layout and the fonts keep their proportions). The lab plots' exports
// (the d_k lab, the training lab) share it.

#include "expected.h"

#include <QByteArray>
#include <QSize>
#include <QString>
#include <QStringList>

class QCustomPlot;

namespace attnlab {

// "png", "svg" or "pdf"; `title` names the PDF.
attn::Expected<QByteArray> plotPictureBytes(QCustomPlot* plot, const QString& format, const QSize& size,
                                            const QString& title);
// The formats and size a lab plot's pictures may have, or why not.
attn::Status checkPlotPictures(const QStringList& formats, const QSize& size);

}  // namespace attnlab
