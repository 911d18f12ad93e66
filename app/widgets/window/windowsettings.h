// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the window keeps between runs in QSettings: the parameters, the view
// choices (colour ranges, weights scale, theme), the window's geometry and
// its docks; and the docks' default sizes for a window with no saved state.

#include "windowstart.h"

class QMainWindow;

namespace attnlab {

class PipelineView;
class Session;
class ThemeController;

class WindowSettings {
public:
    WindowSettings(QMainWindow* window, Session* session, PipelineView* pipeline, ThemeController* theme);

    // The command line's parameters if it gave any, else the saved ones, else
    // the article example; then the view choices and the layout.
    // True when no saved layout was there: the docks took their default sizes.
    bool restore(const WindowStart& start) const;
    void save() const;
    // The next start is the article example (after Discard at quit).
    static void forgetParameters();

    // The bottom docks' sizes for the window's current size: the maps keep
    // the height they need for their rows (see PipelineView).
    static void defaultDockSizes(QMainWindow* window);

private:
    QMainWindow* window_;
    Session* session_;
    PipelineView* pipeline_;
    ThemeController* theme_;
};

}  // namespace attnlab
