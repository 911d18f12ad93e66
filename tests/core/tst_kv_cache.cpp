// SPDX-License-Identifier: GPL-3.0-or-later
// Generation's key/value cache and decode step (core/kv_cache.h) and the
// generation over it (core/generation.h), for every family behind
// DecoderModel: GPT-2 (learned positions), Llama with grouped-query
// attention, Qwen2's q/k/v biases, Qwen3's q/k norms, Mistral's sliding
// window and llama3's rope scaling, on random weights. Each prefill and
// decode step against the whole pass over the same tokens: every head's
// last attention row and the logits within 1e-12 relative, the cached K and
// V equal to the whole pass's (RoPE at the right positions); greedy
// generation equal to repeated whole passes, and with heads ablated (zero
// through the cache, mean by whole passes) to repeated whole ablated
// passes; sampling against the same
// draw written again from std::mt19937 and a plain softmax; hand-worked
// cache sizes and choices; bad values refused with the cache untouched.

#include "generation.h"
#include "gpt2.h"
#include "kv_cache.h"
#include "llama.h"
#include "plaingpt2.h"
#include "randomllama.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

namespace {

using attn::Matrix;
using attn::RowVector;

constexpr double kRelative = 1e-12;

#define WITHIN_RELATIVE(diff, what) \
    QVERIFY2((diff) <= kRelative,   \
             qPrintable(QStringLiteral("%1: %2 > %3").arg(what).arg(diff).arg(kRelative)))

// max |a - b| over max |b| (both rows of one length).
template <typename A, typename B>
double relative(const A& a, const B& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return INFINITY;
    const double scale = std::max(b.cwiseAbs().maxCoeff(), 1e-300);
    return (a - b).cwiseAbs().maxCoeff() / scale;
}

enum Family { Gpt2, LlamaGqa, Qwen2Biases, Qwen3Norms, MistralWindow, Llama3Scaling };

std::unique_ptr<attn::DecoderModel> makeModel(int family)
{
    if (family == Gpt2) {
        auto model = attn::Gpt2DecoderModel::create(plaingpt2::randomWeights(2, 4, 16, 64, 97, 11u));
        if (!model)
            qFatal("%s", model.error().message.c_str());
        return std::move(model).value();
    }
    using randomllama::smallConfig;
    attn::LlamaConfig c;
    switch (family) {
    case LlamaGqa: c = smallConfig("llama", 4, 2, 8, 32), c.tieWordEmbeddings = true; break;
    case Qwen2Biases: c = smallConfig("qwen2", 6, 2, 4, 24), c.qkvBias = true; break;
    case Qwen3Norms:
        c = smallConfig("qwen3", 4, 1, 16, 24), c.qkNorm = c.oBias = c.qkvBias = true, c.ropeTheta = 1e6;
        break;
    case MistralWindow: c = smallConfig("mistral", 4, 4, 8, 32), c.slidingWindow = 3; break;
    default:
        c = smallConfig("llama", 2, 1, 16, 16);
        c.ropeScaling = {true, 8.0, 1.0, 4.0, 64};
        break;
    }
    auto model = attn::LlamaDecoderModel::create(randomllama::randomWeights(c, 5u + unsigned(family)));
    if (!model)
        qFatal("%s", model.error().message.c_str());
    return std::move(model).value();
}

void addFamilies()
{
    QTest::addColumn<int>("family");
    QTest::newRow("gpt2") << int(Gpt2);
    QTest::newRow("llama 4/2 gqa") << int(LlamaGqa);
    QTest::newRow("qwen2 6/2 biases") << int(Qwen2Biases);
    QTest::newRow("qwen3 4/1 qk norm") << int(Qwen3Norms);
    QTest::newRow("mistral window 3") << int(MistralWindow);
    QTest::newRow("llama3 rope scaling") << int(Llama3Scaling);
}

attn::DecoderResult fullPass(const attn::DecoderModel& model, const std::vector<int>& ids,
                             const attn::DecoderRunOptions& options = attn::DecoderRunOptions())
{
    attn::Expected<attn::DecoderResult> r = model.run(ids, options);
    if (!r)
        qFatal("run: %s", r.error().message.c_str());
    return std::move(r).value();
}

// A decode step's last row against the whole pass's last row.
void compareStep(const attn::DecodeResult& step, const attn::DecoderResult& full, const QString& where)
{
    const int last = full.tokens() - 1;
    QCOMPARE(step.lastPosition(), last);
    for (std::size_t l = 0; l < full.layers.size(); ++l)
        for (std::size_t h = 0; h < full.layers[l].heads.size(); ++h) {
            RowVector want(last + 1);
            full.layers[l].heads[h].weightsRow(last, want.data());
            WITHIN_RELATIVE(relative(step.attentionRow(int(l), int(h)), want),
                            QStringLiteral("%1 layer %2 head %3 weights").arg(where).arg(l).arg(h));
        }
    WITHIN_RELATIVE(relative(step.logits, full.lastLogits), where + QStringLiteral(" logits"));
}

// Greedy's choice from a whole pass, written again: the largest logit,
// the smaller id on a tie.
int argmax(const RowVector& logits)
{
    int best = 0;
    for (int j = 1; j < int(logits.size()); ++j)
        if (logits[j] > logits[best])
            best = j;
    return best;
}

double softmaxAt(const RowVector& logits, int id, double temperature)
{
    const RowVector z = logits / temperature;
    const double top = z.maxCoeff();
    return std::exp(z[id] - top) / (z.array() - top).exp().sum();
}

}  // namespace

