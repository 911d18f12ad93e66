// SPDX-License-Identifier: GPL-3.0-or-later
#include "decoder_model.h"

#include "decoder_steps.h"
#include "gpt2_kernels.h"
#include "kernels.h"
#include "parallel.h"
#include "size_limits.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>

namespace attn {
namespace {

bool isCancelled(const DecoderRunOptions& options)
{
    return options.cancel && options.cancel->load(std::memory_order_relaxed);
}

Error cancelled()
{
    return cancelledError(kDecoderCancelled);
}

Status checkConfig(const DecoderConfig& c)
{
    if (c.layers < 1 || c.heads < 1 || c.kvHeads < 1 || c.headDim < 1 || c.width < 1 || c.vocabSize < 1
        || c.maxPositions < 1)
        return Error{
            "The model's configuration needs at least one layer, head, key/value head, head "
            "dimension, width, vocabulary entry and position."};
    if (c.slidingWindow < 0)
        return Error{"The model's sliding window must be 0 (none) or a number of keys; got "
                     + std::to_string(c.slidingWindow) + "."};
    if (c.heads % c.kvHeads != 0)
        return Error{"The model's " + std::to_string(c.heads) + " heads are not a multiple of its "
                     + std::to_string(c.kvHeads) + " key/value heads."};
    return okStatus();
}

// The checks of a pass's input, in the order they are reported; the table
// the pass uses into `divisors`.
Status checkRunInputs(const DecoderConfig& c, const std::vector<int>& tokenIds,
                      const DecoderRunOptions& options, HeadDivisors* divisors)
{
    if (Status s = checkConfig(c); !s)
        return s;
    const int n = int(tokenIds.size());
    if (n < 1)
        return Error{"The sentence has no tokens; the model needs at least one."};
    const int maxTokens = std::min(c.maxPositions, kMaxTokens);
    if (n > maxTokens)
        return Error{"The sentence has " + std::to_string(n) + " tokens; this model takes at most "
                     + std::to_string(maxTokens) + "."};
    for (int i = 0; i < n; ++i)
        if (tokenIds[std::size_t(i)] < 0 || tokenIds[std::size_t(i)] >= c.vocabSize)
            return Error{"Token " + std::to_string(i + 1) + " has id "
                         + std::to_string(tokenIds[std::size_t(i)]) + ", outside the vocabulary (0 to "
                         + std::to_string(c.vocabSize - 1) + ")."};
    *divisors = options.divisors.empty() ? HeadDivisors::standard(c) : options.divisors;
    if (Status s = divisors->check(c); !s)
        return s;
    if (!std::isfinite(options.temperature) || options.temperature < kMinTemperature
        || options.temperature > kMaxTemperature) {
        std::ostringstream msg;
        msg << "The temperature must be a number from " << kMinTemperature << " to " << kMaxTemperature
            << "; got " << options.temperature << ".";
        return Error{msg.str()};
    }
    if (options.topK < 1)
        return Error{"The number of next tokens to list must be at least 1; got "
                     + std::to_string(options.topK) + "."};
    return checkDecoderWhatIfs(c, options.mask, options.skipQkNorm);
}

}  // namespace

Status checkDecoderWhatIfs(const DecoderConfig& c, const std::optional<AttentionMask>& mask, bool skipQkNorm)
{
    if (skipQkNorm && !c.qkNorm)
        return Error{
            "The model has no QK-norm (q_norm and k_norm) to remove; only "
            "Qwen3-style models normalise q and k."};
    if (mask) {
        // A decoder predicts each next token from the ones before it: a
        // mask that let a query see later keys would read its answer.
        if (mask->kind == AttentionMask::Kind::None)
            return Error{
                "A decoder model's mask must hide the keys after each query (causal, sliding:W or "
                "sink:S,window:W); none would let each position read the tokens it is to predict."};
        if (Status s = validateAttentionMask(*mask); !s)
            return s;
    }
    return okStatus();
}

Status attendDecoderHead(const AttentionMask& mask, double divisor, AttentionResult* r)
{
    AttentionOptions options;
    options.scale = ScaleMode::Custom;
    options.customDivisor = divisor;
    options.setMask(mask);
    return computeAttentionFromProjections(options, r);
}

Matrix unembedFloatRows(const Matrix& hidden, const FloatTensor& lmHead, int threads)
{
    const int e = int(hidden.cols());
    const int v = lmHead.rows;
    Matrix logits(hidden.rows(), v);
    constexpr int kVocabBlock = 4096;
    const int blocks = (v + kVocabBlock - 1) / kVocabBlock;
    forEachIndex(blocks, threads, [&](int k) {
        const int t0 = k * kVocabBlock;
        const int count = std::min(kVocabBlock, v - t0);
        if (kernels::available()) {
            const std::size_t first = std::size_t(t0) * std::size_t(e);
            if (lmHead.bf16)
                kernels::productBf16WeightsTransposed(hidden.data(), e, int(hidden.rows()), e,
                                                      lmHead.bf16 + first, e, count, logits.data() + t0, v);
            else
                kernels::productFloatWeightsTransposed(hidden.data(), e, int(hidden.rows()), e,
                                                       lmHead.data + first, e, count, logits.data() + t0, v);
            return;
        }
        const Matrix rows = lmHead.rowsAsDouble(t0, count);
        logits.middleCols(t0, count).noalias() = hidden * rows.transpose();
    });
    return logits;
}

HeadDivisors HeadDivisors::standard(const DecoderConfig& config)
{
    HeadDivisors d;
    d.nLayer = config.layers;
    d.nHead = config.heads;
    d.values.assign(std::size_t(std::max(config.layers, 0)) * std::size_t(std::max(config.heads, 0)),
                    std::sqrt(double(config.headDim)));
    return d;
}

Status HeadDivisors::set(ScaleMode mode, double customDivisor, int headDim, int layer, int head)
{
    if (layer < -1 || layer >= nLayer)
        return Error{"Layer " + std::to_string(layer) + " does not exist; the model has layers 0 to "
                     + std::to_string(nLayer - 1) + "."};
    if (head < -1 || head >= nHead)
        return Error{"Head " + std::to_string(head) + " does not exist; each layer has heads 0 to "
                     + std::to_string(nHead - 1) + "."};
    AttentionOptions options;
    options.scale = mode;
    options.customDivisor = customDivisor;
    const Expected<double> divisor = scaleDivisor(options, headDim);
    if (!divisor)
        return divisor.error();
    for (int l = 0; l < nLayer; ++l)
        for (int h = 0; h < nHead; ++h)
            if ((layer < 0 || l == layer) && (head < 0 || h == head))
                values[std::size_t(l) * nHead + h] = *divisor;
    return okStatus();
}

Status HeadDivisors::check(const DecoderConfig& config) const
{
    if (nLayer != config.layers || nHead != config.heads
        || values.size() != std::size_t(std::max(config.layers, 0)) * std::size_t(std::max(config.heads, 0)))
        return Error{"The score divisor table is for " + std::to_string(nLayer) + " layers x "
                     + std::to_string(nHead) + " heads; the model has " + std::to_string(config.layers)
                     + " x " + std::to_string(config.heads) + "."};
    for (std::size_t i = 0; i < values.size(); ++i)
        if (Status s = validateCustomDivisor(values[i]); !s)
            return Error{"Layer " + std::to_string(i / std::size_t(config.heads)) + ", head "
                         + std::to_string(i % std::size_t(config.heads)) + ": " + s.error().message};
    return okStatus();
}

std::vector<TopToken> topTokens(const RowVector& logits, int k, double temperature)
{
    const Eigen::Index v = logits.size();
    k = int(std::clamp<Eigen::Index>(k, 0, v));
    std::vector<int> ids(static_cast<std::size_t>(v));
    std::iota(ids.begin(), ids.end(), 0);
    std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&](int a, int b) {
        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
    });
    const double top = v ? logits.maxCoeff() / temperature : 0.0;
    double sum = 0.0;
    for (Eigen::Index j = 0; j < v; ++j)
        sum += std::exp(logits[j] / temperature - top);
    std::vector<TopToken> out;
    out.reserve(std::size_t(k));
    for (int i = 0; i < k; ++i) {
        const int id = ids[std::size_t(i)];
        out.push_back({id, logits[id], std::exp(logits[id] / temperature - top) / sum});
    }
    return out;
}

