// SPDX-License-Identifier: GPL-3.0-or-later
// GPT-2 tokenizer benchmark, each against a floor measured alternately in
// the same run:
//   load:   the floor reads both files and parses vocab.json with
//           QJsonDocument and splits merges.txt into its lines, the least any
//           reader does; the measured case is Gpt2Tokenizer::fromFolder
//           (strict checks, byte decoding, the merge table).
//   encode: a text of `tokens` words drawn from the vocabulary (seeded), so
//           most pieces differ. The floor is the pre-tokenizer alone (the
//           pattern, as GPT-2 writes it, over the text, each piece to UTF-8);
//           the measured case is encodeIds with the per-piece cache warm, as
//           when a sentence is edited. cold_cpu_ms is the first encoding by a
//           tokenizer just loaded (CPU time, the median of 3).

#include "gpt2tokenizer_bench.h"

#include "benchutil.h"
#include "gpt2tokenizer.h"

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

}  // namespace

void runGpt2TokenizerBench(const char* folder, int tokens)
{
    const QDir dir(QString::fromUtf8(folder));
    const QString vocabPath = dir.filePath(QStringLiteral("vocab.json"));
    const QString mergesPath = dir.filePath(QStringLiteral("merges.txt"));
    auto loaded = attnlab::Gpt2Tokenizer::fromFolder(dir.path());
    if (!loaded.ok()) {
        std::fprintf(stderr, "gpt2-tokenizer: %s\n", loaded.error().message.c_str());
        return;
    }
    const attnlab::Gpt2Tokenizer tokenizer = std::move(loaded).value();

    int sink = 0;
    const auto [loadFloor, load] = measurePair(
        [&] {
            const QJsonDocument vocab = QJsonDocument::fromJson(readAll(vocabPath));
            const QList<QByteArray> merges = readAll(mergesPath).split('\n');
            sink += int(vocab.object().size() + merges.size());
        },
        [&] {
            const auto t = attnlab::Gpt2Tokenizer::fromFolder(dir.path());
            sink += t.ok() ? t->vocabSize() : 0;
        },
        5, 2.0);
    printCase("gpt2_tokenizer_load", tokenizer.vocabSize(), tokenizer.mergeCount(), load,
              "\"floor_ms\":" + std::to_string(loadFloor.medianMs)
                  + ",\"ratio\":" + std::to_string(load.medianMs / loadFloor.medianMs)
                  + ",\"cpu_ms\":" + std::to_string(load.cpuMedianMs)
                  + ",\"floor_cpu_ms\":" + std::to_string(loadFloor.cpuMedianMs));

    // Words with a leading space ("Ġ" and letters only) drawn at random.
    std::vector<int> words;
    for (int id = 0; id < tokenizer.vocabSize(); ++id) {
        const QByteArray& b = tokenizer.tokenBytes(id);
        bool word = b.size() > 2 && b[0] == ' ';
        for (qsizetype i = 1; word && i < b.size(); ++i)
            word = (b[i] >= 'a' && b[i] <= 'z') || (b[i] >= 'A' && b[i] <= 'Z');
        if (word)
            words.push_back(id);
    }
    std::mt19937 rng(17);
    std::uniform_int_distribution<std::size_t> pick(0, words.size() - 1);
    std::vector<int> ids;
    for (int i = 0; i < tokens; ++i)
        ids.push_back(words[pick(rng)]);
    const QString text = tokenizer.decode(ids).value();
    const int n = int(tokenizer.encodeIds(text).size());

    // This thread's CPU time: one run each, so the wall clock of a shared
    // machine would mostly measure waiting.
    std::vector<double> cold;
    for (int i = 0; i < 3; ++i) {
        auto fresh = attnlab::Gpt2Tokenizer::fromFolder(dir.path());
        const double c0 = threadCpuMs();
        sink += int(fresh->encodeIds(text).size());
        cold.push_back(threadCpuMs() - c0);
    }
    const double coldMs = medianOf(cold);

    const QRegularExpression pattern(
        QStringLiteral("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"));
    const auto [encodeFloor, encode] = measurePair(
        [&] {
            QRegularExpressionMatchIterator it = pattern.globalMatch(text);
            while (it.hasNext())
                sink += int(it.next().capturedView().toUtf8().size());
        },
        [&] { sink += int(tokenizer.encodeIds(text).size()); }, 20, 1.0);
    printCase("gpt2_tokenizer_encode", n, int(text.size()), encode,
              "\"floor_ms\":" + std::to_string(encodeFloor.medianMs)
                  + ",\"ratio\":" + std::to_string(encode.medianMs / encodeFloor.medianMs)
                  + ",\"cpu_ms\":" + std::to_string(encode.cpuMedianMs) + ",\"floor_cpu_ms\":"
                  + std::to_string(encodeFloor.cpuMedianMs) + ",\"cold_cpu_ms\":" + std::to_string(coldMs));
    if (sink == -1)
        std::printf("%d\n", sink);
}

}  // namespace bench
