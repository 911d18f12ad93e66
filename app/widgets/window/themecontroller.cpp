// SPDX-License-Identifier: GPL-3.0-or-later
#include "themecontroller.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QSettings>
#include <QStyle>

namespace attnlab {

namespace {

const QString kSettingsKey = QStringLiteral("view/theme");

}  // namespace

ThemeController::ThemeController(QObject* parent) : QObject(parent)
{
    // The first controller sees the desktop's palette; later ones (a second
    // window, the tests' windows) must not take a theme applied since.
    static const QPalette system = QApplication::palette();
    systemPalette_ = system;
}

QString ThemeController::key(Theme theme)
{
    switch (theme) {
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    case Theme::System: break;
    }
    return QStringLiteral("system");
}

QMenu* ThemeController::addMenu(QMenu* view)
{
    QMenu* menu = view->addMenu(tr("T&heme"));
    menu->setObjectName(QStringLiteral("themeMenu"));
    group_ = new QActionGroup(this);
    group_->setExclusive(true);
    const struct {
        Theme theme;
        QString text;
        QString tip;
    } choices[] = {
        {Theme::System, tr("&System"), tr("The desktop's colours.")},
        {Theme::Light, tr("&Light"), tr("Dark text on a light background.")},
        {Theme::Dark, tr("&Dark"), tr("Light text on a dark background.")},
    };
    for (const auto& c : choices) {
        QAction* a = menu->addAction(c.text);
        a->setObjectName(QStringLiteral("theme_") + key(c.theme) + QStringLiteral("Action"));
        a->setCheckable(true);
        a->setChecked(c.theme == theme_);
        a->setStatusTip(c.tip);
        a->setData(int(c.theme));
        group_->addAction(a);
        const Theme theme = c.theme;
        connect(a, &QAction::triggered, this, [this, theme] { setTheme(theme); });
    }
    return menu;
}

QAction* ThemeController::action(Theme theme) const
{
    if (!group_)
        return nullptr;
    for (QAction* a : group_->actions())
        if (a->data().toInt() == int(theme))
            return a;
    return nullptr;
}

void ThemeController::setTheme(Theme theme)
{
    const bool changed = theme != theme_;
    theme_ = theme;
    apply();
    QSettings().setValue(kSettingsKey, key(theme));
    if (changed)
        emit themeChanged(theme);
}

void ThemeController::restore(const QSettings& settings)
{
    const QString saved = settings.value(kSettingsKey).toString();
    Theme theme = Theme::System;
    if (saved == key(Theme::Light))
        theme = Theme::Light;
    else if (saved == key(Theme::Dark))
        theme = Theme::Dark;
    const bool changed = theme != theme_;
    theme_ = theme;
    apply();
    if (changed)
        emit themeChanged(theme);
}

void ThemeController::apply()
{
    switch (theme_) {
    case Theme::System: QApplication::setPalette(systemPalette_); break;
    case Theme::Light: QApplication::setPalette(lightPalette()); break;
    case Theme::Dark: QApplication::setPalette(darkPalette()); break;
    }
    // A style sheet fixes the palette of the widgets under it when it is
    // applied (QStyleSheetStyle::polish): set again, it takes the new one.
    // (The window's own highlights are painted, HighlightFrame, and use none.)
    for (QWidget* widget : QApplication::allWidgets())
        if (!widget->styleSheet().isEmpty())
            widget->setStyleSheet(widget->styleSheet());
    if (QAction* a = action(theme_))
        a->setChecked(true);
}

QPalette ThemeController::lightPalette()
{
    return QApplication::style()->standardPalette();
}

QPalette ThemeController::darkPalette()
{
    // Fusion's dark scheme: grey surfaces, light text, a blue highlight.
    const QColor window(0x35, 0x35, 0x35), base(0x26, 0x26, 0x26), text(0xe8, 0xe8, 0xe8);
    const QColor disabled(0x80, 0x80, 0x80), highlight(0x3d, 0x8e, 0xe0);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x30, 0x30, 0x30));
    p.setColor(QPalette::ToolTipBase, QColor(0x20, 0x20, 0x20));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x60, 0x60));
    p.setColor(QPalette::Light, QColor(0x50, 0x50, 0x50));
    p.setColor(QPalette::Midlight, QColor(0x42, 0x42, 0x42));
    p.setColor(QPalette::Mid, QColor(0x60, 0x60, 0x60));
    p.setColor(QPalette::Dark, QColor(0x1c, 0x1c, 0x1c));
    p.setColor(QPalette::Shadow, QColor(0x10, 0x10, 0x10));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb0, 0x90, 0xff));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x50, 0x50, 0x50));
    return p;
}

bool ThemeController::isDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

}  // namespace attnlab
