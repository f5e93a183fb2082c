#include "sim/cli/regress_report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <set>
#include <type_traits>
#include <utility>

#include "sim/cli/common.h"

namespace qacc::cli {

namespace {

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters even escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string FieldName(const std::string& where, const std::string& name) {
  return where.empty() ? name : where + "." + name;
}

// A value as an error message quotes it: a scalar as JSON, cut short; a container by kind and size
// (dump() recurses once per level: a deeply nested value would overflow the stack).
std::string Shown(const nlohmann::json& value) {
  if (value.is_array()) return fmt::format("an array of {} elements", value.size());
  if (value.is_object()) return fmt::format("an object of {} fields", value.size());
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

// json[name] itself (not a copy: copies recurse too), or a ReportFieldError naming the field.
const nlohmann::json& Field(const nlohmann::json& json, const std::string& name,
                            const std::string& where = "") {
  if (!json.is_object() || !json.contains(name)) {
    throw ReportFieldError(fmt::format("field \"{}\" is missing", FieldName(where, name)));
  }
  return json[name];
}

// Whether `value` nests containers more than `limit` levels deep (a scalar: 0 levels); recurses at
// most `limit` levels.
bool DeeperThan(const nlohmann::json& value, int limit) {
  if (!value.is_structured()) return false;
  if (limit == 0) return true;
  for (const nlohmann::json& item : value) {
    if (DeeperThan(item, limit - 1)) return true;
  }
  return false;
}

// a + b for counts >= 0, saturating at the int64 maximum (the totals of cycles and hits).
int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<int64_t>::max() : sum;
}

// json[name] converted to T, or a ReportFieldError naming the field and what it should be.
template <typename T>
T Get(const nlohmann::json& json, const std::string& name, const std::string& where = "") {
  const nlohmann::json& value = Field(json, name, where);
  const char* expected = nullptr;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) expected = "a string";
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) expected = "true or false";
  } else if constexpr (std::is_same_v<T, double>) {
    if (!value.is_number()) expected = "a number";
  } else if constexpr (std::is_unsigned_v<T>) {
    if (!value.is_number_unsigned()) expected = "an integer >= 0";
  } else {
    static_assert(std::is_integral_v<T>);
    const bool fits = value.is_number_integer() &&
                      (!value.is_number_unsigned() ||
                       value.get<uint64_t>() <= uint64_t(std::numeric_limits<T>::max())) &&
                      (value.is_number_unsigned() ||
                       value.get<int64_t>() >= int64_t(std::numeric_limits<T>::min()));
    if (!fits) expected = "an integer";
  }
  if (expected != nullptr) {
    throw ReportFieldError(fmt::format("field \"{}\" is {}, expected {}", FieldName(where, name),
                                       Shown(value), expected));
  }
  return value.get<T>();
}

// A string field that is null when absent ("": null).
std::string GetOptionalString(const nlohmann::json& json, const std::string& name,
                              const std::string& where = "") {
  if (json.is_object() && json.contains(name) && json[name].is_null()) return "";
  return Get<std::string>(json, name, where);
}

