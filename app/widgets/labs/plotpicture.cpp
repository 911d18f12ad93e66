// SPDX-License-Identifier: GPL-3.0-or-later
#include "plotpicture.h"

#include "pictureencoder.h"
#include "viewexportcontroller.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QCoreApplication>
#include <QPdfWriter>

namespace attnlab {

attn::Expected<std::vector<OutputFile>> plotPictureFiles(const std::vector<PlotPictureSource>& plots,
                                                         const QStringList& formats, const QSize& size)
{
    std::vector<OutputFile> files;
    for (const PlotPictureSource& source : plots) {
        for (const QString& f : formats) {
            attn::Expected<QByteArray> bytes = plotPictureBytes(source.plot, f, size, source.title);
            if (!bytes)
                return bytes.error();
            files.push_back(bytesFile(source.stem + '.' + f.toStdString(), std::move(bytes).value()));
        }
        source.plot->replot(QCustomPlot::rpQueuedReplot);
    }
    return files;
}

attn::Status checkPlotPictures(const QStringList& formats, const QSize& size)
{
    for (const QString& f : formats)
        if (f != QLatin1String("png") && f != QLatin1String("svg") && f != QLatin1String("pdf"))
            return attn::Error{QCoreApplication::translate("ScalingLabPlots",
                                                           "Unknown image format '%1'; use png, svg or pdf.")
                                   .arg(f)
                                   .toStdString()};
    if (size.width() < 100 || size.height() < 100)
        return attn::Error{
            QCoreApplication::translate("ScalingLabPlots", "Images must be at least 100 by 100 pixels.")
                .toStdString()};
    return attn::okStatus();
}

attn::Expected<QByteArray> plotPictureBytes(QCustomPlot* p, const QString& f, const QSize& size,
                                            const QString& title)
{
    const int w = size.width(), h = size.height();
    QByteArray bytes;
    if (f == QLatin1String("png")) {
        const QImage image = p->toPixmap(w, h, 2.0).toImage();
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (!image.save(&buffer, "PNG"))
            return attn::Error{
                QCoreApplication::translate("ScalingLabPlots", "The PNG image could not be encoded.")
                    .toStdString()};
    } else if (f == QLatin1String("pdf")) {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QPdfWriter writer(&buffer);
        const int dpi = p->logicalDpiX();
        writer.setResolution(dpi);
        writer.setPageSize(QPageSize(QSizeF(w * 72.0 / dpi, h * 72.0 / dpi), QPageSize::Point, QString(),
                                     QPageSize::ExactMatch));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        writer.setTitle(title);
        writer.setCreator(QStringLiteral("Attention Lab"));
        QCPPainter painter;
        if (!painter.begin(&writer))
            return attn::Error{QCoreApplication::translate("ScalingLabPlots", "The PDF could not be started.")
                                   .toStdString()};
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        painter.setWindow(0, 0, w, h);
        p->toPainter(&painter, w, h);
        painter.end();
    } else if (f == QLatin1String("svg")) {
        bytes = svgPicture(plotPainter(p), QSize(w, h));
    } else {
        return attn::Error{
            QCoreApplication::translate("ScalingLabPlots", "Unknown image format '%1'; use png, svg or pdf.")
                .arg(f)
                .toStdString()};
    }
    return bytes;
}

}  // namespace attnlab
