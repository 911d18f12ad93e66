// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Tiles view's walk (issue 40): the lab's shown head computed again in
// FlashAttention's tiles of B_r queries x B_c keys (core's flashAttention,
// flash_tiles.h, on the head's own Q, K, V, divisor and causal mask, as
// --flash-tiles takes them), every step kept, and where the walk stands.
//
// The view draws what this class holds and does no maths: the scaled score
// map, each tile's state (done, current, to come, skipped), the current
// step's m, l, rescale and O with what the step changed, the largest
// |O / l - context| at the end and the memory the tiled pass holds beside
// the n x n matrix.
//
// The walk is for teaching: it keeps every step, so it refuses (problem(),
// one line naming the way out) a head of more than kMaxTokens tokens. Where
// the blocks asked would make more than kMaxSteps tiles or keep more than
// kMaxNumbers numbers, it walks the smallest square growth of them that
// fits and adjustment() says so in one line. --flash-tiles writes any size.

#include "flash_tiles.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <memory>
#include <vector>

namespace attn {
struct AttentionResult;
}

namespace attnlab {

class FlashWalk : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxTokens = 512;
    static constexpr long long kMaxSteps = 64 * 64;
    // m, l, rescale and O of every step: 32 MiB of doubles.
    static constexpr long long kMaxNumbers = 4'000'000;
    // The article's six tokens in 2 x 3 tiles.
    static constexpr int kDefaultBlockRows = 2;
    static constexpr int kDefaultBlockCols = 3;
    static constexpr int kDefaultIntervalMs = 700;

    enum class TileState { Done, Current, ToCome };

    // What the current step did to one query row of its block.
    struct RowChange {
        double mBefore = 0.0;  // -inf before any key
        double lBefore = 0.0;
        bool m = false;  // m rose (a larger score arrived)
        bool l = false;
        bool O = false;  // some entry of the row's O changed
    };

    explicit FlashWalk(QObject* parent = nullptr);
    ~FlashWalk() override;

    // The head to walk and its tokens' labels; null (or not computed) for
    // nothing. The step stays where it was when the new head has the same
    // tiles (a new seed, an edited cell), else it goes to the tile holding
    // the same query row and key column, within the new steps.
    void setResult(std::shared_ptr<const attn::AttentionResult> result, QStringList labels);
    // B_r and B_c as asked (from 1); the walk takes each up to n, and a
    // longer sentence later gets the asked size back. The step goes to the
    // tile holding the current one's first query and key.
    void setBlocks(int rows, int cols);
    int blockRows() const { return blockRows_; }  // as walked: min(asked, n)
    int blockCols() const { return blockCols_; }

    const std::shared_ptr<const attn::AttentionResult>& result() const { return result_; }
    const QStringList& labels() const { return labels_; }
    int tokens() const;
    // Whether there are steps to walk; otherwise problem() says why.
    bool ready() const { return !steps_.empty(); }
    const QString& problem() const { return problem_; }
    // Why the blocks walked are larger than the blocks asked (empty when not).
    const QString& adjustment() const { return adjustment_; }
    // Whether B_r x B_c tiles over n tokens (values of dV) stay within
    // kMaxSteps steps and kMaxNumbers kept numbers.
    static bool fits(int n, int blockRows, int blockCols, long long dV);

    int stepCount() const { return int(steps_.size()); }
    int queryBlocks() const { return queryBlocks_; }
    int keyBlocks() const { return keyBlocks_; }
    const attn::FlashStep& step(int index) const { return steps_[std::size_t(index)]; }
    // 0 .. stepCount() - 1 (0 when not ready).
    int current() const { return current_; }
    const attn::FlashStep& currentStep() const { return step(current_); }
    bool atEnd() const { return ready() && current_ == stepCount() - 1; }
    // Tile (queryBlock, keyBlock) against the current step, and whether the
    // mask skipped it.
    TileState tileState(int queryBlock, int keyBlock) const;
    bool tileSkipped(int queryBlock, int keyBlock) const;
    // Row r (0-based within the block) of the current step.
    const RowChange& change(int row) const { return changes_[std::size_t(row)]; }

    // The scaled scores (n x n, scores / divisor; -inf where masked).
    const attn::Matrix& scaledScores() const { return scaled_; }
    // The largest |scaled score| the mask keeps: the colour scale's end.
    double scaledRange() const { return scaledRange_; }
    // O / l after the last step, and its largest |difference| from the
    // lab's context (the direct pass).
    const attn::Matrix& context() const { return context_; }
    double maxAbsDifference() const { return maxAbsDifference_; }
    attn::FlashMemory memory() const { return memory_; }
    attn::AttentionMask mask() const { return mask_; }

    // The lines the view shows. "Step 3 of 6: queries 2-3 (short, eat),
    // keys 0-2 (Life … short)" (", skipped: the mask hides every key" for a
    // skipped tile); at the last step "O / l equals the lab's context:
    // largest difference 1.3322676295501878e-15" (the shortest text that
    // reads back to the same double); the memory the tiled pass holds beside
    // the n x n matrix. Empty when not ready.
    QString stepText() const;
    QString endText() const;
    QString memoryText() const;
    // The largest difference as endText writes it.
    static QString differenceText(double difference);

    // The walk. Each moves within the steps and emits currentChanged when
    // the step changed; back() and first() pause a play.
    void first();
    void back();
    void stepForward();
    void last();
    void setCurrent(int index);

    // Play: one step every interval() ms until the last, from the first when
    // started at the end. tick() is one beat of it (the timer's).
    void play();
    void pause();
    void setPlaying(bool on) { on ? play() : pause(); }
    bool playing() const { return timer_.isActive(); }
    void tick();
    int interval() const { return timer_.interval(); }
    void setInterval(int ms) { timer_.setInterval(ms); }

signals:
    void changed();  // the steps were made again (head or blocks)
    void currentChanged(int index);
    void playingChanged(bool playing);

private:
    void rebuild(int keepQuery, int keepKey, int keepIndex);
    void updateChanges();
    int stepHolding(int query, int key) const;

    std::shared_ptr<const attn::AttentionResult> result_;
    QStringList labels_;
    int askedRows_ = kDefaultBlockRows;
    int askedCols_ = kDefaultBlockCols;
    QString adjustment_;
    int blockRows_ = kDefaultBlockRows;
    int blockCols_ = kDefaultBlockCols;
    std::vector<attn::FlashStep> steps_;
    int queryBlocks_ = 0;
    int keyBlocks_ = 0;
    int current_ = 0;
    std::vector<RowChange> changes_;
    attn::Matrix scaled_;
    double scaledRange_ = 0.0;
    attn::Matrix context_;
    double maxAbsDifference_ = 0.0;
    attn::FlashMemory memory_;
    attn::AttentionMask mask_;
    QString problem_;
    QTimer timer_;
};

}  // namespace attnlab
