// SPDX-License-Identifier: GPL-3.0-or-later
#include "multihead_init.h"

#include "torch_random.h"

#include <cmath>

namespace attn {
namespace {

// Slice i of a (h, rows, cols) float tensor laid out row-major, transposed:
// (cols, rows), the engine's (d_model, d_out) from torch's (d_out, d_model).
Matrix sliceTransposed(const std::vector<float>& values, int i, int rows, int cols)
{
    Matrix m(cols, rows);
    const std::size_t base = std::size_t(i) * std::size_t(rows) * std::size_t(cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            m(c, r) = values[base + std::size_t(r) * std::size_t(cols) + std::size_t(c)];
    return m;
}

// The generator just after the single head's W_query, W_key, W_value.
TorchGenerator afterSingleHead(const ModelConfig& c)
{
    TorchGenerator gen(c.seed);
    gen.rand(std::size_t(c.dK) * std::size_t(c.dModel));
    gen.rand(std::size_t(c.dK) * std::size_t(c.dModel));
    gen.rand(std::size_t(c.dV) * std::size_t(c.dModel));
    return gen;
}

struct ArticleHeadDraws {
    std::vector<float> queries, keys, values;
};

ArticleHeadDraws drawArticleHeads(TorchGenerator& gen, const ModelConfig& c, int heads)
{
    const std::size_t h = std::size_t(heads), d = std::size_t(c.dModel);
    ArticleHeadDraws draws;
    draws.queries = gen.rand(h * std::size_t(c.dK) * d);
    draws.keys = gen.rand(h * std::size_t(c.dK) * d);
    draws.values = gen.rand(h * std::size_t(c.dV) * d);
    return draws;
}

Matrix toMatrix(const std::vector<float>& values, int rows, int cols)
{
    Matrix m(rows, cols);
    for (std::size_t i = 0; i < values.size(); ++i)
        m.data()[i] = values[i];
    return m;
}

RowVector toRow(const std::vector<float>& values)
{
    RowVector v(Eigen::Index(values.size()));
    for (std::size_t i = 0; i < values.size(); ++i)
        v[Eigen::Index(i)] = values[i];
    return v;
}

}  // namespace

std::vector<HeadWeights> drawIndependentHeads(const ModelConfig& c, int heads)
{
    std::vector<HeadWeights> out(std::size_t(std::max(heads, 0)));
    if (heads < 1)
        return out;
    if (c.init == InitMode::Article && heads > 1) {
        TorchGenerator gen = afterSingleHead(c);
        const ArticleHeadDraws draws = drawArticleHeads(gen, c, heads);
        for (int i = 0; i < heads; ++i) {
            HeadWeights& w = out[std::size_t(i)];
            w.Wq = sliceTransposed(draws.queries, i, c.dK, c.dModel);
            w.Wk = sliceTransposed(draws.keys, i, c.dK, c.dModel);
            w.Wv = sliceTransposed(draws.values, i, c.dV, c.dModel);
        }
        return out;
    }
    for (int i = 0; i < heads; ++i)
        out[std::size_t(i)] = drawIndependentHead(c, i);
    return out;
}

HeadWeights drawIndependentHead(const ModelConfig& c, int i)
{
    if (i == 0 || c.init == InitMode::Article) {
        Weights single = drawWeights(c);
        return HeadWeights{std::move(single.Wq), std::move(single.Wk), std::move(single.Wv)};
    }
    const int stream = 3 * (i + 1) - 2;
    return HeadWeights{drawStableWeight(c, stream, c.dK), drawStableWeight(c, stream + 1, c.dK),
                       drawStableWeight(c, stream + 2, c.dV)};
}

Matrix drawOutputProjection(const ModelConfig& c, int heads)
{
    const int in = heads * c.dV;
    if (c.init == InitMode::Article) {
        TorchGenerator gen = afterSingleHead(c);
        if (heads > 1)
            drawArticleHeads(gen, c, heads);
        return sliceTransposed(gen.rand(std::size_t(c.dModel) * std::size_t(in)), 0, c.dModel, in);
    }
    // A (d_model, h d_v) draw of stream 250 would scale by 1/sqrt(d_model);
    // W_o's input is h d_v wide, so its unit-variance scale is 1/sqrt(h d_v).
    ModelConfig wide = c;
    wide.dModel = in;
    wide.init = InitMode::StandardNormal;
    Matrix w = drawStableWeight(wide, 250, c.dModel);
    if (c.init == InitMode::UnitVariance)
        w /= std::sqrt(double(in));
    return w;
}

SplitHeads drawTorchMha(std::uint64_t seed, int embedDim, int heads, bool biased)
{
    const std::size_t e = std::size_t(embedDim);
    TorchGenerator gen(seed);
    // nn.init's bounds, in Python's double arithmetic, then uniform_ rounds
    // them to float. kaiming_uniform_(a = sqrt(5)): gain = sqrt(2 / (1 + a^2)),
    // std = gain / sqrt(fan_in), bound = sqrt(3) std.
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1 + std::pow(a, 2.0)));
    const double kaiming = std::sqrt(3.0) * (gain / std::sqrt(double(embedDim)));
    const std::vector<float> outWeight = gen.uniform(e * e, -kaiming, kaiming);
    // nn.Linear's bias: bound = 1 / sqrt(fan_in); drawn, then MHA zeroes it.
    const double biasBound = 1 / std::sqrt(double(embedDim));
    gen.uniform(e, -biasBound, biasBound);
    // xavier_uniform_ over (3E, E): std = sqrt(2 / (fan_in + fan_out)), a = sqrt(3) std.
    const double xavier = std::sqrt(3.0) * (1.0 * std::sqrt(2.0 / double(embedDim + 3 * embedDim)));
    const std::vector<float> inWeight = gen.uniform(3 * e * e, -xavier, xavier);

    SplitHeads p;
    p.heads = heads;
    p.inProjWeight = toMatrix(inWeight, 3 * embedDim, embedDim);
    p.outProjWeight = toMatrix(outWeight, embedDim, embedDim);
    p.inProjBias = RowVector::Zero(3 * embedDim);
    p.outProjBias = RowVector::Zero(embedDim);
    if (biased) {
        p.inProjBias = toRow(gen.uniform(3 * e, -1.0, 1.0));
        p.outProjBias = toRow(gen.uniform(e, -1.0, 1.0));
    }
    return p;
}

SplitHeads packSplitHeads(const std::vector<HeadWeights>& heads)
{
    SplitHeads p;
    p.heads = int(heads.size());
    if (heads.empty())
        return p;
    const int e = int(heads.front().Wq.rows()), hd = int(heads.front().Wq.cols());
    p.inProjWeight.resize(3 * e, e);
    for (int i = 0; i < p.heads; ++i) {
        const HeadWeights& w = heads[std::size_t(i)];
        p.inProjWeight.middleRows(i * hd, hd) = w.Wq.transpose();
        p.inProjWeight.middleRows(e + i * hd, hd) = w.Wk.transpose();
        p.inProjWeight.middleRows(2 * e + i * hd, hd) = w.Wv.transpose();
    }
    p.inProjBias = RowVector::Zero(3 * e);
    p.outProjWeight = Matrix::Identity(e, e);
    p.outProjBias = RowVector::Zero(e);
    return p;
}

}  // namespace attn
