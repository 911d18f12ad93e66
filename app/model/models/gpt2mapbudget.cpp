// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2mapbudget.h"

#include <QCoreApplication>

namespace attnlab {

namespace {

struct Gpt2MapBudget {
    Q_DECLARE_TR_FUNCTIONS(Gpt2MapBudget)
};

}  // namespace

double gpt2MapBytes(const attn::DecoderConfig& config, int tokens)
{
    const double n = tokens;
    return double(config.layers) * config.heads * (8.0 * n * n + 32.0 * n * config.headDim);
}

std::optional<QString> gpt2MapBudgetProblem(const attn::DecoderConfig& config, int tokens, double budget)
{
    const double bytes = gpt2MapBytes(config, tokens);
    if (bytes <= budget)
        return std::nullopt;
    return Gpt2MapBudget::tr(
               "The sentence is %1 GPT-2 tokens; every head's maps would take %2 MiB, more than "
               "the %3 MiB a pass keeps. Shorten it to see its attention.")
        .arg(tokens)
        .arg(bytes / double(1 << 20), 0, 'f', 0)
        .arg(budget / double(1 << 20), 0, 'f', 0);
}

}  // namespace attnlab
