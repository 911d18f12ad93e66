// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one parser of attention-lab's command line: every option of the window,
// the headless export, the d_k lab (--scaling-lab) and the training lab
// (--training-lab), and the hidden ones of
// the benchmark (--exit-after-first-paint, --screenshot FILE) and of the
// kernel choice (--kernel auto|baseline). A QCommandLineParser reads the
// options; a first pass over argv keeps the rules it does not have: a value
// may not be the next option ("--sentence --causal" lacks a value), a single
// dash is only -h or one of Qt's window options (-platform NAME, -reverse,
// ...), which are let through for QApplication, and -h, --help, --version
// and --list-presets end the command line. Errors are our one-line messages,
// not QCommandLineParser's.
//
// What the options mean is read by handleCommandLine (commandline.h) and
// runScalingLabCommand (scalinglabcommand.h) and runTrainingLabCommand
// (traininglabcommand.h) from options(), in the order
// given: after --preset NAME, a model option changes the preset.

#include <QSize>
#include <QString>
#include <QStringList>

#include <vector>

namespace attnlab {

class CommandLineParser {
public:
    // One option as given, its name with the leading "--" ("--d-k"), its
    // value (empty for a flag).
    struct Option {
        QString name;
        QString value;
    };

    enum class Kernel { Auto, Baseline };

    // Reads argv[1] .. argv[argc - 1]. False on a usage error, then error()
    // says what is wrong (without the "attention-lab: " prefix).
    bool parse(int argc, char** argv);
    bool parse(const QStringList& arguments);  // without the program name

    const QString& error() const { return error_; }

    // --scaling-lab anywhere: the d_k lab's options apply.
    bool isScalingLab() const { return scalingLab_; }
    // --training-lab anywhere: the training lab's options apply.
    bool isTrainingLab() const { return trainingLab_; }
    bool helpAsked() const { return isSet(QStringLiteral("--help")); }
    bool versionAsked() const { return isSet(QStringLiteral("--version")); }
    bool listPresetsAsked() const { return isSet(QStringLiteral("--list-presets")); }

    const std::vector<Option>& options() const { return options_; }
    // Arguments that are no option: a lab file to open.
    const QStringList& positional() const { return positional_; }
    bool isSet(const QString& name) const;
    QString value(const QString& name) const;  // the last one given
    // An option that takes a value given more than once ("--open a --open
    // b"): the commands refuse it rather than let the last one win
    // silently. "--open is given twice ('a' and 'b'); give it once", or an
    // empty string.
    QString repeatedOptionError() const;

    // --export-dir or --save without help, version or the preset list: the
    // run writes files and opens no window.
    bool isHeadless() const;
    // --format names png, svg or pdf (the pictures need a GUI application).
    bool asksForPictures() const;
    // --size WxH, or an invalid size when not given.
    QSize pictureSize() const { return pictureSize_; }
    Kernel kernel() const { return kernel_; }
    bool exitAfterFirstPaint() const { return isSet(QStringLiteral("--exit-after-first-paint")); }
    QString screenshotPath() const { return value(QStringLiteral("--screenshot")); }

private:
    bool fail(const QString& message);
    bool checkOptionsOfMode();
    QString labName() const;  // "--scaling-lab", "--training-lab" or empty

    QString error_;
    bool scalingLab_ = false;
    bool trainingLab_ = false;
    std::vector<Option> options_;
    QStringList positional_;
    QSize pictureSize_;
    Kernel kernel_ = Kernel::Auto;
};

}  // namespace attnlab
