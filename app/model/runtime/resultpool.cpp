// SPDX-License-Identifier: GPL-3.0-or-later
#include "resultpool.h"

#include "reaper.h"

namespace attnlab {

std::size_t ResultPool::mapBytes(Eigen::Index tokens)
{
    return std::size_t(tokens) * std::size_t(tokens) * sizeof(double);
}

std::shared_ptr<attn::AttentionResult> ResultPool::take(Eigen::Index tokens)
{
    if (mapBytes(tokens) < kLargeBytes)
        return std::make_shared<attn::AttentionResult>();
    std::unique_ptr<attn::AttentionResult> result;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        result = std::move(spare_);
    }
    if (result && result->scores.rows() != tokens)
        freeLater(result.release());
    if (!result)
        result = std::make_unique<attn::AttentionResult>();
    const std::weak_ptr<ResultPool> pool = weak_from_this();
    return std::shared_ptr<attn::AttentionResult>(result.release(), [pool](attn::AttentionResult* p) {
        if (const std::shared_ptr<ResultPool> alive = pool.lock())
            alive->giveBack(p);
        else
            freeLater(p);
    });
}

void ResultPool::giveBack(attn::AttentionResult* p)
{
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (!spare_) {
            spare_.reset(p);
            return;
        }
    }
    freeLater(p);
}

}  // namespace attnlab
