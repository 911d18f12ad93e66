// SPDX-License-Identifier: GPL-3.0-or-later
#include "viewexporter.h"

#include "displaylabel.h"
#include "heatmaprenderer.h"
#include "matrixio.h"
#include "pictureencoder.h"
#include "presentation.h"
#include "viewnumbers.h"
#include "resultcells.h"
#include "score_histogram.h"
#include "scorehistogramrenderer.h"
#include "scoreranges.h"
#include "sharetext.h"
#include "stagedwrite.h"

#include <QGuiApplication>
#include <QFontMetrics>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <utility>

namespace attnlab {

namespace {

const QColor kText(0x20, 0x20, 0x20);
const QColor kMuted(0x55, 0x5b, 0x66);

QFont pixelFont(int pixels, qreal factor = 1.0, bool bold = false)
{
    QFont font = QGuiApplication::font();
    font.setPixelSize(std::max(1, int(std::lround(pixels * factor))));
    font.setBold(bold);
    return font;
}

// An arrow from `from` to `to` with a filled head.
void drawArrow(QPainter& painter, QPointF from, QPointF to, qreal width)
{
    const qreal head = width * 4.0;
    painter.save();
    painter.setPen(QPen(kText, width, Qt::SolidLine, Qt::FlatCap));
    painter.drawLine(from, QPointF(to.x() - head, to.y()));
    QPainterPath tip;
    tip.moveTo(to);
    tip.lineTo(to.x() - head, to.y() - head * 0.55);
    tip.lineTo(to.x() - head, to.y() + head * 0.55);
    tip.closeSubpath();
    painter.fillPath(tip, kText);
    painter.restore();
}

// White ground and dark text, whatever the theme.
HeatmapStyle exportStyle()
{
    return {Qt::white, kText, QColor(0xa0, 0xa0, 0xa0), false};
}

// The sentence in a picture's title, cut (displaylabel.h) before the title
// is measured and elided: a sentence may hold a mebibyte of text.
QString titleSentence(const std::string& sentence)
{
    constexpr int kTitleClusters = 200;
    return displayLabel(QString::fromStdString(sentence), kTitleClusters);
}

void applyWeightsScale(HeatmapRenderer* map, const WeightsScale& scale)
{
    map->setColorScale(scale.scale, scale.logLow);
    map->setScaleCaption(scale.caption);
}

}  // namespace

ViewExporter::ViewExporter(AttentionSnapshot snapshot, int focusRow, bool independentRanges)
    : ViewExporter(std::move(snapshot), focusRow, [independentRanges] {
          ExportOptions options;
          options.independentRanges = independentRanges;
          return options;
      }())
{
}

ViewExporter::ViewExporter(AttentionSnapshot snapshot, int focusRow, const ExportOptions& options)
    : snapshot_(std::move(snapshot)),
      focusQuery_(focusRow),
      focusRow_(options.focusBox ? focusRow : -1),
      options_(options)
{
    const bool independentRanges = options_.independentRanges;
    for (auto& m : maps_)
        m = std::make_unique<HeatmapRenderer>();
    const attn::AttentionResult& r = snapshot_.result;
    const QStringList tokens = this->tokens();
    const int dK = int(r.Q.cols());
    const int dV = int(r.V.cols());
    const QString divisor = divisorText();

    HeatmapRenderer* raw = map(ExportView::RawScores);
    HeatmapRenderer* scaled = map(ExportView::ScaledScores);
    HeatmapRenderer* weights = map(ExportView::Weights);
    // The scaled map names the colour range it used: shared with the raw
    // scores (and how little of it the values reach) or its own.
    const ScoreRanges ranges = ScoreRanges::of(r, independentRanges);
    raw->setTitle(tr("Raw scores Q Kᵀ"));
    scaled->setTitle(tr("Scaled Q Kᵀ ÷ %1 (%2)").arg(divisor, ranges.scaledRangeText()));
    weights->setTitle(tr("Weights A (rows sum to 1)"));
    weights->setColorMap(MapColors::Sequential);
    // The maps read the snapshot this exporter owns (and outlives them).
    const std::shared_ptr<const attn::AttentionResult> result(&snapshot_.result,
                                                              [](const attn::AttentionResult*) {});
    raw->setCells(resultCells(result, ResultMap::Scores), tokens, tokens);
    scaled->setCells(resultCells(result, ResultMap::Scaled), tokens, tokens);
    weights->setCells(resultCells(result, ResultMap::Weights), tokens, tokens);
    weights->setRange(0.0, 1.0);
    setWeightsScaleMode(WeightsScaleMode::Automatic);
    raw->setDecimals(ranges.rawDecimals);
    scaled->setDecimals(ranges.scaledDecimals);
    raw->setRange(-ranges.raw, ranges.raw);
    scaled->setRange(-ranges.scaled, ranges.scaled);

    const struct {
        ExportView view;
        QString title;
        const attn::Matrix* m;
        int width;
        double range;
    } vectors[] = {
        {ExportView::Queries, tr("Q = X W_q  (%1 × %2)").arg(r.tokens()).arg(dK), &r.Q, dK,
         symmetricRange(r.Q, r.K)},
        {ExportView::Keys, tr("K = X W_k  (%1 × %2)").arg(r.tokens()).arg(dK), &r.K, dK,
         symmetricRange(r.Q, r.K)},
        {ExportView::Values, tr("V = X W_v  (%1 × %2)").arg(r.tokens()).arg(dV), &r.V, dV,
         symmetricRange(r.V, r.context)},
        {ExportView::Context, tr("Z = A V  (%1 × %2)").arg(r.tokens()).arg(dV), &r.context, dV,
         symmetricRange(r.V, r.context)},
    };
    for (const auto& v : vectors) {
        HeatmapRenderer* m = map(v.view);
        m->setTitle(v.title);
        m->setDecimals(decimalsForRange(v.range));
        m->setCells(matrixCells(*v.m), tokens, dimensionLabels(v.width));
        m->setRange(-v.range, v.range);
    }
    for (ExportView view : {ExportView::RawScores, ExportView::ScaledScores, ExportView::Weights,
                            ExportView::Queries, ExportView::Context})
        map(view)->setFocusRow(focusRow_);

    histogram_ = std::make_unique<ScoreHistogramRenderer>();
    histogram_->setHistogram(attn::scoreHistogram(r));
}

ViewExporter::~ViewExporter() = default;

void ViewExporter::setWeightsScaleMode(WeightsScaleMode mode)
{
    weightsScaleMode_ = mode;
    applyWeightsScale(map(ExportView::Weights), chooseWeightsScale(mode, snapshot_.result.tokens()));
}

QStringList ViewExporter::tokens() const
{
    QStringList tokens;
    for (const std::string& t : snapshot_.model.tokenization.tokens)
        tokens.append(QString::fromStdString(t));
    return positionedLabels(tokens);
}

HeatmapRenderer* ViewExporter::map(ExportView view) const
{
    const int index = int(view);
    return index < int(maps_.size()) ? maps_[std::size_t(index)].get() : nullptr;
}

QString ViewExporter::divisorText() const
{
    switch (snapshot_.options.scale) {
    case attn::ScaleMode::SqrtDk: return QStringLiteral("√%1").arg(snapshot_.result.Q.cols());
    case attn::ScaleMode::None: return QStringLiteral("1");
    case attn::ScaleMode::Custom: return QString::number(snapshot_.result.divisor, 'g', 6);
    }
    return {};
}

void ViewExporter::prepareMaps(int fontPixels) const
{
    const QFont font = pixelFont(fontPixels);
    for (const auto& m : maps_)
        m->setFont(font);
}

void ViewExporter::paint(QPainter& painter, ExportView view, const QSize& size) const
{
    withFontScale([this, view](QPainter& p, const QSize& s) { paintView(p, view, s); }, options_.fontScale)(
        painter, size);
}

void ViewExporter::paintView(QPainter& painter, ExportView view, const QSize& size) const
{
    if (view == ExportView::Pipeline) {
        paintFigure(painter, size);
        return;
    }
    if (view == ExportView::ScalingComparison) {
        paintComparison(painter, size);
        return;
    }
    const int fontPixels = std::clamp(std::min(size.width(), size.height()) / 42, 11, 64);
    if (view == ExportView::ScoreHistogram) {
        histogram_->paint(painter, size, {pixelFont(fontPixels), Qt::white, kText});
        return;
    }
    if (!map(view))
        return;
    prepareMaps(fontPixels);
    map(view)->paint(painter, size, exportStyle());
}

void ViewExporter::paintFigure(QPainter& painter, const QSize& size) const
{
    const int w = size.width();
    const int h = size.height();
    const int px = std::clamp(std::min(h / 40, w / 80), 10, 64);
    prepareMaps(px);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);