class TestKvCache : public QObject {
    Q_OBJECT

private slots:
    void decodeEqualsFullPass_data() { addFamilies(); }
    void decodeEqualsFullPass();
    void decodeWithWhatIfs_data();
    void decodeWithWhatIfs();
    void greedyEqualsRepeatedFullPasses_data() { addFamilies(); }
    void greedyEqualsRepeatedFullPasses();
    void ablatedGreedyEqualsRepeatedAblatedPasses_data();
    void ablatedGreedyEqualsRepeatedAblatedPasses();
    void ablationRefusedOrKeptByStep();
    void samplingAgainstPlainDraw_data();
    void samplingAgainstPlainDraw();
    void topKOneIsGreedy();
    void cacheBytes();
    void chooseTokenByHand();
    void threadsChangeNoBit();
    void badValuesLeaveTheCache();
    void cancelled();
};

void TestKvCache::decodeEqualsFullPass()
{
    QFETCH(int, family);
    const std::unique_ptr<attn::DecoderModel> model = makeModel(family);
    const attn::DecoderConfig& c = model->config();
    const std::vector<int> ids = plaingpt2::randomIds(12, c.vocabSize, 3u + unsigned(family));
    const int prompt = 5;
    attn::KvCache cache(c);
    attn::DecodeOptions options;
    attn::Expected<attn::DecodeResult> prefill =
        model->decode(std::vector<int>(ids.begin(), ids.begin() + prompt), &cache, options);
    QVERIFY2(prefill, prefill ? "" : prefill.error().message.c_str());
    QCOMPARE(prefill->firstPosition, 0);
    QCOMPARE(cache.tokens(), prompt);
    compareStep(*prefill, fullPass(*model, std::vector<int>(ids.begin(), ids.begin() + prompt)),
                QStringLiteral("prefill"));
    // One token at a time, then two at once (a step of several rows).
    int at = prompt;
    while (at < int(ids.size())) {
        const int take = at + 2 == int(ids.size()) ? 2 : 1;
        const std::vector<int> next(ids.begin() + at, ids.begin() + at + take);
        attn::Expected<attn::DecodeResult> step = model->decode(next, &cache, options);
        QVERIFY2(step, step ? "" : step.error().message.c_str());
        QCOMPARE(step->firstPosition, at);
        at += take;
        QCOMPARE(cache.tokens(), at);
        const attn::DecoderResult full = fullPass(*model, std::vector<int>(ids.begin(), ids.begin() + at));
        compareStep(*step, full, QStringLiteral("step to %1").arg(at));
        if (at == int(ids.size())) {
            // The cache holds the whole pass's K and V, rotated at their positions.
            const int group = c.heads / c.kvHeads;
            for (int l = 0; l < c.layers; ++l)
                for (int g = 0; g < c.kvHeads; ++g) {
                    const attn::AttentionResult& head =
                        full.layers[std::size_t(l)].heads[std::size_t(g * group)];
                    WITHIN_RELATIVE(relative(Matrix(cache.keys(l, g)), head.K), QStringLiteral("keys"));
                    WITHIN_RELATIVE(relative(Matrix(cache.values(l, g)), head.V), QStringLiteral("values"));
                }
        }
    }
}

