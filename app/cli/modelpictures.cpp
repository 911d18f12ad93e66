// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelpictures.h"

#include "modelpicturesexporter.h"
#include "pictureencoder.h"

#include <QStringList>

#include <memory>
#include <utility>

namespace attnlab {

attn::Expected<std::vector<OutputFile>> modelPictureFiles(const ModelStart& start, const QString& sentence,
                                                          const QString& caption,
                                                          const ExportFormats& formats, const QSize& size)
{
    const attn::DecoderResult& r = start.result;
    QStringList tokens;
    for (const int id : r.tokenIds)
        tokens << start.model.tokenizer->token(id).display;
    QStringList topLabels;
    for (const attn::TopToken& top : r.top)
        topLabels << start.model.tokenizer->token(top.id).display;
    // Not owned: the result outlives the exporters, all local to this call.
    const std::shared_ptr<const attn::DecoderResult> result(std::shared_ptr<void>(), &r);
    ModelPictureOptions options;
    // A what-if scale or mask is part of what the pictures show, so their titles say it.
    options.modelName = ModelPicturesExporter::modelName(
        start.model.folder, start.scaleMode, r.divisors,
        r.mask != start.model.config().ownMask() ? r.mask.name() : std::string());
    options.sentence = sentence;
    // The folder's label (the demo model's "… not a language model") and
    // the user's --caption share the line under the titles.
    const QString label = start.model.label;
    options.caption = label.isEmpty() || caption.trimmed().isEmpty()
                          ? label + caption
                          : label + QStringLiteral(" · ") + caption;
    options.everyLayer = true;
    options.keyValueHeads = start.model.decoder->config().kvHeads;
    if (start.rotary)
        ModelPicturesExporter::setRotary(&options, start.model.decoder->config(), *start.rotary);
    const ModelPicturesExporter exporter(result, tokens, topLabels, options);
    if (exporter.isEmpty())
        return attn::Error{"the model's pictures need every head's maps"};

    std::vector<OutputFile> files;
    for (const auto& [wanted, format] :
         {std::pair{formats.png, ImageFormat::Png}, std::pair{formats.svg, ImageFormat::Svg},
          std::pair{formats.pdf, ImageFormat::Pdf}}) {
        if (!wanted)
            continue;
        attn::Expected<std::vector<OutputFile>> pictures = exporter.files(format, size);
        if (!pictures)
            return pictures.error();
        for (OutputFile& file : pictures.value())
            files.push_back(std::move(file));
        if (start.difference) {
            // Drawn now, as the exporter's files are.
            const ModelMapPicture map = ModelPicturesExporter::differencePicture(
                start.difference->b - start.difference->a, start.differenceLabels, start.differenceCaption);
            if (attn::Status s = appendPictureFile(
                    &files, [&](QPainter& p, const QSize& sz) { exporter.paintMap(p, sz, map); }, format,
                    size, ModelPicturesExporter::mapSize(), QStringLiteral("difference"));
                !s)
                return s.error();
        }
    }
    return files;
}

}  // namespace attnlab
