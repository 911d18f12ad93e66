// SPDX-License-Identifier: GPL-3.0-or-later
#include "dksteps.h"

#include "scaling_lab.h"
#include "size_limits.h"

#include <algorithm>
#include <vector>

namespace attnlab {

namespace {

const std::vector<int>& grid()
{
    static const std::vector<int> dks = attn::defaultScalingLabDks();
    return dks;
}

}  // namespace

int DkSteps::next(int dK)
{
    const auto above = std::upper_bound(grid().begin(), grid().end(), dK);
    return above != grid().end() ? *above : grid().back();
}

int DkSteps::previous(int dK)
{
    const auto below = std::lower_bound(grid().begin(), grid().end(), dK);
    return below != grid().begin() ? *(below - 1) : grid().front();
}

int DkSteps::page(int dK, bool up)
{
    return std::clamp(up ? dK * 2 : (dK + 1) / 2, 1, attn::kMaxDHead);
}

}  // namespace attnlab
