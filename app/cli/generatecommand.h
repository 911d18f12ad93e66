// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// attention-lab --model DIR --sentence TEXT --generate N --export-dir OUT
// (issue 40): N tokens after the sentence, one decode step each over the
// key/value cache (core/generation.h), written to OUT/generation.json
// (generationexport.h).
//
//   --generate N       1 to 4096, and the sentence's tokens + N within the
//                      model's positions (config.json)
//   --sample           draw each token from softmax(logits / T) instead of
//                      taking the most likely (greedy, the default)
//   --temperature T    T (1 unless given; with greedy it changes only the
//                      probabilities written)
//   --top-k K          with --sample: draw from the K most likely only
//   --seed S           with --sample: the draws' seed (0 unless given;
//                      its low 32 bits seed torch's mt19937)
//   --scale MODE       as for --model: every head's divisor
//   --ablate L.H[,...] every step without these heads (the head lab's,
//   --ablation zero|mean  headlabcommand.h): zero through the cache, mean
//                      by a whole pass a step (core/generation.h)
//
// The head lab's other options, --format, --caption and
// --allow-large-export are refused with --generate. Bad values exit 2 with one line, before
// anything is written.

#include "decoder_config.h"
#include "expected.h"

#include <QString>

#include <cstdint>
#include <optional>

namespace attnlab {

class CommandLineParser;
struct ModelCommandInput;

struct GenerationRequest {
    int count = 0;
    bool sample = false;
    int topK = 0;  // 0: the whole vocabulary
    std::uint64_t seed = 0;
};

// --generate, --sample or --top-k given.
bool asksForGeneration(const CommandLineParser& parser);

// Without --model they are refused: the line to print, or nothing.
std::optional<QString> generationWithoutModel(const CommandLineParser& parser);

// The options read and checked on their own; the error is the line to print.
attn::Expected<GenerationRequest> readGenerationRequest(const CommandLineParser& parser);

// The whole run with --export-dir (`directory`, local); the exit status
// (0 written, 1 not written, 2 bad input).
int runGenerateCommand(const CommandLineParser& parser, const ModelCommandInput& input,
                       const QString& directory);

}  // namespace attnlab
