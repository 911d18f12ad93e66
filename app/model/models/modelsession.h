// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An opened causal decoder model of any family (ModelFolder: its
// attn::DecoderModel and its ModelTokenizer) and its pass over the user's
// sentence, for the window's model view. Views read it and draw; they never
// compute.
//
// openModel() reads the folder (readModelFolder: modelfamilies.h) in a worker thread
// (loadProgress() says what it reads, then modelOpened() or loadFailed()
// with the readers' one-line message; a failed open keeps the previous
// model). setSentence()
// tokenises at once on the calling thread (the model's tokenizer)
// and hands the pass (attn::DecoderModel::run, every head's maps kept) to a second
// worker thread; the what-if edits (setScale, resetScale) do the same. A
// newer request supersedes an older one: the older pass is dropped before
// it starts or, if it is running, stopped between layers
// (attn::DecoderRunOptions::cancel) and its outcome never shown. Nothing here
// waits for a worker on the calling thread. The temperature only rescales
// the next-token softmax of the last logits, so it is applied at once
// (attn::topTokens over the vocabulary) with no new pass.
//
// The head lab (issue 39) rides on the same pass (runModelPass,
// modelpass.h): the job also computes every head's type scores
// (attn::headScores), with heads ablated (setAblation) runs the pass again
// without them (attn::ablationHook, its maps kept as --ablate keeps them),
// and with the induction probe (setProbe) runs over its random tokens and
// measures each repeat's loss, so the scores, the ablated pass, the losses
// and the result are one outcome, superseded together.
//
// After each pass shown, or a temperature change, resultChanged(); a
// request that cannot run (no model, no tokens, more than n_positions,
// a bad divisor) keeps the last result and sets problem() instead.

#include "decoder_model.h"
#include "expected.h"
#include "head_scores.h"
#include "score_range.h"
#include "modelfolder.h"
#include "modelmapbudget.h"
#include "modelpass.h"
#include "modeltokenizer.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace attnlab {

class JobLane;

// Where a what-if scale applies, from the selected (layer, head).
enum class ScaleScope { AllLayers, ThisLayer, ThisHead };

class ModelSession : public QObject {
    Q_OBJECT
public:
    explicit ModelSession(QObject* parent = nullptr);
    ~ModelSession() override;

    // Starts reading FOLDER (superseding a read in flight).
    void openModel(const QString& folder);
    // Shows a folder already read (the command line's --model DIR, which
    // read and checked it once): as openModel without reading it again.
    void adoptModel(std::shared_ptr<const ModelFolder> model);
    bool isLoading() const { return loading_; }
    bool hasModel() const { return model_ != nullptr; }
    // The model shown, or null.
    std::shared_ptr<const ModelFolder> model() const { return model_; }
    const attn::DecoderConfig& config() const { return model_->config(); }  // with a model
    QString modelFolder() const { return model_ ? model_->folder : QString(); }
    // "2 layers x 4 heads, E 16, 64 positions, F32": the model in one line.
    QString modelSummary() const;

    void setSentence(const QString& sentence);
    QString sentence() const { return sentence_; }
    // The induction probe (modelpass.h): while set, the passes run over its
    // 2R random tokens instead of the sentence, which is kept (setSentence
    // still records it) and runs again once the probe is cleared. A probe
    // the model cannot take (R < 2, 2R beyond its positions, too few ids)
    // is an error and changes nothing. Opening a model clears it.
    attn::Status setProbe(std::optional<RepeatProbe> probe);
    const std::optional<RepeatProbe>& probe() const { return probe_; }
    // The probe result() ran over (empty: the sentence), and each repeat's
    // mean loss in it and, with heads ablated, in the ablated pass.
    const std::optional<RepeatProbe>& resultProbe() const { return resultProbe_; }
    const std::optional<attn::RepeatLoss>& probeLoss() const { return probeLoss_; }
    const std::optional<attn::RepeatLoss>& ablatedProbeLoss() const { return ablatedProbeLoss_; }
    // The sentence's tokens under the current model (empty without one).
    const std::vector<ModelToken>& tokens() const { return tokens_; }

