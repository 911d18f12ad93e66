// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the window starts from: the lab the command line asked for (model
// options, a saved lab, matrix files) and the model folder to open. The
// command line (app/cli) fills it; the window (app/widgets) reads it, so
// that neither includes the other: main() hands one to the other.

#include "attention.h"
#include "modelfolder.h"
#include "labfile.h"
#include "model.h"

#include <memory>
#include <string>

namespace attnlab {

struct WindowStart {
    bool haveConfig = false;  // the user gave model options for the window
    attn::ModelConfig config;
    attn::AttentionOptions options;
    // --open or matrix files: the whole state, matrices included (config and
    // options above are set to lab.config and lab.options, haveConfig true).
    // lab.warnings holds what the reader of an opened file warned about.
    bool haveLab = false;
    LabState lab;
    // The file the lab came from (--open FILE or a bare FILE.attnlab, as a
    // double-click passes it), so that Save writes back to it; empty otherwise.
    std::string labPath;
    // --model DIR without --export-dir: the model the command line read
    // from the folder (its readers accepted it; ModelFolder::folder made
    // absolute), which the window's Model tab shows without reading it
    // again; null otherwise.
    std::shared_ptr<const ModelFolder> model;
};

}  // namespace attnlab
