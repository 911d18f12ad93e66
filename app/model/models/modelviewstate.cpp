// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelviewstate.h"

#include "ablationundo.h"
#include "demomodel.h"
#include "modelsession.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <utility>

namespace attnlab {

namespace {

const QLatin1String kFolder("folder");
const QLatin1String kDivisors("divisors");
const QLatin1String kMask("mask");
const QLatin1String kQkNorm("qk_norm_removed");
const QLatin1String kTemperature("temperature");
const QLatin1String kSelected("selected");

bool sameFolder(const QString& a, const QString& b)
{
    const QString ca = QFileInfo(a).canonicalFilePath();
    return !ca.isEmpty() && ca == QFileInfo(b).canonicalFilePath();
}

// A head's divisor as --scale spells it: "sqrt-dk", "none" or the number.
QJsonValue scaleCell(attn::ScaleMode mode, double divisor)
{
    switch (mode) {
    case attn::ScaleMode::SqrtDk: return QStringLiteral("sqrt-dk");
    case attn::ScaleMode::None: return QStringLiteral("none");
    case attn::ScaleMode::Custom: break;
    }
    return divisor;
}

bool readCell(const QJsonValue& cell, attn::ScaleMode* mode, double* divisor)
{
    *divisor = 0.0;
    if (cell.isString()) {
        if (cell.toString() == QLatin1String("sqrt-dk"))
            *mode = attn::ScaleMode::SqrtDk;
        else if (cell.toString() == QLatin1String("none"))
            *mode = attn::ScaleMode::None;
        else
            return false;
        return true;
    }
    if (!cell.isDouble() || !attn::validateCustomDivisor(cell.toDouble()).ok())
        return false;
    *mode = attn::ScaleMode::Custom;
    *divisor = cell.toDouble();
    return true;
}

attn::Error refused(const QString& text)
{
    return attn::Error{text.toStdString()};
}

}  // namespace

ModelViewState::ModelViewState(ModelSession* session, AblationUndo* ablation, QObject* parent)
    : QObject(parent), session_(session), ablation_(ablation)
{
    connect(session_, &ModelSession::modelOpened, this, &ModelViewState::opened);
    connect(session_, &ModelSession::loadFailed, this, &ModelViewState::failed);
}

QJsonObject ModelViewState::toJson(const SavedModel& saved)
{
    QJsonObject object;
    object.insert(kFolder, saved.folder);
    if (saved.modes.size() == 1) {
        object.insert(kDivisors, scaleCell(saved.modes[0], saved.divisors[0]));
    } else if (!saved.modes.empty() && saved.layers > 0) {
        const std::size_t heads = saved.modes.size() / std::size_t(saved.layers);
        QJsonArray table;
        for (std::size_t l = 0; l < std::size_t(saved.layers); ++l) {
            QJsonArray row;
            for (std::size_t h = 0; h < heads; ++h)
                row.append(scaleCell(saved.modes[l * heads + h], saved.divisors[l * heads + h]));
            table.append(row);
        }
        object.insert(kDivisors, table);
    }
    if (saved.mask)
        object.insert(kMask, QString::fromStdString(saved.mask->name()));
    if (saved.qkNormRemoved)
        object.insert(kQkNorm, true);
    if (saved.temperature != 1.0)
        object.insert(kTemperature, saved.temperature);
    object.insert(kSelected, QJsonArray{saved.layer, saved.head});
    return object;
}

attn::Expected<SavedModel> ModelViewState::fromJson(const QJsonValue& value)
{
    if (!value.isObject())
        return refused(tr("\"model\" must be an object"));
    const QJsonObject object = value.toObject();
    SavedModel saved;
    const QJsonValue folder = object.value(kFolder);
    if (!folder.isString() || folder.toString().isEmpty())
        return refused(tr("its folder must be a folder's path or \"demo\""));
    saved.folder = folder.toString();

    const QString badDivisor =
        tr("its divisors must be \"sqrt-dk\", \"none\" or a number from %1 to %2, alone or as a table of "
           "layers x heads")
            .arg(attn::kMinCustomDivisor)
            .arg(attn::kMaxCustomDivisor);
    const QJsonValue divisors = object.value(kDivisors);
    if (divisors.isArray()) {
        const QJsonArray rows = divisors.toArray();
        const qsizetype heads = rows.isEmpty() ? 0 : rows.first().toArray().size();
        if (heads == 0)
            return refused(badDivisor);
        for (const QJsonValue& row : rows) {
            if (!row.isArray() || row.toArray().size() != heads)
                return refused(badDivisor);
            for (const QJsonValue& cell : row.toArray()) {
                attn::ScaleMode mode;
                double divisor;
                if (!readCell(cell, &mode, &divisor))
                    return refused(badDivisor);
                saved.modes.push_back(mode);
                saved.divisors.push_back(divisor);
            }
        }
        saved.layers = int(rows.size());
    } else if (!divisors.isUndefined()) {
        attn::ScaleMode mode;
        double divisor;
        if (!readCell(divisors, &mode, &divisor))
            return refused(badDivisor);
        saved.modes = {mode};
        saved.divisors = {divisor};
    }

    const QJsonValue mask = object.value(kMask);
    if (!mask.isUndefined()) {
        const attn::Expected<attn::AttentionMask> read =
            mask.isString() ? attn::parseAttentionMask(mask.toString().toStdString())
                            : attn::Expected<attn::AttentionMask>(attn::Error{"not a string"});
        if (!read || read->kind == attn::AttentionMask::Kind::None)
            return refused(tr("its mask must be \"causal\", \"sliding:W\" or \"sink:S,window:W\""));
        saved.mask = *read;
    }
    const QJsonValue qkNorm = object.value(kQkNorm);
    if (!qkNorm.isUndefined() && !qkNorm.isBool())
        return refused(tr("its qk_norm_removed must be true or false"));
    saved.qkNormRemoved = qkNorm.toBool();
    const QJsonValue temperature = object.value(kTemperature);
    if (!temperature.isUndefined()) {
        const double t = temperature.toDouble(std::nan(""));
        if (!temperature.isDouble() || !(t >= attn::kMinTemperature && t <= attn::kMaxTemperature))
            return refused(tr("its temperature must be a number from %1 to %2")
                               .arg(attn::kMinTemperature)
                               .arg(attn::kMaxTemperature));
        saved.temperature = t;
    }
    const QJsonValue selected = object.value(kSelected);
    if (!selected.isUndefined()) {
        const QJsonArray pair = selected.toArray();
        const bool whole = selected.isArray() && pair.size() == 2 && pair[0].isDouble() && pair[1].isDouble()
                           && pair[0].toDouble() == std::floor(pair[0].toDouble())
                           && pair[1].toDouble() == std::floor(pair[1].toDouble()) && pair[0].toDouble() >= 0
                           && pair[1].toDouble() >= 0 && pair[0].toDouble() < 1e6 && pair[1].toDouble() < 1e6;
        if (!whole)
            return refused(tr("its selected head must be [layer, head], whole numbers from 0"));
        saved.layer = pair[0].toInt();
        saved.head = pair[1].toInt();
    }
    return saved;
}

SavedModel ModelViewState::fromSession(const ModelSession& session)
{
    SavedModel saved;
    const attn::Expected<QString> demo = demoModelFolder();
    saved.folder = demo && sameFolder(session.modelFolder(), demo.value())
                       ? QString::fromLatin1(kDemoModelName)
                       : QFileInfo(session.modelFolder()).absoluteFilePath();
    const std::vector<attn::ScaleMode>& modes = session.scaleModes();
    const std::vector<double>& values = session.divisors().values;
    auto custom = [&](std::size_t i) { return modes[i] == attn::ScaleMode::Custom ? values[i] : 0.0; };
    const bool standard = std::all_of(modes.begin(), modes.end(),
                                      [](attn::ScaleMode m) { return m == attn::ScaleMode::SqrtDk; });
    if (!standard) {
        bool uniform = true;
        for (std::size_t i = 1; i < modes.size(); ++i)
            uniform = uniform && modes[i] == modes[0] && custom(i) == custom(0);
        if (uniform) {
            saved.modes = {modes[0]};
            saved.divisors = {custom(0)};
        } else {
            saved.layers = session.divisors().nLayer;
            saved.modes = modes;
            for (std::size_t i = 0; i < modes.size(); ++i)
                saved.divisors.push_back(custom(i));
        }
    }
    saved.mask = session.maskWhatIf();
    saved.qkNormRemoved = session.qkNormRemoved();
    saved.temperature = session.temperature();
    saved.layer = session.selectedLayer();
    saved.head = session.selectedHead();
    return saved;
}

void ModelViewState::saveTo(QJsonObject* view) const
{
    if (pending_) {
        // Still reading it: the lab as it was opened.
        view->insert(QLatin1String(kViewKey), toJson(*pending_));
        const QLatin1String ablation(AblationUndo::kViewKey);
        if (pendingView_.contains(ablation))
            view->insert(ablation, pendingView_.value(ablation));
        return;
    }
    if (session_->hasModel())
        view->insert(QLatin1String(kViewKey), toJson(fromSession(*session_)));
    if (ablation_)
        ablation_->saveTo(view);
}

void ModelViewState::loadFrom(const QJsonObject& view)
{
    pending_.reset();
    if (!view.contains(QLatin1String(kViewKey))) {
        if (ablation_)
            ablation_->loadFrom(view);
        return;
    }
    attn::Expected<SavedModel> read = fromJson(view.value(QLatin1String(kViewKey)));
    if (!read) {
        emit message(
            tr("The lab's model was not restored: %1.").arg(QString::fromStdString(read.error().message)));
        if (ablation_)
            ablation_->loadFrom(view);
        return;
    }
    const SavedModel& saved = read.value();
    const attn::Expected<QString> resolved = resolveModelFolder(saved.folder);
    if (!resolved) {
        emit message(tr("The lab's model %1 was not opened: %2.")
                         .arg(saved.folder, QString::fromStdString(resolved.error().message)));
        return;
    }
    const QString path = resolved.value();
    if (!QFileInfo(path).isDir()) {
        emit message(tr("The lab's model %1 was not opened: the folder does not exist.").arg(path));
        return;
    }
    if (session_->hasModel() && !session_->isLoading() && sameFolder(session_->modelFolder(), path)) {
        apply(saved, view);
        return;
    }
    pending_ = saved;
    pendingPath_ = path;
    pendingView_ = view;
    // The ablation is this model's: handed over once it is open.
    if (ablation_)
        ablation_->clearPending();
    emit openingModel(path);
    session_->openModel(path);
}

void ModelViewState::opened()
{
    if (!pending_)
        return;
    const SavedModel saved = std::move(*pending_);
    pending_.reset();
    // Another folder opened meanwhile (the user's choice, or --model)
    // supersedes the lab's, and its what-ifs are another model's.
    if (sameFolder(session_->modelFolder(), pendingPath_))
        apply(saved, pendingView_);
    else
        emit message(tr("The lab's model %1 was not opened: %2 was opened instead, so the lab's what-ifs "
                        "and ablation were not applied.")
                         .arg(pendingPath_, session_->modelFolder()));
    pendingView_ = QJsonObject();
}

void ModelViewState::failed(const QString& reason)
{
    if (!pending_)
        return;
    pending_.reset();
    pendingView_ = QJsonObject();
    emit message(tr("The lab's model %1 was not opened: %2").arg(pendingPath_, reason));
}

void ModelViewState::apply(const SavedModel& saved, const QJsonObject& view)
{
    const attn::DecoderConfig& c = session_->config();
    const std::size_t heads = std::size_t(c.layers) * std::size_t(c.heads);
    QString problem;
    if (saved.layers > 0 && (saved.layers != c.layers || saved.modes.size() != heads))
        problem = tr("its divisors are a table of %1 layers x %2 heads; the model has %3 x %4")
                      .arg(saved.layers)
                      .arg(saved.modes.size() / std::size_t(saved.layers))
                      .arg(c.layers)
                      .arg(c.heads);
    else if (saved.qkNormRemoved && !c.qkNorm)
        problem = tr("the model has no QK-norm (q_norm, k_norm) to remove");
    else if (saved.layer >= c.layers || saved.head >= c.heads)
        problem = tr("layer %1 head %2 is not a head of this model (%3 layers x %4 heads)")
                      .arg(saved.layer + 1)
                      .arg(saved.head + 1)
                      .arg(c.layers)
                      .arg(c.heads);
    // One pass for the what-ifs, the selection and the ablation together.
    ModelSession::PassBatch batch(*session_);
    if (problem.isEmpty()) {
        std::vector<attn::ScaleMode> modes(heads, attn::ScaleMode::SqrtDk);
        std::vector<double> divisors(heads, 0.0);
        if (saved.modes.size() == 1) {
            std::fill(modes.begin(), modes.end(), saved.modes[0]);
            std::fill(divisors.begin(), divisors.end(), saved.divisors[0]);
        } else if (!saved.modes.empty()) {
            modes = saved.modes;
            divisors = saved.divisors;
        }
        attn::Status set = session_->setTemperature(saved.temperature);
        if (set)
            set = session_->setScales(modes, divisors);
        if (set)
            set = session_->setMaskWhatIf(saved.mask);
        if (set)
            set = session_->setQkNormRemoved(saved.qkNormRemoved);
        if (set)
            session_->selectHead(saved.layer, saved.head);
        else
            problem = QString::fromStdString(set.error().message);
    }
    if (!problem.isEmpty())
        emit message(tr("The lab's what-ifs for %1 were not all applied: %2.")
                         .arg(QDir(session_->modelFolder()).dirName(), problem));
    if (ablation_)
        ablation_->loadFrom(view);
    emit restored();
}

}  // namespace attnlab
