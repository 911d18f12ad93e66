// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared set-up of the window tests: settings kept in a temporary folder
// (nothing of the user's is read or written) and widgets found by name.

#include <QCoreApplication>
#include <QSize>
#include <QSettings>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace guitest {

// QSettings (INI and native) of this process in `dir`, QStandardPaths in
// test mode, and the application's names when given. False if `dir` could
// not be made.
inline bool useTemporarySettings(const QTemporaryDir& dir, const QString& applicationName = {})
{
    QStandardPaths::setTestModeEnabled(true);
    if (!dir.isValid())
        return false;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
    if (!applicationName.isEmpty()) {
        QCoreApplication::setOrganizationName(QStringLiteral("AttentionLab"));
        QCoreApplication::setApplicationName(applicationName);
    }
    return true;
}

// The child of `parent` of type T named `name`; stops the test run if there
// is none (every caller relies on it).
template <typename T, typename Parent>
T* find(Parent& parent, const QString& name)
{
    T* widget = parent.template findChild<T*>(name);
    if (!widget)
        qFatal("no %s named %s", T::staticMetaObject.className(), qPrintable(name));
    return widget;
}

// A window at its first start (settings restored), of `size` if given,
// shown and exposed; null if it never was exposed.
template <typename Window>
std::unique_ptr<Window> shownWindow(const QSize& size = QSize())
{
    auto window = std::make_unique<Window>();
    window->restoreSettings();
    if (size.isValid())
        window->resize(size);
    window->show();
    if (!QTest::qWaitForWindowExposed(window.get()))
        return nullptr;
    return window;
}

}  // namespace guitest