// The what-ifs a generation keeps for every step: a mask other than the
// model's own (sliding, sink + window), QK-norm removed (Qwen3). Each step
// against the whole pass with the same options; greedy generation against
// repeated such passes.
void TestKvCache::decodeWithWhatIfs_data()
{
    QTest::addColumn<int>("family");
    QTest::addColumn<QString>("mask");
    QTest::addColumn<bool>("skipQkNorm");
    QTest::newRow("gpt2 sliding:3") << int(Gpt2) << QStringLiteral("sliding:3") << false;
    QTest::newRow("llama gqa sink:2,window:3") << int(LlamaGqa) << QStringLiteral("sink:2,window:3") << false;
    QTest::newRow("mistral causal (not its window)")
        << int(MistralWindow) << QStringLiteral("causal") << false;
    QTest::newRow("qwen3 no qk-norm") << int(Qwen3Norms) << QString() << true;
    QTest::newRow("qwen3 no qk-norm sink:1,window:2")
        << int(Qwen3Norms) << QStringLiteral("sink:1,window:2") << true;
}

void TestKvCache::decodeWithWhatIfs()
{
    QFETCH(int, family);
    QFETCH(QString, mask);
    QFETCH(bool, skipQkNorm);
    const std::unique_ptr<attn::DecoderModel> model = makeModel(family);
    const attn::DecoderConfig& c = model->config();
    attn::DecoderRunOptions run;
    if (!mask.isEmpty()) {
        attn::Expected<attn::AttentionMask> parsed = attn::parseAttentionMask(mask.toStdString());
        QVERIFY(parsed);
        run.mask = *parsed;
    }
    run.skipQkNorm = skipQkNorm;
    attn::DecodeOptions options;
    options.mask = run.mask;
    options.skipQkNorm = skipQkNorm;
    const std::vector<int> ids = plaingpt2::randomIds(10, c.vocabSize, 21u + unsigned(family));
    const int prompt = 4;
    attn::KvCache cache(c);
    attn::Expected<attn::DecodeResult> prefill =
        model->decode(std::vector<int>(ids.begin(), ids.begin() + prompt), &cache, options);
    QVERIFY2(prefill, prefill ? "" : prefill.error().message.c_str());
    compareStep(*prefill, fullPass(*model, std::vector<int>(ids.begin(), ids.begin() + prompt), run),
                QStringLiteral("prefill"));
    for (int at = prompt; at < int(ids.size()); ++at) {
        attn::Expected<attn::DecodeResult> step = model->decode({ids[std::size_t(at)]}, &cache, options);
        QVERIFY2(step, step ? "" : step.error().message.c_str());
        const std::vector<int> upTo(ids.begin(), ids.begin() + at + 1);
        compareStep(*step, fullPass(*model, upTo, run), QStringLiteral("step to %1").arg(at + 1));
        // The what-if changes the row: against the intact pass it differs.
        if (at + 1 == int(ids.size())) {
            const attn::DecoderResult intact = fullPass(*model, upTo);
            QVERIFY(relative(step->logits, intact.lastLogits) > 1e-6);
        }
    }

    attn::GenerationOptions generation;
    generation.maxNewTokens = 5;
    generation.mask = run.mask;
    generation.skipQkNorm = skipQkNorm;
    const std::vector<int> start(ids.begin(), ids.begin() + prompt);
    attn::Expected<attn::Generation> gen = attn::generate(*model, start, generation);
    QVERIFY2(gen, gen ? "" : gen.error().message.c_str());
    std::vector<int> grown = start;
    for (int k = 0; k < 5; ++k) {
        const int want = argmax(fullPass(*model, grown, run).lastLogits);
        QCOMPARE(gen->tokens[std::size_t(k)].id, want);
        grown.push_back(want);
    }
    // What the model cannot take is refused before any step.
    if (!c.qkNorm) {
        attn::DecodeOptions bad;
        bad.skipQkNorm = true;
        attn::KvCache empty(c);
        QVERIFY(!model->decode(start, &empty, bad));
        QCOMPARE(empty.tokens(), 0);
    }
}

