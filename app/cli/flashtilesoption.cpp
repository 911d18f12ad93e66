// SPDX-License-Identifier: GPL-3.0-or-later
#include "flashtilesoption.h"

#include "echoedvalue.h"
#include "flash_tiles.h"
#include "flashexport.h"
#include "numberargument.h"
#include "size_limits.h"

#include <QCoreApplication>

#include <algorithm>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

}  // namespace

std::optional<QString> parseFlashTiles(std::string_view text, FlashBlocks* blocks)
{
    const std::size_t x = text.find('x');
    const std::optional<std::uint64_t> rows =
        x == std::string_view::npos ? std::nullopt : wholeNumber(text.substr(0, x), 1, attn::kMaxTokens);
    const std::optional<std::uint64_t> cols =
        x == std::string_view::npos ? std::nullopt : wholeNumber(text.substr(x + 1), 1, attn::kMaxTokens);
    if (!rows || !cols)
        return CommandLine::tr(
                   "--flash-tiles must be RxC, two whole numbers from 1 to %1 (queries and "
                   "keys per tile), e.g. 2x3, not %2")
            .arg(QString::number(attn::kMaxTokens),
                 echoedValue(QString::fromUtf8(text.data(), qsizetype(text.size()))));
    blocks->rows = int(*rows);
    blocks->cols = int(*cols);
    return std::nullopt;
}

std::optional<QString> flashTilesProblem(const AttentionSnapshot& snapshot, const FlashBlocks& blocks)
{
    const attn::AttentionResult& head = snapshot.head();
    const int n = head.tokens();
    const QString given = QStringLiteral("--flash-tiles %1x%2").arg(blocks.rows).arg(blocks.cols);
    if (const attn::Status valid = attn::validateFlashBlocks(blocks.rows, blocks.cols, n); !valid) {
        QString reason = QString::fromStdString(valid.error().message);
        reason[0] = reason[0].toLower();
        if (reason.endsWith(QLatin1Char('.')))
            reason.chop(1);
        return CommandLine::tr("%1: %2").arg(given, reason);
    }
    const int dV = int(head.V.cols());
    const long long numbers = flashJsonNumbers(n, dV, blocks.cols);
    if (numbers <= kMaxFlashJsonNumbers)
        return std::nullopt;
    // The fewest key blocks' worth that fits, and the narrowest B_c giving it.
    const long long keyBlocks = std::max(1LL, (kMaxFlashJsonNumbers - static_cast<long long>(n) * dV)
                                                  / (static_cast<long long>(n) * (dV + 3)));
    const long long narrowest = (n + keyBlocks - 1) / keyBlocks;
    return CommandLine::tr(
               "%1 at %2 tokens and d_v %3 would write %4 numbers to flash.json, more than "
               "the %5 it takes; give a key block B_c of at least %6")
        .arg(given, QString::number(n), QString::number(dV), QString::number(numbers),
             QString::number(kMaxFlashJsonNumbers), QString::number(narrowest));
}

}  // namespace attnlab
