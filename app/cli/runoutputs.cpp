// SPDX-License-Identifier: GPL-3.0-or-later
#include "runoutputs.h"

#include "attentionexport.h"
#include "consoleio.h"
#include "stagedwrite.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <cstdio>
#include <utility>
#include <vector>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

QString text(const std::string& s)
{
    return QString::fromStdString(s);
}

}  // namespace

int writeRunOutputs(const AttentionSnapshot& snapshot, const LabState* lab,
                    const std::optional<std::string>& exportDir, const std::optional<std::string>& formatList,
                    const std::optional<std::string>& savePath, std::vector<OutputFile> extraExportFiles)
{
    std::vector<OutputFileSet> sets;
    std::size_t exported = 0;
    if (exportDir) {
        const ExportFormats formats = formatList ? parseExportFormats(*formatList).value() : ExportFormats();
        sets.push_back({localPath(*exportDir), attentionExportFiles(snapshot, formats)});
        for (OutputFile& file : extraExportFiles)
            sets.back().files.push_back(std::move(file));
        exported = sets.back().files.size();
    }
    if (savePath && lab) {
        const QString path = localPath(*savePath);
        const QDir parent = QFileInfo(path).absoluteDir();
        if (!parent.exists())
            return fail(
                kExitRuntimeError,
                CommandLine::tr("cannot write '%1': the directory '%2' does not exist")
                    .arg(QDir::toNativeSeparators(path), QDir::toNativeSeparators(parent.absolutePath())));
        attn::Expected<OutputFileSet> labSet = labFileSet(path, *lab);
        if (!labSet)
            return fail(kExitRuntimeError, text(labSet.error().message));
        sets.push_back(std::move(labSet).value());
    }
    if (const attn::Status written = writeFileSetsAtomically(sets); !written)
        return fail(kExitRuntimeError, text(written.error().message));
    if (exportDir)
        printLine(stdout, CommandLine::tr("Wrote %n file(s) to '%1'.", nullptr, int(exported))
                              .arg(QDir::toNativeSeparators(localPath(*exportDir))));
    if (savePath)
        printLine(
            stdout,
            CommandLine::tr("Saved the lab to '%1'.").arg(QDir::toNativeSeparators(localPath(*savePath))));
    return 0;
}

}  // namespace attnlab
