// SPDX-License-Identifier: GPL-3.0-or-later
#include "textwidths.h"

namespace attnlab {

namespace {

constexpr qsizetype kMaxTexts = 16384;

}  // namespace

TextWidths::TextWidths(const QFont& font) : fm_(font)
{
    thread_local QHash<QString, QHash<QString, int>> tables;
    table_ = &tables[font.key()];
}

int TextWidths::advance(const QString& text)
{
    const auto it = table_->constFind(text);
    if (it != table_->constEnd())
        return *it;
    if (table_->size() >= kMaxTexts)
        table_->clear();  // thousands of tokens measured: start over
    const int width = fm_.horizontalAdvance(text);
    table_->insert(text, width);
    return width;
}

QString TextWidths::elided(const QString& text, int width)
{
    return advance(text) <= width ? text : fm_.elidedText(text, Qt::ElideRight, width);
}

}  // namespace attnlab
