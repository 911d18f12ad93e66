// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: any bytes as a .attnlab file. An accepted lab must pass
// validation, compute without error (every head of a multi-head lab too),
// and write out to a file that reads back to the same matrices.

#include "labfile.h"
#include "labheads.h"

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
        || again->Wv != lab->Wv || again->heads != lab->heads || again->selectedHead != lab->selectedHead
        || again->multiHead.headCount() != lab->multiHead.headCount())
        std::abort();
    for (int i = 0; i < lab->multiHead.headCount(); ++i) {
        const attn::HeadWeights a = again->multiHead.head(i), b = lab->multiHead.head(i);
        if (a.Wq != b.Wq || a.Wk != b.Wk || a.Wv != b.Wv)
            std::abort();
    }
    if (again->multiHead.independent.Wo != lab->multiHead.independent.Wo
        || again->multiHead.split.inProjBias != lab->multiHead.split.inProjBias
        || again->multiHead.split.outProjWeight != lab->multiHead.split.outProjWeight
        || again->multiHead.split.outProjBias != lab->multiHead.split.outProjBias)
        std::abort();
    return 0;
}

#ifndef ATTNLAB_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return fuzzLabFile(data, size);
}
#endif
