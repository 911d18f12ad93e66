// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The state of one lesson: the parameters (sentence, tokenizer, seed,
// initialisation, dimensions, scaling, mask), the matrices X, W_q, W_k, W_v
// (drawn from the seed, possibly edited by hand) and the attention computed
// from them. Views read it and draw; they never compute.
//
// Every change goes through one of the setters below. Changing the sentence,
// tokenizer, seed, initialisation or a dimension redraws the matrices from the
// seed and lays the user's cells (typed or imported) back over the draw
// where they still fit (see UserCells; what no longer fits is dropped and
// matrixNotice() says so); regenerate() and setParameters() draw afresh,
// dropping them. Changing the scaling or the mask recomputes the attention
// over the current matrices. After each
// successful change the session emits resultChanged() once. A change that
// cannot be computed (an empty sentence, a bad divisor) keeps the last good
// model and result on display and sets problem() instead.
//
// Large work (about n^2 (d_k + d_v) above kAsyncWork) runs in the worker:
// until resultChanged() the previous result stays on display and
// isComputing() is true; a newer request supersedes it (resultDropped()).
// Lesson sizes are computed at once. docs/ARCHITECTURE.md, "The path of a
// request", follows one through.

#include "attention.h"
#include "cellvalue.h"
#include "headparams.h"
#include "labfile.h"
#include "labinputs.h"
#include "labjob.h"
#include "labrequests.h"
#include "labresult.h"
#include "model.h"
#include "multihead.h"
#include "scaling_lab.h"
#include "statistics.h"
#include "usercells.h"

#include <QList>
#include <QObject>
#include <QSize>
#include <QString>
#include <QStringList>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace attnlab {

struct ResultSampleCache;
class ResultPool;
class ScalingLabRun;

class Session : public QObject {
    Q_OBJECT
public:
    explicit Session(QObject* parent = nullptr);
    ~Session() override;

    // Work above which redraws and recomputations leave the GUI thread.
    static constexpr double kAsyncWork = 1 << 24;
    // A computation runs in the worker; published() is the previous result.
    bool isComputing() const { return requests_->computing(); }
    // A redraw is in flight: inputs().config is the new one, the matrices still the
    // last model's until its result comes.
    bool isRedrawing() const { return requests_->redrawing(); }
    // Finishes a computation in progress at once (on this thread) and shows
    // its result; nothing happens when none runs. Edits and setState() call
    // it first, so that they apply to the requested parameters.
    void waitForResult();

    // What the lab computes from, as last requested (labinputs.h): the
    // parameters (config, options, heads; they may have no result: see
    // problem()), the last good model's matrices, the user's cells and the
    // borrowed head. inputs().config.dK is the request; published()->dK()
    // is the d_k of the result every view shows.
    const LabInputs& inputs() const { return in_; }
    // The newest result, whole (labresult.h): the tokens, the shown head's
    // result and statistics, every head, the comparison and the samples.
    // Published once per change, before resultChanged(), and never changed
    // after; views keep it alive and read the n x n maps from it instead of
    // copying them. Each new result is a new object.
    std::shared_ptr<const LabResult> published() const { return current_; }
    // Unscaled vs scaled softmax of the result (attn::compareScaling, in
    // published()->comparison()): two more n x n maps, so it is computed
    // only while a view wants it, else on first use after each result.
    // While wanted, each result comes with its comparison (computed with it,
    // in the worker for large work).
    void setComparisonWanted(bool wanted) { comparisonWanted_ = wanted; }
    bool comparisonWanted() const { return comparisonWanted_; }

    // At thousands of tokens the pipeline's maps sample a result into
    // published()->samples(), one grid per picture size; the worker then
    // takes the next result's scores and weights at those grids' cells while
    // it has each row in cache, instead of the GUI thread reading them across
    // the whole map afterwards. setSampleSizes gives the picture sizes
    // (width x height cells) for a caller without maps (empty: none).
    void setSampleSizes(const QList<QSize>& sizes) { fixedSampleSizes_ = sizes; }

    // Why the requested parameters give no result; empty when they do.
    QString problem() const { return problem_; }
    // The matrices as the seed's draw with the user's cells laid over it:
    // when they are exactly the draw of inputs().config and inputs().heads but for
    // inputs().editedCells cells, the cells (X's, then each head's W_q's,
    // W_k's and W_v's, in a fixed order); nullopt otherwise (a problem, a
    // borrowed head, a redraw in flight, a lab whose other parameters, such
    // as an imported module's biases, are not the draw's). Read in place:
    // the matrices are not copied. An undo step keeps these instead of the
    // matrices (LabSnapshot) and draws the seed again to go back.
    std::optional<std::vector<LabCell>> cellsOverDraw() const;

