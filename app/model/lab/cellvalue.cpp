// SPDX-License-Identifier: GPL-3.0-or-later
#include "cellvalue.h"

#include "size_limits.h"

#include <QCoreApplication>
#include <QLocale>

#include <cmath>

namespace attnlab {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("Session", text);
}

}  // namespace

attn::Expected<double> parseCellValue(const QString& text)
{
    const QString trimmed = text.trimmed();
    // Not the user's locale either: numbers are written with a point
    // everywhere here (the tables, CSV, the command line).
    if (trimmed.contains(QLatin1Char(',')))
        return attn::Error{tr("\"%1\" is not a number: the decimal separator is a point (%2).")
                               .arg(text, QString(trimmed).replace(QLatin1Char(','), QLatin1Char('.')))
                               .toStdString()};
    bool ok = false;
    double value = QLocale::c().toDouble(trimmed, &ok);
    if (!ok)
        value = QLocale().toDouble(trimmed, &ok);
    if (!ok || !std::isfinite(value))
        return attn::Error{tr("\"%1\" is not a finite number.").arg(text).toStdString()};
    if (std::abs(value) > attn::kMaxInputMagnitude)
        return attn::Error{tr("%1 is too large: entries are limited to ±%2.")
                               .arg(trimmed)
                               .arg(attn::kMaxInputMagnitude, 0, 'g', 3)
                               .toStdString()};
    return value;
}

attn::Expected<double> parseCellValue(MatrixId which, int row, int col, const QString& text)
{
    attn::Expected<double> value = parseCellValue(text);
    if (!value)
        return attn::Error{tr("%1(%2, %3): %4 The old value is kept.")
                               .arg(matrixName(which))
                               .arg(row + 1)
                               .arg(col + 1)
                               .arg(QString::fromStdString(value.error().message))
                               .toStdString()};
    return value;
}

QString cellRefusal(const attn::Matrix& m, MatrixId which, int row, int col, double value)
{
    if (row < 0 || row >= m.rows() || col < 0 || col >= m.cols())
        return tr("%1 has no cell (%2, %3).").arg(matrixName(which)).arg(row + 1).arg(col + 1);
    if (!std::isfinite(value))
        return tr("%1 is not a finite number; %2(%3, %4) keeps its value.")
            .arg(value)
            .arg(matrixName(which))
            .arg(row + 1)
            .arg(col + 1);
    if (std::abs(value) > attn::kMaxInputMagnitude)
        return tr("%1 is too large: entries of %2 are limited to ±%3.")
            .arg(value, 0, 'g', 6)
            .arg(matrixName(which))
            .arg(attn::kMaxInputMagnitude, 0, 'g', 3);
    return QString();
}

}  // namespace attnlab
