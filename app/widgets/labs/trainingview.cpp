// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainingview.h"

#include "plotgrid.h"
#include "trainingexport.h"
#include "trainingprobesview.h"
#include "lastfolder.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

namespace attnlab {

namespace {

constexpr int kGridSpacing = 6;

// A number as typed, in the user's locale or with a decimal point.
bool parseNumber(const QString& text, double* value)
{
    bool ok = false;
    double v = QLocale().toDouble(text.trimmed(), &ok);
    if (!ok)
        v = QLocale::c().toDouble(text.trimmed(), &ok);
    *value = v;
    return ok && std::isfinite(v);
}

QString number(double v, int digits = 4)
{
    return QLocale().toString(v, 'g', digits);
}

QSpinBox* spin(QWidget* parent, const char* name, const QString& accessible, int lo, int hi, int value)
{
    auto* s = new QSpinBox(parent);
    s->setObjectName(QLatin1String(name));
    s->setAccessibleName(accessible);
    s->setRange(lo, hi);
    s->setValue(value);
    s->setKeyboardTracking(false);
    return s;
}

QLineEdit* edit(QWidget* parent, const char* name, const QString& accessible, const QString& text)
{
    auto* e = new QLineEdit(text, parent);
    e->setObjectName(QLatin1String(name));
    e->setAccessibleName(accessible);
    e->setMaximumWidth(e->fontMetrics().horizontalAdvance(QStringLiteral("0.000000")) + 16);
    return e;
}

QString stepsText(int steps)
{
    return steps == 1 ? TrainingView::tr("1 step") : TrainingView::tr("%1 steps").arg(steps);
}

}  // namespace

QString TrainingView::taskText()
{
    return tr(
        "<b>The task: associative recall through one attention head.</b> Each example has n keys with "
        "embeddings e<sub>j</sub> ~ N(0, I) and labels y<sub>j</sub> in 0…C−1, and a query "
        "x<sub>q</sub> = e<sub>t</sub> + 0.5·noise that points at one target key t. The head computes "
        "q = x<sub>q</sub> W<sub>q</sub>, k<sub>j</sub> = e<sub>j</sub> W<sub>k</sub>, "
        "a = softmax(q·k<sub>j</sub> / divisor) and predicts the target's label from the fixed values "
        "v<sub>j</sub> = β·onehot(y<sub>j</sub>): logits o = Σ a<sub>j</sub> v<sub>j</sub>, loss = "
        "cross-entropy(o, y<sub>t</sub>). Only W<sub>q</sub> and W<sub>k</sub> learn; they start "
        "N(0, 1/d_model), so q·k starts with variance d_k. The <b>scaled</b> run divides by √d_k, the "
        "<b>unscaled</b> by 1; both start from the same weights and see the same batches.");
}

TrainingView::TrainingView(QWidget* parent) : QWidget(parent), run_(std::make_unique<TrainingLabRun>())
{
    auto* task = new QLabel(taskText(), this);
    task->setObjectName(QStringLiteral("trainingTaskText"));
    task->setWordWrap(true);
    task->setTextFormat(Qt::RichText);
    task->setTextInteractionFlags(Qt::TextSelectableByMouse);

    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("trainingStatus"));
    status_->setAccessibleName(tr("Training status"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    readout_ = new QLabel(this);
    readout_->setObjectName(QStringLiteral("trainingReadout"));
    readout_->setAccessibleName(tr("Steps to the loss target"));
    readout_->setWordWrap(true);
    readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    grid_ = new QGridLayout;
    grid_->setSpacing(kGridSpacing);
    plots_ = std::make_unique<TrainingPlots>(this);
    probes_ = new TrainingProbesView(this);
    probes_->setObjectName(QStringLiteral("trainingProbes"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(task);
    layout->addWidget(makeControls());
    layout->addWidget(status_);
    layout->addWidget(readout_);
    layout->addLayout(grid_, 1);
    layout->addWidget(probes_);
    arrangePlots(3);

    connect(run_.get(), &TrainingLabRun::snapshotReady, this, &TrainingView::showSnapshot);
    connect(run_.get(), &TrainingLabRun::runningChanged, this, &TrainingView::updateButtons);
    settingsEdited();
    showSnapshot();
}

TrainingView::~TrainingView() = default;

QWidget* TrainingView::makeControls()
{
    auto* box = new QWidget(this);
    const attn::TrainingSettings d;
    startButton_ = new QPushButton(tr("&Play"), box);
    startButton_->setObjectName(QStringLiteral("trainingStartButton"));
    stepButton_ = new QPushButton(tr("&1 step"), box);
    stepButton_->setObjectName(QStringLiteral("trainingStepButton"));
    stepButton_->setToolTip(tr("Train every run by exactly one step."));
    resetButton_ = new QPushButton(tr("Reset to step &0"), box);
    resetButton_->setObjectName(QStringLiteral("trainingResetButton"));
    resetButton_->setToolTip(tr("Back to the starting weights, with the settings entered."));
    auto* exportButton = new QPushButton(tr("Export as JSON and CSV…"), box);
    exportButton->setObjectName(QStringLiteral("trainingExportButton"));
    exportButton->setToolTip(tr("The curves as training_lab.json and training_lab.csv into a folder."));
    logLoss_ = new QCheckBox(tr("Log-scale loss"), box);
    logLoss_->setObjectName(QStringLiteral("trainingLogLoss"));
    targetEdit_ = edit(box, "trainingLossTarget", tr("Loss target"), number(lossTarget_));
    targetEdit_->setToolTip(
        tr("The readout counts the steps each run needed to bring the loss to this or below."));

    dkSpin_ = spin(box, "trainingDkSpin", tr("d_k of the training lab"), 1, attn::kTrainingMaxDk, d.dK);
    dkSpin_->setToolTip(tr("Follows the window's d_k; set it here for the lab alone."));
    seedSpin_ = spin(box, "trainingSeedSpin", tr("Training seed"), 0, 999999999, int(d.seed));
    optimizer_ = new QComboBox(box);
    optimizer_->setObjectName(QStringLiteral("trainingOptimizer"));
    optimizer_->setAccessibleName(tr("Optimizer"));
    optimizer_->addItem(tr("Adam"));
    optimizer_->addItem(tr("SGD"));
    lrEdit_ = edit(box, "trainingLearningRate", tr("Learning rate"), number(d.learningRate));
    stepsSpin_ = spin(box, "trainingStepsSpin", tr("Steps"), 1, attn::kTrainingMaxSteps, d.steps);
    keysSpin_ =
        spin(box, "trainingKeysSpin", tr("Keys per example n"), 2, attn::kTrainingMaxKeys, d.task.nKeys);
    dModelSpin_ = spin(box, "trainingDModelSpin", tr("d_model of the task"), 1, attn::kTrainingMaxDModel,
                       d.task.dModel);
    classesSpin_ =
        spin(box, "trainingClassesSpin", tr("Classes C"), 2, attn::kTrainingMaxClasses, d.task.classes);
    batchSpin_ = spin(box, "trainingBatchSpin", tr("Batch size"), 1, attn::kTrainingMaxBatch, d.task.batch);
    betaEdit_ = edit(box, "trainingBeta", tr("Value scale beta"), number(d.task.beta));
    customBox_ = new QCheckBox(tr("Third run ÷"), box);
    customBox_->setObjectName(QStringLiteral("trainingCustomBox"));
    customBox_->setToolTip(tr("A third run whose scores are divided by this number."));
    divisorEdit_ = edit(box, "trainingCustomDivisor", tr("Custom divisor"), QStringLiteral("4"));
    divisorEdit_->setEnabled(false);

    auto* grid = new QGridLayout(box);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(6);
    grid->setVerticalSpacing(3);
    const auto pair = [&](int row, int column, const QString& text, QWidget* field) {
        auto* label = new QLabel(text, box);
        label->setBuddy(field);
        grid->addWidget(label, row, column, Qt::AlignRight);
        grid->addWidget(field, row, column + 1);
    };
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(startButton_);
    buttons->addWidget(stepButton_);
    buttons->addWidget(resetButton_);
    buttons->addSpacing(12);
    buttons->addWidget(logLoss_);
    buttons->addSpacing(12);
    auto* targetLabel = new QLabel(tr("Loss target:"), box);
    targetLabel->setBuddy(targetEdit_);
    buttons->addWidget(targetLabel);
    buttons->addWidget(targetEdit_);
    buttons->addStretch(1);
    buttons->addWidget(exportButton);
    grid->addLayout(buttons, 0, 0, 1, 12);
    pair(1, 0, tr("d_k:"), dkSpin_);
    pair(1, 2, tr("Seed:"), seedSpin_);
    pair(1, 4, tr("Optimizer:"), optimizer_);
    pair(1, 6, tr("Learning rate:"), lrEdit_);
    pair(1, 8, tr("Steps:"), stepsSpin_);
    grid->addWidget(customBox_, 1, 10, Qt::AlignRight);
    grid->addWidget(divisorEdit_, 1, 11);
    pair(2, 0, tr("n keys:"), keysSpin_);
    pair(2, 2, tr("d_model:"), dModelSpin_);
    pair(2, 4, tr("Classes:"), classesSpin_);
    pair(2, 6, tr("Batch:"), batchSpin_);
    pair(2, 8, tr("β (values):"), betaEdit_);
    grid->setColumnStretch(12, 1);

    connect(startButton_, &QPushButton::clicked, this, [this] {
        if (run_->isRunning())
            pause();
        else
            start();
    });
    connect(stepButton_, &QPushButton::clicked, this, &TrainingView::step);
    connect(resetButton_, &QPushButton::clicked, this, &TrainingView::reset);
    connect(exportButton, &QPushButton::clicked, this, &TrainingView::exportCurvesInteractive);
    connect(logLoss_, &QCheckBox::toggled, this, [this](bool on) { plots_->setLossLogScale(on); });
    connect(targetEdit_, &QLineEdit::editingFinished, this, [this] {
        double v = 0;
        if (!parseNumber(targetEdit_->text(), &v) || v <= 0) {
            problem_ = tr("The loss target must be a positive number, not \"%1\".").arg(targetEdit_->text());
            showSnapshot();
            return;
        }
        setLossTarget(v);
        settingsEdited();
    });
    for (QSpinBox* s : {dkSpin_, seedSpin_, stepsSpin_, keysSpin_, dModelSpin_, classesSpin_, batchSpin_})
        connect(s, qOverload<int>(&QSpinBox::valueChanged), this, &TrainingView::settingsEdited);
    connect(optimizer_, qOverload<int>(&QComboBox::currentIndexChanged), this, &TrainingView::settingsEdited);
    for (QLineEdit* e : {lrEdit_, betaEdit_, divisorEdit_})
        connect(e, &QLineEdit::editingFinished, this, &TrainingView::settingsEdited);
    connect(customBox_, &QCheckBox::toggled, this, [this](bool on) {
        divisorEdit_->setEnabled(on);
        settingsEdited();
    });
    return box;
}

attn::Expected<attn::TrainingSettings> TrainingView::enteredSettings() const
{
    attn::TrainingSettings s;
    s.dK = dkSpin_->value();
    s.seed = std::uint64_t(seedSpin_->value());
    s.optimizer =
        optimizer_->currentIndex() == 1 ? attn::TrainingOptimizer::Sgd : attn::TrainingOptimizer::Adam;
    s.steps = stepsSpin_->value();
    s.task.nKeys = keysSpin_->value();
    s.task.dModel = dModelSpin_->value();
    s.task.classes = classesSpin_->value();
    s.task.batch = batchSpin_->value();
    if (!parseNumber(lrEdit_->text(), &s.learningRate) || !(s.learningRate > 0))
        return attn::Error{tr("The learning rate must be a positive number, not \"%1\".")
                               .arg(lrEdit_->text())
                               .toStdString()};
    if (!parseNumber(betaEdit_->text(), &s.task.beta))
        return attn::Error{tr("β must be a number, not \"%1\".").arg(betaEdit_->text()).toStdString()};
    if (customBox_->isChecked()
        && (!parseNumber(divisorEdit_->text(), &s.customDivisor) || !(s.customDivisor > 0)))
        return attn::Error{tr("The custom divisor must be a positive number, not \"%1\".")
                               .arg(divisorEdit_->text())
                               .toStdString()};
    if (!customBox_->isChecked())
        s.customDivisor = 0.0;
    const attn::Status valid = attn::validateTrainingSettings(s);
    if (!valid)
        return valid.error();
    return s;
}

void TrainingView::showSettings(const attn::TrainingSettings& s)
{
    showing_ = true;
    dkSpin_->setValue(s.dK);
    seedSpin_->setValue(int(s.seed));
    optimizer_->setCurrentIndex(s.optimizer == attn::TrainingOptimizer::Sgd ? 1 : 0);
    lrEdit_->setText(number(s.learningRate, 6));
    stepsSpin_->setValue(s.steps);
    keysSpin_->setValue(s.task.nKeys);
    dModelSpin_->setValue(s.task.dModel);
    classesSpin_->setValue(s.task.classes);
    batchSpin_->setValue(s.task.batch);
    betaEdit_->setText(number(s.task.beta, 6));
    customBox_->setChecked(s.customDivisor > 0);
    if (s.customDivisor > 0)
        divisorEdit_->setText(number(s.customDivisor, 6));
    showing_ = false;
    settingsEdited();
}

void TrainingView::followDk(int dK)
{
    dkSpin_->setValue(std::clamp(dK, 1, attn::kTrainingMaxDk));
}

void TrainingView::settingsEdited()
{
    if (showing_)
        return;
    const attn::Expected<attn::TrainingSettings> entered = enteredSettings();
    if (!entered) {
        problem_ = QString::fromStdString(entered.error().message);
        showSnapshot();
        return;
    }
    problem_.clear();
    run_->setSettings(entered.value());
    // At step 0 nothing is lost: the lab shown takes the settings at once.
    if (run_->settingsPending() && snapshot()->stepsDone == 0 && !run_->isBusy())
        run_->reset();  // back in showSnapshot
    else
        showSnapshot();
}

void TrainingView::start()
{
    if (!problem_.isEmpty()) {
        emit message(problem_, 10000);
        return;
    }
    if (run_->settingsPending() && snapshot()->stepsDone == 0)
        run_->reset();
    run_->start();
    updateButtons();
}

void TrainingView::pause()
{
    run_->pause();
    updateButtons();
}

void TrainingView::step()
{
    if (!problem_.isEmpty()) {
        emit message(problem_, 10000);
        return;
    }
    if (run_->settingsPending() && snapshot()->stepsDone == 0)
        run_->reset();
    run_->step();
}

void TrainingView::reset()
{
    run_->reset();
}

void TrainingView::setLossTarget(double target)
{
    lossTarget_ = target;
    if (targetEdit_->text() != number(target)) {
        double shown = 0;
        if (!parseNumber(targetEdit_->text(), &shown) || shown != target)
            targetEdit_->setText(number(target));
    }
    plots_->setLossTarget(target);
    showSnapshot();
}

std::vector<int> TrainingView::stepsToTarget() const
{
    std::vector<int> steps;
    for (const attn::TrainingRunCurves& run : snapshot()->curves)
        steps.push_back(attn::stepsToReachLoss(run, lossTarget_));
    return steps;
}

QString TrainingView::readoutText() const
{
    const auto s = snapshot();
    const std::vector<int> steps = stepsToTarget();
    QStringList parts;
    int scaled = -1;
    for (std::size_t r = 0; r < s->curves.size(); ++r) {
        const attn::TrainingRunCurves& run = s->curves[r];
        QString part = TrainingPlots::runName(run) + QStringLiteral(": ");
        if (steps[r] > 0)
            part += stepsText(steps[r]);
        else
            part +=
                s->stepsDone == 0 ? tr("not started") : tr("not yet (after %1)").arg(stepsText(s->stepsDone));
        if (run.scale == attn::TrainingScale::SqrtDk)
            scaled = steps[r];
        else if (scaled > 0 && steps[r] > 0)
            part += tr(" (%1× the scaled run's)").arg(number(double(steps[r]) / scaled, 3));
        parts << part;
    }
    return tr("Steps to reach loss %1: %2").arg(number(lossTarget_), parts.join(QStringLiteral(" · ")));
}

QString TrainingView::statusText() const
{
    const auto s = snapshot();
    QString text;
    if (run_->isRunning())
        text = tr("Training: step %1 of %2…").arg(s->stepsDone).arg(s->settings.steps);
    else if (s->finished)
        text = tr("Done: %1.").arg(stepsText(s->stepsDone));
    else if (s->stepsDone > 0)
        text = tr("Paused at step %1 of %2.").arg(s->stepsDone).arg(s->settings.steps);
    else
        text = tr("At step 0 of %1: Play trains every run, 1 step one step.").arg(s->settings.steps);
    text += QLatin1Char(' ')
            + tr("d_k %1, %2 at learning rate %3, batch %4, seed %5.")
                  .arg(s->settings.dK)
                  .arg(s->settings.optimizer == attn::TrainingOptimizer::Adam ? tr("Adam") : tr("SGD"))
                  .arg(number(s->settings.learningRate))
                  .arg(s->settings.task.batch)
                  .arg(s->settings.seed);
    if (run_->settingsPending())
        text += QLatin1Char(' ') + tr("The settings entered take effect on Reset.");
    return text;
}

void TrainingView::showSnapshot()
{
    const auto s = snapshot();
    plots_->setCurves(s->curves, s->settings.steps, s->settings.task.nKeys, s->settings.dK);
    std::vector<TrainingProbesView::Run> runs;
    for (std::size_t r = 0; r < s->curves.size(); ++r)
        runs.push_back({TrainingPlots::runName(s->curves[r]),
                        TrainingPlots::runColour(s->curves[r].scale, palette()), s->probeAttention[r]});
    probes_->setRuns(std::move(runs), s->probeTargets, s->stepsDone);
    readout_->setText(readoutText());
    // A problem in bold red: by palette and font, not a style sheet (which
    // kept the label from the font presentation mode hands down).
    const bool problem = !problem_.isEmpty();
    if (status_->property("problemShown").toBool() != problem) {
        status_->setProperty("problemShown", problem);
        QPalette palette;  // nothing set: the parent's
        QFont font;
        if (problem) {
            palette.setColor(QPalette::WindowText, QColor(0xd6, 0x27, 0x28));
            font.setBold(true);
        }
        status_->setPalette(palette);
        status_->setFont(font);
    }
    status_->setText(problem_.isEmpty() ? statusText() : problem_);
    updateButtons();
    emit snapshotShown();
}

void TrainingView::updateButtons()
{
    const bool running = run_->isRunning();
    const bool finished = snapshot()->finished;
    startButton_->setText(running ? tr("&Pause") : tr("&Play"));
    startButton_->setEnabled(running || !finished);
    stepButton_->setEnabled(!running && !finished);
}

void TrainingView::arrangePlots(int columns)
{
    if (columns == columns_)
        return;
    columns_ = columns;
    placePlotsInGrid(grid_, plots_->plots(), columns);
}

void TrainingView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int threeAcross = 3 * TrainingPlots::minimumPlotSize().width() + 2 * kGridSpacing + 24;
    arrangePlots(width() >= threeAcross ? 3 : 2);
    // A column's width, less the grid's spacing and margins (about).
    plots_->fitTitles((width() - 24 - (columns_ - 1) * kGridSpacing) / columns_);
}

void TrainingView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && plots_) {
        plots_->applyColours(palette());
        for (QCustomPlot* p : plots_->plots())
            p->replot(QCustomPlot::rpQueuedReplot);
        showSnapshot();
    }
}

attn::Expected<std::vector<OutputFile>> TrainingView::imageFiles(const QStringList& formats,
                                                                 const QSize& size) const
{
    return plots_->imageFiles(formats, size, palette());
}

std::string TrainingView::plotCsv(Plot which) const
{
    return hasSteps() ? trainingMeasureCsv(snapshot()->curves, TrainingPlots::measure(which)) : std::string();
}

attn::Status TrainingView::exportCurves(const QString& directory) const
{
    const auto s = snapshot();
    std::vector<OutputFile> files;
    files.push_back(
        bytesFile("training_lab.json", QByteArray::fromStdString(trainingLabJson(s->settings, s->curves))));
    files.push_back(bytesFile("training_lab.csv", QByteArray::fromStdString(trainingLabCsv(s->curves))));
    return writeFilesAtomically(directory, files);
}

void TrainingView::exportCurvesInteractive()
{
    const QString directory = QFileDialog::getExistingDirectory(this, tr("Export the training curves into"),
                                                                lastFolder(FolderUse::Export));
    if (directory.isEmpty())
        return;
    rememberFolder(FolderUse::Export, directory);
    const attn::Status written = exportCurves(directory);
    if (!written)
        emit message(
            tr("The curves were not exported: %1").arg(QString::fromStdString(written.error().message)),
            10000);
    else
        emit message(tr("Wrote training_lab.json and training_lab.csv (%1) into %2.")
                         .arg(stepsText(snapshot()->stepsDone))
                         .arg(QDir::toNativeSeparators(directory)),
                     10000);
}

}  // namespace attnlab
