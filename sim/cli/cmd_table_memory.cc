// Placeholder until the table_memory subcommand lands; replaced by its owner.
#include "sim/cli/commands.h"

namespace qacc::cli {

void RegisterTableMemoryCommand(CLI::App& app) { app.add_subcommand("table-memory", "(being built)"); }

}  // namespace qacc::cli
