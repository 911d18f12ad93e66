// SPDX-License-Identifier: GPL-3.0-or-later
#include "model.h"

#include "attention.h"
#include "parallel.h"
#include "size_limits.h"
#include "torch_random.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace attn {
namespace {

// splitmix64 finaliser: decorrelates the derived seeds of the stable modes.
std::uint64_t mix(std::uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

std::uint64_t fnv1a(const std::string& text)
{
    std::uint64_t h = 0xCBF29CE484222325ULL;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001B3ULL;
    }
    return h;
}

// body(first, last) over [0, count) items of `perItem` numbers each, shared
// among up to four threads from 8,192 numbers a thread (about 0.1 ms of
// normals). Each item is drawn from its own generator, so the numbers do
// not depend on the threads.
template <typename Body>
void shareDraws(int count, int perItem, const Body& body)
{
    constexpr std::size_t kMinDraws = 1 << 13;
    shareRanges(std::size_t(std::max(count, 0)), std::size_t(std::max(perItem, 0)), kMinDraws, 4,
                [&body](std::size_t first, std::size_t last) { body(int(first), int(last)); });
}

// Column j of a (d_model, width) weight matrix of the stable modes, drawn
// from its own stream so that it does not depend on the width.
void drawStableColumns(std::uint64_t seed, std::uint64_t which, int dModel, double scale, int firstColumn,
                       Matrix* w)
{
    shareDraws(int(w->cols()) - firstColumn, dModel, [&](int from, int to) {
        for (int j = firstColumn + from; j < firstColumn + to; ++j) {
            TorchGenerator gen(mix(mix(seed ^ (which << 56)) + std::uint64_t(j)));
            const std::vector<float> column = gen.normal(std::size_t(dModel));
            for (int i = 0; i < dModel; ++i)
                (*w)(i, j) = double(column[std::size_t(i)]) * scale;
        }
    });
}

// Seeding a generator per column or token costs more than drawing from it.
// A d_k or d_v slider step redraws the same columns again (and a sentence
// edit the same tokens), and a seed stepped back and forth (comparing two
// draws) redraws the same seeds, so the widest draw of every stream and the
// rows per token are kept for the last few seeds, d_model and scale, within
// a memory budget, and only what is new is drawn. The numbers are those of a
// fresh draw either way.
class DrawCache {
public:
    Matrix stableWeights(std::uint64_t seed, std::uint64_t which, int dModel, int width, double scale)
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        ++clock_;
        auto it = std::find_if(weights_.begin(), weights_.end(), [&](const Entry& e) {
            return e.seed == seed && e.which == which && e.dModel == dModel && e.scale == scale;
        });
        if (it == weights_.end()) {
            weights_.push_back(Entry{seed, which, dModel, scale, Matrix(dModel, 0), 0});
            it = weights_.end() - 1;
        }
        it->used = clock_;
        if (it->columns.cols() < width) {
            const int have = int(it->columns.cols());
            Matrix wider(dModel, width);
            wider.leftCols(have) = it->columns;
            drawStableColumns(seed, which, dModel, scale, have, &wider);
            it->columns = std::move(wider);
        }
        Matrix out = it->columns.leftCols(width);
        evictLeastRecent(&weights_, weights_.size(),
                         [](const Entry& e) { return std::size_t(e.columns.size()) * sizeof(double); });
        return out;
    }

