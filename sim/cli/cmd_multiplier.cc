// Placeholder until the multiplier subcommand lands; replaced by its owner.
#include "sim/cli/commands.h"

namespace qacc::cli {

void RegisterMultiplierCommand(CLI::App& app) { app.add_subcommand("multiplier", "(being built)"); }

}  // namespace qacc::cli
