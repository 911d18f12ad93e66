// SPDX-License-Identifier: GPL-3.0-or-later
#include "headsexporter.h"

#include "heatmaplabelpainter.h"
#include "picturestyle.h"
#include "presentation.h"
#include "viewnumbers.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

QString kindStem(HeadMapKind kind)
{
    switch (kind) {
    case HeadMapKind::Scores: return QStringLiteral("scores");
    case HeadMapKind::Scaled: return QStringLiteral("scaled_scores");
    case HeadMapKind::Weights: break;
    }
    return QStringLiteral("weights");
}

}  // namespace

QStringList concatColumnLabels(int heads, int dV)
{
    QStringList labels;
    for (int h = 0; h < heads; ++h)
        for (int j = 0; j < dV; ++j)
            labels << QStringLiteral("h%1:%2").arg(h + 1).arg(j + 1);
    return labels;
}

HeadsExporter::HeadsExporter(std::shared_ptr<const attn::MultiHeadResult> result,
                             const QStringList& tokenLabels, HeadMapKind kind, int selectedHead,
                             WeightsScaleMode weightsMode)
    : result_(std::move(result)),
      tokens_(tokenLabels),
      kind_(kind),
      selected_(selectedHead),
      weightsMode_(weightsMode),
      grid_(std::make_unique<HeadGridRenderer>())
{
    grid_->setResult(result_, tokens_);
    grid_->setKind(kind_);
    grid_->setWeightsScaleMode(weightsMode_);
    grid_->setSelectedHead(selected_);
}

HeadsExporter::~HeadsExporter() = default;

QString HeadsExporter::headStem(int head, HeadMapKind kind)
{
    return kindStem(kind) + QStringLiteral("_head%1").arg(head + 1);
}

void HeadsExporter::paintGrid(QPainter& painter, const QSize& size) const
{
    painter.save();
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    if (isEmpty()) {
        painter.restore();
        return;
    }
    const QFont titleFont = picturestyle::font(size, 1.3, true);
    const QFontMetrics titleFm(titleFont);
    const int pad = titleFm.height() / 2;
    const QRect title(pad, pad, size.width() - 2 * pad, titleFm.height());
    painter.setFont(titleFont);
    painter.setPen(picturestyle::kText);
    const QString text =
        tr("%n heads: %1 of each head, and the heads' average weights", nullptr, result_->headCount())
            .arg(HeadGridRenderer::kindName(kind_));
    painter.drawText(title, Qt::AlignHCenter | Qt::AlignVCenter,
                     HeatmapLabelPainter::elided(titleFm, text, title.width()));
    const int top = title.bottom() + pad;
    const QSize gridSize(size.width() - 2 * pad, size.height() - top - pad);
    grid_->setFont(picturestyle::font(size));
    painter.translate(pad, top);
    grid_->paint(painter, gridSize, picturestyle::style(), picturestyle::kHighlight);
    painter.restore();
}

void HeadsExporter::paintMap(QPainter& painter, const QSize& size, HeatmapRenderer& map) const
{
    map.setFont(picturestyle::font(size));
    map.paint(painter, size, picturestyle::style());
}

void HeadsExporter::paintAverage(QPainter& painter, const QSize& size) const
{
    if (isEmpty())
        return;
    // The grid's own map of the average, drawn whole with a title.
    HeatmapRenderer& map = grid_->tileMap(grid_->averageTile());
    const QString title = map.title();
    map.setTitle(tr("Average of the %n heads' weights, (A_1 + … + A_h) / h", nullptr, result_->headCount()));
    paintMap(painter, size, map);
    map.setTitle(title);
}

void HeadsExporter::paintHead(QPainter& painter, const QSize& size, int head, HeadMapKind kind) const
{
    if (isEmpty() || head < 0 || head >= result_->headCount())
        return;
    // A grid of that kind gives the head its map with the colours the grid uses.
    HeadGridRenderer grid;
    grid.setResult(result_, tokens_);
    grid.setKind(kind);
    grid.setWeightsScaleMode(weightsMode_);
    HeatmapRenderer& map = grid.tileMap(head);
    const attn::AttentionResult& r = result_->heads[std::size_t(head)];
    QString title;
    switch (kind) {
    case HeadMapKind::Scores: title = tr("Head %1: raw scores Q_%1 K_%1ᵀ").arg(head + 1); break;
    case HeadMapKind::Scaled:
        // √d_k by name, as the pipeline's title writes it; another divisor as its number.
        title = tr("Head %1: scaled scores Q_%1 K_%1ᵀ ÷ %2%3")
                    .arg(head + 1)
                    .arg(r.divisor == std::sqrt(double(r.Q.cols())) ? QStringLiteral("√%1").arg(r.Q.cols())
                                                                    : QString::number(r.divisor, 'g', 6),
                         r.causal ? tr(", causal mask")
                         : r.mask.kind != attn::AttentionMask::Kind::None
                             ? tr(", mask %1").arg(QString::fromStdString(r.mask.name()))
                             : QString());
        break;
    case HeadMapKind::Weights:
        title = tr("Head %1: attention weights A_%1 (rows sum to 1)").arg(head + 1);
        break;
    }
    map.setTitle(title);
    paintMap(painter, size, map);
}

