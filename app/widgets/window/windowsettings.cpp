// SPDX-License-Identifier: GPL-3.0-or-later
#include "windowsettings.h"

#include "parametersettings.h"
#include "pipelineview.h"
#include "session.h"
#include "themecontroller.h"
#include "weightsscale.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QScreen>
#include <QSettings>

#include <algorithm>

namespace attnlab {

WindowSettings::WindowSettings(QMainWindow* window, Session* session, PipelineView* pipeline,
                               ThemeController* theme)
    : window_(window), session_(session), pipeline_(pipeline), theme_(theme)
{
}

bool WindowSettings::restore(const WindowStart& start) const
{
    QSettings settings;
    attn::ModelConfig config;
    attn::AttentionOptions options;
    if (start.haveConfig) {
        config = start.config;
        options = start.options;
    } else {
        loadParameters(settings, &config, &options);
    }
    session_->setParameters(config, options);
    pipeline_->setIndependentRanges(settings.value(QStringLiteral("view/independentRanges"), false).toBool());
    WeightsScaleMode weightsScale = WeightsScaleMode::Automatic;
    weightsScaleModeFromKey(settings.value(QStringLiteral("view/weightsScale")).toString(), &weightsScale);
    pipeline_->setWeightsScaleMode(weightsScale);
    theme_->restore(settings);
    if (!window_->restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) {
        const QRect available =
            window_->screen() ? window_->screen()->availableGeometry() : QRect(0, 0, 1400, 900);
        window_->resize(std::min(1400, available.width()), std::min(900, available.height()));
    }
    if (window_->restoreState(settings.value(QStringLiteral("window/state")).toByteArray()))
        return false;
    defaultDockSizes(window_);
    return true;
}

void WindowSettings::save() const
{
    QSettings settings;
    // A borrowed GPT-2 head's d_model, d_k and mask are not the lab's own.
    const bool borrowed = session_->inputs().borrowed.active();
    attn::ModelConfig config = borrowed ? session_->inputs().borrowed.ownConfig : session_->inputs().config;
    config.sentence = session_->inputs().config.sentence;
    saveParameters(settings, config,
                   borrowed ? session_->inputs().borrowed.ownOptions : session_->inputs().options);
    settings.setValue(QStringLiteral("view/independentRanges"), pipeline_->independentRanges());
    settings.setValue(QStringLiteral("view/weightsScale"),
                      weightsScaleModeKey(pipeline_->weightsScaleMode()));
    settings.setValue(QStringLiteral("window/geometry"), window_->saveGeometry());
    settings.setValue(QStringLiteral("window/state"), window_->saveState());
}

void WindowSettings::forgetParameters()
{
    QSettings settings;
    attnlab::forgetParameters(settings);
}

void WindowSettings::defaultDockSizes(QMainWindow* window)
{
    auto* focusDock = window->findChild<QDockWidget*>(QStringLiteral("focusDock"));
    auto* statisticsDock = window->findChild<QDockWidget*>(QStringLiteral("statisticsDock"));
    window->resizeDocks({focusDock, statisticsDock}, {window->width() - 380, 380}, Qt::Horizontal);
    // Below 900 pixels (1024x700, a 720-line projector, 2560x1440 at scale
    // 2) the maps above need every line for their rows and numbers; the
    // bottom docks scroll. Taller windows give them 30 %.
    const int height = window->height();
    const int docks = height >= 900 ? std::max(220, height * 3 / 10) : std::max(150, height * 22 / 100);
    window->resizeDocks({focusDock}, {docks}, Qt::Vertical);
}

}  // namespace attnlab
