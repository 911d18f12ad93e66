// SPDX-License-Identifier: GPL-3.0-or-later
#include "ablationundo.h"

#include "modelsession.h"

#include <QDir>
#include <QJsonArray>
#include <QUndoCommand>
#include <QUndoStack>

#include <functional>
#include <utility>

namespace attnlab {

namespace {

QString headsText(const AblationChoice& choice)
{
    QStringList names;
    for (const attn::HeadIndex& h : choice.heads)
        names << AblationUndo::tr("L%1 H%2").arg(h.layer + 1).arg(h.head + 1);
    return names.join(QStringLiteral(", "));
}

class AblationCommand : public QUndoCommand {
public:
    AblationCommand(const QString& text, AblationChoice before, AblationChoice after,
                    std::function<void(const AblationChoice&)> apply)
        : QUndoCommand(text), before_(std::move(before)), after_(std::move(after)), apply_(std::move(apply))
    {
    }
    void undo() override { apply_(before_); }
    void redo() override
    {
        // The change has happened already when the command is pushed.
        if (first_) {
            first_ = false;
            return;
        }
        apply_(after_);
    }

private:
    AblationChoice before_;
    AblationChoice after_;
    std::function<void(const AblationChoice&)> apply_;
    bool first_ = true;
};

}  // namespace

AblationUndo::AblationUndo(ModelSession* session, QUndoStack* stack, QObject* parent)
    : QObject(parent), session_(session), stack_(stack)
{
    connect(session_, &ModelSession::ablationChanged, this, &AblationUndo::record);
    connect(session_, &ModelSession::modelOpened, this, [this] {
        last_ = AblationChoice{{}, session_->ablation(), QString()};
        if (pending_) {
            const AblationChoice choice = std::move(*pending_);
            pending_.reset();
            apply(choice);
        }
    });
}

QJsonObject AblationUndo::toJson(const AblationChoice& choice)
{
    QJsonArray heads;
    for (const attn::HeadIndex& h : choice.heads)
        heads.append(QJsonArray{h.layer, h.head});
    QJsonObject object;
    object.insert(QStringLiteral("heads"), heads);
    object.insert(QStringLiteral("mode"),
                  choice.mode == attn::HeadAblation::Mean ? QStringLiteral("mean") : QStringLiteral("zero"));
    if (!choice.model.isEmpty())
        object.insert(QStringLiteral("model"), choice.model);
    return object;
}

attn::Expected<AblationChoice> AblationUndo::fromJson(const QJsonObject& object)
{
    AblationChoice choice;
    const QString mode = object.value(QStringLiteral("mode")).toString();
    if (mode == QLatin1String("mean"))
        choice.mode = attn::HeadAblation::Mean;
    else if (mode != QLatin1String("zero"))
        return attn::Error{tr("the lab's model_ablation mode must be \"zero\" or \"mean\"").toStdString()};
    const QJsonValue model = object.value(QStringLiteral("model"));
    if (!model.isUndefined() && !model.isString())
        return attn::Error{
            tr("the lab's model_ablation model must be the model folder's name").toStdString()};
    choice.model = model.toString();
    const QJsonValue heads = object.value(QStringLiteral("heads"));
    if (!heads.isArray())
        return attn::Error{
            tr("the lab's model_ablation heads must be a list of [layer, head]").toStdString()};
    for (const QJsonValue& entry : heads.toArray()) {
        const QJsonArray pair = entry.toArray();
        if (!entry.isArray() || pair.size() != 2 || !pair[0].isDouble() || !pair[1].isDouble())
            return attn::Error{
                tr("the lab's model_ablation heads must be a list of [layer, head]").toStdString()};
        const double layer = pair[0].toDouble();
        const double head = pair[1].toDouble();
        if (layer != int(layer) || head != int(head) || layer < 0 || head < 0)
            return attn::Error{
                tr("the lab's model_ablation names a head that is not two whole numbers from 0")
                    .toStdString()};
        choice.heads.push_back({int(layer), int(head)});
    }
    return choice;
}

void AblationUndo::saveTo(QJsonObject* view) const
{
    if (pending_) {
        view->insert(QLatin1String(kViewKey), toJson(*pending_));
        return;
    }
    if (!session_->hasModel() || session_->ablatedHeads().empty())
        return;
    view->insert(QLatin1String(kViewKey),
                 toJson(AblationChoice{session_->ablatedHeads(), session_->ablation(),
                                       QDir(session_->modelFolder()).dirName()}));
}

void AblationUndo::loadFrom(const QJsonObject& view)
{
    AblationChoice choice;
    if (view.contains(QLatin1String(kViewKey))) {
        attn::Expected<AblationChoice> read = fromJson(view.value(QLatin1String(kViewKey)).toObject());
        if (!read) {
            emit message(
                tr("The ablation was not restored: %1.").arg(QString::fromStdString(read.error().message)));
        } else {
            choice = std::move(read.value());
        }
    }
    if (!session_->hasModel()) {
        pending_.reset();
        if (!choice.heads.empty())
            pending_ = std::move(choice);
        return;
    }
    apply(choice);
}

void AblationUndo::apply(const AblationChoice& choice)
{
    const QString open = QDir(session_->modelFolder()).dirName();
    if (!choice.model.isEmpty() && choice.model != open) {
        // Another model's heads: L2 H1 of one model is not that of another.
        emit message(tr("The ablation of %1 was not applied: it was saved with the model “%2”, and “%3” "
                        "is open.")
                         .arg(headsText(choice), choice.model, open));
        applying_ = true;
        session_->setAblation({}, choice.mode);
        applying_ = false;
        last_ = AblationChoice{session_->ablatedHeads(), session_->ablation(), QString()};
        return;
    }
    applying_ = true;
    const attn::Status set = session_->setAblation(choice.heads, choice.mode);
    applying_ = false;
    if (!set) {
        emit message(tr("The ablation of %1 was not applied: %2.")
                         .arg(headsText(choice), QString::fromStdString(set.error().message)));
        applying_ = true;
        session_->setAblation({}, choice.mode);
        applying_ = false;
    }
    last_ = AblationChoice{session_->ablatedHeads(), session_->ablation(), QString()};
}

void AblationUndo::record()
{
    const AblationChoice now{session_->ablatedHeads(), session_->ablation(), QString()};
    if (applying_ || !stack_) {
        last_ = now;
        return;
    }
    const QString text =
        now.heads.empty()
            ? tr("Ablate no head")
            : tr("Ablate %1 (%2)")
                  .arg(headsText(now), now.mode == attn::HeadAblation::Mean ? tr("mean") : tr("zero"));
    AblationChoice before = std::exchange(last_, now);
    stack_->push(new AblationCommand(text, std::move(before), now,
                                     [this](const AblationChoice& choice) { apply(choice); }));
}

}  // namespace attnlab
