// Shared pieces of the qacc subcommands: output handling, argument validators, error types.
//
// Conventions every subcommand follows:
//  * human-readable text on stdout by default, `--json` for one JSON document instead;
//  * `-o/--output FILE` writes that output to FILE instead of stdout ("-": stdout), atomically
//    (temporary file + rename), so a failed command never leaves a partial file behind;
//  * a bad argument throws UsageError (or std::invalid_argument from golden/) whose message names
//    the argument and its allowed range; main() prints it and exits with code 2.
#ifndef QACC_SIM_CLI_COMMON_H_
#define QACC_SIM_CLI_COMMON_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace qacc::cli {

inline constexpr int kExitUsage = 2;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct OutputOptions {
  bool json = false;
  std::string output_path;  // empty or "-": stdout
};

// Adds --json and -o/--output to `cmd`.
void AddOutputOptions(CLI::App* cmd, OutputOptions* options);

// Prints `json` (pretty, 2-space indent) when options.json is set, else `human`; to stdout or to
// the file.
void Emit(const OutputOptions& options, const std::string& human, const nlohmann::json& json);

// Writes `content` to `path` through a temporary file in the same directory and a rename. The file
// gets the usual mode of a new file (0666 minus the umask). Throws UsageError naming the path when
// the directory is not writable.
void WriteFileAtomically(const std::string& path, const std::string& content);

// Validators for numeric options; their messages name the allowed range.
extern const CLI::Validator kPositiveFinite;     // finite and > 0
extern const CLI::Validator kNonNegativeFinite;  // finite and >= 0
extern const CLI::Validator kFinite;          // finite (rejects nan, inf)
// For file-name options: an empty name is an error, not "no file".
extern const CLI::Validator kNonEmpty;
// finite, > 0 and <= max (one range in --help: "FLOAT in (0, max]")
CLI::Validator PositiveAtMost(double max);

// --gemm M,N,K of compile and cosim: one GEMM layer. M and N are split over commands by the
// compiler (1..compiler::kMaxRowsOrCols, as compiler::ValidateNetwork allows), K is one command's
// CMD_K field
// (1..arch::kMaxDim = 65535). One argument: `--gemm 16,16,16 net.json` leaves net.json to the
// positional argument. Sets `dims` to {M, N, K}; a bad text names --gemm and the ranges.
CLI::Option* AddGemmOption(CLI::App* cmd, std::vector<int>* dims, const std::string& help);

// CLI11 converts an integer option with strtoll/strtoull in base 0: "010" is 8 (octal), and a
// decimal beyond 64 bits saturates silently ("99999999999999999999" is INT64_MAX). Adds to every
// integer option of `app` and its subcommands a transform that drops the leading zeros of a decimal
// text and refuses one outside the 64-bit range, naming it (the option's own range check follows).
// Called once all options are registered.
void ReadIntegersInDecimal(CLI::App& app);

// Gives a file made by mkstemp (mode 0600) the mode open(O_CREAT) would give it: 0666 minus the
// umask, so that other users (a CI collector, a web server) can read reports when the umask allows.
void SetNewFileMode(int fd);

// --mutant N of cosim and regress: mutant N of a mutant-schemata RTL build (qacc validate); 0 is the design.
inline constexpr int64_t kMaxMutant = int64_t{1} << 30;  // --mutant 0..kMaxMutant
void AddMutantOption(CLI::App* cmd, int64_t* mutant);

// Random seeds are 0..2^64-1, written in decimal. Parses `text` strictly (no sign, no wrap-around:
// "-1" is an error, not 2^64-1); throws UsageError naming `option` and the range.
inline constexpr const char* kSeedRange = "0..18446744073709551615";
uint64_t ParseSeed(const std::string& text, const std::string& option);

// Checks, before any work is done, that `path` can be written as an output file: not empty, not a
// directory, and a file can be created in its directory (probed with a temporary file, so that
// read-only and pseudo file systems are caught too). Throws UsageError naming `option`.
void CheckOutputPath(const std::string& path, const std::string& option);

// The whole content of the input file `path`; throws UsageError naming `option` when it is a
// directory ("NETWORK: nets is a directory, expected a file") or cannot be read ("NETWORK: cannot
// read n.json: No such file or directory").
std::string ReadInputFile(const std::string& path, const std::string& option);

// configs/default.json of the data directory (install_layout.h: the installed copy, or the source
// tree in a build tree): the config of cosim, bench and regress by default.
std::string DefaultConfigPath();

// The build: "qacc 0.1.0" and the git commit it was built from ("unknown" outside a checkout).
std::string ToolVersion();
std::string ToolCommit();

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_COMMON_H_