nlohmann::json OptionalString(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

void Require(bool ok, const std::string& field, const std::string& expected,
             const nlohmann::json& value) {
  if (!ok) {
    throw ReportFieldError(
        fmt::format("field \"{}\" is {}, expected {}", field, Shown(value), expected));
  }
}

// The signal number of a SignalName ("SIGSEGV (11)", "signal 42"); -1 when it names none.
int SignalNumber(const std::string& name) {
  const size_t end = name.find_last_of("0123456789");
  if (end == std::string::npos) return -1;
  const size_t begin = name.find_last_not_of("0123456789", end) + 1;  // npos + 1 = 0
  return end - begin < 3 ? std::stoi(name.substr(begin, end - begin + 1)) : -1;
}

constexpr const char* kStatuses[] = {"pass", "fail", "crash", "timeout", "oom", "usage"};

// The JUnit <testcase> of a run. A mismatch or an error result is a failure; a crash, a timeout or
// a usage error of the child is an error (the test could not judge the design).
std::string TestcaseXml(const Run& run, const RegressInfo& info) {
  std::string xml =
      fmt::format("    <testcase classname=\"{}.{}.{}\" name=\"{}.seed{}.{}\" time=\"{:.3f}\"",
                  XmlEscape(info.suite), XmlEscape(info.config_name), XmlEscape(run.test),
                  XmlEscape(run.test), run.seed, XmlEscape(info.config_name), run.wall_seconds);
  if (run.passed()) return xml + "/>\n";
  const std::string tag = run.status == "fail" ? "failure" : "error";
  xml += ">\n";
  xml += fmt::format("      <{} type=\"{}\" message=\"{}\">{}&#10;reproduce: {}</{}>\n", tag,
                     run.status, XmlEscape(run.message), XmlEscape(run.message),
                     XmlEscape(run.reproduce), tag);
  if (!run.stderr_tail.empty()) {
    xml += fmt::format("      <system-err>{}</system-err>\n", XmlEscape(run.stderr_tail));
  }
  return xml + "    </testcase>\n";
}

// `interrupted`: the signal that stopped the regression early, and the runs it left not run.
std::string PropertiesXml(const RegressInfo& info, const std::string& interrupted,
                          uint64_t not_run) {
  std::vector<std::pair<const char*, std::string>> properties = {
      {"config", info.config_path},
      {"config_name", info.config_name},
      {"mode", info.mode},
      {"seeds_per_test", std::to_string(info.seeds_per_test)},
      {"seed_base", std::to_string(info.seed_base)},
      {"jobs", std::to_string(info.jobs)},
      {"timeout_seconds", fmt::format("{}", info.timeout_seconds)},
      {"memory_limit_mb", std::to_string(info.memory_limit_mb)},
      {"mutant", std::to_string(info.mutant)},
      {"tool_version", info.tool_version},
      {"tool_commit", info.tool_commit},
      {"complete", interrupted.empty() ? "true" : "false"}};
  if (!interrupted.empty()) {
    properties.emplace_back("interrupted", interrupted);
    properties.emplace_back("not_run", std::to_string(not_run));
  }
  std::string xml = "    <properties>\n";
  for (const auto& [name, value] : properties) {
    xml += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, XmlEscape(value));
  }
  return xml + "    </properties>\n";
}

nlohmann::json RunToJson(const Run& run) {
  nlohmann::json result = run.result;
  // Each run's coverage is merged into the regression's (Finish), not repeated per run.
  if (result.is_object()) result.erase("coverage");
  return {{"test", run.test},
          {"seed", run.seed},
          {"pass", run.passed()},
          {"status", run.status},
          {"exit_code", run.exit_code},
          {"signal", OptionalString(run.signal_name)},
          {"cycles", run.cycles},
          {"cycles_per_second", run.cycles_per_second},
          {"wall_seconds", run.wall_seconds},
          {"message", run.message},
          {"reproduce", run.reproduce},
          {"stderr_tail", run.stderr_tail},
          {"result", result}};
}

