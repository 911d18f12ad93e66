// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The fuzz targets' bodies, callable from the replay test (tst_fuzzcorpus)
// as well as from libFuzzer. Each aborts when an invariant breaks.

#include <cstddef>
#include <cstdint>

int fuzzTokenizer(const std::uint8_t* data, std::size_t size);
int fuzzCsv(const std::uint8_t* data, std::size_t size);
int fuzzNpy(const std::uint8_t* data, std::size_t size);
int fuzzLabFile(const std::uint8_t* data, std::size_t size);
int fuzzJson(const std::uint8_t* data, std::size_t size);
int fuzzGpt2Tokenizer(const std::uint8_t* data, std::size_t size);
int fuzzSafetensors(const std::uint8_t* data, std::size_t size);
int fuzzTokenizerJson(const std::uint8_t* data, std::size_t size);
