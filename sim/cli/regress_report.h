// The reports of `qacc regress`, written while the regression runs: each finished run is added in
// schedule order (so a regression of any length needs memory for a few runs, not for all of them),
// and Finish() completes the reports. Three formats:
//   * the summary table (text): a row per run, then the totals and every failure with its
//     reproduce line;
//   * JSON (docs/cosim.md "Regression report"): the header fields, "runs", then the totals;
//   * JUnit XML: one <testcase> per run, named with the config so that reports of several configs
//     can be merged; <properties> give the config, mode, seeds, tool version and commit.
// Files are written through a temporary file in their directory and renamed by Finish(); Abandon()
// removes the temporary files, so an interrupted regression leaves no partial report. The path "-"
// is standard output.
#ifndef QACC_SIM_CLI_REGRESS_REPORT_H_
#define QACC_SIM_CLI_REGRESS_REPORT_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace qacc::cli {

// One scheduled (test, seed) pair and its outcome.
struct Run {
  std::string test;
  uint64_t seed = 0;
  std::string status;  // "pass", "fail" (mismatch or error), "crash", "timeout", "usage"
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

// What every report says about the regression as a whole.
struct RegressInfo {
  std::string suite;
  std::vector<std::string> tests;
  std::string config_path;
  std::string config_name;
  std::string mode;  // "lockstep" or "model-only"
  int64_t seeds_per_test = 0;
  uint64_t seed_base = 0;
  int jobs = 1;
  double timeout_seconds = 0;
  uint64_t total_runs = 0;
  bool fail_fast = false;  // --fail-fast: no run is started after the first failure
  int64_t mutant = 0;      // --mutant: the mutant of a mutant-schemata build (0: the design as written)
  std::string timestamp;  // ISO 8601 UTC, the start
  std::string hostname;
  std::string tool_version, tool_commit;
};

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

 private:
  std::string path_, option_, tmp_;
  std::FILE* file_ = nullptr;
};

class RegressReports {
 public:
  // Empty paths: that report is not written. `summary` is "-" (stdout), a file (-o), or "" for
  // standard error (when a report already takes stdout).
  RegressReports(const RegressInfo& info, const std::string& summary_path,
                 const std::string& json_path, const std::string& junit_path);
  ~RegressReports();

  void Add(const Run& run);  // in schedule order
  // Totals, failures and the closing parts; `interrupted` names the signal that ended the
  // regression early (the reports are then abandoned, only the summary is printed).
  void Finish(double wall_seconds, const std::string& interrupted = "");

  uint64_t added() const { return added_; }
  uint64_t passed() const { return passed_; }
  // Coverage bins merged over the passing runs that reported coverage (lockstep runs), and the
  // number of those never hit.
  const std::map<std::string, int64_t>& coverage() const { return coverage_; }
  size_t coverage_holes() const;

 private:
  void WriteSummary(const std::string& text);

  RegressInfo info_;
  std::unique_ptr<ReportFile> summary_, json_, junit_;
  std::FILE* junit_body_ = nullptr;  // testcases, until the totals of the header are known
  size_t width_ = 4;
  uint64_t added_ = 0, passed_ = 0, failures_ = 0, errors_ = 0;
  int64_t cycles_ = 0;
  std::string failure_list_;
  std::map<std::string, int64_t> coverage_;
  uint64_t coverage_runs_ = 0;
};

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_REGRESS_REPORT_H_
