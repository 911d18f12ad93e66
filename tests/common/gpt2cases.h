// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The reference cases of both tiny checkpoints (tests/data/gpt2/*/
// reference.json) as Qt Test data rows: "checkpoint" (its folder's name)
// and "index" (the case in its `cases`).

#include "testdata.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QtTest>

namespace gpt2cases {

inline const char* const kCheckpoints[] = {"tiny-gpt2", "tiny-gpt2-lmhead-f16"};

inline QJsonObject reference(const QString& checkpoint)
{
    return testdata::readJson(QStringLiteral("gpt2/%1/reference.json").arg(checkpoint));
}

// In a _data() slot: one row per case of each checkpoint.
inline void addReferenceRows()
{
    QTest::addColumn<QString>("checkpoint");
    QTest::addColumn<int>("index");
    for (const char* name : kCheckpoints) {
        const QJsonArray cases = reference(QLatin1String(name))["cases"].toArray();
        QVERIFY(!cases.isEmpty());
        for (int i = 0; i < cases.size(); ++i)
            QTest::addRow("%s: %s", name, qPrintable(cases[i].toObject()["sentence"].toString()))
                << QString::fromLatin1(name) << i;
    }
}

}  // namespace gpt2cases