Expected<DecoderResult> runDecoderPass(const DecoderConfig& c, DecoderSteps& steps,
                                       const std::vector<int>& tokenIds, const DecoderRunOptions& options)
{
    DecoderResult r;
    if (Status s = checkRunInputs(c, tokenIds, options, &r.divisors); !s)
        return s.error();
    r.tokenIds = tokenIds;
    r.temperature = options.temperature;
    r.mask = options.mask ? *options.mask : c.ownMask();
    r.qkNormSkipped = options.skipQkNorm;
    steps.setSkipQkNorm(options.skipQkNorm);
    const int n = int(tokenIds.size());
    const int hd = c.headDim;
    const int threads = std::max(options.threads, 1);

    Matrix h = steps.embed(tokenIds);
    if (options.keepHidden)
        r.embedded = h;
    r.layers.resize(std::size_t(c.layers));
    std::vector<AttentionResult> scratch(options.keepMaps ? 0 : std::size_t(c.heads));
    std::vector<Status> headStatus(std::size_t(c.heads), okStatus());
    Matrix contexts(n, c.contextWidth());
    for (int l = 0; l < c.layers; ++l) {
        if (isCancelled(options))
            return cancelled();
        DecoderLayer& layer = r.layers[std::size_t(l)];
        layer.attentionInput = steps.beginLayer(l, h);
        std::vector<AttentionResult>& heads = options.keepMaps ? layer.heads : scratch;
        heads.resize(std::size_t(c.heads));
        forEachIndex(c.heads, threads, [&](int i) {
            if (isCancelled(options))
                return;  // the check after the heads ends the pass
            AttentionResult& head = heads[std::size_t(i)];
            steps.headInputs(l, i, &head);
            headStatus[std::size_t(i)] = attendDecoderHead(r.mask, r.divisors.at(l, i), &head);
            if (headStatus[std::size_t(i)])
                contexts.middleCols(Eigen::Index(i) * hd, hd) = head.context;
        });
        if (isCancelled(options))
            return cancelled();
        for (int i = 0; i < c.heads; ++i)
            if (!headStatus[std::size_t(i)])
                return Error{"Layer " + std::to_string(l) + ", head " + std::to_string(i) + ": "
                             + headStatus[std::size_t(i)].error().message
                             + " The checkpoint holds values too large or not numbers."};
        if (options.headOutput)
            for (int i = 0; i < c.heads; ++i)
                options.headOutput(l, i, contexts.middleCols(Eigen::Index(i) * hd, hd));
        steps.endLayer(l, contexts, &h);
        if (options.keepHidden)
            layer.hidden = h;
    }
    r.finalHidden = steps.finalNorm(h);
    if (!r.finalHidden.allFinite())
        return Error{
            "The final hidden states are not finite (the checkpoint holds values too large or not "
            "numbers)."};

    if (isCancelled(options))
        return cancelled();
    Matrix logits = steps.unembed(options.allLogits ? r.finalHidden : Matrix(r.finalHidden.bottomRows(1)));
    r.lastLogits = logits.bottomRows(1);
    if (!r.lastLogits.allFinite())
        return Error{"The logits are not finite (the checkpoint holds values too large or not numbers)."};
    if (options.allLogits)
        r.logits = std::move(logits);
    r.top = topTokens(r.lastLogits, options.topK, options.temperature);
    return r;
}

