// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// attention-lab's multi-head options, run headless:
//
//   --heads H                   1 to 64 heads (default 1)
//   --head-layout independent   the article's heads: each W_q^i, W_k^i
//                               (d_model x d_k), W_v^i (d_model x d_v)
//   --head-layout split         torch.nn.MultiheadAttention: E = d_model,
//                               d_k = d_v = E / h (h must divide E)
//   --init torch-mha            the module's own initialisation after
//                               torch.manual_seed(--seed) (implies split);
//                               X is the article's nn.Embedding
//   --output-projection         W_o (h d_v x d_model) after the independent
//                               heads (the split layout always has out_proj)
//   --mha-state DIR             the module's parameters from DIR/
//                               in_proj_weight.npy (3E x E), in_proj_bias.npy
//                               (3E), out_proj.weight.npy (E x E),
//                               out_proj.bias.npy (E); X from --x (implies split)
//
// Any of them makes the run a multi-head one: the window opens with it
// (multiHeadStartLab), or with --export-dir (attentionexport.h's files of
// every head: json, csv, npy; the pictures of the heads are the window's)
// and/or --save FILE.attnlab it runs headless (runoutputs.h; the
// multi-head lab, labheads.h,
// which --open FILE.attnlab --export-dir DIR exports as the run did). Bad
// input exits 2 with one line naming the option or file and the shape
// expected, and writes nothing.

#include "attention.h"
#include "labfile.h"
#include "model.h"

#include <optional>
#include <string>

namespace attnlab {

class CommandLineParser;

// Whether the command line asks for a multi-head run.
bool wantsMultiHead(const CommandLineParser& parser);

// What the rest of the command line gave (read and checked by
// handleCommandLine).
struct MultiHeadCommandInput {
    attn::ModelConfig config;
    attn::AttentionOptions options;
    std::optional<std::string> exportDir;
    std::optional<std::string> formats;
    std::optional<std::string> savePath;      // --save
    std::optional<std::string> xPath;         // --x
    bool headWeightFiles = false;             // --wq, --wk or --wv
    bool dimensionGiven[3] = {};              // --d-model, --d-k, --d-v
    const char* conflictingOption = nullptr;  // --preset, if given
};

// The run; the exit status (0, 1 files not written, 2 bad input). Makes
// the QCoreApplication when there is none yet.
int runMultiHeadCommand(const CommandLineParser& parser, const MultiHeadCommandInput& input, int argc,
                        char** argv);

// The same options without --export-dir and --save: the lab the window
// opens with, checked and computed as the headless run does; the error is
// that run's one line.
attn::Expected<LabState> multiHeadStartLab(const CommandLineParser& parser,
                                           const MultiHeadCommandInput& input);

// --open of a multi-head lab with --export-dir and/or --save (a
// QCoreApplication exists): the files a --heads run writes, and the lab as
// it was opened. The exit status as above.
int runMultiHeadLab(const LabState& lab, const std::optional<std::string>& exportDir,
                    const std::optional<std::string>& formats, const std::optional<std::string>& savePath);

}  // namespace attnlab
