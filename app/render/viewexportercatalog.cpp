// SPDX-License-Identifier: GPL-3.0-or-later
// ViewExporter's catalogue of views, apart from the drawing: which views it
// draws, what each is called on menus and in file names, its default size,
// and the limits of a picture's size.
#include "modelpicturesexporter.h"
#include "size_limits.h"
#include "viewexporter.h"

namespace attnlab {

QList<ExportView> ViewExporter::views()
{
    return {ExportView::RawScores, ExportView::ScaledScores,   ExportView::Weights,
            ExportView::Queries,   ExportView::Keys,           ExportView::Values,
            ExportView::Context,   ExportView::ScoreHistogram, ExportView::Pipeline};
}

bool ViewExporter::drawsView(ExportView view)
{
    return views().contains(view) || view == ExportView::ScalingComparison;
}

bool ViewExporter::showsFocus(ExportView view)
{
    switch (view) {
    case ExportView::RawScores:
    case ExportView::ScaledScores:
    case ExportView::Weights:
    case ExportView::Queries:
    case ExportView::Context:
    case ExportView::Pipeline:
    case ExportView::ScalingComparison: return true;
    default: return false;
    }
}

bool ViewExporter::hasScoreRanges(ExportView view)
{
    return view == ExportView::RawScores || view == ExportView::ScaledScores || view == ExportView::Pipeline;
}

QString ViewExporter::fileStem(ExportView view)
{
    switch (view) {
    case ExportView::RawScores: return QStringLiteral("scores");
    case ExportView::ScaledScores: return QStringLiteral("scaled_scores");
    case ExportView::Weights: return QStringLiteral("weights");
    case ExportView::Queries: return QStringLiteral("Q");
    case ExportView::Keys: return QStringLiteral("K");
    case ExportView::Values: return QStringLiteral("V");
    case ExportView::Context: return QStringLiteral("context");
    case ExportView::ScoreHistogram: return QStringLiteral("score_histogram");
    case ExportView::Pipeline: return QStringLiteral("pipeline");
    case ExportView::ScalingComparison: return QStringLiteral("scaled_vs_unscaled");
    case ExportView::FocusedQuery: return QStringLiteral("focused_query");
    case ExportView::LabVariance: return QStringLiteral("scaling_lab_variance");
    case ExportView::LabMaxWeight: return QStringLiteral("scaling_lab_max_weight");
    case ExportView::LabEntropy: return QStringLiteral("scaling_lab_entropy");
    case ExportView::LabJacobian: return QStringLiteral("scaling_lab_jacobian");
    case ExportView::HeadGrid: return QStringLiteral("head_grid");
    case ExportView::HeadAverage: return QStringLiteral("weights_average");
    case ExportView::HeadConcat: return QStringLiteral("concat");
    case ExportView::HeadOutput: return QStringLiteral("output");
    case ExportView::ModelGrid: return QStringLiteral("model_view");
    case ExportView::ModelHeadView: return QStringLiteral("head_view");
    case ExportView::ModelNextToken: return QStringLiteral("next_token");
    case ExportView::ModelRotary: return QStringLiteral("rope");
    case ExportView::TrainingLoss: return QStringLiteral("training_loss");
    case ExportView::TrainingAccuracy: return QStringLiteral("training_accuracy");
    case ExportView::TrainingGradient: return QStringLiteral("training_grad_norm");
    case ExportView::TrainingMaxWeight: return QStringLiteral("training_max_weight");
    case ExportView::TrainingEntropy: return QStringLiteral("training_entropy");
    case ExportView::TrainingSaturated: return QStringLiteral("training_saturated_wrong");
    case ExportView::ModelRollout: return QStringLiteral("rollout");
    case ExportView::ModelDifference: return QStringLiteral("difference");
    }
    return {};
}

QString ViewExporter::viewName(ExportView view)
{
    switch (view) {
    case ExportView::RawScores: return tr("Raw scores Q Kᵀ");
    case ExportView::ScaledScores: return tr("Scaled scores");
    case ExportView::Weights: return tr("Attention weights A");
    case ExportView::Queries: return tr("Queries Q");
    case ExportView::Keys: return tr("Keys K");
    case ExportView::Values: return tr("Values V");
    case ExportView::Context: return tr("Context vectors Z");
    case ExportView::ScoreHistogram: return tr("Histogram of the raw and scaled scores");
    case ExportView::Pipeline: return tr("Pipeline figure (scores → weights)");
    case ExportView::ScalingComparison: return tr("Scaled vs unscaled softmax");
    case ExportView::FocusedQuery: return tr("Focused query");
    case ExportView::LabVariance: return tr("d_k lab: score variance");
    case ExportView::LabMaxWeight: return tr("d_k lab: largest weight");
    case ExportView::LabEntropy: return tr("d_k lab: entropy");
    case ExportView::LabJacobian: return tr("d_k lab: softmax Jacobian norm");
    case ExportView::HeadGrid: return tr("Head grid (every head and the average)");
    case ExportView::HeadAverage: return tr("Heads' average weights");
    case ExportView::HeadConcat: return tr("Concatenated heads [Z_1 | … | Z_h]");
    case ExportView::HeadOutput: return tr("Output projection concat · W_o");
    case ExportView::ModelGrid: return tr("Model view (every layer's and head's weights)");
    case ExportView::ModelHeadView: return tr("Head view (the layer's heads as lines)");
    case ExportView::ModelNextToken: return tr("Next-token prediction");
    case ExportView::ModelRotary: return tr("RoPE (the head's scores without and with the rotation)");
    case ExportView::TrainingLoss: return tr("Training lab: loss");
    case ExportView::TrainingAccuracy: return tr("Training lab: accuracy");
    case ExportView::TrainingGradient: return tr("Training lab: gradient norms");
    case ExportView::TrainingMaxWeight: return tr("Training lab: largest weight");
    case ExportView::TrainingEntropy: return tr("Training lab: entropy");
    case ExportView::TrainingSaturated: return tr("Training lab: saturated on a wrong key");
    case ExportView::ModelRollout: return tr("Attention rollout");
    case ExportView::ModelDifference: return tr("A/B difference map (B − A)");
    }
    return {};
}

QSize ViewExporter::defaultSize(ExportView view)
{
    switch (view) {
    case ExportView::Pipeline: return {1800, 720};
    case ExportView::ScoreHistogram: return {900, 600};
    case ExportView::ScalingComparison: return {1600, 800};
    case ExportView::FocusedQuery: return {1200, 700};
    case ExportView::LabVariance:
    case ExportView::LabMaxWeight:
    case ExportView::LabEntropy:
    case ExportView::LabJacobian:
    case ExportView::TrainingLoss:
    case ExportView::TrainingAccuracy:
    case ExportView::TrainingGradient:
    case ExportView::TrainingMaxWeight:
    case ExportView::TrainingEntropy:
    case ExportView::TrainingSaturated: return {820, 560};
    case ExportView::HeadGrid: return {1200, 900};
    case ExportView::HeadConcat:
    case ExportView::HeadOutput: return {1200, 600};
    case ExportView::ModelGrid: return ModelPicturesExporter::modelViewSize();
    case ExportView::ModelHeadView: return ModelPicturesExporter::headViewSize();
    case ExportView::ModelNextToken: return ModelPicturesExporter::nextTokenSize();
    case ExportView::ModelRotary: return ModelPicturesExporter::rotarySize();
    case ExportView::ModelRollout:
    case ExportView::ModelDifference: return ModelPicturesExporter::mapSize();
    default: return {900, 800};
    }
}

attn::Status ViewExporter::checkSize(const QSize& size, qreal scale)
{
    if (size.width() < 100 || size.height() < 100)
        return attn::Error{tr("A picture must be at least 100 × 100 pixels, not %1 × %2.")
                               .arg(size.width())
                               .arg(size.height())
                               .toStdString()};
    if (!(scale >= 0.25 && scale <= 8.0))
        return attn::Error{tr("The scale must be between 0.25 and 8, not %1.").arg(scale).toStdString()};
    if (size.width() * scale > attn::kMaxPictureSide || size.height() * scale > attn::kMaxPictureSide)
        return attn::Error{tr("%1 × %2 at scale %3 is larger than %4 pixels a side.")
                               .arg(size.width())
                               .arg(size.height())
                               .arg(scale)
                               .arg(attn::kMaxPictureSide)
                               .toStdString()};
    return attn::okStatus();
}

}  // namespace attnlab