    void setParameters(const attn::ModelConfig& config, const attn::AttentionOptions& options,
                       const attn::HeadsConfig& heads = attn::HeadsConfig());
    void setSentence(const QString& sentence);
    void setTokenizer(attn::TokenizerMode mode) { changeConfig(&attn::ModelConfig::tokenizer, mode); }
    void setSeed(quint64 seed);
    void setInit(attn::InitMode mode) { changeConfig(&attn::ModelConfig::init, mode); }
    void setDModel(int dModel) { changeConfig(&attn::ModelConfig::dModel, dModel); }
    void setDK(int dK) { changeConfig(&attn::ModelConfig::dK, dK); }
    void setDV(int dV) { changeConfig(&attn::ModelConfig::dV, dV); }
    void setScaleMode(attn::ScaleMode mode) { changeOption(&attn::AttentionOptions::scale, mode); }
    void setCustomDivisor(double divisor) { changeOption(&attn::AttentionOptions::customDivisor, divisor); }
    void setCausal(bool causal)
    {
        setMask(causal ? attn::AttentionMask::causal() : attn::AttentionMask::none());
    }
    // Which keys each query sees (causal, a sliding window, sinks + window).
    void setMask(const attn::AttentionMask& mask)
    {
        attn::AttentionOptions options = in_.options;
        options.setMask(mask);
        changeOption(&attn::AttentionOptions::causal, options.causal, &attn::AttentionOptions::mask,
                     options.mask);
    }

    // One entry of X or a weight matrix. Refuses (with a message, the old value
    // kept) an index out of range, a value that is not finite, or one larger in
    // magnitude than attn::kMaxInputMagnitude.
    attn::Status setMatrixCell(MatrixId which, int row, int col, double value);
    // The same from text typed by the user ("0.5", "-1e-3"); refuses text that
    // is not a number. Refusals are also announced by editRefused().
    attn::Status setMatrixCellText(MatrixId which, int row, int col, const QString& text);
    // Redraws every matrix from the seed, dropping hand edits.
    void regenerate();

    // Parameters and matrices at once (a saved lab, an undo step). The
    // matrices must have the shapes the config gives; cells that differ from
    // the seed's draw count as hand edits. Refused, with nothing changed, if
    // the config or the matrices do not compute.
    attn::Status setState(const LabState& state);
    // Replaces one whole matrix (an import). X must have a row per token, a
    // weight matrix d_model rows; a new width sets d_model (X), d_k (W_q,
    // W_k) or d_v (W_v), and the other matrices follow as for that change.
    attn::Status setMatrix(MatrixId which, const attn::Matrix& values);

    // Multi-head attention. With inputs().heads.multiHead() false (one
    // independent head, no W_o) everything above is today's single head.
    // Otherwise every head is computed; one of them, inputs().selectedHead, is the
    // session's head: its W_q, W_k, W_v and published()->shown() are that
    // head's, and editing W_q, W_k or W_v edits that head. Selecting another
    // head computes nothing. In the split layout d_k = d_v = d_model / h.
    void selectHead(int head);
    // What the views of the selected head (the pipeline's maps, the focus
    // panel) show: the preview, if one is out (a multi-head request's
    // selected head computed first, bit for bit that head of the whole pass;
    // labrequests.h), else published()->shown(); and the cache those maps
    // sample it into.
    std::shared_ptr<const attn::AttentionResult> shownResult() const
    {
        return requests_->preview() ? requests_->preview() : current_->shown();
    }
    std::shared_ptr<ResultSampleCache> shownSampleCache() const
    {
        return requests_->preview() ? requests_->previewSamples() : current_->samples();
    }
    // The requests to the worker: the preview's and the look-ahead's
    // switches, and the points where they wait for the views' paint
    // (labrequests.h). No look-ahead is made for a result over
    // kLookAheadBytes (an extra result held), a borrowed head or the single
    // head.
    LabRequests& requests() const { return *requests_; }
    static constexpr std::size_t kLookAheadBytes = std::size_t(128) << 20;
    void setHeadsConfig(const attn::HeadsConfig& heads);
    void setHeadCount(int heads) { setHeadsConfig(withHeadCount(in_.heads, heads)); }
    void setHeadLayout(attn::HeadLayout layout) { setHeadsConfig(withHeadLayout(in_.heads, layout)); }
    void setOutputProjection(bool on) { setHeadsConfig(withOutputProjection(in_.heads, on)); }
    void setTorchInit(bool on) { setHeadsConfig(withTorchInit(in_.heads, on)); }

