// qacc: command line of the int8 accelerator reference platform.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cli/regress_child.h"

int main(int argc, char** argv) {
  // qacc regress starts each run through this binary, which sets the run's memory limit and execs it.
  if (argc > 1 && std::strcmp(argv[1], qacc::cli::kMemoryLimitWrapperFlag) == 0) {
    return qacc::cli::ExecWithMemoryLimit(argc, argv);
  }
  CLI::App app{"qacc: bit-accurate int8 accelerator reference (golden model, tables, calibration)"};
  app.name("qacc");
  app.set_version_flag("--version", qacc::cli::ToolVersion() + " (" + qacc::cli::ToolCommit() + ")");
  app.require_subcommand(1);
  qacc::cli::RegisterLutCommand(app);
  qacc::cli::RegisterSoftmaxTablesCommand(app);
  qacc::cli::RegisterTableMemoryCommand(app);
  qacc::cli::RegisterMultiplierCommand(app);
  qacc::cli::RegisterCalibrateCommand(app);
  qacc::cli::RegisterApplyCommand(app);
#ifdef QACC_HAVE_COSIM
  qacc::cli::RegisterCosimCommand(app);
  qacc::cli::RegisterBenchCommand(app);
#endif
  qacc::cli::RegisterRegressCommand(app);
  qacc::cli::RegisterValidateCommand(app);
  qacc::cli::RegisterCompileCommand(app);
  qacc::cli::ReadIntegersInDecimal(app);

  try {
    // CLI11 reports an unknown subcommand as "A subcommand is required" (`qacc sotfmax`, `qacc
    // apply sotfmax`); name it instead. The words before the first option walk down the subcommands
    // that need one.
    const CLI::App* parent = &app;
    for (int i = 1; i < argc && argv[i][0] != '-' && parent->get_require_subcommand_min() > 0;
         ++i) {
      const CLI::App* found = nullptr;
      std::string names;
      for (const CLI::App* sub : parent->get_subcommands({})) {
        if (sub->check_name(argv[i])) found = sub;
        names += (names.empty() ? "" : ", ") + sub->get_name();
      }
      if (found == nullptr) {
        throw qacc::cli::UsageError(
            fmt::format("unknown subcommand '{}'{}, expected one of: {}", argv[i],
                        parent == &app ? "" : " of " + parent->get_name(), names));
      }
      parent = found;
    }
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