Run RunFromJson(const nlohmann::json& json, const std::string& where) {
  Run run;
  run.test = Get<std::string>(json, "test", where);
  run.seed = Get<uint64_t>(json, "seed", where);
  run.status = Get<std::string>(json, "status", where);
  Require(std::find(std::begin(kStatuses), std::end(kStatuses), run.status) != std::end(kStatuses),
          FieldName(where, "status"), "one of pass, fail, crash, timeout, oom, usage",
          json["status"]);
  run.exit_code = Get<int>(json, "exit_code", where);
  run.signal_name = GetOptionalString(json, "signal", where);
  run.signal = run.signal_name.empty() ? 0 : SignalNumber(run.signal_name);
  Require(run.signal != -1, FieldName(where, "signal"), "a signal (\"SIGSEGV (11)\") or null",
          json["signal"]);
  Require(Get<bool>(json, "pass", where) == run.passed(), FieldName(where, "pass"),
          fmt::format("{}, as \"status\" is \"{}\"", run.passed(), run.status), json["pass"]);
  run.cycles = Get<int64_t>(json, "cycles", where);
  Require(run.cycles >= 0, FieldName(where, "cycles"), "an integer >= 0", json["cycles"]);
  run.cycles_per_second = Get<double>(json, "cycles_per_second", where);
  run.wall_seconds = Get<double>(json, "wall_seconds", where);
  run.message = Get<std::string>(json, "message", where);
  run.reproduce = Get<std::string>(json, "reproduce", where);
  run.stderr_tail = Get<std::string>(json, "stderr_tail", where);
  const nlohmann::json& result = Field(json, "result", where);
  Require(!DeeperThan(result, kMaxResultDepth), FieldName(where, "result"),
          fmt::format("a JSON result nested at most {} levels deep", kMaxResultDepth), result);
  if (result.is_object() && result.contains("coverage")) {
    throw ReportFieldError(fmt::format(
        "field \"{}\" is present: a report holds the runs' coverage merged, in \"coverage\"",
        FieldName(where, "result.coverage")));
  }
  run.result = result;
  return run;
}

nlohmann::json InfoToJson(const RegressInfo& info) {
  return {{"suite", info.suite},
          {"tests", info.tests},
          {"config", info.config_path},
          {"config_name", info.config_name},
          {"config_hash", info.config_hash},
          {"mode", info.mode},
          {"tool", {{"version", info.tool_version}, {"commit", info.tool_commit}}},
          {"timestamp", info.timestamp},
          {"hostname", info.hostname},
          {"seeds_per_test", info.seeds_per_test},
          {"seed_base", info.seed_base},
          {"jobs", info.jobs},
          {"timeout_seconds", info.timeout_seconds},
          {"memory_limit_mb", info.memory_limit_mb},
          {"fail_fast", info.fail_fast},
          {"mutant", info.mutant},
          {"require_coverage", info.require_coverage},
          {"coverage_dir", OptionalString(info.coverage_dir)}};
}

RegressInfo InfoFromJson(const nlohmann::json& json) {
  RegressInfo info;
  info.suite = Get<std::string>(json, "suite");
  const nlohmann::json& tests = Field(json, "tests");
  Require(tests.is_array() && !tests.empty(), "tests", "a list of test names", tests);
  for (size_t i = 0; i < tests.size(); ++i) {
    // --resume passes them on as --tests, a comma-separated list.
    const bool name = tests[i].is_string() && !tests[i].get_ref<const std::string&>().empty() &&
                      tests[i].get_ref<const std::string&>().find(',') == std::string::npos;
    Require(name, fmt::format("tests[{}]", i), "a test name", tests[i]);
    Require(std::find(info.tests.begin(), info.tests.end(), tests[i]) == info.tests.end(),
            fmt::format("tests[{}]", i), "a test named once", tests[i]);
    info.tests.push_back(tests[i]);
  }
  info.config_path = Get<std::string>(json, "config");
  info.config_name = Get<std::string>(json, "config_name");
  info.config_hash = Get<std::string>(json, "config_hash");
  info.mode = Get<std::string>(json, "mode");
  Require(info.mode == "lockstep" || info.mode == "model-only", "mode", "lockstep or model-only",
          json["mode"]);
  info.tool_version = Get<std::string>(Field(json, "tool"), "version", "tool");
  info.tool_commit = Get<std::string>(json["tool"], "commit", "tool");
  info.timestamp = Get<std::string>(json, "timestamp");
  info.hostname = Get<std::string>(json, "hostname");
  info.seeds_per_test = Get<int64_t>(json, "seeds_per_test");
  Require(info.seeds_per_test >= 1, "seeds_per_test", "an integer >= 1", json["seeds_per_test"]);
  info.seed_base = Get<uint64_t>(json, "seed_base");
  info.jobs = Get<int>(json, "jobs");
  Require(info.jobs >= 1 && info.jobs <= kMaxJobs, "jobs", fmt::format("1..{}", kMaxJobs),
          json["jobs"]);
  info.timeout_seconds = Get<double>(json, "timeout_seconds");
  Require(info.timeout_seconds > 0 && info.timeout_seconds <= kMaxTimeoutSeconds, "timeout_seconds",
          fmt::format("a number in (0, {}]", kMaxTimeoutSeconds), json["timeout_seconds"]);
  info.memory_limit_mb = Get<int64_t>(json, "memory_limit_mb");
  Require(info.memory_limit_mb >= 0 && info.memory_limit_mb <= kMaxMemoryLimitMb, "memory_limit_mb",
          fmt::format("0..{}", kMaxMemoryLimitMb), json["memory_limit_mb"]);
  info.fail_fast = Get<bool>(json, "fail_fast");
  info.mutant = Get<int64_t>(json, "mutant");
  Require(info.mutant >= 0 && info.mutant <= kMaxMutant, "mutant", fmt::format("0..{}", kMaxMutant),
          json["mutant"]);
  info.require_coverage = Get<bool>(json, "require_coverage");
  info.coverage_dir = GetOptionalString(json, "coverage_dir");
  return info;
}

