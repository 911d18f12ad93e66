// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One QCustomPlot as a picture file's bytes: PNG at twice the size in
// pixels (for sharpness), SVG, or PDF with one device unit per pixel (so
// the layout and the fonts keep their proportions). The lab plots' exports
// (the d_k lab, the training lab) share it.

#include "expected.h"
#include "stagedwrite.h"

#include <QByteArray>
#include <QSize>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

class QCustomPlot;

namespace attnlab {

// "png", "svg" or "pdf"; `title` names the PDF.
attn::Expected<QByteArray> plotPictureBytes(QCustomPlot* plot, const QString& format, const QSize& size,
                                            const QString& title);
// The formats and size a lab plot's pictures may have, or why not.
attn::Status checkPlotPictures(const QStringList& formats, const QSize& size);

// A lab plot as its picture files name and title it.
struct PlotPictureSource {
    QCustomPlot* plot = nullptr;
    std::string stem;  // file name without the format's extension
    QString title;     // names the PDF
};
// Every plot in every format, in that order, as STEM.FORMAT files; each plot
// is queued for a replot afterwards (the caller restores its colours first).
attn::Expected<std::vector<OutputFile>> plotPictureFiles(const std::vector<PlotPictureSource>& plots,
                                                         const QStringList& formats, const QSize& size);

}  // namespace attnlab
