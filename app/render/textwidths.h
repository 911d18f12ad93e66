// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Widths of short texts in one font, remembered between calls. The views
// size their token columns and chips from every token whenever the tokens
// change, which while typing is every key, though one token changed:
// shaping 256 tokens in three panels took about 15 ms of the GUI thread a
// key. The numbers are QFontMetrics::horizontalAdvance's; each thread has
// its own tables (one per font), emptied when one grows past 16,384 texts.

#include <QFont>
#include <QFontMetrics>
#include <QHash>
#include <QString>

namespace attnlab {

class TextWidths {
public:
    explicit TextWidths(const QFont& font);

    const QFontMetrics& metrics() const { return fm_; }
    // fm.horizontalAdvance(text), measured once per font and text.
    int advance(const QString& text);
    // The text if it fits `width`, else fm.elidedText (ElideRight); as
    // HeatmapLabelPainter::elided, which never elides a text that fits.
    QString elided(const QString& text, int width);

private:
    QFontMetrics fm_;
    QHash<QString, int>* table_;
};

}  // namespace attnlab