Expected<AttentionResult> recomputeHead(const DecoderConfig& c, const DecoderSteps& steps,
                                        const DecoderResult& result, int layer, int head)
{
    if (layer < 0 || layer >= c.layers || layer >= int(result.layers.size()))
        return Error{"Layer " + std::to_string(layer) + " does not exist; the model has layers 0 to "
                     + std::to_string(c.layers - 1) + "."};
    if (head < 0 || head >= c.heads)
        return Error{"Head " + std::to_string(head) + " does not exist; each layer has heads 0 to "
                     + std::to_string(c.heads - 1) + "."};
    const Matrix& input = result.layers[std::size_t(layer)].attentionInput;
    if (input.cols() != c.width || input.rows() != result.tokens() || result.divisors.nLayer != c.layers
        || result.divisors.nHead != c.heads)
        return Error{"The result is not one of this model's passes."};
    AttentionResult r;
    steps.headInputsFrom(layer, head, input, &r);
    // A result made without a pass (no mask set) had the model's own.
    const AttentionMask mask = result.mask.kind == AttentionMask::Kind::None ? c.ownMask() : result.mask;
    if (Status s = attendDecoderHead(mask, result.divisors.at(layer, head), &r); !s)
        return s.error();
    return r;
}

Expected<DecoderResult> DecoderModel::run(const std::vector<int>& tokenIds,
                                          const DecoderRunOptions& options) const
{
    const std::unique_ptr<DecoderSteps> s = steps(std::max(options.threads, 1));
    return runDecoderPass(config(), *s, tokenIds, options);
}

