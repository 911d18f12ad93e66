// SPDX-License-Identifier: GPL-3.0-or-later
#include "cinemalesson.h"

#include "modelsession.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(CinemaLesson)
};

}  // namespace

QString CinemaLesson::sentence()
{
    return QStringLiteral("Jane is going to the cinema to watch a new");
}

QStringList CinemaLesson::pieces()
{
    return {QStringLiteral("Ġcinema"), QStringLiteral("Ġwatch")};
}

namespace {

// The divisors that differ from √head_dim and a temperature other than 1.
QString whatIfText(const ModelSession& session)
{
    QStringList parts;
    const attn::HeadDivisors& divisors = session.divisors();
    if (!divisors.empty()) {
        const attn::HeadDivisors standard = attn::HeadDivisors::standard(session.config());
        int changed = 0;
        double first = 0.0;
        bool same = true;
        for (std::size_t i = 0; i < divisors.values.size() && i < standard.values.size(); ++i) {
            if (divisors.values[i] == standard.values[i])
                continue;
            if (changed == 0)
                first = divisors.values[i];
            same = same && divisors.values[i] == first;
            ++changed;
        }
        if (changed > 0) {
            const int headDim = session.config().headDim;
            const QString root = QStringLiteral("√%1 = %2")
                                     .arg(headDim)
                                     .arg(QString::number(std::sqrt(double(headDim)), 'g', 4));
            parts << (same ? Text::tr("scores divided by %1 instead of %2 in %3 of %4 heads")
                                 .arg(QString::number(first, 'g', 4), root)
                                 .arg(changed)
                                 .arg(divisors.values.size())
                           : Text::tr("divisors other than %1 in %2 of %3 heads")
                                 .arg(root)
                                 .arg(changed)
                                 .arg(divisors.values.size()));
        }
    }
    if (session.temperature() != 1.0)
        parts << Text::tr("temperature %1").arg(QString::number(session.temperature(), 'g', 3));
    return parts.join(QStringLiteral("; "));
}

}  // namespace

CinemaLesson::CinemaLesson(const ModelSession& session)
{
    const std::vector<ModelToken>& tokens = session.resultTokens();
    hasResult_ = session.result() != nullptr && !tokens.empty();
    if (!hasResult_)
        return;
    tokenCount_ = int(tokens.size());
    last_ = tokens.back().display;
    for (const QString& piece : pieces()) {
        Key key;
        key.piece = piece;
        key.index = HeadRanking::findPiece(tokens, piece);
        if (key.index >= 0) {
            key.display = tokens[std::size_t(key.index)].display;
            key.top = HeadRanking::rank(session.weightsFromLast(key.index), kTopHeads);
        } else {
            key.display = QStringLiteral("␣") + piece.mid(1);  // "Ġ" is the space's byte
        }
        keys_.push_back(key);
    }
    settings_ = whatIfText(session);
    const std::vector<attn::TopToken>& next = session.nextTokens();
    for (std::size_t i = 0; i < std::min(next.size(), std::size_t(kNextWords)); ++i)
        next_.push_back({session.vocabularyToken(next[i].id).display, next[i].probability});
}

bool CinemaLesson::hasKey() const
{
    return std::any_of(keys_.begin(), keys_.end(), [](const Key& k) { return k.index >= 0; });
}

QString CinemaLesson::headText(const RankedHead& head)
{
    return Text::tr("layer %1 · head %2 (%3)")
        .arg(head.layer + 1)
        .arg(head.head + 1)
        .arg(QString::number(head.weight, 'f', 3));
}

QString CinemaLesson::percentText(double probability)
{
    const double percent = 100.0 * probability;
    return Text::tr("%1 %").arg(QString::number(percent, percent >= 0.1 ? 'f' : 'g', percent >= 0.1 ? 1 : 2));
}

QString CinemaLesson::rankingText(const Key& key) const
{
    if (key.index < 0)
        return Text::tr("no “%1” among the tokens").arg(key.display);
    QStringList heads;
    for (const RankedHead& h : key.top)
        heads << headText(h);
    return Text::tr("on “%1”: %2").arg(key.display, heads.join(QStringLiteral(", ")));
}

QString CinemaLesson::shortHeadText(const RankedHead& head)
{
    return Text::tr("L%1 H%2 %3")
        .arg(head.layer + 1)
        .arg(head.head + 1)
        .arg(QString::number(head.weight, 'f', 3));
}

QString CinemaLesson::panelText() const
{
    if (!hasResult_ || !hasKey())
        return QString();
    QStringList parts;
    for (const Key& key : keys_) {
        if (key.index < 0)
            continue;
        QStringList heads;
        for (const RankedHead& h : key.top)
            heads << shortHeadText(h);
        parts << Text::tr("→ “%1”: %2").arg(key.display, heads.join(QStringLiteral(", ")));
    }
    return Text::tr("Largest weights from the last token “%1” %2")
        .arg(last_, parts.join(QStringLiteral(" · ")));
}

QString CinemaLesson::lessonText() const
{
    if (!hasResult_)
        return QString();
    QStringList parts;
    for (const Key& key : keys_)
        parts << rankingText(key);
    QStringList words;
    for (const NextWord& w : next_)
        words << Text::tr("“%1” %2").arg(w.display, percentText(w.probability));
    return Text::tr(
               "The model read %n token(s), the last “%1”. The heads whose weight from “%1” "
               "is largest (of every layer's heads): %2. The most likely next tokens: %3. "
               "These are this checkpoint's measured weights and probabilities; a head "
               "with a large weight on a token looks at it, which does not mean that the "
               "model understands the sentence (a checkpoint with random weights ranks "
               "random heads).",
               nullptr, tokenCount_)
               .arg(last_, parts.join(QStringLiteral("; ")), words.join(QStringLiteral(", ")))
           + (settings_.isEmpty()
                  ? QString()
                  : QLatin1Char(' ')
                        + Text::tr(
                              "Measured under the Model tab's what-if settings, not the model as trained: "
                              "%1. “Reset to √d_k” and temperature 1 give the trained model's.")
                              .arg(settings_));
}

}  // namespace attnlab
