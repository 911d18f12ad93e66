// SPDX-License-Identifier: GPL-3.0-or-later
#include "generationsession.h"

#include "attentionworker.h"
#include "modelsession.h"
#include "scheduler.h"
#include "size_limits.h"

#include <QMetaObject>
#include <QStringList>

#include <algorithm>
#include <utility>

namespace attnlab {

namespace {

bool sameAblation(const std::vector<attn::HeadIndex>& a, attn::HeadAblation aKind,
                  const std::vector<attn::HeadIndex>& b, attn::HeadAblation bKind)
{
    if (a.size() != b.size())
        return false;
    if (a.empty())
        return true;  // the mode of no head is no ablation
    return aKind == bKind && std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
               return x.layer == y.layer && x.head == y.head;
           });
}

}  // namespace

// What the jobs share, one job at a time (the lane's one thread): the
// cache, the seeded generator and the text the next step continues.
struct GenerationSession::State {
    State(std::shared_ptr<const ModelFolder> m, std::uint64_t seed)
        : model(std::move(m)), cache(model->config()), random(seed)
    {
    }
    std::shared_ptr<const ModelFolder> model;
    attn::KvCache cache;
    attn::GenerationRandom random;
    std::vector<int> text;  // the prompt and the tokens chosen so far
    int position = 0;       // the next token's position
    TokenChoiceOptions choice;
    attn::HeadDivisors divisors;
    std::optional<attn::AttentionMask> mask;
    bool skipQkNorm = false;
    std::vector<attn::HeadIndex> ablated;
    attn::HeadAblation ablation = attn::HeadAblation::Zero;
};

struct GenerationSession::Delivery {
    quint64 generation = 0;
    bool done = false;  // the job ended (its tokens delivered before)
    attn::GeneratedToken token;
    QString error;
};

GenerationSession::GenerationSession(ModelSession* session, QObject* parent)
    : QObject(parent),
      session_(session),
      lane_(std::make_unique<LaneGroup>(std::vector<LaneGroup::Lane>{LaneGroup::Lane{}}, "model-generate"))
{
    connect(session_, &ModelSession::modelOpened, this, &GenerationSession::follow);
    connect(session_, &ModelSession::resultChanged, this, &GenerationSession::follow);
    connect(session_, &ModelSession::computingChanged, this, &GenerationSession::follow);
    connect(session_, &ModelSession::problemChanged, this, &GenerationSession::follow);
    connect(session_, &ModelSession::ablationChanged, this, &GenerationSession::follow);
}

GenerationSession::~GenerationSession() = default;

attn::Status GenerationSession::generate(int tokens, const TokenChoiceOptions& choice)
{
    return start(tokens, true, choice);
}

attn::Status GenerationSession::step(const TokenChoiceOptions& choice)
{
    return start(1, steps_.empty() && !running_, choice);
}

