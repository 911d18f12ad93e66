// SPDX-License-Identifier: GPL-3.0-or-later
#include "multihead.h"

#include "kernels.h"
#include "parallel.h"
#include "size_limits.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <thread>
#include <utility>

namespace attn {
namespace {

std::string shapeText(Eigen::Index rows, Eigen::Index cols)
{
    return "(" + std::to_string(rows) + " x " + std::to_string(cols) + ")";
}

Status checkScoreMemory(int heads, Eigen::Index n)
{
    if (double(heads) * double(n) * double(n) > double(kMaxHeadScoreEntries))
        return Error{std::to_string(heads) + " heads of " + std::to_string(n) + " x " + std::to_string(n)
                     + " score maps exceed the " + std::to_string(kMaxHeadScoreEntries)
                     + " entries (1 GiB) the heads may keep; use fewer heads or tokens."};
    return okStatus();
}

template <typename M>
Status checkFinite(const char* name, const Eigen::MatrixBase<M>& m)
{
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            if (!std::isfinite(m(i, j)) || std::abs(m(i, j)) > kMaxInputMagnitude)
                return Error{std::string(name) + ", row " + std::to_string(i + 1) + ", column "
                             + std::to_string(j + 1) + ": entries must be finite and within +/-1e+30."};
    return okStatus();
}

// Starts the result for h heads over n tokens.
void prepare(MultiHeadResult* r, HeadLayout layout, int heads, Eigen::Index n, Eigen::Index dV)
{
    r->layout = layout;
    r->heads.resize(std::size_t(heads));
    r->stats.resize(std::size_t(heads));
    r->weightsAverage.setZero(n, n);
    r->concat.resize(n, heads * dV);
}

// X Wt^T as projectTransposedInto gives it, its 256-row panels shared out
// among `threads` (each panel's numbers do not depend on the others').
// Without the kernels Eigen's product blocks by size, so it runs whole.
void projectTransposedRows(const Matrix& X, const Matrix& Wt, Matrix* out, int threads)
{
    constexpr Eigen::Index kPanel = 256;  // projectTransposedInto's own panel
    const Eigen::Index panels = (X.rows() + kPanel - 1) / kPanel;
    const int helpers = int(std::min<Eigen::Index>(std::max(threads, 1), panels)) - 1;
    if (helpers == 0 || !kernels::available()) {
        projectTransposedInto(X, Wt, out);
        return;
    }
    out->resize(X.rows(), Wt.rows());
    const Eigen::Index perThread = (panels + helpers) / (helpers + 1) * kPanel;
    auto work = [&](int t) {
        const Eigen::Index first = t * perThread;
        const Eigen::Index rows = std::min(perThread, X.rows() - first);
        if (rows <= 0)
            return;
        Matrix part;
        projectTransposedInto(X.middleRows(first, rows), Wt, &part);
        out->middleRows(first, rows) = part;
    };
    std::vector<std::thread> pool;
    for (int t = 1; t <= helpers; ++t)
        pool.emplace_back(work, t);
    work(0);
    for (std::thread& t : pool)
        t.join();
}

// The average of the heads' weights summed again, in head order per row as
// attendHead sums it, from each head's weightsRow (the softmax's numbers).
void sumAverage(MultiHeadResult* r, int threads)
{
    const Eigen::Index n = r->weightsAverage.rows();
    const int h = r->headCount();
    auto work = [r, n, h](Eigen::Index first, Eigen::Index last) {
        RowVector row(n);
        for (Eigen::Index q = first; q < last; ++q) {
            auto average = r->weightsAverage.row(q);
            average.setZero();
            for (int j = 0; j < h; ++j) {
                r->heads[std::size_t(j)].weightsRow(int(q), row.data());
                average += row;
            }
            average /= double(h);
        }
    };
    const int t = int(std::clamp<Eigen::Index>(threads, 1, n));
    std::vector<std::thread> pool;
    for (int k = 1; k < t; ++k)
        pool.emplace_back(work, n * k / t, n * (k + 1) / t);
    work(0, n / t);
    for (std::thread& p : pool)
        p.join();
}

// One head's pass from its projections (already in result->heads[i]):
// statistics as the single head takes them, its weights added into the
// average while the engine has each row, its context into the concat.
Status attendHead(int i, const AttentionOptions& options, MultiHeadResult* r, int threads,
                  const std::atomic<bool>* cancel, bool average = true)
{
    AttentionResult& head = r->heads[std::size_t(i)];
    const Eigen::Index n = head.Q.rows();
    // Rows are distinct within a pass and the heads run one after another,
    // so each average row is summed in head order whatever the threads.
    WeightRowVisitor addToAverage;
    if (average)
        addToAverage = [r, n](int query, const WeightRow& row) {
            r->weightsAverage.row(query) += Eigen::Map<const RowVector>(row.weights, n);
        };
    const Status status = runWithStatistics(
        [&](const WeightRowVisitor& visit) {
            return computeAttentionFromProjections(options, &head, visit, threads, cancel);
        },
        int(n), head, &r->stats[std::size_t(i)], addToAverage);
    if (!status)
        return status;
    r->concat.middleCols(i * head.V.cols(), head.V.cols()) = head.context;
    return okStatus();
}

}  // namespace

const char* headLayoutName(HeadLayout layout)
{
    return layout == HeadLayout::Split ? "split" : "independent";
}

bool parseHeadLayout(std::string_view name, HeadLayout* layout)
{
    if (name == "independent")
        *layout = HeadLayout::Independent;
    else if (name == "split")
        *layout = HeadLayout::Split;
    else
        return false;
    return true;
}

HeadWeights SplitHeads::head(int i) const
{
    const int e = embedDim(), hd = headDim();
    HeadWeights w;
    w.Wq = inProjWeight.middleRows(i * hd, hd).transpose();
    w.Wk = inProjWeight.middleRows(e + i * hd, hd).transpose();
    w.Wv = inProjWeight.middleRows(2 * e + i * hd, hd).transpose();
    return w;
}

MultiHeadResult copyMultiHeadResult(const MultiHeadResult& base, int threads)
{
    MultiHeadResult r;
    r.layout = base.layout;
    r.stats = base.stats;
    r.heads.resize(base.heads.size());
    const std::size_t h = base.heads.size();
    Matrix* const to[] = {&r.weightsAverage, &r.concat, &r.output, &r.inProjection};
    const Matrix* const from[] = {&base.weightsAverage, &base.concat, &base.output, &base.inProjection};
    shareRanges(h + std::size(to), 1, 1, threads, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
            if (i < h)
                r.heads[i] = base.heads[i];
            else
                *to[i - h] = *from[i - h];
        }
    });
    return r;
}

