// attention-lab: the window by default; headless with --export-dir or
// --scaling-lab (see --help).

#include "commandline.h"
#include "guimain.h"
#include "scalinglabcommand.h"

int main(int argc, char** argv)
{
    if (attnlab::isScalingLabCommand(argc, argv))
        return attnlab::runScalingLabCommand(argc, argv);
    const attnlab::CommandLineOutcome outcome = attnlab::handleCommandLine(argc, argv);
    if (outcome.exitNow)
        return outcome.exitCode;
    return attnlab::runGui(argc, argv, outcome);
}
