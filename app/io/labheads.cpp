// SPDX-License-Identifier: GPL-3.0-or-later
#include "labheads.h"

#include "labreader.h"
#include "numberformat.h"
#include "size_limits.h"
#include "tokenizer.h"

#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnlab {

namespace {

using Type = JsonValue::Type;

const std::string kPrefix = "\"heads\".";

std::string headName(int i, std::string_view key)
{
    return "\"heads\" head " + std::to_string(i + 1) + " " + quotedKey(key);
}

std::string shapeText(long long rows, long long cols)
{
    return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

attn::Status checkLength(const std::string& name, const attn::RowVector& v, long long size,
                         const std::string& what)
{
    if (v.size() == size)
        return attn::okStatus();
    return attn::Error{name + " has " + std::to_string(v.size()) + " numbers but must have "
                       + std::to_string(size) + ": " + what};
}

// Every entry finite and within kMaxInputMagnitude, as validateInputs asks
// of the single head; the cell (or a bias's entry) is 1-based.
template <typename M>
attn::Status checkEntries(const std::string& name, const Eigen::MatrixBase<M>& m)
{
    constexpr bool flat = M::IsVectorAtCompileTime;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            const double v = m(i, j);
            if (std::isfinite(v) && std::abs(v) <= attn::kMaxInputMagnitude)
                continue;
            std::string text =
                name
                + (flat ? ", entry " + std::to_string(j + 1)
                        : ", row " + std::to_string(i + 1) + ", column " + std::to_string(j + 1))
                + ": ";
            if (std::isnan(v))
                text += "NaN is not a number";
            else if (!std::isfinite(v))
                text += std::string(v > 0 ? "+" : "-") + "infinity is not allowed";
            else
                text += formatRoundTrip(v) + " is too large; values must lie within +/-1e+30";
            return attn::Error{text};
        }
    }
    return attn::okStatus();
}

// The top-level copy of the selected head's projection.
attn::Status checkCopy(const char* key, const attn::Matrix& top, const attn::Matrix& head, int selected)
{
    const std::string what = std::string("\"") + key + "\" must be a copy of the selected head's " + key
                             + " (\"heads\".\"selected\" is " + std::to_string(selected + 1) + ")";
    if (top.rows() != head.rows() || top.cols() != head.cols())
        return attn::Error{what + "; it is " + shapeText(top.rows(), top.cols()) + " and the head's is "
                           + shapeText(head.rows(), head.cols())};
    for (Eigen::Index i = 0; i < top.rows(); ++i)
        for (Eigen::Index j = 0; j < top.cols(); ++j)
            if (top(i, j) != head(i, j))
                return attn::Error{what + "; row " + std::to_string(i + 1) + ", column "
                                   + std::to_string(j + 1) + " is " + formatRoundTrip(top(i, j))
                                   + " but the head's is " + formatRoundTrip(head(i, j))};
    return attn::okStatus();
}

attn::Status validateIndependent(const LabState& s)
{
    const attn::IndependentHeads& p = s.multiHead.independent;
    const int h = s.heads.heads, dModel = s.config.dModel, dK = s.config.dK, dV = s.config.dV;
    const long long entries = 1LL * h * dModel * (2LL * dK + dV);
    if (entries > attn::kMaxHeadWeightEntries)
        return attn::Error{kPrefix + "\"count\": " + std::to_string(h) + " heads of d_model "
                           + std::to_string(dModel) + ", d_k " + std::to_string(dK) + " and d_v "
                           + std::to_string(dV) + " need " + std::to_string(entries)
                           + " weight entries; at most " + std::to_string(attn::kMaxHeadWeightEntries)
                           + " are allowed"};
    for (int i = 0; i < h; ++i) {
        const attn::HeadWeights& w = p.heads[std::size_t(i)];
        for (const auto& [key, m, cols, what] :
             {std::tuple{"W_q", &w.Wq, dK, "d_model x d_k"}, std::tuple{"W_k", &w.Wk, dK, "d_model x d_k"},
              std::tuple{"W_v", &w.Wv, dV, "d_model x d_v"}}) {
            if (attn::Status st = checkMatrixShape(headName(i, key), *m, dModel, cols, what); !st)
                return st;
            if (attn::Status st = checkEntries(headName(i, key), *m); !st)
                return st;
        }
    }
    const std::string wo = kPrefix + "\"W_o\"";
    if (s.heads.outputProjection != (p.Wo.size() > 0))
        return attn::Error{s.heads.outputProjection
                               ? "the field " + wo + " is missing: \"output_projection\" is true"
                               : wo + " is given but \"output_projection\" is false; remove one of them"};
    if (p.Wo.size() == 0)
        return attn::okStatus();
    const long long rows = 1LL * h * dV;
    if (p.Wo.rows() != rows || p.Wo.cols() < 1 || p.Wo.cols() > attn::kMaxDModel)
        return attn::Error{wo + " is " + shapeText(p.Wo.rows(), p.Wo.cols()) + " but must be ("
                           + std::to_string(rows) + ", d_out): h d_v = " + std::to_string(h) + " x "
                           + std::to_string(dV) + " rows and d_out from 1 to "
                           + std::to_string(attn::kMaxDModel) + " columns"};
    if (p.Wo.size() > attn::kMaxHeadWeightEntries)
        return attn::Error{wo + " has " + std::to_string(p.Wo.size()) + " entries; at most "
                           + std::to_string(attn::kMaxHeadWeightEntries) + " are allowed"};
    return checkEntries(wo, p.Wo);
}

