// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The head lab's A/B difference maps (issue 39): two runs of the model over
// the same number of tokens that differ in one thing, and map B minus map A
// of the selected head's weights (n x n, rows the queries) or of the
// attention rollout (lens_rollout.h), for a diverging map:
//
//   intact vs ablated     A the session's pass, B its ablated pass (the
//                         heads and mode of the Ablation page); with no head
//                         ablated B is A and B - A is 0 everywhere. A head
//                         changes only in the layers after the first
//                         ablated head; the rollout shows the whole model.
//   scaled vs unscaled    A every head's scores divided by sqrt(head_dim)
//                         (as trained), B by 1 (the what-if "no scaling");
//                         the rest as the session's pass (mask, QK-norm).
//   another sentence      A the session's pass, B the same model under the
//                         same what-ifs over another sentence of the same
//                         token count (a different count is a one-line
//                         problem, no map).
//
// B - A is each entry of B's map minus A's, nothing else; the passes are
// the session's own where it has them (intact and ablated), else run here
// with every head's maps recomputed from the kept attention inputs
// (attn::DecoderModel::head), off the GUI thread in a lane of its own, and
// kept for the next head chosen. Nothing is computed while not wanted (the
// view hidden); setWanted(true) computes the current comparison at once.

#include "decoder_model.h"
#include "expected.h"
#include "matrix.h"
#include "modelfolder.h"
#include "modeltokenizer.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace attnlab {

class JobLane;
class ModelSession;

enum class ComparisonKind { IntactVsAblated, ScaledVsUnscaled, OtherSentence };
enum class ComparedMap { SelectedHead, Rollout };

// Map `map` of `pass`: head (layer, head)'s weights (kept, or recomputed
// by model.head), or the rollout; an error for a head out of range.
attn::Expected<attn::Matrix> comparedMap(const attn::DecoderModel& model, const attn::DecoderResult& pass,
                                         ComparedMap map, int layer, int head);

// What a comparison is, for its one-line caption (the Lens page's line,
// the pictures' and `--compare`'s): "B − A = unscaled (÷ 1) − scaled
// (÷ √d_k = 8) in every head, L2 H3's weights." `largest` adds
// " Largest |B − A|: 0.2051." when given.
struct ComparisonText {
    ComparisonKind kind = ComparisonKind::IntactVsAblated;
    ComparedMap map = ComparedMap::SelectedHead;
    int layer = 0;
    int head = 0;
    std::vector<attn::HeadIndex> ablated;  // intact vs ablated
    attn::HeadAblation ablation = attn::HeadAblation::Zero;
    int headDim = 1;
    QString otherSentence;
};
QString comparisonCaption(const ComparisonText& text, std::optional<double> largest = std::nullopt);

// The maps' labels: A's tokens, "a/b" where B's token differs (another sentence).
QStringList comparisonLabels(const QStringList& tokensA, const QStringList& tokensB);

class ModelComparison : public QObject {
    Q_OBJECT
public:
    explicit ModelComparison(ModelSession* session, QObject* parent = nullptr);
    ~ModelComparison() override;

    void setKind(ComparisonKind kind);
    ComparisonKind kind() const { return kind_; }
    void setMap(ComparedMap map);
    ComparedMap map() const { return map_; }
    // The other sentence (ComparisonKind::OtherSentence), tokenised by the
    // model's tokenizer.
    void setOtherSentence(const QString& sentence);
    QString otherSentence() const { return otherSentence_; }

    void setWanted(bool wanted);
    bool isWanted() const { return wanted_; }
    bool isComputing() const { return computing_; }

    // The last comparison: maps A and B and B - A (n x n; empty with a
    // problem or before the first), their labels (A's tokens; "a/b" where
    // the other sentence has another token there), the largest |B - A|, a
    // symmetric colour limit for the diverging map (that largest change,
    // 1 when it is 0), and what A and B are in one line.
    const attn::Matrix& mapA() const { return a_; }
    const attn::Matrix& mapB() const { return b_; }
    const attn::Matrix& difference() const { return difference_; }
    const QStringList& labels() const { return labels_; }
    double largestChange() const { return largest_; }
    double colorLimit() const { return largest_ > 0.0 ? largest_ : 1.0; }
    QString caption() const { return caption_; }
    // Why there is no map (no model or sentence, another token count, a
    // failed pass), one line; empty otherwise.
    QString problem() const { return problem_; }

signals:
    void changed();
    void computingChanged(bool computing);

private:
    struct Job;
    struct Outcome;
    void request();
    void deliver(const std::shared_ptr<Outcome>& outcome);
    void setComputing(bool computing);
    void fail(const QString& problem);

    ModelSession* session_;
    ComparisonKind kind_ = ComparisonKind::IntactVsAblated;
    ComparedMap map_ = ComparedMap::SelectedHead;
    QString otherSentence_;
    bool wanted_ = false;
    bool computing_ = false;
    quint64 generation_ = 0;
    attn::Matrix a_;
    attn::Matrix b_;
    attn::Matrix difference_;
    QStringList labels_;
    double largest_ = 0.0;
    QString caption_;
    QString problem_;
    // The passes run here (scaled, unscaled, the other sentence), kept for
    // the next head: each with what it was run over and with.
    struct KeptPass;
    std::vector<std::shared_ptr<const KeptPass>> kept_;
    std::unique_ptr<JobLane> lane_;  // last: joined first on destruction
};

}  // namespace attnlab
