// Harness `regress_report`: the two JSON readers of `qacc regress` (sim/cli/regress_report.cc) on
// any bytes: ReportFromJson, which reads the report given to `--resume REPORT` (after
// nlohmann::json::parse, as ReadResumeReport in sim/cli/cmd_regress.cc does), and ReadChildResult,
// ChildSaysPass and ChildFailureMessage, which read the JSON result each run prints (Classify).
//
// Contract (sim/cli/regress_report.h, docs/testplan.md "Regression runner"):
//  * On a JSON text, ReportFromJson returns a report or throws ReportFieldError whose message
//  starts
//    with `field "NAME"`, NAME a key path whose first key is one the writer writes (a field said to
//    be missing is missing); no other exception (a nlohmann::json error escaping would be reported
//    as "not JSON", one of another type as an internal error), no crash, no undefined behaviour.
//  * An accepted report is checked against the document by the harness's own reading of it: every
//    field read equals the document's; the recorded arguments are inside what the command line
//    accepts (seeds_per_test >= 1, jobs 1..1024, a finite timeout > 0, memory_limit_mb and mutant
//    0..2^30, mode lockstep or model-only) and the schedule they make is countable (the last seed
//    and seeds x tests fit 64 bits); tests are distinct names without a comma; every run is a
//    (test, seed) of the schedule, no two the same, with a status of the six, "pass" equal to
//    status == pass, cycles >= 0, a signal null or naming its number, a result nested at most
//    kMaxResultDepth deep and without "coverage"; total, passed, failed, not_run and
//    simulated_cycles (the saturated sum) are the runs'; complete iff interrupted is null, and a
//    complete report without fail_fast has every run; the coverage is null or at least one bin,
//    hits >= 0, 1 <= runs <= passed, and bins, hit and holes agree with the hits.
//  * Round trip: the report written by RegressReports (the writer of `qacc regress --json`, with
//    the report's runs, coverage, wall time and interruption) reads back to the same report.
//  * On any bytes, ReadChildResult never throws and gives: no result when the text is not JSON;
//    no result and a problem for one nested deeper than kMaxResultDepth; else the document, with
//    cycles, cycles_per_second and reproduce taken from it when they are an integer in 0..2^63-1,
//    a number and a string (absent or null: 0, 0, the runner's), a problem naming the first that
//    is not. ChildSaysPass is "pass" == true; ChildFailureMessage never throws and quotes the
//    problem. The run so classified, written into a report by RegressReports, reads back through
//    ReportFromJson as the same run (its result without "coverage", which the report merges).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/cli/regress_report.h"
#include "tests/fuzz/fuzz_check.h"

namespace qacc::fuzz {
namespace {

using cli::ReportContents;
using cli::Run;
using nlohmann::json;

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

// A scratch directory for the reports written back, removed at exit.
struct Scratch {
  std::string dir;
  Scratch() {
    std::string pattern = (std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp") +
                          std::string("/qacc-fuzz-XXXXXX");
    FUZZ_CHECK(mkdtemp(pattern.data()) != nullptr, "cannot create {}", pattern);
    dir = pattern;
  }
  ~Scratch() {
    std::error_code error;
    std::filesystem::remove_all(dir, error);
  }
};
const std::string& ScratchDir() {
  static Scratch scratch;
  return scratch.dir;
}

// Standard error closed while the writer runs (its summary and the INCOMPLETE note go there).
class QuietStderr {
 public:
  QuietStderr() : saved_(dup(2)) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    close(null);
  }
  ~QuietStderr() {
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
  }

 private:
  int saved_;
};

// An integer in lo..hi (hi >= 0), whether nlohmann holds it signed or unsigned.
bool IsInt(const json& v, int64_t lo, int64_t hi) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    return u <= uint64_t(hi) && (lo <= 0 || u >= uint64_t(lo));
  }
  return v.is_number_integer() && v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
}

int Depth(const json& v) {  // levels of containers; recursion is bounded by the input's size
  int depth = 0;
  if (v.is_structured()) {
    for (const json& item : v) depth = std::max(depth, Depth(item));
    ++depth;
  }
  return depth;
}

