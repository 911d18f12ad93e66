// SPDX-License-Identifier: GPL-3.0-or-later
#include "displaylabel.h"

#include <QTextBoundaryFinder>

#include <algorithm>

namespace attnlab {

QString displayLabel(const QString& text, int maxClusters)
{
    if (maxClusters <= 0)
        return text.isEmpty() ? text : QStringLiteral("\u2026");
    // Every cluster is at least one unit: a text this short is whole.
    if (text.size() <= std::min(maxClusters, kMaxClusterUnits))
        return text;
    // Only a head of the text is looked at. A boundary strictly inside the
    // head is one of the whole text: grapheme rules look at the two
    // characters around a boundary and back, never further ahead.
    const qsizetype limit = qsizetype(maxClusters) * kMaxClusterUnits;
    const QString head = text.left(limit + 1);
    QTextBoundaryFinder finder(QTextBoundaryFinder::Grapheme, head);
    qsizetype end = 0;
    for (int clusters = 0; clusters < maxClusters; ++clusters) {
        const qsizetype next = finder.toNextBoundary();
        if (next < 0 || next == end)
            break;  // the text ends here
        if (next - end > kMaxClusterUnits) {
            // A cluster of many marks: its first units, whole code points.
            qsizetype cut = end + kMaxClusterUnits;
            if (text.at(cut - 1).isHighSurrogate())
                --cut;
            return text.left(cut) + QChar(0x2026);
        }
        end = next;
        if (end == text.size())
            return text;
    }
    if (end == text.size())
        return text;
    return text.left(end) + QChar(0x2026);
}

}  // namespace attnlab
