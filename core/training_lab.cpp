// SPDX-License-Identifier: GPL-3.0-or-later
#include "training_lab.h"

#include "attention.h"
#include "scaling_lab.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

namespace attn {

namespace {

// The sample ids of the lab's LabNormalStreams: the starting weights, the
// probes, and the batch of step s at kFirstBatchSample + s. Distinct ids give
// independent streams, so the probes never coincide with a training batch.
constexpr std::uint64_t kWeightsSample = 0;
constexpr std::uint64_t kProbesSample = 1;
constexpr std::uint64_t kFirstBatchSample = 2;

// A uniform integer in 0..bound-1 without modulo bias: 64-bit words below
// 2^64 mod bound are rejected, so every residue is left exactly
// floor(2^64 / bound) times (Lemire's threshold). With bound <= 1024 a word
// is rejected with probability below 2^-54, so the loop practically never
// repeats; it matters for exactness, not for speed.
int uniformBelow(LabNormalStream& rng, int bound, std::uint64_t* words)
{
    const std::uint64_t b = std::uint64_t(bound);
    const std::uint64_t threshold = (0 - b) % b;  // 2^64 mod b
    for (;;) {
        const std::uint64_t r = rng.nextBits();
        ++*words;
        if (r >= threshold)
            return int(r % b);
    }
}

// `count` examples from one stream, drawn in this order: every label
// (example by example, key by key), every target, then the normals: the
// keys' entries row by row, then the query noise row by row. The stream is
// counter-based, so the normals are drawn in chunks of Box-Muller pairs
// (pair p from words firstWord + 2p and + 2p + 1) that any thread can fill,
// with the same numbers as one pass of next(). The normals of pair p are
// entries 2p and 2p + 1 of keys-then-noise.
class BatchDraw {
public:
    static constexpr std::size_t kPairsPerChunk = 2048;

    BatchDraw(const TrainingTask& task, std::uint64_t seed, std::uint64_t sample, int count)
        : task_(task), seed_(seed), sample_(sample)
    {
        const int n = task.nKeys;
        const int d = task.dModel;
        LabNormalStream rng(seed, sample);
        std::uint64_t words = 0;
        batch_.labels.resize(std::size_t(count) * std::size_t(n));
        batch_.targets.resize(std::size_t(count));
        for (int& y : batch_.labels)
            y = uniformBelow(rng, task.classes, &words);
        for (int& t : batch_.targets)
            t = uniformBelow(rng, n, &words);
        firstWord_ = words;
        batch_.keys.resize(Eigen::Index(count) * n, d);
        noise_.resize(std::size_t(count) * std::size_t(d));
        keyEntries_ = std::size_t(batch_.keys.size());
        pairs_ = (keyEntries_ + noise_.size() + 1) / 2;
    }

    std::size_t chunks() const { return (pairs_ + kPairsPerChunk - 1) / kPairsPerChunk; }

    // The normals of chunk c; chunks may be filled in any order, on any thread.
    void fillChunk(std::size_t c)
    {
        const std::size_t p0 = c * kPairsPerChunk;
        const std::size_t p1 = std::min(pairs_, p0 + kPairsPerChunk);
        const std::size_t total = keyEntries_ + noise_.size();
        LabNormalStream rng(seed_, sample_);
        rng.discard(firstWord_ + 2 * p0);
        for (std::size_t i = 2 * p0; i < 2 * p1; ++i) {
            const double z = rng.next();
            if (i < keyEntries_)
                batch_.keys.data()[i] = z;
            else if (i < total)
                noise_[i - keyEntries_] = z;
        }
    }

    // Once every chunk is filled: x_q = e_t + queryNoise * noise.
    TrainingBatch finish()
    {
        const int n = task_.nKeys;
        const int d = task_.dModel;
        const Eigen::Index count = Eigen::Index(batch_.targets.size());
        batch_.queries.resize(count, d);
        for (Eigen::Index b = 0; b < count; ++b) {
            const Eigen::Index t = b * n + batch_.targets[std::size_t(b)];
            for (int c = 0; c < d; ++c)
                batch_.queries(b, c) = batch_.keys(t, c) + task_.queryNoise * noise_[std::size_t(b * d + c)];
        }
        return std::move(batch_);
    }

