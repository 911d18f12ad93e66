// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputpanel.h"

#include "size_limits.h"
#include "session.h"
#include "tokenstrip.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace attnlab {

InputPanel::InputPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session)
{
    sentence_ = new QLineEdit(this);
    sentence_->setObjectName(QStringLiteral("sentenceEdit"));
    sentence_->setMaxLength(attn::kMaxSentenceBytes);
    sentence_->setClearButtonEnabled(true);
    sentence_->setPlaceholderText(tr("Type a sentence"));
    sentence_->setAccessibleName(tr("Sentence"));
    sentence_->setToolTip(
        tr("The input sequence. Each token becomes one row x_i of X "
           "(n × d_model), one query row and one key column of the score "
           "maps. The matrices are redrawn from the seed as you type."));

    tokenizer_ = new QComboBox(this);
    tokenizer_->setObjectName(QStringLiteral("tokenizerCombo"));
    tokenizer_->setAccessibleName(tr("Tokenizer"));
    tokenizer_->addItem(tr("Words (article)"), int(attn::TokenizerMode::Article));
    tokenizer_->addItem(tr("Words and punctuation"), int(attn::TokenizerMode::Punctuation));
    tokenizer_->setToolTip(
        tr("How the sentence is split into tokens. Words (article): remove "
           "commas, split on spaces, as in Raschka's walk-through. Words and "
           "punctuation: every punctuation mark is a token of its own. The "
           "vocabulary is the sorted set of distinct tokens in the article's "
           "initialisation, and numbered in order of first appearance in the "
           "others (a new word keeps the other words' ids)."));

    strip_ = new TokenStrip(this);
    strip_->setObjectName(QStringLiteral("tokenStrip"));
    stripScroll_ = new QScrollArea(this);
    stripScroll_->setObjectName(QStringLiteral("tokenStripScroll"));
    stripScroll_->setFocusPolicy(Qt::NoFocus);  // Tab goes to the strip itself
    stripScroll_->setWidget(strip_);
    stripScroll_->setWidgetResizable(true);
    stripScroll_->setFrameShape(QFrame::NoFrame);
    stripScroll_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    stripScroll_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);

    origin_ = new QLabel(this);
    origin_->setObjectName(QStringLiteral("matrixOriginLabel"));
    origin_->setAccessibleName(tr("Matrix sizes and origin"));
    origin_->setWordWrap(true);
    origin_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    problem_ = new QLabel(this);
    problem_->setObjectName(QStringLiteral("problemLabel"));
    problem_->setAccessibleName(tr("Input problem"));
    problem_->setWordWrap(true);
    problem_->setForegroundRole(QPalette::BrightText);
    problem_->setAutoFillBackground(true);
    problem_->setBackgroundRole(QPalette::Highlight);
    problem_->setMargin(4);
    problem_->hide();

    // Why every token changed after one word (the article's sorted vocabulary).
    renumbered_ = new QLabel(this);
    renumbered_->setObjectName(QStringLiteral("renumberNoteLabel"));
    renumbered_->setAccessibleName(tr("Why the token ids changed"));
    renumbered_->setWordWrap(true);
    renumbered_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    renumbered_->hide();

    auto* sentenceLabel = new QLabel(tr("Sen&tence:"), this);
    sentenceLabel->setBuddy(sentence_);
    auto* tokenizerLabel = new QLabel(tr("T&okens:"), this);
    tokenizerLabel->setBuddy(tokenizer_);

    auto* row = new QHBoxLayout;
    row->addWidget(sentenceLabel);
    row->addWidget(sentence_, 1);
    row->addWidget(tokenizerLabel);
    row->addWidget(tokenizer_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* tokens = new QHBoxLayout;
    tokens->addWidget(stripScroll_, 3);
    tokens->addWidget(origin_, 2);
    layout->addLayout(row);
    layout->addLayout(tokens);
    layout->addWidget(renumbered_);
    layout->addWidget(problem_);

    connect(sentence_, &QLineEdit::textEdited, session_, &Session::setSentence);
    connect(tokenizer_, &QComboBox::currentIndexChanged, this, [this](int index) {
        session_->setTokenizer(attn::TokenizerMode(tokenizer_->itemData(index).toInt()));
    });
    connect(session_, &Session::parametersChanged, this, &InputPanel::syncFromSession);
    connect(session_, &Session::resultChanged, this, &InputPanel::refreshTokens);
    connect(session_, &Session::problemChanged, this, &InputPanel::refreshProblem);
    syncFromSession();
    refreshTokens();
    refreshProblem();
}

