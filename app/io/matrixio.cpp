// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrixio.h"

#include "csv.h"
#include "csvreader.h"
#include "inputfile.h"
#include "npy.h"
#include "numberformat.h"
#include "size_limits.h"

#include "attention.h"

#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace attnlab {

void writeMatrixCsv(std::ostream& out, const attn::Matrix& m, const std::vector<std::string>& rowLabels,
                    const std::vector<std::string>& columnLabels, std::string_view corner)
{
    std::string line;
    appendCsvField(line, corner);
    for (const std::string& label : columnLabels) {
        line += ',';
        appendCsvField(line, label);
    }
    line += '\n';
    out.write(line.data(), std::streamsize(line.size()));

    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        line.clear();
        // A missing label falls back to the row index rather than reading past the end.
        const std::size_t r = std::size_t(i);
        appendCsvField(line, r < rowLabels.size() ? rowLabels[r] : std::to_string(r));
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            line += ',';
            appendNumber(line, m(i, j));
        }
        line += '\n';
        out.write(line.data(), std::streamsize(line.size()));
    }
}

void writeLabelledMatrixCsv(std::ostream& out, const attn::Matrix& m, const std::vector<std::string>& tokens,
                            CsvLabels labels)
{
    switch (labels) {
    case CsvLabels::TokenRows: writeMatrixCsv(out, m, tokens, indexLabels(int(m.cols())), "token"); break;
    case CsvLabels::QueryKey: writeMatrixCsv(out, m, tokens, tokens, "query/key"); break;
    case CsvLabels::Indices:
        writeMatrixCsv(out, m, indexLabels(int(m.rows())), indexLabels(int(m.cols())), "row");
        break;
    }
}

std::vector<std::string> indexLabels(int count)
{
    std::vector<std::string> labels;
    labels.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i)
        labels.push_back(std::to_string(i));
    return labels;
}

namespace {

// A cell in a message: at most 40 bytes (not cutting a UTF-8 sequence), with
// control bytes as \xNN, so that one line stays one short line.
std::string quotedCell(std::string_view cell)
{
    constexpr std::size_t kShown = 40;
    std::size_t end = std::min(cell.size(), kShown);
    if (end < cell.size())
        while (end > 0 && (static_cast<unsigned char>(cell[end]) & 0xC0) == 0x80)
            --end;
    std::string out = "'";
    for (std::size_t i = 0; i < end; ++i) {
        const auto c = static_cast<unsigned char>(cell[i]);
        if (c < 0x20 || c == 0x7F) {
            const char* hex = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += char(c);
        }
    }
    out += end < cell.size() ? "'... (" + std::to_string(cell.size()) + " bytes)" : "'";
    return out;
}

// Text that is not UTF-8: a NUL byte is never in a CSV of numbers and
// labels, and UTF-16 text is full of them (every ASCII character has one).
attn::Status checkUtf8Text(std::string_view text)
{
    const bool bomLE = text.substr(0, 2) == "\xFF\xFE";
    const bool bomBE = text.substr(0, 2) == "\xFE\xFF";
    const std::size_t nul = text.find('\0');
    if (!bomLE && !bomBE && nul == std::string_view::npos)
        return attn::okStatus();
    if (bomLE || bomBE || nul < 2)
        return attn::Error{"the file is UTF-16 text, not UTF-8; save the CSV as UTF-8"};
    const auto line = 1 + std::count(text.begin(), text.begin() + std::ptrdiff_t(nul), '\n');
    return attn::Error{"CSV line " + std::to_string(line)
                       + ": a NUL byte; the file is not UTF-8 text (UTF-16?); save the CSV as UTF-8"};
}

// The table as it is read, row by row: numbers, labels and shape, the limits
// of a matrix checked before a row is kept, so memory follows the numbers
// read and never what the header (or a row) announces.
class MatrixCsvBuilder {
public:
    attn::Status header(const CsvRow& row)
    {
        double first = 0;
        labelled_ = !parseNumber(row.front(), &first);
        if (!labelled_)
            return add(row, 1);
        result_.corner = row.front();
        if (row.size() < 2)
            return attn::Error{"CSV row 1: the header names no column"};
        result_.columnLabels.assign(row.begin() + 1, row.end());
        columns_ = row.size() - 1;
        return attn::okStatus();
    }

    // `row` is CSV row `number` (1-based, the header is row 1).
    attn::Status add(const CsvRow& row, long long number)
    {
        const std::string where = "CSV row " + std::to_string(number);
        const std::size_t skip = labelled_ ? 1 : 0;
        if (rows_ == 0 && !labelled_)
            columns_ = row.size();
        if (row.size() != columns_ + skip)
            return attn::Error{where + ": " + std::to_string(row.size()) + " cells, expected "
                               + std::to_string(columns_ + skip)
                               + (labelled_ ? " as in the header" : " as in row 1")};
        if (rows_ + 1 > attn::kMaxTokens)
            return attn::Error{where + ": more than " + std::to_string(attn::kMaxTokens)
                               + " rows, the most a matrix can have"};
        if ((long long)(rows_ + 1) * (long long)columns_ > attn::kMaxMatrixEntries)
            return attn::Error{where + ": more than " + std::to_string(attn::kMaxMatrixEntries)
                               + " numbers, the most a matrix can have"};
        for (std::size_t c = skip; c < row.size(); ++c) {
            double value = 0;
            if (!parseNumber(row[c], &value))
                return attn::Error{where + ", column " + std::to_string(c + 1) + ": " + quotedCell(row[c])
                                   + " is not a number"};
            values_.push_back(value);
        }
        if (labelled_)
            result_.rowLabels.push_back(row.front());
        ++rows_;
        return attn::okStatus();
    }

