// SPDX-License-Identifier: GPL-3.0-or-later
#include "headranking.h"

#include <algorithm>

namespace attnlab {

std::vector<RankedHead> HeadRanking::rank(const attn::Matrix& table, int count)
{
    std::vector<RankedHead> heads;
    heads.reserve(std::size_t(table.size()));
    for (int l = 0; l < table.rows(); ++l)
        for (int h = 0; h < table.cols(); ++h)
            heads.push_back({l, h, table(l, h)});
    // Stable: equal weights keep the layer-then-head order.
    std::stable_sort(heads.begin(), heads.end(),
                     [](const RankedHead& a, const RankedHead& b) { return a.weight > b.weight; });
    heads.resize(std::min(heads.size(), std::size_t(std::max(count, 0))));
    return heads;
}

int HeadRanking::findPiece(const std::vector<ModelToken>& tokens, const QString& piece)
{
    for (int i = int(tokens.size()) - 1; i >= 0; --i)
        if (tokens[std::size_t(i)].piece == piece)
            return i;
    return -1;
}

}  // namespace attnlab
