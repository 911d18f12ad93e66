// SPDX-License-Identifier: GPL-3.0-or-later
#include "pictureencoder.h"

#include "viewexporter.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

constexpr int kDpi = 96;  // device pixels per inch of SVG and PDF

}  // namespace

PaintFunction withFontScale(PaintFunction paint, qreal fontScale)
{
    if (!(fontScale > 0) || fontScale == 1.0)
        return paint;
    return [paint = std::move(paint), fontScale](QPainter& painter, const QSize& size) {
        painter.save();
        painter.scale(fontScale, fontScale);
        paint(painter, QSize(std::max(1, int(std::lround(size.width() / fontScale))),
                             std::max(1, int(std::lround(size.height() / fontScale)))));
        painter.restore();
    };
}

QImage renderPicture(const PaintFunction& paint, const QSize& size, qreal scale)
{
    QImage image((QSizeF(size) * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.setDotsPerMeterX(int(std::lround(kDpi * scale / 0.0254)));
    image.setDotsPerMeterY(int(std::lround(kDpi * scale / 0.0254)));
    image.fill(Qt::white);
    QPainter painter(&image);
    paint(painter, size);
    painter.end();
    return image;
}

QByteArray svgPicture(const PaintFunction& paint, const QSize& size)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setResolution(kDpi);
        generator.setTitle(QStringLiteral("Attention Lab"));
        QPainter painter(&generator);
        paint(painter, size);
        painter.end();
    }
    // QSvgGenerator gives the size in millimetres; slides and web pages
    // expect the picture's pixels, as the PNG has them.
    const qsizetype head = bytes.indexOf('>', bytes.indexOf("<svg"));
    if (head > 0) {
        QString root = QString::fromUtf8(bytes.left(head));
        root.replace(QRegularExpression(QStringLiteral("\\bwidth=\"[^\"]*\"")),
                     QStringLiteral("width=\"%1\"").arg(size.width()));
        root.replace(QRegularExpression(QStringLiteral("\\bheight=\"[^\"]*\"")),
                     QStringLiteral("height=\"%1\"").arg(size.height()));
        bytes = root.toUtf8() + bytes.mid(head);
    }
    return bytes;
}

QByteArray pdfPicture(const PaintFunction& paint, const QSize& size, const QString& title)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        // One device unit per pixel at 96 dpi: the page is the picture's size.
        QPdfWriter writer(&buffer);
        writer.setResolution(kDpi);
        writer.setPageSize(QPageSize(QSizeF(size.width() * 72.0 / kDpi, size.height() * 72.0 / kDpi),
                                     QPageSize::Point, QString(), QPageSize::ExactMatch));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        writer.setTitle(title);
        writer.setCreator(QStringLiteral("Attention Lab"));
        QPainter painter(&writer);
        paint(painter, size);
        painter.end();
    }
    return bytes;
}

attn::Expected<QByteArray> encodePicture(const PaintFunction& paint, ImageFormat format, const QSize& size,
                                         qreal scale, const QString& title)
{
    if (const attn::Status ok = ViewExporter::checkSize(size, scale); !ok)
        return ok.error();
    switch (format) {
    case ImageFormat::Png: {
        QByteArray bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (!renderPicture(paint, size, scale).save(&buffer, "PNG"))
            return attn::Error{
                QCoreApplication::translate("ViewExporter", "The PNG image could not be encoded.")
                    .toStdString()};
        return bytes;
    }
    case ImageFormat::Svg: return svgPicture(paint, size);
    case ImageFormat::Pdf: return pdfPicture(paint, size, title);
    }
    return attn::Error{QCoreApplication::translate("ViewExporter", "Unknown image format.").toStdString()};
}

attn::Expected<OutputFile> pictureFile(const PaintFunction& paint, ImageFormat format, const QSize& size,
                                       const QString& stem)
{
    attn::Expected<QByteArray> bytes = encodePicture(paint, format, size, 1.0, stem);
    if (!bytes)
        return bytes.error();
    return bytesFile((stem + QLatin1Char('.') + QLatin1String(imageFormatName(format))).toStdString(),
                     std::move(bytes).value());
}

attn::Status appendPictureFile(std::vector<OutputFile>* files, const PaintFunction& paint, ImageFormat format,
                               const QSize& size, const QSize& defaultSize, const QString& stem)
{
    attn::Expected<OutputFile> file = pictureFile(paint, format, size.isEmpty() ? defaultSize : size, stem);
    if (!file)
        return file.error();
    files->push_back(std::move(file).value());
    return attn::okStatus();
}

}  // namespace attnlab
