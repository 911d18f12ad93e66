// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelpictures.h"

#include "heatmapstyle.h"
#include "modelgridrenderer.h"
#include "pictureencoder.h"

#include <QCoreApplication>
#include <QDir>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QPainter>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <memory>

namespace attnlab {

namespace {

struct ModelPictures {
    Q_DECLARE_TR_FUNCTIONS(ModelPictures)
};

const QColor kText(0x20, 0x20, 0x20);
const QColor kHighlight(0xd9, 0x5f, 0x02);

// As the other exported pictures size their text: a 42nd of the shorter side.
QFont pictureFont(const QSize& size, qreal factor = 1.0, bool bold = false)
{
    const int pixels = std::clamp(std::min(size.width(), size.height()) / 42, 11, 64);
    QFont font = QGuiApplication::font();
    font.setPixelSize(std::max(1, int(std::lround(pixels * factor))));
    font.setBold(bold);
    return font;
}

void paintModelView(QPainter& painter, const QSize& size, ModelGridRenderer& grid, const QString& title)
{
    painter.save();
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    const QFont titleFont = pictureFont(size, 1.2, true);
    const QFontMetrics fm(titleFont);
    const int pad = fm.height() / 2;
    painter.setFont(titleFont);
    painter.setPen(kText);
    painter.drawText(QRect(pad, pad, size.width() - 2 * pad, fm.height()),
                     Qt::AlignHCenter | Qt::AlignVCenter,
                     fm.elidedText(title, Qt::ElideRight, size.width() - 2 * pad));
    const int top = pad + fm.height() + pad;
    HeatmapStyle style;
    style.background = Qt::white;
    style.text = kText;
    style.frame = QColor(0x80, 0x80, 0x80);
    grid.setFont(pictureFont(size));
    painter.translate(pad, top);
    grid.paint(painter, QSize(size.width() - 2 * pad, size.height() - top - pad), style, kHighlight);
    painter.restore();
}

}  // namespace

QSize modelViewSize(int layers, int heads)
{
    return {std::clamp(160 + 90 * heads, 640, 4000), std::clamp(140 + 90 * layers, 480, 4000)};
}

attn::Expected<std::vector<OutputFile>> modelPictureFiles(const ModelStart& start,
                                                          const ExportFormats& formats, const QSize& size)
{
    const attn::Gpt2Config& config = start.model.checkpoint.weights.config;
    QStringList labels;
    for (const int id : start.result.tokenIds)
        labels << start.model.tokenizer.token(id).display;
    // Not owned: the result outlives the renderer, both local to this call.
    const std::shared_ptr<const attn::Gpt2Result> result(std::shared_ptr<void>(), &start.result);
    ModelGridRenderer grid;
    grid.setResult(result, labels);
    const QString title = ModelPictures::tr(
                              "%1 (GPT-2, %2 layers x %3 heads, %4): attention weights, %5 tokens, "
                              "scale %6")
                              .arg(QDir(start.model.folder).dirName())
                              .arg(config.nLayer)
                              .arg(config.nHead)
                              .arg(QString::fromStdString(start.model.checkpoint.dtype))
                              .arg(start.result.tokens())
                              .arg(QString::fromStdString(start.scaleMode));
    const QSize pictureSize = size.isEmpty() ? modelViewSize(config.nLayer, config.nHead) : size;

    std::vector<OutputFile> files;
    for (const auto& [wanted, format] :
         {std::pair{formats.png, ImageFormat::Png}, std::pair{formats.svg, ImageFormat::Svg},
          std::pair{formats.pdf, ImageFormat::Pdf}}) {
        if (!wanted)
            continue;
        attn::Expected<QByteArray> bytes =
            encodePicture([&grid, &title](QPainter& p, const QSize& s) { paintModelView(p, s, grid, title); },
                          format, pictureSize, 1.0, title);
        if (!bytes)
            return bytes.error();
        files.push_back(
            bytesFile(std::string("model_view.") + imageFormatName(format), std::move(bytes).value()));
    }
    return files;
}

}  // namespace attnlab