void HeadsExporter::prepareMatrix(HeatmapRenderer* map, const attn::Matrix* m, const QString& title,
                                  const QStringList& columns) const
{
    const double range = symmetricRange(*m);
    map->setTitle(title);
    map->setColorMap(MapColors::Diverging);
    map->setCells(sharedMatrixCells(std::shared_ptr<const attn::Matrix>(result_, m)), tokens_, columns);
    map->setRange(-range, range);
    map->setDecimals(decimalsForRange(range));
}

void HeadsExporter::paintConcat(QPainter& painter, const QSize& size) const
{
    if (isEmpty())
        return;
    const attn::MultiHeadResult& r = *result_;
    const int h = r.headCount();
    HeatmapRenderer map;
    prepareMatrix(&map, &r.concat,
                  tr("concat = [Z_1 | … | Z_%1]  (%2 × %3)").arg(h).arg(r.concat.rows()).arg(r.concat.cols()),
                  concatColumnLabels(h, int(r.concat.cols()) / h));
    paintMap(painter, size, map);
}

void HeadsExporter::paintOutput(QPainter& painter, const QSize& size) const
{
    if (isEmpty() || !result_->hasOutput())
        return;
    const attn::MultiHeadResult& r = *result_;
    HeatmapRenderer map;
    prepareMatrix(&map, &r.output,
                  tr("output = concat · W_o  (%1 × %2)").arg(r.output.rows()).arg(r.output.cols()),
                  dimensionLabels(int(r.output.cols())));
    paintMap(painter, size, map);
}

QString HeadsExporter::gridNumbersProblem() const
{
    if (isEmpty())
        return tr("There is one head: the head grid has no numbers of its own.");
    const long long n = result_->heads.front().tokens();
    const long long numbers = n * n * (3LL * result_->headCount() + 1);
    if (numbers <= kMaxGridNumbers)
        return {};
    return tr("%1 heads at %2 tokens make %3 numbers, too many for one row per cell: \"Export every head…\" "
              "on the grid's menu writes every head's matrices (CSV and .npy).")
        .arg(result_->headCount())
        .arg(n)
        .arg(numbers);
}

std::string HeadsExporter::gridNumbers() const
{
    if (!gridNumbersProblem().isEmpty())
        return {};
    const attn::MultiHeadResult& r = *result_;
    const int n = r.heads.front().tokens();
    std::vector<std::string> tokens;
    for (int i = 0; i < n; ++i)
        tokens.push_back(tokens_.value(i, QString::number(i)).toStdString());
    std::vector<std::string> names;
    for (int h = 1; h <= r.headCount(); ++h)
        for (const char* name : {"score", "scaled_score", "weight"})
            names.push_back(std::string(name) + "_head" + std::to_string(h));
    names.push_back("weight_average");
    return cellTableCsv(tokens, names, 0, n - 1, [&r](int i, int j) {
        std::vector<double> values;
        for (const attn::AttentionResult& head : r.heads) {
            values.push_back(head.scores(i, j));
            values.push_back(head.scaled(i, j));
            values.push_back(head.weights(i, j));
        }
        values.push_back(r.weightsAverage(i, j));
        return values;
    });
}

attn::Expected<std::vector<OutputFile>> HeadsExporter::files(ImageFormat format, const QSize& size) const
{
    std::vector<OutputFile> files;
    if (isEmpty())
        return files;
    const auto add = [&](const QString& stem, const QSize& defaultSize, const PaintFunction& paint) {
        return appendPictureFile(&files, paint, format, size, defaultSize, stem);
    };
    if (attn::Status s = add(QStringLiteral("head_grid"), gridSize(),
                             [this](QPainter& p, const QSize& sz) { paintGrid(p, sz); });
        !s)
        return s.error();
    if (attn::Status s = add(QStringLiteral("weights_average"), mapSize(),
                             [this](QPainter& p, const QSize& sz) { paintAverage(p, sz); });
        !s)
        return s.error();
    for (int i = 0; i < result_->headCount(); ++i)
        for (const HeadMapKind kind : {HeadMapKind::Scores, HeadMapKind::Scaled, HeadMapKind::Weights})
            if (attn::Status s =
                    add(headStem(i, kind), mapSize(),
                        [this, i, kind](QPainter& p, const QSize& sz) { paintHead(p, sz, i, kind); });
                !s)
                return s.error();
    if (attn::Status s = add(QStringLiteral("concat"), matrixSize(),
                             [this](QPainter& p, const QSize& sz) { paintConcat(p, sz); });
        !s)
        return s.error();
    if (result_->hasOutput())
        if (attn::Status s = add(QStringLiteral("output"), matrixSize(),
                                 [this](QPainter& p, const QSize& sz) { paintOutput(p, sz); });
            !s)
            return s.error();
    return files;
}

}  // namespace attnlab
