// SPDX-License-Identifier: GPL-3.0-or-later
// Opening a GPT-2 checkpoint of GPT-2 small's exact shapes (12 layers, E 768,
// 12 heads, 50257 tokens, 1024 positions: 124,439,808 parameters, F32, the
// names without prefix and the 12 causal-mask buffers, 548 MB as Hugging
// Face's gpt2 folder), written with random numbers into a temporary folder:
//   gpt2_open: readGpt2Checkpoint on the folder (config.json checked, the
//     file read into memory, the header and every tensor checked), median
//     of a few;
//     the floor reads the file's bytes once through a 1 MiB buffer, the
//     least a reader that copies does. Both with the file in the page cache.
//   gpt2_open_memory: this process's resident size (VmRSS) before, right
//     after opening, and after one pass over every weight (what the forward
//     pass will touch; resident from the open on, the file being read).

#include "gpt2open_bench.h"

#include "benchutil.h"
#include "checkpointwriter.h"
#include "gpt2checkpoint.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace bench {

namespace {

std::vector<TensorShape> gpt2SmallShapes(qint64 layers, qint64 e, qint64 vocab, qint64 positions)
{
    std::vector<TensorShape> out = {{"wte.weight", {vocab, e}}, {"wpe.weight", {positions, e}}};
    for (qint64 i = 0; i < layers; ++i) {
        const std::string h = "h." + std::to_string(i) + ".";
        out.insert(out.end(), {{h + "ln_1.weight", {e}},
                               {h + "ln_1.bias", {e}},
                               {h + "attn.bias", {1, 1, positions, positions}},
                               {h + "attn.c_attn.weight", {e, 3 * e}},
                               {h + "attn.c_attn.bias", {3 * e}},
                               {h + "attn.c_proj.weight", {e, e}},
                               {h + "attn.c_proj.bias", {e}},
                               {h + "ln_2.weight", {e}},
                               {h + "ln_2.bias", {e}},
                               {h + "mlp.c_fc.weight", {e, 4 * e}},
                               {h + "mlp.c_fc.bias", {4 * e}},
                               {h + "mlp.c_proj.weight", {4 * e, e}},
                               {h + "mlp.c_proj.bias", {e}}});
    }
    out.insert(out.end(), {{"ln_f.weight", {e}}, {"ln_f.bias", {e}}});
    return out;
}

double residentMb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
    return -1;
}

double sumOf(const attn::FloatTensor& t)
{
    return double(t.map().sum());
}

}  // namespace

qint64 writeGpt2SmallFolder(const QString& folder)
{
    const qint64 layers = 12, e = 768, heads = 12, vocab = 50257, positions = 1024;
    const QJsonObject config{
        {"model_type", "gpt2"}, {"n_layer", layers},          {"n_head", heads},
        {"n_embd", e},          {"n_positions", positions},   {"n_ctx", positions},
        {"vocab_size", vocab},  {"layer_norm_epsilon", 1e-5}, {"activation_function", "gelu_new"}};
    QFile configFile(QDir(folder).filePath(QStringLiteral("config.json")));
    if (!configFile.open(QIODevice::WriteOnly) || configFile.write(QJsonDocument(config).toJson()) <= 0)
        return 0;
    configFile.close();
    return writeRandomSafetensors(QDir(folder).filePath(QStringLiteral("model.safetensors")),
                                  gpt2SmallShapes(layers, e, vocab, positions));
}

void runGpt2OpenBench()
{
    QTemporaryDir dir;
    if (!dir.isValid()) {
        std::fprintf(stderr, "gpt2-open: no temporary folder\n");
        return;
    }
    const qint64 e = 768;
    const qint64 parameters = writeGpt2SmallFolder(dir.path());
    if (parameters == 0) {
        std::fprintf(stderr, "gpt2-open: cannot write the checkpoint\n");
        return;
    }
    const QString modelPath = dir.filePath(QStringLiteral("model.safetensors"));
    const double fileMb = double(QFile(modelPath).size()) / 1e6;

    // The first open, from a small process: the resident sizes.
    const double before = residentMb();
    auto first = attnlab::readGpt2Checkpoint(dir.path());
    if (!first.ok()) {
        std::fprintf(stderr, "gpt2-open: %s\n", first.error().message.c_str());
        return;
    }
    const double afterOpen = residentMb();
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const attn::Gpt2Weights& w = first->weights;
    double sink = sumOf(w.wte) + sumOf(w.wpe) + sumOf(w.lnFWeight) + sumOf(w.lnFBias);
    for (const attn::Gpt2Block& b : w.blocks)
        for (const attn::FloatTensor* t :
             {&b.ln1Weight, &b.ln1Bias, &b.attnWeight, &b.attnBias, &b.attnProjWeight, &b.attnProjBias,
              &b.ln2Weight, &b.ln2Bias, &b.fcWeight, &b.fcBias, &b.mlpProjWeight, &b.mlpProjBias})
            sink += sumOf(*t);
    const double touchMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const double afterTouch = residentMb();
    first = attn::Error{"closed"};  // unmaps before the timed runs

    std::vector<char> buffer(1 << 20);
    const auto [floor, open] = measurePair(
        [&] {
            QFile f(modelPath);
            if (!f.open(QIODevice::ReadOnly))
                return;
            qint64 got = 0;
            while ((got = f.read(buffer.data(), qint64(buffer.size()))) > 0)
                sink += buffer[std::size_t(got - 1)];
        },
        [&] {
            const auto c = attnlab::readGpt2Checkpoint(dir.path());
            sink += c.ok() ? c->weights.config.nLayer : 0;
        },
        5, 1.0, 20);
    printCase("gpt2_open", int(parameters), int(e), open,
              "\"floor_ms\":" + std::to_string(floor.medianMs)
                  + ",\"ratio\":" + std::to_string(open.medianMs / floor.medianMs)
                  + ",\"cpu_ms\":" + std::to_string(open.cpuMedianMs)
                  + ",\"file_mb\":" + std::to_string(fileMb) + ",\"target_ms\":1000");
    std::printf(
        "{\"case\":\"gpt2_open_memory\",\"n\":%d,\"d\":%d,\"rss_before_mb\":%.1f,\"rss_after_open_mb\":%.1f,"
        "\"rss_after_touch_mb\":%.1f,\"touch_ms\":%.1f,\"target_mb\":800}\n",
        int(parameters), int(e), before, afterOpen, afterTouch, touchMs);
    std::fflush(stdout);
    if (sink == -1.5)
        std::printf("%f\n", sink);
}

}  // namespace bench
