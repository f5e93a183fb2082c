// Interrupted regressions and `qacc regress --resume`, against the fake child of regress_fake.h: a
// regression stopped by SIGINT, SIGTERM or SIGHUP writes its reports marked incomplete, and
// resuming it runs only the missing runs and gives the reports of an uninterrupted regression,
// field by field up to wall times; a report that cannot be resumed is one error naming --resume and
// the field.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "sim/build_paths.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/regress_fake.h"

namespace qacc::testing {
namespace {

namespace fs = std::filesystem;

// 4 tests x 4 seeds: passes with coverage, mismatches (gemm_n1) and crashes (gemm_k1).
constexpr const char* kRuns = "16";
const std::vector<std::string> kArgs = {
    "--suite", "gemm", "--seeds", "4", "--tests", "gemm_random,gemm_n1,gemm_k1,gemm_edges",
    "-j",      "2"};

// What differs between two runs of the same regression: wall times, speeds, the start time.
nlohmann::json WithoutTiming(const nlohmann::json& json) {
  if (json.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : json) out.push_back(WithoutTiming(item));
    return out;
  }
  if (!json.is_object()) return json;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : json.items()) {
    if (key != "wall_seconds" && key != "cycles_per_second" && key != "timestamp") {
      out[key] = WithoutTiming(value);
    }
  }
  return out;
}

// The JUnit report without its time and timestamp attributes.
std::string JunitWithoutTiming(const std::string& xml) {
  return std::regex_replace(xml, std::regex(" (time|timestamp)=\"[^\"]*\""), "");
}

// The summary table without its timing columns (cycles/s, wall s) and the totals' wall time.
std::string SummaryWithoutTiming(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    line = std::regex_replace(line, std::regex(" in [0-9.]+ s wall"), "");
    line =
        std::regex_replace(line, std::regex("^(\\S+ +\\d+ +\\S+ +\\d+) +[0-9.]+ +[0-9.]+$"), "$1");
    out += line + "\n";
  }
  return out;
}

// Every field of `expected` (a final report) equals that of `actual`, timing aside; the failures
// name the field.
void ExpectSameReport(const nlohmann::json& expected, const nlohmann::json& actual) {
  const nlohmann::json a = WithoutTiming(expected), b = WithoutTiming(actual);
  for (const auto& [key, value] : a.items()) {
    ASSERT_TRUE(b.contains(key)) << key;
    if (key != "runs") {
      EXPECT_EQ(value, b[key]) << "field " << key;
    }
  }
  EXPECT_EQ(a.size(), b.size());
  ASSERT_EQ(a["runs"].size(), b["runs"].size());
  for (size_t i = 0; i < a["runs"].size(); ++i) {
    EXPECT_EQ(a["runs"][i], b["runs"][i]) << "runs[" << i << "]";
  }
}

class RegressResume : public RegressFixture {
 protected:
  // The regression's arguments with its three reports named `name`.json, .xml and .txt.
  std::vector<std::string> Args(const std::string& name) {
    std::vector<std::string> args = {"--child-command", fake_.string()};
    args.insert(args.end(), kArgs.begin(), kArgs.end());
    for (const auto& [option, ext] :
         {std::pair{"--json", ".json"}, std::pair{"--junit", ".xml"}, std::pair{"-o", ".txt"}}) {
      args.push_back(option);
      args.push_back(Path(name + ext));
    }
    return args;
  }
  std::string Path(const std::string& name) { return (dir_ / name).string(); }
  static std::string Join(const std::vector<std::string>& args) {
    std::string text;
    for (const std::string& arg : args) text += (text.empty() ? "" : " ") + arg;
    return text;
  }

  // Runs the regression `name` in the background, every child taking `delay` seconds, and sends
  // it `sig` once `runs` runs have finished; returns its exit code.
  int Interrupt(const std::vector<std::string>& args, int runs, int sig, double delay = 0.15) {
    SetDelay(delay);
    const fs::path err = dir_ / "err.txt";
    const pid_t regress = StartRegress(args, err);
    EXPECT_GT(regress, 0);
    const std::string progress = "[" + std::to_string(runs) + "/" + kRuns + "]";
    EXPECT_TRUE(WaitForText(err, progress)) << ReadWholeFile(err);
    // The next runs have started (and logged their calls) and are in their delay: in flight.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    kill(regress, sig);
    const int code = WaitExitCode(regress);
    SetDelay(0);
    return code;
  }