attn::Status validateSplit(const LabState& s)
{
    const attn::SplitHeads& p = s.multiHead.split;
    const int h = s.heads.heads, e = s.config.dModel;
    if (attn::Status st = attn::validateSplitHeads(e, h); !st)
        return attn::Error{kPrefix + "\"count\": " + st.error().message};
    const int hd = e / h;
    if (s.config.dK != hd || s.config.dV != hd)
        return attn::Error{"\"d_k\" and \"d_v\" must be d_model / h = " + std::to_string(e) + " / "
                           + std::to_string(h) + " = " + std::to_string(hd)
                           + " in the split layout; they are " + std::to_string(s.config.dK) + " and "
                           + std::to_string(s.config.dV)};
    const std::string inW = kPrefix + "\"in_proj_weight\"", inB = kPrefix + "\"in_proj_bias\"",
                      outW = kPrefix + "\"out_proj_weight\"", outB = kPrefix + "\"out_proj_bias\"";
    const std::string forE = " for E = d_model = " + std::to_string(e);
    for (const attn::Status& st : {checkMatrixShape(inW, p.inProjWeight, 3LL * e, e, "3E x E" + forE),
                                   checkLength(inB, p.inProjBias, 3LL * e, "3E" + forE),
                                   checkMatrixShape(outW, p.outProjWeight, e, e, "E x E" + forE),
                                   checkLength(outB, p.outProjBias, e, "E" + forE)})
        if (!st)
            return st;
    for (const attn::Status& st : {checkEntries(inW, p.inProjWeight), checkEntries(inB, p.inProjBias),
                                   checkEntries(outW, p.outProjWeight), checkEntries(outB, p.outProjBias)})
        if (!st)
            return st;
    return attn::okStatus();
}

}  // namespace

attn::Status validateLabHeads(const LabState& s)
{
    const attn::HeadsConfig& c = s.heads;
    const attn::MultiHeadParams& p = s.multiHead;
    if (attn::Status st = attn::validateHeadCount(c.heads); !st)
        return attn::Error{kPrefix + "\"count\": " + st.error().message};
    if (p.layout != c.layout)
        return attn::Error{kPrefix + "\"layout\" is \"" + attn::headLayoutName(c.layout)
                           + "\" but the parameters are in the " + attn::headLayoutName(p.layout)
                           + " layout"};
    if (p.headCount() != c.heads)
        return attn::Error{kPrefix + "\"count\" is " + std::to_string(c.heads) + " but the parameters hold "
                           + std::to_string(p.headCount()) + " heads"};
    if (s.selectedHead < 0 || s.selectedHead >= c.heads)
        return attn::Error{kPrefix + "\"selected\" is " + std::to_string(s.selectedHead + 1)
                           + " but the heads are numbered 1 to " + std::to_string(c.heads)};
    const double n = double(s.X.rows());
    if (double(c.heads) * n * n > double(attn::kMaxHeadScoreEntries))
        return attn::Error{kPrefix + "\"count\": " + std::to_string(c.heads) + " heads of "
                           + std::to_string(s.X.rows()) + " x " + std::to_string(s.X.rows())
                           + " score maps exceed the " + std::to_string(attn::kMaxHeadScoreEntries)
                           + " entries (1 GiB) the heads may keep; use fewer heads or tokens"};
    const attn::Status params =
        c.layout == attn::HeadLayout::Split ? validateSplit(s) : validateIndependent(s);
    if (!params)
        return params;
    const attn::HeadWeights selected = p.head(s.selectedHead);
    for (const attn::Status& st : {checkCopy("W_q", s.Wq, selected.Wq, s.selectedHead),
                                   checkCopy("W_k", s.Wk, selected.Wk, s.selectedHead),
                                   checkCopy("W_v", s.Wv, selected.Wv, s.selectedHead)})
        if (!st)
            return st;
    return attn::okStatus();
}