    TrainingBatch drawAll()
    {
        for (std::size_t c = 0; c < chunks(); ++c)
            fillChunk(c);
        return finish();
    }

private:
    TrainingTask task_;
    std::uint64_t seed_, sample_;
    TrainingBatch batch_;
    std::vector<double> noise_;
    std::uint64_t firstWord_ = 0;
    std::size_t keyEntries_ = 0, pairs_ = 0;
};

Error settingError(const std::string& what)
{
    return Error{what};
}

std::string intRange(const char* name, int lo, int hi, int value)
{
    return std::string(name) + " must be from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not "
           + std::to_string(value) + ".";
}

std::string number(double x)
{
    if (std::isnan(x))
        return "NaN";
    if (std::isinf(x))
        return x > 0 ? "infinity" : "-infinity";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.12g", x);
    return buf;
}

// The softmax of one row of scores (n), max subtracted for stability.
void softmaxRow(const double* s, double* a, int n)
{
    double m = s[0];
    for (int j = 1; j < n; ++j)
        m = std::max(m, s[j]);
    double sum = 0.0;
    for (int j = 0; j < n; ++j) {
        a[j] = std::exp(s[j] - m);
        sum += a[j];
    }
    for (int j = 0; j < n; ++j)
        a[j] /= sum;
}

// The attention of every example: a_b = softmax(E_b r_b / divisor) with
// r_b = W_k q_b^T, q_b = x_b W_q. Q (B, d_k) and R (B, d_model) are returned
// for the backward pass; `weights` is (B, nKeys).
void attentionForward(const TrainingBatch& batch, int nKeys, const Matrix& wQ, const Matrix& wK,
                      double divisor, Matrix& q, Matrix& r, Matrix& weights)
{
    const Eigen::Index count = batch.queries.rows();
    // The products as the attention pass does them (projectInto: the AVX2
    // kernels where the processor has them, each entry one chain in order).
    projectInto(batch.queries, wQ, &q);  // (B, d_k) = (B, d_model) (d_model, d_k)
    projectTransposedInto(q, wK, &r);    // (B, d_model): row b is (W_k q_b^T)^T
    weights.resize(count, nKeys);
    RowVector scores(nKeys);
    for (Eigen::Index b = 0; b < count; ++b) {
        // s_b = E_b r_b / divisor (n): never K = E W_k, (B * n, d_k).
        scores.noalias() = r.row(b) * batch.keys.middleRows(b * nKeys, nKeys).transpose();
        scores /= divisor;
        softmaxRow(scores.data(), weights.row(b).data(), nKeys);
    }
}

}  // namespace

Status validateTrainingSettings(const TrainingSettings& s)
{
    const TrainingTask& t = s.task;
    if (t.nKeys < 2 || t.nKeys > kTrainingMaxKeys)
        return settingError(intRange("The number of keys", 2, kTrainingMaxKeys, t.nKeys));
    if (t.dModel < 1 || t.dModel > kTrainingMaxDModel)
        return settingError(intRange("d_model", 1, kTrainingMaxDModel, t.dModel));
    if (t.classes < 2 || t.classes > kTrainingMaxClasses)
        return settingError(intRange("The number of classes", 2, kTrainingMaxClasses, t.classes));
    if (t.batch < 1 || t.batch > kTrainingMaxBatch)
        return settingError(intRange("The batch size", 1, kTrainingMaxBatch, t.batch));
    const long long entries = (long long)t.batch * t.nKeys * t.dModel;
    if (entries > kTrainingMaxBatchEntries)
        return settingError("A batch of " + std::to_string(t.batch) + " examples with "
                            + std::to_string(t.nKeys) + " keys of d_model " + std::to_string(t.dModel)
                            + " has " + std::to_string(entries)
                            + " key entries; batch * keys * d_model must be at most "
                            + std::to_string(kTrainingMaxBatchEntries) + ".");
    if (!std::isfinite(t.beta) || t.beta <= 0.0 || t.beta > kTrainingMaxBeta)
        return settingError("beta (the size of the values) must be a number above 0 and at most "
                            + number(kTrainingMaxBeta) + ", not " + number(t.beta) + ".");
    if (!std::isfinite(t.queryNoise) || t.queryNoise < 0.0 || t.queryNoise > kTrainingMaxQueryNoise)
        return settingError("The query noise must be a number from 0 to " + number(kTrainingMaxQueryNoise)
                            + ", not " + number(t.queryNoise) + ".");
    if (s.dK < 1 || s.dK > kTrainingMaxDk)
        return settingError(intRange("d_k", 1, kTrainingMaxDk, s.dK));
    if (s.steps < 1 || s.steps > kTrainingMaxSteps)
        return settingError(intRange("The number of steps", 1, kTrainingMaxSteps, s.steps));
    if (!std::isfinite(s.learningRate) || s.learningRate <= 0.0 || s.learningRate > kTrainingMaxLearningRate)
        return settingError("The learning rate must be a number above 0 and at most "
                            + number(kTrainingMaxLearningRate) + ", not " + number(s.learningRate) + ".");
    if (!std::isfinite(s.adamBeta1) || s.adamBeta1 < 0.0 || s.adamBeta1 >= 1.0)
        return settingError("Adam's beta1 must be a number from 0 to below 1, not " + number(s.adamBeta1)
                            + ".");
    if (!std::isfinite(s.adamBeta2) || s.adamBeta2 < 0.0 || s.adamBeta2 >= 1.0)
        return settingError("Adam's beta2 must be a number from 0 to below 1, not " + number(s.adamBeta2)
                            + ".");
    if (!std::isfinite(s.adamEps) || s.adamEps <= 0.0 || s.adamEps > 1.0)
        return settingError("Adam's eps must be a number above 0 and at most 1, not " + number(s.adamEps)
                            + ".");
    if (!std::isfinite(s.customDivisor) || s.customDivisor < 0.0
        || (s.customDivisor > 0.0 && s.customDivisor < kTrainingMinDivisor)
        || s.customDivisor > kTrainingMaxDivisor)
        return settingError("The custom divisor must be a number from " + number(kTrainingMinDivisor) + " to "
                            + number(kTrainingMaxDivisor) + " (or 0 for no third run), not "
                            + number(s.customDivisor) + ".");
    return okStatus();
}

TrainingBatch makeTrainingBatch(const TrainingTask& task, std::uint64_t seed, int step)
{
    return BatchDraw(task, seed, kFirstBatchSample + std::uint64_t(step), task.batch).drawAll();
}

TrainingBatch makeTrainingProbes(const TrainingTask& task, std::uint64_t seed, int count)
{
    return BatchDraw(task, seed, kProbesSample, std::max(0, count)).drawAll();
}

void initialTrainingWeights(const TrainingTask& task, int dK, std::uint64_t seed, Matrix& wQ, Matrix& wK)
{
    // N(0, 1/d_model): with x ~ N(0, I) each entry of x W has variance 1.
    // W_q's entries row by row, then W_k's, from one stream.
    LabNormalStream rng(seed, kWeightsSample);
    const double sd = 1.0 / std::sqrt(double(task.dModel));
    wQ.resize(task.dModel, dK);
    wK.resize(task.dModel, dK);
    for (Matrix* w : {&wQ, &wK})
        for (Eigen::Index i = 0; i < w->rows(); ++i)
            for (Eigen::Index c = 0; c < w->cols(); ++c)
                (*w)(i, c) = sd * rng.next();
}

Matrix trainingAttention(const TrainingBatch& batch, const Matrix& wQ, const Matrix& wK, double divisor)
{
    const Eigen::Index count = batch.queries.rows();
    const int nKeys = count > 0 ? int(batch.keys.rows() / count) : 0;
    if (count == 0)
        return Matrix();
    Matrix q, r, weights;
    attentionForward(batch, nKeys, wQ, wK, divisor, q, r, weights);
    return weights;
}

// Forward, per example b (x_b the query token, E_b (n, d_model) its keys):
//   q_b = x_b W_q (d_k)            r_b = W_k q_b^T (d_model)
//   s_b = E_b r_b / divisor (n)    a_b = softmax(s_b)
//   o_b = beta sum_j a_bj onehot(y_bj) (C)
//   loss = (1/B) sum_b [logsumexp(o_b) - o_b[y_b,t_b]]
// Backward (chain rule, transposes of the forward's products):
//   do_b = (softmax(o_b) - onehot(y_b,t_b)) / B
//   da_bj = beta do_b[y_bj]
//   ds_b = a_b * (da_b - a_b . da_b)          (softmax's Jacobian)
//   dr_b = E_b^T ds_b / divisor (d_model)
//   grad W_k = sum_b dr_b q_b                 (outer products; = dR^T Q)
//   dq_b = W_k^T dr_b (d_k)                   (dQ = dR W_k)
//   grad W_q = sum_b x_b^T dq_b               (= X^T dQ)
// The per-example vectors are stacked into Q (B, d_k), R and dR
// (B, d_model), so the d_k-sized work is five matrix products.
TrainingForward trainingForward(const TrainingTask& task, const TrainingBatch& batch, const Matrix& wQ,
                                const Matrix& wK, double divisor)
{
    const int n = task.nKeys;
    const int classes = task.classes;
    const double beta = task.beta;
    const Eigen::Index count = batch.queries.rows();
    TrainingForward f;
    Matrix q, r;
    attentionForward(batch, n, wQ, wK, divisor, q, r, f.weights);

    Matrix dR(count, task.dModel);
    std::vector<double> o(static_cast<std::size_t>(classes)), p(static_cast<std::size_t>(classes));
    std::vector<double> da(static_cast<std::size_t>(n));
    RowVector ds(n);
    const double invCount = 1.0 / double(count);
    double lossSum = 0.0, correct = 0.0, maxSum = 0.0, entropySum = 0.0, saturated = 0.0;
    for (Eigen::Index b = 0; b < count; ++b) {
        const double* a = f.weights.row(b).data();
        const int* y = batch.labels.data() + b * n;
        const int t = batch.targets[std::size_t(b)];
        const int yt = y[t];

        std::fill(o.begin(), o.end(), 0.0);
        for (int j = 0; j < n; ++j)
            o[std::size_t(y[j])] += a[j];
        for (double& v : o)
            v *= beta;
        // Cross-entropy through a stable log-sum-exp.
        double om = o[0];
        int argmax = 0;  // the first largest logit: ties go to the lower class, as torch.argmax
        for (int c = 1; c < classes; ++c)
            if (o[std::size_t(c)] > om) {
                om = o[std::size_t(c)];
                argmax = c;
            }
        double sum = 0.0;
        for (int c = 0; c < classes; ++c) {
            p[std::size_t(c)] = std::exp(o[std::size_t(c)] - om);
            sum += p[std::size_t(c)];
        }
        lossSum += om + std::log(sum) - o[std::size_t(yt)];
        if (argmax == yt)
            correct += 1.0;

        // The measures of this example's attention; a tie for the largest
        // weight goes to the first key (it cannot be > 0.99 then).
        int jMax = 0;
        double entropy = 0.0;
        for (int j = 0; j < n; ++j) {
            if (a[j] > a[jMax])
                jMax = j;
            if (a[j] > 0.0)
                entropy -= a[j] * std::log(a[j]);
        }
        maxSum += a[jMax];
        entropySum += entropy;
        if (a[jMax] > 0.99 && jMax != t)
            saturated += 1.0;

        // Backward to the scores.
        for (int c = 0; c < classes; ++c)
            p[std::size_t(c)] = (p[std::size_t(c)] / sum - (c == yt ? 1.0 : 0.0)) * invCount;
        double aDotDa = 0.0;
        for (int j = 0; j < n; ++j) {
            da[std::size_t(j)] = beta * p[std::size_t(y[j])];
            aDotDa += a[j] * da[std::size_t(j)];
        }
        for (int j = 0; j < n; ++j)
            ds[j] = a[j] * (da[std::size_t(j)] - aDotDa) / divisor;
        dR.row(b).noalias() = ds * batch.keys.middleRows(b * n, n);  // (E_b^T ds_b)^T
    }
    f.loss = lossSum * invCount;
    f.accuracy = correct * invCount;
    f.maxWeight = maxSum * invCount;
    f.entropy = entropySum * invCount;
    f.saturatedWrong = saturated * invCount;
    const Matrix dRt = dR.transpose();  // (d_model, B)
    projectInto(dRt, q, &f.gradWk);     // (d_model, d_k) = dR^T Q
    Matrix dQ;
    projectInto(dR, wK, &dQ);  // (B, d_k)
    const Matrix xT = batch.queries.transpose();
    projectInto(xT, dQ, &f.gradWq);  // (d_model, d_k) = X^T dQ
    return f;
}

TrainingOptimizerState::TrainingOptimizerState(TrainingOptimizer kind, double learningRate, double beta1,
                                               double beta2, double eps, Eigen::Index rows, Eigen::Index cols)
    : kind_(kind), lr_(learningRate), beta1_(beta1), beta2_(beta2), eps_(eps)
{
    if (kind_ == TrainingOptimizer::Adam) {
        m_ = Matrix::Zero(rows, cols);
        v_ = Matrix::Zero(rows, cols);
    }
}

void TrainingOptimizerState::step(Matrix& weight, const Matrix& grad)
{
    if (kind_ == TrainingOptimizer::Sgd) {
        weight -= lr_ * grad;
        return;
    }
    // torch.optim.Adam's single-tensor step (torch/optim/adam.py), operation
    // for operation:
    //   m = m * beta1 + (1 - beta1) g        v = v * beta2 + (1 - beta2) g g
    //   denom = sqrt(v) / sqrt(1 - beta2^t) + eps
    //   w = w - (lr / (1 - beta1^t)) m / denom
    ++t_;
    const double biasCorrection1 = 1.0 - std::pow(beta1_, double(t_));
    const double biasCorrection2 = 1.0 - std::pow(beta2_, double(t_));
    const double stepSize = lr_ / biasCorrection1;
    const double bc2Sqrt = std::sqrt(biasCorrection2);
    // Element by element as torch does (Eigen's packets round each + - * /
    // and sqrt exactly as the scalar operations would).
    m_.array() = m_.array() * beta1_ + (1.0 - beta1_) * grad.array();
    v_.array() = v_.array() * beta2_ + ((1.0 - beta2_) * grad.array()) * grad.array();
    weight.array() += -stepSize * (m_.array() / (v_.array().sqrt() / bc2Sqrt + eps_));
}

TrainingLab::TrainingLab(const TrainingSettings& settings, int probeCount)
    : settings_(settings), probes_(makeTrainingProbes(settings.task, settings.seed, probeCount))
{
    Matrix wQ, wK;
    initialTrainingWeights(settings_.task, settings_.dK, settings_.seed, wQ, wK);
    std::vector<std::pair<TrainingScale, double>> scales = {
        {TrainingScale::SqrtDk, std::sqrt(double(settings_.dK))}, {TrainingScale::None, 1.0}};
    if (settings_.customDivisor > 0.0)
        scales.push_back({TrainingScale::Custom, settings_.customDivisor});
    for (const auto& [scale, divisor] : scales) {
        const TrainingSettings& s = settings_;
        runs_.push_back(Run{wQ, wK,
                            TrainingOptimizerState(s.optimizer, s.learningRate, s.adamBeta1, s.adamBeta2,
                                                   s.adamEps, wQ.rows(), wQ.cols()),
                            TrainingOptimizerState(s.optimizer, s.learningRate, s.adamBeta1, s.adamBeta2,
                                                   s.adamEps, wK.rows(), wK.cols())});
        TrainingRunCurves c;
        c.scale = scale;
        c.divisor = divisor;
        curves_.push_back(std::move(c));
    }
}

void TrainingLab::step()
{
    if (finished())
        return;
    // One batch for all runs. Drawing it costs about as much as the runs at
    // d_k 256, so the next step's batch is drawn meanwhile: a second thread
    // fills its chunks while this one steps the runs, then helps with the
    // rest (joined before returning, so a lab holds no thread between
    // steps). A chunk's numbers depend only on (seed, step, chunk), and the
    // runs are stepped one after the other on this thread: the results
    // cannot depend on threads.
    TrainingBatch batch = nextBatchStep_ == stepsDone_
                              ? std::move(nextBatch_)
                              : makeTrainingBatch(settings_.task, settings_.seed, stepsDone_);
    nextBatchStep_ = -1;
    const int following = stepsDone_ + 1;
    std::optional<BatchDraw> next;
    std::atomic<std::size_t> nextChunk{0};
    const auto drawChunks = [&next, &nextChunk] {
        for (std::size_t c = nextChunk++; c < next->chunks(); c = nextChunk++)
            next->fillChunk(c);
    };
    std::thread helper;
    if (following < settings_.steps) {
        next.emplace(settings_.task, settings_.seed, kFirstBatchSample + std::uint64_t(following),
                     settings_.task.batch);
        try {
            helper = std::thread(drawChunks);
        } catch (const std::system_error&) {
            // No second thread: this one draws every chunk below.
        }
    }
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        Run& run = runs_[i];
        TrainingRunCurves& c = curves_[i];
        const TrainingForward f = trainingForward(settings_.task, batch, run.wQ, run.wK, c.divisor);
        c.loss.push_back(f.loss);
        c.accuracy.push_back(f.accuracy);
        c.gradNormQ.push_back(f.gradWq.norm());
        c.gradNormK.push_back(f.gradWk.norm());
        c.maxWeight.push_back(f.maxWeight);
        c.entropy.push_back(f.entropy);
        c.saturatedWrong.push_back(f.saturatedWrong);
        run.optQ.step(run.wQ, f.gradWq);
        run.optK.step(run.wK, f.gradWk);
    }
    if (next) {
        drawChunks();
        if (helper.joinable())
            helper.join();
        nextBatch_ = next->finish();
        nextBatchStep_ = following;
    }
    ++stepsDone_;
}

void TrainingLab::run(const std::atomic<bool>* cancel)
{
    while (!finished()) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return;
        step();
    }
}

Matrix TrainingLab::probeAttention(int run) const
{
    const Run& r = runs_[std::size_t(run)];
    return trainingAttention(probes_, r.wQ, r.wK, curves_[std::size_t(run)].divisor);
}

// loss[i] is measured on step i's batch after i updates; the count reported
// is i + 1, the steps done when that loss was seen.
int stepsToReachLoss(const TrainingRunCurves& curves, double target)
{
    for (std::size_t i = 0; i < curves.loss.size(); ++i)
        if (curves.loss[i] <= target)
            return int(i) + 1;
    return -1;
}

const char* trainingScaleName(TrainingScale scale)
{
    switch (scale) {
    case TrainingScale::SqrtDk: return "sqrt-dk";
    case TrainingScale::None: return "none";
    case TrainingScale::Custom: return "custom";
    }
    return "sqrt-dk";
}

}  // namespace attn
