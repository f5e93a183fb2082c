// The reports of `qacc regress`, written while the regression runs: each finished run is added in
// schedule order (so a regression of any length needs memory for a few runs, not for all of them),
// and Finish() completes the reports. Three formats:
//   * the summary table (text): a row per run, then the totals and every failure with its
//     reproduce line;
//   * JSON (docs/testplan.md "Regression runner"): the header fields (RegressInfo), "runs", then
//     the totals. It is also the state `qacc regress --resume` continues from: it holds all that a
//     run adds to the three reports, and the merged coverage (ReportFromJson reads it back);
//   * JUnit XML: one <testcase> per run, named with the config so that reports of several configs
//     can be merged; <properties> give the config, mode, seeds, tool version and commit.
// Files are written through a temporary file in their directory and renamed by Finish(), so no
// reader ever sees half a report; a regression stopped by a signal finishes its reports too, marked
// incomplete (Finish's `interrupted`). The path "-" is standard output.
#ifndef QACC_SIM_CLI_REGRESS_REPORT_H_
#define QACC_SIM_CLI_REGRESS_REPORT_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace qacc::cli {

// One scheduled (test, seed) pair and its outcome.
struct Run {
  std::string test;
  uint64_t seed = 0;
  // "pass", "fail" (mismatch or error), "crash", "timeout", "oom" (out of memory), "usage"
  std::string status;
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string signal_name;  // "SIGSEGV (11)", empty without a signal
  int64_t cycles = 0;
  double cycles_per_second = 0.0;
  double wall_seconds = 0.0;
  std::string message;  // why it failed (empty on pass)
  std::string reproduce;
  nlohmann::json result;  // the child's JSON document, or null
  std::string stderr_tail;

  bool passed() const { return status == "pass"; }
};

inline constexpr int kMaxJobs = 1024;                           // -j
inline constexpr int64_t kMaxMemoryLimitMb = int64_t{1} << 30;  // --memory-limit 0..
// --timeout (0, this]: a million seconds (11.6 days), far inside a steady_clock duration.
inline constexpr double kMaxTimeoutSeconds = 1e6;
// A run's JSON result nests at most this deep (qacc cosim's: 3 levels): JSON is written and copied
// by recursion, one stack frame per level.
inline constexpr int kMaxResultDepth = 32;

// What every report says about the regression as a whole: with the runs, all that --resume needs
// to continue it exactly.
struct RegressInfo {
  std::string suite;
  std::vector<std::string> tests;
  std::string config_path;
  std::string config_name;
  std::string config_hash;  // of the config file's bytes: a resumed regression must run the same
  std::string mode;         // "lockstep" or "model-only"
  int64_t seeds_per_test = 0;
  uint64_t seed_base = 0;
  int jobs = 1;  // 1..kMaxJobs
  double timeout_seconds = 0;
  int64_t memory_limit_mb = 0;  // 0: none
  uint64_t total_runs = 0;
  bool fail_fast = false;  // --fail-fast: no run is started after the first failure
  int64_t mutant = 0;  // --mutant: the mutant of a mutant-schemata build (0: the design as written)
  bool require_coverage = false;
  std::string coverage_dir;  // --coverage-dir, empty when not given
  std::string timestamp;     // ISO 8601 UTC, the start
  std::string hostname;
  std::string tool_version, tool_commit;
};

// Functional coverage bins merged over the passing runs that reported coverage (lockstep runs).
struct MergedCoverage {
  std::map<std::string, int64_t> hits;  // bin -> hits
  uint64_t runs = 0;                    // the runs merged

  void Merge(const std::map<std::string, int64_t>& run_hits);
  size_t holes() const;  // bins never hit
};

// A report field that is missing or has the wrong type; the message names it ("runs[3].seed").
struct ReportFieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A JSON report read back: what `qacc regress --resume` continues from.
struct ReportContents {
  RegressInfo info;       // total_runs is not read: it follows from the tests and seeds
  std::vector<Run> runs;  // in report order
  bool complete = false;  // false: interrupted, with runs not run
  double wall_seconds = 0;
  MergedCoverage coverage;
};