// The number a signal field names, as "SIGSEGV (11)" or "signal 42" ends: the last run of 1..3
// digits; -1 for none.
int SignalNumberOf(const std::string& name) {
  size_t end = name.size();
  while (end > 0 && !std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
  if (end == 0) return -1;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1]))) --begin;
  return end - begin <= 3 ? std::stoi(name.substr(begin, end - begin)) : -1;
}

int64_t Saturated(int64_t a, int64_t b) { return b > kI64Max - a ? kI64Max : a + b; }

const std::set<std::string>& TopKeys() {
  static const std::set<std::string> keys = {"suite",
                                             "tests",
                                             "config",
                                             "config_name",
                                             "config_hash",
                                             "mode",
                                             "tool",
                                             "timestamp",
                                             "hostname",
                                             "seeds_per_test",
                                             "seed_base",
                                             "jobs",
                                             "timeout_seconds",
                                             "memory_limit_mb",
                                             "fail_fast",
                                             "mutant",
                                             "require_coverage",
                                             "coverage_dir",
                                             "runs",
                                             "total",
                                             "passed",
                                             "failed",
                                             "simulated_cycles",
                                             "wall_seconds",
                                             "coverage",
                                             "complete",
                                             "not_run",
                                             "interrupted"};
  return keys;
}

void CheckRefused(const json& doc, const std::string& message) {
  FUZZ_CHECK(StartsWith(message, "field \""), "the message names no field: {}", message);
  const size_t close = message.find('"', 7);
  FUZZ_CHECK(close != std::string::npos, "unterminated field name: {}", message);
  const std::string path = message.substr(7, close - 7);
  const std::string top = path.substr(0, path.find_first_of(".["));
  FUZZ_CHECK(TopKeys().count(top) == 1, "the message names {}, not a field of a report: {}", top,
             message);
  if (path == top && message.substr(close) == "\" is missing") {
    FUZZ_CHECK(!doc.is_object() || !doc.contains(top), "{} is said missing but is there", top);
  }
}

bool SameRun(const Run& a, const Run& b) {
  return a.test == b.test && a.seed == b.seed && a.status == b.status &&
         a.exit_code == b.exit_code && a.signal == b.signal && a.signal_name == b.signal_name &&
         a.cycles == b.cycles && a.cycles_per_second == b.cycles_per_second &&
         a.wall_seconds == b.wall_seconds && a.message == b.message && a.reproduce == b.reproduce &&
         a.result == b.result && a.stderr_tail == b.stderr_tail;
}

void CheckSameReport(const ReportContents& a, const ReportContents& b) {
  const cli::RegressInfo &x = a.info, &y = b.info;
  FUZZ_CHECK(x.suite == y.suite && x.tests == y.tests && x.config_path == y.config_path &&
                 x.config_name == y.config_name && x.config_hash == y.config_hash &&
                 x.mode == y.mode && x.seeds_per_test == y.seeds_per_test &&
                 x.seed_base == y.seed_base && x.jobs == y.jobs &&
                 x.timeout_seconds == y.timeout_seconds && x.memory_limit_mb == y.memory_limit_mb &&
                 x.fail_fast == y.fail_fast && x.mutant == y.mutant &&
                 x.require_coverage == y.require_coverage && x.coverage_dir == y.coverage_dir &&
                 x.timestamp == y.timestamp && x.hostname == y.hostname &&
                 x.tool_version == y.tool_version && x.tool_commit == y.tool_commit,
             "the header read back differs");
  FUZZ_CHECK(a.runs.size() == b.runs.size(), "{} runs read back as {}", a.runs.size(),
             b.runs.size());
  for (size_t i = 0; i < a.runs.size(); ++i) {
    FUZZ_CHECK(SameRun(a.runs[i], b.runs[i]), "runs[{}] reads back otherwise", i);
  }
  FUZZ_CHECK(a.complete == b.complete && a.wall_seconds == b.wall_seconds,
             "complete/wall_seconds read back otherwise");
  FUZZ_CHECK(a.coverage.hits == b.coverage.hits && a.coverage.runs == b.coverage.runs,
             "the coverage reads back otherwise");
}

