// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Hugging Face's safetensors files, read strictly, into memory.
//
// Layout (huggingface/safetensors, the format's README and its Rust reader,
// whose checks are followed here): an 8-byte little-endian header length N,
// N bytes of JSON starting with "{" (trailing blanks allowed), then the data.
// The JSON object maps each tensor name to
//   {"dtype": "F32", "shape": [16, 48], "data_offsets": [BEGIN, END]}
// with the offsets counted from the start of the data; "__metadata__" is an
// optional object of strings. Every tensor's bytes must be exactly
// product(shape) x the dtype's size, inside the data, and the tensors must
// cover the data without overlap or gap (as the Rust reader demands, so no
// byte of the file is unaccounted for).
//
// Everything is checked against the file before it is used: the header
// length against the file's size and a 100 MB bound (the Rust reader's
// MAX_HEADER_SIZE), each length, offset and shape product against the data
// (in 64-bit arithmetic with overflow checked). Messages are one line naming
// the file, the tensor and the problem, e.g.
//   model.safetensors: tensor h.0.attn.c_attn.weight: data_offsets [0, 1200]
//   exceed the 800 bytes of data
// The layout is checked for every safetensors dtype; the entries can be read
// as float32 for F32, F16 and BF16 only (floats() refuses the others, naming
// the tensor and its dtype), so an unused integer buffer does not stop a file.
// The file is read whole into memory (readInputFile, at most
// kMaxSafetensorsBytes), not memory-mapped: the checks are made on those
// bytes and the weights are computed from them, so a file truncated or
// copied over by another program while a model is open changes nothing the
// program holds (a mapped file would fault, SIGBUS, on the next pass).

#include "expected.h"
#include "floatconversion.h"

#include <QString>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

// The largest safetensors file read (GPT-2 XL in float32 is 6.4 GB).
inline constexpr long long kMaxSafetensorsBytes = 64LL << 30;

struct SafetensorsTensor {
    std::string name;                 // as written (UTF-8); messages show it through shownText
    std::string dtype;                // as written: "F32", "F16", "BF16", "I64", ...
    int itemSize = 0;                 // bytes per entry of that dtype
    std::vector<std::int64_t> shape;  // empty for a scalar
    std::uint64_t begin = 0;          // data_offsets, from the start of the data
    std::uint64_t end = 0;
    const unsigned char* bytes = nullptr;  // the first of end - begin bytes

    std::uint64_t byteSize() const { return end - begin; }
    std::uint64_t entryCount() const { return byteSize() / std::uint64_t(itemSize); }
    // "[16, 48]"; a long shape cut as echoedList cuts it, so that a message
    // stays one short line.
    std::string shapeText() const;
};

class SafetensorsFile {
public:
    // Reads `path` whole into memory and parses it. Messages start with the
    // file name, or say "cannot open '<path>': <reason>" (a link loop) or
    // what the path is instead of a file (a folder, a device, a FIFO).
    static attn::Expected<SafetensorsFile> open(const QString& path);

    // Parses `bytes`, which must outlive the result unless `storage` keeps
    // them alive. `name` starts every message.
    static attn::Expected<SafetensorsFile> parse(std::string_view bytes, std::string_view name,
                                                 std::shared_ptr<const void> storage = {});

    const std::string& name() const { return name_; }
    const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }  // sorted by begin
    const SafetensorsTensor* find(std::string_view tensorName) const;
    // The file's bytes in memory (or whatever holds them): the tensors' bytes stay
    // valid while a copy of this is alive.
    const std::shared_ptr<const void>& storage() const { return storage_; }

    // The entries as float32, row-major. F32 points into the file's bytes
    // when they are 4-byte aligned (on a little-endian machine); F16, BF16
    // and an unaligned F32 are converted into `owned`, which the result then
    // points into (floatconversion.h: converted on both cores when large,
    // into memory not cleared first). Other dtypes are refused, naming the
    // tensor and dtype. std::bad_alloc when `owned` cannot be had.
    attn::Expected<const float*> floats(const SafetensorsTensor& tensor, FloatBuffer& owned) const;
    attn::Expected<const float*> floats(const SafetensorsTensor& tensor, std::vector<float>& owned) const;

private:
    std::string name_;
    std::vector<SafetensorsTensor> tensors_;
    std::shared_ptr<const void> storage_;
};

// A name or word from a file as a message shows it: at most 80 characters
// (then "..."), control characters and line breaks as '?', so that the
// message stays one readable line.
std::string shownText(std::string_view text);

// IEEE 754 binary16 and bfloat16 bit patterns as float32, exactly
// (subnormals, signed zeros, infinities and NaN payloads included: every
// such value is representable in float32).
float float16ToFloat(std::uint16_t bits);
float bfloat16ToFloat(std::uint16_t bits);

}  // namespace attnlab