Status validateHeadCount(int heads)
{
    if (heads < 1 || heads > kMaxHeads)
        return Error{"The number of heads must be between 1 and " + std::to_string(kMaxHeads) + "; got "
                     + std::to_string(heads) + "."};
    return okStatus();
}

Status validateSplitHeads(int embedDim, int heads)
{
    if (Status s = validateHeadCount(heads); !s)
        return s;
    static_assert(3LL * 1024 * 1024 == kMaxHeadWeightEntries);
    if (3LL * embedDim * embedDim > kMaxHeadWeightEntries)
        return Error{"In the split layout in_proj_weight (3E x E) may hold at most "
                     + std::to_string(kMaxHeadWeightEntries)
                     + " entries, so E (d_model) is at most 1024; got " + std::to_string(embedDim) + "."};
    if (embedDim % heads != 0)
        return Error{"In the split layout h must divide d_model (embed_dim E); " + std::to_string(heads)
                     + " heads do not divide E = " + std::to_string(embedDim) + "."};
    return okStatus();
}

Status validateSplitParameters(const Matrix& X, const SplitHeads& p)
{
    const Eigen::Index e = X.cols();
    if (e < 1 || e > kMaxDModel)
        return Error{"X has " + std::to_string(e) + " columns (embed_dim E); between 1 and "
                     + std::to_string(kMaxDModel) + " are allowed."};
    if (Status s = validateEmbeddingEntries(X.rows(), e); !s)
        return s;
    if (Status s = validateSplitHeads(int(e), p.heads); !s)
        return s;
    const auto bad = [e](const char* key, Eigen::Index rows, Eigen::Index cols, const std::string& want) {
        return Error{std::string(key) + " has shape " + shapeText(rows, cols) + " but " + want
                     + " was expected (E = " + std::to_string(e) + ")."};
    };
    if (p.inProjWeight.rows() != 3 * e || p.inProjWeight.cols() != e)
        return bad("in_proj_weight", p.inProjWeight.rows(), p.inProjWeight.cols(),
                   shapeText(3 * e, e) + " = (3E x E)");
    if (p.inProjBias.size() != 3 * e)
        return bad("in_proj_bias", 1, p.inProjBias.size(), "(" + std::to_string(3 * e) + ") = (3E)");
    if (p.outProjWeight.rows() != e || p.outProjWeight.cols() != e)
        return bad("out_proj.weight", p.outProjWeight.rows(), p.outProjWeight.cols(),
                   shapeText(e, e) + " = (E x E)");
    if (p.outProjBias.size() != e)
        return bad("out_proj.bias", 1, p.outProjBias.size(), "(" + std::to_string(e) + ") = (E)");
    for (const auto& [key, m] : {std::pair<const char*, const Matrix*>{"in_proj_weight", &p.inProjWeight},
                                 {"out_proj.weight", &p.outProjWeight}})
        if (Status s = checkFinite(key, *m); !s)
            return s;
    if (Status s = checkFinite("in_proj_bias", p.inProjBias); !s)
        return s;
    return checkFinite("out_proj.bias", p.outProjBias);
}