nlohmann::json CoverageToJson(const MergedCoverage& coverage) {
  if (coverage.hits.empty()) return nullptr;
  std::vector<std::string> holes;
  for (const auto& [bin, hits] : coverage.hits) {
    if (hits == 0) holes.push_back(bin);
  }
  return {{"runs", coverage.runs},
          {"bins", coverage.hits.size()},
          {"hit", coverage.hits.size() - holes.size()},
          {"holes", holes},
          {"hits", coverage.hits}};
}

// `passed`: the passing runs of the report, of which `runs` were merged.
MergedCoverage CoverageFromJson(const nlohmann::json& json, const std::string& where,
                                uint64_t passed) {
  MergedCoverage coverage;
  if (json.is_null()) return coverage;  // CoverageToJson writes no bins as null
  coverage.runs = Get<uint64_t>(json, "runs", where);
  Require(coverage.runs >= 1 && coverage.runs <= passed, FieldName(where, "runs"),
          fmt::format("1..{} (the passing runs)", passed), json["runs"]);
  const nlohmann::json& hits = Field(json, "hits", where);
  Require(hits.is_object() && !hits.empty(), FieldName(where, "hits"),
          "an object of bin: hits, with a bin at least", hits);
  nlohmann::json holes = nlohmann::json::array();
  for (const auto& [bin, count] : hits.items()) {
    const int64_t n = Get<int64_t>(hits, bin, FieldName(where, "hits"));
    Require(n >= 0, FieldName(FieldName(where, "hits"), bin), "an integer >= 0", count);
    coverage.hits[bin] = n;
    if (n == 0) holes.push_back(bin);
  }
  Require(Get<uint64_t>(json, "bins", where) == coverage.hits.size(), FieldName(where, "bins"),
          fmt::format("{} (the bins of \"hits\")", coverage.hits.size()), json["bins"]);
  const size_t hit = coverage.hits.size() - holes.size();
  Require(Get<uint64_t>(json, "hit", where) == hit, FieldName(where, "hit"),
          fmt::format("{} (the bins of \"hits\" hit)", hit), json["hit"]);
  Require(Field(json, "holes", where) == holes, FieldName(where, "holes"),
          "the bins of \"hits\" never hit, in order", json["holes"]);
  return coverage;
}

// A total of the report that must be `expected`, what the runs say.
void RequireTotal(const nlohmann::json& json, const std::string& name, uint64_t expected) {
  Require(Get<uint64_t>(json, name) == expected, name, fmt::format("{}, as the runs say", expected),
          json[name]);
}

}  // namespace

