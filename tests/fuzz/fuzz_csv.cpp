// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: any bytes through the CSV parser; what it accepts must
// survive a write and re-parse unchanged.

#include "csv.h"

#include "fuzztargets.h"

#include <cstdint>
#include <cstdlib>

int fuzzCsv(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto rows = attnlab::parseCsv(text);
    if (!rows.ok())
        return 0;
    std::string written;
    for (const attnlab::CsvRow& row : rows.value())
        attnlab::appendCsvRow(written, row);
    const auto again = attnlab::parseCsv(written);
    if (!again.ok() || again.value() != rows.value())
        std::abort();
    return 0;
}

#ifndef ATTNLAB_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return fuzzCsv(data, size);
}
#endif
