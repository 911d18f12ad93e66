// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab: the window by default; headless with --export-dir, --save or
// --scaling-lab or --training-lab (see --help). One parser reads the command line; main()
// makes the application the run needs: QCoreApplication for text and numbers
// (--help, --version, --list-presets, json/csv/npy exports, the d_k lab's
// numbers), QApplication for pictures (drawn by the window's renderers,
// always offscreen) and for the window. A run without a window prints only
// its own lines on stderr: one line on an error.

#include "commandline.h"
#include "commandlineparser.h"
#include "consoleio.h"
#include "guimain.h"
#include "heapreuse.h"
#include "kernels.h"
#include "runtimedir.h"
#include "scalinglabcommand.h"
#include "scalinglabplotter.h"
#include "trainingplotter.h"
#include "traininglabcommand.h"
#include "viewexporter.h"

#include <QApplication>
#include <QCoreApplication>

#include <cstdio>

namespace {

int usageError(const QString& message)
{
    const QByteArray line = (QStringLiteral("attention-lab: ") + message).toLocal8Bit();
    std::fprintf(stderr, "%s\n", line.constData());
    return attnlab::kExitUsageError;
}

}  // namespace

int main(int argc, char** argv)
{
    attnlab::keepFreedBuffersForReuse();  // before the first large buffer
    // Before any application, so that headless runs print no Qt warning.
    attnlab::ensureRuntimeDir();
    attnlab::CommandLineParser parser;
    if (!parser.parse(argc, argv))
        return usageError(parser.error());
    attn::kernels::setEnabled(parser.kernel() == attnlab::CommandLineParser::Kernel::Auto);
    const bool window = !parser.isScalingLab() && !parser.isTrainingLab() && !parser.isHeadless()
                        && !parser.helpAsked() && !parser.versionAsked() && !parser.listPresetsAsked();
    // Until a window opens, the command line's lines are the only ones.
    attnlab::quietQtMessages();
    if (!window)
        attnlab::useOffscreenPlatform();  // before any application, whatever DISPLAY names

    // Only the program name: the options are read above, not by Qt.
    static int appArgc = 1;
    static char* appArgv[] = {argv[0], nullptr};

    if (parser.isScalingLab()) {
        if (parser.helpAsked() || !attnlab::scalingLabWantsPlots(parser)) {
            QCoreApplication app(appArgc, appArgv);
            return attnlab::runScalingLabCommand(parser);
        }
        QApplication app(appArgc, appArgv);
        return attnlab::runScalingLabCommand(parser, attnlab::scalingLabPlotter());
    }

    if (parser.isTrainingLab()) {
        if (parser.helpAsked() || !attnlab::trainingLabWantsPlots(parser)) {
            QCoreApplication app(appArgc, appArgv);
            return attnlab::runTrainingLabCommand(parser);
        }
        // The plots are the Training tab's.
        QApplication app(appArgc, appArgv);
        return attnlab::runTrainingLabCommand(parser, attnlab::trainingLabPlotter());
    }

    if (parser.isHeadless() && parser.asksForPictures()) {
        QApplication app(appArgc, appArgv);
        attnlab::ViewExporter::registerImageExporter(parser.pictureSize());
        return attnlab::handleCommandLine(parser, argc, argv).exitCode;
    }
    if (parser.isHeadless() || parser.helpAsked() || parser.versionAsked() || parser.listPresetsAsked()) {
        QCoreApplication app(appArgc, appArgv);
        return attnlab::handleCommandLine(parser, argc, argv).exitCode;
    }

    // The window; a bad option or input file ends the run before it opens.
    const attnlab::CommandLineOutcome outcome = attnlab::handleCommandLine(parser, argc, argv);
    if (outcome.exitNow)
        return outcome.exitCode;
    qInstallMessageHandler(nullptr);  // the window's messages as Qt prints them
    attnlab::GuiBenchSwitches bench;
    bench.exitAfterFirstPaint = parser.exitAfterFirstPaint();
    bench.screenshot = parser.screenshotPath();
    return attnlab::runGui(argc, argv, outcome, bench);
}