void MergedCoverage::Merge(const std::map<std::string, int64_t>& run_hits) {
  ++runs;
  for (const auto& [bin, count] : run_hits) hits[bin] = SaturatingAdd(hits[bin], count);
}

size_t MergedCoverage::holes() const {
  size_t count = 0;
  for (const auto& entry : hits) count += entry.second == 0;
  return count;
}

ReportContents ReportFromJson(const nlohmann::json& json) {
  ReportContents report;
  report.info = InfoFromJson(json);
  const RegressInfo& info = report.info;
  // The schedule (cmd_regress.cc): seeds_per_test seeds from seed_base, each for every test.
  const uint64_t seeds = uint64_t(info.seeds_per_test), max = std::numeric_limits<uint64_t>::max();
  Require(seeds - 1 <= max - info.seed_base, "seeds_per_test",
          fmt::format("at most {} (seed_base + seeds_per_test - 1 is a seed)",
                      max - info.seed_base + 1),
          json["seeds_per_test"]);
  Require(seeds <= max / info.tests.size(), "seeds_per_test",
          fmt::format("at most {} ({} tests: the runs must be counted)", max / info.tests.size(),
                      info.tests.size()),
          json["seeds_per_test"]);
  const uint64_t total_runs = seeds * info.tests.size();
  const nlohmann::json& runs = Field(json, "runs");
  Require(runs.is_array(), "runs", "a list of runs", runs);
  std::set<uint64_t> scheduled;  // the schedule indices of the runs
  uint64_t passed = 0;
  int64_t cycles = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run run = RunFromJson(runs[i], fmt::format("runs[{}]", i));
    const auto test = std::find(info.tests.begin(), info.tests.end(), run.test);
    const bool in_schedule =
        test != info.tests.end() && run.seed >= info.seed_base && run.seed - info.seed_base < seeds;
    const uint64_t index =
        (run.seed - info.seed_base) * info.tests.size() + uint64_t(test - info.tests.begin());
    if (!in_schedule || !scheduled.insert(index).second) {
      throw ReportFieldError(
          fmt::format("field \"runs[{}]\": {} seed {} is {} of the regression's schedule", i,
                      run.test, run.seed, in_schedule ? "a second run" : "not part"));
    }
    passed += run.passed();
    cycles = SaturatingAdd(cycles, run.cycles);
    report.runs.push_back(run);
  }
  RequireTotal(json, "total", runs.size());
  RequireTotal(json, "passed", passed);
  RequireTotal(json, "failed", runs.size() - passed);
  RequireTotal(json, "not_run", total_runs - runs.size());
  Require(Get<int64_t>(json, "simulated_cycles") == cycles, "simulated_cycles",
          fmt::format("{}, the runs' cycles", cycles), json["simulated_cycles"]);
  report.complete = Get<bool>(json, "complete");
  const nlohmann::json& interrupted = Field(json, "interrupted");
  if (report.complete) {
    Require(interrupted.is_null(), "interrupted", "null in a complete report", interrupted);
    // Only --fail-fast ends a regression with runs not run.
    Require(info.fail_fast || runs.size() == total_runs, "complete",
            fmt::format("false: {} of {} runs ran, without fail_fast", runs.size(), total_runs),
            json["complete"]);
  } else {
    Require(interrupted.is_string() && !interrupted.get_ref<const std::string&>().empty(),
            "interrupted", "the signal that stopped the regression", interrupted);
  }
  report.wall_seconds = Get<double>(json, "wall_seconds");
  report.coverage = CoverageFromJson(Field(json, "coverage"), "coverage", passed);
  return report;
}