attn::Status GenerationSession::start(int tokens, bool fresh, const TokenChoiceOptions& choice)
{
    if (!session_->hasModel())
        return attn::Error{tr("Open a model first: generation continues its sentence.").toStdString()};
    if (!fresh && running_)
        return attn::Error{tr("A generation is running: wait for it, or Reset.").toStdString()};
    const attn::DecoderConfig& config = session_->config();
    std::vector<int> prompt;
    for (const ModelToken& t : session_->tokens())
        prompt.push_back(t.id);
    if (fresh) {
        attn::GenerationOptions options;
        options.maxNewTokens = tokens;
        options.sample = choice.sample;
        options.temperature = choice.temperature;
        options.topK = choice.topK;
        options.seed = choice.seed;
        options.mask = session_->maskWhatIf();
        options.skipQkNorm = session_->qkNormRemoved();
        options.ablated = session_->ablatedHeads();
        options.ablation = session_->ablation();
        if (const attn::Status checked = attn::checkGeneration(config, prompt, options); !checked)
            return checked;
        clear();
        model_ = session_->model();
        promptIds_ = std::move(prompt);
        divisors_ = session_->divisors().values;
        mask_ = session_->maskWhatIf();
        skipQkNorm_ = session_->qkNormRemoved();
        ablated_ = session_->ablatedHeads();
        ablation_ = session_->ablation();
        choice_ = choice;
        state_ = std::make_shared<State>(model_, choice.seed);
        state_->text = promptIds_;
        state_->position = int(promptIds_.size());
        state_->choice = choice;
        state_->divisors = session_->divisors();
        state_->mask = mask_;
        state_->skipQkNorm = skipQkNorm_;
        state_->ablated = ablated_;
        state_->ablation = ablation_;
        // Mean ablation keeps no cache (a whole pass a step).
        if (ablated_.empty() || ablation_ != attn::HeadAblation::Mean)
            state_->cache.reserve(int(promptIds_.size()) + tokens - 1);
    } else {
        const int limit = std::min(config.maxPositions, attn::kMaxTokens);
        const int have = int(promptIds_.size() + steps_.size());
        if (have + tokens > limit)
            return attn::Error{tr("The prompt's %1 tokens and the %2 generated take %3 of this model's %4 "
                                  "positions: Reset to generate again.")
                                   .arg(promptIds_.size())
                                   .arg(steps_.size())
                                   .arg(have)
                                   .arg(limit)
                                   .toStdString()};
    }
    const quint64 generation = ++generation_;
    const int threads = AttentionWorker::threads();
    emit problemChanged(QString());
    setRunning(true);
    lane_->post(0, [this, state = state_, tokens, generation, threads](const std::atomic<bool>& stop) {
        const auto send = [this](std::shared_ptr<Delivery> d) {
            QMetaObject::invokeMethod(
                this, [this, d] { deliver(d); }, Qt::QueuedConnection);
        };
        attn::DecodeOptions decode;
        decode.divisors = state->divisors;
        decode.mask = state->mask;
        decode.skipQkNorm = state->skipQkNorm;
        decode.ablated = state->ablated;
        decode.ablation = state->ablation;
        decode.threads = threads;
        decode.keepAttention = true;
        decode.cancel = &stop;
        auto end = std::make_shared<Delivery>();
        end->generation = generation;
        end->done = true;
        for (int k = 0; k < tokens && !stop.load(); ++k) {
            attn::Expected<attn::DecodeResult> step =
                attn::generationStep(*state->model->decoder, state->text, &state->cache, decode);
            if (!step) {
                // The cache is as it was: a later step starts from there.
                if (!attn::isCancelled(step))
                    end->error = QString::fromStdString(step.error().message);
                break;
            }
            const TokenChoiceOptions& c = state->choice;
            const double u = c.sample ? state->random.next() : 0.0;
            const attn::TokenChoice chosen =
                attn::chooseToken(step->logits, c.sample, c.temperature, c.topK, u);
            auto d = std::make_shared<Delivery>();
            d->generation = generation;
            d->token.id = chosen.id;
            d->token.probability = chosen.probability;
            d->token.position = state->position++;
            d->token.wholePass = step->wholePass;
            d->token.cacheTokens = step->wholePass ? int(state->text.size()) : state->cache.tokens();
            d->token.cacheBytes = state->cache.bytes();
            d->token.cacheBytesOneKvPerQueryHead = state->cache.bytesOneKvPerQueryHead();
            d->token.step = std::move(step).value();
            state->text.push_back(chosen.id);
            send(std::move(d));
        }
        send(std::move(end));
        return true;
    });
    return attn::okStatus();
}

void GenerationSession::deliver(const std::shared_ptr<Delivery>& delivery)
{
    if (delivery->generation != generation_)
        return;  // reset, or a newer generation started
    if (delivery->done) {
        setRunning(false);
        if (!delivery->error.isEmpty())
            emit problemChanged(delivery->error);
        return;
    }
    steps_.push_back(std::move(delivery->token));
    keepWithinBudget();
    emit stepsChanged();
}

void GenerationSession::keepWithinBudget()
{
    double bytes = 0.0;
    for (const attn::GeneratedToken& t : steps_)
        for (const attn::RowVector& row : t.step.attention)
            bytes += double(row.size()) * double(sizeof(double));
    for (attn::GeneratedToken& t : steps_) {
        if (bytes <= kAttentionBudget || &t == &steps_.back())
            break;
        for (const attn::RowVector& row : t.step.attention)
            bytes -= double(row.size()) * double(sizeof(double));
        t.step.attention.clear();
        t.step.attention.shrink_to_fit();
    }
}

void GenerationSession::reset()
{
    const bool had = !steps_.empty() || running_;
    clear();
    if (had)
        emit stepsChanged();
    emit problemChanged(QString());
}

void GenerationSession::clear()
{
    ++generation_;
    lane_->cancel(0);
    state_.reset();  // the job in flight keeps its own until it ends
    steps_.clear();
    promptIds_.clear();
    divisors_.clear();
    mask_.reset();
    skipQkNorm_ = false;
    ablated_.clear();
    ablation_ = attn::HeadAblation::Zero;
    model_.reset();
    setRunning(false);
}

