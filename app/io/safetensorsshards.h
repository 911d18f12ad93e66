// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A Hugging Face folder's checkpoint as one table of tensors, whether it is
// one model.safetensors or shards named by model.safetensors.index.json
// ({"metadata": {...}, "weight_map": {"tensor name": "shard file name"}}),
// as transformers' save_pretrained writes them. Each shard is a
// SafetensorsFile (safetensors.h: read whole, checked strictly).
//
// Checks, each a one-line message naming the file and the tensor:
// the index is a JSON object with a weight_map object of strings; every
// shard it names is a plain file name (no folder part) that exists; every
// tensor it names is in the shard it names; no tensor is in two shards; a
// tensor in a shard that the index does not name is refused too (the
// folder is not what its index says).
//
// take() converts a tensor to float32 (F32 in place, F16 and BF16 into a
// copy, or a BF16 matrix left in place: keepBf16MatricesInPlace) and keeps what the weights must keep alive:
// storage() holds the converted copies and the bytes of each shard a tensor points into.

#include "expected.h"
#include "float_tensor.h"
#include "safetensors.h"

#include <QString>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace attnlab {

// The index file's largest size (Llama 3.1 405B's index is 100 kB).
inline constexpr long long kMaxSafetensorsIndexBytes = 64LL << 20;

class SafetensorsShards {
public:
    // FOLDER/model.safetensors if it exists, else the shards of
    // FOLDER/model.safetensors.index.json; an error naming both when
    // neither is there.
    static attn::Expected<SafetensorsShards> open(const QString& folder);
    // One file (tests, fuzzing).
    static SafetensorsShards fromFile(SafetensorsFile file);

    bool has(const std::string& name) const { return byName_.count(name) != 0; }
    // The tensor's file name, for messages.
    std::string fileOf(const std::string& name) const;

    // Tensor `name` as (rows, cols) float32; rows 0 means a vector of cols.
    // Errors: missing (naming the tensor and where it was looked for), a
    // shape other than the one expected (naming both and `meaning`), a dtype
    // other than F32, F16 and BF16.
    attn::Status take(const std::string& name, int rows, int cols, const char* meaning,
                      attn::FloatTensor& out);

    // From now on take() leaves a BF16 matrix (rows > 0) as the file's
    // bfloat16 (FloatTensor::bf16, pointing into the bytes read) instead of
    // converting it, where the bytes are 2-byte aligned on a little-endian
    // machine. Vectors are converted still.
    void keepBf16MatricesInPlace(bool keep) { bf16InPlace_ = keep; }
    // The bytes of every tensor of every file.
    std::uint64_t dataBytes() const;

    // The tensors not taken, by name, for the caller to skip or refuse.
    std::vector<std::string> untaken() const;
    // The dtypes taken: "F32", "BF16", several joined by "+".
    std::string dtype() const;
    // What the tensors taken point into.
    std::shared_ptr<const void> storage() const { return storage_; }
    // "model.safetensors" or "model.safetensors.index.json".
    const std::string& source() const { return source_; }

private:
    struct Storage {
        std::vector<std::shared_ptr<const void>> files;
        std::vector<FloatBuffer> converted;
    };
    std::vector<std::shared_ptr<SafetensorsFile>> files_;
    std::map<std::string, std::pair<const SafetensorsTensor*, std::size_t>> byName_;  // tensor, file
    std::set<std::string> taken_;
    std::set<std::string> dtypes_;
    std::set<std::size_t> inPlaceFiles_;
    std::shared_ptr<Storage> storage_ = std::make_shared<Storage>();
    std::string source_;
    bool bf16InPlace_ = false;

    attn::Status index(std::size_t file);
};

}  // namespace attnlab
