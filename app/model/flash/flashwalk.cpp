// SPDX-License-Identifier: GPL-3.0-or-later
#include "flashwalk.h"

#include "attention.h"
#include "inputfile.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QLocale>

namespace attnlab {

namespace {

long long ceilDiv(long long a, long long b)
{
    return (a + b - 1) / b;
}

}  // namespace

bool FlashWalk::fits(int n, int blockRows, int blockCols, long long dV)
{
    const long long steps = attn::flashStepCount(n, blockRows, blockCols);
    return steps <= kMaxSteps && steps * blockRows * (dV + 3) <= kMaxNumbers;
}

FlashWalk::FlashWalk(QObject* parent) : QObject(parent)
{
    timer_.setInterval(kDefaultIntervalMs);
    connect(&timer_, &QTimer::timeout, this, &FlashWalk::tick);
}

FlashWalk::~FlashWalk() = default;

int FlashWalk::tokens() const
{
    return result_ ? result_->tokens() : 0;
}

void FlashWalk::setResult(std::shared_ptr<const attn::AttentionResult> result, QStringList labels)
{
    const bool had = ready();
    const int query = had ? currentStep().queryFirst : 0;
    const int key = had ? currentStep().keyFirst : 0;
    const int index = had ? current_ : 0;
    result_ = std::move(result);
    labels_ = std::move(labels);
    rebuild(query, key, index);
}

void FlashWalk::setBlocks(int rows, int cols)
{
    rows = std::max(1, rows);
    cols = std::max(1, cols);
    if (rows == askedRows_ && cols == askedCols_)
        return;
    askedRows_ = rows;
    askedCols_ = cols;
    const bool had = ready();
    rebuild(had ? currentStep().queryFirst : 0, had ? currentStep().keyFirst : 0, -1);
}

void FlashWalk::rebuild(int keepQuery, int keepKey, int keepIndex)
{
    const int oldCount = stepCount();
    const int oldQueryBlocks = queryBlocks_;
    const int oldKeyBlocks = keyBlocks_;
    steps_.clear();
    changes_.clear();
    problem_.clear();
    adjustment_.clear();
    queryBlocks_ = keyBlocks_ = 0;
    maxAbsDifference_ = 0.0;
    scaled_.resize(0, 0);
    context_.resize(0, 0);
    memory_ = {};
    scaledRange_ = 0.0;
    const int n = tokens();
    blockRows_ = n > 0 ? std::min(askedRows_, n) : askedRows_;
    blockCols_ = n > 0 ? std::min(askedCols_, n) : askedCols_;
    if (n < 1) {
        problem_ = tr("No attention computed yet.");
    } else if (n > kMaxTokens) {
        problem_ = tr("The tiles view walks at most %1 tokens and this sentence has %2: shorten it, "
                      "or write every step with --flash-tiles.")
                       .arg(kMaxTokens)
                       .arg(n);
    } else if (!fits(n, blockRows_, blockCols_, result_->V.cols())) {
        // Too many steps, or too many numbers kept, for the blocks asked: the
        // walk takes the smallest square growth of them that fits and says so
        // (the asked blocks come back for a shorter sentence).
        const int askedRows = blockRows_;
        const int askedCols = blockCols_;
        const long long askedSteps = attn::flashStepCount(n, askedRows, askedCols);
        for (int b = 1; b <= n; ++b) {
            blockRows_ = std::max(askedRows, b);
            blockCols_ = std::max(askedCols, b);
            if (fits(n, blockRows_, blockCols_, result_->V.cols()))
                break;
        }
        adjustment_ = askedSteps > kMaxSteps
                          ? tr("%1 x %2 tiles would make %3 steps, more than the %4 the view walks: "
                               "walking %5 x %6.")
                                .arg(askedRows)
                                .arg(askedCols)
                                .arg(askedSteps)
                                .arg(kMaxSteps)
                                .arg(blockRows_)
                                .arg(blockCols_)
                          : tr("%1 x %2 tiles would keep more than the %3 of steps the view keeps: "
                               "walking %4 x %5.")
                                .arg(askedRows)
                                .arg(askedCols)
                                .arg(QString::fromStdString(byteSizeText(kMaxNumbers * 8)))
                                .arg(blockRows_)
                                .arg(blockCols_);
    }
    if (n >= 1 && n <= kMaxTokens) {
        mask_ = result_->causal ? attn::AttentionMask::causal() : attn::AttentionMask::none();
        scaled_ = result_->scaledMatrix();
        scaledRange_ = result_->maxAbsKeptScore / result_->divisor;
        memory_ =
            attn::flashMemoryBytes(n, int(result_->Q.cols()), int(result_->V.cols()), blockRows_, blockCols_);
    }
    if (problem_.isEmpty()) {
        attn::Expected<attn::FlashRun> run = attn::flashAttentionSteps(
            result_->Q, result_->K, result_->V, result_->divisor, mask_, blockRows_, blockCols_);
        if (!run) {
            problem_ = QString::fromStdString(run.error().message);
        } else {
            steps_ = std::move(run.value().steps);
            context_ = std::move(run.value().context);
            maxAbsDifference_ = attn::maxAbsDifference(context_, result_->context);
            queryBlocks_ = int(ceilDiv(n, blockRows_));
            keyBlocks_ = int(ceilDiv(n, blockCols_));
        }
    }
    if (!ready()) {
        pause();
        current_ = 0;
    } else if (keepIndex >= 0 && oldCount == stepCount() && oldQueryBlocks == queryBlocks_
               && oldKeyBlocks == keyBlocks_) {
        current_ = keepIndex;  // the same tiles
    } else {
        current_ = stepHolding(std::min(keepQuery, n - 1), std::min(keepKey, n - 1));
    }
    updateChanges();
    emit changed();
    emit currentChanged(current_);
}

int FlashWalk::stepHolding(int query, int key) const
{
    if (!ready())
        return 0;
    return std::clamp((query / blockRows_) * keyBlocks_ + key / blockCols_, 0, stepCount() - 1);
}

void FlashWalk::updateChanges()
{
    changes_.clear();
    if (!ready())
        return;
    const attn::FlashStep& now = currentStep();
    const bool firstOfBlock = now.keyFirst == 0;
    const attn::FlashStep* before = firstOfBlock ? nullptr : &step(current_ - 1);
    changes_.resize(std::size_t(now.rows()));
    for (int r = 0; r < now.rows(); ++r) {
        RowChange& c = changes_[std::size_t(r)];
        c.mBefore = before ? before->m(r) : -std::numeric_limits<double>::infinity();
        c.lBefore = before ? before->l(r) : 0.0;
        c.m = now.m(r) != c.mBefore;
        c.l = now.l(r) != c.lBefore;
        for (Eigen::Index j = 0; j < now.O.cols() && !c.O; ++j)
            c.O = now.O(r, j) != (before ? before->O(r, j) : 0.0);
    }
}

FlashWalk::TileState FlashWalk::tileState(int queryBlock, int keyBlock) const
{
    const int index = queryBlock * keyBlocks_ + keyBlock;
    if (index < current_)
        return TileState::Done;
    return index == current_ ? TileState::Current : TileState::ToCome;
}

bool FlashWalk::tileSkipped(int queryBlock, int keyBlock) const
{
    return step(queryBlock * keyBlocks_ + keyBlock).skipped;
}

namespace {

QString rangeText(const QStringList& labels, int first, int last)
{
    const auto label = [&labels](int i) { return i < labels.size() ? labels[i] : QString::number(i); };
    if (first == last)
        return QStringLiteral("%1 (%2)").arg(first).arg(label(first));
    const QChar dash(0x2013);
    const QString words = last - first == 1 ? label(first) + QStringLiteral(", ") + label(last)
                                            : label(first) + QStringLiteral(" \u2026 ") + label(last);
    return QStringLiteral("%1%2%3 (%4)").arg(first).arg(dash).arg(last).arg(words);
}

}  // namespace

QString FlashWalk::stepText() const
{
    if (!ready())
        return {};
    const attn::FlashStep& s = currentStep();
    QString text =
        tr("Step %1 of %2: queries %3, keys %4")
            .arg(current_ + 1)
            .arg(stepCount())
            .arg(rangeText(labels_, s.queryFirst, s.queryLast), rangeText(labels_, s.keyFirst, s.keyLast));
    if (s.skipped)
        text += tr(", skipped: the causal mask hides every key of the tile");
    return text;
}

QString FlashWalk::differenceText(double difference)
{
    return difference == 0.0 ? QStringLiteral("0 (bit for bit)")
                             : QString::number(difference, 'g', QLocale::FloatingPointShortest);
}

QString FlashWalk::endText() const
{
    if (!ready())
        return {};
    if (!atEnd())
        return tr("At the last step O / l is the context.");
    return tr("O / l equals the lab's context: largest difference %1").arg(differenceText(maxAbsDifference_));
}

QString FlashWalk::memoryText() const
{
    if (!ready())
        return {};
    const auto bytes = [](long long b) { return QString::fromStdString(byteSizeText(b)); };
    const int n = tokens();
    return tr("Memory: Q, K, V and the context (n x d) %1 plus one %2 x %3 tile %4; the %5 x %5 score "
              "matrix, never held, would be %6.")
        .arg(bytes(memory_.inputsAndContext))
        .arg(blockRows_)
        .arg(blockCols_)
        .arg(bytes(memory_.oneTile))
        .arg(n)
        .arg(bytes(memory_.scoreMatrix));
}

void FlashWalk::setCurrent(int index)
{
    if (!ready())
        return;
    index = std::clamp(index, 0, stepCount() - 1);
    if (index == current_)
        return;
    current_ = index;
    updateChanges();
    emit currentChanged(current_);
}

void FlashWalk::first()
{
    pause();
    setCurrent(0);
}

void FlashWalk::back()
{
    pause();
    setCurrent(current_ - 1);
}

void FlashWalk::stepForward()
{
    setCurrent(current_ + 1);
}

void FlashWalk::last()
{
    pause();
    setCurrent(stepCount() - 1);
}

void FlashWalk::play()
{
    if (!ready() || playing())
        return;
    if (atEnd())
        setCurrent(0);
    timer_.start();
    emit playingChanged(true);
}

void FlashWalk::pause()
{
    if (!playing())
        return;
    timer_.stop();
    emit playingChanged(false);
}

void FlashWalk::tick()
{
    stepForward();
    if (atEnd() || !ready())
        pause();
}

}  // namespace attnlab
