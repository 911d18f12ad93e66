// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandlinehelp.h"

#include "attention.h"
#include "model.h"
#include "presets.h"
#include "size_limits.h"
#include "tokenizer.h"

#include <QCoreApplication>
#include <QStringList>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

}  // namespace

QString commandLineHelpText()
{
    const attn::ModelConfig defaults;
    const attn::AttentionOptions defaultOptions;
    QString text = CommandLine::tr(
        "Usage: attention-lab [OPTION]... [FILE.attnlab]\n"
        "Learn how transformer self-attention works. Opens the window, starting from\n"
        "the options given; with --export-dir, computes one attention map without a\n"
        "window and writes it to files.\n"
        "\n"
        "Model (the defaults are the example of Raschka's article):\n"
        "  --sentence TEXT      the input sentence (default \"%1\")\n"
        "  --tokenizer MODE     article (drop commas, split at blanks) or punctuation\n"
        "                       (every punctuation mark a token) (default %2)\n"
        "  --seed N             random seed, 0 to 18446744073709551615 (default %3)\n"
        "  --d-model N          embedding width, 1 to %4 (default %5)\n"
        "  --d-k N              query and key width, 1 to %6 (default %7)\n"
        "  --d-v N              value width, 1 to %6 (default %8)\n"
        "  --init MODE          article (PyTorch draws as in the article), normal\n"
        "                       (every entry N(0, 1)) or unit-variance (weights\n"
        "                       N(0, 1/d_model)) (default %9)\n"
        "  --scale MODE         divide the scores by sqrt-dk, none (1), or a positive\n"
        "                       NUMBER (default %10)\n"
        "  --causal             mask the keys after each query (decoder attention)\n"
        "  --mask MASK          which keys each query sees: causal (as --causal),\n"
        "                       sliding:W (the last W, itself included) or\n"
        "                       sink:S,window:W (the first S plus the last W); none\n"
        "\n"
        "Matrices from files: NumPy .npy (float32 or float64, 2-D or 1-D as one row)\n"
        "or .csv (plain numbers as numpy.savetxt(..., delimiter=\",\") writes, or a\n"
        "labelled table as the csv export writes); the ones not given are drawn as\n"
        "usual; d_model, d_k and d_v follow the files:\n"
        "  --x FILE             the embeddings X, one row per token (n x d_model); the\n"
        "                       rows are labelled with the --sentence tokens when\n"
        "                       there are as many, otherwise t0, t1, ...\n"
        "  --wq FILE            W_q as d_model x d_k, so that Q = X W_q\n"
        "  --wk FILE            W_k as d_model x d_k\n"
        "  --wv FILE            W_v as d_model x d_v\n"
        "  --transpose-weights  the weight files are d_out x d_in, as PyTorch's\n"
        "                       nn.Linear.weight\n"
        "\n"
        "Presets (the labs of File > Presets):\n"
        "  --preset NAME        start from a preset: %11; the options after it\n"
        "                       change its parameters (and draw the matrices from the\n"
        "                       seed), e.g. --preset cinema --d-k 512\n"
        "  --list-presets       list the presets with their parameters and exit\n"
        "\n"
        "Saved labs:\n"
        "  --open FILE.attnlab  start from a saved lab (settings and matrices); not\n"
        "                       combined with the model options or matrix files;\n"
        "                       a bare FILE.attnlab argument does the same\n"
        "  --save FILE.attnlab  write the lab to FILE without a window; an existing\n"
        "                       file is replaced only once the new one is complete\n"
        "\n"
        "Export (runs without a window):\n"
        "  --export-dir DIR     write the files into DIR, created if missing; all files\n"
        "                       are written or none\n"
        "  --format LIST        json, csv, npy, or several as json,csv,npy (default\n"
        "                       json,csv); png, svg and pdf write a picture of every\n"
        "                       view and of the whole pipeline, without a display\n"
        "  --size WxH           picture size in pixels for png, svg and pdf\n"
        "                       (each 100 to %12; default 1800x720 for the pipeline\n"
        "                       figure, 900x800 for one map)\n"
        "  --dk-sweep           with --format png: frame_0001.png ... frame_0063.png,\n"
        "                       the pipeline figure at each d_k of the slider from\n"
        "                       1 to 1024, each titled with its d_k (default size\n"
        "                       1800x800), for slides or a GIF; all written or none\n"
        "  --flash-tiles RxC    also write flash.json: the head again in FlashAttention's\n"
        "                       tiles of R queries x C keys (each 1 to n; need not\n"
        "                       divide n), every step's m, l, rescale and O, the\n"
        "                       context O / l and its difference from the direct pass\n"
        "\n"
        "Multi-head attention (with --export-dir, json, csv, npy, and/or --save):\n"
        "  --heads H            1 to 64 heads (default 1)\n"
        "  --head-layout L      independent (each head its own W_q, W_k, W_v, as the\n"
        "                       article) or split (torch.nn.MultiheadAttention: d_k =\n"
        "                       d_v = d_model / H, H must divide d_model)\n"
        "  --init torch-mha     the module's own initialisation after\n"
        "                       torch.manual_seed(--seed) (split layout)\n"
        "  --output-projection  W_o (H d_v x d_model) after the independent heads\n"
        "  --mha-state DIR      the module's in_proj_weight.npy, in_proj_bias.npy,\n"
        "                       out_proj.weight.npy, out_proj.bias.npy; X from --x\n"
        "  attention.json adds heads, weights_average, concat, output and the\n"
        "  parameters; NAME_headI.csv/.npy hold head I's matrices; --save writes\n"
        "  every head into the lab, which --open FILE --export-dir DIR exports again\n"
        "\n"
        "GPT-2 checkpoints (with --export-dir; --format json, png, svg, pdf):\n"
        "  --model DIR          a Hugging Face GPT-2 folder (config.json,\n"
        "                       model.safetensors, vocab.json, merges.txt), run over\n"
        "                       --sentence with GPT-2's own tokenizer; --scale applies to\n"
        "                       every layer; writes model_attention.json into the\n"
        "                       export directory (every layer's and head's scores and\n"
        "                       weights, the next tokens); png, svg, pdf write\n"
        "                       model_view (every head's weights), head_view_layerN\n"
        "                       (a layer's heads as lines) and next_token\n"
        "  --temperature T      divide the logits of the next-token softmax by T\n"
        "                       (0.001 to 1000000, default 1)\n"
        "  --caption TEXT       a line under every picture's title, e.g. \"random\n"
        "                       weights\" for a checkpoint that is not trained\n"
        "  --allow-large-export write model_attention.json even when it would take\n"
        "                       more than 1 GB (refused otherwise, with its size)\n"
        "\n"
        "The d_k lab (variance, saturation and gradients against d_k):\n"
        "  --scaling-lab        see attention-lab --scaling-lab --help\n"
        "\n"
        "The training lab (a head trained with and without 1/sqrt(d_k)):\n"
        "  --training-lab       see attention-lab --training-lab --help\n"
        "\n"
        "  -h, --help           show this help and exit\n"
        "      --version        show the version and exit\n"
        "\n"
        "Files: DIR/attention.json holds the settings, tokens, the matrices X, W_q,\n"
        "W_k, W_v, Q, K, V, scores, scaled_scores, weights, context (arrays of rows,\n"
        "numbers that read back exactly) and the statistics; a masked entry of\n"
        "scaled_scores is null, as JSON has no -inf. DIR/NAME.csv holds each matrix\n"
        "with token or index labels; a masked entry is -inf. DIR/NAME.npy holds each\n"
        "matrix as float64 for numpy.load.\n"
        "\n"
        "Example:\n"
        "  attention-lab --sentence \"Life is short, eat dessert first\" --seed 123 \\\n"
        "      --d-model 16 --d-k 24 --d-v 28 --init article --export-dir out \\\n"
        "      --format json,csv\n"
        "\n"
        "Exit status: 0 on success, 1 if the files cannot be written, 2 for invalid\n"
        "options or input files.");
    return text
        .arg(QString::fromStdString(defaults.sentence),
             QString::fromLatin1(attn::tokenizerModeName(defaults.tokenizer)), QString::number(defaults.seed),
             QString::number(attn::kMaxDModel), QString::number(defaults.dModel),
             QString::number(attn::kMaxDHead), QString::number(defaults.dK), QString::number(defaults.dV),
             QString::fromLatin1(attn::initModeName(defaults.init)),
             QString::fromLatin1(attn::scaleModeName(defaultOptions.scale)))
        .arg(presetNames().join(QStringLiteral(", ")), QString::number(attn::kMaxPictureSide));
}

}  // namespace attnlab
