// qacc validate: lint, RTL unit tests, lockstep regression with functional and code coverage, comparison
// with a base revision and mutation analysis of the RTL (docs/validate.md). The work is orchestration of
// builds and regressions, written in Python (scripts/validate/): this subcommand runs it with Debian's
// /usr/bin/python3 on a source tree (the one this binary was built from, or $QACC_SOURCE_DIR: an
// installed qacc has no RTL to rebuild), passing every argument through (--help included).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/cli/install_layout.h"

namespace qacc::cli {

void RegisterValidateCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Say whether an RTL change is safe: lint, RTL unit tests, regression with coverage, --base "
      "comparison, mutation analysis (qacc validate --help)");
  cmd->prefix_command();
  cmd->set_help_flag("");
  cmd->callback([cmd] {
    static const std::string python = "/usr/bin/python3";
    const std::string script = (ValidateSourceTree() / "scripts" / "qacc_validate.py").string();
    std::vector<std::string> args = {python, script};
    for (const std::string& a : cmd->remaining()) args.push_back(a);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(python.c_str(), argv.data());
    throw std::runtime_error(fmt::format("cannot run {} {}: {}", python, script, std::strerror(errno)));
  });
}

}  // namespace qacc::cli