void GenerationSession::follow()
{
    if (!model_)
        return;
    bool same = session_->model() == model_ && session_->divisors().values == divisors_
                && session_->maskWhatIf() == mask_ && session_->qkNormRemoved() == skipQkNorm_
                && sameAblation(session_->ablatedHeads(), session_->ablation(), ablated_, ablation_)
                && session_->tokens().size() == promptIds_.size();
    for (std::size_t i = 0; same && i < promptIds_.size(); ++i)
        same = session_->tokens()[i].id == promptIds_[i];
    if (same)
        return;
    clear();
    emit stepsChanged();
}

void GenerationSession::setRunning(bool running)
{
    if (running == running_)
        return;
    running_ = running;
    emit runningChanged(running_);
}

std::vector<int> GenerationSession::generatedIds() const
{
    std::vector<int> ids;
    ids.reserve(steps_.size());
    for (const attn::GeneratedToken& t : steps_)
        ids.push_back(t.id);
    return ids;
}

QString GenerationSession::promptText() const
{
    if (!model_)
        return QString();
    const attn::Expected<QString> decoded = model_->tokenizer->decode(promptIds_);
    return decoded ? decoded.value() : QString();
}

QString GenerationSession::continuation() const
{
    if (!model_)
        return QString();
    const attn::Expected<QString> decoded = model_->tokenizer->decode(generatedIds());
    return decoded ? decoded.value() : QString();
}

QString GenerationSession::tokenText(int id) const
{
    return model_ ? model_->tokenizer->token(id).display : QString();
}

std::vector<QString> GenerationSession::keyLabels(int step) const
{
    std::vector<QString> labels;
    if (!model_ || step < 0 || step >= int(steps_.size()))
        return labels;
    const int keys = steps_[std::size_t(step)].cacheTokens;
    for (int j = 0; j < keys; ++j) {
        const int p = int(promptIds_.size());
        labels.push_back(tokenText(j < p ? promptIds_[std::size_t(j)] : steps_[std::size_t(j - p)].id));
    }
    return labels;
}

bool GenerationSession::hasAttention(int step) const
{
    return step >= 0 && step < int(steps_.size()) && !steps_[std::size_t(step)].step.attention.empty();
}

attn::Matrix GenerationSession::attention(int step, int layer) const
{
    if (!hasAttention(step))
        return attn::Matrix();
    const attn::DecodeResult& r = steps_[std::size_t(step)].step;
    const int layers = r.heads > 0 ? int(r.attention.size()) / r.heads : 0;
    if (layer < 0 || layer >= layers)
        return attn::Matrix();
    const int keys = steps_[std::size_t(step)].cacheTokens;
    attn::Matrix table = attn::Matrix::Zero(r.heads, keys);
    for (int h = 0; h < r.heads; ++h) {
        const attn::RowVector& row = r.attentionRow(layer, h);
        const int n = std::min(keys, int(row.size()));
        table.row(h).head(n) = row.head(n);
    }
    return table;
}

std::vector<attn::HeadIndex> GenerationSession::ablatedHeads() const
{
    return model_ ? ablated_ : session_->ablatedHeads();
}

attn::HeadAblation GenerationSession::ablation() const
{
    return model_ ? ablation_ : session_->ablation();
}

QString GenerationSession::ablationText() const
{
    const std::vector<attn::HeadIndex> heads = ablatedHeads();
    if (heads.empty())
        return tr("Generating with the intact model (no head ablated in the head lab).");
    QStringList names;
    for (const attn::HeadIndex& h : heads)
        names << tr("L%1 H%2").arg(h.layer + 1).arg(h.head + 1);
    if (ablation() == attn::HeadAblation::Mean)
        return tr("Generating without %1 (mean: each context column the mean over the positions so far, "
                  "as the head lab's ablated pass; a whole pass a step, no cache).")
            .arg(names.join(QStringLiteral(", ")));
    return tr("Generating without %1 (zero: their new rows set to 0 each step; the cache holds the "
              "ablated model's keys and values).")
        .arg(names.join(QStringLiteral(", ")));
}

int GenerationSession::layers() const
{
    return model_ ? model_->config().layers : 0;
}

std::int64_t GenerationSession::cacheBytesPerLayer(int step) const
{
    if (!model_ || step < 0 || step >= int(steps_.size()))
        return 0;
    return steps_[std::size_t(step)].cacheBytes / layers();
}

}  // namespace attnlab
