// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtimedir.h"

#include <QByteArray>
#include <QDir>
#include <QtGlobal>

#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#endif

namespace attnlab {

#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)

namespace {

// A directory owned by this user with no access for anyone else: what Qt
// (QStandardPaths::RuntimeLocation) accepts without a warning.
bool isPrivateDirectory(const QByteArray& path)
{
    struct stat st {};
    if (::lstat(path.constData(), &st) != 0)
        return false;
    return S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & 0777) == 0700;
}

QByteArray fallbackPath()
{
    // The user's name, as Qt's own fallback has it.
    const struct passwd* entry = ::getpwuid(::geteuid());
    const QByteArray user = entry && entry->pw_name && *entry->pw_name
                                ? QByteArray(entry->pw_name)
                                : QByteArray::number(qulonglong(::geteuid()));
    return QDir::tempPath().toLocal8Bit() + "/runtime-" + user;
}

QByteArray madeDirectory;  // removed at exit when this run created it

void removeMadeDirectory()
{
    if (!madeDirectory.isEmpty())
        ::rmdir(madeDirectory.constData());
}

}  // namespace

void ensureRuntimeDir()
{
    if (!qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR"))
        return;
    QByteArray path = fallbackPath();
    if (!isPrivateDirectory(path) && !(::mkdir(path.constData(), 0700) == 0 && isPrivateDirectory(path))) {
        // Taken by someone else, or with other permissions: a directory of our own.
        QByteArray pattern = QDir::tempPath().toLocal8Bit() + "/attention-lab-runtime-XXXXXX";
        if (!::mkdtemp(pattern.data()))
            return;  // Qt's own warning says what is missing
        path = pattern;
        madeDirectory = path;
        std::atexit(removeMadeDirectory);
    }
    qputenv("XDG_RUNTIME_DIR", path);
}

#else

void ensureRuntimeDir()
{
}

#endif

void useOffscreenPlatform()
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    qunsetenv("QT_QPA_PLATFORMTHEME");
}

}  // namespace attnlab
