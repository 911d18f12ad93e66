// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelpictures.h"

#include "headlinesrenderer.h"
#include "heatmapstyle.h"
#include "modelgridrenderer.h"
#include "nexttokenrenderer.h"
#include "pictureencoder.h"

#include <QCoreApplication>
#include <QDir>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QPainter>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

namespace attnlab {

namespace {

struct ModelPictures {
    Q_DECLARE_TR_FUNCTIONS(ModelPictures)
};

const QColor kText(0x20, 0x20, 0x20);
const QColor kHighlight(0xd9, 0x5f, 0x02);
const QColor kBar(0x31, 0x82, 0xbd);  // ColorBrewer Blues, as the weight maps

// As the other exported pictures size their text: a 42nd of the shorter side.
QFont pictureFont(const QSize& size, qreal factor = 1.0, bool bold = false)
{
    const int pixels = std::clamp(std::min(size.width(), size.height()) / 42, 11, 64);
    QFont font = QGuiApplication::font();
    font.setPixelSize(std::max(1, int(std::lround(pixels * factor))));
    font.setBold(bold);
    return font;
}

HeatmapStyle exportStyle()
{
    HeatmapStyle style;
    style.background = Qt::white;
    style.text = kText;
    style.frame = QColor(0x80, 0x80, 0x80);
    return style;
}

// White, `title` on top; the size left below it, where the painter now starts.
QSize paintTitle(QPainter& painter, const QSize& size, const QString& title)
{
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
    painter.translate(pad, top);
    return {size.width() - 2 * pad, size.height() - top - pad};
}

}  // namespace

QSize modelViewSize(int layers, int heads)
{
    return {std::clamp(160 + 90 * heads, 640, 4000), std::clamp(140 + 90 * layers, 480, 4000)};
}

QSize headViewSize(int tokens)
{
    return {900, std::clamp(160 + 28 * tokens, 600, 4000)};
}

attn::Expected<std::vector<OutputFile>> modelPictureFiles(const ModelStart& start,
                                                          const ExportFormats& formats, const QSize& size)
{
    const attn::Gpt2Config& config = start.model.checkpoint.weights.config;
    const attn::Gpt2Result& r = start.result;
    QStringList labels;
    for (const int id : r.tokenIds)
        labels << start.model.tokenizer.token(id).display;
    QStringList nextLabels;
    for (const attn::Gpt2TopToken& top : r.top)
        nextLabels << start.model.tokenizer.token(top.id).display;
    // Not owned: the result outlives the renderers, all local to this call.
    const std::shared_ptr<const attn::Gpt2Result> result(std::shared_ptr<void>(), &r);
    const QString name = QDir(start.model.folder).dirName();
    const QString shape = ModelPictures::tr("%1 (GPT-2, %2 layers x %3 heads, %4)")
                              .arg(name)
                              .arg(config.nLayer)
                              .arg(config.nHead)
                              .arg(QString::fromStdString(start.model.checkpoint.dtype));

    ModelGridRenderer grid;
    grid.setResult(result, labels);
    HeadLinesRenderer lines;
    lines.setResult(result, labels);
    NextTokenRenderer next;
    next.setPrediction(r.top, nextLabels, r.temperature, labels.isEmpty() ? QString() : labels.last());

    struct Picture {
        QString stem;
        QString title;
        QSize size;
        std::function<void(QPainter&, const QSize&)> paint;
    };
    std::vector<Picture> pictures;
    pictures.push_back({QStringLiteral("model_view"),
                        ModelPictures::tr("%1: attention weights, %2 tokens, scale %3")
                            .arg(shape)
                            .arg(r.tokens())
                            .arg(QString::fromStdString(start.scaleMode)),
                        size.isEmpty() ? modelViewSize(config.nLayer, config.nHead) : size,
                        [&grid](QPainter& p, const QSize& s) {
                            grid.setFont(pictureFont(s));
                            grid.paint(p, s, exportStyle(), kHighlight);
                        }});
    for (int layer = 0; layer < config.nLayer; ++layer)
        pictures.push_back(
            {QStringLiteral("head_view_layer%1").arg(layer + 1),
             ModelPictures::tr("%1: layer %2, every head's weights as lines").arg(name).arg(layer + 1),
             size.isEmpty() ? headViewSize(r.tokens()) : size, [&lines, layer](QPainter& p, const QSize& s) {
                 lines.setLayer(layer);
                 lines.setFont(pictureFont(s));
                 lines.paint(p, s, exportStyle(), kHighlight);
             }});
    pictures.push_back({QStringLiteral("next_token"),
                        ModelPictures::tr("%1: the next token after the last one").arg(name),
                        size.isEmpty() ? QSize(900, 100 + 30 * int(r.top.size())) : size,
                        [&next](QPainter& p, const QSize& s) {
                            next.setFont(pictureFont(s));
                            next.paint(p, s, exportStyle(), kBar);
                        }});

    std::vector<OutputFile> files;
    for (const auto& [wanted, format] :
         {std::pair{formats.png, ImageFormat::Png}, std::pair{formats.svg, ImageFormat::Svg},
          std::pair{formats.pdf, ImageFormat::Pdf}}) {
        if (!wanted)
            continue;
        for (const Picture& picture : pictures) {
            attn::Expected<QByteArray> bytes = encodePicture(
                [&picture](QPainter& p, const QSize& s) {
                    p.save();
                    const QSize inner = paintTitle(p, s, picture.title);
                    picture.paint(p, inner);
                    p.restore();
                },
                format, picture.size, 1.0, picture.title);
            if (!bytes)
                return bytes.error();
            files.push_back(bytesFile(
                (picture.stem + QLatin1Char('.') + QLatin1String(imageFormatName(format))).toStdString(),
                std::move(bytes).value()));
        }
    }
    return files;
}

}  // namespace attnlab
