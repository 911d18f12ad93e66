// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2folder.h"

#include "gpt2.h"
#include "gpt2tokenizer.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <string>
#include <utility>

namespace attnlab {

attn::Expected<Gpt2Model> readGpt2Model(const QString& folder)
{
    attn::Expected<Gpt2Checkpoint> checkpoint = readGpt2Checkpoint(folder);
    if (!checkpoint)
        return checkpoint.error();
    attn::Expected<Gpt2Tokenizer> tokenizer = Gpt2Tokenizer::fromFolder(folder);
    if (!tokenizer)
        return tokenizer.error();
    const int configVocab = checkpoint->weights.config.vocabSize;
    if (tokenizer->vocabSize() != configVocab)
        return attn::Error{"vocab.json has " + std::to_string(tokenizer->vocabSize())
                           + " tokens but config.json's vocab_size is " + std::to_string(configVocab)};
    attn::Expected<std::unique_ptr<attn::Gpt2DecoderModel>> decoder =
        attn::Gpt2DecoderModel::create(checkpoint->weights);
    if (!decoder)
        return decoder.error();
    Gpt2Model model;
    model.decoder = std::move(decoder).value();
    model.checkpoint = std::move(checkpoint).value();
    model.tokenizer = std::make_shared<const Gpt2Tokenizer>(std::move(tokenizer).value());
    model.folder = folder;
    model.identity = gpt2FolderIdentity(folder);
    return model;
}

QString gpt2FolderIdentity(const QString& folder)
{
    const QDir dir(folder);
    QCryptographicHash digest(QCryptographicHash::Sha256);
    constexpr qint64 kHeaderBytes = qint64(1) << 20;
    for (const char* name : {"config.json", "vocab.json", "merges.txt", "model.safetensors"}) {
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
