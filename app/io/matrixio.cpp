// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrixio.h"

#include "csv.h"
#include "npy.h"
#include "numberformat.h"

#include <QFile>
#include <QFileInfo>

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

std::vector<std::string> indexLabels(int count)
{
    std::vector<std::string> labels;
    labels.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i)
        labels.push_back(std::to_string(i));
    return labels;
}

namespace {

// Rows of numbers only (numpy.savetxt(..., delimiter=",")): no labels.
attn::Expected<LabelledMatrix> readPlainCsv(const std::vector<CsvRow>& rows)
{
    const std::size_t columns = rows.front().size();
    LabelledMatrix result;
    result.values.resize(Eigen::Index(rows.size()), Eigen::Index(columns));
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const CsvRow& row = rows[r];
        const std::string where = "CSV row " + std::to_string(r + 1);
        if (row.size() != columns)
            return attn::Error{where + ": " + std::to_string(row.size()) + " cells, expected "
                               + std::to_string(columns) + " as in row 1"};
        for (std::size_t c = 0; c < columns; ++c) {
            double value = 0;
            if (!parseNumber(row[c], &value))
                return attn::Error{where + ", column " + std::to_string(c + 1) + ": '" + row[c]
                                   + "' is not a number"};
            result.values(Eigen::Index(r), Eigen::Index(c)) = value;
        }
    }
    return result;
}

}  // namespace

attn::Expected<LabelledMatrix> readMatrixCsv(std::string_view text)
{
    attn::Expected<std::vector<CsvRow>> parsed = parseCsv(text);
    if (!parsed)
        return parsed.error();
    std::vector<CsvRow>& rows = parsed.value();
    const auto blankRow = [](const CsvRow& row) { return row.size() == 1 && row[0].empty(); };
    while (!rows.empty() && blankRow(rows.back()))
        rows.pop_back();
    if (rows.empty())
        return attn::Error{"the CSV file is empty"};

    LabelledMatrix result;
    CsvRow& header = rows.front();
    double first = 0;
    if (parseNumber(header.front(), &first))
        return readPlainCsv(rows);
    result.corner = header.front();
    result.columnLabels.assign(header.begin() + 1, header.end());
    const std::size_t columns = result.columnLabels.size();
    if (columns == 0)
        return attn::Error{"CSV row 1: the header names no column"};

    result.values.resize(Eigen::Index(rows.size() - 1), Eigen::Index(columns));
    for (std::size_t r = 1; r < rows.size(); ++r) {
        const CsvRow& row = rows[r];
        const std::string where = "CSV row " + std::to_string(r + 1);
        if (row.size() != columns + 1)
            return attn::Error{where + ": " + std::to_string(row.size()) + " cells, expected "
                               + std::to_string(columns + 1) + " as in the header"};
        result.rowLabels.push_back(row.front());
        for (std::size_t c = 0; c < columns; ++c) {
            double value = 0;
            if (!parseNumber(row[c + 1], &value))
                return attn::Error{where + ", column " + std::to_string(c + 2) + ": '" + row[c + 1]
                                   + "' is not a number"};
            result.values(Eigen::Index(r - 1), Eigen::Index(c)) = value;
        }
    }
    return result;
}

attn::Expected<attn::Matrix> readMatrixFile(const QString& path)
{
    if (QFileInfo(path).suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) != 0)
        return readNpyFile(path);
    QFile file(path);
    const std::string name = QFileInfo(path).fileName().toStdString();
    if (!file.open(QIODevice::ReadOnly))
        return attn::Error{name + ": " + file.errorString().toStdString()};
    const QByteArray bytes = file.readAll();
    attn::Expected<LabelledMatrix> table =
        readMatrixCsv(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    if (!table)
        return attn::Error{name + ": " + table.error().message};
    return std::move(table.value().values);
}

}  // namespace attnlab
