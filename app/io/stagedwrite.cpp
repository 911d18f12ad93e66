// SPDX-License-Identifier: GPL-3.0-or-later
#include "stagedwrite.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QSaveFile>
#include <QTemporaryDir>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <streambuf>
#include <system_error>

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace attnlab {

namespace {

struct StagedWrite {
    Q_DECLARE_TR_FUNCTIONS(StagedWrite)
};

namespace fs = std::filesystem;

fs::path toPath(const QString& path)
{
    return fs::path(QFile::encodeName(path).toStdString());
}

attn::Error failure(const QString& message)
{
    return attn::Error{message.toStdString()};
}

// Creates `directory` and its missing parents; returns the created ones,
// deepest first, so that they can be removed again.
bool makeDirectories(const QString& directory, QStringList* created, QString* reason)
{
    QStringList missing;
    QFileInfo info(QDir::cleanPath(QDir(directory).absolutePath()));
    while (!info.exists()) {
        missing.append(info.absoluteFilePath());
        const QFileInfo parent(info.absolutePath());
        if (parent.absoluteFilePath() == info.absoluteFilePath())
            break;
        info = parent;
    }
    for (auto it = missing.crbegin(); it != missing.crend(); ++it) {
        std::error_code error;
        if (!fs::create_directory(toPath(*it), error)) {
            *reason =
                error ? QString::fromStdString(error.message()) : StagedWrite::tr("it appeared meanwhile");
            return false;
        }
        created->prepend(*it);
    }
    return true;
}

void removeDirectories(const QStringList& deepestFirst)
{
    for (const QString& dir : deepestFirst)
        QDir().rmdir(dir);  // only if empty
}

// An ostream over a QIODevice; a failed device write fails the stream.
class DeviceStreamBuf : public std::streambuf {
public:
    explicit DeviceStreamBuf(QIODevice* device) : device_(device) { setp(buffer_, buffer_ + sizeof buffer_); }
    ~DeviceStreamBuf() override { sync(); }

protected:
    int_type overflow(int_type c) override
    {
        if (sync() != 0)
            return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }

    int sync() override
    {
        const qint64 size = pptr() - pbase();
        if (size > 0 && device_->write(pbase(), size) != size)
            return -1;
        setp(buffer_, buffer_ + sizeof buffer_);
        return 0;
    }

private:
    QIODevice* device_;
    char buffer_[1 << 16];
};

QString systemReason()
{
    return errno != 0 ? QString::fromLocal8Bit(std::strerror(errno)) : StagedWrite::tr("write error");
}

template <typename T>
using Expected = attn::Expected<T>;

QString fromPath(const fs::path& path)
{
    return QFile::decodeName(QByteArray::fromStdString(path.string()));
}

std::function<bool(const QString&)>& renameFault()
{
    static std::function<bool(const QString&)> fault;
    return fault;
}

const QString kStagingPrefix = QStringLiteral(".attention-lab-");
const QString kLockName = QStringLiteral(".lock");
const QString kPreviousName = QStringLiteral(".previous");

// The staging folders this process has open, for the signal handler below:
// fixed storage, each path in place before the count shows it.
constexpr int kMaxLiveStaging = 8;
char liveStaging[kMaxLiveStaging][PATH_MAX];
volatile std::sig_atomic_t liveStagingCount = 0;

struct LinuxDirent64 {
    ino64_t d_ino;
    off64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[1];
};

// Removes the entries of the open folder `fd`, and of its subfolders one
// level down (".previous"), with async-signal-safe calls only.
void removeEntriesNow(int fd, int depth)
{
    char buffer[4096];
    for (int pass = 0; pass < 4; ++pass) {  // entries removed while listing can be skipped: list again
        ::lseek(fd, 0, SEEK_SET);
        bool removedAny = false;
        for (;;) {
            const long got = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
            if (got <= 0)
                break;
            for (long offset = 0; offset < got;) {
                const auto* entry = reinterpret_cast<const LinuxDirent64*>(buffer + offset);
                offset += entry->d_reclen;
                const char* name = entry->d_name;
                if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
                    continue;
                if (entry->d_type == DT_DIR && depth == 0) {
                    const int sub = ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                    if (sub >= 0) {
                        removeEntriesNow(sub, 1);
                        ::close(sub);
                    }
                    removedAny |= ::unlinkat(fd, name, AT_REMOVEDIR) == 0;
                } else {
                    removedAny |= ::unlinkat(fd, name, 0) == 0;
                }
            }
        }
        if (!removedAny)
            break;
    }
}

struct sigaction previousAction[NSIG];

// SIGINT, SIGTERM, SIGHUP during a write: the staging folders go, then the
// signal does what it would have done.
void removeStagingAndDie(int signal)
{
    for (int i = 0; i < liveStagingCount; ++i) {
        const int fd = ::open(liveStaging[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            continue;
        removeEntriesNow(fd, 0);
        ::close(fd);
        ::rmdir(liveStaging[i]);
    }
    ::sigaction(signal, &previousAction[signal], nullptr);
    ::raise(signal);
}

// Installed over the default action only (a program's own handler for
// these signals stays), checked at each write.
void removeStagingOnSignals()
{
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction current {};
        if (::sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL)
            continue;
        previousAction[signal] = current;
        struct sigaction action {};
        action.sa_handler = removeStagingAndDie;
        sigemptyset(&action.sa_mask);
        ::sigaction(signal, &action, nullptr);
    }
}

// A staging directory inside `directory`, locked by this process while it
// lives (the lock goes first, then the directory and all it holds), and
// known to the signal handler meanwhile.
struct Staging {
    explicit Staging(const QString& target)
        : directory(target),
          dir(QDir(target).filePath(kStagingPrefix + QStringLiteral("XXXXXX"))),
          lock(QDir(dir.path()).filePath(kLockName))
    {
        lock.setStaleLockTime(0);  // stale only when its process is gone
        if (!dir.isValid())
            return;
        lock.tryLock(0);
        const QByteArray path = QFile::encodeName(dir.path());
        if (liveStagingCount < kMaxLiveStaging && path.size() < PATH_MAX) {
            removeStagingOnSignals();
            std::memcpy(liveStaging[liveStagingCount], path.constData(), std::size_t(path.size()) + 1);
            slot = liveStagingCount;
            liveStagingCount = liveStagingCount + 1;
        }
    }
    ~Staging()
    {
        // Sets are released last first (a vector destroyed in reverse is not
        // guaranteed): forget this one and every later one, they go too.
        if (slot >= 0 && slot < liveStagingCount)
            liveStagingCount = slot;
    }
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;
    QString directory;
    QTemporaryDir dir;
    QLockFile lock;
    int slot = -1;
};

// Staging directories whose process no longer runs: a run killed midway.
// One without its lock file is left alone unless it is an hour old (its
// writer may be between creating it and locking it).
void removeStaleStaging(const QString& directory)
{
    const QDir dir(directory);
    const QStringList names =
        dir.entryList({kStagingPrefix + QLatin1Char('*')},
                      QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot | QDir::NoSymLinks);
    for (const QString& name : names) {
        const QString path = dir.filePath(name);
        const QString lockPath = QDir(path).filePath(kLockName);
        if (!QFileInfo::exists(lockPath)
            && QFileInfo(path).lastModified().secsTo(QDateTime::currentDateTime()) < 3600)
            continue;
        QLockFile lock(lockPath);
        lock.setStaleLockTime(0);
        if (!lock.tryLock(0))
            continue;  // a live writer
        lock.unlock();
        QDir(path).removeRecursively();
    }
}

// The directory a set goes to: not a file, not a broken symbolic link.
attn::Status checkDirectory(const QString& directory)
{
    const QString shown = QDir::toNativeSeparators(directory);
    const fs::path p = toPath(directory);
    std::error_code error;
    const fs::file_status link = fs::symlink_status(p, error);
    if (!error && link.type() == fs::file_type::symlink) {
        [[maybe_unused]] const fs::file_status followed = fs::status(p, error);
        if (error == std::errc::too_many_symbolic_link_levels)
            return failure(StagedWrite::tr("cannot write in '%1': it is a symbolic link loop").arg(shown));
        if (error || !fs::exists(p, error))
            return failure(StagedWrite::tr("cannot write in '%1': it is a symbolic link to '%2', which does "
                                           "not exist")
                               .arg(shown, QDir::toNativeSeparators(fromPath(fs::read_symlink(p, error)))));
    }
    const QFileInfo target(directory);
    if (target.exists() && !target.isDir())
        return failure(StagedWrite::tr("'%1' exists and is not a directory").arg(shown));
    return attn::okStatus();
}

attn::Status stageFile(const Staging& staging, const OutputFile& file)
{
    if (!file.problem.empty())
        return attn::Error{file.problem};
    const QString name = QString::fromStdString(file.name);
    std::ofstream out(toPath(staging.dir.filePath(name)), std::ios::binary | std::ios::trunc);
    errno = 0;
    if (out)
        file.write(out);
    if (out)
        out.close();
    if (!out)
        return failure(
            StagedWrite::tr("cannot write '%1': %2")
                .arg(QDir::toNativeSeparators(QDir(staging.directory).filePath(name)), systemReason()));
    return attn::okStatus();
}

// A staged file's way into place. A file it replaces gets a second name in
// the staging directory first (a hard link: no copy, and the file itself
// untouched), so that a later failure can put it back.
struct Move {
    fs::path staged, target, previous;
    bool replaces = false;
};

Expected<Move> prepareMove(const Staging& staging, const std::string& fileName)
{
    const QString name = QString::fromStdString(fileName);
    Move move;
    move.staged = toPath(staging.dir.filePath(name));
    move.target = toPath(QDir(staging.directory).filePath(name));
    const QString shown = QDir::toNativeSeparators(fromPath(move.target));
    std::error_code error;
    const fs::file_status existing = fs::symlink_status(move.target, error);
    if (error || existing.type() == fs::file_type::not_found)
        return move;
    if (fs::is_directory(move.target, error))
        return failure(StagedWrite::tr("cannot replace '%1': it is a directory").arg(shown));
    const QString previousDir = QDir(staging.dir.path()).filePath(kPreviousName);
    if (!QDir().mkpath(previousDir))
        return failure(
            StagedWrite::tr("cannot write in '%1'").arg(QDir::toNativeSeparators(staging.directory)));
    move.previous = toPath(QDir(previousDir).filePath(name));
    fs::create_hard_link(move.target, move.previous, error);
    if (error && existing.type() == fs::file_type::regular) {
        error.clear();
        fs::copy_file(move.target, move.previous, error);
    }
    if (error)
        return failure(
            StagedWrite::tr("cannot replace '%1': %2").arg(shown, QString::fromStdString(error.message())));
    move.replaces = true;
    return move;
}

// Puts back what the first `count` moves replaced (or removes what they added).
void undoMoves(const std::vector<Move>& moves, std::size_t count)
{
    for (std::size_t m = count; m-- > 0;) {
        std::error_code ignored;
        if (moves[m].replaces)
            fs::rename(moves[m].previous, moves[m].target, ignored);
        else
            fs::remove(moves[m].target, ignored);
    }
}

}  // namespace

attn::Status writeFilesAtomically(const QString& directory, const std::vector<OutputFile>& files)
{
    return writeFileSetsAtomically({OutputFileSet{directory, files}});
}

attn::Status writeFileSetsAtomically(const std::vector<OutputFileSet>& sets)
{
    attn::Status status = attn::okStatus();
    QStringList created;  // deepest first, over all sets
    std::vector<std::unique_ptr<Staging>> stagings;
    for (const OutputFileSet& set : sets) {
        status = checkDirectory(set.directory);
        if (!status)
            break;
        QStringList made;
        QString reason;
        const bool madeAll = makeDirectories(set.directory, &made, &reason);
        created = made + created;
        if (!madeAll) {
            status = failure(StagedWrite::tr("cannot create the directory '%1': %2")
                                 .arg(QDir::toNativeSeparators(set.directory), reason));
            break;
        }
        removeStaleStaging(set.directory);
        auto staging = std::make_unique<Staging>(set.directory);
        if (!staging->dir.isValid()) {
            status = failure(StagedWrite::tr("cannot write in '%1': %2")
                                 .arg(QDir::toNativeSeparators(set.directory), staging->dir.errorString()));
            break;
        }
        stagings.push_back(std::move(staging));
    }

    // Everything is written before anything is moved into place.
    for (std::size_t s = 0; status.ok() && s < stagings.size(); ++s)
        for (std::size_t i = 0; status.ok() && i < sets[s].files.size(); ++i)
            status = stageFile(*stagings[s], sets[s].files[i]);

    // Every check that can fail, before the first file moves.
    std::vector<Move> moves;
    for (std::size_t s = 0; status.ok() && s < stagings.size(); ++s)
        for (std::size_t i = 0; status.ok() && i < sets[s].files.size(); ++i) {
            Expected<Move> move = prepareMove(*stagings[s], sets[s].files[i].name);
            if (move)
                moves.push_back(std::move(move).value());
            else
                status = move.error();
        }

    for (std::size_t m = 0; status.ok() && m < moves.size(); ++m) {
        std::error_code error;
        const QString shown = QDir::toNativeSeparators(fromPath(moves[m].target));
        if (renameFault() && renameFault()(fromPath(moves[m].target)))
            error = std::make_error_code(std::errc::permission_denied);
        else
            fs::rename(moves[m].staged, moves[m].target, error);
        if (error) {
            status = failure(StagedWrite::tr("cannot replace '%1': %2")
                                 .arg(shown, QString::fromStdString(error.message())));
            undoMoves(moves, m);
        }
    }
    stagings.clear();  // the staging directories (and the previous files' second names) go
    if (!status.ok())
        removeDirectories(created);
    return status;
}

attn::Expected<QString> resolveOutputPath(const QString& path)
{
    const fs::path p = toPath(path);
    std::error_code error;
    const fs::file_status link = fs::symlink_status(p, error);
    if (error || link.type() != fs::file_type::symlink)
        return path;
    const QString shown = QDir::toNativeSeparators(path);
    [[maybe_unused]] const fs::file_status followed = fs::status(p, error);
    if (error == std::errc::too_many_symbolic_link_levels)
        return failure(StagedWrite::tr("cannot write '%1': it is a symbolic link loop").arg(shown));
    const fs::path target = fs::weakly_canonical(p, error);
    if (error)
        return failure(
            StagedWrite::tr("cannot write '%1': %2").arg(shown, QString::fromStdString(error.message())));
    if (!fs::is_directory(target.parent_path(), error))
        return failure(
            StagedWrite::tr("cannot write '%1': it is a symbolic link to '%2', whose directory does "
                            "not exist")
                .arg(shown, QDir::toNativeSeparators(fromPath(target))));
    return fromPath(target);
}

void setStagedRenameFaultForTests(std::function<bool(const QString& target)> fault)
{
    renameFault() = std::move(fault);
}

attn::Status writeFileAtomically(const QString& path, const std::function<void(std::ostream&)>& write)
{
    const QString shown = QDir::toNativeSeparators(path);
    const attn::Expected<QString> resolved = resolveOutputPath(path);
    if (!resolved)
        return resolved.error();
    QSaveFile file(resolved.value());
    if (!file.open(QIODevice::WriteOnly))
        return failure(StagedWrite::tr("cannot write '%1': %2").arg(shown, file.errorString()));
    bool written = false;
    {
        DeviceStreamBuf buffer(&file);
        std::ostream out(&buffer);
        write(out);
        out.flush();
        written = bool(out);
    }
    if (!written) {
        const QString reason =
            file.error() != QFileDevice::NoError ? file.errorString() : StagedWrite::tr("write error");
        file.cancelWriting();
        return failure(StagedWrite::tr("cannot write '%1': %2").arg(shown, reason));
    }
    if (!file.commit())
        return failure(StagedWrite::tr("cannot write '%1': %2").arg(shown, file.errorString()));
    return attn::okStatus();
}

OutputFile bytesFile(std::string name, QByteArray bytes)
{
    return {std::move(name),
            [bytes = std::move(bytes)](std::ostream& out) { out.write(bytes.constData(), bytes.size()); }};
}

attn::Status writeFileAtomically(const QString& path, const QByteArray& bytes)
{
    return writeFileAtomically(path,
                               [&bytes](std::ostream& out) { out.write(bytes.constData(), bytes.size()); });
}

}  // namespace attnlab
