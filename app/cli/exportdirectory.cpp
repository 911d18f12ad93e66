// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportdirectory.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>

#include <sys/stat.h>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

QString shown(const QString& path)
{
    return QStringLiteral("'%1'").arg(QDir::toNativeSeparators(path));
}

}  // namespace

std::optional<QString> linkInTheWay(const QString& directory)
{
    // From DIR up to the first folder that exists: the first entry that is
    // there (lstat) but cannot be followed (stat) is the link in the way.
    const QString wanted = QDir::cleanPath(QFileInfo(directory).absoluteFilePath());
    QString path = wanted;
    while (!path.isEmpty()) {
        const QByteArray bytes = QFile::encodeName(path);
        struct stat entry {};
        if (::lstat(bytes.constData(), &entry) == 0) {
            struct stat target {};
            if (!S_ISLNK(entry.st_mode) || ::stat(bytes.constData(), &target) == 0)
                return std::nullopt;  // a real entry: the writer says what is wrong with it
            const bool loop = errno == ELOOP;
            const QString link = path == wanted ? CommandLine::tr("it") : shown(path);
            const QString what =
                loop ? CommandLine::tr("%1 is a symbolic link loop").arg(link)
                     : CommandLine::tr("%1 is a broken symbolic link (to %2, which does not exist)")
                           .arg(link, shown(QFileInfo(path).symLinkTarget()));
            return CommandLine::tr("cannot create the directory %1: %2").arg(shown(directory), what);
        }
        const QString parent = QFileInfo(path).path();
        if (parent == path)
            break;
        path = parent;
    }
    return std::nullopt;
}

}  // namespace attnlab
