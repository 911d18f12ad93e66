// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The last parameters, kept in QSettings between runs. Nothing is saved
// until the first save, so a first run starts on the article example.

#include "attention.h"
#include "model.h"

class QSettings;

namespace attnlab {

// Reads the saved parameters over `config` and `options`; returns false (and
// leaves them alone) when none were saved yet. Values out of range are
// clamped, unknown names keep the default.
bool loadParameters(const QSettings& settings, attn::ModelConfig* config, attn::AttentionOptions* options);
void saveParameters(QSettings& settings, const attn::ModelConfig& config,
                    const attn::AttentionOptions& options);
// The next loadParameters finds none (the next start is the article example).
void forgetParameters(QSettings& settings);

}  // namespace attnlab
