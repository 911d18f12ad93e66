// SPDX-License-Identifier: GPL-3.0-or-later
#include "torch_random.h"

#include <cmath>

namespace attn {
namespace {

// at::uniform_real_distribution<float>: the low 24 bits of one draw.
float uniformFloat(std::uint32_t bits)
{
    return float(bits & ((1u << 24) - 1)) * std::ldexp(1.0f, -24);
}

// at::uniform_real_distribution<double>: the low 53 bits of a 64-bit draw.
double uniformDouble(std::uint64_t bits)
{
    return double(bits & ((std::uint64_t(1) << 53) - 1)) * std::ldexp(1.0, -53);
}

// ATen's normal_fill_16 (float): Box-Muller over one block of 16 uniforms.
// As in its AVX2 kernel (what x86-64 builds run), theta is a float product
// with 2 pi rounded to float; computing it in double moves the result by up
// to 13 ulp where sin or cos is small.
void normalFill16(float* data)
{
    constexpr float kTwoPi = float(2.0 * 3.14159265358979323846);
    for (int j = 0; j < 8; ++j) {
        const float u1 = 1 - data[j];  // [0, 1) -> (0, 1] for the log
        const float u2 = data[j + 8];
        const float radius = std::sqrt(-2 * std::log(u1));
        const float theta = kTwoPi * u2;
        data[j] = radius * std::cos(theta);
        data[j + 8] = radius * std::sin(theta);
    }
}

}  // namespace

TorchGenerator::TorchGenerator(std::uint64_t seed)
{
    manualSeed(seed);
}

void TorchGenerator::manualSeed(std::uint64_t seed)
{
    // at::mt19937 seeds with the low 32 bits, like std::mt19937.
    engine_.seed(std::uint32_t(seed & 0xffffffffu));
    nextDoubleNormal_.reset();
}

std::uint32_t TorchGenerator::random()
{
    return std::uint32_t(engine_());
}

std::uint64_t TorchGenerator::random64()
{
    const std::uint64_t hi = random();
    const std::uint64_t lo = random();
    return (hi << 32) | lo;
}

std::vector<float> TorchGenerator::uniform(std::size_t count, double from, double to)
{
    const float low = float(from);
    const float width = float(to) - low;
    std::vector<float> values(count);
    for (float& v : values) {
        v = std::fma(uniformFloat(random()), width, low);
    }
    return values;
}

std::vector<float> TorchGenerator::rand(std::size_t count)
{
    std::vector<float> out(count);
    for (float& v : out)
        v = uniformFloat(random());
    return out;
}

double TorchGenerator::normalDouble()
{
    if (nextDoubleNormal_) {
        const double cached = *nextDoubleNormal_;
        nextDoubleNormal_.reset();
        return cached;
    }
    constexpr double kPi = 3.14159265358979323846;
    const double u1 = uniformDouble(random64());
    const double u2 = uniformDouble(random64());
    const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
    const double theta = 2.0 * kPi * u1;
    nextDoubleNormal_ = r * std::sin(theta);
    return r * std::cos(theta);
}

std::vector<float> TorchGenerator::normal(std::size_t count)
{
    std::vector<float> out(count);
    if (count < 16) {
        // The serial path: one double normal per value, cast to float.
        for (float& v : out)
            v = float(normalDouble());
        return out;
    }
    for (float& v : out)
        v = uniformFloat(random());
    for (std::size_t i = 0; i + 16 <= count; i += 16)
        normalFill16(out.data() + i);
    if (count % 16 != 0) {
        // Recompute the last 16 values from fresh uniforms.
        float* tail = out.data() + count - 16;
        for (int i = 0; i < 16; ++i)
            tail[i] = uniformFloat(random());
        normalFill16(tail);
    }
    return out;
}

Matrix TorchGenerator::randMatrix(int rows, int cols)
{
    const std::vector<float> values = rand(std::size_t(rows) * std::size_t(cols));
    Matrix m(rows, cols);
    for (std::size_t i = 0; i < values.size(); ++i)
        m.data()[i] = values[i];  // row-major, as torch lays the tensor out
    return m;
}

Matrix TorchGenerator::embeddingMatrix(int rows, int cols)
{
    const std::vector<float> values = normal(std::size_t(rows) * std::size_t(cols));
    Matrix m(rows, cols);
    for (std::size_t i = 0; i < values.size(); ++i)
        m.data()[i] = values[i];
    return m;
}

}  // namespace attn
