// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A token's text as the views print it: bounded before any font measures or
// lays it out. A word of 150,000 letters or a letter with 60,000 combining
// marks is one token; laid out whole it took gigabytes and tens of seconds.
// displayLabel keeps at most `maxClusters` grapheme clusters (what a reader
// sees as one character: "é" as e + U+0301, a flag, a family emoji) of at
// most kMaxClusterUnits UTF-16 units each and ends a cut text with "…". Its
// cost is bounded by what it keeps, not by the token's length. Every place
// that measures or draws token text goes through it (the maps' labels,
// the token strip, the focus panel, the tables, the tooltips, the exported
// pictures), then elides to the pixel width it has. Data files (json, csv,
// npy, the lab) keep the whole token.

#include <QString>

namespace attnlab {

// Clusters kept of a label; more than any map or chip shows at its widest.
inline constexpr int kLabelClusters = 64;
// UTF-16 units kept of one cluster: the longest emoji sequences need 15.
inline constexpr int kMaxClusterUnits = 32;

QString displayLabel(const QString& text, int maxClusters = kLabelClusters);

}  // namespace attnlab