    LabelledMatrix finish()
    {
        result_.values =
            Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                values_.data(), Eigen::Index(rows_), Eigen::Index(columns_));
        return std::move(result_);
    }

private:
    LabelledMatrix result_;
    std::vector<double> values_;  // row by row
    std::size_t columns_ = 0;     // numbers in a row
    std::size_t rows_ = 0;        // matrix rows kept
    bool labelled_ = false;
};

}  // namespace

attn::Expected<LabelledMatrix> readMatrixCsv(std::string_view text)
{
    if (const attn::Status utf8 = checkUtf8Text(text); !utf8)
        return utf8.error();
    // A label and one number a column: a row wider than a matrix can be is
    // refused as it is read.
    CsvReader reader(text, std::size_t(attn::kMaxTokens) + 1);
    MatrixCsvBuilder table;
    const CsvRow blank{std::string()};
    const auto isBlank = [](const CsvRow& row) { return row.size() == 1 && row[0].empty(); };
    CsvRow row;
    long long number = 0;       // CSV row of `row`
    long long blanksSince = 0;  // first of the blank rows not yet known to be trailing, or 0
    while (reader.next(&row)) {
        ++number;
        if (isBlank(row)) {
            // Trailing blank rows are ignored: counted, not kept.
            if (blanksSince == 0)
                blanksSince = number;
            continue;
        }
        for (; blanksSince != 0 && blanksSince < number; ++blanksSince) {
            const attn::Status s = blanksSince == 1 ? table.header(blank) : table.add(blank, blanksSince);
            if (!s)
                return s.error();
        }
        blanksSince = 0;
        const attn::Status s = number == 1 ? table.header(row) : table.add(row, number);
        if (!s)
            return s.error();
    }
    if (!reader.error().empty())
        return attn::Error{reader.error()};
    if (number == 0 || (blanksSince == 1))
        return attn::Error{"the CSV file is empty"};
    return table.finish();
}

namespace {

// Every entry finite and within attn::kMaxInputMagnitude, as the engine takes
// it (validateInputs), but named as the file's reader names a cell: a CSV's
// row and column with its header row and label column, a .npy's entry.
attn::Status checkInputEntries(const attn::Matrix& m, bool npy, int offset)
{
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            const double v = m(i, j);
            if (std::isfinite(v) && std::abs(v) <= attn::kMaxInputMagnitude)
                continue;
            const std::string row = std::to_string(i + offset);
            const std::string col = std::to_string(j + offset);
            const std::string cell =
                npy ? "entry [" + std::to_string(i) + ", " + std::to_string(j) + "] (row " + row + ", column "
                          + col + ") is " + formatRoundTrip(v) + ";"
                    : "CSV row " + row + ", column " + col + ": " + formatRoundTrip(v) + " is";
            if (!std::isfinite(v))
                return attn::Error{cell + " not a finite number"};
            return attn::Error{cell + " too large: at most " + formatRoundTrip(attn::kMaxInputMagnitude)
                               + " in magnitude"};
        }
    return attn::okStatus();
}

}  // namespace

attn::Expected<attn::Matrix> readMatrixFile(const QString& path, const std::atomic<bool>* stop)
{
    const std::string name = QFileInfo(path).fileName().toStdString();
    const auto named = [&name](const std::string& message) {
        return attn::Error{message.rfind(name + ": ", 0) == 0 ? message : name + ": " + message};
    };
    if (QFileInfo(path).suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) != 0) {
        attn::Expected<attn::Matrix> m = readNpyFile(path, stop);
        if (!m)
            return m.error();
        if (const attn::Status fine = checkInputEntries(m.value(), true, 1); !fine)
            return named(fine.error().message);
        return m;
    }
    const attn::Expected<QByteArray> bytes =
        readInputFile(path, attn::kMaxMatrixCsvBytes, "CSV matrix", stop);
    if (attn::isCancelled(bytes))
        return bytes.error();
    if (!bytes)
        return named(bytes.error().message);
    attn::Expected<LabelledMatrix> table =
        readMatrixCsv(std::string_view(bytes->constData(), std::size_t(bytes->size())));
    if (!table)
        return named(table.error().message);
    // A labelled table has its header row and label column before the numbers.
    const int offset = table->columnLabels.empty() ? 1 : 2;
    if (const attn::Status fine = checkInputEntries(table->values, false, offset); !fine)
        return named(fine.error().message);
    return std::move(table.value().values);
}

}  // namespace attnlab
