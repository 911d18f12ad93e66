// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelpictures.h"

#include "modelpicturesexporter.h"
#include "pictureencoder.h"

#include <QDir>
#include <QStringList>

#include <memory>
#include <utility>

namespace attnlab {

attn::Expected<std::vector<OutputFile>> modelPictureFiles(const ModelStart& start, const QString& sentence,
                                                          const ExportFormats& formats, const QSize& size)
{
    const attn::Gpt2Result& r = start.result;
    QStringList tokens;
    for (const int id : r.tokenIds)
        tokens << start.model.tokenizer.token(id).display;
    QStringList topLabels;
    for (const attn::Gpt2TopToken& top : r.top)
        topLabels << start.model.tokenizer.token(top.id).display;
    // Not owned: the result outlives the exporters, all local to this call.
    const std::shared_ptr<const attn::Gpt2Result> result(std::shared_ptr<void>(), &r);
    ModelPictureOptions options;
    options.modelName = QDir(start.model.folder).dirName();
    // A what-if scale is part of what the pictures show, so their titles say it.
    if (start.scaleMode == "none")
        options.modelName += QStringLiteral(" (scale none: raw scores)");
    else if (start.scaleMode == "custom" && !r.divisors.empty())
        options.modelName += QStringLiteral(" (scores / %1)").arg(r.divisors.values.front());
    options.sentence = sentence;
    // One exporter per layer's head view; the first also draws the grid and
    // the next tokens.
    std::vector<std::unique_ptr<ModelPicturesExporter>> layers;
    for (int layer = 0; layer < int(r.layers.size()); ++layer) {
        options.headViewLayer = layer;
        layers.push_back(std::make_unique<ModelPicturesExporter>(result, tokens, topLabels, options));
    }
    if (layers.empty() || layers.front()->isEmpty())
        return attn::Error{"the model's pictures need every head's maps"};
    const ModelPicturesExporter& first = *layers.front();
    const auto sized = [&size](QSize defaultSize) { return size.isEmpty() ? defaultSize : size; };

    std::vector<OutputFile> files;
    const auto add = [&files](attn::Expected<OutputFile> file) -> attn::Status {
        if (!file)
            return file.error();
        files.push_back(std::move(file).value());
        return attn::okStatus();
    };
    for (const auto& [wanted, format] :
         {std::pair{formats.png, ImageFormat::Png}, std::pair{formats.svg, ImageFormat::Svg},
          std::pair{formats.pdf, ImageFormat::Pdf}}) {
        if (!wanted)
            continue;
        if (attn::Status s =
                add(pictureFile([&first](QPainter& p, const QSize& s) { first.paintModelView(p, s); }, format,
                                sized(ModelPicturesExporter::modelViewSize()), QStringLiteral("model_view")));
            !s)
            return s.error();
        for (std::size_t layer = 0; layer < layers.size(); ++layer) {
            const ModelPicturesExporter& exporter = *layers[layer];
            if (attn::Status s = add(
                    pictureFile([&exporter](QPainter& p, const QSize& s) { exporter.paintHeadView(p, s); },
                                format, sized(ModelPicturesExporter::headViewSize()),
                                QStringLiteral("head_view_layer%1").arg(layer + 1)));
                !s)
                return s.error();
        }
        if (attn::Status s =
                add(pictureFile([&first](QPainter& p, const QSize& s) { first.paintNextToken(p, s); }, format,
                                sized(ModelPicturesExporter::nextTokenSize()), QStringLiteral("next_token")));
            !s)
            return s.error();
    }
    return files;
}

}  // namespace attnlab
