// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The pictures of a --model run (--format png, svg, pdf), drawn by
// ModelPicturesExporter (white ground, titled with the folder's name, a
// scale other than sqrt-dk, and the sentence): model_view.<ext>, the layers x heads grid of every head's
// weights; head_view_layer<N>.<ext> for each layer N = 1.., its heads'
// weights as lines from queries to keys; next_token.<ext>, the most likely
// next tokens with their probabilities and the temperature; with --rope,
// rope.<ext>, the head before and after the rotation; with --compare,
// difference.<ext>, map B − A as the Lens page draws it. Needs a
// QGuiApplication (main() makes one for pictures).

#include "attentionexport.h"
#include "expected.h"
#include "modelcommand.h"
#include "stagedwrite.h"

#include <QSize>
#include <QString>

#include <vector>

namespace attnlab {

// Every picture in each format of `formats`, drawn here, not when written;
// an empty `size` takes each picture's default (ModelPicturesExporter's).
// `caption` (--caption), when not empty, is a line under every title.
// The error is the encoder's (a size out of range).
attn::Expected<std::vector<OutputFile>> modelPictureFiles(const ModelStart& start, const QString& sentence,
                                                          const QString& caption,
                                                          const ExportFormats& formats, const QSize& size);

}  // namespace attnlab
