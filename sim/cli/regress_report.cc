#include "sim/cli/regress_report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

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

std::string RunJson(const Run& run) {
  const nlohmann::json j = {
      {"test", run.test},
      {"seed", run.seed},
      {"pass", run.passed()},
      {"status", run.status},
      {"exit_code", run.exit_code},
      {"signal", run.signal == 0 ? nlohmann::json(nullptr) : nlohmann::json(run.signal_name)},
      {"cycles", run.cycles},
      {"cycles_per_second", run.cycles_per_second},
      {"wall_seconds", run.wall_seconds},
      {"message", run.message},
      {"reproduce", run.reproduce},
      {"result", run.result}};
  // Each run's coverage is merged into the regression's (Finish), not repeated per run.
  nlohmann::json copy = j;
  if (copy["result"].is_object()) copy["result"].erase("coverage");
  return copy.dump();
}

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

std::string PropertiesXml(const RegressInfo& info) {
  const std::pair<const char*, std::string> properties[] = {
      {"config", info.config_path},
      {"config_name", info.config_name},
      {"mode", info.mode},
      {"seeds_per_test", std::to_string(info.seeds_per_test)},
      {"seed_base", std::to_string(info.seed_base)},
      {"jobs", std::to_string(info.jobs)},
      {"timeout_seconds", fmt::format("{}", info.timeout_seconds)},
      {"mutant", std::to_string(info.mutant)},
      {"tool_version", info.tool_version},
      {"tool_commit", info.tool_commit}};
  std::string xml = "    <properties>\n";
  for (const auto& [name, value] : properties) {
    xml += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, XmlEscape(value));
  }
  return xml + "    </properties>\n";
}

}  // namespace

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
                               const std::string& json_path, const std::string& junit_path)
    : info_(info) {
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
    const nlohmann::json header = {
        {"suite", info.suite},
        {"tests", info.tests},
        {"config", info.config_path},
        {"config_name", info.config_name},
        {"mode", info.mode},
        {"tool", {{"version", info.tool_version}, {"commit", info.tool_commit}}},
        {"timestamp", info.timestamp},
        {"hostname", info.hostname},
        {"seeds_per_test", info.seeds_per_test},
        {"seed_base", info.seed_base},
        {"jobs", info.jobs},
        {"timeout_seconds", info.timeout_seconds},
        {"fail_fast", info.fail_fast},
        {"mutant", info.mutant}};
    std::string text = header.dump(2);
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
  } else {
    std::fputs(text.c_str(), stderr);
  }
}

void RegressReports::Add(const Run& run) {
  // Coverage counts from passing runs only: a bin hit by a failing run was not shown to work.
  if (run.passed() && run.result.is_object() && run.result.contains("coverage") &&
      run.result["coverage"].is_object()) {
    ++coverage_runs_;
    for (const auto& [bin, hits] : run.result["coverage"].items()) {
      coverage_[bin] += hits.is_number_integer() ? hits.get<int64_t>() : 0;
    }
  }
  passed_ += run.passed();
  failures_ += run.status == "fail";
  errors_ += !run.passed() && run.status != "fail";
  cycles_ += run.cycles;
  WriteSummary(fmt::format("{:<{}}  {:>20}  {:<7}  {:>12}  {:>12.0f}  {:>8.2f}\n", run.test, width_,
                           run.seed, run.passed() ? "pass" : run.status, run.cycles,
                           run.cycles_per_second, run.wall_seconds));
  if (!run.passed()) {
    failure_list_ += fmt::format("FAIL {} seed {}: {}\n  reproduce: {}\n", run.test, run.seed,
                                 run.message, run.reproduce);
  }
  if (json_) json_->Write(fmt::format("{}\n    {}", added_ == 0 ? "" : ",", RunJson(run)));
  if (junit_body_ != nullptr) std::fputs(TestcaseXml(run, info_).c_str(), junit_body_);
  ++added_;
}

size_t RegressReports::coverage_holes() const {
  size_t holes = 0;
  for (const auto& entry : coverage_) holes += entry.second == 0;
  return holes;
}

void RegressReports::Finish(double wall, const std::string& interrupted) {
  const uint64_t failed = added_ - passed_;
  std::string totals =
      fmt::format("\n{} runs: {} passed, {} failed; {} simulated cycles in {:.2f} s wall\n", added_,
                  passed_, failed, cycles_, wall);
  if (interrupted.empty() && added_ < info_.total_runs) {
    totals += fmt::format("stopped at the first failure (--fail-fast): {} of {} runs ran\n", added_,
                          info_.total_runs);
  }
  if (!interrupted.empty()) {
    totals += fmt::format("interrupted by {} after {} of {} runs: no report written\n", interrupted,
                          added_, info_.total_runs);
  }
  if (!interrupted.empty()) {
    // No partial file: the reports are dropped, the totals go to the terminal.
    if (json_) json_->Abandon();
    if (junit_) junit_->Abandon();
    if (summary_ && !summary_->is_stdout()) summary_->Abandon();
    const std::string text = totals + failure_list_;
    std::fputs(text.c_str(), summary_ && summary_->is_stdout() ? stdout : stderr);
    std::fflush(stdout);
    if (summary_ && summary_->is_stdout()) {
      fmt::print(stderr, "qacc regress: interrupted by {} after {} of {} runs\n", interrupted,
                 added_, info_.total_runs);
    }
    return;
  }
  std::vector<std::string> holes;
  int64_t hit = 0;
  for (const auto& [bin, hits] : coverage_) {
    if (hits == 0) holes.push_back(bin);
    hit += hits > 0;
  }
  std::string coverage_text;
  if (!coverage_.empty()) {
    coverage_text = fmt::format("coverage: {} of {} bins hit over {} passing lockstep runs\n", hit,
                                coverage_.size(), coverage_runs_);
    for (const std::string& hole : holes) coverage_text += fmt::format("  hole: {}\n", hole);
  }
  WriteSummary(totals + coverage_text + failure_list_);
  if (json_) {
    nlohmann::json coverage_json = nullptr;
    if (!coverage_.empty()) {
      coverage_json = {{"runs", coverage_runs_},
                       {"bins", coverage_.size()},
                       {"hit", hit},
                       {"holes", holes},
                       {"hits", coverage_}};
    }
    const nlohmann::json totals_json = {{"total", added_},
                                        {"passed", passed_},
                                        {"failed", failed},
                                        {"simulated_cycles", cycles_},
                                        {"wall_seconds", wall},
                                        {"coverage", coverage_json}};
    std::string text = totals_json.dump(2);
    json_->Write("\n  ],\n" + text.substr(2));  // the fields without their opening brace
    json_->Write("\n");
    json_->Commit();
  }
  if (junit_) {
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
    junit_->Write(PropertiesXml(info_));
    std::rewind(junit_body_);
    char buffer[65536];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, junit_body_)) > 0;) {
      junit_->Write(std::string(buffer, n));
    }
    junit_->Write("  </testsuite>\n</testsuites>\n");
    junit_->Commit();
  }
  if (summary_) summary_->Commit();
}

}  // namespace qacc::cli
