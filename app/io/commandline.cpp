// Placeholder until the command line lands.
#include "commandline.h"

namespace attnlab {

CommandLineOutcome handleCommandLine(int, char**)
{
    return {};
}

}  // namespace attnlab
