// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The frames of a d_k sweep, for slides or a GIF: each the pipeline figure
// of the result computed at its own d_k (DkSweepSource), under a band
// titled with that d_k ("d_k = 64", and the step). Drawn from the numbers,
// never grabbed from the screen: one frame per step whatever the speed of
// the machine or of the window.

#include "attentionsnapshot.h"
#include "expected.h"
#include "labfile.h"
#include "stagedwrite.h"
#include "viewexporter.h"
#include "weightsscale.h"

#include <QByteArray>
#include <QSize>
#include <QString>

#include <vector>

class QPainter;

namespace attnlab {

class DkSweepSource;

// How the frames look: the window's choices, or the exports' defaults.
struct DkSweepFrameStyle {
    int focusRow = -1;
    ExportOptions options;
    WeightsScaleMode weightsScale = WeightsScaleMode::Automatic;
};

// 1800 x 800: the pipeline figure's 1800 x 720 and the title band.
QSize dkSweepFrameSize();

// One frame: step `step` (1-based) of `steps`, of `snapshot` (at its d_k).
void paintDkSweepFrame(QPainter& painter, const QSize& size, const AttentionSnapshot& snapshot, int step,
                       int steps, const DkSweepFrameStyle& style);
attn::Expected<QByteArray> dkSweepFramePng(const AttentionSnapshot& snapshot, int step, int steps,
                                           const QSize& size, const DkSweepFrameStyle& style);

// The frame of `dK` from `source`, as PNG bytes.
attn::Expected<QByteArray> dkSweepFramePng(DkSweepSource& source, int dK, int step, int steps,
                                           const QSize& size, const DkSweepFrameStyle& style);

// The command line's sweep: frame_0001.png ... one per d_k of `dKs` (in
// that order) from `start`, drawn in full before anything is written.
attn::Expected<std::vector<OutputFile>> dkSweepFrameFiles(const LabState& start, const std::vector<int>& dKs,
                                                          const QSize& size,
                                                          const DkSweepFrameStyle& style = {});

}  // namespace attnlab