std::string ReadChildResult(const std::string& out, Run& run) {
  run.result = nullptr;
  run.cycles = 0;
  run.cycles_per_second = 0.0;
  if (out.empty()) return "";
  nlohmann::json r;
  try {
    r = nlohmann::json::parse(out);
  } catch (const nlohmann::json::exception&) {
    return "";  // no JSON result: the exit code tells
  }
  if (DeeperThan(r, kMaxResultDepth)) {
    return fmt::format("the JSON result nests deeper than {} levels", kMaxResultDepth);
  }
  run.result = std::move(r);
  if (!run.result.is_object()) return "";
  std::string problem;
  const auto field = [&](const char* name) -> const nlohmann::json* {
    const auto it = run.result.find(name);
    return it == run.result.end() || it->is_null() ? nullptr : &*it;
  };
  const auto refuse = [&](const char* name, const nlohmann::json& value, const char* expected) {
    if (problem.empty()) {
      problem = fmt::format("field \"{}\" is {}, expected {}", name, Shown(value), expected);
    }
  };
  if (const nlohmann::json* cycles = field("cycles")) {
    if (cycles->is_number_unsigned() &&
        cycles->get<uint64_t>() <= uint64_t(std::numeric_limits<int64_t>::max())) {
      run.cycles = cycles->get<int64_t>();
    } else {
      refuse("cycles", *cycles, "an integer >= 0");
    }
  }
  if (const nlohmann::json* speed = field("cycles_per_second")) {
    if (speed->is_number()) {
      run.cycles_per_second = speed->get<double>();
    } else {
      refuse("cycles_per_second", *speed, "a number");
    }
  }
  if (const nlohmann::json* reproduce = field("reproduce")) {
    if (reproduce->is_string()) {
      run.reproduce = reproduce->get<std::string>();
    } else {
      refuse("reproduce", *reproduce, "a string");
    }
  }
  return problem;
}

bool ChildSaysPass(const nlohmann::json& result) {
  return result.is_object() && result.contains("pass") && result["pass"] == true;
}

std::string ChildFailureMessage(const nlohmann::json& r, int exit_code,
                                const std::string& problem) {
  if (!problem.empty()) {
    return fmt::format("exit code {}, a bad JSON result: {}", exit_code, problem);
  }
  if (r.contains("error") && r["error"].is_string()) {
    return "error: " + r["error"].get<std::string>();
  }
  std::string mismatches;
  if (r.contains("mismatches") && r["mismatches"].is_object()) {
    for (const auto& [unit, count] : r["mismatches"].items()) {
      // Compared as JSON: a count of 0.5 or 1e300 is not 0 (and is never converted to an integer).
      if (count.is_number() && count != 0) {
        mismatches += fmt::format("{}{}={}", mismatches.empty() ? "" : " ", unit, count.dump());
      }
    }
  }
  std::string message = fmt::format("exit code {}, mismatches: {}", exit_code,
                                    mismatches.empty() ? "none reported" : mismatches);
  if (r.contains("first_mismatch") && !r["first_mismatch"].is_null()) {
    message += "; first: " +
               r["first_mismatch"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  if (exit_code == 0) message = "exit code 0 but \"pass\" is not true; " + message;
  return message;
}

std::string ValidUtf8(const std::string& text) {
  // nlohmann's own replacement, so that what is written is exactly what reads back.
  const std::string quoted =
      nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(quoted).get<std::string>();
}

ReportFile::ReportFile(const std::string& path, const std::string& option)
    : path_(path), option_(option) {
  if (is_stdout()) {
    file_ = stdout;
    return;
  }
  CheckOutputPath(path, option);
  tmp_ = path + ".tmpXXXXXX";
  const int fd = mkstemp(tmp_.data());
  if (fd < 0 || (file_ = fdopen(fd, "w")) == nullptr) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) close(fd);
    if (fd >= 0) std::remove(tmp_.c_str());
    throw UsageError(fmt::format("{}: cannot create {}: {}", option, path, why));
  }
  SetNewFileMode(fd);
}

ReportFile::~ReportFile() { Abandon(); }

void ReportFile::Write(const std::string& text) {
  if (file_ != nullptr) std::fwrite(text.data(), 1, text.size(), file_);
}

