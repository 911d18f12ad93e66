// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: any bytes as a .attnlab file. An accepted lab must pass
// validation, compute without error, and write out to a file that reads back
// to the same matrices.

#include "labfile.h"

#include "fuzztargets.h"

#include <cstdint>
#include <cstdlib>
#include <sstream>

int fuzzLabFile(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto lab = attnlab::parseLab(text);
    if (!lab.ok()) {
        if (lab.error().message.empty())
            std::abort();
        return 0;
    }
    if (!attnlab::validateLabState(lab.value()).ok())
        std::abort();
    if (!attnlab::computeLabSnapshot(lab.value()).ok())
        std::abort();
    std::ostringstream out;
    attnlab::writeLabJson(out, lab.value());
    const auto again = attnlab::parseLab(out.str());
    if (!again.ok() || again->X != lab->X || again->Wq != lab->Wq || again->Wk != lab->Wk
        || again->Wv != lab->Wv)
        std::abort();
    return 0;
}

#ifndef ATTNLAB_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return fuzzLabFile(data, size);
}
#endif
