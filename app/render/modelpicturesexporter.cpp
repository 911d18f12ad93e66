// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelpicturesexporter.h"

#include "displaylabel.h"
#include "gpt2.h"
#include "headlinesrenderer.h"
#include "cellsource.h"
#include "heatmaplabelpainter.h"
#include "heatmaprenderer.h"
#include "modelgridrenderer.h"
#include "nexttokenrenderer.h"
#include "picturestyle.h"
#include "rotaryrenderer.h"
#include "rotaryselection.h"

#include <QDir>
#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace attnlab {

ModelPicturesExporter::ModelPicturesExporter(std::shared_ptr<const attn::DecoderResult> result,
                                             const QStringList& tokens, const QStringList& topLabels,
                                             ModelPictureOptions options)
    : result_(std::move(result)), tokens_(tokens), topLabels_(topLabels), options_(std::move(options))
{
}

ModelPicturesExporter::~ModelPicturesExporter() = default;

bool ModelPicturesExporter::isEmpty() const
{
    if (!result_ || result_->layers.empty())
        return true;
    for (const attn::DecoderLayer& layer : result_->layers)
        if (layer.heads.empty() || layer.heads.size() != result_->layers.front().heads.size())
            return true;
    return false;
}

int ModelPicturesExporter::headViewLayer(int layer) const
{
    const int layers = result_ ? int(result_->layers.size()) : 0;
    if (layer >= 0 && layer < layers)
        return layer;
    if (options_.headViewLayer >= 0 && options_.headViewLayer < layers)
        return options_.headViewLayer;
    return std::max(0, layers - 1);
}

QString ModelPicturesExporter::modelName(const QString& folder, const std::string& scaleMode,
                                         const attn::HeadDivisors& divisors, const std::string& maskWhatIf)
{
    QString name = QDir(folder).dirName();
    if (scaleMode == "none")
        name += QStringLiteral(" (scale none: raw scores)");
    else if (scaleMode == "custom" && !divisors.empty())
        name += QStringLiteral(" (scores / %1)").arg(divisors.values.front());
    else if (scaleMode == "per-head")
        name += QStringLiteral(" (what-if divisors per layer or head)");
    if (!maskWhatIf.empty())
        name += QStringLiteral(" (mask %1)").arg(QString::fromStdString(maskWhatIf));
    return name;
}

QString ModelPicturesExporter::modelPrefix() const
{
    return options_.modelName.isEmpty() ? tr("Model") : options_.modelName;
}

QString ModelPicturesExporter::modelViewTitle() const
{
    const int layers = result_ ? int(result_->layers.size()) : 0;
    const int heads = layers > 0 ? int(result_->layers.front().heads.size()) : 0;
    return tr("%1: attention weights of %2 layers × %3 heads").arg(modelPrefix()).arg(layers).arg(heads);
}

QString ModelPicturesExporter::headViewTitle(int layer) const
{
    return tr("%1: head view of layer %2, query → key").arg(modelPrefix()).arg(headViewLayer(layer) + 1);
}

QString ModelPicturesExporter::nextTokenTitle() const
{
    return tr("%1: the next token").arg(modelPrefix());
}

QString ModelPicturesExporter::rotaryPictureTitle() const
{
    return tr("%1: RoPE, the raw scores without and with the rotation").arg(modelPrefix());
}

void ModelPicturesExporter::setRotary(ModelPictureOptions* options, const attn::DecoderConfig& config,
                                      attn::RotaryHead head)
{
    options->rotaryTitle = RotaryRenderer::headTitle(config, head);
    options->rotaryFrequencies = rotaryFrequencyText(config, head);
    options->rotary = std::move(head);
}

QString ModelPicturesExporter::sentenceLine() const
{
    constexpr int kTitleClusters = 200;
    const int n = result_ ? result_->tokens() : 0;
    if (options_.sentence.isEmpty())
        return tr("%n tokens", nullptr, n);
    return tr("“%1” (%n tokens)", nullptr, n).arg(displayLabel(options_.sentence, kTitleClusters));
}

QString ModelPicturesExporter::captionLine() const
{
    constexpr int kCaptionClusters = 200;
    return options_.caption.trimmed().isEmpty() ? QString()
                                                : displayLabel(options_.caption, kCaptionClusters);
}

