// SPDX-License-Identifier: GPL-3.0-or-later
#include "qwen25_window_bench.h"

#include "attentionworker.h"
#include "benchutil.h"
#include "checkpointwriter.h"
#include "modelwatch.h"

#include <QDir>
#include <QLineEdit>
#include <QTemporaryDir>

#include <cstdio>
#include <string>
#include <vector>

namespace bench {

namespace {

constexpr const char* kCase = "qwen25_window";

void printError(const std::string& what)
{
    std::printf("{\"case\":\"%s\",\"n\":64,\"error\":\"%s\"}\n", kCase, what.c_str());
    std::fflush(stdout);
}

// Sets the field's text as if typed (the lab's session takes what the field
// emits as edited; the model follows the lab's sentence).
void setSentence(QLineEdit* field, const QString& text)
{
    field->setText(text);
    emit field->textEdited(field->text());
}

}  // namespace

void runQwen25WindowBench(int runs)
{
    QTemporaryDir dir;
    const LlamaShape shape = qwen25Shape();
    if (!dir.isValid()
        || writeLlamaFolder(dir.path(), shape,
                            QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/data/llama/tiny-llama/tokenizer.json"),
                            "BF16")
               == 0) {
        printError("cannot write the checkpoint folder");
        return;
    }
    ModelWindow w;
    if (!w.ok()) {
        printError("no sentence field or model grid");
        return;
    }
    attnlab::ModelController* models = w.models;
    attnlab::ModelSession* session = w.session;
    QLineEdit* field = w.field;
    // 64 words, one GPT-2 token each; the second sentence differs in its
    // last word, so that each run is a new pass.
    std::vector<QString> sentences;
    for (const char* last : {" film", " play"}) {
        std::string text = "Jane is going to the cinema to watch a new";
        for (int i = 10; i < 63; ++i)
            text += " word";
        sentences.push_back(QString::fromStdString(text + last));
    }
    setSentence(field, QStringLiteral("Jane is going to the cinema"));
    settle(200);

    Heartbeat heartbeat;
    heartbeat.start();
    const Clock::time_point t0 = Clock::now();
    models->openModel(dir.path());
    if (!waitUntil([&] { return session->hasModel() && !session->isLoading(); }, 120000)) {
        printError("the model did not open");
        return;
    }
    const double openMs = msSince(t0);
    const double openBlockMs = heartbeat.stop();
    ModelWatch watch(session, w.grid, field);
    if (!waitUntil([&] { return !session->isComputing(); }, 60000)) {
        printError("the first pass did not finish");
        return;
    }
    settle(200);

    // 64 tokens set in the field until their pass is painted.
    const Steps passes = measureSteps(watch, std::max(2, runs / 4), [&](int i) {
        const Clock::time_point mark = Clock::now();
        setSentence(field, sentences[std::size_t(i % 2)]);
        return mark;
    });
    const int n = int(session->tokens().size());

    // The baseline: the pass alone over the same tokens.
    std::vector<int> ids;
    for (const attnlab::ModelToken& t : session->tokens())
        ids.push_back(t.id);
    attn::DecoderRunOptions options;
    options.topK = attnlab::ModelSession::kNextTokens;
    options.threads = attnlab::AttentionWorker::threads();
    const attn::DecoderModel& decoder = *session->model()->decoder;
    const Timing engine = measure([&] { (void)decoder.run(ids, options); }, 3, 0.5, 5);

    // Keys typed at the sentence's end, each waited for.
    const QString keys = QStringLiteral(" abcdefghijklmnopqrstuvwxyz");
    const Steps typed = measureSteps(watch, runs, [&](int i) {
        const Clock::time_point mark = Clock::now();
        typeKey(field, keys[i % keys.size()]);
        return mark;
    });
    const Timing key = summarise(typed.shownMs);
    printCase(
        kCase, n, shape.width, summarise(passes.shownMs),
        "\"target_ms\":3000,\"open_ms\":" + std::to_string(openMs) + ",\"target_open_ms\":2000"
            + ",\"open_gui_block_ms\":" + std::to_string(openBlockMs) + ",\"engine_ms\":"
            + std::to_string(engine.medianMs) + ",\"key_median_ms\":" + std::to_string(key.medianMs)
            + ",\"key_p95_ms\":" + std::to_string(key.p95Ms) + ",\"max_gui_block_ms\":"
            + std::to_string(typed.maxBlockMs) + ",\"pass_gui_block_ms\":" + std::to_string(passes.maxBlockMs)
            + ",\"target_gui_block_ms\":50,\"timeouts\":" + std::to_string(passes.timeouts + typed.timeouts)
            + ",\"layers\":" + std::to_string(shape.layers) + ",\"dtype\":\"BF16\"");
}

}  // namespace bench