    // X's rows for `tokens` (unit normal entries from each token's stream),
    // the tokens not yet drawn drawn at once.
    void tokenRows(std::uint64_t seed, int dModel, const std::vector<std::string>& tokens, Matrix* x)
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        ++clock_;
        auto set = std::find_if(rowSets_.begin(), rowSets_.end(),
                                [&](const RowSet& r) { return r.seed == seed && r.dModel == dModel; });
        if (set == rowSets_.end()) {
            rowSets_.push_back(RowSet{seed, dModel, {}, 0});
            set = rowSets_.end() - 1;
        }
        set->used = clock_;
        auto& rows = set->rows;
        if (rows.size() > kMaxCachedTokens)
            rows.clear();
        std::vector<const std::string*> missing;
        std::unordered_set<std::string_view> asked;
        for (const std::string& token : tokens)
            if (rows.find(token) == rows.end() && asked.insert(token).second)
                missing.push_back(&token);
        std::vector<std::vector<float>> drawn(missing.size());
        shareDraws(int(missing.size()), dModel, [&](int from, int to) {
            for (int k = from; k < to; ++k) {
                TorchGenerator gen(mix(seed ^ fnv1a(*missing[std::size_t(k)])));
                drawn[std::size_t(k)] = gen.normal(std::size_t(dModel));
            }
        });
        for (std::size_t k = 0; k < missing.size(); ++k)
            rows.emplace(*missing[k], std::move(drawn[k]));
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            const std::vector<float>& row = rows.find(tokens[i])->second;
            for (int j = 0; j < dModel; ++j)
                (*x)(Eigen::Index(i), j) = row[std::size_t(j)];
        }
        evictLeastRecent(&rowSets_, kRowSeeds, [](const RowSet& r) {
            return r.rows.size() * std::size_t(r.dModel) * sizeof(float);
        });
    }

    void clear()
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        weights_.clear();
        rowSets_.clear();
    }

private:
    // At most 64 MB of weights (e.g. ten seeds of 8 heads' W_q, W_k and W_v
    // at d_model 512, 6.3 MB a seed) and 64 MB of token rows of up to four
    // seeds, except that the draw just used stays whatever its size, as the
    // one seed's cache kept it before.
    static constexpr std::size_t kMaxBytes = std::size_t(64) << 20;
    static constexpr std::size_t kRowSeeds = 4;
    static constexpr std::size_t kMaxCachedTokens = 1 << 16;
    struct Entry {
        std::uint64_t seed = 0;
        std::uint64_t which = 0;
        int dModel = -1;
        double scale = 0.0;
        Matrix columns;
        std::uint64_t used = 0;  // clock_ when last asked for
    };
    struct RowSet {
        std::uint64_t seed = 0;
        int dModel = -1;
        std::unordered_map<std::string, std::vector<float>> rows;
        std::uint64_t used = 0;
    };

    // Drops the least recently used of `entries` until at most `count` are
    // left and their bytes fit kMaxBytes; the most recent one always stays.
    template <typename T, typename Bytes>
    static void evictLeastRecent(std::vector<T>* entries, std::size_t count, const Bytes& bytes)
    {
        auto total = [&] {
            std::size_t sum = 0;
            for (const T& e : *entries)
                sum += bytes(e);
            return sum;
        };
        while (entries->size() > 1 && (entries->size() > count || total() > kMaxBytes))
            entries->erase(std::min_element(entries->begin(), entries->end(),
                                            [](const T& a, const T& b) { return a.used < b.used; }));
    }

    std::mutex mutex_;
    std::uint64_t clock_ = 0;
    std::vector<Entry> weights_;
    std::vector<RowSet> rowSets_;
};

DrawCache& drawCache()
{
    static DrawCache cache;
    return cache;
}

// The stable modes number the vocabulary by first appearance instead of
// sorting it: a word typed into the sentence then takes the next id and
// every word before it keeps its id (and its colour in the window).
void numberByFirstAppearance(Tokenization* t)
{
    std::unordered_map<std::string, int> idOf;
    std::vector<std::string> vocab;
    for (std::size_t i = 0; i < t->tokens.size(); ++i) {
        const auto [it, added] = idOf.emplace(t->tokens[i], int(vocab.size()));
        if (added)
            vocab.push_back(t->tokens[i]);
        t->ids[i] = it->second;
    }
    t->vocab = std::move(vocab);
}

}  // namespace

const char* initModeName(InitMode mode)
{
    switch (mode) {
    case InitMode::Article: return "article";
    case InitMode::StandardNormal: return "normal";
    case InitMode::UnitVariance: return "unit-variance";
    }
    return "article";
}