QRect ModelPicturesExporter::paintTitle(QPainter& painter, const QSize& size, const QString& title) const
{
    const QFont titleFont = picturestyle::font(size, 1.3, true);
    const QFont lineFont = picturestyle::font(size);
    const QFontMetrics titleFm(titleFont);
    const QFontMetrics lineFm(lineFont);
    const int pad = titleFm.height() / 2;
    const QRect first(pad, pad, size.width() - 2 * pad, titleFm.height());
    const QRect second(pad, first.bottom() + 1, size.width() - 2 * pad, lineFm.height());
    painter.setPen(picturestyle::kText);
    painter.setFont(titleFont);
    painter.drawText(first, Qt::AlignHCenter | Qt::AlignVCenter,
                     HeatmapLabelPainter::elided(titleFm, title, first.width()));
    painter.setFont(lineFont);
    painter.drawText(second, Qt::AlignHCenter | Qt::AlignVCenter,
                     HeatmapLabelPainter::elided(lineFm, sentenceLine(), second.width()));
    QRect last = second;
    if (const QString caption = captionLine(); !caption.isEmpty()) {
        QFont captionFont = lineFont;
        captionFont.setItalic(true);
        const QFontMetrics captionFm(captionFont);
        last = QRect(pad, second.bottom() + 1, size.width() - 2 * pad, captionFm.height());
        painter.setFont(captionFont);
        painter.drawText(last, Qt::AlignHCenter | Qt::AlignVCenter,
                         HeatmapLabelPainter::elided(captionFm, caption, last.width()));
    }
    const int top = last.bottom() + 1 + pad;
    return QRect(pad, top, size.width() - 2 * pad, size.height() - top - pad);
}

void ModelPicturesExporter::paintModelView(QPainter& painter, const QSize& size) const
{
    painter.save();
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    if (!isEmpty()) {
        const QRect rest = paintTitle(painter, size, modelViewTitle());
        ModelGridRenderer grid;
        grid.setFont(picturestyle::font(size));
        grid.setResult(result_, tokens_);
        grid.setKeyValueHeads(options_.keyValueHeads);
        grid.setSelectedTile(options_.selectedLayer, options_.selectedHead);
        if (options_.ranking.size() > 0)
            grid.setRanking(options_.ranking, options_.rankingCaption);
        painter.translate(rest.topLeft());
        grid.paint(painter, rest.size(), picturestyle::style(), picturestyle::kHighlight);
    }
    painter.restore();
}

void ModelPicturesExporter::paintHeadView(QPainter& painter, const QSize& size, int layer) const
{
    painter.save();
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    if (!isEmpty()) {
        const QRect rest = paintTitle(painter, size, headViewTitle(layer));
        HeadLinesRenderer lines;
        lines.setFont(picturestyle::font(size));
        lines.setResult(result_, tokens_);
        lines.setLayer(headViewLayer(layer));
        lines.setHeadMask(options_.headMask);
        painter.translate(rest.topLeft());
        lines.paint(painter, rest.size(), picturestyle::style(), picturestyle::kHighlight);
    }
    painter.restore();
}

void ModelPicturesExporter::paintNextToken(QPainter& painter, const QSize& size) const
{
    painter.save();
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    const bool own = options_.nextTokens.empty();
    if (result_ && !(own ? result_->top : options_.nextTokens).empty()) {
        const QRect rest = paintTitle(painter, size, nextTokenTitle());
        NextTokenRenderer panel;
        panel.setFont(picturestyle::font(size));
        panel.setPrediction(own ? result_->top : options_.nextTokens, topLabels_,
                            own ? result_->temperature : options_.nextTemperature,
                            tokens_.value(tokens_.size() - 1));
        painter.translate(rest.topLeft());
        // Tableau's blue, the first head's colour in the head view.
        panel.paint(painter, rest.size(), picturestyle::style(), HeadLinesRenderer::headColor(0));
    }
    painter.restore();
}

void ModelPicturesExporter::paintRotary(QPainter& painter, const QSize& size) const
{
    painter.save();
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    if (result_ && options_.rotary) {
        const QRect rest = paintTitle(painter, size, rotaryPictureTitle());
        RotaryRenderer rotary;
        rotary.setFont(picturestyle::font(size));
        rotary.setHead(*options_.rotary, tokens_, options_.rotaryTitle, options_.rotaryFrequencies);
        painter.translate(rest.topLeft());
        rotary.paint(painter, rest.size(), picturestyle::style());
    }
    painter.restore();
}

