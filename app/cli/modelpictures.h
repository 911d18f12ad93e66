// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The pictures of a --model run (--format png, svg, pdf): model_view.<ext>,
// the layers x heads grid of every head's attention weights
// (ModelGridRenderer) on white, titled with the model, the token count and
// the scale. Needs a QGuiApplication (main() makes one for pictures).

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

// One file per picture format of `formats`; an empty `size` takes
// modelViewSize. Drawn here, not when written; the error is the encoder's
// (a size out of range).
attn::Expected<std::vector<OutputFile>> modelPictureFiles(const ModelStart& start,
                                                          const ExportFormats& formats, const QSize& size);

}  // namespace attnlab
