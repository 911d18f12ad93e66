// SPDX-License-Identifier: GPL-3.0-or-later
#include "reaper.h"

#include <utility>

namespace attnlab {

Reaper::Reaper() : lane_(JobLane::Policy::Queue, "reaper")
{
}

Reaper& Reaper::instance()
{
    static Reaper reaper;
    return reaper;
}

void Reaper::dispose(std::function<void()> free)
{
    lane_.post([free = std::move(free)](const std::atomic<bool>&) { free(); });
}

}  // namespace attnlab
