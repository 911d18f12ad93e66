// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// attention-lab --model DIR: a Hugging Face model folder of a family
// modelfamilies.h reads, run over a sentence with the model's own tokenizer.
//
//   --model DIR          config.json, model.safetensors, vocab.json, merges.txt
//   --sentence TEXT      tokenised with GPT-2's byte-level BPE, at most
//                        n_positions tokens
//   --scale MODE         sqrt-dk (GPT-2's own), none or a divisor, applied to
//                        every head of every layer
//   --mask MASK          causal, sliding:W or sink:S,window:W instead of the
//                        model's own mask in every layer (the what-if)
//   --no-qk-norm         run a model with QK-norm (Qwen3) without q_norm and
//                        k_norm (the what-if); exit 2 for a model without
//   --temperature T      the next-token softmax's, softmax(logits / T)
//   --export-dir OUT     OUT/model_attention.json (modelattentionexport.h) with --format
//                        json (the default), model_view.png/.svg/.pdf
//                        (modelpictures.h) with png, svg, pdf
//   --head-scores, --ablate, --ablation, --probe, --logit-lens, --rollout,
//   --rope               the head lab's (headlabcommand.h)
//   --generate N, --sample, --top-k K, --seed S
//                        generation.json instead (generatecommand.h)
//
// The other model options (sizes, seed, tokenizer, causal, matrix files,
// heads, presets, labs) describe the application's own model and are
// refused with --model. Bad input, a checkpoint the readers refuse, a
// sentence too long: exit 2 with one line, nothing written.

#include "differenceexport.h"
#include "attention.h"
#include "expected.h"
#include "gpt2.h"
#include "head_scores.h"
#include "headlabexport.h"
#include "lens_rollout.h"
#include "modelfolder.h"
#include "rotary_head.h"

#include <QString>

#include <memory>
#include <optional>
#include <string>

namespace attnlab {

class CommandLineParser;

bool wantsModel(const CommandLineParser& parser);

// The checks every --model export shares (generatecommand.h's too): an
// option a --model run does not take (the line to print, or nothing), and
// --temperature's value into `temperature` (left as it is when not given).
std::optional<QString> modelOptionConflict(const CommandLineParser& parser);
std::optional<QString> readModelTemperature(const CommandLineParser& parser, double* temperature);

// What handleCommandLine read for every command: --scale (mode and divisor,
// already a positive number), --export-dir and --format.
struct ModelCommandInput {
    attn::AttentionOptions scale;
    std::optional<std::string> exportDir;
    std::optional<std::string> formats;
    // --caption TEXT: a line under every picture's title ("random weights").
    std::optional<QString> caption;
    // --mask MASK: every layer's heads attend with it instead of the
    // model's own (attn::DecoderRunOptions::mask).
    std::optional<attn::AttentionMask> mask;
};

// --mask and --no-qk-norm for `model`, into a pass's or a generation's
// options; the line to print when one does not apply to it, or nothing.
std::optional<QString> readModelWhatIfs(const CommandLineParser& parser, const ModelCommandInput& input,
                                        const ModelFolder& model, std::optional<attn::AttentionMask>* mask,
                                        bool* skipQkNorm);

// A model read and run over the sentence: what the export writes, and what
// the window's model view is to open with.
struct ModelStart {
    ModelFolder model;
    attn::DecoderResult result;
    std::string scaleMode;  // "sqrt-dk", "none" or "custom"
    QString sentence;       // --sentence, or the text of --probe's tokens
    // The head lab's (headlabcommand.h): what --ablate and --probe add to
    // the files, and with --head-scores every head's scores.
    ModelHeadLab headLab;
    std::optional<attn::HeadScoreTable> headScores;
    std::optional<attn::LogitLens> logitLens;  // --logit-lens
    std::optional<attn::RotaryHead> rotary;    // --rope: rope.json and rope.<ext>
    // --compare: difference.json and difference.<ext>, with the picture's
    // caption and labels as the Lens page words them.
    std::optional<ModelDifference> difference;
    QString differenceCaption;
    QStringList differenceLabels;
};

// The options checked (combinations, --temperature, --scale's range), the
// folder read, the sentence tokenised and run. The error is the one line
// to print (exit 2).
attn::Expected<ModelStart> modelStart(const CommandLineParser& parser, const ModelCommandInput& input);

// --model DIR without --export-dir: the model the window's Model tab
// shows, read here once (folder made absolute), so that a folder its readers
// refuse exits 2 with their one line as the export does and the window does
// not read it again. --sentence, if given, is the
// window's sentence; --preset NAME opens that lab beside the model (which
// reads its sentence); --scale, --mask, --temperature and --format belong to the
// export (the Model tab has its own what-if controls) and are refused.
attn::Expected<std::shared_ptr<const ModelFolder>> modelWindowFolder(const CommandLineParser& parser);

// The whole --model run with --export-dir; the exit status (0 written, 1 not
// written, 2 bad input).
int runModelCommand(const CommandLineParser& parser, const ModelCommandInput& input, int argc, char** argv);

}  // namespace attnlab
