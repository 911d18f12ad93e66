// SPDX-License-Identifier: GPL-3.0-or-later
#include "smollm2_bench.h"

#include "benchutil.h"
#include "checkpointwriter.h"
#include "childprocess.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace bench {

namespace {

constexpr const char* kCase = "smollm2_cli";

void printError(const std::string& what)
{
    std::printf("{\"case\":\"%s\",\"n\":64,\"error\":\"%s\"}\n", kCase, what.c_str());
    std::fflush(stdout);
}

// The last line of the child's output that is a JSON object.
QJsonObject lastJsonLine(const std::string& output)
{
    const QList<QByteArray> lines = QByteArray::fromStdString(output).trimmed().split('\n');
    return lines.isEmpty() ? QJsonObject() : QJsonDocument::fromJson(lines.last()).object();
}

}  // namespace

void runSmolLm2CliBench(const std::string& app, const std::string& torchScript, int runs)
{
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("model"));
    const LlamaShape shape = smolLm2Shape();
    if (!dir.isValid() || !QDir().mkpath(model)
        || writeLlamaFolder(model, shape,
                            QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/data/llama/tiny-llama/tokenizer.json"),
                            "BF16")
               == 0) {
        printError("cannot write the checkpoint folder");
        return;
    }
    // 64 words, one GPT-2 token each.
    std::string sentence = "Jane is going to the cinema to watch a new";
    for (int i = 10; i < 64; ++i)
        sentence += " word";
    const std::string out = dir.filePath(QStringLiteral("out")).toStdString();
    const std::vector<std::string> cli = {
        app, "--model", model.toStdString(), "--sentence", sentence, "--export-dir", out, "--format", "json"};
    const std::vector<std::string> env = {
        "QT_QPA_PLATFORM=offscreen",
        "XDG_CONFIG_HOME=" + dir.filePath(QStringLiteral("config")).toStdString()};

    std::vector<double> ms;
    long peakKiB = 0;
    for (int i = 0; i <= runs; ++i) {  // the first warms the page cache
        QDir(QString::fromStdString(out)).removeRecursively();
        const ChildRun run = runChild(cli, env);
        if (!run.ok) {
            printError("the command line failed");
            return;
        }
        if (i > 0)
            ms.push_back(run.wallMs());
        peakKiB = std::max(peakKiB, run.maxRssKiB);
    }
    const qint64 exported = QDir(QString::fromStdString(out)).entryList(QDir::Files).size();

    // The baseline: PyTorch's forward pass alone, in a child of its own.
    std::string baseline;
    if (!QFileInfo::exists(QStringLiteral("/usr/bin/python3"))) {
        std::fprintf(stderr, "smollm2-cli: /usr/bin/python3 is missing: no PyTorch baseline\n");
        baseline = ",\"baseline\":\"python3 missing\"";
    } else {
        const ChildRun torch = runChild({"/usr/bin/python3", torchScript, "--model", model.toStdString(),
                                         "--tokens", "64", "--threads", "2"});
        const QJsonObject r = lastJsonLine(torch.output);
        if (!torch.ok || !r.contains(QLatin1String("forward_ms"))) {
            const std::string why =
                r.value(QLatin1String("error")).toString(QStringLiteral("the script failed")).toStdString();
            std::fprintf(stderr, "smollm2-cli: no PyTorch baseline: %s\n", why.c_str());
            baseline = ",\"baseline\":\"" + why + "\"";
        } else {
            baseline =
                ",\"torch_forward_ms\":" + std::to_string(r.value(QLatin1String("forward_ms")).toDouble())
                + ",\"torch_load_ms\":" + std::to_string(r.value(QLatin1String("load_ms")).toDouble())
                + ",\"torch_threads\":2,\"torch_version\":\""
                + r.value(QLatin1String("torch")).toString().toStdString() + "\"";
        }
    }
    printCase(kCase, 64, shape.width, summarise(ms),
              "\"target_ms\":1500,\"peak_rss_mb\":" + std::to_string(double(peakKiB) / 1024.0)
                  + ",\"target_mb\":1200,\"layers\":" + std::to_string(shape.layers)
                  + ",\"vocab\":" + std::to_string(shape.vocab)
                  + ",\"dtype\":\"BF16\",\"files_written\":" + std::to_string(exported) + baseline);
}

}  // namespace bench
