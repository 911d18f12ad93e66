// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Storage for large results. The previous step's result, once no view holds
// it, is kept and becomes the next computation's storage: a d_k step then
// writes into pages it already has, instead of the system clearing 32 MiB
// of new ones for it at 2048 tokens (about 6 ms) and taking the old ones
// back. The peak is unchanged (the view's result and the one being
// computed exist together either way); one result of the current size is
// kept besides the shown one. Small results are plain allocations.

#include "attention.h"

#include <memory>
#include <mutex>

namespace attnlab {

class ResultPool : public std::enable_shared_from_this<ResultPool> {
public:
    // Storage for a result of `tokens` tokens; it comes back here when its
    // last owner lets go (or goes to the reaper once the pool is gone).
    std::shared_ptr<attn::AttentionResult> take(Eigen::Index tokens);
    // The bytes of one n x n map.
    static std::size_t mapBytes(Eigen::Index tokens);

private:
    void giveBack(attn::AttentionResult* p);

    std::mutex mutex_;
    std::unique_ptr<attn::AttentionResult> spare_;
};

}  // namespace attnlab
