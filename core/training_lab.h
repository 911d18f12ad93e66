// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The training lab: does 1/sqrt(d_k) decide how fast learning starts?
//
// The task is associative recall through one attention head. Each example
// has n keys with embeddings e_j ~ N(0, I_{d_model}) and labels y_j uniform in
// 0..C-1, a target position t, and the query token x_q = e_t + 0.5 N(0, I).
// The values v_j = beta * onehot(y_j) are fixed. The model:
//   q = x_q W_q,  k_j = e_j W_k   (W_q, W_k: d_model x d_k, trainable)
//   s_j = q . k_j / divisor,  a = softmax(s),  o = sum_j a_j v_j  (C logits)
//   loss = cross_entropy(o, y_t), the mean over a batch.
// W_q and W_k start N(0, 1/d_model), so the entries of q and k have unit
// variance and q . k has variance d_k: unscaled, the softmax starts saturated.
//
// Every run of a lab sees the same starting weights and the same batches
// (fresh ones every step, drawn from the seed and the step number), so the
// runs differ only in their divisor. Everything is in double precision.

#include "expected.h"
#include "matrix.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace attn {

enum class TrainingOptimizer { Adam, Sgd };
enum class TrainingScale { SqrtDk, None, Custom };

inline constexpr int kTrainingMaxKeys = 1024;
inline constexpr int kTrainingMaxDModel = 1024;
inline constexpr int kTrainingMaxDk = 1024;
inline constexpr int kTrainingMaxClasses = 1024;
inline constexpr int kTrainingMaxBatch = 4096;
inline constexpr int kTrainingMaxSteps = 100000;
// batch * nKeys * d_model: a batch's key entries (8 bytes each), 128 MiB.
inline constexpr long long kTrainingMaxBatchEntries = 16LL * 1024 * 1024;
inline constexpr double kTrainingMaxBeta = 100.0;
inline constexpr double kTrainingMaxQueryNoise = 100.0;
inline constexpr double kTrainingMaxLearningRate = 10.0;
// The custom divisor's range (0 means no third run).
inline constexpr double kTrainingMinDivisor = 1e-3;
inline constexpr double kTrainingMaxDivisor = 1e6;

struct TrainingTask {
    int nKeys = 32;
    int dModel = 64;
    int classes = 16;
    double beta = 5.0;
    int batch = 64;
    double queryNoise = 0.5;  // x_q = e_t + queryNoise * N(0, I)
};

struct TrainingSettings {
    TrainingTask task;
    int dK = 64;
    int steps = 400;
    std::uint64_t seed = 123;
    TrainingOptimizer optimizer = TrainingOptimizer::Adam;
    double learningRate = 3e-3;
    // Adam's constants (torch.optim.Adam's defaults).
    double adamBeta1 = 0.9;
    double adamBeta2 = 0.999;
    double adamEps = 1e-8;
    // A third run divides by this when it is > 0.
    double customDivisor = 0.0;
};

// Checks every size and number against its limit; an error names it.
Status validateTrainingSettings(const TrainingSettings& settings);

// One batch of B examples. Row b * nKeys + j of `keys` is e_j of example b.
struct TrainingBatch {
    Matrix keys;               // (B * nKeys, d_model)
    Matrix queries;            // (B, d_model): x_q of each example
    std::vector<int> labels;   // B * nKeys: y_j of example b at b * nKeys + j
    std::vector<int> targets;  // B: t of each example
};

// The batch of `step` (0-based) for a seed; the same for every run.
TrainingBatch makeTrainingBatch(const TrainingTask& task, std::uint64_t seed, int step);
// The lab's fixed probe examples (a batch of `count`, drawn apart from the
// training batches), whose attention the lab shows as it learns.
TrainingBatch makeTrainingProbes(const TrainingTask& task, std::uint64_t seed, int count);
// The starting W_q and W_k, N(0, 1/d_model) from the seed.
void initialTrainingWeights(const TrainingTask& task, int dK, std::uint64_t seed, Matrix& wQ, Matrix& wK);

// The forward and backward pass of one batch by hand.
struct TrainingForward {
    double loss = 0.0;  // mean cross-entropy
    Matrix gradWq;      // (d_model, d_k)
    Matrix gradWk;      // (d_model, d_k)
    Matrix weights;     // (B, nKeys): each example's attention a
    // The step's measures over the batch (before the update).
    double accuracy = 0.0;        // fraction with argmax o == y_t
    double maxWeight = 0.0;       // mean largest a_j
    double entropy = 0.0;         // mean entropy of a, nats
    double saturatedWrong = 0.0;  // fraction with largest a_j > 0.99 at j != t
};

TrainingForward trainingForward(const TrainingTask& task, const TrainingBatch& batch, const Matrix& wQ,
                                const Matrix& wK, double divisor);
// The attention rows only (B, nKeys), for probes.
Matrix trainingAttention(const TrainingBatch& batch, const Matrix& wQ, const Matrix& wK, double divisor);

// torch.optim.Adam (no weight decay, no amsgrad) and plain SGD, one tensor.
class TrainingOptimizerState {
public:
    TrainingOptimizerState(TrainingOptimizer kind, double learningRate, double beta1, double beta2,
                           double eps, Eigen::Index rows, Eigen::Index cols);
    void step(Matrix& weight, const Matrix& grad);

private:
    TrainingOptimizer kind_;
    double lr_, beta1_, beta2_, eps_;
    long long t_ = 0;
    Matrix m_, v_;
};

// One run's curves, one entry per step done.
struct TrainingRunCurves {
    TrainingScale scale = TrainingScale::SqrtDk;
    double divisor = 1.0;
    std::vector<double> loss, accuracy, gradNormQ, gradNormK, maxWeight, entropy, saturatedWrong;
    std::size_t size() const { return loss.size(); }
};

// The lab: the scaled run, the unscaled run and, with a custom divisor, a
// third, advanced together one step at a time.
class TrainingLab {
public:
    // Validate the settings first; the constructor assumes they are valid.
    explicit TrainingLab(const TrainingSettings& settings, int probeCount = 4);

    const TrainingSettings& settings() const { return settings_; }
    int stepsDone() const { return stepsDone_; }
    bool finished() const { return stepsDone_ >= settings_.steps; }

    // Advances every run by one step (no-op once finished).
    void step();
    // Steps until finished or until `cancel` becomes true.
    void run(const std::atomic<bool>* cancel = nullptr);

    const std::vector<TrainingRunCurves>& curves() const { return curves_; }
    // The probes' attention under run r's current weights: (probeCount, nKeys).
    Matrix probeAttention(int run) const;
    const TrainingBatch& probes() const { return probes_; }
    const Matrix& weightsQ(int run) const { return runs_[run].wQ; }
    const Matrix& weightsK(int run) const { return runs_[run].wK; }

private:
    struct Run {
        Matrix wQ, wK;
        TrainingOptimizerState optQ, optK;
    };
    TrainingSettings settings_;
    TrainingBatch probes_;
    std::vector<Run> runs_;
    std::vector<TrainingRunCurves> curves_;
    int stepsDone_ = 0;
    TrainingBatch nextBatch_;  // the batch of step nextBatchStep_, drawn ahead
    int nextBatchStep_ = -1;
};

// The first step (1-based count of steps done) at which a run's loss fell to
// `target` or below; -1 if it never did.
int stepsToReachLoss(const TrainingRunCurves& curves, double target);

// The name used in files and on screen: "sqrt-dk", "none", "custom".
const char* trainingScaleName(TrainingScale scale);

}  // namespace attn