void ModelPicturesExporter::paintMap(QPainter& painter, const QSize& size, const ModelMapPicture& map) const
{
    painter.save();
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    if (map.values.rows() > 0) {
        QRect rest = paintTitle(painter, size, tr("%1: %2").arg(modelPrefix(), map.title));
        if (!map.description.isEmpty()) {
            // Up to two lines, wrapped at words.
            const QFont lineFont = picturestyle::font(size);
            const QFontMetrics fm(lineFont);
            const QRect room(rest.left(), rest.top(), rest.width(), 2 * fm.lineSpacing());
            const int flags = Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap;
            const QRect used = fm.boundingRect(room, flags, map.description).intersected(room);
            painter.setFont(lineFont);
            painter.setPen(picturestyle::kMuted);
            painter.drawText(room, flags, map.description);
            rest.setTop(used.bottom() + 1 + fm.height() / 2);
        }
        HeatmapRenderer cells;
        cells.setFont(picturestyle::font(size));
        cells.setColorMap(map.colors);
        cells.setDecimals(map.decimals);
        cells.setCells(matrixCells(map.values), map.labels, map.labels);
        cells.setRange(map.low, map.high);
        cells.setTitle(map.mapTitle);
        painter.translate(rest.topLeft());
        cells.paint(painter, rest.size(), picturestyle::viewStyle());
    }
    painter.restore();
}

ModelMapPicture ModelPicturesExporter::rolloutPicture(attn::Matrix rollout, QStringList labels,
                                                      const QString& passText)
{
    ModelMapPicture map;
    map.title = tr("attention rollout");
    map.description = passText;
    map.mapTitle = tr("Attention rollout (rows: queries)");
    map.values = std::move(rollout);
    map.labels = std::move(labels);
    return map;
}

ModelMapPicture ModelPicturesExporter::differencePicture(attn::Matrix difference, QStringList labels,
                                                         const QString& caption)
{
    ModelMapPicture map;
    map.title = tr("difference of two runs, B − A");
    // "|B − A|" kept on one line where the description wraps.
    map.description =
        QString(caption).replace(QStringLiteral("|B − A|"), QStringLiteral("|B\u00a0−\u00a0A|"));
    map.mapTitle = tr("B − A (rows: queries; blue: B below A, red: above)");
    const double largest = difference.size() > 0 ? difference.cwiseAbs().maxCoeff() : 0.0;
    const double limit = largest > 0.0 ? largest : 1.0;
    map.values = std::move(difference);
    map.labels = std::move(labels);
    map.colors = MapColors::Diverging;
    map.low = -limit;
    map.high = limit;
    return map;
}

attn::Expected<std::vector<OutputFile>> ModelPicturesExporter::files(ImageFormat format,
                                                                     const QSize& size) const
{
    if (isEmpty())
        return attn::Error{"The model's result holds no attention maps to draw."};
    std::vector<OutputFile> files;
    const auto add = [&](const QString& stem, const QSize& defaultSize, const PaintFunction& paint) {
        return appendPictureFile(&files, paint, format, size, defaultSize, stem);
    };
    if (attn::Status s = add(QStringLiteral("model_view"), modelViewSize(),
                             [this](QPainter& p, const QSize& sz) { paintModelView(p, sz); });
        !s)
        return s.error();
    const int layers = options_.everyLayer ? int(result_->layers.size()) : 1;
    for (int layer = 0; layer < layers; ++layer) {
        const QString stem = options_.everyLayer ? QStringLiteral("head_view_layer%1").arg(layer + 1)
                                                 : QStringLiteral("head_view");
        const int shown = options_.everyLayer ? layer : -1;
        if (attn::Status s =
                add(stem, headViewSize(),
                    [this, shown](QPainter& p, const QSize& sz) { paintHeadView(p, sz, shown); });
            !s)
            return s.error();
    }
    if (attn::Status s = add(QStringLiteral("next_token"), nextTokenSize(),
                             [this](QPainter& p, const QSize& sz) { paintNextToken(p, sz); });
        !s)
        return s.error();
    if (options_.rotary)
        if (attn::Status s = add(QStringLiteral("rope"), rotarySize(),
                                 [this](QPainter& p, const QSize& sz) { paintRotary(p, sz); });
            !s)
            return s.error();
    return files;
}

}  // namespace attnlab
