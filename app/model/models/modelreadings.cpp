// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelreadings.h"

#include "attentionworker.h"
#include "modelsession.h"
#include "scheduler.h"

#include <QMetaObject>
#include <QStringList>

#include <utility>

namespace attnlab {

struct ModelReadings::Outcome {
    quint64 generation = 0;
    attn::Expected<attn::LogitLens> lens = attn::Error{};
    attn::Expected<attn::Matrix> rollout = attn::Error{};
    std::vector<ModelToken> tokens;
    double temperature = 1.0;
    std::shared_ptr<const attn::DecoderResult> pass;
    attn::HeadDivisors divisors;
    attn::AttentionMask mask;
    bool qkNormSkipped = false;
    std::optional<RepeatProbe> probe;
    std::vector<attn::HeadIndex> ablated;
    attn::HeadAblation ablation = attn::HeadAblation::Zero;
};

ModelReadings::ModelReadings(ModelSession* session, QObject* parent)
    : QObject(parent),
      session_(session),
      lane_(std::make_unique<JobLane>(JobLane::Policy::Latest, "model-lens"))
{
    connect(session_, &ModelSession::resultChanged, this, [this] {
        stale_ = true;
        if (wanted_)
            request();
    });
    connect(session_, &ModelSession::modelOpened, this, [this] {
        ++generation_;
        stale_ = true;
        lens_ = attn::LogitLens();
        rollout_ = attn::Matrix();
        tokens_.clear();
        ablated_.clear();
        problem_.clear();
        setComputing(false);
        emit changed();
    });
}

ModelReadings::~ModelReadings() = default;

void ModelReadings::setWanted(bool wanted)
{
    wanted_ = wanted;
    if (wanted_ && stale_)
        request();
}

void ModelReadings::request()
{
    const std::shared_ptr<const attn::DecoderResult> result = session_->result();
    if (!result)
        return;
    stale_ = false;
    const quint64 generation = ++generation_;
    auto outcome = std::make_shared<Outcome>();
    outcome->generation = generation;
    outcome->tokens = session_->resultTokens();
    outcome->temperature = session_->temperature();
    outcome->probe = session_->resultProbe();
    const std::shared_ptr<const attn::DecoderResult> ablated = session_->ablatedResult();
    outcome->pass = ablated && !session_->resultAblatedHeads().empty() ? ablated : result;
    if (outcome->pass == ablated) {
        outcome->ablated = session_->resultAblatedHeads();
        outcome->ablation = session_->resultAblation();
    }
    setComputing(true);
    lane_->post([this, outcome, model = session_->model(),
                 threads = AttentionWorker::threads()](const std::atomic<bool>& superseded) {
        outcome->rollout = attn::attentionRollout(*model->decoder, *outcome->pass);
        if (!superseded.load())
            outcome->lens = attn::logitLens(*model->decoder, *outcome->pass, kLensTop, outcome->temperature,
                                            threads, &superseded);
        outcome->divisors = outcome->pass->divisors;
        outcome->mask = outcome->pass->mask;
        outcome->qkNormSkipped = outcome->pass->qkNormSkipped;
        outcome->pass.reset();  // read: not kept beyond this job (its maps may be large)
        QMetaObject::invokeMethod(
            this, [this, outcome] { deliver(outcome); }, Qt::QueuedConnection);
    });
}

void ModelReadings::deliver(const std::shared_ptr<Outcome>& outcome)
{
    if (outcome->generation != generation_)
        return;  // superseded
    setComputing(false);
    if (!outcome->lens || !outcome->rollout) {
        problem_ = QString::fromStdString(!outcome->lens ? outcome->lens.error().message
                                                         : outcome->rollout.error().message);
        emit changed();
        return;
    }
    problem_.clear();
    lens_ = std::move(outcome->lens.value());
    rollout_ = std::move(outcome->rollout.value());
    tokens_ = std::move(outcome->tokens);
    temperature_ = outcome->temperature;
    divisors_ = std::move(outcome->divisors);
    mask_ = outcome->mask;
    qkNormSkipped_ = outcome->qkNormSkipped;
    probe_ = outcome->probe;
    ablated_ = std::move(outcome->ablated);
    ablation_ = outcome->ablation;
    emit changed();
}

void ModelReadings::setComputing(bool computing)
{
    if (computing == computing_)
        return;
    computing_ = computing;
    emit computingChanged(computing_);
}

QString ModelReadings::passText() const
{
    if (!hasReadings() || !session_->hasModel())
        return QString();
    const attn::DecoderConfig& c = session_->config();
    QStringList parts;
    if (!ablated_.empty()) {
        QStringList heads;
        for (const attn::HeadIndex& h : ablated_)
            heads << tr("L%1 H%2").arg(h.layer + 1).arg(h.head + 1);
        parts << tr("without %1 (%2)")
                     .arg(heads.join(QStringLiteral(", ")),
                          ablation_ == attn::HeadAblation::Zero ? tr("zero") : tr("mean"));
    }
    const attn::HeadDivisors standard = attn::HeadDivisors::standard(c);
    int changed = 0;
    for (std::size_t i = 0; i < divisors_.values.size() && i < standard.values.size(); ++i)
        changed += divisors_.values[i] != standard.values[i] ? 1 : 0;
    if (changed > 0)
        parts << tr("a divisor other than √%1 in %2 of %3 heads")
                     .arg(c.headDim)
                     .arg(changed)
                     .arg(standard.values.size());
    if (mask_ != c.ownMask())
        parts << tr("mask %1").arg(QString::fromStdString(mask_.name()));
    if (qkNormSkipped_)
        parts << tr("no QK-norm");
    if (temperature_ != 1.0)
        parts << tr("T %1").arg(temperature_);
    const QString over = probe_ ? tr(" Over the probe's %1 random tokens (R %2, seed %3).")
                                      .arg(2 * probe_->span)
                                      .arg(probe_->span)
                                      .arg(probe_->seed)
                                : QString();
    if (parts.isEmpty())
        return tr("The intact pass, the model as trained.") + over;
    return (ablated_.empty() ? tr("The intact pass under the what-ifs: %1.") : tr("The ablated pass: %1."))
               .arg(parts.join(QStringLiteral("; ")))
           + over;
}

}  // namespace attnlab
