// SPDX-License-Identifier: GPL-3.0-or-later
// tokenizer.json benchmark (Qwen3's real tokenizer, tests/data/llama/
// tiny-qwen3), each against a floor measured alternately in the same run:
//   load:   the floor reads tokenizer.json and parses it with QJsonDocument,
//           the least any reader does; the measured case is
//           TokenizerJson::fromData on both files (strict checks, byte
//           decoding, the merge table, the added tokens).
//   encode: a text of `words` words drawn from the vocabulary (seeded), so
//           most pieces differ; there is no cache, so every encoding is
//           cold. The floor is the pre-tokenizer's Split regex alone over
//           the text, each piece to UTF-8.

#include "tokenizerjson_bench.h"

#include "benchutil.h"
#include "tokenizerjson.h"
#include "tokenizerpretokenizer.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <cstdio>
#include <random>
#include <string>

namespace bench {

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

std::string_view view(const QByteArray& bytes)
{
    return {bytes.constData(), std::size_t(bytes.size())};
}

}  // namespace

void runTokenizerJsonBench(const char* folder, int words)
{
    const QDir dir(QString::fromUtf8(folder));
    const QByteArray json = readAll(dir.filePath(QStringLiteral("tokenizer.json")));
    const QByteArray config = readAll(dir.filePath(QStringLiteral("tokenizer_config.json")));
    auto loaded = attnlab::TokenizerJson::fromData(view(json), view(config));
    if (!loaded.ok()) {
        std::fprintf(stderr, "tokenizer-json: %s\n", loaded.error().message.c_str());
        return;
    }
    const std::shared_ptr<const attnlab::TokenizerJson> tokenizer = *loaded;

    int sink = 0;
    const auto [loadFloor, load] = measurePair(
        [&] {
            sink += int(QJsonDocument::fromJson(readAll(dir.filePath(QStringLiteral("tokenizer.json"))))
                            .object()
                            .size());
        },
        [&] {
            const auto t = attnlab::TokenizerJson::fromData(
                view(readAll(dir.filePath(QStringLiteral("tokenizer.json")))), view(config));
            sink += t.ok() ? (*t)->vocabSize() : 0;
        },
        3, 2.0);
    printCase("tokenizer_json_load", tokenizer->vocabSize(), tokenizer->mergeCount(), load,
              "\"floor_ms\":" + std::to_string(loadFloor.medianMs)
                  + ",\"ratio\":" + std::to_string(load.medianMs / loadFloor.medianMs)
                  + ",\"cpu_ms\":" + std::to_string(load.cpuMedianMs)
                  + ",\"floor_cpu_ms\":" + std::to_string(loadFloor.cpuMedianMs));

    // Words with a leading space ("Ġ" and letters only) drawn at random.
    std::vector<int> pool;
    for (int id = 0; id < tokenizer->modelVocabSize(); ++id) {
        const QByteArray& b = tokenizer->tokenBytes(id);
        bool word = b.size() > 2 && b[0] == ' ';
        for (qsizetype i = 1; word && i < b.size(); ++i)
            word = (b[i] >= 'a' && b[i] <= 'z') || (b[i] >= 'A' && b[i] <= 'Z');
        if (word)
            pool.push_back(id);
    }
    std::mt19937 rng(17);
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    std::vector<int> ids;
    for (int i = 0; i < words; ++i)
        ids.push_back(pool[pick(rng)]);
    const QString text = tokenizer->decode(ids).value();
    const int n = int(tokenizer->encodeIds(text).size());

    const QString qwenSplit = QStringLiteral(
        "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
        "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
        "\\s+(?!\\S)|\\s+");
    const QRegularExpression pattern(attnlab::pcrePatternFromOniguruma(qwenSplit).value(),
                                     QRegularExpression::UseUnicodePropertiesOption);
    const auto [encodeFloor, encode] = measurePair(
        [&] {
            QRegularExpressionMatchIterator it = pattern.globalMatch(text);
            while (it.hasNext())
                sink += int(it.next().capturedView().toUtf8().size());
        },
        [&] { sink += int(tokenizer->encodeIds(text).size()); }, 20, 1.0);
    printCase("tokenizer_json_encode", n, int(text.size()), encode,
              "\"words\":" + std::to_string(words) + ",\"floor_ms\":" + std::to_string(encodeFloor.medianMs)
                  + ",\"ratio\":" + std::to_string(encode.medianMs / encodeFloor.medianMs)
                  + ",\"cpu_ms\":" + std::to_string(encode.cpuMedianMs)
                  + ",\"floor_cpu_ms\":" + std::to_string(encodeFloor.cpuMedianMs));
    if (sink == -1)
        std::printf("%d\n", sink);
}

}  // namespace bench