// The inverse of what RegressReports writes to its JSON report. Throws ReportFieldError, whose
// message starts with `field "NAME"` (a key path: "runs[3].seed"), on a field that is missing, of
// the wrong type or outside what the command line accepts (the recorded arguments stand for it on
// --resume), and on a report that contradicts itself: tests that are not distinct names (no comma:
// --tests carries them), a run outside the schedule (seeds_per_test seeds from seed_base, for each
// test) or run twice, a run's "pass" not its status, a result nested deeper than kMaxResultDepth or
// holding "coverage" (that is merged into the report's), totals ("total", "passed", "failed",
// "not_run", "simulated_cycles") or coverage counts ("runs", "bins", "hit", "holes") other than
// the runs' and hits', "complete" without "interrupted" null (and, without fail_fast, no run left).
ReportContents ReportFromJson(const nlohmann::json& json);

// A run's JSON result (the standard output of `qacc cosim --json`) as the regression reads it, into
// `run`: the document (null when `out` is not a JSON text or nests deeper than kMaxResultDepth),
// "cycles" (an integer >= 0), "cycles_per_second" (a number), "reproduce" (a string, else the
// runner's own). Never throws: returns "" or what is wrong with a field, naming it, for the run's
// message; such a run does not pass.
std::string ReadChildResult(const std::string& out, Run& run);
// Whether a run's result says "pass": true.
bool ChildSaysPass(const nlohmann::json& result);
// Why a run that did not pass failed, from its result (an object) and exit code: the `problem` of
// ReadChildResult, else its "error", else the mismatches it counts and its first. Never throws.
std::string ChildFailureMessage(const nlohmann::json& result, int exit_code,
                                const std::string& problem);

// `text` with every byte that is not part of valid UTF-8 replaced (U+FFFD): the child's stderr cut
// at any byte goes into JSON, and must read back as it was written.
std::string ValidUtf8(const std::string& text);

// An output that is either standard output or a file written atomically.
class ReportFile {
 public:
  // Opens a temporary file next to `path` ("-": stdout). Throws UsageError naming `option`.
  ReportFile(const std::string& path, const std::string& option);
  ~ReportFile();
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;

  void Write(const std::string& text);
  void Commit();   // flush, and rename the temporary file to the path
  void Abandon();  // remove the temporary file
  bool is_stdout() const { return path_ == "-"; }
  const std::string& path() const { return path_; }

 private:
  std::string path_, option_, tmp_;
  std::FILE* file_ = nullptr;
};

class RegressReports {
 public:
  // Empty paths: that report is not written. `summary` is "-" (stdout), a file (-o), or "" for
  // standard error (when a report already takes stdout). `prior` is the coverage of the runs of an
  // interrupted session (--resume): their results in the report no longer hold theirs.
  RegressReports(const RegressInfo& info, const std::string& summary_path,
                 const std::string& json_path, const std::string& junit_path,
                 const MergedCoverage& prior = {});
  ~RegressReports();

  void Add(const Run& run);  // in schedule order; an interrupted regression leaves gaps
  // Totals, failures and the closing parts. `interrupted` names the signal that ended the
  // regression early: the reports are written all the same, marked incomplete, with the runs not
  // added counted as not run.
  void Finish(double wall_seconds, const std::string& interrupted = "");

  uint64_t added() const { return added_; }
  uint64_t passed() const { return passed_; }
  const MergedCoverage& coverage() const { return coverage_; }

 private:
  void WriteSummary(const std::string& text);
  std::string IncompleteNote(const std::string& interrupted) const;
  void FinishJson(double wall, const std::string& interrupted);
  void FinishJunit(double wall, const std::string& interrupted);

  RegressInfo info_;
  std::unique_ptr<ReportFile> summary_, json_, junit_;
  std::FILE* junit_body_ = nullptr;  // testcases, until the totals of the header are known
  size_t width_ = 4;
  uint64_t added_ = 0, passed_ = 0, failures_ = 0, errors_ = 0;
  int64_t cycles_ = 0;
  std::string failure_list_;
  MergedCoverage coverage_;
};

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_REGRESS_REPORT_H_