  // The resume of `name`.json, its reports written in place; returns the calls it made.
  std::string Resume(const std::string& name, int expected_exit = 1) {
    fs::remove(dir_ / "calls.log");
    const CliResult r =
        RunQacc("regress --resume " + Path(name + ".json") + " --child-command " + fake_.string() +
                " --junit " + Path(name + ".xml") + " -o " + Path(name + ".txt"));
    EXPECT_EQ(r.exit_code, expected_exit) << r.err;
    EXPECT_NE(r.err.find("qacc regress: resuming "), std::string::npos) << r.err;
    return ReadWholeFile(dir_ / "calls.log");
  }

  // The uninterrupted regression's reports, `full`.
  void RunWhole() {
    const std::vector<std::string> args = Args("full");
    const CliResult r = RunQacc("regress " + Join(args));
    ASSERT_EQ(r.exit_code, 1) << r.err;  // gemm_n1 and gemm_k1 fail
  }

  void ExpectSameAsWhole(const std::string& name) {
    ExpectSameReport(Json(Path("full.json")), Json(Path(name + ".json")));
    EXPECT_EQ(JunitWithoutTiming(ReadWholeFile(Path("full.xml"))),
              JunitWithoutTiming(ReadWholeFile(Path(name + ".xml"))));
    EXPECT_EQ(SummaryWithoutTiming(ReadWholeFile(Path("full.txt"))),
              SummaryWithoutTiming(ReadWholeFile(Path(name + ".txt"))));
    EXPECT_EQ(TemporaryFiles(dir_), std::vector<std::string>{});
  }
};

// The (test, seed) pairs of a calls.log, one per call.
std::multiset<std::pair<std::string, std::string>> Calls(const std::string& log) {
  std::multiset<std::pair<std::string, std::string>> calls;
  std::istringstream in(log);
  std::string cosim, test_flag, test, seed_flag, seed, rest;
  while (in >> cosim >> test_flag >> test >> seed_flag >> seed) {
    calls.emplace(test, seed);
    std::getline(in, rest);
  }
  return calls;
}

// A resumed regression that stops on a bad argument does not create the coverage directory its
// report names (issue 37).
TEST_F(RegressResume, AFailedResumeCreatesNoCoverageDirectory) {
  std::vector<std::string> args = Args("part");
  args.push_back("--coverage-dir");
  args.push_back(Path("cov/deep"));
  ASSERT_EQ(Interrupt(args, 5, SIGINT), 128 + SIGINT);
  ASSERT_TRUE(fs::is_directory(dir_ / "cov" / "deep"));
  fs::remove_all(dir_ / "cov");
  const CliResult r = RunQacc("regress --resume " + Path("part.json") + " --child-command " +
                              fake_.string() + " --junit /nonexistent/dir/r.xml");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--junit: directory /nonexistent/dir does not exist"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "cov"));
  // The same resume with a writable JUnit path runs and makes the directory.
  const CliResult ok = RunQacc("regress --resume " + Path("part.json") + " --child-command " +
                               fake_.string() + " --junit " + Path("part.xml"));
  EXPECT_EQ(ok.exit_code, 1) << ok.err;  // gemm_n1 and gemm_k1 fail
  EXPECT_TRUE(fs::is_directory(dir_ / "cov" / "deep"));
}

