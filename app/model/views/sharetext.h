// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A share of attention (0 to 1) as text that never claims more than it is:
// rounded to `digits` significant digits unless that reads as all (1) or
// none (0) while it is not, then with as many more digits as tell it apart
// (0.9997, not 1), up to six; beyond that "almost all" or "almost none".

#include <QString>

namespace attnlab {

QString shareText(double share, int digits = 2);

}  // namespace attnlab
