// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The presets of File > Presets and of --preset NAME / --list-presets: lab
// files compiled into the resources, by short name.

#include <QList>
#include <QString>
#include <QStringList>

namespace attnlab {

// The presets in menu order: the short name of --preset ("article",
// "cinema", "scaling-demo") and the lab file in the resources.
struct PresetEntry {
    QString name;
    QString path;  // ":/presets/NAME.attnlab"
};
QList<PresetEntry> presetEntries();
QStringList presetNames();
QString presetPath(const QString& name);  // empty for an unknown name
// --list-presets: each preset's name and title, then its parameters.
QString presetListText();

}  // namespace attnlab
