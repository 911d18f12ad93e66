// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The text of attention-lab --help: every option with its range and default,
// the files written and the exit status.

#include <QString>

namespace attnlab {

QString commandLineHelpText();

}  // namespace attnlab
