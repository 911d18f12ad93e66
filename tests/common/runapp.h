// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The built program run as a user would (QProcess), for the command-line
// suites; the including test defines ATTNLAB_EXECUTABLE (its CMake target).

#include <QByteArray>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringList>

namespace apptest {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;  // "did not finish" when it hung or crashed
};

inline Run runApp(const QStringList& arguments)
{
    QProcess process;
    process.start(QStringLiteral(ATTNLAB_EXECUTABLE), arguments);
    Run run;
    if (!process.waitForFinished(120000) || process.exitStatus() != QProcess::NormalExit) {
        process.kill();
        run.err = "did not finish";
        return run;
    }
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

inline QJsonObject readJsonFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

}  // namespace apptest
