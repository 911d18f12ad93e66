// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A saved lab (.attnlab): everything needed to come back to the same state,
// the matrices included, so hand edits survive.
//
//   {
//     "format": "attention-lab",
//     "version": 2,
//     "app_version": "0.1.0",
//     "sentence": "Life is short, eat dessert first",
//     "tokenizer": "article",          article | punctuation
//     "seed": 123,                     a string above 2^63 - 1
//     "d_model": 16, "d_k": 24, "d_v": 28,
//     "init": "article",               article | normal | unit-variance
//     "scale_mode": "sqrt-dk",         sqrt-dk | none | custom
//     "scale_divisor": 1.0,            the custom divisor
//     "causal": false,                 true for every mask but none
//     "mask": "sliding:3",             sliding:W | sink:S,window:W; only for
//                                      those masks (absent: "causal" decides)
//     "X": [[...], ...],               (n, d_model), n = tokens of the sentence
//     "W_q": [[...], ...],             (d_model, d_k)
//     "W_k": [[...], ...],             (d_model, d_k)
//     "W_v": [[...], ...],             (d_model, d_v)
//     "heads": { ... }                 a multi-head lab only (labheads.h)
//     "view": { ... }                  the window's own state, kept as is
//   }
//
// Numbers are written by JsonWriter and read by parseJson, so every matrix
// comes back bit for bit (-0.0 included).
//
// Versions: 1 is the single head (everything above but "heads"); 2 adds
// the multi-head lab's "heads" and is written for every lab (a single-head
// lab's file is version 1's with "version": 2). Both are read. A file
// without "version" is read as version 1 with a warning; a newer version is
// refused with a message naming it (it may hold what this one cannot show);
// unknown keys are warned about and left out ("heads" in a version 1 file
// too). "mask" needs no new version: an Attention Lab that predates it
// warns that it left "mask" out and opens the lab as causal, which every
// such mask is. Everything else that is wrong (not this format, a missing field, a
// wrong type, a matrix whose shape does not fit the dimensions or the
// sentence's tokens, a non-finite entry) is an error naming the field.

#include "attention.h"
#include "attentionsnapshot.h"
#include "borrowedhead.h"
#include "expected.h"
#include "matrix.h"
#include "model.h"
#include "multihead.h"
#include "stagedwrite.h"

#include <QJsonObject>
#include <QString>

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr const char* kLabFormatName = "attention-lab";
inline constexpr int kLabFormatVersion = 2;
inline constexpr const char* kLabFileSuffix = "attnlab";

struct LabState {
    attn::ModelConfig config;  // d_model, d_k, d_v agree with the matrices
    attn::AttentionOptions options;
    attn::Matrix X;   // (n, d_model), one row per token of config.sentence
    attn::Matrix Wq;  // (d_model, d_k)
    attn::Matrix Wk;  // (d_model, d_k)
    attn::Matrix Wv;  // (d_model, d_v)
    // With heads.multiHead() false: today's single head (W_q, W_k, W_v
    // above), multiHead empty (neither it nor selectedHead is looked at or
    // written). Otherwise multiHead holds every head's parameters (W_o, or
    // the split layout's in/out projections and biases) and W_q, W_k, W_v
    // above are an exact copy of head selectedHead's (split: its slices of
    // in_proj_weight, transposed): validateLabState refuses a state or file
    // whose copy differs, naming the first cell (labheads.h).
    attn::HeadsConfig heads;
    attn::MultiHeadParams multiHead;
    int selectedHead = 0;  // 0-based
    // One GPT-2 head shown in the pipeline (borrowedhead.h): X has a row per
    // GPT-2 piece, not per token of config.sentence. Never written to a file.
    BorrowedHead borrowed;
    QJsonObject view;                   // opaque to this layer: the GUI's focus row, ranges, ...
    std::vector<std::string> warnings;  // filled by the reader, never written
};

// The inputs of a computed run, with an optional view: the single head's
// (h = 1), or a multi-head run's every head's parameters with head 1
// selected (one head without a projection is a single-head lab).
LabState labStateFromSnapshot(const AttentionSnapshot& snapshot, const QJsonObject& view = {});

// Dimensions within limits, the matrices of the dimensions' shapes, X with one
// row per token of the sentence, every entry finite and within
// attn::kMaxInputMagnitude, a valid custom divisor; for a multi-head lab
// also validateLabHeads (every head, W_o or the split projections, the
// selected head and W_q, W_k, W_v its exact copy). The error names the field.
attn::Status validateLabState(const LabState& state);

// The run of a valid lab, as the export writes it: a single-head lab's one
// head (h = 1, the single-head pass), a multi-head lab's every head from the
// multi-head pass as a multi-head run (in the split layout their Q, K, V
// include the biases; head state.selectedHead is the pipeline's).
attn::Expected<AttentionSnapshot> computeLabSnapshot(const LabState& state);

void writeLabJson(std::ostream& out, const LabState& state);

// `text` is the whole file. The result has passed validateLabState.
attn::Expected<LabState> parseLab(std::string_view text);

// Reads and parses `path`; messages start with the file name.
attn::Expected<LabState> readLabFile(const QString& path);

// The lab as a file set for writeFileSetsAtomically (validated, a symbolic
// link at `path` resolved). `state` must outlive the set.
attn::Expected<OutputFileSet> labFileSet(const QString& path, const LabState& state);

// Validates, then writes through QSaveFile: a failure or crash midway leaves
// an existing file untouched.
attn::Status saveLabFile(const QString& path, const LabState& state);

}  // namespace attnlab