void InputPanel::syncFromSession()
{
    const QString sentence = QString::fromStdString(session_->inputs().config.sentence);
    if (sentence_->text() != sentence) {
        const QSignalBlocker blocker(sentence_);
        sentence_->setText(sentence);
    }
    const QSignalBlocker blocker(tokenizer_);
    tokenizer_->setCurrentIndex(tokenizer_->findData(int(session_->inputs().config.tokenizer)));
}

void InputPanel::refreshTokens()
{
    strip_->setTokens(session_->published()->tokens(), session_->published()->ids());
    // Against the tokens as they were before the renumbering (kept while the
    // note stands, so that it stays as the new word is typed out), under the
    // same initialisation and tokenizer.
    const TokenNumbering numbering{session_->published()->tokens(), session_->published()->ids()};
    const attn::ModelConfig& config = session_->inputs().config;
    const bool sameRules = config.init == numberingInit_ && config.tokenizer == numberingTokenizer_;
    const QString note = session_->inputs().borrowed.active() || !sameRules
                             ? QString()
                             : renumberNote(numbering_, numbering, config.init);
    if (note.isEmpty()) {
        numbering_ = numbering;
        numberingInit_ = config.init;
        numberingTokenizer_ = config.tokenizer;
    }
    renumbered_->setText(note);
    renumbered_->setVisible(!note.isEmpty());
    stripScroll_->setFixedHeight(strip_->sizeHint().height()
                                 + stripScroll_->horizontalScrollBar()->sizeHint().height());
    const attn::ModelConfig& c = session_->inputs().config;
    const QString sizes =
        session_->inputs().borrowed.active()
            ? tr("%n GPT-2 token(s); X is %1 × %2.", nullptr, session_->published()->tokenCount())
                  .arg(session_->inputs().matrix(MatrixId::X).rows())
                  .arg(session_->inputs().matrix(MatrixId::X).cols())
            : tr("%n token(s), vocabulary of %1; X is %2 × %3.", nullptr, session_->published()->tokenCount())
                  .arg(int(session_->inputs().model.tokenization.vocab.size()))
                  .arg(session_->inputs().matrix(MatrixId::X).rows())
                  .arg(session_->inputs().matrix(MatrixId::X).cols());
    QString origin;
    if (session_->inputs().borrowed.active())
        origin = tr("The pieces of %2; X is layer %1's LayerNorm output and a bias column of ones.")
                     .arg(session_->inputs().borrowed.layer + 1)
                     .arg(session_->inputs().borrowed.model);
    else if (session_->inputs().editedCells == 0)
        origin = tr("Matrices drawn from seed %1 (%2 initialisation).")
                     .arg(c.seed)
                     .arg(QString::fromLatin1(attn::initModeName(c.init)));
    else
        origin =
            tr("%n cell(s) edited by hand; edits are kept until the sentence, seed, "
               "initialisation or a dimension changes, which redraws every matrix from the "
               "seed.",
               nullptr, session_->inputs().editedCells);
    origin_->setText(sizes + QLatin1Char(' ') + origin);
}

void InputPanel::refreshProblem()
{
    const QString problem = session_->problem();
    problem_->setVisible(!problem.isEmpty());
    problem_->setText(tr("%1 The maps still show the last valid input.").arg(problem));
}

}  // namespace attnlab
