// Placeholder until the calibrate subcommand lands; replaced by its owner.
#include "sim/cli/commands.h"

namespace qacc::cli {

void RegisterCalibrateCommand(CLI::App& app) { app.add_subcommand("calibrate", "(being built)"); }

}  // namespace qacc::cli