void TestKvCache::greedyEqualsRepeatedFullPasses()
{
    QFETCH(int, family);
    const std::unique_ptr<attn::DecoderModel> model = makeModel(family);
    const std::vector<int> prompt = plaingpt2::randomIds(4, model->config().vocabSize, 9u);
    attn::GenerationOptions options;
    options.maxNewTokens = 8;
    attn::Expected<attn::Generation> gen = attn::generate(*model, prompt, options);
    QVERIFY2(gen, gen ? "" : gen.error().message.c_str());
    QCOMPARE(int(gen->tokens.size()), 8);
    std::vector<int> ids = prompt;
    for (int k = 0; k < 8; ++k) {
        const attn::DecoderResult full = fullPass(*model, ids);
        const int want = argmax(full.lastLogits);
        const attn::GeneratedToken& got = gen->tokens[std::size_t(k)];
        QCOMPARE(got.id, want);
        QVERIFY(std::abs(got.probability - softmaxAt(full.lastLogits, want, 1.0))
                <= kRelative * got.probability);
        QCOMPARE(got.position, int(ids.size()));
        QCOMPARE(got.cacheTokens, int(ids.size()));
        ids.push_back(want);
    }
    QCOMPARE(gen->allIds(), ids);
}

// Generation with heads ablated (the head lab's): every greedy token, its
// logits and its row of every head against the whole pass over the same
// tokens with ablationHook (the next-token panel's ablated pass), within
// 1e-12 relative. Zero keeps the cache; mean runs a whole pass a step.
void TestKvCache::ablatedGreedyEqualsRepeatedAblatedPasses_data()
{
    QTest::addColumn<int>("family");
    QTest::addColumn<bool>("mean");
    const struct {
        const char* name;
        int family;
    } families[] = {{"gpt2", Gpt2},
                    {"llama 4/2 gqa", LlamaGqa},
                    {"qwen3 4/1 qk norm", Qwen3Norms},
                    {"mistral window 3", MistralWindow}};
    for (const auto& f : families) {
        QTest::newRow(qPrintable(QStringLiteral("%1 zero").arg(QLatin1String(f.name)))) << f.family << false;
        QTest::newRow(qPrintable(QStringLiteral("%1 mean").arg(QLatin1String(f.name)))) << f.family << true;
    }
}

void TestKvCache::ablatedGreedyEqualsRepeatedAblatedPasses()
{
    QFETCH(int, family);
    QFETCH(bool, mean);
    const std::unique_ptr<attn::DecoderModel> model = makeModel(family);
    const attn::DecoderConfig& c = model->config();
    const std::vector<attn::HeadIndex> heads{{0, 1}, {1, 0}};
    const attn::HeadAblation kind = mean ? attn::HeadAblation::Mean : attn::HeadAblation::Zero;
    const std::vector<int> prompt = plaingpt2::randomIds(5, c.vocabSize, 31u + unsigned(family));
    constexpr int kNew = 7;
    attn::GenerationOptions options;
    options.maxNewTokens = kNew;
    options.ablated = heads;
    options.ablation = kind;
    options.keepAttention = true;
    attn::Expected<attn::Generation> gen = attn::generate(*model, prompt, options);
    QVERIFY2(gen, gen ? "" : gen.error().message.c_str());
    QCOMPARE(int(gen->tokens.size()), kNew);
    attn::DecoderRunOptions ablated;
    ablated.headOutput = attn::ablationHook(heads, kind);
    std::vector<int> ids = prompt;
    bool changed = false;
    for (int k = 0; k < kNew; ++k) {
        const attn::DecoderResult full = fullPass(*model, ids, ablated);
        const attn::GeneratedToken& got = gen->tokens[std::size_t(k)];
        const QString where = QStringLiteral("token %1").arg(k + 1);
        compareStep(got.step, full, where);
        const int want = argmax(full.lastLogits);
        QCOMPARE(got.id, want);
        QVERIFY(std::abs(got.probability - softmaxAt(full.lastLogits, want, 1.0))
                <= kRelative * got.probability);
        QCOMPARE(got.wholePass, mean);
        QCOMPARE(got.step.wholePass, mean);
        QCOMPARE(got.cacheTokens, int(ids.size()));
        // Mean: no cache kept; zero: the cache of every token before.
        QCOMPARE(got.cacheBytes, mean ? std::int64_t(0) : attn::KvCache::bytes(c, int(ids.size())));
        // The ablation is felt: the intact pass's logits differ.
        changed = changed || relative(full.lastLogits, fullPass(*model, ids).lastLogits) > 1e-6;
        ids.push_back(want);
    }
    QVERIFY(changed);
    QCOMPARE(gen->allIds(), ids);
    // Ablating nothing is the intact generation, bit for bit.
    attn::GenerationOptions none = options;
    none.ablated.clear();
    attn::GenerationOptions intact;
    intact.maxNewTokens = kNew;
    intact.keepAttention = true;
    const attn::Expected<attn::Generation> a = attn::generate(*model, prompt, none);
    const attn::Expected<attn::Generation> b = attn::generate(*model, prompt, intact);
    QVERIFY(a && b);
    for (int k = 0; k < kNew; ++k)
        QVERIFY(attn::sameBits(a->tokens[std::size_t(k)].step.logits, b->tokens[std::size_t(k)].step.logits));
}

