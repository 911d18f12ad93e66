// SPDX-License-Identifier: GPL-3.0-or-later
#include "modeltokenizer.h"

#include <string>

namespace attnlab {

std::vector<ModelToken> ModelTokenizer::encode(const QString& text) const
{
    const std::vector<int> ids = encodeIds(text);
    std::vector<ModelToken> tokens;
    tokens.reserve(ids.size());
    for (const int id : ids)
        tokens.push_back(token(id));
    return tokens;
}

ModelToken ModelTokenizer::outsideVocabulary(int id)
{
    return {id, QString(), QStringLiteral("<id %1>").arg(id)};
}

attn::Expected<QByteArray> ModelTokenizer::decodeBytes(const std::vector<int>& ids) const
{
    QByteArray bytes;
    for (const int id : ids) {
        if (id < 0 || id >= vocabSize())
            return attn::Error{"token id " + std::to_string(id) + " is not in the vocabulary (ids 0 to "
                               + std::to_string(vocabSize() - 1) + ")"};
        bytes += tokenBytes(id);
    }
    return bytes;
}

attn::Expected<QString> ModelTokenizer::decode(const std::vector<int>& ids) const
{
    const attn::Expected<QByteArray> bytes = decodeBytes(ids);
    if (!bytes)
        return bytes.error();
    return QString::fromUtf8(*bytes);
}

}  // namespace attnlab