Status computeMultiHeadInto(const Matrix& X, const IndependentHeads& p, const AttentionOptions& options,
                            MultiHeadResult* r, int threads, const std::atomic<bool>* cancel)
{
    const int h = int(p.heads.size());
    if (Status s = validateHeadCount(h); !s)
        return s;
    if (Status s = checkScoreMemory(h, X.rows()); !s)
        return s;
    const HeadWeights& first = p.heads.front();
    for (int i = 0; i < h; ++i) {
        const HeadWeights& w = p.heads[std::size_t(i)];
        if (Status s = validateInputs(X, w.Wq, w.Wk, w.Wv); !s)
            return Error{"Head " + std::to_string(i + 1) + ": " + s.error().message};
        if (w.Wq.cols() != first.Wq.cols() || w.Wv.cols() != first.Wv.cols())
            return Error{"Head " + std::to_string(i + 1) + " has d_k = " + std::to_string(w.Wq.cols())
                         + " and d_v = " + std::to_string(w.Wv.cols())
                         + "; every head must have head 1's d_k = " + std::to_string(first.Wq.cols())
                         + " and d_v = " + std::to_string(first.Wv.cols()) + "."};
    }
    const Eigen::Index dV = first.Wv.cols();
    if (p.Wo.size() > 0) {
        if (p.Wo.rows() != h * dV || p.Wo.cols() < 1 || p.Wo.cols() > kMaxDModel)
            return Error{"W_o is " + shapeText(p.Wo.rows(), p.Wo.cols())
                         + " but must have h d_v = " + std::to_string(h * dV) + " rows (and 1 to "
                         + std::to_string(kMaxDModel) + " columns) to multiply the concatenated heads."};
        if (Status s = checkFinite("W_o", p.Wo); !s)
            return s;
    }
    prepare(r, HeadLayout::Independent, h, X.rows(), dV);
    for (int i = 0; i < h; ++i) {
        const HeadWeights& w = p.heads[std::size_t(i)];
        AttentionResult& head = r->heads[std::size_t(i)];
        projectInto(X, w.Wq, &head.Q);
        projectInto(X, w.Wk, &head.K);
        projectInto(X, w.Wv, &head.V);
        if (Status s = attendHead(i, options, r, threads, cancel); !s)
            return s;
    }
    r->weightsAverage /= double(h);
    if (p.Wo.size() > 0)
        projectInto(r->concat, p.Wo, &r->output);
    else
        r->output.resize(0, 0);
    return okStatus();
}

