// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Random checkpoints of real models' shapes for the bench cases: a
// safetensors file streamed tensor by tensor (uniform random numbers in
// [-0.1, 0.1) from a xorshift, F32 or BF16), and whole Llama-family folders
// (config.json, model.safetensors, a tokenizer.json copied in).

#include <QString>
#include <QtGlobal>

#include <string>
#include <vector>

namespace bench {

struct TensorShape {
    std::string name;
    std::vector<qint64> dims;
    qint64 count() const;
};

// Writes the safetensors file at `path` with every tensor of `shapes` in
// `dtype` ("F32" or "BF16"). Returns the number of parameters (4-D tensors,
// GPT-2's mask buffers, excluded), 0 if the file cannot be written.
qint64 writeRandomSafetensors(const QString& path, const std::vector<TensorShape>& shapes,
                              const char* dtype = "F32");

// A Llama-family model's shapes and config.json fields.
struct LlamaShape {
    const char* modelType = "llama";  // llama or qwen2 (q, k, v with biases)
    int layers = 0, heads = 0, kvHeads = 0, width = 0, intermediate = 0, vocab = 0, positions = 0;
    double ropeTheta = 10000, rmsNormEps = 1e-5;
    bool tied = true;
};
LlamaShape smolLm2Shape();  // SmolLM2-135M's (vocabulary: see the .cpp)
LlamaShape qwen25Shape();   // Qwen2.5-0.5B's

// Writes config.json, model.safetensors (`dtype`) and a copy of
// `tokenizerJson` into `folder`. Returns the number of parameters, 0 on a
// failure.
qint64 writeLlamaFolder(const QString& folder, const LlamaShape& shape, const QString& tokenizerJson,
                        const char* dtype = "BF16");

}  // namespace bench
