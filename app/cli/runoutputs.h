// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The files of one headless run, the single head's and a multi-head run's
// alike: the export (--export-dir, --format) and the lab (--save) in one
// transaction, so that a --save that fails leaves no export written either
// and the files they replace as they were.

#include "attentionsnapshot.h"
#include "labfile.h"
#include "stagedwrite.h"

#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// attentionExportFiles of `snapshot` into exportDir as `formats` asks
// (checked by the caller; none: json and csv) and `extraExportFiles`
// (flash.json), and `lab` at savePath
// when both are given; then "Wrote N file(s) to 'DIR'." and "Saved the lab
// to 'FILE'.". The exit status: 0, or 1 with one line saying what could
// not be written. A QCoreApplication exists.
int writeRunOutputs(const AttentionSnapshot& snapshot, const LabState* lab,
                    const std::optional<std::string>& exportDir, const std::optional<std::string>& formats,
                    const std::optional<std::string>& savePath,
                    std::vector<OutputFile> extraExportFiles = {});

}  // namespace attnlab