    const attn::ModelConfig& c = snapshot_.config;
    const attn::AttentionResult& r = snapshot_.result;
    const int margin = px * 3 / 2;
    const QFont titleFont = pixelFont(px, 1.6, true);
    const QFont subtitleFont = pixelFont(px, 1.05);
    const QFont captionFont = pixelFont(px, 1.3);
    const QFont operatorFont = pixelFont(px, 1.35);
    const QFontMetrics titleFm(titleFont);
    const QFontMetrics subtitleFm(subtitleFont);
    const QFontMetrics captionFm(captionFont);
    const QFontMetrics operatorFm(operatorFont);

    int y = margin;
    painter.setPen(kText);
    painter.setFont(titleFont);
    const QString title = tr("Self-attention over “%1”").arg(titleSentence(c.sentence));
    painter.drawText(QRect(margin, y, w - 2 * margin, titleFm.height()), Qt::AlignCenter,
                     titleFm.elidedText(title, Qt::ElideRight, w - 2 * margin));
    y += titleFm.height() + px / 3;
    painter.setFont(subtitleFont);
    painter.setPen(kMuted);
    const QString subtitle = tr("%1 tokens · d_model %2 · d_k %3 · d_v %4 · seed %5 · %6 initialisation")
                                 .arg(r.tokens())
                                 .arg(snapshot_.model.X.cols())
                                 .arg(r.Q.cols())
                                 .arg(r.V.cols())
                                 .arg(c.seed)
                                 .arg(QLatin1String(attn::initModeName(c.init)));
    painter.drawText(QRect(margin, y, w - 2 * margin, subtitleFm.height()), Qt::AlignCenter,
                     subtitleFm.elidedText(subtitle, Qt::ElideRight, w - 2 * margin));
    y += subtitleFm.height() + px;