// Writes `report` with the writer of qacc regress and reads it back.
ReportContents WriteAndRead(const ReportContents& report, const std::string& interrupted) {
  cli::RegressInfo info = report.info;
  info.total_runs = uint64_t(info.seeds_per_test) * info.tests.size();
  const std::string path = ScratchDir() + "/report.json";
  {
    QuietStderr quiet;
    cli::RegressReports writer(info, "", path, "", report.coverage);
    for (const Run& run : report.runs) writer.Add(run);
    writer.Finish(report.wall_seconds, interrupted);
  }
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const json doc = json::parse(text, nullptr, false);
  FUZZ_CHECK(!doc.is_discarded(), "the report written is not JSON: {}", text.substr(0, 200));
  try {
    return cli::ReportFromJson(doc);
  } catch (const cli::ReportFieldError& e) {
    FUZZ_CHECK(false, "the report written is refused: {}", e.what());
  }
}

void CheckAccepted(const json& doc, const ReportContents& report) {
  FUZZ_CHECK(doc.is_object(), "accepted a document that is not an object");
  const cli::RegressInfo& info = report.info;
  const auto str = [&](const json& v, const std::string& got, const char* name) {
    FUZZ_CHECK(v.is_string() && v.get<std::string>() == got, "{} read as '{}'", name, got);
  };
  str(doc["suite"], info.suite, "suite");
  str(doc["config"], info.config_path, "config");
  str(doc["config_name"], info.config_name, "config_name");
  str(doc["config_hash"], info.config_hash, "config_hash");
  str(doc["timestamp"], info.timestamp, "timestamp");
  str(doc["hostname"], info.hostname, "hostname");
  str(doc["tool"]["version"], info.tool_version, "tool.version");
  str(doc["tool"]["commit"], info.tool_commit, "tool.commit");
  str(doc["mode"], info.mode, "mode");
  FUZZ_CHECK(info.mode == "lockstep" || info.mode == "model-only", "mode {}", info.mode);
  const json& tests = doc["tests"];
  FUZZ_CHECK(tests.is_array() && !tests.empty() && tests.size() == info.tests.size(),
             "tests read as {} names", info.tests.size());
  std::set<std::string> names;
  for (size_t i = 0; i < tests.size(); ++i) {
    str(tests[i], info.tests[i], "a test");
    FUZZ_CHECK(!info.tests[i].empty() && info.tests[i].find(',') == std::string::npos &&
                   names.insert(info.tests[i]).second,
               "accepted the test name '{}' (empty, with a comma, or twice)", info.tests[i]);
  }
  FUZZ_CHECK(IsInt(doc["seeds_per_test"], 1, kI64Max) &&
                 doc["seeds_per_test"].get<int64_t>() == info.seeds_per_test,
             "seeds_per_test {}", info.seeds_per_test);
  FUZZ_CHECK(
      doc["seed_base"].is_number_unsigned() && doc["seed_base"].get<uint64_t>() == info.seed_base,
      "seed_base {}", info.seed_base);
  FUZZ_CHECK(IsInt(doc["jobs"], 1, 1024) && doc["jobs"].get<int>() == info.jobs, "jobs {}",
             info.jobs);
  FUZZ_CHECK(doc["timeout_seconds"].is_number() &&
                 doc["timeout_seconds"].get<double>() == info.timeout_seconds &&
                 std::isfinite(info.timeout_seconds) && info.timeout_seconds > 0,
             "timeout_seconds {}", info.timeout_seconds);
  FUZZ_CHECK(IsInt(doc["memory_limit_mb"], 0, int64_t{1} << 30) &&
                 doc["memory_limit_mb"].get<int64_t>() == info.memory_limit_mb,
             "memory_limit_mb {}", info.memory_limit_mb);
  FUZZ_CHECK(
      IsInt(doc["mutant"], 0, int64_t{1} << 30) && doc["mutant"].get<int64_t>() == info.mutant,
      "mutant {}", info.mutant);
  FUZZ_CHECK(doc["fail_fast"] == info.fail_fast && doc["require_coverage"] == info.require_coverage,
             "fail_fast/require_coverage");
  FUZZ_CHECK(doc["coverage_dir"].is_null() ? info.coverage_dir.empty()
                                           : doc["coverage_dir"] == info.coverage_dir,
             "coverage_dir '{}'", info.coverage_dir);

  // The schedule: seeds_per_test seeds from seed_base for every test, countable.
  const uint64_t seeds = uint64_t(info.seeds_per_test), base = info.seed_base;
  FUZZ_CHECK(seeds - 1 <= kU64Max - base, "the last seed of {} from {} is past 2^64 - 1", seeds,
             base);
  const unsigned __int128 total_runs = (unsigned __int128)seeds * info.tests.size();
  FUZZ_CHECK(total_runs <= kU64Max, "{} seeds x {} tests accepted", seeds, info.tests.size());

  const json& runs = doc["runs"];
  FUZZ_CHECK(runs.is_array() && runs.size() == report.runs.size(), "runs read as {}",
             report.runs.size());
  std::set<std::pair<std::string, uint64_t>> seen;
  uint64_t passed = 0;
  int64_t cycles = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const json& r = runs[i];
    const Run& run = report.runs[i];
    FUZZ_CHECK(r.is_object(), "runs[{}] accepted, not an object", i);
    str(r["test"], run.test, "a run's test");
    FUZZ_CHECK(r["seed"].is_number_unsigned() && r["seed"].get<uint64_t>() == run.seed,
               "runs[{}].seed {}", i, run.seed);
    FUZZ_CHECK(names.count(run.test) == 1 && run.seed >= base && run.seed - base < seeds,
               "runs[{}] ({} seed {}) is outside the schedule", i, run.test, run.seed);
    FUZZ_CHECK(seen.emplace(run.test, run.seed).second, "runs[{}] ({} seed {}) is there twice", i,
               run.test, run.seed);
    str(r["status"], run.status, "a run's status");
    static const std::set<std::string> kStatuses = {"pass",    "fail", "crash",
                                                    "timeout", "oom",  "usage"};
    FUZZ_CHECK(kStatuses.count(run.status) == 1, "status {}", run.status);
    FUZZ_CHECK(r["pass"].is_boolean() && r["pass"].get<bool>() == (run.status == "pass"),
               "runs[{}].pass is {} with status {}", i, r["pass"].dump(), run.status);
    FUZZ_CHECK(
        IsInt(r["exit_code"], std::numeric_limits<int>::min(), std::numeric_limits<int>::max()) &&
            r["exit_code"].get<int>() == run.exit_code,
        "runs[{}].exit_code", i);
    if (r["signal"].is_null()) {
      FUZZ_CHECK(run.signal_name.empty() && run.signal == 0, "runs[{}].signal null", i);
    } else {
      str(r["signal"], run.signal_name, "a run's signal");
      const int expected = run.signal_name.empty() ? 0 : SignalNumberOf(run.signal_name);
      FUZZ_CHECK(expected >= 0 && run.signal == expected, "runs[{}].signal '{}' read as {}", i,
                 run.signal_name, run.signal);
    }
    FUZZ_CHECK(IsInt(r["cycles"], 0, kI64Max) && r["cycles"].get<int64_t>() == run.cycles,
               "runs[{}].cycles {}", i, run.cycles);
    FUZZ_CHECK(r["cycles_per_second"].is_number() &&
                   r["cycles_per_second"].get<double>() == run.cycles_per_second &&
                   r["wall_seconds"].is_number() &&
                   r["wall_seconds"].get<double>() == run.wall_seconds,
               "runs[{}] timing", i);
    str(r["message"], run.message, "a run's message");
    str(r["reproduce"], run.reproduce, "a run's reproduce");
    str(r["stderr_tail"], run.stderr_tail, "a run's stderr_tail");
    FUZZ_CHECK(r["result"] == run.result, "runs[{}].result read otherwise", i);
    FUZZ_CHECK(Depth(run.result) <= cli::kMaxResultDepth, "runs[{}].result {} levels deep", i,
               Depth(run.result));
    FUZZ_CHECK(!run.result.is_object() || !run.result.contains("coverage"),
               "runs[{}].result holds coverage", i);
    passed += run.status == "pass";
    cycles = Saturated(cycles, run.cycles);
  }
  const auto count = [&](const char* name, uint64_t expected) {
    FUZZ_CHECK(doc[name].is_number_unsigned() && doc[name].get<uint64_t>() == expected,
               "{} is {}, the runs say {}", name, doc[name].dump(), expected);
  };
  count("total", runs.size());
  count("passed", passed);
  count("failed", runs.size() - passed);
  count("not_run", uint64_t(total_runs) - runs.size());
  FUZZ_CHECK(IsInt(doc["simulated_cycles"], 0, kI64Max) &&
                 doc["simulated_cycles"].get<int64_t>() == cycles,
             "simulated_cycles {} accepted, the runs' are {}", doc["simulated_cycles"].dump(),
             cycles);
  FUZZ_CHECK(doc["complete"].is_boolean() && doc["complete"] == report.complete, "complete");
  const json& interrupted = doc["interrupted"];
  if (report.complete) {
    FUZZ_CHECK(interrupted.is_null(), "complete, but interrupted by {}", interrupted.dump());
    FUZZ_CHECK(info.fail_fast || runs.size() == total_runs,
               "complete without fail_fast and {} runs missing",
               uint64_t(total_runs) - runs.size());
  } else {
    FUZZ_CHECK(interrupted.is_string() && !interrupted.get<std::string>().empty(),
               "incomplete, interrupted by {}", interrupted.dump());
  }
  FUZZ_CHECK(
      doc["wall_seconds"].is_number() && doc["wall_seconds"].get<double>() == report.wall_seconds,
      "wall_seconds");

  const json& coverage = doc["coverage"];
  const cli::MergedCoverage& merged = report.coverage;
  if (coverage.is_null()) {
    FUZZ_CHECK(merged.hits.empty() && merged.runs == 0, "null coverage read as {} bins",
               merged.hits.size());
  } else {
    FUZZ_CHECK(coverage.is_object() && coverage["runs"].is_number_unsigned() &&
                   coverage["runs"].get<uint64_t>() == merged.runs && merged.runs >= 1 &&
                   merged.runs <= passed,
               "coverage.runs {} with {} passing runs", merged.runs, passed);
    const json& hits = coverage["hits"];
    FUZZ_CHECK(hits.is_object() && !hits.empty() && hits.size() == merged.hits.size(),
               "coverage.hits read as {} bins", merged.hits.size());
    json holes = json::array();
    for (const auto& [bin, n] : hits.items()) {
      const auto it = merged.hits.find(bin);
      FUZZ_CHECK(it != merged.hits.end() && IsInt(n, 0, kI64Max) && n.get<int64_t>() == it->second,
                 "coverage.hits.{} is {}", bin, n.dump());
      if (it->second == 0) holes.push_back(bin);
    }
    FUZZ_CHECK(coverage["bins"] == hits.size() && coverage["hit"] == hits.size() - holes.size() &&
                   coverage["holes"] == holes,
               "coverage bins/hit/holes accepted that disagree with its hits");
  }

  CheckSameReport(report,
                  WriteAndRead(report, report.complete ? "" : interrupted.get<std::string>()));
}

