// Placeholder until the softmax_tables subcommand lands; replaced by its owner.
#include "sim/cli/commands.h"

namespace qacc::cli {

void RegisterSoftmaxTablesCommand(CLI::App& app) { app.add_subcommand("softmax-tables", "(being built)"); }

}  // namespace qacc::cli