    const QString divisor = divisorText();
    const QString caption =
        tr("A = softmax(Q Kᵀ ÷ %1)%2     rows: queries · columns: keys · each row of A sums to 1")
            .arg(divisor)
            .arg(r.causal ? tr(", keys after the query masked") : QString());
    const int captionH = captionFm.height();
    const int bottom = h - margin - captionH - px;

    const QString scaleText = tr("÷ %1").arg(divisor);
    const QString softmaxText = tr("softmax");
    const int opW =
        std::max({operatorFm.horizontalAdvance(scaleText), operatorFm.horizontalAdvance(softmaxText),
                  operatorFm.horizontalAdvance(tr("mask j > i"))})
        + 2 * px;
    const int mapW = std::max(60, (w - 2 * margin - 2 * opW) / 3);
    const int mapH = std::max(60, bottom - y);
    const ExportView row[] = {ExportView::RawScores, ExportView::ScaledScores, ExportView::Weights};
    // The three maps laid out alike, compactly (the colour bars under the
    // cells) when only that prints all their numbers; each keeps its row
    // labels, so that a map read alone is named.
    const auto setCompact = [&](bool on) {
        for (const ExportView v : row)
            map(v)->setCompactLayout(on ? CompactLayout::WithRowLabels : CompactLayout::Off);
    };
    const auto allNumbers = [&] {
        return std::all_of(std::begin(row), std::end(row),
                           [&](ExportView v) { return map(v)->layout(QSize(mapW, mapH)).cellText; });
    };
    setCompact(false);
    if (!allNumbers()) {
        setCompact(true);
        if (!allNumbers())
            setCompact(false);
    }
    for (int i = 0; i < 3; ++i) {
        HeatmapRenderer* m = map(row[i]);
        const int x = margin + i * (mapW + opW);
        painter.save();
        painter.translate(x, y);
        painter.setClipRect(QRect(0, 0, mapW, mapH));
        m->paint(painter, QSize(mapW, mapH), exportStyle());
        painter.restore();
        if (i == 2)
            break;
        // The operation between two maps, level with the cells' centre.
        const QRect cells = m->layout(QSize(mapW, mapH)).cells;
        const qreal arrowY = y + cells.center().y();
        const qreal left = x + mapW + px * 0.4;
        const qreal right = x + mapW + opW - px * 0.4;
        drawArrow(painter, QPointF(left, arrowY), QPointF(right, arrowY), std::max(1.5, px / 7.0));
        painter.setPen(kText);
        painter.setFont(operatorFont);
        const QString above = i == 0 ? scaleText : softmaxText;
        painter.drawText(QRectF(left - px, arrowY - operatorFm.height() * 1.25, right - left + 2 * px,
                                operatorFm.height()),
                         Qt::AlignHCenter | Qt::AlignBottom, above);
        if (i == 0 && r.causal)
            painter.drawText(QRectF(left - px, arrowY + operatorFm.height() * 0.3, right - left + 2 * px,
                                    operatorFm.height()),
                             Qt::AlignHCenter | Qt::AlignTop, tr("mask j > i"));
    }