Status computeMultiHeadInto(const Matrix& X, const SplitHeads& p, const AttentionOptions& options,
                            MultiHeadResult* r, int threads, const std::atomic<bool>* cancel)
{
    if (X.rows() < 1 || X.rows() > kMaxTokens)
        return Error{"X has " + std::to_string(X.rows()) + " rows (tokens); between 1 and "
                     + std::to_string(kMaxTokens) + " are allowed."};
    if (Status s = checkFinite("X", X); !s)
        return s;
    if (Status s = validateSplitParameters(X, p); !s)
        return s;
    const int h = p.heads;
    if (Status s = checkScoreMemory(h, X.rows()); !s)
        return s;
    const Eigen::Index n = X.rows(), e = X.cols(), hd = p.headDim();
    // [q | k | v] = X in_proj_weight^T + in_proj_bias (n, 3E) once; each
    // head's Q, K and V are column blocks of it.
    Matrix& packed = r->inProjection;
    projectTransposedRows(X, p.inProjWeight, &packed, threads);
    packed.rowwise() += p.inProjBias;
    prepare(r, HeadLayout::Split, h, n, hd);
    for (int i = 0; i < h; ++i) {
        AttentionResult& head = r->heads[std::size_t(i)];
        head.Q = packed.middleCols(i * hd, hd);
        head.K = packed.middleCols(e + i * hd, hd);
        head.V = packed.middleCols(2 * e + i * hd, hd);
        if (Status s = attendHead(i, options, r, threads, cancel); !s)
            return s;
    }
    r->weightsAverage /= double(h);
    projectTransposedRows(r->concat, p.outProjWeight, &r->output, threads);
    r->output.rowwise() += p.outProjBias;
    return okStatus();
}

namespace {

// Whether recomputeHeadsInto can keep the other heads: the kernels (see
// projectTransposedRows), a result of the same shape, valid head indices.
bool canUpdate(const MultiHeadResult& r, int h, Eigen::Index n, const std::vector<int>& heads)
{
    if (!kernels::available() || r.headCount() != h || r.weightsAverage.rows() != n)
        return false;
    for (int i : heads)
        if (i < 0 || i >= h || r.heads[std::size_t(i)].Q.rows() != n)
            return false;
    return true;
}

}  // namespace

Status recomputeHeadsInto(const Matrix& X, const IndependentHeads& p, const std::vector<int>& heads,
                          const AttentionOptions& options, MultiHeadResult* r, int threads,
                          const std::atomic<bool>* cancel, unsigned parts)
{
    if ((parts & kHeadAllParts) == 0)
        parts = kHeadAllParts;
    const int h = int(p.heads.size());
    if (!canUpdate(*r, h, X.rows(), heads) || r->layout != HeadLayout::Independent)
        return computeMultiHeadInto(X, p, options, r, threads, cancel);
    for (int i : heads) {
        const HeadWeights& w = p.heads[std::size_t(i)];
        if (Status s = validateInputs(X, w.Wq, w.Wk, w.Wv); !s)
            return Error{"Head " + std::to_string(i + 1) + ": " + s.error().message};
        AttentionResult& head = r->heads[std::size_t(i)];
        if (w.Wq.cols() != head.Q.cols() || w.Wv.cols() != head.V.cols())
            return computeMultiHeadInto(X, p, options, r, threads, cancel);
        if (parts & kHeadQuery)
            projectInto(X, w.Wq, &head.Q);
        if (parts & kHeadKey)
            projectInto(X, w.Wk, &head.K);
        if (parts & kHeadValue)
            projectInto(X, w.Wv, &head.V);
        if (Status s = attendHead(i, options, r, threads, cancel, false); !s)
            return s;
    }
    if (parts & (kHeadQuery | kHeadKey))
        sumAverage(r, threads);
    if (p.Wo.size() > 0)
        projectInto(r->concat, p.Wo, &r->output);
    return okStatus();
}

