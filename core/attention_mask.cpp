// SPDX-License-Identifier: GPL-3.0-or-later
#include "attention_mask.h"

#include <algorithm>
#include <charconv>
#include <system_error>

namespace attn {
namespace {

// A whole number of ASCII digits within [low, kMaxMaskWidth], or -1.
int maskNumber(std::string_view text, int low)
{
    if (text.empty() || text.size() > 9
        || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return -1;
    int value = 0;
    const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), value);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() || value < low || value > kMaxMaskWidth)
        return -1;
    return value;
}

const char* kMaskForms = "none, causal, sliding:W (W from 1) or sink:S,window:W (S from 0, W from 1)";

Error maskError(std::string_view text)
{
    return Error{"The mask must be " + std::string(kMaskForms) + ", not '" + std::string(text.substr(0, 80))
                 + (text.size() > 80 ? "...'." : "'.")};
}

}  // namespace

bool AttentionMask::hides(int query, int key) const
{
    switch (kind) {
    case Kind::None: return false;
    case Kind::Causal: return key > query;
    case Kind::Sliding: return key > query || key <= query - window;
    case Kind::SinkWindow: return key > query || (key >= sink && key <= query - window);
    }
    return false;
}

VisibleKeys AttentionMask::visible(int query, int tokens) const
{
    VisibleKeys v;
    v.to = kind == Kind::None ? tokens : query + 1;
    if (kind == Kind::Sliding || kind == Kind::SinkWindow)
        v.from = std::max(0, query - window + 1);
    // The sinks before the window; when they reach it the row is one run.
    if (kind == Kind::SinkWindow && sink > 0) {
        if (sink >= v.from)
            v.from = 0;
        else
            v.head = sink;
    }
    return v;
}

bool AttentionMask::hidesTile(int queryFirst, int queryLast, int keyFirst, int keyLast) const
{
    for (int i = queryFirst; i <= queryLast; ++i) {
        // The keys row i sees are one or two ranges [lo, hi] of 0..i.
        int lo = 0;
        const int hi = kind == Kind::None ? keyLast : i;
        if (kind == Kind::Sliding || kind == Kind::SinkWindow)
            lo = std::max(0, i - window + 1);
        if (std::max(lo, keyFirst) <= std::min(hi, keyLast))
            return false;
        if (kind == Kind::SinkWindow && keyFirst <= std::min(sink - 1, i))
            return false;
    }
    return true;
}

std::string AttentionMask::name() const
{
    switch (kind) {
    case Kind::None: return "none";
    case Kind::Causal: return "causal";
    case Kind::Sliding: return "sliding:" + std::to_string(window);
    case Kind::SinkWindow: return "sink:" + std::to_string(sink) + ",window:" + std::to_string(window);
    }
    return "none";
}

Expected<AttentionMask> parseAttentionMask(std::string_view text)
{
    if (text == "none")
        return AttentionMask::none();
    if (text == "causal")
        return AttentionMask::causal();
    constexpr std::string_view kSliding = "sliding:";
    if (text.substr(0, kSliding.size()) == kSliding) {
        const int w = maskNumber(text.substr(kSliding.size()), 1);
        if (w < 0)
            return maskError(text);
        return AttentionMask::sliding(w);
    }
    constexpr std::string_view kSink = "sink:";
    constexpr std::string_view kWindow = ",window:";
    if (text.substr(0, kSink.size()) == kSink) {
        const std::size_t comma = text.find(kWindow);
        if (comma == std::string_view::npos)
            return maskError(text);
        const int s = maskNumber(text.substr(kSink.size(), comma - kSink.size()), 0);
        const int w = maskNumber(text.substr(comma + kWindow.size()), 1);
        if (s < 0 || w < 0)
            return maskError(text);
        return AttentionMask::sinkWindow(s, w);
    }
    return maskError(text);
}

Status validateAttentionMask(const AttentionMask& mask)
{
    const bool windowed =
        mask.kind == AttentionMask::Kind::Sliding || mask.kind == AttentionMask::Kind::SinkWindow;
    if (windowed && (mask.window < 1 || mask.window > kMaxMaskWidth))
        return Error{"The mask's window must be from 1 to " + std::to_string(kMaxMaskWidth) + " tokens; got "
                     + std::to_string(mask.window) + "."};
    if (mask.kind == AttentionMask::Kind::SinkWindow && (mask.sink < 0 || mask.sink > kMaxMaskWidth))
        return Error{"The mask's sink must be from 0 to " + std::to_string(kMaxMaskWidth) + " tokens; got "
                     + std::to_string(mask.sink) + "."};
    return okStatus();
}

}  // namespace attn
