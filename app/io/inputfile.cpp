// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputfile.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace attnlab {

namespace {

// Closes the descriptor on every way out.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor()
    {
        if (fd_ >= 0)
            ::close(fd_);
    }
    int get() const { return fd_; }

private:
    int fd_;
};

const char* kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISCHR(mode))
        return "a device";
    if (S_ISBLK(mode))
        return "a disk device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

// A large buffer about to be filled: advised for transparent huge pages,
// so that a model's gigabyte faults in 2 MiB pages instead of 4 kB ones.
// Advice only; nothing changes where the system has none.
void adviseHugePages(char* data, std::size_t size)
{
#ifdef __linux__
    constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
    if (size < (std::size_t(32) << 20))
        return;
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + size) & ~(kHuge - 1);
    if (end > begin)
        (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)data;
    (void)size;
#endif
}

}  // namespace

std::string byteSizeText(long long bytes)
{
    if (bytes >= (1LL << 20) && bytes % (1LL << 20) == 0)
        return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= (1LL << 20))
        return std::to_string((bytes + (1LL << 19)) >> 20) + " MiB";
    if (bytes >= (1LL << 10))
        return std::to_string((bytes + (1LL << 9)) >> 10) + " KiB";
    return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

attn::Expected<QByteArray> readInputFile(const QString& path, long long cap, std::string_view what,
                                         const std::atomic<bool>* stop)
{
    const std::string name = QFileInfo(path).fileName().toStdString();
    const std::string tooLarge =
        " is larger than any " + std::string(what) + " can be (at most " + byteSizeText(cap) + ")";
    // The size in words, "more than" when it rounds to the cap.
    const auto sizeText = [cap](long long size) {
        return byteSizeText(size) == byteSizeText(cap) ? "more than " + byteSizeText(cap)
                                                       : byteSizeText(size);
    };
    if (path.startsWith(QLatin1Char(':')) || path.startsWith(QLatin1String("qrc:"))) {
        // A Qt resource (the presets): in memory, of a known size.
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return attn::Error{"cannot open '" + path.toStdString()
                               + "': " + file.errorString().toStdString()};
        if (file.size() > cap)
            return attn::Error{name + ": " + sizeText(file.size()) + tooLarge};
        return file.readAll();
    }
    // O_NONBLOCK only for the open: a FIFO's open would otherwise wait for a writer.
    const FileDescriptor fd(::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0)
        return attn::Error{"cannot open '" + path.toStdString() + "': " + std::strerror(errno)};
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0)
        return attn::Error{"cannot read '" + path.toStdString() + "': " + std::strerror(errno)};
    const bool pipe = S_ISFIFO(info.st_mode);
    if (!S_ISREG(info.st_mode) && !pipe)
        return attn::Error{name + ": " + kindOf(info.st_mode)
                           + ", not a file; only regular files and pipes can be read"};
    if (!pipe && info.st_size > cap)
        return attn::Error{name + ": " + sizeText(info.st_size) + tooLarge};
    // With a stop flag a pipe stays non-blocking: a read with no bytes yet
    // says so (EAGAIN) and the flag is looked at; EOF (no writer) is 0 as
    // before.
    const bool waitable = pipe && stop;
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags < 0 || (!waitable && ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0))
        return attn::Error{"cannot read '" + path.toStdString() + "': " + std::strerror(errno)};

    // Chunks up to cap + 1 bytes: one byte past the cap proves it is passed.
    QByteArray bytes;
    // A pipe gives at most 64 KiB a read; a file is read in larger reads.
    const long long chunk = pipe ? 1 << 16 : 8 << 20;
    const long long known = std::min<long long>(info.st_size, cap) + 1;
    if (!pipe) {
        bytes.reserve(qsizetype(known));
        adviseHugePages(bytes.data(), std::size_t(bytes.capacity()));
    }
    long long size = 0;
    while (size <= cap) {
        long long want = std::min(chunk, cap + 1 - size);
        // Within the size the file had, reads end at that size plus one
        // byte (which proves the end), so the buffer reserved for it holds
        // them and is not grown for nothing.
        if (!pipe && size < known)
            want = std::min(want, known - size);
        // Doubling keeps a pipe's reading linear; never beyond cap + 1.
        if (bytes.capacity() < size + want)
            bytes.reserve(
                qsizetype(std::min(std::max(2 * (long long)bytes.capacity(), size + want), cap + 1)));
        bytes.resize(qsizetype(size + want));
        const ssize_t got = ::read(fd.get(), bytes.data() + size, std::size_t(want));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && waitable && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            // A writer that has not written yet: wait a little, or give up.
            if (stop->load())
                return attn::cancelledError(name + ": the read was stopped");
            pollfd ready{fd.get(), POLLIN, 0};
            ::poll(&ready, 1, kStopPollMs);
            continue;
        }
        if (got < 0)
            return attn::Error{"cannot read '" + path.toStdString() + "': " + std::strerror(errno)};
        if (got == 0)
            break;
        size += got;
    }
    bytes.resize(qsizetype(std::min(size, cap + 1)));
    if (size > cap)
        return attn::Error{name + ": "
                           + (pipe ? "more than " + byteSizeText(cap) + " came through the pipe; that"
                                   : "the file grew past " + byteSizeText(cap) + " while read; it")
                           + tooLarge};
    if (size == 0 && pipe)
        return attn::Error{name + ": nothing came through the pipe (no program was writing to it)"};
    return bytes;
}

}  // namespace attnlab