TEST_F(RegressResume, InterruptedRegressionResumesToTheUninterruptedReports) {
  RunWhole();
  const nlohmann::json whole = Json(Path("full.json"));
  EXPECT_EQ(whole["complete"], true);
  EXPECT_EQ(whole["not_run"], 0);
  EXPECT_EQ(whole["interrupted"], nullptr);
  ASSERT_TRUE(whole["coverage"].is_object());
  EXPECT_EQ(whole["coverage"]["hits"]["bin.odd_seed"],
            4);  // gemm_random and gemm_edges, seeds 1, 3

  for (const auto& [sig, name] :
       {std::pair{SIGINT, "SIGINT (2)"}, std::pair{SIGTERM, "SIGTERM (15)"},
        std::pair{SIGHUP, "SIGHUP (1)"}}) {
    SCOPED_TRACE(name);
    fs::remove(dir_ / "calls.log");
    ASSERT_EQ(Interrupt(Args("part"), 5, sig), 128 + sig);

    // The reports of the runs that finished, marked incomplete.
    const nlohmann::json part = Json(Path("part.json"));
    const size_t finished = part["runs"].size();
    EXPECT_GE(finished, 5u);
    EXPECT_LT(finished, 16u);
    EXPECT_EQ(part["complete"], false);
    EXPECT_EQ(part["interrupted"], name);
    EXPECT_EQ(part["not_run"], 16 - finished);
    EXPECT_EQ(part["total"], finished);
    // The runs in flight were killed and are not recorded (no run is a SIGKILL crash); that they
    // were not failures either is checked without timing by RegressCli.SignalsEndEveryChild.
    EXPECT_GE(Calls(ReadWholeFile(dir_ / "calls.log")).size(), finished);
    for (const nlohmann::json& run : part["runs"]) EXPECT_NE(run["signal"], "SIGKILL (9)") << run;
    const std::string xml = ReadWholeFile(Path("part.xml"));
    EXPECT_NE(xml.find("<property name=\"complete\" value=\"false\"/>"), std::string::npos);
    EXPECT_NE(xml.find("<property name=\"interrupted\" value=\"" + std::string(name) + "\"/>"),
              std::string::npos);
    EXPECT_EQ(Count(xml, "<testcase "), finished);
    EXPECT_NE(ReadWholeFile(Path("part.txt"))
                  .find("INCOMPLETE: interrupted by " + std::string(name) + ": " +
                        std::to_string(finished) + " of 16 runs finished, " +
                        std::to_string(16 - finished) + " not run; resume: qacc regress --resume " +
                        Path("part.json")),
              std::string::npos)
        << ReadWholeFile(Path("part.txt"));
    EXPECT_EQ(TemporaryFiles(dir_), std::vector<std::string>{});

    // The resume runs exactly the runs missing from the report.
    std::multiset<std::pair<std::string, std::string>> expected;
    for (const nlohmann::json& run : whole["runs"]) {
      const auto recorded = std::find_if(part["runs"].begin(), part["runs"].end(), [&](auto& r) {
        return r["test"] == run["test"] && r["seed"] == run["seed"];
      });
      if (recorded == part["runs"].end()) {
        expected.emplace(run["test"].get<std::string>(), std::to_string(run["seed"].get<int>()));
      }
    }
    EXPECT_EQ(Calls(Resume("part")), expected);
    ExpectSameAsWhole("part");
  }
}

// A resumed regression interrupted again resumes again; the wall time adds up over the sessions.
TEST_F(RegressResume, InterruptedTwiceResumesTwice) {
  RunWhole();
  ASSERT_EQ(Interrupt(Args("part"), 3, SIGINT), 128 + SIGINT);
  const double first_wall = Json(Path("part.json"))["wall_seconds"];
  const size_t first = Json(Path("part.json"))["runs"].size();
  std::vector<std::string> resume = {"--resume",     Path("part.json"), "--child-command",
                                     fake_.string(), "--junit",         Path("part.xml"),
                                     "-o",           Path("part.txt")};
  ASSERT_EQ(Interrupt(resume, 9, SIGTERM), 128 + SIGTERM);
  const nlohmann::json second = Json(Path("part.json"));
  EXPECT_EQ(second["complete"], false);
  EXPECT_GT(second["runs"].size(), first);
  EXPECT_GT(second["wall_seconds"].get<double>(), first_wall);
  Resume("part");
  ExpectSameAsWhole("part");
}

