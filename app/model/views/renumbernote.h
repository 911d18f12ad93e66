// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Why every token changed after one new word. The article's initialisation
// numbers the vocabulary in sorted order and draws X by those ids, so a
// word that sorts before others moves their ids, and every row of X (and
// of Q, K, V) after it. The note says so, naming the new word and a moved
// one; empty when no word that stayed changed its id, or under the other
// initialisations (which number words by first appearance and keep them).

#include "model.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace attnlab {

struct TokenNumbering {
    QStringList tokens;  // in sentence order
    QList<int> ids;      // the vocabulary id of each
};

QString renumberNote(const TokenNumbering& before, const TokenNumbering& after, attn::InitMode init);

}  // namespace attnlab
