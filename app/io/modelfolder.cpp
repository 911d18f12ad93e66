// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelfolder.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <set>

namespace attnlab {

namespace {

constexpr qint64 kHeaderBytes = qint64(1) << 20;

// FOLDER/name into `digest`: its name, then the whole file, or for a
// .safetensors file its first MiB (the header), its size and its
// modification time. Returns the bytes read.
QByteArray digestFile(QCryptographicHash& digest, const QDir& dir, const QString& name)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    digest.addData(name.toUtf8());
    // A FIFO's open would wait for a writer: only regular files count.
    if (!QFileInfo(path).isFile() || !file.open(QIODevice::ReadOnly))
        return {};  // the readers said so already, or will
    const bool checkpoint = path.endsWith(QLatin1String(".safetensors"));
    const QByteArray bytes = file.read(checkpoint ? kHeaderBytes : file.size());
    digest.addData(bytes);
    if (checkpoint) {
        const QFileInfo info(path);
        digest.addData(QByteArray::number(info.size()));
        digest.addData(QByteArray::number(info.lastModified().toMSecsSinceEpoch()));
    }
    return bytes;
}

// The shards a model.safetensors.index.json names in its weight_map, each
// once, in name order; only plain file names (the reader refuses others).
std::set<QString> indexShards(const QByteArray& index)
{
    std::set<QString> shards;
    const QJsonObject map =
        QJsonDocument::fromJson(index).object().value(QLatin1String("weight_map")).toObject();
    for (auto it = map.begin(); it != map.end(); ++it) {
        const QString shard = it.value().toString();
        if (shard.endsWith(QLatin1String(".safetensors")) && !shard.contains(QLatin1Char('/'))
            && !shard.contains(QLatin1Char('\\')))
            shards.insert(shard);
    }
    return shards;
}

}  // namespace

QString folderIdentity(const QString& folder, const std::vector<const char*>& files)
{
    const QDir dir(folder);
    QCryptographicHash digest(QCryptographicHash::Sha256);
    for (const char* name : files) {
        const QByteArray bytes = digestFile(digest, dir, QLatin1String(name));
        // A sharded checkpoint: each shard counts as model.safetensors does.
        if (QByteArray(name).endsWith(".safetensors.index.json"))
            for (const QString& shard : indexShards(bytes))
                digestFile(digest, dir, shard);
    }
    const QString canonical = QFileInfo(folder).canonicalFilePath();
    return (canonical.isEmpty() ? QFileInfo(folder).absoluteFilePath() : canonical) + QLatin1Char('#')
           + QString::fromLatin1(digest.result().toHex().left(32));
}

}  // namespace attnlab