bool parseInitMode(std::string_view name, InitMode* mode)
{
    if (name == "article")
        *mode = InitMode::Article;
    else if (name == "normal")
        *mode = InitMode::StandardNormal;
    else if (name == "unit-variance")
        *mode = InitMode::UnitVariance;
    else
        return false;
    return true;
}

Status validateDimensions(int dModel, int dK, int dV)
{
    auto check = [](const char* name, int value, int limit) -> Status {
        if (value < 1 || value > limit)
            return Error{std::string(name) + " must be between 1 and " + std::to_string(limit) + "; got "
                         + std::to_string(value) + "."};
        return okStatus();
    };
    if (Status s = check("d_model", dModel, kMaxDModel); !s)
        return s;
    if (Status s = check("d_k", dK, kMaxDHead); !s)
        return s;
    if (Status s = check("d_v", dV, kMaxDHead); !s)
        return s;
    return validateWeightEntries(dModel, dK, dV);
}

Weights drawWeights(const ModelConfig& c)
{
    Weights w;
    if (c.init == InitMode::Article) {
        // The article stores W_query as (d_k, d_model) and computes
        // q = W_query x; with tokens as rows Q = X W_query^T.
        TorchGenerator gen(c.seed);
        w.Wq = gen.randMatrix(c.dK, c.dModel).transpose();
        w.Wk = gen.randMatrix(c.dK, c.dModel).transpose();
        w.Wv = gen.randMatrix(c.dV, c.dModel).transpose();
        return w;
    }
    // N(0, 1/d_model) entries give q = x W unit variance when x has unit
    // variance: Var(q_j) = d_model * 1 * (1/d_model).
    const double scale = c.init == InitMode::UnitVariance ? 1.0 / std::sqrt(double(c.dModel)) : 1.0;
    w.Wq = drawCache().stableWeights(c.seed, 1, c.dModel, c.dK, scale);
    w.Wk = drawCache().stableWeights(c.seed, 2, c.dModel, c.dK, scale);
    w.Wv = drawCache().stableWeights(c.seed, 3, c.dModel, c.dV, scale);
    return w;
}

Matrix drawStableWeight(const ModelConfig& c, int which, int width)
{
    const double scale = c.init == InitMode::UnitVariance ? 1.0 / std::sqrt(double(c.dModel)) : 1.0;
    return drawCache().stableWeights(c.seed, std::uint64_t(which), c.dModel, width, scale);
}

void clearDrawCache()
{
    drawCache().clear();
}

Matrix drawEmbeddings(const ModelConfig& c, const Tokenization& t)
{
    const int n = int(t.tokens.size());
    Matrix x(n, c.dModel);
    if (c.init == InitMode::Article) {
        // nn.Embedding(vocab_size, d_model) after manual_seed; rows by id.
        TorchGenerator gen(c.seed);
        const Matrix table = gen.embeddingMatrix(int(t.vocab.size()), c.dModel);
        for (int i = 0; i < n; ++i)
            x.row(i) = table.row(t.ids[i]);
        return x;
    }
    drawCache().tokenRows(c.seed, c.dModel, t.tokens, &x);
    return x;
}

Expected<Tokenization> tokenizeFor(const ModelConfig& config)
{
    Expected<Tokenization> tokens = tokenize(config.sentence, config.tokenizer);
    if (tokens && config.init != InitMode::Article)
        numberByFirstAppearance(&tokens.value());
    return tokens;
}

Expected<Model> buildModel(const ModelConfig& config)
{
    if (Status s = validateDimensions(config.dModel, config.dK, config.dV); !s)
        return s.error();
    Expected<Tokenization> tokens = tokenizeFor(config);
    if (!tokens)
        return tokens.error();
    if (Status s = validateEmbeddingEntries(tokens->tokens.size(), config.dModel); !s)
        return s.error();
    Model model;
    model.tokenization = std::move(tokens).value();
    model.X = drawEmbeddings(config, model.tokenization);
    Weights w = drawWeights(config);
    model.Wq = std::move(w.Wq);
    model.Wk = std::move(w.Wk);
    model.Wv = std::move(w.Wv);
    return model;
}

}  // namespace attn
