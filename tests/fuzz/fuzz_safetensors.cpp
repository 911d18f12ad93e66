// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: any bytes as a model.safetensors file. An accepted file's
// tensors lie inside the bytes, tile the data exactly and hold
// product(shape) x itemSize bytes each; F32, F16 and BF16 read as that many
// floats, F16 equal to an independent formula; the same bytes are then read
// as a GPT-2 of a small fixed config, which either names its problem or
// gives every tensor its shape. Every refusal is one non-empty line.

#include "gpt2checkpoint.h"
#include "safetensors.h"

#include "fuzztargets.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

bool oneLine(const std::string& message)
{
    return !message.empty() && message.find_first_of(std::string("\n\r\0", 3)) == std::string::npos;
}

// binary16 by its definition: (-1)^s x 2^(e - 15) x (1 + m / 1024), or
// 2^-14 x m / 1024 when e is 0.
float halfByFormula(std::uint16_t bits)
{
    const int e = (bits >> 10) & 0x1F;
    const int m = bits & 0x3FF;
    const float sign = (bits & 0x8000) ? -1.0f : 1.0f;
    if (e == 0x1F)
        return m ? std::nanf("") : sign * INFINITY;
    return sign * (e ? std::ldexp(float(1024 + m), e - 25) : std::ldexp(float(m), -24));
}

bool sameFloat(float a, float b)
{
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
}

}  // namespace

int fuzzSafetensors(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto file = attnlab::SafetensorsFile::parse(bytes, "fuzz.safetensors");
    if (!file.ok()) {
        if (!oneLine(file.error().message))
            std::abort();
        return 0;
    }
    const auto* first = reinterpret_cast<const unsigned char*>(data);
    const unsigned char* dataStart = first + size;  // the smallest tensor start, or the end
    std::uint64_t covered = 0;
    for (const attnlab::SafetensorsTensor& t : file->tensors()) {
        if (t.begin != covered || t.end < t.begin || t.bytes < first + 8
            || t.bytes + t.byteSize() > first + size)
            std::abort();
        if (t.begin == 0)
            dataStart = t.bytes;
        covered = t.end;
        std::uint64_t product = std::uint64_t(t.itemSize);
        bool overflow = false;
        for (const std::int64_t d : t.shape)
            overflow = __builtin_mul_overflow(product, std::uint64_t(d), &product) || overflow;
        if ((overflow && product != 0) || product != t.byteSize())
            std::abort();
        std::vector<float> owned;
        const auto values = file->floats(t, owned);
        const bool floating = t.dtype == "F32" || t.dtype == "F16" || t.dtype == "BF16";
        if (values.ok() != floating || (!values.ok() && !oneLine(values.error().message)))
            std::abort();
        if (!values.ok())
            continue;
        if (!owned.empty() && owned.size() != t.entryCount())
            std::abort();
        for (std::uint64_t i = 0; i < t.entryCount(); ++i) {
            float expected;
            if (t.dtype == "F16") {
                expected = halfByFormula(std::uint16_t(t.bytes[2 * i] | (t.bytes[2 * i + 1] << 8)));
            } else if (t.dtype == "BF16") {
                const std::uint32_t b = std::uint32_t(t.bytes[2 * i] | (t.bytes[2 * i + 1] << 8)) << 16;
                std::memcpy(&expected, &b, 4);
            } else {
                std::memcpy(&expected, t.bytes + 4 * i, 4);
            }
            if (!sameFloat(values.value()[i], expected))
                std::abort();
        }
    }
    if (!file->tensors().empty() && dataStart + covered != first + size)
        std::abort();

    attn::Gpt2Config config;
    config.nLayer = 1;
    config.nHead = 2;
    config.nEmbd = 4;
    config.nPositions = 3;
    config.vocabSize = 5;
    const auto gpt2 = attnlab::gpt2FromSafetensors(config, file.value());
    if (!gpt2.ok()) {
        if (!oneLine(gpt2.error().message))
            std::abort();
        return 0;
    }
    const attn::Gpt2Weights& w = gpt2->weights;
    const attn::Gpt2Block& b = w.blocks.at(0);
    const auto shaped = [](const attn::FloatTensor& t, int rows, int cols) {
        return t.data && t.rows == rows && t.cols == cols;
    };
    if (w.blocks.size() != 1 || !shaped(w.wte, 5, 4) || !shaped(w.wpe, 3, 4) || !shaped(w.lmHead, 5, 4)
        || !shaped(w.lnFWeight, 1, 4) || !shaped(w.lnFBias, 1, 4) || !shaped(b.attnWeight, 4, 12)
        || !shaped(b.attnBias, 1, 12) || !shaped(b.fcWeight, 4, 16) || !shaped(b.mlpProjWeight, 16, 4)
        || !shaped(b.mlpProjBias, 1, 4) || (w.lmHeadTied != (w.lmHead.data == w.wte.data))
        || gpt2->dtype.empty())
        std::abort();
    return 0;
}

#ifndef ATTNLAB_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return fuzzSafetensors(data, size);
}
#endif
