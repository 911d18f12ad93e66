// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: any bytes through the CSV parser; what it accepts must
// survive a write and re-parse unchanged. The same bytes through the matrix
// reader: what it accepts is within a matrix's limits, what it refuses is
// said in one non-empty line (a UTF-16 file's NULs once cut it short).

#include "csv.h"
#include "matrixio.h"
#include "size_limits.h"

#include "fuzztargets.h"

#include <cstdint>
#include <cstdlib>

int fuzzCsv(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto table = attnlab::readMatrixCsv(text);
    if (table) {
        const auto& m = table->values;
        if (m.rows() > attn::kMaxTokens || m.cols() > attn::kMaxTokens
            || (long long)m.rows() * m.cols() > attn::kMaxMatrixEntries)
            std::abort();
        if (!table->columnLabels.empty() && std::size_t(m.cols()) != table->columnLabels.size())
            std::abort();
    } else {
        const std::string& message = table.error().message;
        if (message.empty() || message.find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
            std::abort();
    }
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
