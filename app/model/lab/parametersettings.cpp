// SPDX-License-Identifier: GPL-3.0-or-later
#include "parametersettings.h"

#include "attention.h"
#include "size_limits.h"

#include <QSettings>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

const QString kFirstRun = QStringLiteral("firstRun");
const QString kSentence = QStringLiteral("parameters/sentence");
const QString kTokenizer = QStringLiteral("parameters/tokenizer");
const QString kSeed = QStringLiteral("parameters/seed");
const QString kInit = QStringLiteral("parameters/init");
const QString kDModel = QStringLiteral("parameters/dModel");
const QString kDK = QStringLiteral("parameters/dK");
const QString kDV = QStringLiteral("parameters/dV");
const QString kScale = QStringLiteral("parameters/scale");
const QString kDivisor = QStringLiteral("parameters/customDivisor");
const QString kCausal = QStringLiteral("parameters/causal");
const QString kMask = QStringLiteral("parameters/mask");

int clampedInt(const QSettings& s, const QString& key, int fallback, int maximum)
{
    bool ok = false;
    const int value = s.value(key, fallback).toInt(&ok);
    return ok ? std::clamp(value, 1, maximum) : fallback;
}

}  // namespace

bool loadParameters(const QSettings& s, attn::ModelConfig* config, attn::AttentionOptions* options)
{
    if (s.value(kFirstRun, true).toBool())
        return false;
    config->sentence = s.value(kSentence, QString::fromStdString(config->sentence))
                           .toString()
                           .left(attn::kMaxSentenceBytes)
                           .toStdString();
    attn::TokenizerMode tokenizer;
    if (attn::parseTokenizerMode(s.value(kTokenizer).toString().toStdString(), &tokenizer))
        config->tokenizer = tokenizer;
    bool ok = false;
    const qulonglong seed = s.value(kSeed).toULongLong(&ok);
    if (ok)
        config->seed = seed;
    attn::InitMode init;
    if (attn::parseInitMode(s.value(kInit).toString().toStdString(), &init))
        config->init = init;
    config->dModel = clampedInt(s, kDModel, config->dModel, attn::kMaxDModel);
    config->dK = clampedInt(s, kDK, config->dK, attn::kMaxDHead);
    config->dV = clampedInt(s, kDV, config->dV, attn::kMaxDHead);
    const QString scale = s.value(kScale).toString();
    for (attn::ScaleMode mode : {attn::ScaleMode::SqrtDk, attn::ScaleMode::None, attn::ScaleMode::Custom})
        if (scale == QLatin1String(attn::scaleModeName(mode)))
            options->scale = mode;
    const double divisor = s.value(kDivisor).toDouble(&ok);
    if (ok && attn::validateCustomDivisor(divisor))
        options->customDivisor = divisor;
    options->causal = s.value(kCausal, options->causal).toBool();
    // A mask beyond causal, when one was kept and reads back.
    if (const attn::Expected<attn::AttentionMask> mask =
            attn::parseAttentionMask(s.value(kMask).toString().toStdString());
        mask && mask->kind != attn::AttentionMask::Kind::None
        && mask->kind != attn::AttentionMask::Kind::Causal)
        options->setMask(mask.value());
    return true;
}

void saveParameters(QSettings& s, const attn::ModelConfig& config, const attn::AttentionOptions& options)
{
    s.setValue(kFirstRun, false);
    s.setValue(kSentence, QString::fromStdString(config.sentence));
    s.setValue(kTokenizer, QString::fromLatin1(attn::tokenizerModeName(config.tokenizer)));
    s.setValue(kSeed, qulonglong(config.seed));
    s.setValue(kInit, QString::fromLatin1(attn::initModeName(config.init)));
    s.setValue(kDModel, config.dModel);
    s.setValue(kDK, config.dK);
    s.setValue(kDV, config.dV);
    s.setValue(kScale, QString::fromLatin1(attn::scaleModeName(options.scale)));
    s.setValue(kDivisor, options.customDivisor);
    s.setValue(kCausal, options.causal);
    if (options.mask.kind == attn::AttentionMask::Kind::None)
        s.remove(kMask);
    else
        s.setValue(kMask, QString::fromStdString(options.mask.name()));
}

void forgetParameters(QSettings& s)
{
    s.remove(QStringLiteral("parameters"));
}

}  // namespace attnlab
