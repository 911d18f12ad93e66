// SPDX-License-Identifier: GPL-3.0-or-later
#include "copylesson.h"

#include "cinemalesson.h"
#include "head_scores.h"
#include "modelsession.h"

#include <QCoreApplication>

namespace attnlab {

namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(CopyLesson)
};

std::optional<CopyLesson::Head> firstBy(const ModelSession& session, attn::HeadScoreKind kind)
{
    const std::vector<attn::HeadIndex> ranked = session.rankedHeads(kind);
    if (ranked.empty())
        return std::nullopt;
    const std::optional<double>& score =
        session.headScores().at(ranked.front().layer, ranked.front().head)[kind];
    if (!score)
        return std::nullopt;
    return CopyLesson::Head{ranked.front(), *score};
}

}  // namespace

QString CopyLesson::sentence()
{
    return QStringLiteral("The cat sat on the mat. The cat sat on the");
}

CopyLesson::CopyLesson(const ModelSession& session)
{
    const std::vector<ModelToken>& tokens = session.resultTokens();
    hasResult_ = session.result() != nullptr && !tokens.empty() && !session.resultProbe();
    if (!hasResult_)
        return;
    previous_ = firstBy(session, attn::HeadScoreKind::PreviousToken);
    induction_ = firstBy(session, attn::HeadScoreKind::Induction);
    const int last = int(tokens.size()) - 1;
    for (int j = last - 1; j >= 0; --j)
        if (tokens[std::size_t(j)].id == tokens.back().id) {
            copiedId_ = tokens[std::size_t(j) + 1].id;
            copied_ = tokens[std::size_t(j) + 1].display;
            break;
        }
    if (copiedId_ < 0)
        return;
    intact_ = attn::tokenProbability(session.result()->lastLogits, copiedId_, session.temperature());
    const std::vector<attn::HeadIndex>& ablated = session.resultAblatedHeads();
    if (ablated.empty() || session.ablatedLogits().size() == 0)
        return;
    if (induction_ && ablated.size() == 1 && ablated.front().layer == induction_->index.layer
        && ablated.front().head == induction_->index.head)
        ablated_ = attn::tokenProbability(session.ablatedLogits(), copiedId_, session.temperature());
    else
        otherAblation_ = true;
}

QString CopyLesson::headName(const attn::HeadIndex& head)
{
    return Text::tr("layer %1 · head %2").arg(head.layer + 1).arg(head.head + 1);
}

QString CopyLesson::lessonText() const
{
    if (!hasResult_)
        return QString();
    QStringList parts;
    if (previous_)
        parts << Text::tr("The previous-token score is highest for %1 (%2).")
                     .arg(headName(previous_->index), QString::number(previous_->score, 'f', 2));
    if (induction_)
        parts << Text::tr("The induction score is highest for %1 (%2).")
                     .arg(headName(induction_->index), QString::number(induction_->score, 'f', 2));
    if (!induction_)
        parts << Text::tr("No token of this sentence occurs twice, so no head has an induction score.");
    if (copiedId_ >= 0)
        parts << Text::tr("The token to copy is “%1”: the model gives it %2.")
                     .arg(copied_, CinemaLesson::percentText(intact_));
    if (ablated_ && induction_)
        parts << Text::tr("Without %1 (its output set to zero, every later layer recomputed): %2.")
                     .arg(headName(induction_->index), CinemaLesson::percentText(*ablated_));
    else if (otherAblation_)
        parts << Text::tr(
            "Other heads are ablated in the head lab; “Remove the induction head” ablates "
            "that head alone.");
    return parts.join(QLatin1Char(' '));
}

}  // namespace attnlab
