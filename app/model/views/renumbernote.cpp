// SPDX-License-Identifier: GPL-3.0-or-later
#include "renumbernote.h"

#include <QCoreApplication>
#include <QHash>

namespace attnlab {

namespace {

struct RenumberNote {
    Q_DECLARE_TR_FUNCTIONS(RenumberNote)
};

QHash<QString, int> idsOf(const TokenNumbering& n)
{
    QHash<QString, int> ids;
    for (int i = 0; i < n.tokens.size() && i < n.ids.size(); ++i)
        ids.insert(n.tokens[i], n.ids[i]);
    return ids;
}

}  // namespace

QString renumberNote(const TokenNumbering& before, const TokenNumbering& after, attn::InitMode init)
{
    if (init != attn::InitMode::Article || before.tokens.isEmpty())
        return QString();
    const QHash<QString, int> old = idsOf(before);
    QStringList added;
    QStringList moved;  // distinct words that kept their text but not their id
    QString example;
    for (int i = 0; i < after.tokens.size() && i < after.ids.size(); ++i) {
        const QString& word = after.tokens[i];
        const auto it = old.constFind(word);
        if (it == old.cend()) {
            if (!added.contains(word))
                added << word;
        } else if (*it != after.ids[i] && !moved.contains(word)) {
            if (moved.isEmpty())
                example = RenumberNote::tr("“%1” %2 → %3").arg(word).arg(*it).arg(after.ids[i]);
            moved << word;
        }
    }
    if (moved.isEmpty())
        return QString();
    const QString cause = added.isEmpty()
                              ? RenumberNote::tr("A word left the sentence")
                              : RenumberNote::tr("The new word “%1” sorts before others").arg(added.first());
    return RenumberNote::tr(
               "%1: the article's initialisation numbers the vocabulary in sorted order "
               "and draws each row of X from its id, so %n word(s) took a new id (%2) "
               "and new numbers in X, Q, K and V. The normal and unit-variance "
               "initialisations keep each word's numbers.",
               nullptr, int(moved.size()))
        .arg(cause, example);
}

}  // namespace attnlab
