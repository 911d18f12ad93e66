// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrixfilestart.h"

#include "attentionsnapshot.h"
#include "consoleio.h"
#include "matrixio.h"
#include "npy.h"
#include "size_limits.h"
#include "tokenizer.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <utility>

namespace attnlab {

namespace {

struct CommandLine {
    Q_DECLARE_TR_FUNCTIONS(CommandLine)
};

// The number of columns of W when its rows are d_model (or of its transpose
// when that fits instead, so that the message shows the shape meant); -1 if
// neither fits.
int outputWidth(const attn::Matrix& W, int dModel)
{
    if (W.rows() == dModel)
        return int(W.cols());
    if (W.cols() == dModel)
        return int(W.rows());
    return -1;
}

}  // namespace

bool MatrixFileStart::any() const
{
    for (const std::optional<std::string>& path : paths)
        if (path)
            return true;
    return false;
}

attn::Expected<LabState> labFromMatrixFiles(const MatrixFileStart& files, const attn::ModelConfig& requested,
                                            const attn::AttentionOptions& options)
{
    attn::Matrix given[4];
    std::string names[4];
    for (int slot = 0; slot < 4; ++slot) {
        if (!files.paths[slot])
            continue;
        const QString path = localPath(*files.paths[slot]);
        attn::Expected<attn::Matrix> m = readMatrixFile(path);
        if (!m)
            return attn::Error{std::string(kMatrixOptions[slot]) + ": " + m.error().message};
        given[slot] = std::move(m).value();
        names[slot] = QFileInfo(path).fileName().toStdString();
        if (slot != SlotX && files.transposeWeights) {
            given[slot] = attn::Matrix(given[slot].transpose());
            names[slot] += " transposed";
        }
    }
    const auto have = [&files](int slot) { return bool(files.paths[slot]); };

    attn::ModelConfig config = requested;
    if (!files.dimensionGiven[0]) {
        if (have(SlotX))
            config.dModel = int(given[SlotX].cols());
        else
            for (const int slot : {SlotWq, SlotWk, SlotWv})
                if (have(slot)) {
                    config.dModel = int(given[slot].rows());
                    break;
                }
    }
    if (!files.dimensionGiven[1]) {
        if (have(SlotWq))
            config.dK = outputWidth(given[SlotWq], config.dModel);
        else if (have(SlotWk))
            config.dK = outputWidth(given[SlotWk], config.dModel);
    }
    if (!files.dimensionGiven[2] && have(SlotWv))
        config.dV = outputWidth(given[SlotWv], config.dModel);

    const std::string hint = files.transposeWeights
                                 ? "leave out --transpose-weights: the file is already d_in x d_out"
                                 : "use --transpose-weights for PyTorch's nn.Linear.weight (d_out x d_in)";
    if (have(SlotX)) {
        const attn::Status shape =
            checkShape(names[SlotX], given[SlotX], -1, config.dModel, "tokens x d_model");
        if (!shape)
            return shape.error();
        if (given[SlotX].rows() > attn::kMaxTokens)
            return attn::Error{names[SlotX] + " has " + std::to_string(given[SlotX].rows())
                               + " rows (tokens), more than the " + std::to_string(attn::kMaxTokens)
                               + " allowed"};
    }
    const struct {
        int slot;
        int cols;
        const char* dims;
    } weights[] = {{SlotWq, config.dK, "d_model x d_k"},
                   {SlotWk, config.dK, "d_model x d_k"},
                   {SlotWv, config.dV, "d_model x d_v"}};
    for (const auto& w : weights) {
        if (!have(w.slot))
            continue;
        const attn::Status shape =
            checkShape(names[w.slot], given[w.slot], config.dModel, w.cols, w.dims, hint);
        if (!shape)
            return shape.error();
    }
    const attn::Status dimensions = attn::validateDimensions(config.dModel, config.dK, config.dV);
    if (!dimensions)
        return dimensions.error();

    LabState state;
    if (have(SlotX)) {
        const attn::Tokenization tokens = tokensForRows(config, int(given[SlotX].rows()));
        const attn::Expected<attn::Tokenization> own = attn::tokenize(config.sentence, config.tokenizer);
        if (!own || own->tokens.size() != tokens.tokens.size() || own->tokens != tokens.tokens) {
            if (files.sentenceGiven)
                printLine(stderr, CommandLine::tr("attention-lab: warning: the sentence has %1 tokens "
                                                  "but %2 has %3 rows; the rows are labelled t0, t1, ...")
                                      .arg(own ? int(own->tokens.size()) : 0)
                                      .arg(QString::fromStdString(names[SlotX]))
                                      .arg(given[SlotX].rows()));
            config.sentence = placeholderSentence(int(given[SlotX].rows()));
            config.tokenizer = attn::TokenizerMode::Article;
        }
        state.X = given[SlotX];
    } else {
        state.X = attn::drawEmbeddings(config, attn::tokenize(config.sentence, config.tokenizer).value());
    }
    if (!have(SlotWq) || !have(SlotWk) || !have(SlotWv)) {
        attn::Weights drawn = attn::drawWeights(config);
        state.Wq = std::move(drawn.Wq);
        state.Wk = std::move(drawn.Wk);
        state.Wv = std::move(drawn.Wv);
    }
    if (have(SlotWq))
        state.Wq = given[SlotWq];
    if (have(SlotWk))
        state.Wk = given[SlotWk];
    if (have(SlotWv))
        state.Wv = given[SlotWv];
    state.config = config;
    state.options = options;
    const attn::Status valid = validateLabState(state);
    if (!valid)
        return valid.error();
    return state;
}

}  // namespace attnlab
