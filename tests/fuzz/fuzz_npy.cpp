// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: any bytes as a .npy file. Accepted arrays must be
// finite, within the size limits, and survive a write and re-read exactly.

#include "npy.h"
#include "size_limits.h"

#include "fuzztargets.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

int fuzzNpy(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto m = attnlab::parseNpy(bytes, "fuzz.npy");
    if (!m.ok()) {
        if (m.error().message.empty())
            std::abort();
        return 0;
    }
    if (m->rows() < 1 || m->cols() < 1 || m->rows() > attn::kMaxTokens || !m->allFinite())
        std::abort();
    const auto again = attnlab::parseNpy(attnlab::npyBytes(m.value()), "again.npy");
    if (!again.ok() || again->rows() != m->rows() || again->cols() != m->cols()
        || std::memcmp(again->data(), m->data(), sizeof(double) * std::size_t(m->size())) != 0)
        std::abort();
    return 0;
}

#ifndef ATTNLAB_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return fuzzNpy(data, size);
}
#endif
