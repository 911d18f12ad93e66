// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2typing_bench.h"

#include "attentionworker.h"
#include "benchutil.h"
#include "gpt2folder.h"
#include "gpt2open_bench.h"
#include "modelwatch.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QTemporaryDir>

#include <cstdio>
#include <string>
#include <vector>

namespace bench {

void runGpt2TypingBench(const char* tokenizerFolder, int runs)
{
    QTemporaryDir dir;
    if (!dir.isValid() || writeGpt2SmallFolder(dir.path()) == 0
        || !QFile::copy(QDir(QString::fromUtf8(tokenizerFolder)).filePath(QStringLiteral("vocab.json")),
                        dir.filePath(QStringLiteral("vocab.json")))
        || !QFile::copy(QDir(QString::fromUtf8(tokenizerFolder)).filePath(QStringLiteral("merges.txt")),
                        dir.filePath(QStringLiteral("merges.txt")))) {
        std::fprintf(stderr, "gpt2-typing: cannot write the checkpoint folder\n");
        return;
    }
    ModelWindow w;
    if (!w.ok()) {
        std::fprintf(stderr, "gpt2-typing: no sentence field or model grid\n");
        return;
    }
    attnlab::ModelController* models = w.models;
    attnlab::ModelSession* session = w.session;
    QLineEdit* field = w.field;
    models->openModel(dir.path());
    if (!waitUntil([&] { return session->hasModel() && !session->isLoading(); }, 120000)) {
        std::fprintf(stderr, "gpt2-typing: the model did not open\n");
        return;
    }
    ModelWatch watch(session, w.grid, field);

    // Sentences of about `words` tokens, then keys typed at their end.
    for (const int words : {31, 255}) {
        std::string text = "Jane is going to the cinema to watch a new";
        for (int i = 10; i < words; ++i)
            text += " word";
        watch.arm();
        // As if typed: the lab's session takes what the field emits as
        // edited, and the model follows the lab's sentence.
        field->setText(QString::fromStdString(text));
        emit field->textEdited(field->text());
        if (!waitUntil([&] { return watch.done(); }, 120000)) {
            std::printf("{\"case\":\"gpt2_typing_key\",\"n\":%d,\"error\":\"setup timed out\"}\n", words);
            continue;
        }
        settle(200);
        // The baseline: the pass alone over the tokens the window has now
        // plus one (the typed character makes a new piece or grows one).
        std::vector<int> ids;
        for (const attnlab::ModelToken& t : session->tokens())
            ids.push_back(t.id);
        ids.push_back(ids.back());
        attn::DecoderRunOptions options;
        options.topK = attnlab::ModelSession::kNextTokens;
        options.threads = attnlab::AttentionWorker::threads();
        const attn::Gpt2Weights& weights = *attnlab::gpt2Weights(*session->model());
        const Timing engine = bench::measure([&] { (void)attn::runGpt2(weights, ids, options); }, 3, 0.5, 10);
        const int n = int(ids.size());

        // Keys typed at the sentence's end, a space and the letters in turn:
        // each makes a new piece or a longer one.
        const QString keys = QStringLiteral(" abcdefghijklmnopqrstuvwxyz");
        const Steps one = measureSteps(watch, runs, [&](int i) {
            const Clock::time_point t0 = Clock::now();
            typeKey(field, keys[i % keys.size()]);
            return t0;
        });
        // Bursts of 8 keys 40 ms apart: each supersedes the pass in flight;
        // timed from the last key.
        const int cancelledBefore = session->cancelledPasses();
        const Steps bursts = measureSteps(watch, std::max(3, runs / 4), [&](int b) {
            Clock::time_point last;
            for (int k = 0; k < 8; ++k) {
                if (k > 0)
                    settle(40);
                typeKey(field, keys[(b + k) % keys.size()]);
                last = Clock::now();
            }
            return last;
        });
        const int cancelled = session->cancelledPasses() - cancelledBefore;
        const auto figures = [&](const Steps& steps) {
            return "\"engine_ms\":" + std::to_string(engine.medianMs)
                   + ",\"target_gui_block_ms\":50,\"max_gui_block_ms\":" + std::to_string(steps.maxBlockMs)
                   + ",\"timeouts\":" + std::to_string(steps.timeouts);
        };
        printCase("gpt2_typing_key", n, 768, summarise(one.shownMs), figures(one));
        printCase("gpt2_typing_burst", n, 768, summarise(bursts.shownMs),
                  figures(bursts) + ",\"interval_ms\":40,\"cancelled_passes\":" + std::to_string(cancelled));
    }
}

}  // namespace bench
