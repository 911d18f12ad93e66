// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading reference matrices (tests/data/*.json, produced with PyTorch) and
// comparing them with the engine's, reporting the largest difference.

#include "matrix.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <cmath>

namespace testdata {

inline QJsonObject readJson(const QString& fileName)
{
    QFile file(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/") + fileName);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot open test data %s", qPrintable(file.fileName()));
    return QJsonDocument::fromJson(file.readAll()).object();
}

// A JSON array of rows (or a flat array, as one row) as a matrix.
inline attn::Matrix toMatrix(const QJsonValue& value)
{
    const QJsonArray rows = value.toArray();
    if (rows.isEmpty())
        return attn::Matrix();
    if (!rows.first().isArray()) {
        attn::Matrix m(1, rows.size());
        for (int j = 0; j < rows.size(); ++j)
            m(0, j) = rows[j].toDouble();
        return m;
    }
    attn::Matrix m(rows.size(), rows.first().toArray().size());
    for (int i = 0; i < rows.size(); ++i) {
        const QJsonArray row = rows[i].toArray();
        for (int j = 0; j < row.size(); ++j)
            m(i, j) = row[j].toDouble();
    }
    return m;
}

// Largest |a - b| (infinity when the shapes differ).
inline double maxAbsDiff(const attn::Matrix& a, const attn::Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return INFINITY;
    return a.size() == 0 ? 0.0 : (a - b).cwiseAbs().maxCoeff();
}

}  // namespace testdata