// Signals that keep coming while the reports are written change nothing: the first one decides the
// exit code, and every report is whole.
TEST_F(RegressResume, MoreSignalsWhileWritingLeaveWholeReports) {
  SetDelay(0.15);
  const fs::path err = dir_ / "err.txt";
  const pid_t regress = StartRegress(Args("part"), err);
  ASSERT_TRUE(WaitForText(err, "[3/16]")) << ReadWholeFile(err);
  kill(regress, SIGINT);
  for (int i = 0; i < 100; ++i) {
    kill(regress, i % 2 ? SIGTERM : SIGINT);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  EXPECT_EQ(WaitExitCode(regress), 128 + SIGINT);
  const nlohmann::json part = Json(Path("part.json"));
  EXPECT_EQ(part["complete"], false);
  EXPECT_EQ(part["interrupted"], "SIGINT (2)");
  EXPECT_NE(ReadWholeFile(Path("part.xml")).find("</testsuites>"), std::string::npos);
  EXPECT_EQ(TemporaryFiles(dir_), std::vector<std::string>{});
}

// -j and the report destinations may change on --resume; the report then says the new -j.
TEST_F(RegressResume, JobsAndDestinationsMayChange) {
  ASSERT_EQ(Interrupt(Args("part"), 4, SIGINT), 128 + SIGINT);
  const std::string before = ReadWholeFile(Path("part.json"));
  const CliResult r = RunQacc("regress --resume " + Path("part.json") + " --child-command " +
                              fake_.string() + " -j 3 --json " + Path("final.json"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(ReadWholeFile(Path("part.json")), before);  // the report resumed from is left alone
  const nlohmann::json final_report = Json(Path("final.json"));
  EXPECT_EQ(final_report["complete"], true);
  EXPECT_EQ(final_report["jobs"], 3);
  EXPECT_EQ(final_report["runs"].size(), 16u);
  EXPECT_NE(r.out.find("16 runs: 8 passed, 8 failed"), std::string::npos) << r.out;
}

// What cannot be resumed is one error naming --resume, the file and the field, before any run.
TEST_F(RegressResume, ReportsThatCannotBeResumedAreOneError) {
  RunWhole();
  ASSERT_EQ(Interrupt(Args("part"), 2, SIGINT), 128 + SIGINT);
  const std::string part_text = ReadWholeFile(Path("part.json"));
  const nlohmann::json part = nlohmann::json::parse(part_text);
  ASSERT_GE(part["runs"].size(), 2u);
  const std::string first = part["runs"][0]["test"].get<std::string>() + " seed " +
                            std::to_string(part["runs"][0]["seed"].get<int>());
  const fs::path config = dir_ / "config.json";
  fs::copy_file(fs::path(QACC_SOURCE_DIR) / "configs" / "default.json", config);

  // Variants of the incomplete report, each broken in one field.
  auto variant = [&](const std::string& name, auto edit) {
    nlohmann::json report = part;
    edit(report);
    std::ofstream(Path(name)) << report.dump(2);
    return Path(name);
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--resume " + Path("full.json"), "field \"complete\" is true: the regression ended"},
      {"--resume " + Path("missing.json"), "--resume: " + Path("missing.json") + ": cannot open"},
      {"--resume " + dir_.string(), "--resume: " + dir_.string() + " is a directory"},
      {"--resume " + Path("full.xml"), "--resume: " + Path("full.xml") + ": not JSON"},
      {"--resume " + variant("no_seed_base.json", [](auto& r) { r.erase("seed_base"); }),
       "not a report qacc regress can resume: field \"seed_base\" is missing"},
      {"--resume " + variant("jobs.json", [](auto& r) { r["jobs"] = "two"; }),
       "field \"jobs\" is \"two\", expected an integer"},
      {"--resume " + variant("status.json", [](auto& r) { r["runs"][1]["status"] = "maybe"; }),
       "field \"runs[1].status\" is \"maybe\", expected one of pass"},
      {"--resume " + variant("seed.json", [](auto& r) { r["runs"][0]["seed"] = 99; }),
       "field \"runs[0]\": " + part["runs"][0]["test"].get<std::string>() +
           " seed 99 is not part of the regression's schedule"},
      {"--resume " + variant("twice.json", [](auto& r) { r["runs"][1] = r["runs"][0]; }),
       "field \"runs[1]\": " + first + " is a second run of the regression's schedule"},
      {"--resume " + variant("tool.json", [](auto& r) { r["tool"]["commit"] = "0123abc"; }),
       "field \"tool\" is qacc"},
      {"--resume " + variant("other_config.json", [&](auto& r) { r["config"] = config.string(); }),
       "field \"config_hash\" is fnv1a64:"},
      {"--resume " + Path("part.json") + " --seeds 5", "--seeds: not with --resume"},
      {"--resume " + Path("part.json") + " --timeout 9", "--timeout: not with --resume"},
      {"--resume " + Path("part.json") + " --memory-limit 9", "--memory-limit: not with --resume"},
      {"--resume " + Path("part.json") + " --list", "--list: not with --resume"},
      {"--resume " + Path("part.json") + " -o " + Path("part.json"),
       "--output and --json: both write"},
  };
  std::ofstream(config, std::ios::app) << "\n";  // the same config, other bytes
  fs::remove(dir_ / "calls.log");
  for (const auto& [args, message] : cases) {
    const CliResult r = Regress(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << args << "\n" << r.out;
  }
  EXPECT_FALSE(fs::exists(dir_ / "calls.log"));  // nothing ran
  EXPECT_EQ(ReadWholeFile(Path("part.json")), part_text);
}

}  // namespace
}  // namespace qacc::testing
