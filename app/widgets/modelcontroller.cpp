// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelcontroller.h"
#include "session.h"

#include "gpt2session.h"
#include "headlinesview.h"
#include "modelpanel.h"
#include "pipelineview.h"

#include <QAction>
#include <QFileDialog>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QProgressBar>
#include <QStatusBar>

namespace attnlab {

ModelController::ModelController(QMainWindow* window, PipelineView* pipeline, QLineEdit* sentence,
                                 Session* session)
    : QObject(window), window_(window), pipeline_(pipeline), session_(new Gpt2Session(this))
{
    panel_ = new ModelPanel(session_);
    panel_->setObjectName(QStringLiteral("modelPanel"));
    pipeline_->addPage(panel_, tr("Model"));
    lines_ = new HeadLinesView;
    lines_->setObjectName(QStringLiteral("modelHeadLines"));
    pipeline_->addPage(lines_, tr("Head view"));
    connect(session_, &Gpt2Session::resultChanged, lines_, [this] {
        QStringList labels;
        for (const Gpt2Token& t : session_->resultTokens())
            labels << t.display;
        lines_->setResult(session_->result(), labels);
        lines_->setLayer(session_->selectedLayer());
    });
    connect(session_, &Gpt2Session::selectionChanged, lines_,
            [this](int layer, int) { lines_->setLayer(layer); });

    progress_ = new QProgressBar(window_);
    progress_->setObjectName(QStringLiteral("modelProgress"));
    progress_->setMaximumWidth(160);
    progress_->setAccessibleName(tr("Reading the model"));
    // No taller than a line of the status bar's text: the maps' rows at
    // 1024 x 700 have no pixel to spare (tst_screens).
    progress_->setMaximumHeight(window_->statusBar()->fontMetrics().height());
    progress_->setTextVisible(false);
    window_->statusBar()->addPermanentWidget(progress_);
    progress_->hide();

    connect(session_, &Gpt2Session::loadProgress, this, [this](int step, int steps, const QString& what) {
        // The readers report per folder, not per byte: a busy bar until done.
        progress_->setRange(0, step < steps ? 0 : steps);
        progress_->setValue(step);
        progress_->setVisible(step < steps);
        emit message(what, step < steps ? 0 : 5000);
    });
    connect(session_, &Gpt2Session::loadFailed, this, [this](const QString& text) {
        progress_->hide();
        emit message(tr("The model was not opened: %1").arg(text), 15000);
    });
    connect(session_, &Gpt2Session::modelOpened, this, [this] { pipeline_->showPage(panel_); });
    session_->setSentence(sentence->text());
    connect(sentence, &QLineEdit::textChanged, session_, &Gpt2Session::setSentence);
    connect(session, &Session::parametersChanged, session_, [this, session] {
        const QString text = QString::fromStdString(session->config().sentence);
        if (text != session_->sentence())
            session_->setSentence(text);
    });
}

void ModelController::addFileActions(QMenu* file)
{
    QAction* open = file->addAction(tr("Open mo&del…"), this, &ModelController::chooseModel);
    open->setObjectName(QStringLiteral("openModelAction"));
    open->setStatusTip(
        tr("Read a Hugging Face GPT-2 folder (config.json, model.safetensors, vocab.json, "
           "merges.txt) and show its attention for the sentence."));
}

void ModelController::chooseModel()
{
    const QString folder =
        QFileDialog::getExistingDirectory(window_, tr("Open a GPT-2 model folder"), session_->modelFolder());
    if (!folder.isEmpty())
        openModel(folder);
}

void ModelController::openModel(const QString& folder)
{
    session_->openModel(folder);
}

}  // namespace attnlab
