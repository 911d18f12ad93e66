// SPDX-License-Identifier: GPL-3.0-or-later
#include "floatconversion.h"

#include "parallel.h"

#include <QSysInfo>
#include <QtEndian>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace attnlab {

namespace {

constexpr bool kLittleEndian = QSysInfo::ByteOrder == QSysInfo::LittleEndian;

// The entries a thread converts at least (a thread starts in about 0.05 ms;
// a million entries take about a millisecond).
constexpr std::size_t kEntriesPerThread = std::size_t(1) << 20;

// A buffer of this many bytes or more is mapped on its own, on huge pages.
constexpr std::size_t kOwnMappingBytes = std::size_t(4) << 20;
constexpr std::size_t kHugePage = std::size_t(2) << 20;

inline std::uint16_t load16(const unsigned char* p)
{
    if constexpr (kLittleEndian) {
        std::uint16_t v;
        std::memcpy(&v, p, 2);
        return v;
    } else {
        return qFromLittleEndian<quint16>(p);
    }
}

inline void store32(float* out, std::uint32_t bits)
{
    std::memcpy(out, &bits, 4);
}

// float16ToFloat without branches: the same bits for every pattern.
inline std::uint32_t halfToFloatBits(std::uint16_t half)
{
    const std::int32_t h = half;
    const std::uint32_t sign = std::uint32_t(h & 0x8000) << 16;
    const std::int32_t em = h & 0x7FFF;                    // exponent and mantissa
    const std::int32_t normal = (em << 13) + (112 << 23);  // exponent + 127 - 15
    const std::int32_t infNan = (em << 13) | 0x7F800000;   // exponent 31: infinity or NaN, payload kept
    const float subnormal = float(em) * 0x1p-24f;          // exponent 0: mantissa x 2^-24, exact
    std::int32_t subBits;
    std::memcpy(&subBits, &subnormal, 4);
    std::int32_t out = em >= 0x7C00 ? infNan : normal;
    out = em < 0x0400 ? subBits : out;
    return std::uint32_t(out) | sign;
}

}  // namespace

void bfloat16ToFloats(const unsigned char* in, std::size_t count, float* out)
{
    // bfloat16 is the upper half of a float32.
    for (std::size_t i = 0; i < count; ++i)
        store32(out + i, std::uint32_t(load16(in + 2 * i)) << 16);
}

void float16ToFloats(const unsigned char* in, std::size_t count, float* out)
{
    for (std::size_t i = 0; i < count; ++i)
        store32(out + i, halfToFloatBits(load16(in + 2 * i)));
}

void bfloat16ToFloatsShared(const unsigned char* in, std::size_t count, float* out, int maxThreads)
{
    attn::shareRanges(count, 1, kEntriesPerThread, maxThreads, [&](std::size_t first, std::size_t last) {
        bfloat16ToFloats(in + 2 * first, last - first, out + first);
    });
}

void float16ToFloatsShared(const unsigned char* in, std::size_t count, float* out, int maxThreads)
{
    attn::shareRanges(count, 1, kEntriesPerThread, maxThreads, [&](std::size_t first, std::size_t last) {
        float16ToFloats(in + 2 * first, last - first, out + first);
    });
}

FloatBuffer::FloatBuffer(std::size_t count)
{
    if (count == 0)
        return;
    if (count > (std::size_t(-1) - kHugePage) / sizeof(float))
        throw std::bad_alloc();
    const std::size_t bytes = count * sizeof(float);
#ifdef __linux__
    if (bytes >= kOwnMappingBytes) {
        // Mapped with room to start on a 2 MiB boundary; the rest given back.
        const std::size_t span = bytes + kHugePage;
        void* map = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED)
            throw std::bad_alloc();
        const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(map);
        const std::uintptr_t aligned = (start + kHugePage - 1) & ~std::uintptr_t(kHugePage - 1);
        if (aligned > start)
            ::munmap(map, aligned - start);
        const std::size_t kept = span - (aligned - start);
        const std::size_t wanted = (bytes + 4095) & ~std::size_t(4095);
        if (kept > wanted)
            ::munmap(reinterpret_cast<void*>(aligned + wanted), kept - wanted);
        mapped_ = reinterpret_cast<void*>(aligned);
        mappedBytes_ = wanted;
        // Advice only: without transparent huge pages it changes nothing.
        (void)::madvise(mapped_, mappedBytes_, MADV_HUGEPAGE);
        data_ = static_cast<float*>(mapped_);
        count_ = count;
        return;
    }
#endif
    data_ = static_cast<float*>(std::malloc(bytes));
    if (!data_)
        throw std::bad_alloc();
    count_ = count;
}

FloatBuffer::FloatBuffer(FloatBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      count_(std::exchange(other.count_, 0)),
      mapped_(std::exchange(other.mapped_, nullptr)),
      mappedBytes_(std::exchange(other.mappedBytes_, 0))
{
}

FloatBuffer& FloatBuffer::operator=(FloatBuffer&& other) noexcept
{
    if (this != &other) {
        release();
        data_ = std::exchange(other.data_, nullptr);
        count_ = std::exchange(other.count_, 0);
        mapped_ = std::exchange(other.mapped_, nullptr);
        mappedBytes_ = std::exchange(other.mappedBytes_, 0);
    }
    return *this;
}

FloatBuffer::~FloatBuffer()
{
    release();
}

void FloatBuffer::release()
{
#ifdef __linux__
    if (mapped_) {
        ::munmap(mapped_, mappedBytes_);
        mapped_ = nullptr;
        data_ = nullptr;
    }
#endif
    std::free(data_);
    data_ = nullptr;
    count_ = 0;
}

}  // namespace attnlab
