// SPDX-License-Identifier: GPL-3.0-or-later
#include "lessontraining.h"

#include "trainingview.h"

#include <QLocale>

namespace attnlab {

namespace {

QString steps(int n)
{
    return n == 1 ? LessonTraining::tr("1 step") : LessonTraining::tr("%1 steps").arg(n);
}

QString percent(double fraction)
{
    return QLocale().toString(100.0 * fraction, 'f', 0) + QStringLiteral(" %");
}

// "85 steps for the scaled run, 100 for the unscaled (1.2 times as many)".
QString comparison(const LessonTraining::Summary& s)
{
    const QString target = QLocale().toString(s.target, 'g', 3);
    if (s.scaledSteps < 0 && s.unscaledSteps < 0)
        return LessonTraining::tr("neither run reached a loss of %1 in %2").arg(target, steps(s.steps));
    if (s.unscaledSteps < 0)
        return LessonTraining::tr("the scaled run reached a loss of %1 in %2; the unscaled did not in %3")
            .arg(target, steps(s.scaledSteps), steps(s.steps));
    if (s.scaledSteps < 0)
        return LessonTraining::tr("the unscaled run reached a loss of %1 in %2; the scaled did not in %3")
            .arg(target, steps(s.unscaledSteps), steps(s.steps));
    return LessonTraining::tr(
               "the scaled run reached a loss of %1 in %2, the unscaled in %3 (%4 times as many)")
        .arg(target, steps(s.scaledSteps), steps(s.unscaledSteps),
             QLocale().toString(double(s.unscaledSteps) / s.scaledSteps, 'f', 1));
}

}  // namespace

LessonTraining::Summary LessonTraining::summarize(const attn::TrainingSettings& settings,
                                                  const std::vector<attn::TrainingRunCurves>& curves,
                                                  double target)
{
    Summary s;
    s.dK = settings.dK;
    s.target = target;
    for (const attn::TrainingRunCurves& run : curves) {
        const int reached = attn::stepsToReachLoss(run, target);
        const double saturated = run.saturatedWrong.empty() ? 0.0 : run.saturatedWrong.front();
        if (run.scale == attn::TrainingScale::SqrtDk) {
            s.scaledSteps = reached;
            s.scaledSaturated = saturated;
            s.steps = int(run.size());
        } else if (run.scale == attn::TrainingScale::None) {
            s.unscaledSteps = reached;
            s.unscaledSaturated = saturated;
        }
    }
    return s;
}

QString LessonTraining::text(const Summary& small, const Summary& large)
{
    // "Close": within a factor 1.5 of each other (or both missing).
    const auto ratio = [](const Summary& s) {
        return s.scaledSteps > 0 && s.unscaledSteps > 0 ? double(s.unscaledSteps) / s.scaledSteps : -1.0;
    };
    const double r16 = ratio(small), r256 = ratio(large);
    QString first = tr("At d_k %1 %2.").arg(small.dK).arg(comparison(small));
    if (r16 > 0 && r16 < 1.5)
        first +=
            QLatin1Char(' ') + tr("The runs are close: at this width the unscaled scores are not yet large.");
    QString second =
        tr("At d_k %1 the unscaled run started with %2 of the examples saturated on a wrong key "
           "(the scaled run with %3), and %4.")
            .arg(large.dK)
            .arg(percent(large.unscaledSaturated), percent(large.scaledSaturated), comparison(large));
    if (r256 >= 2.0)
        second +=
            QLatin1Char(' ')
            + tr(
                "A saturated softmax passes almost no gradient back to W_q and W_k, so the unscaled run "
                "learns several times slower: this is what 1/√d_k is for.");
    else if (r256 > 0)
        second +=
            QLatin1Char(' ') + tr("Here the difference is smaller than usual; try another seed on the tab.");
    return first + QLatin1Char(' ') + second;
}

LessonTraining::LessonTraining(TrainingView* view, QObject* parent) : QObject(parent), view_(view)
{
    connect(view_->run(), &TrainingLabRun::stopped, this, &LessonTraining::labStopped);
}

void LessonTraining::run()
{
    small_.reset();
    large_.reset();
    phase_ = Phase::Small;
    startLab(kSmallDk);
}

void LessonTraining::stop()
{
    if (phase_ == Phase::Idle)
        return;
    phase_ = Phase::Idle;
    if (view_)
        view_->pause();
}

void LessonTraining::startLab(int dK)
{
    if (!view_)
        return;
    attn::TrainingSettings settings;  // the defaults, at this d_k
    settings.dK = dK;
    view_->showSettings(settings);
    view_->reset();
    view_->start();
    emit progress(progressText());
}

QString LessonTraining::progressText() const
{
    switch (phase_) {
    case Phase::Small: return tr("Training at d_k %1 (the Training tab shows the curves)…").arg(kSmallDk);
    case Phase::Large: return tr("Training at d_k %1…").arg(kLargeDk);
    case Phase::Idle: break;
    }
    return QString();
}

void LessonTraining::labStopped()
{
    if (phase_ == Phase::Idle || !view_)
        return;
    const auto snapshot = view_->snapshot();
    if (!snapshot->finished)
        return;  // paused by hand: wait for the user to go on
    const Summary summary = summarize(snapshot->settings, snapshot->curves, view_->lossTarget());
    if (phase_ == Phase::Small) {
        small_ = summary;
        phase_ = Phase::Large;
        startLab(kLargeDk);
        return;
    }
    large_ = summary;
    phase_ = Phase::Idle;
    emit finished(text(*small_, *large_));
}

}  // namespace attnlab
