// SPDX-License-Identifier: GPL-3.0-or-later
#include "viewnumbers.h"

#include "csv.h"
#include "numberformat.h"

#include <cstddef>

namespace attnlab {

std::string cellTableCsv(const std::vector<std::string>& tokens, const std::vector<std::string>& valueNames,
                         int first, int last,
                         const std::function<std::vector<double>(int query, int key)>& values)
{
    std::string text;
    CsvRow header = {"query_index", "query", "key_index", "key"};
    header.insert(header.end(), valueNames.begin(), valueNames.end());
    appendCsvRow(text, header);
    const int n = int(tokens.size());
    for (int i = first; i <= last; ++i)
        for (int j = 0; j < n; ++j) {
            CsvRow row = {std::to_string(i), tokens[std::size_t(i)], std::to_string(j),
                          tokens[std::size_t(j)]};
            for (double v : values(i, j))
                row.push_back(formatRoundTrip(v));
            appendCsvRow(text, row);
        }
    return text;
}

std::string scoreHistogramCsv(const attn::ScoreHistogram& h)
{
    std::string text;
    appendCsvRow(text, {"bin_lower", "bin_upper", "raw_count", "scaled_count"});
    for (int b = 0; b < h.bins(); ++b)
        appendCsvRow(text, {formatRoundTrip(h.binLower(b)), formatRoundTrip(h.binLower(b + 1)),
                            std::to_string(h.raw[std::size_t(b)]), std::to_string(h.scaled[std::size_t(b)])});
    return text;
}

std::string scalingLabCsv(const attn::ScalingLabCurves& c, int plot)
{
    struct Columns {
        const char* names[4];
        const std::vector<double>* values[4];
        int count;
    };
    const Columns columns[] = {
        {{"var_unscaled", "var_scaled", "var_unscaled_stderr", "var_scaled_stderr"},
         {&c.varRaw, &c.varScaled, &c.varRawStdErr, &c.varScaledStdErr},
         4},
        {{"max_weight_unscaled", "max_weight_scaled"}, {&c.maxWeightRaw, &c.maxWeightScaled}, 2},
        {{"entropy_unscaled", "entropy_scaled"}, {&c.entropyRaw, &c.entropyScaled}, 2},
        {{"jacobian_norm_unscaled", "jacobian_norm_scaled"}, {&c.gradNormRaw, &c.gradNormScaled}, 2},
    };
    if (plot < 0 || plot > 3)
        return {};
    const Columns& col = columns[plot];
    std::string text;
    CsvRow header = {"d_k"};
    for (int k = 0; k < col.count; ++k)
        header.push_back(col.names[k]);
    appendCsvRow(text, header);
    for (std::size_t i = 0; i < c.size(); ++i) {
        CsvRow row = {std::to_string(c.dK[i])};
        for (int k = 0; k < col.count; ++k)
            row.push_back(i < col.values[k]->size() ? formatRoundTrip((*col.values[k])[i]) : std::string());
        appendCsvRow(text, row);
    }
    return text;
}

}  // namespace attnlab
