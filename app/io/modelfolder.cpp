// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelfolder.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace attnlab {

QString folderIdentity(const QString& folder, const std::vector<const char*>& files)
{
    const QDir dir(folder);
    QCryptographicHash digest(QCryptographicHash::Sha256);
    constexpr qint64 kHeaderBytes = qint64(1) << 20;
    for (const char* name : files) {
        const QString path = dir.filePath(QLatin1String(name));
        QFile file(path);
        digest.addData(QByteArray(name));
        // A FIFO's open would wait for a writer: only regular files count.
        if (!QFileInfo(path).isFile() || !file.open(QIODevice::ReadOnly))
            continue;  // the readers said so already, or will
        const bool checkpoint = path.endsWith(QLatin1String(".safetensors"));
        digest.addData(file.read(checkpoint ? kHeaderBytes : file.size()));
        if (checkpoint) {
            const QFileInfo info(path);
            digest.addData(QByteArray::number(info.size()));
            digest.addData(QByteArray::number(info.lastModified().toMSecsSinceEpoch()));
        }
    }
    const QString canonical = QFileInfo(folder).canonicalFilePath();
    return (canonical.isEmpty() ? QFileInfo(folder).absoluteFilePath() : canonical) + QLatin1Char('#')
           + QString::fromLatin1(digest.result().toHex().left(32));
}

}  // namespace attnlab