Expected<AttentionResult> DecoderModel::head(const DecoderResult& result, int layer, int head) const
{
    const std::unique_ptr<DecoderSteps> s = steps(1);
    s->setSkipQkNorm(result.qkNormSkipped);
    return recomputeHead(config(), *s, result, layer, head);
}

Expected<Matrix> DecoderModel::readOut(const Matrix& hidden, int threads) const
{
    const DecoderConfig& c = config();
    if (hidden.rows() < 1 || hidden.cols() != c.width)
        return Error{"The residual stream to read out is " + std::to_string(hidden.rows()) + " x "
                     + std::to_string(hidden.cols()) + "; the model's is n x " + std::to_string(c.width)
                     + " with n at least 1."};
    const std::unique_ptr<DecoderSteps> s = steps(std::max(threads, 1));
    Matrix logits = s->unembed(s->finalNorm(hidden));
    if (!logits.allFinite())
        return Error{"The logits are not finite (the checkpoint holds values too large or not numbers)."};
    return logits;
}

HeadOutputHook ablationHook(std::vector<HeadIndex> heads, HeadAblation kind)
{
    return [heads = std::move(heads), kind](int layer, int head, Eigen::Ref<Matrix> context) {
        const bool chosen = std::any_of(heads.begin(), heads.end(), [&](const HeadIndex& at) {
            return at.layer == layer && at.head == head;
        });
        if (!chosen)
            return;
        if (kind == HeadAblation::Zero) {
            context.setZero();
            return;
        }
        const RowVector mean = context.colwise().mean();
        for (Eigen::Index i = 0; i < context.rows(); ++i)
            context.row(i) = mean;
    };
}

Status checkAblatedHeads(const DecoderConfig& c, const std::vector<HeadIndex>& heads)
{
    for (const HeadIndex& h : heads)
        if (h.layer < 0 || h.layer >= c.layers || h.head < 0 || h.head >= c.heads)
            return Error{"Layer " + std::to_string(h.layer) + ", head " + std::to_string(h.head)
                         + " is not a head of this model (layers 0 to " + std::to_string(c.layers - 1)
                         + ", heads 0 to " + std::to_string(c.heads - 1) + ")."};
    return okStatus();
}

}  // namespace attn
