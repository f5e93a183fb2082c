// Shared pieces of the qacc subcommands: output handling, argument validators, error types.
//
// Conventions every subcommand follows:
//  * human-readable text on stdout by default, `--json` for one JSON document instead;
//  * `-o/--output FILE` writes that output to FILE instead of stdout, atomically (temporary file + rename), so
//    a failed command never leaves a partial file behind;
//  * a bad argument throws UsageError (or std::invalid_argument from golden/) whose message names the argument
//    and its allowed range; main() prints it and exits with code 2.
#ifndef QACC_SIM_CLI_COMMON_H_
#define QACC_SIM_CLI_COMMON_H_

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace qacc::cli {

inline constexpr int kExitUsage = 2;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct OutputOptions {
  bool json = false;
  std::string output_path;  // empty: stdout
};

// Adds --json and -o/--output to `cmd`.
void AddOutputOptions(CLI::App* cmd, OutputOptions* options);

// Prints `json` (pretty, 2-space indent) when options.json is set, else `human`; to stdout or to the file.
void Emit(const OutputOptions& options, const std::string& human, const nlohmann::json& json);

// Writes `content` to `path` through a temporary file in the same directory and a rename.
// Throws UsageError naming the path when the directory is not writable.
void WriteFileAtomically(const std::string& path, const std::string& content);

// Validators for numeric options; their messages name the allowed range.
extern const CLI::Validator kPositiveFinite;  // finite and > 0
extern const CLI::Validator kFinite;          // finite (rejects nan, inf)

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_COMMON_H_