Status recomputeHeadsInto(const Matrix& X, const SplitHeads& p, const std::vector<int>& heads,
                          const AttentionOptions& options, MultiHeadResult* r, int threads,
                          const std::atomic<bool>* cancel, unsigned parts)
{
    if ((parts & kHeadAllParts) == 0)
        parts = kHeadAllParts;
    if (!canUpdate(*r, p.heads, X.rows(), heads) || r->layout != HeadLayout::Split
        || r->inProjection.cols() != p.inProjWeight.rows())
        return computeMultiHeadInto(X, p, options, r, threads, cancel);
    if (Status s = validateSplitParameters(X, p); !s)
        return s;
    const Eigen::Index e = X.cols(), hd = p.headDim();
    Matrix& packed = r->inProjection;
    for (int i : heads) {
        // Its three column blocks of [q | k | v], as the whole product has them.
        for (Eigen::Index b = 0; b < 3; ++b) {
            if ((parts & (1u << b)) == 0)
                continue;  // kept from *result: the same X and rows of in_proj
            const Eigen::Index first = b * e + i * hd;
            Matrix block;
            projectTransposedRows(X, p.inProjWeight.middleRows(first, hd), &block, threads);
            block.rowwise() += p.inProjBias.segment(first, hd);
            packed.middleCols(first, hd) = block;
        }
        AttentionResult& head = r->heads[std::size_t(i)];
        if (parts & kHeadQuery)
            head.Q = packed.middleCols(i * hd, hd);
        if (parts & kHeadKey)
            head.K = packed.middleCols(e + i * hd, hd);
        if (parts & kHeadValue)
            head.V = packed.middleCols(2 * e + i * hd, hd);
        if (Status s = attendHead(i, options, r, threads, cancel, false); !s)
            return s;
    }
    if (parts & (kHeadQuery | kHeadKey))
        sumAverage(r, threads);
    projectTransposedRows(r->concat, p.outProjWeight, &r->output, threads);
    r->output.rowwise() += p.outProjBias;
    return okStatus();
}

bool headAloneExact(HeadLayout layout)
{
    return layout == HeadLayout::Independent || kernels::available();
}

RowVector splitHeadBias(const SplitHeads& p, int i)
{
    const Eigen::Index e = p.embedDim(), hd = p.headDim();
    RowVector b(3 * hd);
    for (Eigen::Index block = 0; block < 3; ++block)
        b.segment(block * hd, hd) = p.inProjBias.segment(block * e + i * hd, hd);
    return b;
}

Status computeHeadAlone(const Matrix& X, HeadLayout layout, const HeadWeights& w, const RowVector* inBias,
                        const AttentionOptions& options, AttentionResult* head, AttentionStats* stats,
                        int threads, const std::atomic<bool>* cancel)
{
    if (Status s = validateInputs(X, w.Wq, w.Wk, w.Wv); !s)
        return s;
    if (layout == HeadLayout::Split) {
        const Eigen::Index hd = w.Wq.cols();
        if (w.Wk.cols() != hd || w.Wv.cols() != hd || !inBias || inBias->size() != 3 * hd)
            return Error{"A split head needs W_q, W_k and W_v of one width and 3 x head_dim bias entries."};
        // As the packed product's column blocks: X (rows of in_proj_weight)^T + bias.
        const Matrix* weights[3] = {&w.Wq, &w.Wk, &w.Wv};
        Matrix* outs[3] = {&head->Q, &head->K, &head->V};
        for (int b = 0; b < 3; ++b) {
            projectTransposedRows(X, weights[b]->transpose(), outs[b], threads);
            outs[b]->rowwise() += inBias->segment(b * hd, hd);
        }
    } else {
        projectInto(X, w.Wq, &head->Q);
        projectInto(X, w.Wk, &head->K);
        projectInto(X, w.Wv, &head->V);
    }
    return runWithStatistics(
        [&](const WeightRowVisitor& visit) {
            return computeAttentionFromProjections(options, head, visit, threads, cancel);
        },
        int(X.rows()), *head, stats);
}

Expected<MultiHeadResult> computeMultiHead(const Matrix& X, const IndependentHeads& params,
                                           const AttentionOptions& options)
{
    MultiHeadResult result;
    if (Status s = computeMultiHeadInto(X, params, options, &result); !s)
        return s.error();
    return result;
}

Expected<MultiHeadResult> computeMultiHead(const Matrix& X, const SplitHeads& params,
                                           const AttentionOptions& options)
{
    MultiHeadResult result;
    if (Status s = computeMultiHeadInto(X, params, options, &result); !s)
        return s.error();
    return result;
}

}  // namespace attn
