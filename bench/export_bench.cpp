// SPDX-License-Identifier: GPL-3.0-or-later
// Export benchmark: the combined pipeline figure as a 1920 x 1080 PNG.

#include "export_bench.h"

#include "attentionsnapshot.h"
#include "benchutil.h"
#include "viewexporter.h"

#include <QFile>
#include <QTemporaryDir>

#include <string>

namespace bench {

void runExportBench(int n)
{
    attn::ModelConfig config;
    config.sentence = attnlab::placeholderSentence(n);
    const attn::Expected<attnlab::AttentionSnapshot> snapshot =
        attnlab::computeSnapshot(config, attn::AttentionOptions());
    if (!snapshot) {
        std::printf("{\"case\":\"export_pipeline_png\",\"n\":%d,\"error\":\"no snapshot\"}\n", n);
        return;
    }
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("pipeline.png"));
    const QSize size(1920, 1080);
    qint64 bytes = 0;
    bool ok = true;
    const Timing t = measure(
        [&] {
            const attnlab::ViewExporter exporter(*snapshot);
            const attn::Expected<QByteArray> png =
                exporter.encode(attnlab::ExportView::Pipeline, attnlab::ImageFormat::Png, size);
            QFile file(path);
            ok = ok && png && file.open(QIODevice::WriteOnly) && file.write(*png) == png->size();
            bytes = png ? png->size() : 0;
        },
        5, 2.0, 50);
    if (!ok) {
        std::printf("{\"case\":\"export_pipeline_png\",\"n\":%d,\"error\":\"export failed\"}\n", n);
        return;
    }
    printCase(
        "export_pipeline_png", n, config.dK, t,
        "\"width\":1920,\"height\":1080,\"bytes\":" + std::to_string(bytes) + ",\"target_median_ms\":300");
}

}  // namespace bench
