// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Pictures of the views for slides and print: any one heatmap (raw scores,
// scaled scores, weights, Q, K, V, context), the histogram of the raw and
// scaled scores, or the pipeline figure (the three
// score maps in a row with the operations between them, a title naming the
// sentence and the settings, and the formula as a caption).
//
// PNG at a chosen size and scale (the scale multiplies the pixels, not the
// layout: 2 gives a sharp picture of the same composition), SVG through
// QSvgGenerator and PDF through QPdfWriter as vectors, text kept as text.
// The pictures are drawn by HeatmapRenderer, ScoreHistogramRenderer,
// PipelineFigure and ScalingComparisonFigure from the snapshot's matrices, with the colour ranges the window
// uses, on white with black text whatever the desktop theme. No widget is involved: a QGuiApplication (the
// offscreen platform for headless runs) is enough.

#include "attentionexport.h"
#include "attentionsnapshot.h"
#include "expected.h"
#include "scaling_lab.h"
#include "weightsscale.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QImage>
#include <QList>
#include <QSize>
#include <QString>

#include <array>
#include <memory>
#include <string>
#include <vector>

class QPainter;

namespace attnlab {

class HeatmapRenderer;
class PipelineFigure;
class ScalingComparisonFigure;
class ScoreHistogramRenderer;

// The pictures this exporter draws from the snapshot come first, up to
// ScalingComparison; the others are drawn by live views registered with a
// ViewExportController (the d_k lab's plots, the focused query panel).
enum class ExportView {
    RawScores,
    ScaledScores,
    Weights,
    Queries,
    Keys,
    Values,
    Context,
    ScoreHistogram,
    Pipeline,
    ScalingComparison,  // softmax of Q Kᵀ beside softmax of Q Kᵀ / √d_k
    FocusedQuery,
    LabVariance,
    LabMaxWeight,
    LabEntropy,
    LabJacobian,
    // The multi-head views, registered by the heads panel.
    HeadGrid,
    HeadAverage,
    HeadConcat,
    HeadOutput,
    // The GPT-2 views (ModelPicturesExporter), registered while a model's
    // pass is shown.
    ModelGrid,
    ModelHeadView,
    ModelNextToken,
    ModelRotary,  // RoPE: the selected head before and after the rotation
    // The training lab's plots, registered by the window.
    TrainingLoss,
    TrainingAccuracy,
    TrainingGradient,
    TrainingMaxWeight,
    TrainingEntropy,
    TrainingSaturated,
    // The head lab's Lens page: the rollout and the A/B difference map
    // (after the training lab's: those are numbered from TrainingLoss).
    ModelRollout,
    ModelDifference,
};

// Choices a picture is drawn with.
struct ExportOptions {
    bool focusBox = true;            // the focused query outlined on the maps
    bool independentRanges = false;  // raw and scaled scores each their own colour range
    double fontScale = 1.0;          // text (and lines) this many times larger, for slides
};

class ViewExporter {
    Q_DECLARE_TR_FUNCTIONS(ViewExporter)
public:
    // focusRow: the query row outlined (-1 none); independentRanges: raw and
    // scaled scores each get their own colour range (else one shared range).
    explicit ViewExporter(AttentionSnapshot snapshot, int focusRow = -1, bool independentRanges = false);
    ViewExporter(AttentionSnapshot snapshot, int focusRow, const ExportOptions& options);
    ~ViewExporter();
    ViewExporter(const ViewExporter&) = delete;
    ViewExporter& operator=(const ViewExporter&) = delete;

    static QList<ExportView> views();  // the pipeline figure last
    // views() and the scaled-vs-unscaled comparison: what paint() draws.
    static bool drawsView(ExportView view);
    static QString fileStem(ExportView view);   // "weights", "pipeline", ...
    static QString viewName(ExportView view);   // "Attention weights A", for menus
    static QSize defaultSize(ExportView view);  // 900 x 800, histogram 900 x 600, figure 1800 x 720
    // Whether the focus box and the colour-range choice change the picture.
    static bool showsFocus(ExportView view);
    static bool hasScoreRanges(ExportView view);
    // Limits of a picture's size and scale (the scaled pixels at most attn::kMaxPictureSide a side).
    static attn::Status checkSize(const QSize& size, qreal scale);

    const AttentionSnapshot& snapshot() const { return snapshot_; }
    const ExportOptions& options() const { return options_; }
    int focusQuery() const { return focusQuery_; }
    WeightsScaleMode weightsScaleMode() const { return weightsScaleMode_; }

    // The weights map's colour scale (chooseWeightsScale over the snapshot's
    // tokens; Automatic unless set), as in the window.
    void setWeightsScaleMode(WeightsScaleMode mode);

    // The numbers of a view as CSV: a map as the labelled matrix the import
    // reads back; the pipeline, the comparison and the focused query one row
    // per (query, key) cell. Empty for a view not drawn from the snapshot.
    std::string numbers(ExportView view) const;

    // Draws the view filling (0, 0, size) in the painter's coordinates, with
    // the options' font scale.
    void paint(QPainter& painter, ExportView view, const QSize& size) const;
    QImage image(ExportView view, const QSize& size, qreal scale = 1.0) const;
    QByteArray svg(ExportView view, const QSize& size) const;
    QByteArray pdf(ExportView view, const QSize& size) const;
    attn::Expected<QByteArray> encode(ExportView view, ImageFormat format, const QSize& size,
                                      qreal scale = 1.0) const;

    // One file per view named STEM.png|svg|pdf; an empty size takes each
    // view's default size. The pictures are drawn here, not when written.
    attn::Expected<std::vector<OutputFile>> files(ImageFormat format, const QSize& size = QSize(),
                                                  qreal scale = 1.0) const;

    // Registers the exporter of attentionexport.h (--format png,svg,pdf on
    // the command line) drawing every view at `size` (empty: the defaults).
    // A QGuiApplication must exist when the export runs.
    static void registerImageExporter(const QSize& size = QSize());

private:
    HeatmapRenderer* map(ExportView view) const;
    void prepareMaps(int fontPixels) const;
    void paintView(QPainter& painter, ExportView view, const QSize& size) const;
    QString divisorText() const;
    QStringList tokens() const;

    AttentionSnapshot snapshot_;
    int focusQuery_;  // the window's focused query
    int focusRow_;    // the row outlined: focusQuery_, or -1 without the focus box
    ExportOptions options_;
    WeightsScaleMode weightsScaleMode_ = WeightsScaleMode::Automatic;
    std::array<std::unique_ptr<HeatmapRenderer>, 7> maps_;
    std::unique_ptr<ScoreHistogramRenderer> histogram_;
    std::unique_ptr<PipelineFigure> figure_;               // the raw, scaled and weights maps above
    std::unique_ptr<ScalingComparisonFigure> comparison_;  // its maps made when first drawn
};

}  // namespace attnlab
