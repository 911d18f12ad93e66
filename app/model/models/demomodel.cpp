// SPDX-License-Identifier: GPL-3.0-or-later
#include "demomodel.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace attnlab {

namespace {

// The running program's folder: Qt's, or before any application exists (the
// command line reads --model before the window's QApplication) the kernel's
// link to the executable.
QString executableDir()
{
    if (QCoreApplication::instance())
        return QCoreApplication::applicationDirPath();
    return QFileInfo(QStringLiteral("/proc/self/exe")).canonicalPath();
}

}  // namespace

QStringList demoModelCandidates()
{
    QStringList places;
    if (const QString dir = executableDir(); !dir.isEmpty())
        places << QDir::cleanPath(dir + QStringLiteral("/../share/attention-lab/models/demo"));
#ifdef ATTNLAB_DEMO_MODEL_SOURCE_DIR
    places << QDir::cleanPath(QStringLiteral(ATTNLAB_DEMO_MODEL_SOURCE_DIR));
#endif
    places.removeDuplicates();
    return places;
}

attn::Expected<QString> demoModelFolder()
{
    const QStringList places = demoModelCandidates();
    for (const QString& place : places)
        if (QFileInfo(QDir(place).filePath(QStringLiteral("config.json"))).isFile())
            return place;
    QStringList shown;
    for (const QString& place : places)
        shown << QDir::toNativeSeparators(place);
    return attn::Error{"the demo model is missing (looked in "
                       + shown.join(QStringLiteral(" and ")).toStdString() + ")"};
}

attn::Expected<QString> resolveModelFolder(const QString& folder)
{
    if (folder == QLatin1String(kDemoModelName))
        return demoModelFolder();
    return folder;
}

}  // namespace attnlab