    painter.setFont(captionFont);
    painter.setPen(kText);
    painter.drawText(QRect(margin, h - margin - captionH, w - 2 * margin, captionH), Qt::AlignCenter,
                     captionFm.elidedText(caption, Qt::ElideRight, w - 2 * margin));
    painter.restore();
    setCompact(false);  // a single map exported next is laid out as usual
}

void ViewExporter::paintComparison(QPainter& painter, const QSize& size) const
{
    if (!comparison_) {
        comparison_ = std::make_shared<const attn::ScalingComparison>(attn::compareScaling(snapshot_.result));
        const QStringList tokens = this->tokens();
        const attn::Matrix* matrices[2] = {&comparison_->weightsUnscaled, &comparison_->weightsScaled};
        const QString titles[2] = {tr("softmax(Q Kᵀ): unscaled"),
                                   tr("softmax(Q Kᵀ ÷ √%1): scaled").arg(comparison_->dK)};
        for (int i = 0; i < 2; ++i) {
            auto& m = compareMaps_[std::size_t(i)];
            m = std::make_unique<HeatmapRenderer>();
            m->setColorMap(MapColors::Sequential);
            m->setRange(0.0, 1.0);
            m->setDecimals(2);
            m->setTitle(titles[i]);
            // Aliasing: the map keeps the comparison alive.
            m->setCells(sharedMatrixCells({comparison_, matrices[i]}), tokens, tokens);
            m->setFocusRow(focusRow_);
        }
    }
    const int w = size.width();
    const int h = size.height();
    const int px = std::clamp(std::min(h / 40, w / 70), 10, 64);
    const QFont font = pixelFont(px);
    for (const auto& m : compareMaps_)
        m->setFont(font);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    const int margin = px;
    const QFont titleFont = pixelFont(px, 1.4, true);
    const QFont captionFont = pixelFont(px, 1.1);
    const QFontMetrics titleFm(titleFont);
    const QFontMetrics captionFm(captionFont);
    painter.setPen(kText);
    painter.setFont(titleFont);
    const QString title = tr("Scaling by √d_k at d_k = %1 over “%2”")
                              .arg(comparison_->dK)
                              .arg(titleSentence(snapshot_.config.sentence));
    painter.drawText(QRect(margin, margin, w - 2 * margin, titleFm.height()), Qt::AlignCenter,
                     titleFm.elidedText(title, Qt::ElideRight, w - 2 * margin));
    const QString caption =
        tr("mean largest weight %1 unscaled, %2 scaled · mean entropy %3 and %4 nats")
            .arg(shareText(comparison_->meanMaxRaw, 3), shareText(comparison_->meanMaxScaled, 3),
                 QString::number(comparison_->meanEntropyRaw, 'f', 3),
                 QString::number(comparison_->meanEntropyScaled, 'f', 3));
    const int top = margin + titleFm.height() + px / 2;
    const int bottom = h - margin - captionFm.height() - px / 2;
    const int gap = px * 2;
    const int mapW = std::max(60, (w - 2 * margin - gap) / 2);
    const int mapH = std::max(60, bottom - top);
    for (int i = 0; i < 2; ++i) {
        painter.save();
        painter.translate(margin + i * (mapW + gap), top);
        painter.setClipRect(QRect(0, 0, mapW, mapH));
        compareMaps_[std::size_t(i)]->paint(painter, QSize(mapW, mapH), exportStyle());
        painter.restore();
    }
    painter.setFont(captionFont);
    painter.setPen(kMuted);
    painter.drawText(QRect(margin, h - margin - captionFm.height(), w - 2 * margin, captionFm.height()),
                     Qt::AlignCenter, captionFm.elidedText(caption, Qt::ElideRight, w - 2 * margin));
    painter.restore();
}