// A decode step zeroes only: mean ablation and a head out of range are
// refused, the cache untouched; generationStep's whole pass leaves it empty.
void TestKvCache::ablationRefusedOrKeptByStep()
{
    const std::unique_ptr<attn::DecoderModel> model = makeModel(Gpt2);
    const attn::DecoderConfig& c = model->config();
    attn::KvCache cache(c);
    attn::DecodeOptions options;
    options.ablated = {{1, 2}};
    options.ablation = attn::HeadAblation::Mean;
    attn::Expected<attn::DecodeResult> refused = model->decode({3, 4, 5}, &cache, options);
    QVERIFY(!refused);
    QVERIFY(refused.error().message.find("mean") != std::string::npos);
    QCOMPARE(cache.tokens(), 0);
    options.ablation = attn::HeadAblation::Zero;
    options.ablated = {{2, 0}};
    QVERIFY(!model->decode({3, 4, 5}, &cache, options));
    QCOMPARE(cache.tokens(), 0);
    attn::GenerationOptions generation;
    generation.ablated = {{0, 4}};
    QVERIFY(!attn::checkGeneration(c, {3, 4}, generation));

    options.ablated = {{1, 2}};
    options.ablation = attn::HeadAblation::Mean;
    attn::Expected<attn::DecodeResult> whole = attn::generationStep(*model, {3, 4, 5}, &cache, options);
    QVERIFY2(whole, whole ? "" : whole.error().message.c_str());
    QVERIFY(whole->wholePass);
    QCOMPARE(whole->lastPosition(), 2);
    QCOMPARE(cache.tokens(), 0);
    options.ablation = attn::HeadAblation::Zero;
    attn::Expected<attn::DecodeResult> cached = attn::generationStep(*model, {3, 4, 5}, &cache, options);
    QVERIFY(cached && !cached->wholePass);
    QCOMPARE(cache.tokens(), 3);
    // A cache that holds the whole text has no new token to step over.
    QVERIFY(!attn::generationStep(*model, {3, 4, 5}, &cache, options));
    QCOMPARE(cache.tokens(), 3);
}

void TestKvCache::samplingAgainstPlainDraw_data()
{
    QTest::addColumn<int>("family");
    QTest::addColumn<double>("temperature");
    QTest::addColumn<int>("topK");
    QTest::addColumn<quint64>("seed");
    QTest::newRow("gpt2 T 1.5 whole vocabulary") << int(Gpt2) << 1.5 << 0 << quint64(7);
    QTest::newRow("gpt2 T 0.7 top-5") << int(Gpt2) << 0.7 << 5 << quint64(123);
    QTest::newRow("qwen3 T 2 top-20") << int(Qwen3Norms) << 2.0 << 20 << quint64(0);
    QTest::newRow("mistral T 1 top-3, seed's low 32 bits")
        << int(MistralWindow) << 1.0 << 3 << quint64((1ull << 32) + 5);
}

