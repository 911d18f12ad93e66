// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The sentence and how it becomes tokens: the sentence field (the session
// follows as you type), the tokenizer, the token strip with vocabulary ids,
// a line saying where the matrices come from, and any problem with the input
// (the last good result stays on display meanwhile).

#include "renumbernote.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QScrollArea;

namespace attnlab {

class Session;
class TokenStrip;

class InputPanel : public QWidget {
    Q_OBJECT
public:
    explicit InputPanel(Session* session, QWidget* parent = nullptr);

    QLineEdit* sentenceEdit() const { return sentence_; }
    TokenStrip* tokenStrip() const { return strip_; }

private:
    void syncFromSession();
    void refreshTokens();
    void refreshProblem();

    Session* session_;
    QLineEdit* sentence_;
    QComboBox* tokenizer_;
    TokenStrip* strip_;
    QScrollArea* stripScroll_;
    QLabel* origin_;
    QLabel* problem_;
    QLabel* renumbered_;
    // The tokens before any renumbering shown, to tell one.
    TokenNumbering numbering_;
    attn::InitMode numberingInit_ = attn::InitMode::Article;
    attn::TokenizerMode numberingTokenizer_ = attn::TokenizerMode::Article;
};

}  // namespace attnlab