// The run JSON result `text` as Classify reads it, then written into a report and read back.
void CheckChildResult(std::string_view text) {
  Run run;
  run.test = "gemm_random";
  run.seed = 1;
  run.reproduce = "the runner's reproduce line";
  const std::string out(text);
  std::string problem;
  try {
    problem = cli::ReadChildResult(out, run);
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, "ReadChildResult threw: {}", e.what());
  }
  const json doc = json::parse(out, nullptr, false);
  if (out.empty() || doc.is_discarded()) {
    FUZZ_CHECK(run.result.is_null() && problem.empty() && run.cycles == 0 &&
                   run.reproduce == "the runner's reproduce line",
               "a text that is not JSON gave a result or a problem: {}", problem);
    return;
  }
  if (Depth(doc) > cli::kMaxResultDepth) {
    FUZZ_CHECK(run.result.is_null() && !problem.empty(), "a result {} levels deep was taken",
               Depth(doc));
  } else {
    FUZZ_CHECK(run.result == doc, "the result is not the document");
    std::string first_bad;  // the first field that is not what the runner reads
    int64_t cycles = 0;
    double speed = 0;
    std::string reproduce = "the runner's reproduce line";
    if (doc.is_object()) {
      const auto get = [&](const char* name) {
        return doc.contains(name) && !doc[name].is_null() ? &doc[name] : nullptr;
      };
      if (const json* v = get("cycles")) {
        if (IsInt(*v, 0, kI64Max))
          cycles = v->get<int64_t>();
        else
          first_bad = "cycles";
      }
      if (const json* v = get("cycles_per_second")) {
        if (v->is_number())
          speed = v->get<double>();
        else if (first_bad.empty())
          first_bad = "cycles_per_second";
      }
      if (const json* v = get("reproduce")) {
        if (v->is_string())
          reproduce = v->get<std::string>();
        else if (first_bad.empty())
          first_bad = "reproduce";
      }
    }
    FUZZ_CHECK(run.cycles == cycles && run.cycles_per_second == speed && run.reproduce == reproduce,
               "cycles {} / {} / reproduce read otherwise", run.cycles, run.cycles_per_second);
    FUZZ_CHECK(first_bad.empty() ? problem.empty()
                                 : StartsWith(problem, "field \"" + first_bad + "\" is "),
               "the problem '{}' does not name '{}'", problem, first_bad);
  }
  const bool says_pass = doc.is_object() && doc.contains("pass") && doc["pass"] == true;
  FUZZ_CHECK(cli::ChildSaysPass(run.result) == says_pass, "ChildSaysPass is not \"pass\" == true");
  for (int exit_code : {0, 1}) {
    std::string message;
    try {
      message = cli::ChildFailureMessage(run.result, exit_code, problem);
    } catch (const std::exception& e) {
      FUZZ_CHECK(false, "ChildFailureMessage threw: {}", e.what());
    }
    FUZZ_CHECK(message.find(problem) != std::string::npos, "the message '{}' drops '{}'", message,
               problem);
  }
  // Classified as Classify does for a child that exited 0, and reported.
  run.exit_code = 0;
  if (says_pass && problem.empty()) {
    run.status = "pass";
  } else {
    run.status = "fail";
    run.message = cli::ValidUtf8(cli::ChildFailureMessage(run.result, 0, problem));
  }
  ReportContents report;
  report.info.suite = "gemm";
  report.info.tests = {run.test};
  report.info.mode = "lockstep";
  report.info.seeds_per_test = 1;
  report.info.seed_base = 1;
  report.info.timeout_seconds = 300;
  report.runs = {run};
  report.complete = true;
  const ReportContents back = WriteAndRead(report, "");
  FUZZ_CHECK(back.runs.size() == 1, "the run is not read back");
  if (run.result.is_object()) run.result.erase("coverage");
  FUZZ_CHECK(SameRun(run, back.runs[0]), "the run reads back otherwise");
}

}  // namespace
}  // namespace qacc::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qacc::fuzz;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckChildResult(text);
  // --resume parses the file whole (a NUL byte is a parse error there too: it is read as a stream).
  const json doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) return 0;
  ReportContents report;
  try {
    report = qacc::cli::ReportFromJson(doc);
  } catch (const qacc::cli::ReportFieldError& e) {
    CheckRefused(doc, e.what());
    return 0;
  }
  CheckAccepted(doc, report);
  return 0;
}
