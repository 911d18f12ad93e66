// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A checkpoint's F16 and BF16 entries converted to float32 in bulk, and the
// memory they are converted into.
//
// The conversions give bit for bit what float16ToFloat and bfloat16ToFloat
// (safetensors.h) give entry by entry (subnormals, signed zeros, infinities
// and NaN payloads included), in loops without branches that the compiler
// vectorises. A large tensor is shared among the cores (each range of
// entries converted on its own thread, so the numbers cannot depend on it).
// Opening a BF16 checkpoint is mostly this: Qwen2.5-0.5B's 494 million
// entries.
//
// FloatBuffer is memory that is not cleared first (every entry is written
// by the conversion) and, when large, mapped on its own and advised for
// transparent huge pages: a 2 MiB page faults once where 512 pages of 4 kB
// fault one by one, which was about a quarter of opening a BF16 checkpoint.

#include <cstddef>
#include <cstdint>

namespace attnlab {

// `count` little-endian entries at `in` (any alignment) into out[0, count).
void bfloat16ToFloats(const unsigned char* in, std::size_t count, float* out);
void float16ToFloats(const unsigned char* in, std::size_t count, float* out);

// The same, shared among up to `maxThreads` threads (at least a million
// entries each).
void bfloat16ToFloatsShared(const unsigned char* in, std::size_t count, float* out, int maxThreads = 2);
void float16ToFloatsShared(const unsigned char* in, std::size_t count, float* out, int maxThreads = 2);

// `count` floats, not initialised. Throws std::bad_alloc when the memory
// cannot be had. Movable, not copyable; the floats stay where they are when
// it is moved.
class FloatBuffer {
public:
    FloatBuffer() = default;
    explicit FloatBuffer(std::size_t count);
    FloatBuffer(FloatBuffer&& other) noexcept;
    FloatBuffer& operator=(FloatBuffer&& other) noexcept;
    FloatBuffer(const FloatBuffer&) = delete;
    FloatBuffer& operator=(const FloatBuffer&) = delete;
    ~FloatBuffer();

    float* data() const { return data_; }
    std::size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }

private:
    void release();

    float* data_ = nullptr;
    std::size_t count_ = 0;
    void* mapped_ = nullptr;  // the mapping, when it has its own
    std::size_t mappedBytes_ = 0;
};

}  // namespace attnlab
