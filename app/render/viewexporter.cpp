// SPDX-License-Identifier: GPL-3.0-or-later
#include "viewexporter.h"

#include "displaylabel.h"
#include "heatmaprenderer.h"
#include "matrixio.h"
#include "pictureencoder.h"
#include "picturestyle.h"
#include "pipelinefigure.h"
#include "presentation.h"
#include "viewnumbers.h"
#include "resultcells.h"
#include "score_histogram.h"
#include "scorehistogramrenderer.h"
#include "scalingcomparisonfigure.h"
#include "scoreranges.h"
#include "stagedwrite.h"

#include <QGuiApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <utility>

namespace attnlab {

namespace {

using picturestyle::pixelFont;

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
    const attn::AttentionResult& r = snapshot_.head();
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
    const std::shared_ptr<const attn::AttentionResult> result(&snapshot_.head(),
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
    figure_ = std::make_unique<PipelineFigure>(std::array{raw, scaled, weights}, snapshot_, divisor);
    comparison_ = std::make_unique<ScalingComparisonFigure>(r, tokens, focusRow_, snapshot_.config.sentence);
}

ViewExporter::~ViewExporter() = default;

void ViewExporter::setWeightsScaleMode(WeightsScaleMode mode)
{
    weightsScaleMode_ = mode;
    applyWeightsScale(map(ExportView::Weights), chooseWeightsScale(mode, snapshot_.head().tokens()));
}

QStringList ViewExporter::tokens() const
{
    QStringList tokens;
    for (const std::string& t : snapshot_.tokens.tokens)
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
    case attn::ScaleMode::SqrtDk: return QStringLiteral("√%1").arg(snapshot_.head().Q.cols());
    case attn::ScaleMode::None: return QStringLiteral("1");
    case attn::ScaleMode::Custom: return QString::number(snapshot_.head().divisor, 'g', 6);
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
        figure_->paint(painter, size);
        return;
    }
    if (view == ExportView::ScalingComparison) {
        comparison_->paint(painter, size);
        return;
    }
    const int fontPixels = std::clamp(std::min(size.width(), size.height()) / 42, 11, 64);
    if (view == ExportView::ScoreHistogram) {
        histogram_->paint(painter, size, {pixelFont(fontPixels), Qt::white, picturestyle::kText});
        return;
    }
    if (!map(view))
        return;
    prepareMaps(fontPixels);
    map(view)->paint(painter, size, picturestyle::viewStyle());
}

std::string ViewExporter::numbers(ExportView view) const
{
    const attn::AttentionResult& r = snapshot_.head();
    const int n = r.tokens();
    std::vector<std::string> tokens = snapshot_.tokens.tokens;
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
        const attn::ScalingComparison& c = comparison_->comparison();
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
