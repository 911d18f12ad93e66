// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The pictures of a --model run (--format png, svg, pdf), each on white
// under a title naming the folder: model_view.<ext>, the layers x heads
// grid of every head's attention weights (ModelGridRenderer) with the
// model's shape, dtype, token count and scale; head_view_layer<N>.<ext>
// for each layer N = 1.., its heads' weights as lines from queries to keys
// (HeadLinesRenderer); next_token.<ext>, the most likely next tokens with
// their probabilities and the temperature (NextTokenRenderer). Needs a
// QGuiApplication (main() makes one for pictures).

#include "attentionexport.h"
#include "expected.h"
#include "modelcommand.h"
#include "stagedwrite.h"

#include <QSize>

#include <vector>

namespace attnlab {

// The grid's default picture size for a model of `layers` x `heads`: about
// 90 px a tile, at least 640 x 480.
QSize modelViewSize(int layers, int heads);
// The head view's for n tokens: 900 wide, 28 px a token (600 to 4000 high).
QSize headViewSize(int tokens);

// Every picture in each format of `formats`; an empty `size` takes each
// picture's default (modelViewSize, headViewSize, next_token 900 x 100 + 30 a token). Drawn here, not when
// written; the error is the encoder's (a size out of range).
attn::Expected<std::vector<OutputFile>> modelPictureFiles(const ModelStart& start,
                                                          const ExportFormats& formats, const QSize& size);

}  // namespace attnlab
