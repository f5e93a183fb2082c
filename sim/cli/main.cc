// qacc: command line of the int8 accelerator reference platform.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <stdexcept>

#include "sim/cli/commands.h"
#include "sim/cli/common.h"

int main(int argc, char** argv) {
  CLI::App app{"qacc: bit-accurate int8 accelerator reference (golden model, tables, calibration)"};
  app.name("qacc");
  app.require_subcommand(1);
  qacc::cli::RegisterLutCommand(app);
  qacc::cli::RegisterSoftmaxTablesCommand(app);
  qacc::cli::RegisterTableMemoryCommand(app);
  qacc::cli::RegisterMultiplierCommand(app);
  qacc::cli::RegisterCalibrateCommand(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    fmt::print(stderr, "qacc: error: {}\nRun with --help for usage.\n", e.what());
    return qacc::cli::kExitUsage;
  } catch (const qacc::cli::UsageError& e) {
    fmt::print(stderr, "qacc: error: {}\n", e.what());
    return qacc::cli::kExitUsage;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "qacc: error: {}\n", e.what());
    return qacc::cli::kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "qacc: internal error: {}\n", e.what());
    return 1;
  }
  return 0;
}