void ReportFile::Commit() {
  if (file_ == nullptr) return;
  if (is_stdout()) {
    std::fflush(stdout);
    file_ = nullptr;
    return;
  }
  const bool ok = std::fflush(file_) == 0 && !std::ferror(file_);
  std::fclose(file_);
  file_ = nullptr;
  if (!ok || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp_.c_str());
    throw std::runtime_error(fmt::format("{}: cannot write {}: {}", option_, path_, why));
  }
}

void ReportFile::Abandon() {
  if (file_ == nullptr) return;
  if (is_stdout()) {
    std::fflush(stdout);
  } else {
    std::fclose(file_);
    std::remove(tmp_.c_str());
  }
  file_ = nullptr;
}

RegressReports::RegressReports(const RegressInfo& info, const std::string& summary_path,
                               const std::string& json_path, const std::string& junit_path,
                               const MergedCoverage& prior)
    : info_(info), coverage_(prior) {
  for (const std::string& test : info.tests) width_ = std::max(width_, test.size());
  if (!summary_path.empty()) summary_ = std::make_unique<ReportFile>(summary_path, "--output");
  if (!json_path.empty()) json_ = std::make_unique<ReportFile>(json_path, "--json");
  if (!junit_path.empty()) {
    junit_ = std::make_unique<ReportFile>(junit_path, "--junit");
    junit_body_ = std::tmpfile();
    if (junit_body_ == nullptr) throw std::runtime_error("--junit: cannot create a temporary file");
  }
  WriteSummary(fmt::format("{:<{}}  {:>20}  {:<7}  {:>12}  {:>12}  {:>8}\n", "test", width_, "seed",
                           "result", "cycles", "cycles/s", "wall s"));
  if (json_) {
    std::string text =
        InfoToJson(info).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    text.resize(text.size() - 2);  // drop "\n}": the runs and the totals follow
    json_->Write(text + ",\n  \"runs\": [");
  }
}

RegressReports::~RegressReports() {
  if (junit_body_ != nullptr) std::fclose(junit_body_);
}

void RegressReports::WriteSummary(const std::string& text) {
  if (summary_) {
    summary_->Write(text);
    // Whole rows as the runs finish, never half of one where standard error writes too (a log of
    // `qacc regress > log 2>&1`).
    if (summary_->is_stdout()) std::fflush(stdout);
  } else {
    std::fputs(text.c_str(), stderr);
  }
}

void RegressReports::Add(const Run& run) {
  // Coverage counts from passing runs only: a bin hit by a failing run was not shown to work.
  if (run.passed() && run.result.is_object() && run.result.contains("coverage") &&
      run.result["coverage"].is_object()) {
    std::map<std::string, int64_t> hits;
    for (const auto& [bin, count] : run.result["coverage"].items()) {
      // A count that is not an integer >= 0 is no hit; one beyond int64 saturates.
      hits[bin] = count.is_number_unsigned()
                      ? int64_t(std::min<uint64_t>(count.get<uint64_t>(),
                                                   uint64_t(std::numeric_limits<int64_t>::max())))
                      : 0;
    }
    coverage_.Merge(hits);
  }
  passed_ += run.passed();
  failures_ += run.status == "fail";
  errors_ += !run.passed() && run.status != "fail";
  cycles_ = SaturatingAdd(cycles_, run.cycles);
  WriteSummary(fmt::format("{:<{}}  {:>20}  {:<7}  {:>12}  {:>12.0f}  {:>8.2f}\n", run.test, width_,
                           run.seed, run.passed() ? "pass" : run.status, run.cycles,
                           run.cycles_per_second, run.wall_seconds));
  if (!run.passed()) {
    failure_list_ += fmt::format("FAIL {} seed {}: {}\n  reproduce: {}\n", run.test, run.seed,
                                 run.message, run.reproduce);
  }
  if (json_) {
    const std::string line =
        RunToJson(run).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    json_->Write(fmt::format("{}\n    {}", added_ == 0 ? "" : ",", line));
  }
  if (junit_body_ != nullptr) std::fputs(TestcaseXml(run, info_).c_str(), junit_body_);
  ++added_;
}