std::string ViewExporter::numbers(ExportView view) const
{
    const attn::AttentionResult& r = snapshot_.result;
    const int n = r.tokens();
    std::vector<std::string> tokens = snapshot_.model.tokenization.tokens;
    if (int(tokens.size()) != n)
        tokens = indexLabels(n);
    std::ostringstream out;
    const auto cells = [&](std::vector<std::string> names, int first, int last,
                           const std::function<std::vector<double>(int, int)>& values) {
        return cellTableCsv(tokens, names, first, last, values);
    };
    switch (view) {
    case ExportView::RawScores: writeMatrixCsv(out, r.scores, tokens, tokens, "query/key"); break;
    case ExportView::ScaledScores: writeMatrixCsv(out, r.scaledMatrix(), tokens, tokens, "query/key"); break;
    case ExportView::Weights: writeMatrixCsv(out, r.weightsMatrix(), tokens, tokens, "query/key"); break;
    case ExportView::Queries: writeMatrixCsv(out, r.Q, tokens, indexLabels(int(r.Q.cols())), "token"); break;
    case ExportView::Keys: writeMatrixCsv(out, r.K, tokens, indexLabels(int(r.K.cols())), "token"); break;
    case ExportView::Values: writeMatrixCsv(out, r.V, tokens, indexLabels(int(r.V.cols())), "token"); break;
    case ExportView::Context:
        writeMatrixCsv(out, r.context, tokens, indexLabels(int(r.context.cols())), "token");
        break;
    case ExportView::ScoreHistogram: return scoreHistogramCsv(attn::scoreHistogram(r));
    case ExportView::Pipeline:
        return cells({"score", "scaled_score", "weight"}, 0, n - 1, [&r](int i, int j) {
            return std::vector<double>{r.scores(i, j), r.scaled(i, j), r.weights(i, j)};
        });
    case ExportView::ScalingComparison: {
        const attn::ScalingComparison c = comparison_ ? *comparison_ : attn::compareScaling(r);
        return cells({"weight_unscaled", "weight_scaled"}, 0, n - 1, [&c](int i, int j) {
            return std::vector<double>{c.weightsUnscaled(i, j), c.weightsScaled(i, j)};
        });
    }
    case ExportView::FocusedQuery: {
        if (n == 0)
            return {};
        const int q = std::clamp(focusQuery_, 0, n - 1);
        return cells({"score", "scaled_score", "weight"}, q, q, [&r](int i, int j) {
            return std::vector<double>{r.scores(i, j), r.scaled(i, j), r.weights(i, j)};
        });
    }
    default: return {};
    }
    return out.str();
}

QImage ViewExporter::image(ExportView view, const QSize& size, qreal scale) const
{
    return renderPicture([this, view](QPainter& p, const QSize& s) { paint(p, view, s); }, size, scale);
}

QByteArray ViewExporter::svg(ExportView view, const QSize& size) const
{
    return svgPicture([this, view](QPainter& p, const QSize& s) { paint(p, view, s); }, size);
}

QByteArray ViewExporter::pdf(ExportView view, const QSize& size) const
{
    return pdfPicture([this, view](QPainter& p, const QSize& s) { paint(p, view, s); }, size, viewName(view));
}

attn::Expected<QByteArray> ViewExporter::encode(ExportView view, ImageFormat format, const QSize& size,
                                                qreal scale) const
{
    return encodePicture([this, view](QPainter& p, const QSize& s) { paint(p, view, s); }, format, size,
                         scale, viewName(view));
}

attn::Expected<std::vector<OutputFile>> ViewExporter::files(ImageFormat format, const QSize& size,
                                                            qreal scale) const
{
    std::vector<OutputFile> files;
    for (ExportView view : views()) {
        const QSize s = size.isEmpty() ? defaultSize(view) : size;
        attn::Expected<QByteArray> bytes = encode(view, format, s, scale);
        if (!bytes)
            return bytes.error();
        files.push_back(bytesFile(
            (fileStem(view) + QLatin1Char('.') + QLatin1String(imageFormatName(format))).toStdString(),
            std::move(bytes).value()));
    }
    return files;
}

void ViewExporter::registerImageExporter(const QSize& size)
{
    setImageExporter([size](const AttentionSnapshot& snapshot, ImageFormat format) {
        // A picture that cannot be drawn fails the whole export (all files
        // or none) with its reason, instead of a run that reports success.
        const auto failed = [format](std::string reason) {
            return std::vector<OutputFile>{
                OutputFile{std::string("pictures.") + imageFormatName(format), {}, std::move(reason)}};
        };
        if (!qobject_cast<QGuiApplication*>(QCoreApplication::instance()))
            return failed(std::string(imageFormatName(format)) + " pictures need a QGuiApplication");
        ViewExporter exporter(snapshot);
        attn::Expected<std::vector<OutputFile>> files = exporter.files(format, size);
        if (!files)
            return failed(files.error().message);
        return std::move(files.value());
    });
}

}  // namespace attnlab
