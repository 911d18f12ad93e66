// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelcomparison.h"

#include "attentionworker.h"
#include "lens_rollout.h"
#include "modelsession.h"
#include "scheduler.h"

#include <QMetaObject>

#include <algorithm>
#include <cmath>
#include <utility>

namespace attnlab {

attn::Expected<attn::Matrix> comparedMap(const attn::DecoderModel& model, const attn::DecoderResult& pass,
                                         ComparedMap map, int layer, int head)
{
    if (map == ComparedMap::Rollout)
        return attn::attentionRollout(model, pass);
    if (layer >= 0 && layer < int(pass.layers.size()) && head >= 0
        && head < int(pass.layers[std::size_t(layer)].heads.size()))
        return pass.layers[std::size_t(layer)].heads[std::size_t(head)].weightsMatrix();
    attn::Expected<attn::AttentionResult> recomputed = model.head(pass, layer, head);
    if (!recomputed)
        return recomputed.error();
    return recomputed->weightsMatrix();
}

// A pass run here, and what it was run over and with.
struct ModelComparison::KeptPass {
    std::shared_ptr<const ModelFolder> model;
    std::vector<int> ids;
    std::vector<double> divisors;
    attn::AttentionMask mask;
    bool skipQkNorm = false;
    std::shared_ptr<const attn::DecoderResult> pass;

