// Placeholder until the lut subcommand lands; replaced by its owner.
#include "sim/cli/commands.h"

namespace qacc::cli {

void RegisterLutCommand(CLI::App& app) { app.add_subcommand("lut", "(being built)"); }

}  // namespace qacc::cli
