// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Pictures of a decoder model result for slides, print and the manual: the model
// view (the layers x heads grid, ModelGridRenderer), the head view of one
// layer (HeadLinesRenderer) and the next-token panel (NextTokenRenderer),
// each with a title naming the model and the sentence, and "random
// weights" in it when the checkpoint is a random one (the tiny test
// checkpoints), so that no picture passes random heads off as a trained
// model's. White ground, dark text, in PNG, SVG or PDF through
// pictureencoder; files() draws all three or fails, and the caller writes
// them in one writeFilesAtomically, so a failed export leaves nothing.

#include "attentionexport.h"
#include "expected.h"
#include "decoder_model.h"
#include "mapscale.h"
#include "matrix.h"
#include "pictureencoder.h"
#include "rotary_head.h"
#include "stagedwrite.h"

#include <QCoreApplication>
#include <QSize>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <string>
#include <vector>

class QPainter;

namespace attnlab {

struct ModelPictureOptions {
    QString modelName;  // "gpt2", "tiny-gpt2": the titles'
    QString sentence;   // the titles' (cut to 200 characters)
    // A third line under the title and the sentence, in every picture: the
    // caller's label ("random weights: its heads mean nothing", as --caption
    // gives it); none when empty.
    QString caption;
    int headViewLayer = -1;      // 0-based; -1: the last layer
    bool everyLayer = false;     // head_view_layer<N> for each layer N = 1.., not one head_view
    std::vector<bool> headMask;  // the head view's heads (empty: all)
    int selectedLayer = -1;      // outlined in the model view (-1: none)
    int selectedHead = -1;
    attn::Matrix ranking;   // (layers, heads) numbers on the tiles, or empty
    int keyValueHeads = 0;  // grouped-query attention's groups in the model view (ModelGridRenderer)
    QString rankingCaption;
    // The next-token panel's tokens and temperature when they are not the
    // result's own (the window applies a temperature without a new pass);
    // empty: result->top at result->temperature.
    std::vector<attn::TopToken> nextTokens;
    double nextTemperature = 1.0;
    // The RoPE picture (rope.<ext>) of one head of a rotary model: the head
    // before and after the rotation (attn::DecoderModel::rotaryHead), its
    // title and its frequencies' line (setRotary fills all three); none
    // when empty.
    std::optional<attn::RotaryHead> rotary;
    QString rotaryTitle;
    QString rotaryFrequencies;
};

// One n x n map of the head lab's Lens page (the attention rollout, the
// A/B difference): what it is, what it read, and its numbers and labels.
struct ModelMapPicture {
    QString title;        // after the model's name: "attention rollout"
    QString description;  // one line under the sentence: which pass or passes
    QString mapTitle;     // over the cells: "Attention rollout (rows: queries)"
    attn::Matrix values;
    QStringList labels;  // the tokens, for rows and columns
    MapColors colors = MapColors::Sequential;
    double low = 0.0;  // the colour range (diverging: [-m, m])
    double high = 1.0;
    int decimals = 2;
};

class ModelPicturesExporter {
    Q_DECLARE_TR_FUNCTIONS(ModelPicturesExporter)
public:
    // tokens: the pieces' display text ("␣cinema"); topLabels[i]: the
    // display text of result->top[i].
    ModelPicturesExporter(std::shared_ptr<const attn::DecoderResult> result, const QStringList& tokens,
                          const QStringList& topLabels, ModelPictureOptions options = {});
    ~ModelPicturesExporter();
    ModelPicturesExporter(const ModelPicturesExporter&) = delete;
    ModelPicturesExporter& operator=(const ModelPicturesExporter&) = delete;

    // No result, or one without every head's maps (DecoderRunOptions::keepMaps).
    bool isEmpty() const;

    void paintModelView(QPainter& painter, const QSize& size) const;
    // Layer `layer` (0-based; -1: the options' headViewLayer).
    void paintHeadView(QPainter& painter, const QSize& size, int layer = -1) const;
    void paintNextToken(QPainter& painter, const QSize& size) const;
    // The options' rotary head (RotaryRenderer): white ground and nothing
    // else without one.
    void paintRotary(QPainter& painter, const QSize& size) const;
    bool hasRotary() const { return options_.rotary.has_value(); }
    // `head` and its words for `config` into the options.
    static void setRotary(ModelPictureOptions* options, const attn::DecoderConfig& config,
                          attn::RotaryHead head);
    // `map` under the title lines (the model, the sentence, the caption)
    // and its description; white ground and nothing else for an empty map.
    void paintMap(QPainter& painter, const QSize& size, const ModelMapPicture& map) const;
    // The Lens page's two maps as pictures: the rollout (rows: queries) of
    // the pass `passText` describes, on the weights' scale; B − A with the
    // comparison's caption, on a diverging scale up to its largest change.
    static ModelMapPicture rolloutPicture(attn::Matrix rollout, QStringList labels, const QString& passText);
    static ModelMapPicture differencePicture(attn::Matrix difference, QStringList labels,
                                             const QString& caption);

    // The three pictures in `format`: model_view, head_view (with
    // everyLayer head_view_layer1, head_view_layer2, ...), next_token
    // (".png", ".svg", ".pdf"), and rope with a rotary head. An empty size takes each picture's default.
    // An error, and no files, when the result has no maps or a picture
    // cannot be drawn.
    attn::Expected<std::vector<OutputFile>> files(ImageFormat format, const QSize& size = QSize()) const;

    // The titles' model name: the folder's name, and the what-if scale the
    // pass used unless it is GPT-2's own (scaleMode as model_attention.json
    // names it: "none", "custom" with every divisor equal, "per-head"), and
    // the what-if mask, `maskWhatIf` ("sliding:8"; empty: the model's own).
    static QString modelName(const QString& folder, const std::string& scaleMode,
                             const attn::HeadDivisors& divisors, const std::string& maskWhatIf = {});

    static QSize modelViewSize() { return {1200, 900}; }
    static QSize headViewSize() { return {1200, 900}; }
    static QSize nextTokenSize() { return {1000, 620}; }
    static QSize rotarySize() { return {1400, 760}; }
    static QSize mapSize() { return {1000, 940}; }

    // The titles: "tiny-gpt2 (random weights): attention weights of 2 layers × 4 heads",
    // then the sentence on a second line.
    QString modelViewTitle() const;
    QString headViewTitle(int layer = -1) const;
    QString nextTokenTitle() const;
    QString rotaryPictureTitle() const;
    QString sentenceLine() const;
    QString captionLine() const;  // the options' caption, cut to 200 characters

private:
    int headViewLayer(int layer = -1) const;
    QString modelPrefix() const;
    // The title's two lines (three with a caption) on top; returns the rest of the picture.
    QRect paintTitle(QPainter& painter, const QSize& size, const QString& title) const;

    std::shared_ptr<const attn::DecoderResult> result_;
    QStringList tokens_;
    QStringList topLabels_;
    ModelPictureOptions options_;
};

}  // namespace attnlab