    bool runs(const ModelFolder* m, const std::vector<int>& i, const attn::DecoderRunOptions& o) const
    {
        return model.get() == m && ids == i && divisors == o.divisors.values && o.mask && mask == *o.mask
               && skipQkNorm == o.skipQkNorm;
    }
};

struct ModelComparison::Job {
    // A side: the session's pass, or the ids and options to run one with.
    struct Side {
        std::shared_ptr<const attn::DecoderResult> pass;
        std::vector<int> ids;
        attn::DecoderRunOptions options;
    };
    std::shared_ptr<const ModelFolder> model;
    ComparisonKind kind = ComparisonKind::IntactVsAblated;
    ComparedMap map = ComparedMap::SelectedHead;
    int layer = 0;
    int head = 0;
    Side a;
    Side b;
    std::vector<attn::HeadIndex> ablated;
    attn::HeadAblation ablation = attn::HeadAblation::Zero;
};

struct ModelComparison::Outcome {
    quint64 generation = 0;
    attn::Expected<attn::Matrix> a = attn::Error{};
    attn::Expected<attn::Matrix> b = attn::Error{};
    std::vector<std::shared_ptr<const KeptPass>> kept;
    QStringList labels;
    ComparisonText text;  // the caption's
};

ModelComparison::ModelComparison(ModelSession* session, QObject* parent)
    : QObject(parent),
      session_(session),
      lane_(std::make_unique<JobLane>(JobLane::Policy::Latest, "model-compare"))
{
    connect(session_, &ModelSession::resultChanged, this, &ModelComparison::request);
    connect(session_, &ModelSession::selectionChanged, this, [this] {
        if (map_ == ComparedMap::SelectedHead)
            request();
    });
    connect(session_, &ModelSession::modelOpened, this, [this] {
        kept_.clear();
        fail(QString());
    });
}

ModelComparison::~ModelComparison() = default;

void ModelComparison::setKind(ComparisonKind kind)
{
    if (kind == kind_)
        return;
    kind_ = kind;
    request();
}

void ModelComparison::setMap(ComparedMap map)
{
    if (map == map_)
        return;
    map_ = map;
    request();
}

void ModelComparison::setOtherSentence(const QString& sentence)
{
    if (sentence == otherSentence_)
        return;
    otherSentence_ = sentence;
    if (kind_ == ComparisonKind::OtherSentence)
        request();
}

void ModelComparison::setWanted(bool wanted)
{
    if (wanted == wanted_)
        return;
    wanted_ = wanted;
    if (wanted_)
        request();
}

void ModelComparison::fail(const QString& problem)
{
    ++generation_;  // a job in flight is not shown
    setComputing(false);
    a_ = b_ = difference_ = attn::Matrix();
    labels_.clear();
    largest_ = 0.0;
    caption_.clear();
    problem_ = problem;
    emit changed();
}

void ModelComparison::request()
{
    if (!wanted_)
        return;
    const std::shared_ptr<const attn::DecoderResult> result = session_->result();
    if (!session_->hasModel() || !result) {
        fail(session_->hasModel() ? tr("Type a sentence: the maps compare two passes over it.")
                                  : tr("Open a model to compare two of its passes."));
        return;
    }
    auto job = std::make_shared<Job>();
    job->model = session_->model();
    job->kind = kind_;
    job->map = map_;
    job->layer = session_->selectedLayer();
    job->head = session_->selectedHead();
    const std::vector<ModelToken>& tokensA = session_->resultTokens();
    QStringList labels;
    for (const ModelToken& t : tokensA)
        labels << t.display;
    // The options of a pass run here: the session's what-ifs, no maps kept.
    attn::DecoderRunOptions run;
    run.divisors = result->divisors;
    run.mask = result->mask;
    run.skipQkNorm = result->qkNormSkipped;
    run.keepMaps = false;
    run.topK = 1;
    run.threads = AttentionWorker::threads();
    switch (kind_) {
    case ComparisonKind::IntactVsAblated: {
        job->a.pass = result;
        const std::shared_ptr<const attn::DecoderResult> ablated = session_->ablatedResult();
        const bool any = ablated && !session_->resultAblatedHeads().empty();
        job->b.pass = any ? ablated : result;
        if (any) {
            job->ablated = session_->resultAblatedHeads();
            job->ablation = session_->resultAblation();
        }
        break;
    }
    case ComparisonKind::ScaledVsUnscaled: {
        for (const ModelToken& t : tokensA)
            job->a.ids.push_back(t.id);
        job->b.ids = job->a.ids;
        job->a.options = run;
        job->a.options.divisors = attn::HeadDivisors::standard(session_->config());
        job->b.options = run;
        job->b.options.divisors = job->a.options.divisors;
        job->b.options.divisors.set(attn::ScaleMode::None, 0.0, session_->config().headDim);
        // The session's pass when it ran as trained (not kept here: ids empty).
        if (result->divisors.values == job->a.options.divisors.values) {
            job->a.pass = result;
            job->a.ids.clear();
        }
        break;
    }
    case ComparisonKind::OtherSentence: {
        const std::vector<ModelToken> tokensB = session_->model()->tokenizer->encode(otherSentence_);
        if (tokensB.empty()) {
            fail(tr("Type another sentence of %n token(s) to compare with this one.", nullptr,
                    int(tokensA.size())));
            return;
        }
        if (tokensB.size() != tokensA.size()) {
            fail(tr("The other sentence is %1 tokens and this one %2: the maps compare runs of equal "
                    "length.")
                     .arg(tokensB.size())
                     .arg(tokensA.size()));
            return;
        }
        job->a.pass = result;
        for (const ModelToken& t : tokensB)
            job->b.ids.push_back(t.id);
        job->b.options = run;
        QStringList displayB;
        for (const ModelToken& t : tokensB)
            displayB << t.display;
        labels = comparisonLabels(labels, displayB);
        break;
    }
    }
    // A pass run for the last comparison serves again (another head).
    for (Job::Side* side : {&job->a, &job->b})
        if (!side->pass)
            for (const std::shared_ptr<const KeptPass>& k : kept_)
                if (k->runs(job->model.get(), side->ids, side->options))
                    side->pass = k->pass;

    const quint64 generation = ++generation_;
    auto outcome = std::make_shared<Outcome>();
    outcome->generation = generation;
    outcome->labels = std::move(labels);
    ComparisonText text;
    text.kind = job->kind;
    text.map = job->map;
    text.layer = job->layer;
    text.head = job->head;
    text.ablated = job->ablated;
    text.ablation = job->ablation;
    text.headDim = session_->config().headDim;
    text.otherSentence = otherSentence_;
    outcome->text = std::move(text);
    setComputing(true);
    lane_->post([this, job, outcome](const std::atomic<bool>& stop) {
        const attn::DecoderModel& model = *job->model->decoder;
        std::shared_ptr<const attn::DecoderResult> passes[2];
        Job::Side* sides[2] = {&job->a, &job->b};
        for (int s = 0; s < 2; ++s) {
            Job::Side& side = *sides[s];
            if (!side.pass) {
                side.options.cancel = &stop;
                attn::Expected<attn::DecoderResult> ran = model.run(side.ids, side.options);
                side.options.cancel = nullptr;
                if (!ran) {
                    outcome->a = outcome->b = ran.error();
                    break;
                }
                side.pass = std::make_shared<const attn::DecoderResult>(std::move(ran).value());
            }
            if (!side.ids.empty()) {
                // Run here (now or for the last comparison): kept for the next.
                auto kept = std::make_shared<KeptPass>();
                kept->model = job->model;
                kept->ids = side.ids;
                kept->divisors = side.options.divisors.values;
                kept->mask = *side.options.mask;
                kept->skipQkNorm = side.options.skipQkNorm;
                kept->pass = side.pass;
                outcome->kept.push_back(std::move(kept));
            }
            passes[s] = side.pass;
        }
        if (passes[0] && passes[1] && !stop.load()) {
            outcome->a = comparedMap(model, *passes[0], job->map, job->layer, job->head);
            outcome->b = comparedMap(model, *passes[1], job->map, job->layer, job->head);
        }
        QMetaObject::invokeMethod(
            this, [this, outcome] { deliver(outcome); }, Qt::QueuedConnection);
    });
}

QString comparisonCaption(const ComparisonText& job, std::optional<double> largest)
{
    const QString what = job.map == ComparedMap::Rollout
                             ? ModelComparison::tr("the rollout")
                             : ModelComparison::tr("L%1 H%2's weights").arg(job.layer + 1).arg(job.head + 1);
    QString text;
    switch (job.kind) {
    case ComparisonKind::IntactVsAblated: {
        if (job.ablated.empty()) {
            text = ModelComparison::tr(
                       "B − A = ablated − intact, %1: no head is ablated (the Ablation page chooses them), "
                       "so B is A.")
                       .arg(what);
            break;
        }
        QStringList heads;
        int first = job.ablated.front().layer;
        for (const attn::HeadIndex& h : job.ablated) {
            heads << ModelComparison::tr("L%1 H%2").arg(h.layer + 1).arg(h.head + 1);
            first = std::min(first, h.layer);
        }
        text = ModelComparison::tr("B − A = without %1 (%2) − intact, %3.")
                   .arg(heads.join(QStringLiteral(", ")),
                        job.ablation == attn::HeadAblation::Mean ? ModelComparison::tr("mean")
                                                                 : ModelComparison::tr("zero"),
                        what);
        if (job.map == ComparedMap::SelectedHead && job.layer <= first)
            text += ModelComparison::tr(
                        " L%1 comes before the first ablated head's output (L%2): nothing of it changes; "
                        "choose a later layer or the rollout.")
                        .arg(job.layer + 1)
                        .arg(first + 1);
        break;
    }
    case ComparisonKind::ScaledVsUnscaled:
        text = ModelComparison::tr("B − A = unscaled (÷ 1) − scaled (÷ √d_k = %1) in every head, %2.")
                   .arg(std::sqrt(double(job.headDim)))
                   .arg(what);
        break;
    case ComparisonKind::OtherSentence:
        text = ModelComparison::tr("B − A = “%1” − this sentence, %2.").arg(job.otherSentence, what);
        break;
    }
    if (largest)
        text += ModelComparison::tr(" Largest |B − A|: %1.").arg(*largest, 0, 'g', 4);
    return text;
}

QStringList comparisonLabels(const QStringList& tokensA, const QStringList& tokensB)
{
    QStringList labels = tokensA;
    for (int i = 0; i < labels.size() && i < tokensB.size(); ++i)
        if (tokensB[i] != labels[i])
            labels[i] += QLatin1Char('/') + tokensB[i];
    return labels;
}

void ModelComparison::deliver(const std::shared_ptr<Outcome>& outcome)
{
    if (outcome->generation != generation_)
        return;  // superseded
    setComputing(false);
    if (!outcome->a || !outcome->b) {
        const attn::Error& e = !outcome->a ? outcome->a.error() : outcome->b.error();
        if (e.kind == attn::ErrorKind::Cancelled)
            return;
        fail(QString::fromStdString(e.message));
        return;
    }
    kept_ = std::move(outcome->kept);
    a_ = std::move(outcome->a.value());
    b_ = std::move(outcome->b.value());
    difference_ = b_ - a_;
    largest_ = difference_.size() ? difference_.cwiseAbs().maxCoeff() : 0.0;
    labels_ = std::move(outcome->labels);
    caption_ = comparisonCaption(outcome->text, largest_);
    problem_.clear();
    emit changed();
}

void ModelComparison::setComputing(bool computing)
{
    if (computing == computing_)
        return;
    computing_ = computing;
    emit computingChanged(computing_);
}

}  // namespace attnlab