    // The last pass shown, or null; its tokens are resultTokens().
    std::shared_ptr<const attn::DecoderResult> result() const { return result_; }
    const std::vector<ModelToken>& resultTokens() const { return resultTokens_; }
    // Head (layer, head) of result(), or null without a result or out of range.
    const attn::AttentionResult* head(int layer, int head) const;
    // Every head's weight from the last token to key `key`: a (layers,
    // heads) table, empty without a result or for a key out of range. The
    // lesson ranks the heads by it ("which heads look at “cinema”").
    attn::Matrix weightsFromLast(int key) const;
    // The 10 most likely next tokens after result()'s last position at
    // temperature(), largest first.
    const std::vector<attn::TopToken>& nextTokens() const { return next_; }
    // Every head's type scores for result() (computed with its pass; an
    // empty table without a result). A score no row defines is nullopt.
    const attn::HeadScoreTable& headScores() const { return scores_; }
    // One score of every head as a (layers, heads) table, NaN where the
    // score is empty; empty without a result.
    attn::Matrix headScoreMatrix(attn::HeadScoreKind kind) const;
    // The heads that have the score, largest first (attn::rankHeads).
    std::vector<attn::HeadIndex> rankedHeads(attn::HeadScoreKind kind) const;
    // "How this model keeps scores in range": every head's score variance,
    // largest weight and entropy for result() (attn::scoreRangeTable,
    // computed with its pass; empty without a result), one of them as a
    // (layers, heads) table, and the heads by it, largest first.
    const attn::ScoreRangeTable& scoreRanges() const { return ranges_; }
    attn::Matrix scoreRangeMatrix(attn::ScoreRangeKind kind) const;
    std::vector<attn::HeadIndex> rankedHeads(attn::ScoreRangeKind kind) const;

    // The heads the next passes run without (none: no ablated pass), and
    // how (zero, or each column's mean). Changing them runs the pass again;
    // a head out of range is an error and changes nothing.
    attn::Status setAblation(std::vector<attn::HeadIndex> heads, attn::HeadAblation kind);
    // Adds or removes one head.
    attn::Status toggleAblated(int layer, int head);
    const std::vector<attn::HeadIndex>& ablatedHeads() const { return ablated_; }
    attn::HeadAblation ablation() const { return ablation_; }
    bool isAblated(int layer, int head) const;
    // The heads and mode result()'s ablated pass ran with (empty: none ran).
    const std::vector<attn::HeadIndex>& resultAblatedHeads() const { return resultAblated_; }
    attn::HeadAblation resultAblation() const { return resultAblation_; }
    // With an ablated pass: its last logits, and the next tokens of both
    // passes side by side at temperature() (attn::compareNextTokens, the
    // kNextTokens most likely of each). Empty otherwise.
    const attn::RowVector& ablatedLogits() const { return ablatedLogits_; }
    // The ablated pass itself (every head's maps and the residual stream
    // kept), or null without one.
    std::shared_ptr<const attn::DecoderResult> ablatedResult() const { return ablatedResult_; }
    const std::vector<attn::NextTokenChange>& nextTokenChanges() const { return changes_; }

    // logits[a] - logits[b] of the last position for two tokens the user
    // types (" film", " book": each must be one token of the model), in the
    // intact pass and, with an ablated pass, without the ablated heads.
    struct LogitDifference {
        int a = 0;
        int b = 0;
        double intact = 0.0;
        std::optional<double> ablated;
    };
    attn::Expected<LogitDifference> logitDifference(const QString& a, const QString& b) const;

    // A vocabulary token of the model (id in range).
    ModelToken vocabularyToken(int id) const;
    // A pass is in flight; result() is the previous one.
    bool isComputing() const { return computing_; }
    QString problem() const { return problem_; }
    // Passes stopped before their end by a newer request, since construction.
    int cancelledPasses() const { return cancelled_; }
    // For tests: called on the worker thread as each pass starts (before
    // its first layer), for passes requested after this call.
    void setPassHook(std::function<void()> hook) { passHook_ = std::move(hook); }

    // The selected head (the what-if scope's "this layer / this head").
    int selectedLayer() const { return layer_; }
    int selectedHead() const { return head_; }
    void selectHead(int layer, int head);

    // The divisor table the next pass uses (sqrt(head_dim) everywhere
    // after opening a model).
    const attn::HeadDivisors& divisors() const { return divisors_; }
    // The selected head's divisor, and the mode it was set with (a custom
    // divisor equal to sqrt(head_dim) stays "custom", as the export says).
    double selectedDivisor() const;
    attn::ScaleMode selectedScaleMode() const;
    // Sets `mode` (customDivisor with ScaleMode::Custom) on `scope` and
    // recomputes; an error (a divisor out of range, no model) changes nothing.
    attn::Status setScale(attn::ScaleMode mode, double customDivisor, ScaleScope scope);
    // sqrt(head_dim) everywhere again.
    void resetScale();
    // Every head's mode, layer-major as divisors().values.
    const std::vector<attn::ScaleMode>& scaleModes() const { return modes_; }
    // Every head's mode and divisor at once (a saved lab's): layer-major
    // tables of layers x heads, a divisor read for ScaleMode::Custom only.
    // Another shape, a divisor out of range or no model is an error and
    // changes nothing.
    attn::Status setScales(const std::vector<attn::ScaleMode>& modes, const std::vector<double>& divisors);

