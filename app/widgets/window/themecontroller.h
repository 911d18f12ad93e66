// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// View > Theme: Light, Dark or the system's palette for the whole
// application, remembered in QSettings ("view/theme": "light", "dark",
// "system"). Views take their colours from the palette and re-colour on
// QEvent::PaletteChange; the heatmaps' colour maps are data colours and stay.

#include <QObject>
#include <QPalette>
#include <QString>

class QAction;
class QActionGroup;
class QMenu;
class QSettings;

namespace attnlab {

class ThemeController : public QObject {
    Q_OBJECT
public:
    enum class Theme { System, Light, Dark };

    // The application's palette when the first controller was made is the
    // system's.
    explicit ThemeController(QObject* parent = nullptr);

    // A "Theme" submenu with the three choices, checked as they apply.
    QMenu* addMenu(QMenu* view);

    Theme theme() const { return theme_; }
    // Applies it to the application and saves it in QSettings.
    void setTheme(Theme theme);
    // The saved choice, applied (System when none or unknown).
    void restore(const QSettings& settings);

    static QString key(Theme theme);  // "system", "light", "dark"
    static QPalette lightPalette();
    static QPalette darkPalette();
    // True when a palette's window background is dark.
    static bool isDark(const QPalette& palette);

signals:
    void themeChanged(Theme theme);

private:
    void apply();
    QAction* action(Theme theme) const;  // the menu's entry, null before addMenu

    Theme theme_ = Theme::System;
    QPalette systemPalette_;
    QActionGroup* group_ = nullptr;
};

}  // namespace attnlab
