// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The sizes the engine accepts. Anything larger is refused with a message,
// never attempted: n x n score maps at kMaxTokens already take
// 3 * 8 * 4096^2 bytes = 384 MiB.

namespace attn {

inline constexpr int kMaxTokens = 4096;            // tokens in one sentence or matrix
inline constexpr int kMaxDModel = 1024;            // embedding width d_model
inline constexpr int kMaxDHead = 1024;             // d_k and d_v
inline constexpr int kMaxSentenceBytes = 1 << 20;  // 1 MiB of UTF-8 text
inline constexpr int kLegibleTokens = 32;          // lesson size: cell values printed

}  // namespace attn