    // A model's head shown with the lab's engine (borrowedhead.h): setState
    // with an active `borrowed` (modelHeadState) takes its tokens and
    // matrices; edited cells keep it borrowed (counted against the model's
    // numbers). A redraw leaves it for the lab's own parameters with that
    // change, and so does a new sentence unless the session follows the
    // model: then the head stays on display and waits
    // (inputs().awaitingBorrow) for the window to borrow the same head of
    // the model's pass over the new sentence, or to release it.
    void setFollowsModel(bool on) { followsModel_ = on; }
    // The lab's own parameters again (with the current sentence), drawn from
    // the seed; nothing happens when no head is borrowed.
    void releaseBorrowed();

    // The d_k lab, computed in the lab lane of this session's worker, after
    // the attention work (see AttentionWorker).
    ScalingLabRun* scalingLab() const { return scalingLab_.get(); }

signals:
    void parametersChanged();  // inputs().config or .options changed
    // setSentence took a new sentence, before the lab redraws for it (and
    // parametersChanged follows): a model reading the sentence starts first.
    void sentenceChanged();
    void modelRedrawn();   // the matrices were replaced; their shapes may differ
    void resultChanged();  // published() and the matrices are current
    // A request's result will never show: a newer request, an edit or a
    // state superseded it. Once per superseded request given to the worker.
    void resultDropped();
    // requests().preview() changed: the maps show shownResult() (after resultChanged
    // it is null again, with no signal of its own).
    void previewChanged();
    void problemChanged();  // problem() changed
    void editRefused(const QString& message);
    void headSelected(int head);  // inputs().selectedHead changed (published() too)
    // setMatrixCell changed one cell: the inputs hold it already, the
    // result of the edit comes after (resultChanged).
    void cellEdited(const attnlab::CellEdit& edit);
    // What a change did with the user's cells, for the window to show (see
    // describeKept); empty when nothing of the user's is left to speak of.
    void matrixNotice(const QString& text);

private:
    // One model parameter: a change redraws every matrix from the seed.
    template <typename T>
    void changeConfig(T attn::ModelConfig::*field, T value)
    {
        if (in_.config.*field == value)
            return;
        in_.config.*field = value;
        redraw();
        emit parametersChanged();
    }
    // One attention option: a change recomputes over the current matrices.
    template <typename T>
    void changeOption(T attn::AttentionOptions::*field, T value)
    {
        if (in_.options.*field == value)
            return;
        in_.options.*field = value;
        recompute();
        emit parametersChanged();
    }
    // Two at once, one recomputation.
    template <typename T, typename U>
    void changeOption(T attn::AttentionOptions::*first, T a, U attn::AttentionOptions::*second, U b)
    {
        if (in_.options.*first == a && in_.options.*second == b)
            return;
        in_.options.*first = a;
        in_.options.*second = b;
        recompute();
        emit parametersChanged();
    }

    // buildModel from in_.config, then recompute; `keep` lays the user's cells
    // over the new draw. Large work goes to the worker (requests_), the
    // rest is computed here with the same job (computeNow) and taken in
    // as the worker's outcome would be (finish).
    void redraw(bool keep = true);
    void recompute();  // attention over the current matrices
    void redrawNow(bool keep);
    void recomputeNow();
    void recomputeHeads();             // after an edit of the selected head's weights
    bool largeWork(int tokens) const;  // of in_ over `tokens` tokens (isLargeLabWork)
    // The request of `kind` that computes `inputs` (makeLabJob, labjob.h),
    // with what the views want of its result.
    std::unique_ptr<AttentionJob> job(const LabInputs& inputs, LabJobKind kind) const;
    QList<QSize> sampleSizes() const;  // where the next result is sampled
    // `job` computed on this thread, every core for large work.
    std::shared_ptr<AttentionOutcome> computeNow(AttentionJob& job) const;
    // An outcome of in_'s request made the session's: the problem, or the
    // result published with the inputs it brings, and the signals. False
    // for an error.
    bool finish(AttentionOutcome& outcome);
    void deliver(const std::shared_ptr<AttentionOutcome>& outcome);  // from the worker
    // `next` becomes the session's result (see published()); emits nothing.
    void publish(LabResult next);
    void setProblem(const QString& problem);
    bool multiHead() const { return in_.heads.multiHead(); }
    // `inputs` computed here and made the session's at once (setState, an
    // import), dropping a request in flight; `notice` for the window.
    attn::Status replaceInputs(LabInputs inputs, const QString& notice);

    LabInputs in_;                            // what the result is computed from (labinputs.h)
    std::shared_ptr<ResultPool> resultPool_;  // before current_: results go back to it
    std::shared_ptr<const LabResult> current_;
    std::optional<QList<QSize>> fixedSampleSizes_;  // see setSampleSizes
    bool comparisonWanted_ = false;
    QString problem_;
    bool followsModel_ = false;
    std::unique_ptr<LabRequests> requests_;      // after resultPool_, which its worker uses
    std::unique_ptr<ScalingLabRun> scalingLab_;  // after requests_: gone before its worker
};

}  // namespace attnlab