// The line that says a report is incomplete, and how to go on.
std::string RegressReports::IncompleteNote(const std::string& interrupted) const {
  std::string resume = "no --json report: it cannot be resumed";
  if (json_ && !json_->is_stdout()) {
    resume = "resume: qacc regress --resume " + json_->path();
  } else if (json_) {
    resume = "resume: save the JSON report to a file and give it to qacc regress --resume";
  }
  return fmt::format("INCOMPLETE: interrupted by {}: {} of {} runs finished, {} not run; {}\n",
                     interrupted, added_, info_.total_runs, info_.total_runs - added_, resume);
}

void RegressReports::Finish(double wall, const std::string& interrupted) {
  std::string totals =
      fmt::format("\n{} runs: {} passed, {} failed; {} simulated cycles in {:.2f} s wall\n", added_,
                  passed_, added_ - passed_, cycles_, wall);
  if (!interrupted.empty()) {
    totals += IncompleteNote(interrupted);
  } else if (added_ < info_.total_runs) {
    totals += fmt::format("stopped at the first failure (--fail-fast): {} of {} runs ran\n", added_,
                          info_.total_runs);
  }
  std::string coverage_text;
  if (!coverage_.hits.empty()) {
    coverage_text = fmt::format("coverage: {} of {} bins hit over {} passing lockstep runs\n",
                                coverage_.hits.size() - coverage_.holes(), coverage_.hits.size(),
                                coverage_.runs);
    for (const auto& [bin, hits] : coverage_.hits) {
      if (hits == 0) coverage_text += fmt::format("  hole: {}\n", bin);
    }
  }
  WriteSummary(totals + coverage_text + failure_list_);
  if (json_) FinishJson(wall, interrupted);
  if (junit_) FinishJunit(wall, interrupted);
  if (summary_) summary_->Commit();
  if (!interrupted.empty()) {
    // The summary may be in a file or on stdout: the terminal hears of the interruption anyway.
    fmt::print(stderr, "qacc regress: {}", IncompleteNote(interrupted));
  }
}

void RegressReports::FinishJson(double wall, const std::string& interrupted) {
  const nlohmann::json totals = {{"total", added_},
                                 {"passed", passed_},
                                 {"failed", added_ - passed_},
                                 {"simulated_cycles", cycles_},
                                 {"wall_seconds", wall},
                                 {"coverage", CoverageToJson(coverage_)},
                                 {"complete", interrupted.empty()},
                                 {"not_run", info_.total_runs - added_},
                                 {"interrupted", OptionalString(interrupted)}};
  const std::string text = totals.dump(2);
  json_->Write("\n  ],\n" + text.substr(2));  // the fields without their opening brace
  json_->Write("\n");
  json_->Commit();
}

void RegressReports::FinishJunit(double wall, const std::string& interrupted) {
  junit_->Write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  junit_->Write(
      fmt::format("<testsuites name=\"qacc regress\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
                  "time=\"{:.3f}\" timestamp=\"{}\">\n",
                  added_, failures_, errors_, wall, info_.timestamp));
  junit_->Write(fmt::format(
      "  <testsuite name=\"{}.{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
      "time=\"{:.3f}\" timestamp=\"{}\" hostname=\"{}\">\n",
      XmlEscape(info_.suite), XmlEscape(info_.config_name), added_, failures_, errors_, wall,
      info_.timestamp, XmlEscape(info_.hostname)));
  junit_->Write(PropertiesXml(info_, interrupted, info_.total_runs - added_));
  std::rewind(junit_body_);
  char buffer[65536];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, junit_body_)) > 0;) {
    junit_->Write(std::string(buffer, n));
  }
  junit_->Write("  </testsuite>\n</testsuites>\n");
  junit_->Commit();
}

}  // namespace qacc::cli
