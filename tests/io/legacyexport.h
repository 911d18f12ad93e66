// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The export writers before the single head became h = 1 of one writer
// (legacyexport.cpp): the oracle of tst_exportoracle.

#include "attentionexport.h"
#include "multihead.h"

#include <ostream>
#include <string>
#include <vector>

namespace attnlab {
class JsonWriter;
}

namespace legacy {

// The single-head snapshot as it was.
struct SingleSnapshot {
    attn::ModelConfig config;
    attn::AttentionOptions options;
    attn::Model model;
    attn::AttentionResult result;
    attn::AttentionStats stats;
};

// The multi-head snapshot as it was: head 1 as the focus.
struct MultiSnapshot {
    SingleSnapshot focus;
    attn::HeadLayout layout = attn::HeadLayout::Independent;
    std::string headInit;
    std::vector<attn::HeadWeights> weights;
    attn::Matrix Wo;
    attn::SplitHeads split;
    attn::MultiHeadResult result;
};

void writeAttentionJson(std::ostream& out, const SingleSnapshot& snapshot);
void writeAttentionJsonFields(attnlab::JsonWriter& json, const SingleSnapshot& snapshot);
void writeAttentionStats(attnlab::JsonWriter& json, const attn::AttentionStats& stats,
                         const std::vector<std::string>& tokens);
std::vector<attnlab::OutputFile> attentionExportFiles(const SingleSnapshot& snapshot,
                                                      const attnlab::ExportFormats& formats);

void writeMultiHeadJson(std::ostream& out, const MultiSnapshot& snapshot);
std::vector<attnlab::OutputFile> multiHeadExportFiles(const MultiSnapshot& snapshot,
                                                      const attnlab::ExportFormats& formats);
std::vector<attnlab::OutputFile> multiHeadResultFiles(const attn::MultiHeadResult& result,
                                                      const std::vector<std::string>& tokens,
                                                      const attnlab::ExportFormats& formats);
std::string multiHeadMatrixCsv(const attn::Matrix& m, const std::vector<std::string>& tokens, bool queryKey);

}  // namespace legacy
