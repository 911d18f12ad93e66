// SPDX-License-Identifier: GPL-3.0-or-later
#include "lastfolder.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace attnlab {

namespace {

QString key(FolderUse use)
{
    return use == FolderUse::Export ? QStringLiteral("export/directory") : QStringLiteral("files/directory");
}

}  // namespace

QString lastFolder(FolderUse use)
{
    const QString dir = QSettings().value(key(use)).toString();
    return !dir.isEmpty() && QFileInfo(dir).isDir() ? dir : QDir::homePath();
}

QString inLastFolder(FolderUse use, const QString& fileName)
{
    return QDir(lastFolder(use)).filePath(fileName);
}

void rememberFile(FolderUse use, const QString& file)
{
    if (!file.isEmpty())
        QSettings().setValue(key(use), QFileInfo(file).absolutePath());
}

void rememberFolder(FolderUse use, const QString& folder)
{
    if (!folder.isEmpty())
        QSettings().setValue(key(use), QFileInfo(folder).absoluteFilePath());
}

}  // namespace attnlab