void TestKvCache::samplingAgainstPlainDraw()
{
    QFETCH(int, family);
    QFETCH(double, temperature);
    QFETCH(int, topK);
    QFETCH(quint64, seed);
    const std::unique_ptr<attn::DecoderModel> model = makeModel(family);
    const int vocab = model->config().vocabSize;
    const std::vector<int> prompt = plaingpt2::randomIds(3, vocab, 21u);
    attn::GenerationOptions options;
    options.maxNewTokens = 10;
    options.sample = true;
    options.temperature = temperature;
    options.topK = topK;
    options.seed = seed;
    attn::Expected<attn::Generation> gen = attn::generate(*model, prompt, options);
    QVERIFY2(gen, gen ? "" : gen.error().message.c_str());
    attn::Expected<attn::Generation> again = attn::generate(*model, prompt, options);
    QVERIFY(again);
    QCOMPARE(again->generatedIds(), gen->generatedIds());

    // The draw written again: torch.manual_seed's mt19937 (the seed's low 32
    // bits), a 64-bit draw's low 53 bits, the tokens most likely first.
    std::mt19937 engine{std::uint32_t(seed)};
    std::vector<int> ids = prompt;
    for (int k = 0; k < 10; ++k) {
        const attn::DecoderResult full = fullPass(*model, ids);
        const std::uint64_t hi = engine(), lo = engine();
        const double u = double(((hi << 32) | lo) & ((1ull << 53) - 1)) / 9007199254740992.0;
        std::vector<std::pair<double, int>> p;
        for (int j = 0; j < vocab; ++j)
            p.push_back({softmaxAt(full.lastLogits, j, temperature), j});
        std::stable_sort(p.begin(), p.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        const int k2 = topK == 0 ? vocab : topK;
        double total = 0;
        for (int i = 0; i < k2; ++i)
            total += p[std::size_t(i)].first;
        double sum = 0;
        int want = p[std::size_t(k2 - 1)].second;
        for (int i = 0; i < k2; ++i) {
            sum += p[std::size_t(i)].first;
            if (sum > u * total) {
                want = p[std::size_t(i)].second;
                break;
            }
        }
        QCOMPARE(gen->tokens[std::size_t(k)].id, want);
        QVERIFY(
            std::abs(gen->tokens[std::size_t(k)].probability - softmaxAt(full.lastLogits, want, temperature))
            <= kRelative);
        ids.push_back(want);
    }
}

void TestKvCache::topKOneIsGreedy()
{
    for (const int family : {int(Gpt2), int(LlamaGqa)}) {
        const std::unique_ptr<attn::DecoderModel> model = makeModel(family);
        const std::vector<int> prompt = plaingpt2::randomIds(5, model->config().vocabSize, 4u);
        attn::GenerationOptions greedy;
        greedy.maxNewTokens = 6;
        greedy.temperature = 0.8;
        attn::GenerationOptions one = greedy;
        one.sample = true;
        one.topK = 1;
        one.seed = 99;
        const attn::Expected<attn::Generation> a = attn::generate(*model, prompt, greedy);
        const attn::Expected<attn::Generation> b = attn::generate(*model, prompt, one);
        QVERIFY(a && b);
        QCOMPARE(b->generatedIds(), a->generatedIds());
        for (std::size_t k = 0; k < a->tokens.size(); ++k)
            QCOMPARE(b->tokens[k].probability, a->tokens[k].probability);
    }
}

void TestKvCache::cacheBytes()
{
    // Llama 4 query heads sharing 2 key/value heads of 8, 2 layers: per token
    // 2 (K, V) x 2 layers x 2 heads x 8 x 8 bytes = 512; one K/V per query
    // head 1024. GPT-2 4 heads of 16 / 4 = 4: 2 x 2 x 4 x 4 x 8 = 512, both.
    const std::unique_ptr<attn::DecoderModel> llama = makeModel(LlamaGqa);
    attn::KvCache cache(llama->config());
    QCOMPARE(cache.bytes(), std::int64_t(0));
    QCOMPARE(cache.keys(1, 1).rows(), Eigen::Index(0));
    QCOMPARE(cache.keys(1, 1).cols(), Eigen::Index(8));
    QVERIFY(llama->decode({1, 2, 3}, &cache, {}));
    QCOMPARE(cache.bytes(), std::int64_t(3 * 512));
    QCOMPARE(cache.bytesOneKvPerQueryHead(), std::int64_t(3 * 1024));
    const attn::Expected<attn::DecodeResult> fourth = llama->decode({4}, &cache, {});
    QVERIFY(fourth);
    QCOMPARE(cache.bytes(), std::int64_t(4 * 512));
    // A step taken back and taken again: the same numbers.
    cache.truncate(3);
    QCOMPARE(cache.tokens(), 3);
    const attn::Expected<attn::DecodeResult> again = llama->decode({4}, &cache, {});
    QVERIFY(again);
    QVERIFY(attn::sameBits(again->logits, fourth->logits));
    cache.truncate(9);
    QCOMPARE(cache.tokens(), 4);
    QCOMPARE(attn::KvCache::bytes(llama->config(), 4), std::int64_t(4 * 512));
    QCOMPARE(attn::KvCache::bytesOneKvPerQueryHead(llama->config(), 4), std::int64_t(4 * 1024));
    QCOMPARE(attn::KvCache::kBytesPerNumber, 8);

    const std::unique_ptr<attn::DecoderModel> gpt2 = makeModel(Gpt2);
    attn::GenerationOptions options;
    options.maxNewTokens = 3;
    const attn::Expected<attn::Generation> gen = attn::generate(*gpt2, {5, 6}, options);
    QVERIFY(gen);
    for (int k = 0; k < 3; ++k) {
        const attn::GeneratedToken& t = gen->tokens[std::size_t(k)];
        QCOMPARE(t.cacheTokens, 2 + k);
        QCOMPARE(t.cacheBytes, std::int64_t(512) * (2 + k));
        QCOMPARE(t.cacheBytesOneKvPerQueryHead, t.cacheBytes);
    }
}

void TestKvCache::chooseTokenByHand()
{
    // p = 0.1, 0.2, 0.3, 0.4 for ids 0..3: most likely first 3, 2, 1, 0 with
    // cumulative 0.4, 0.7, 0.9, 1.
    const RowVector logits = (RowVector(4) << 1.0, 2.0, 3.0, 4.0).finished().array().log();
    attn::TokenChoice c = attn::chooseToken(logits, false, 1.0, 0, 0.99);
    QCOMPARE(c.id, 3);
    QVERIFY(std::abs(c.probability - 0.4) < 1e-15);
    QCOMPARE(attn::chooseToken(logits, true, 1.0, 0, 0.0).id, 3);
    QCOMPARE(attn::chooseToken(logits, true, 1.0, 0, 0.39).id, 3);
    QCOMPARE(attn::chooseToken(logits, true, 1.0, 0, 0.41).id, 2);
    QCOMPARE(attn::chooseToken(logits, true, 1.0, 0, 0.75).id, 1);
    c = attn::chooseToken(logits, true, 1.0, 0, 0.95);
    QCOMPARE(c.id, 0);
    QVERIFY(std::abs(c.probability - 0.1) < 1e-15);
    // Top-2: 4 and 3 of 7; u 0.5 -> 3.5 < 4, u 0.6 -> 4.2.
    QCOMPARE(attn::chooseToken(logits, true, 1.0, 2, 0.5).id, 3);
    c = attn::chooseToken(logits, true, 1.0, 2, 0.6);
    QCOMPARE(c.id, 2);
    QVERIFY(std::abs(c.probability - 0.3) < 1e-15);  // over the whole vocabulary
    // T 0.5 squares them: 1, 4, 9, 16 over 30; u 0.6 -> 18 > 16 -> id 2.
    c = attn::chooseToken(logits, true, 0.5, 0, 0.6);
    QCOMPARE(c.id, 2);
    QVERIFY(std::abs(c.probability - 9.0 / 30.0) < 1e-15);
    // Ties: the smaller id first.
    const RowVector tied = RowVector::Constant(3, 2.0);
    QCOMPARE(attn::chooseToken(tied, false, 1.0, 0, 0.0).id, 0);
    QCOMPARE(attn::chooseToken(tied, true, 1.0, 0, 0.5).id, 1);
    // The draws: torch.manual_seed(0)'s mt19937, 53 low bits of two draws.
    std::mt19937 engine(0u);
    attn::GenerationRandom random(0);
    for (int i = 0; i < 4; ++i) {
        const std::uint64_t hi = engine(), lo = engine();
        QCOMPARE(random.next(), double(((hi << 32) | lo) & ((1ull << 53) - 1)) * std::ldexp(1.0, -53));
    }
}

void TestKvCache::threadsChangeNoBit()
{
    const std::unique_ptr<attn::DecoderModel> model = makeModel(Qwen2Biases);
    attn::KvCache one(model->config()), two(model->config());
    attn::DecodeOptions o1, o2;
    o2.threads = 2;
    for (const std::vector<int>& ids :
         {std::vector<int>{1, 2, 3, 4}, std::vector<int>{5}, std::vector<int>{6}}) {
        const attn::Expected<attn::DecodeResult> a = model->decode(ids, &one, o1);
        const attn::Expected<attn::DecodeResult> b = model->decode(ids, &two, o2);
        QVERIFY(a && b);
        QVERIFY(attn::sameBits(a->logits, b->logits));
    }
}

void TestKvCache::badValuesLeaveTheCache()
{
    const std::unique_ptr<attn::DecoderModel> model = makeModel(LlamaGqa);
    const attn::DecoderConfig& c = model->config();  // 64 positions, 61 ids
    attn::KvCache cache(c);
    QVERIFY(model->decode({1, 2, 3}, &cache, {}));
    const Matrix keys = cache.keys(1, 1);
    const auto refused = [&](const std::vector<int>& ids, const char* words) {
        const attn::Expected<attn::DecodeResult> r = model->decode(ids, &cache, {});
        QVERIFY(!r);
        QVERIFY2(QString::fromStdString(r.error().message).contains(QLatin1String(words)),
                 r.error().message.c_str());
        QCOMPARE(cache.tokens(), 3);
        QVERIFY(attn::sameBits(Matrix(cache.keys(1, 1)), keys));
    };
    refused({}, "at least one");
    refused({4, 61}, "outside the vocabulary");
    refused(std::vector<int>(62, 1), "at most 64");
    attn::KvCache other(makeModel(Gpt2)->config());
    const attn::Expected<attn::DecodeResult> wrong = model->decode({1}, &other, {});
    QVERIFY(!wrong);
    QVERIFY(QString::fromStdString(wrong.error().message).contains(QLatin1String("key/value cache")));

    attn::GenerationOptions o;
    const auto generationError = [&](const attn::GenerationOptions& options, const std::vector<int>& prompt) {
        const attn::Expected<attn::Generation> g = attn::generate(*model, prompt, options);
        return g ? std::string() : g.error().message;
    };
    o.maxNewTokens = 0;
    QVERIFY(!generationError(o, {1}).empty());
    o.maxNewTokens = 61;
    QVERIFY(QString::fromStdString(generationError(o, {1, 2, 3, 4})).contains(QLatin1String("65 tokens")));
    o.maxNewTokens = 60;
    QVERIFY(generationError(o, {1, 2, 3, 4}).empty());  // exactly 64
    o.maxNewTokens = 2;
    o.temperature = 0;
    QVERIFY(!generationError(o, {1}).empty());
    o.temperature = 1;
    o.topK = -1;
    QVERIFY(!generationError(o, {1}).empty());
    o.topK = 0;
    QVERIFY(!generationError(o, {}).empty());
}

void TestKvCache::cancelled()
{
    const std::unique_ptr<attn::DecoderModel> model = makeModel(Gpt2);
    attn::KvCache cache(model->config());
    std::atomic<bool> stop{true};
    attn::DecodeOptions options;
    options.cancel = &stop;
    const attn::Expected<attn::DecodeResult> r = model->decode({1, 2}, &cache, options);
    QVERIFY(!r);
    QVERIFY(attn::isCancelled(r));
    QCOMPARE(cache.tokens(), 0);
}

QTEST_APPLESS_MAIN(TestKvCache)
#include "tst_kv_cache.moc"
