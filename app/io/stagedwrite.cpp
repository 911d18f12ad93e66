// SPDX-License-Identifier: GPL-3.0-or-later
#include "stagedwrite.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QTemporaryDir>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <streambuf>
#include <system_error>

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

}  // namespace

attn::Status writeFilesAtomically(const QString& directory, const std::vector<OutputFile>& files)
{
    const QString shown = QDir::toNativeSeparators(directory);
    const QFileInfo target(directory);
    if (target.exists() && !target.isDir())
        return failure(StagedWrite::tr("'%1' exists and is not a directory").arg(shown));

    QStringList created;
    QString reason;
    if (!makeDirectories(directory, &created, &reason)) {
        removeDirectories(created);
        return failure(StagedWrite::tr("cannot create the directory '%1': %2").arg(shown, reason));
    }

    std::vector<fs::path> moved;
    attn::Status status = attn::okStatus();
    {
        QTemporaryDir staging(QDir(directory).filePath(QStringLiteral(".attention-lab-XXXXXX")));
        if (!staging.isValid()) {
            status = failure(StagedWrite::tr("cannot write in '%1': %2").arg(shown, staging.errorString()));
        }

        // Everything is written before anything is moved into place.
        for (std::size_t i = 0; status.ok() && i < files.size(); ++i) {
            const QString name = QString::fromStdString(files[i].name);
            std::ofstream out(toPath(staging.filePath(name)), std::ios::binary | std::ios::trunc);
            errno = 0;
            if (out)
                files[i].write(out);
            if (out)
                out.close();
            if (!out) {
                status = failure(
                    StagedWrite::tr("cannot write '%1': %2")
                        .arg(QDir::toNativeSeparators(QDir(directory).filePath(name)), systemReason()));
            }
        }

        for (std::size_t i = 0; status.ok() && i < files.size(); ++i) {
            const QString name = QString::fromStdString(files[i].name);
            const fs::path to = toPath(QDir(directory).filePath(name));
            std::error_code error;
            fs::rename(toPath(staging.filePath(name)), to, error);
            if (error) {
                status = failure(StagedWrite::tr("cannot replace '%1': %2")
                                     .arg(QDir::toNativeSeparators(QDir(directory).filePath(name)),
                                          QString::fromStdString(error.message())));
            } else {
                moved.push_back(to);
            }
        }
        if (!status.ok()) {
            for (const fs::path& path : moved) {
                std::error_code ignored;
                fs::remove(path, ignored);
            }
        }
    }  // the staging directory is removed here
    if (!status.ok())
        removeDirectories(created);
    return status;
}

attn::Status writeFileAtomically(const QString& path, const std::function<void(std::ostream&)>& write)
{
    const QString shown = QDir::toNativeSeparators(path);
    QSaveFile file(path);
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