void writeLabHeads(JsonWriter& json, const LabState& s)
{
    if (!s.heads.multiHead())
        return;
    json.key("heads");
    json.beginObject();
    json.key("count");
    json.value(s.heads.heads);
    json.key("layout");
    json.value(attn::headLayoutName(s.heads.layout));
    json.key("output_projection");
    json.value(s.heads.outputProjection);
    json.key("torch_init");
    json.value(s.heads.torchInit);
    json.key("selected");
    json.value(s.selectedHead + 1);
    if (s.heads.layout == attn::HeadLayout::Independent) {
        const attn::IndependentHeads& p = s.multiHead.independent;
        json.key("head_weights");
        json.beginArray();
        for (const attn::HeadWeights& w : p.heads) {
            json.beginObject();
            for (const auto& [key, m] :
                 {std::pair{"W_q", &w.Wq}, std::pair{"W_k", &w.Wk}, std::pair{"W_v", &w.Wv}}) {
                json.key(key);
                writeJsonMatrix(json, *m);
            }
            json.endObject();
        }
        json.endArray();
        if (p.Wo.size() > 0) {
            json.key("W_o");
            writeJsonMatrix(json, p.Wo);
        }
    } else {
        const attn::SplitHeads& p = s.multiHead.split;
        json.key("in_proj_weight");
        writeJsonMatrix(json, p.inProjWeight);
        json.key("in_proj_bias");
        writeJsonVector(json, p.inProjBias);
        json.key("out_proj_weight");
        writeJsonMatrix(json, p.outProjWeight);
        json.key("out_proj_bias");
        writeJsonVector(json, p.outProjBias);
    }
    json.endObject();
}

attn::Status readLabHeads(const JsonValue& object, LabState* state)
{
    LabReader read(object, kPrefix);
    attn::HeadsConfig& c = state->heads;
    c.heads = read.integer<int>("count", 1, attn::kMaxHeads);
    const std::string layout = read.string("layout");
    if (!read.error() && !attn::parseHeadLayout(layout, &c.layout))
        return attn::Error{kPrefix + "\"layout\" must be \"independent\" or \"split\", not \"" + layout
                           + "\""};
    c.outputProjection = read.boolean("output_projection");
    c.torchInit = read.boolean("torch_init");
    state->selectedHead = read.integer<int>("selected", 1, attn::kMaxHeads) - 1;
    if (read.error())
        return *read.error();

    attn::MultiHeadParams& p = state->multiHead;
    p = attn::MultiHeadParams();
    p.layout = c.layout;
    std::vector<std::string_view> known = {"count", "layout", "output_projection", "torch_init", "selected"};
    if (c.layout == attn::HeadLayout::Independent) {
        known.insert(known.end(), {"head_weights", "W_o"});
        const JsonValue* list = read.field("head_weights", Type::Array);
        if (!list)
            return *read.error();
        const std::string listName = read.name("head_weights");
        if (list->size() != std::size_t(c.heads))
            return attn::Error{listName + " (line " + std::to_string(list->line()) + ") holds "
                               + std::to_string(list->size()) + " heads but " + read.name("count") + " is "
                               + std::to_string(c.heads)};
        if (list->allNumbers())
            return attn::Error{listName + " (line " + std::to_string(list->line())
                               + ") must be an array of objects, one per head, not of numbers"};
        for (std::size_t i = 0; i < list->items().size(); ++i) {
            const JsonValue& item = list->items()[i];
            const std::string headText = "\"heads\" head " + std::to_string(i + 1);
            if (!item.isObject())
                return attn::Error{headText + " (line " + std::to_string(item.line())
                                   + ") must be an object with " + "\"W_q\", \"W_k\" and \"W_v\", not "
                                   + JsonValue::typeName(item.type())};
            LabReader head(item, headText + " ");
            attn::HeadWeights w;
            w.Wq = head.matrix("W_q");
            w.Wk = head.matrix("W_k");
            w.Wv = head.matrix("W_v");
            if (head.error())
                return *head.error();
            if (const std::vector<std::string> unknown = head.unknownKeys({"W_q", "W_k", "W_v"});
                !unknown.empty())
                state->warnings.push_back(
                    "unknown fields of " + headText + " were left out: " + quotedKey(unknown.front())
                    + (unknown.size() > 1 ? " and " + std::to_string(unknown.size() - 1) + " more" : ""));
            p.independent.heads.push_back(std::move(w));
        }
        if (object.find("W_o"))
            p.independent.Wo = read.matrix("W_o");
    } else {
        known.insert(known.end(), {"in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias"});
        p.split.heads = c.heads;
        p.split.inProjWeight = read.matrix("in_proj_weight");
        p.split.inProjBias = read.vector("in_proj_bias");
        p.split.outProjWeight = read.matrix("out_proj_weight");
        p.split.outProjBias = read.vector("out_proj_bias");
    }
    if (read.error())
        return *read.error();
    if (const std::vector<std::string> unknown = read.unknownKeys(known); !unknown.empty()) {
        std::string keys;
        for (const std::string& key : unknown)
            keys += (keys.empty() ? "" : ", ") + quotedKey(key);
        state->warnings.push_back("unknown fields of \"heads\" were left out: " + keys);
    }
    return attn::okStatus();
}

}  // namespace attnlab
