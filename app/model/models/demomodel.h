// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where the demo model is (issue 39): the small GPT-2 the project made
// itself, weights set by hand (models/demo in the repository, scripts/make_demo_model.py), which
// the Model tab shows until the user opens a folder and `--model demo`
// names on the command line. Looked for, in order:
//   1. the installed copy: <the executable's folder>/../share/attention-lab/
//      models/demo (`cmake --install`, the Debian package);
//   2. the source tree's models/demo, as the build was configured (the
//      build folder's program and the README's scripts/run.sh).
// A folder counts when it holds a config.json.

#include "expected.h"

#include <QString>
#include <QStringList>

namespace attnlab {

// `--model demo`: this word names the demo model (a folder called demo is
// given as ./demo).
inline constexpr const char* kDemoModelName = "demo";

// The places looked in, in order (absolute, cleaned).
QStringList demoModelCandidates();
// The first candidate that holds config.json, or an error naming where it
// was looked for: "the demo model is missing (looked in A and B)".
attn::Expected<QString> demoModelFolder();
// FOLDER as given, or the demo model's folder when it is kDemoModelName.
attn::Expected<QString> resolveModelFolder(const QString& folder);

}  // namespace attnlab
