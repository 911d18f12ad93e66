// SPDX-License-Identifier: GPL-3.0-or-later
// attention-lab: the window by default; headless with --export-dir or
// --scaling-lab (see --help).

#include "commandline.h"
#include "guimain.h"
#include "runtimedir.h"
#include "scalinglabcommand.h"
#include "viewexporter.h"

#include <QApplication>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

// "png", "svg" or "pdf" in a --format list.
bool asksForPictures(const std::string& list)
{
    for (const char* name : {"png", "svg", "pdf"})
        if (list.find(name) != std::string::npos)
            return true;
    return false;
}

}  // namespace

int main(int argc, char** argv)
{
    // Before any QApplication, so that headless runs print no Qt warning.
    attnlab::ensureRuntimeDir();
    if (attnlab::isScalingLabCommand(argc, argv))
        return attnlab::runScalingLabCommand(argc, argv);

    // Pictures on the command line are drawn by the window's views: they need
    // a QApplication (offscreen without a display) and the exporter hook.
    // --size WxH is theirs and is taken out before the command line is read.
    std::vector<char*> args(argv, argv + argc);
    QSize pictureSize;
    bool pictures = false;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string arg = args[i];
        if (arg == "--")
            break;
        std::string value;
        bool isSize = false;
        if (arg == "--size" || arg == "--format") {
            if (i + 1 < args.size())
                value = args[i + 1];
            isSize = arg == "--size";
        } else if (arg.rfind("--size=", 0) == 0 || arg.rfind("--format=", 0) == 0) {
            value = arg.substr(arg.find('=') + 1);
            isSize = arg[2] == 's';
        } else {
            continue;
        }
        if (!isSize) {
            pictures = pictures || asksForPictures(value);
            continue;
        }
        int w = 0, h = 0;
        char extra = 0;
        if (std::sscanf(value.c_str(), "%dx%d%c", &w, &h, &extra) != 2 || w < 100 || h < 100 || w > 16384
            || h > 16384) {
            std::fprintf(stderr,
                         "attention-lab: --size needs WIDTHxHEIGHT in pixels, each 100 to "
                         "16384, e.g. --size 1600x900\n");
            return attnlab::kExitUsageError;
        }
        pictureSize = QSize(w, h);
        const bool separate = arg == "--size";
        args.erase(args.begin() + std::ptrdiff_t(i), args.begin() + std::ptrdiff_t(i + (separate ? 2 : 1)));
        --i;
    }
    int count = int(args.size());
    args.push_back(nullptr);

    std::unique_ptr<QApplication> pictureApp;
    if (pictures) {
        if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
            && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        static int appArgc = 1;
        static char* appArgv[] = {argv[0], nullptr};
        pictureApp = std::make_unique<QApplication>(appArgc, appArgv);
        attnlab::ViewExporter::registerImageExporter(pictureSize);
    }
    const attnlab::CommandLineOutcome outcome = attnlab::handleCommandLine(count, args.data());
    if (outcome.exitNow)
        return outcome.exitCode;
    pictureApp.reset();
    return attnlab::runGui(count, args.data(), outcome);
}
