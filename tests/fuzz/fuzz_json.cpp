// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: any bytes through the JSON reader, once with its default
// limits and once with tight ones, so that the caps are reached by small
// inputs: what is accepted under the tight limits holds no more values and
// numbers than they allow and is accepted by default too; every refusal is
// one non-empty line. Run with -rss_limit_mb and -timeout (scripts/fuzz.sh):
// a blow-up in time or memory is a finding.

#include "jsonvalue.h"

#include "fuzztargets.h"

#include <cstdint>
#include <cstdlib>

namespace {

void count(const attnlab::JsonValue& v, long long* values, long long* numbers)
{
    ++*values;
    if (v.isArray() && v.allNumbers()) {
        *numbers += (long long)v.numbers().size();
        return;
    }
    for (const attnlab::JsonValue& item : v.items())
        count(item, values, numbers);
    for (const auto& member : v.members())
        count(member.second, values, numbers);
}

bool oneLine(const std::string& message)
{
    return !message.empty() && message.find_first_of(std::string("\n\r\0", 3)) == std::string::npos;
}

}  // namespace

int fuzzJson(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto full = attnlab::parseJson(text);
    if (!full && !oneLine(full.error().message))
        std::abort();
    attnlab::JsonLimits tight;
    tight.maxValues = 40;
    tight.maxNumbers = 100;
    const auto small = attnlab::parseJson(text, tight);
    if (!small) {
        if (!oneLine(small.error().message))
            std::abort();
        return 0;
    }
    if (!full)
        std::abort();
    long long values = 0;
    long long numbers = 0;
    count(small.value(), &values, &numbers);
    if (values > tight.maxValues || numbers > tight.maxNumbers)
        std::abort();
    return 0;
}

#ifndef ATTNLAB_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return fuzzJson(data, size);
}
#endif
