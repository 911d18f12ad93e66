// SPDX-License-Identifier: GPL-3.0-or-later
#include "presets.h"

#include "labfile.h"

#include <QCoreApplication>

#include <utility>

// Resources of a static library are registered by hand, outside any namespace.
static void initPresetResources()
{
    Q_INIT_RESOURCE(presets);
}

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

}  // namespace

QList<PresetEntry> presetEntries()
{
    initPresetResources();
    QList<PresetEntry> presets;
    for (const auto& [name, file] :
         {std::pair{"article", "article-example"}, std::pair{"cinema", "jane-cinema"},
          std::pair{"scaling-demo", "scaling-demo"}})
        presets.append(
            {QLatin1String(name), QStringLiteral(":/presets/%1.attnlab").arg(QLatin1String(file))});
    return presets;
}

QStringList presetNames()
{
    QStringList names;
    for (const PresetEntry& preset : presetEntries())
        names.append(preset.name);
    return names;
}

QString presetPath(const QString& name)
{
    for (const PresetEntry& preset : presetEntries())
        if (preset.name == name)
            return preset.path;
    return QString();
}

QString presetListText()
{
    QStringList lines;
    for (const PresetEntry& preset : presetEntries()) {
        const attn::Expected<LabState> lab = readLabFile(preset.path);
        if (!lab) {
            lines << QStringLiteral("%1  %2")
                         .arg(preset.name, -14)
                         .arg(QString::fromStdString(lab.error().message));
            continue;
        }
        const attn::ModelConfig& c = lab->config;
        lines << QStringLiteral("%1  %2")
                     .arg(preset.name, -14)
                     .arg(lab->view.value(QStringLiteral("title")).toString());
        lines << CommandLine::tr(
                     "%1  \"%2\", seed %3, d_model %4, d_k %5, d_v %6, %7 "
                     "initialisation, scale %8%9")
                     .arg(QString(), -14)
                     .arg(QString::fromStdString(c.sentence))
                     .arg(c.seed)
                     .arg(c.dModel)
                     .arg(c.dK)
                     .arg(c.dV)
                     .arg(QLatin1String(attn::initModeName(c.init)),
                          QLatin1String(attn::scaleModeName(lab->options.scale)),
                          lab->options.causal ? CommandLine::tr(", causal") : QString());
    }
    return lines.join(QLatin1Char('\n'));
}

}  // namespace attnlab
