// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: any bytes through both tokenizer modes. The tokenizer
// must refuse or accept, never crash, and what it accepts must be
// consistent: ids index the sorted vocabulary, tokens are valid UTF-8 pieces.

#include "tokenizer.h"

#include <algorithm>
#include "fuzztargets.h"

#include <cstdint>
#include <cstdlib>

int fuzzTokenizer(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (attn::TokenizerMode mode : {attn::TokenizerMode::Article, attn::TokenizerMode::Punctuation}) {
        const auto t = attn::tokenize(text, mode);
        if (!t.ok()) {
            if (t.error().message.empty())
                std::abort();
            continue;
        }
        if (t->tokens.empty() || t->ids.size() != t->tokens.size())
            std::abort();
        if (!std::is_sorted(t->vocab.begin(), t->vocab.end()))
            std::abort();
        std::size_t bytes = 0;
        for (std::size_t i = 0; i < t->tokens.size(); ++i) {
            if (t->tokens[i].empty() || t->vocab.at(std::size_t(t->ids[i])) != t->tokens[i])
                std::abort();
            bytes += t->tokens[i].size();
        }
        if (bytes > size)
            std::abort();
    }
    return 0;
}

#ifndef ATTNLAB_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return fuzzTokenizer(data, size);
}
#endif