    // The what-if of the mask (attn::DecoderRunOptions::mask): every layer's
    // heads attend with it; empty: the model's own (causal, or its sliding
    // window). Setting another recomputes; none (later keys seen) or a bad
    // window is an error and changes nothing. Opening a model clears it.
    const std::optional<attn::AttentionMask>& maskWhatIf() const { return mask_; }
    attn::Status setMaskWhatIf(std::optional<attn::AttentionMask> mask);

    // The what-if of QK-norm (attn::DecoderRunOptions::skipQkNorm): the next
    // passes run without q_norm and k_norm. Only for a model that has them
    // (attn::DecoderConfig::qkNorm); else an error and no change. Opening a
    // model clears it.
    bool qkNormRemoved() const { return skipQkNorm_; }
    attn::Status setQkNormRemoved(bool removed);

    double temperature() const { return temperature_; }
    // In [attn::kMinTemperature, attn::kMaxTemperature]; else an error and no change.
    attn::Status setTemperature(double temperature);

    // While one lives, the passes the setters ask for wait; when the last
    // ends, one pass runs if any was asked for (a saved lab's what-ifs,
    // selection and ablation set one after the other cost one pass).
    class PassBatch {
    public:
        explicit PassBatch(ModelSession& session);
        ~PassBatch();
        PassBatch(const PassBatch&) = delete;
        PassBatch& operator=(const PassBatch&) = delete;

    private:
        ModelSession& session_;
    };

    static constexpr int kNextTokens = 10;
    // Every head's maps are kept for the views (attn::DecoderRunOptions::keepMaps:
    // 8 n^2 + 32 n head_dim bytes a head); a sentence whose maps would take
    // more than this is refused with modelMapBudgetProblem's message instead
    // of run, as the command line's --model run refuses it.
    static constexpr double kDefaultMapBudget = kModelMapBudget;
    void setMapBudget(double bytes) { mapBudget_ = bytes; }
    // The bytes the maps of n tokens take under the current model (0 without one).
    double mapBytes(int tokens) const;

signals:
    // On this object's thread: step of steps (0 of 1 when the read starts,
    // 1 of 1 once opened; the readers do not report within a file).
    void loadProgress(int step, int steps, const QString& what);
    // Emitted before the first pass of the model (tokens() is empty then):
    // what-ifs set in a slot connected to it ride on that pass.
    void modelOpened();
    void loadFailed(const QString& message);
    void resultChanged();
    void problemChanged(const QString& problem);
    void selectionChanged(int layer, int head);
    void computingChanged(bool computing);
    // setAblation changed the heads or the mode (not opening a model,
    // which clears them).
    void ablationChanged();

private:
    struct Outcome;
    void request();  // the pass over tokens_ with divisors_, in the worker
    void deliver(const std::shared_ptr<Outcome>& outcome);
    void setProblem(const QString& problem);
    void setComputing(bool computing);
    void retokenize();
    void installModel(std::shared_ptr<const ModelFolder> model);
    void compareNext();

    std::shared_ptr<const ModelFolder> model_;
    QString sentence_;
    std::vector<ModelToken> tokens_;
    std::shared_ptr<const attn::DecoderResult> result_;
    std::vector<ModelToken> resultTokens_;
    std::vector<attn::TopToken> next_;
    attn::HeadScoreTable scores_;
    attn::ScoreRangeTable ranges_;
    std::vector<attn::HeadIndex> ablated_;
    attn::HeadAblation ablation_ = attn::HeadAblation::Zero;
    std::vector<attn::HeadIndex> resultAblated_;
    attn::HeadAblation resultAblation_ = attn::HeadAblation::Zero;
    attn::RowVector ablatedLogits_;
    std::shared_ptr<const attn::DecoderResult> ablatedResult_;
    std::vector<attn::NextTokenChange> changes_;
    std::optional<RepeatProbe> probe_;
    std::optional<RepeatProbe> resultProbe_;
    std::optional<attn::RepeatLoss> probeLoss_;
    std::optional<attn::RepeatLoss> ablatedProbeLoss_;
    attn::HeadDivisors divisors_;
    std::vector<attn::ScaleMode> modes_;  // as divisors_.values: the mode each was set with
    std::optional<attn::AttentionMask> mask_;
    bool skipQkNorm_ = false;
    double temperature_ = 1.0;
    int layer_ = 0;
    int head_ = 0;
    double mapBudget_ = kDefaultMapBudget;
    QString problem_;
    bool loading_ = false;
    bool computing_ = false;
    int batches_ = 0;           // PassBatch objects alive
    bool heldRequest_ = false;  // a pass was asked for while one lived
    quint64 loadGeneration_ = 0;
    quint64 generation_ = 0;
    int cancelled_ = 0;
    std::function<void()> passHook_;
    // Last: joined first on destruction, while the rest is still alive.
    // Latest lanes (scheduler.h): a newer read or pass replaces a waiting
    // one and stops the one in flight.
    std::unique_ptr<JobLane> loader_;
    std::unique_ptr<JobLane> runner_;
};

}  // namespace attnlab
