// SPDX-License-Identifier: GPL-3.0-or-later
#include "dksweepframes.h"

#include "dksweep.h"
#include "dksweepsource.h"
#include "pictureencoder.h"
#include "picturestyle.h"

#include <QCoreApplication>
#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace attnlab {

namespace {

struct DkSweepFramesText {
    Q_DECLARE_TR_FUNCTIONS(DkSweepFrames)
};

const QColor kMuted(0x55, 0x5b, 0x66);

}  // namespace

QSize dkSweepFrameSize()
{
    const QSize figure = ViewExporter::defaultSize(ExportView::Pipeline);
    return {figure.width(), figure.height() + 80};
}

void paintDkSweepFrame(QPainter& painter, const QSize& size, const AttentionSnapshot& snapshot, int step,
                       int steps, const DkSweepFrameStyle& style)
{
    const int dK = int(snapshot.head().Q.cols());
    const int band = std::clamp(size.height() / 10, 24, 160);
    painter.save();
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    painter.setRenderHint(QPainter::TextAntialiasing);
    QFont titleFont = painter.font();
    titleFont.setPixelSize(std::max(12, band * 11 / 20));
    titleFont.setBold(true);
    QFont stepFont = titleFont;
    stepFont.setPixelSize(std::max(10, band * 6 / 20));
    stepFont.setBold(false);
    const int margin = band / 2;
    const QRect bandRect(margin, 0, size.width() - 2 * margin, band);
    painter.setFont(stepFont);
    painter.setPen(kMuted);
    const QString stepText = DkSweepFramesText::tr("step %1 of %2").arg(step).arg(steps);
    const int stepWidth = QFontMetrics(stepFont).horizontalAdvance(stepText);
    painter.drawText(bandRect, Qt::AlignRight | Qt::AlignBottom, stepText);
    painter.setFont(titleFont);
    painter.setPen(picturestyle::kText);
    const QRect titleRect = bandRect.adjusted(0, 0, -stepWidth - margin, 0);
    painter.drawText(titleRect, Qt::AlignLeft | Qt::AlignBottom,
                     QFontMetrics(titleFont).elidedText(DkSweepSource::title(dK), Qt::ElideRight,
                                                        std::max(0, titleRect.width())));
    painter.translate(0, band);
    ViewExporter exporter(snapshot, style.focusRow, style.options);
    exporter.setWeightsScaleMode(style.weightsScale);
    exporter.paint(painter, ExportView::Pipeline, QSize(size.width(), std::max(1, size.height() - band)));
    painter.restore();
}

attn::Expected<QByteArray> dkSweepFramePng(const AttentionSnapshot& snapshot, int step, int steps,
                                           const QSize& size, const DkSweepFrameStyle& style)
{
    return encodePicture([&](QPainter& painter,
                             const QSize& s) { paintDkSweepFrame(painter, s, snapshot, step, steps, style); },
                         ImageFormat::Png, size, 1.0, DkSweepSource::title(int(snapshot.head().Q.cols())));
}

attn::Expected<QByteArray> dkSweepFramePng(DkSweepSource& source, int dK, int step, int steps,
                                           const QSize& size, const DkSweepFrameStyle& style)
{
    const attn::Expected<AttentionSnapshot> snapshot = source.at(dK);
    if (!snapshot)
        return snapshot.error();
    return dkSweepFramePng(snapshot.value(), step, steps, size, style);
}

attn::Expected<std::vector<OutputFile>> dkSweepFrameFiles(const LabState& start, const std::vector<int>& dKs,
                                                          const QSize& size, const DkSweepFrameStyle& style)
{
    DkSweepSource source(start);
    if (!source.status())
        return source.status().error();
    std::vector<OutputFile> files;
    files.reserve(dKs.size());
    const int steps = int(dKs.size());
    for (int i = 0; i < steps; ++i) {
        attn::Expected<QByteArray> png =
            dkSweepFramePng(source, dKs[std::size_t(i)], i + 1, steps, size, style);
        if (!png)
            return png.error();
        files.push_back(bytesFile(DkSweep::frameFileName(i + 1).toStdString(), std::move(png).value()));
    }
    return files;
}

}  // namespace attnlab
