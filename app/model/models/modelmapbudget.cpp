// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelmapbudget.h"

#include <QCoreApplication>

namespace attnlab {

namespace {

struct ModelMapBudget {
    Q_DECLARE_TR_FUNCTIONS(ModelMapBudget)
};

}  // namespace

double modelMapBytes(const attn::DecoderConfig& config, int tokens)
{
    const double n = tokens;
    return double(config.layers) * config.heads * (8.0 * n * n + 32.0 * n * config.headDim);
}

std::optional<QString> modelMapBudgetProblem(const attn::DecoderConfig& config, const QString& modelName,
                                             int tokens, double budget)
{
    const double bytes = modelMapBytes(config, tokens);
    if (bytes <= budget)
        return std::nullopt;
    return ModelMapBudget::tr(
               "The sentence is %1 %2 tokens; every head's maps would take %3 MiB, more than "
               "the %4 MiB a pass keeps. Shorten it to see its attention.")
        .arg(tokens)
        .arg(modelName)
        .arg(bytes / double(1 << 20), 0, 'f', 0)
        .arg(budget / double(1 << 20), 0, 'f', 0);
}

}  // namespace attnlab
