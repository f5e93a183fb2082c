// Registration of the qacc subcommands; one function per cmd_*.cc file.
#ifndef QACC_SIM_CLI_COMMANDS_H_
#define QACC_SIM_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace qacc::cli {

void RegisterLutCommand(CLI::App& app);             // qacc lut
void RegisterSoftmaxTablesCommand(CLI::App& app);   // qacc softmax-tables
void RegisterTableMemoryCommand(CLI::App& app);     // qacc table-memory
void RegisterMultiplierCommand(CLI::App& app);      // qacc multiplier
void RegisterCalibrateCommand(CLI::App& app);       // qacc calibrate
void RegisterCosimCommand(CLI::App& app);           // qacc cosim (built with Verilator + SystemC)
void RegisterBenchCommand(CLI::App& app);           // qacc bench (built with Verilator + SystemC)
void RegisterRegressCommand(CLI::App& app);         // qacc regress
void RegisterApplyCommand(CLI::App& app);           // qacc apply
void RegisterValidateCommand(CLI::App& app);        // qacc validate (scripts/validate)
void RegisterCompileCommand(CLI::App& app);         // qacc compile

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_COMMANDS_H_
