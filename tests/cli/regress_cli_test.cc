// qacc regress as a user runs it, against a fake `qacc cosim` child (--child-command, a shell
// script) that passes, fails, crashes or hangs depending on the test name: argument errors,
// failure/crash/ timeout handling, the JUnit and JSON reports, and the determinism of the schedule.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "sim/testgen/gemm_tests.h"
#include "tests/cli/cli_runner.h"

extern char** environ;

namespace qacc::testing {
namespace {

namespace fs = std::filesystem;

// Arguments: cosim --test NAME --seed N --config FILE --json [--model-only]. Each call appends
// its arguments to calls.log next to the script.
// The check run before the regression (--dry-run) passes and is not logged. gemm_m1 hangs after
// writing its pid (its process group) to hung.<seed>.
constexpr const char* kFakeCosim = R"(#!/bin/sh
dir=$(dirname "$0")
case " $* " in *" --dry-run "*) exit 0 ;; esac
echo "$@" >> "$dir/calls.log"
test=$3
seed=$5
case "$test" in
  gemm_k1) kill -SEGV $$ ;;
  gemm_m1) echo $$ > "$dir/hung.$seed"; sleep 30 ;;
  gemm_n1)
    echo "{\"test\":\"$test\",\"seed\":$seed,\"config\":\"default\",\"mode\":\"lockstep\",\"pass\":false,\"m\":1,\"n\":1,\"k\":1,\"cycles\":500,\"command_cycles\":400,\"wall_seconds\":0.01,\"cycles_per_second\":50000.0,\"mismatches\":{\"mac\":0,\"requant\":3,\"out_write\":1,\"done\":0,\"output\":2},\"first_mismatch\":{\"cycle\":42,\"unit\":\"requant\"},\"reproduce\":\"qacc cosim --test $test --seed $seed\",\"error\":null}"
    exit 1 ;;
  gemm_k1_usage) echo "qacc: error: bad" >&2; exit 2 ;;
  *)
    echo "{\"test\":\"$test\",\"seed\":$seed,\"config\":\"default\",\"mode\":\"lockstep\",\"pass\":true,\"m\":4,\"n\":4,\"k\":4,\"cycles\":1000,\"command_cycles\":900,\"wall_seconds\":0.001,\"cycles_per_second\":1000000.0,\"mismatches\":{\"mac\":0,\"requant\":0,\"out_write\":0,\"done\":0,\"output\":0},\"first_mismatch\":null,\"reproduce\":\"qacc cosim --test $test --seed $seed\",\"error\":null}" ;;
esac
)";

class RegressCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir(std::string("regress_") +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fake_ = dir_ / "fake_cosim.sh";
    std::ofstream(fake_) << kFakeCosim;
    fs::permissions(fake_, fs::perms::owner_all);
  }
  void TearDown() override { fs::remove_all(dir_); }

  CliResult Regress(const std::string& args) {
    return RunQacc("regress --child-command " + fake_.string() + " " + args);
  }
  nlohmann::json Json(const fs::path& path) { return nlohmann::json::parse(ReadWholeFile(path)); }

  fs::path dir_, fake_;
};

size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) {
    ++count;
  }
  return count;
}

TEST_F(RegressCli, BadArgumentsExit2NamingTheOption) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--suite nope --seeds 1", "--suite"},
      {"--suite gemm --seeds 0", "--seeds"},
      {"--suite gemm --seeds 1 -j 0", "-j"},
      {"--suite gemm --seeds 1 --tests gemm_random,gemm_nope", "--tests"},
      {"--suite gemm --seeds 1 --timeout 0", "--timeout"},
      {"--suite gemm --seeds 1 --config /nonexistent/x.json", "--config"},
      {"--suite gemm --seeds 1 --junit /nonexistent/dir/r.xml", "--junit"},
      {"--suite gemm", "--seeds"},
      {"--suite gemm --seeds abc", "--seeds: Value abc not in range 1 to"},
      {"--suite gemm --seeds 1 -j 2000", "--jobs: Value 2000 not in range 1 to 1024"},
      {"--suite gemm --seeds 1 --timeout x",
       "--timeout: x is not allowed, must be a finite number > 0"},
      {"--seeds 1", "--suite: required"},
  };
  for (const auto& [args, option] : cases) {
    const CliResult r = Regress(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(option), std::string::npos) << args << "\n" << r.err;
  }
  const CliResult unknown = Regress("--suite gemm --seeds 1 --tests gemm_nope");
  EXPECT_NE(unknown.err.find("gemm_nope"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("gemm_random"), std::string::npos)
      << unknown.err;                            // valid names listed
  EXPECT_FALSE(fs::exists(dir_ / "calls.log"));  // nothing ran
}

// --fail-fast (qacc validate's per-mutant regression): no run starts after the first failure, the report lists
// the runs that ran and says so; --mutant and --coverage-dir reach every child (whose own reproduce line,
// from qacc cosim, carries --mutant).
TEST_F(RegressCli, FailFastStopsAtTheFirstFailureAndPassesTheMutantOn) {
  const fs::path json = dir_ / "report.json";
  const CliResult r = Regress("--suite gemm --seeds 3 -j 1 --fail-fast --mutant 7 --coverage-dir " +
                              (dir_ / "cov").string() + " --tests gemm_random,gemm_n1,gemm_edges --json " +
                              json.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string calls = ReadWholeFile(dir_ / "calls.log");
  EXPECT_EQ(Count(calls, "cosim --test"), 2u) << calls;  // gemm_random seed 1, then gemm_n1 fails
  EXPECT_EQ(Count(calls, "--mutant 7"), 2u) << calls;
  EXPECT_NE(calls.find("--coverage " + (dir_ / "cov" / "gemm_n1.1.dat").string()), std::string::npos) << calls;
  const nlohmann::json report = Json(json);
  EXPECT_EQ(report["runs"].size(), 2u);
  EXPECT_EQ(report["fail_fast"], true);
  EXPECT_EQ(report["mutant"], 7);
  EXPECT_NE(r.out.find("stopped at the first failure (--fail-fast): 2 of 9 runs ran"), std::string::npos)
      << r.out;
}

TEST_F(RegressCli, FailuresCrashesAndHangsAreRecordedAndTheRestGoesOn) {
  const fs::path junit = dir_ / "report.xml", json = dir_ / "report.json";
  const CliResult r = Regress(
      "--suite gemm --seeds 2 --tests gemm_random,gemm_k1,gemm_m1,gemm_n1 "
      "-j 3 --timeout 1 --junit " +
      junit.string() + " --json " + json.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("8 runs: 2 passed, 6 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reproduce: qacc cosim --test gemm_n1 --seed 1"), std::string::npos)
      << r.out;

  const nlohmann::json report = Json(json);
  ASSERT_EQ(report["runs"].size(), 8u);
  EXPECT_EQ(report["passed"], 2);
  EXPECT_EQ(report["failed"], 6);
  for (const auto& run : report["runs"]) {
    const std::string test = run["test"];
    if (test == "gemm_random") {
      EXPECT_EQ(run["status"], "pass");
      EXPECT_EQ(run["cycles"], 1000);
      EXPECT_EQ(run["result"]["pass"], true);
    } else if (test == "gemm_k1") {
      EXPECT_EQ(run["status"], "crash");
      EXPECT_NE(run["message"].get<std::string>().find("SIGSEGV"), std::string::npos) << run;
    } else if (test == "gemm_m1") {
      EXPECT_EQ(run["status"], "timeout");
      EXPECT_LT(run["wall_seconds"].get<double>(), 10.0);  // killed, not waited for
    } else {
      EXPECT_EQ(run["status"], "fail");
      EXPECT_EQ(run["exit_code"], 1);
      EXPECT_NE(run["message"].get<std::string>().find("requant=3"), std::string::npos) << run;
    }
  }

  const std::string xml = ReadWholeFile(junit);
  EXPECT_EQ(xml.rfind("<?xml", 0), 0u);
  EXPECT_EQ(Count(xml, "<testcase "), 8u);
  EXPECT_EQ(Count(xml, "<failure "), 2u);  // gemm_n1 mismatches
  EXPECT_EQ(Count(xml, "<error "), 4u);    // crashes and timeouts
  EXPECT_NE(xml.find("tests=\"8\" failures=\"2\" errors=\"4\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("</testsuites>"), std::string::npos);
  EXPECT_EQ(Count(xml, "</testcase>"), 6u);  // the failed ones carry a body
  // No temporary files left behind by the atomic writes.
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    files += entry.is_regular_file() && entry.path().filename().string().rfind("hung.", 0) != 0;
  }
  EXPECT_EQ(files, 4u);  // fake_cosim.sh, calls.log, report.xml, report.json (and hung.*)
}

TEST_F(RegressCli, AllPassExitsZeroAndPassesOptionsToTheChild) {
  const fs::path config = fs::path(QACC_SOURCE_DIR) / "configs" / "rect_4x16.json";
  const CliResult r = Regress(
      "--suite gemm --seeds 3 --tests gemm_random,gemm_edges --model-only "
      "--config " +
      config.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("6 runs: 6 passed, 0 failed"), std::string::npos) << r.out;
  const std::string calls = ReadWholeFile(dir_ / "calls.log");
  EXPECT_EQ(Count(calls, "\n"), 6u);
  EXPECT_EQ(Count(calls, "--model-only"), 6u);
  EXPECT_EQ(Count(calls, "--config " + config.string()), 6u);
  EXPECT_EQ(Count(calls, "cosim --test gemm_edges --seed 3 "), 1u) << calls;
}

TEST_F(RegressCli, ScheduleIsSeedMajorAndIndependentOfParallelism) {
  std::vector<std::vector<std::pair<std::string, int>>> orders;
  for (const char* jobs : {"1", "4"}) {
    const fs::path json = dir_ / (std::string("r") + jobs + ".json");
    const CliResult r =
        Regress(std::string("--suite gemm --seeds 3 --seed-base 10 -j ") + jobs +
                " --tests gemm_edges,gemm_random,gemm_k1_x --json " + json.string());
    ASSERT_EQ(r.exit_code, 2);  // gemm_k1_x is not a test
    const CliResult ok = Regress(std::string("--suite gemm --seeds 3 --seed-base 10 -j ") + jobs +
                                 " --tests gemm_edges,gemm_random --json " + json.string());
    ASSERT_EQ(ok.exit_code, 0) << ok.err;
    std::vector<std::pair<std::string, int>> order;
    const nlohmann::json report = Json(json);
    for (const auto& run : report["runs"]) order.emplace_back(run["test"], run["seed"]);
    orders.push_back(order);
  }
  const std::vector<std::pair<std::string, int>> expected = {
      {"gemm_edges", 10},  {"gemm_random", 10}, {"gemm_edges", 11},
      {"gemm_random", 11}, {"gemm_edges", 12},  {"gemm_random", 12}};
  EXPECT_EQ(orders[0], expected);
  EXPECT_EQ(orders[1], expected);
}

TEST_F(RegressCli, WholeSuiteRunsEveryTestOnce) {
  const fs::path json = dir_ / "r.json";
  const CliResult r = Regress("--suite gemm --seeds 1 -j 4 --timeout 1 --json " + json.string());
  EXPECT_EQ(r.exit_code, 1);  // gemm_k1 crashes, gemm_m1 hangs, gemm_n1 fails
  const nlohmann::json report = Json(json);
  EXPECT_GE(report["total"].get<int>(), 20);
  EXPECT_EQ(report["failed"], 3);
  std::set<std::string> tests;
  for (const auto& run : report["runs"]) EXPECT_TRUE(tests.insert(run["test"]).second) << run;
  EXPECT_EQ(tests.count("conv_im2col"), 1u);
}

TEST_F(RegressCli, EmptyTestListIsAnError) {
  const CliResult r = Regress("--suite gemm --seeds 1 --tests ''");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--tests: the list is empty"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "calls.log"));
}

TEST_F(RegressCli, ReportPathsAreCheckedBeforeAnyRun) {
  const std::string a = (dir_ / "a").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--json " + a + " --junit " + a, "--json and --junit: both write"},
      {"--json " + a + " -o " + (dir_ / "." / "a").string(), "--output and --json: both write"},
      {"--json - --junit -", "both write standard output"},
      {"--json " + dir_.string(), "--json: " + dir_.string() + " is a directory"},
      {"--junit /proc/x.xml", "--junit: cannot create a file in /proc"},
      {"--json ''", "--json: the file name is empty"},
      {"-o /nonexistent/s.txt", "--output: directory /nonexistent does not exist"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = Regress("--suite gemm --seeds 1 --tests gemm_random " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "calls.log"));  // nothing ran
  EXPECT_FALSE(fs::exists(a));
}

TEST_F(RegressCli, DashIsStandardOutput) {
  const bool dash_before = fs::exists("-");
  const CliResult r = Regress("--suite gemm --seeds 2 --tests gemm_random,gemm_edges --json -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);  // stdout is the report alone
  EXPECT_EQ(report["runs"].size(), 4u);
  EXPECT_NE(r.err.find("4 runs: 4 passed"), std::string::npos) << r.err;  // the summary moved
  EXPECT_EQ(fs::exists("-"), dash_before);

  const CliResult junit = Regress("--suite gemm --seeds 1 --tests gemm_random --junit -");
  ASSERT_EQ(junit.exit_code, 0) << junit.err;
  EXPECT_EQ(junit.out.rfind("<?xml", 0), 0u) << junit.out;
  EXPECT_EQ(Count(junit.out, "<testcase "), 1u);
}

TEST_F(RegressCli, SummaryToAFileWithDashO) {
  const fs::path summary = dir_ / "summary.txt";
  const CliResult r = Regress("--suite gemm --seeds 1 --tests gemm_random -o " + summary.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(ReadWholeFile(summary).find("1 runs: 1 passed, 0 failed"), std::string::npos);
}

TEST_F(RegressCli, SeedsAreTheSeedsGivenOrAnError) {
  const fs::path json = dir_ / "r.json";
  const CliResult top = Regress(
      "--suite gemm --seeds 1 --tests gemm_random --seed-base 18446744073709551615 --json " +
      json.string());
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_EQ(Json(json)["runs"][0]["seed"].get<uint64_t>(), 18446744073709551615u);
  EXPECT_NE(ReadWholeFile(dir_ / "calls.log").find("--seed 18446744073709551615 "),
            std::string::npos);
  for (const std::string& args :
       {std::string("--seeds 2 --seed-base 18446744073709551615"), std::string("--seed-base -1"),
        std::string("--seed-base abc"), std::string("--seed-base 18446744073709551616")}) {
    const std::string seeds = args.find("--seeds") == std::string::npos ? "--seeds 1 " : "";
    const CliResult r = Regress("--suite gemm --tests gemm_random " + seeds + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("--seed"), std::string::npos) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("0..18446744073709551615"), std::string::npos) << args << "\n" << r.err;
  }
}

// The real `qacc cosim` exists only in a build with Verilator and SystemC.
bool HasCosim() { return RunQacc("cosim --help").exit_code == 0; }

TEST_F(RegressCli, ListNamesEverySuiteAndTest) {
  const CliResult r = RunQacc("regress --list");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("suite gemm"), std::string::npos) << r.out;
  for (const sim::GemmTestInfo& info : sim::GemmTests()) {
    EXPECT_NE(r.out.find("  " + info.name + " "), std::string::npos) << info.name;
  }
  if (!HasCosim()) GTEST_SKIP() << "built without the co-simulation: no `qacc cosim --help`";
  const CliResult help = RunQacc("cosim --help");
  for (const sim::GemmTestInfo& info : sim::GemmTests()) {
    EXPECT_NE(help.out.find(info.name), std::string::npos) << info.name;
  }
}

TEST_F(RegressCli, ReportsNameConfigToolAndTime) {
  const fs::path junit = dir_ / "r.xml", json = dir_ / "r.json";
  const fs::path config = fs::path(QACC_SOURCE_DIR) / "configs" / "rect_4x16.json";
  ASSERT_EQ(Regress("--suite gemm --seeds 1 --tests gemm_random,gemm_n1 --config " +
                    config.string() + " --junit " + junit.string() + " --json " + json.string())
                .exit_code,
            1);
  const std::string xml = ReadWholeFile(junit);
  EXPECT_NE(xml.find("<testcase classname=\"gemm.rect_4x16.gemm_random\" "
                     "name=\"gemm_random.seed1.rect_4x16\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testsuite name=\"gemm.rect_4x16\""), std::string::npos) << xml;
  for (const char* what : {" timestamp=\"20", " hostname=\"", "<properties>",
                           "<property name=\"config\" value=\"" QACC_SOURCE_DIR,
                           "<property name=\"tool_version\" value=\"qacc ",
                           "<property name=\"tool_commit\" value=\""}) {
    EXPECT_NE(xml.find(what), std::string::npos) << what << "\n" << xml;
  }
  const nlohmann::json report = Json(json);
  EXPECT_EQ(report["config"], config.string());
  EXPECT_EQ(report["config_name"], "rect_4x16");
  EXPECT_EQ(report["tool"]["version"].get<std::string>().rfind("qacc ", 0), 0u);
  EXPECT_FALSE(report["tool"]["commit"].get<std::string>().empty());
  EXPECT_EQ(report["timestamp"].get<std::string>().size(), 20u);  // 2026-11-22T21:05:09Z
  EXPECT_FALSE(report["hostname"].get<std::string>().empty());

  // The default config is named too, not null.
  ASSERT_EQ(Regress("--suite gemm --seeds 1 --tests gemm_random --json " + json.string()).exit_code,
            0);
  EXPECT_EQ(Json(json)["config"], std::string(QACC_SOURCE_DIR) + "/configs/default.json");
}

TEST_F(RegressCli, ReportsRespectTheUmask) {
  for (const auto& [mask, mode] : {std::pair{"022", 0644}, std::pair{"077", 0600}}) {
    const fs::path json = dir_ / "r.json", xml = dir_ / "r.xml", summary = dir_ / "s.txt";
    const std::string command =
        std::string("umask ") + mask + "; " + QACC_BINARY + " regress --child-command " +
        fake_.string() + " --suite gemm --seeds 1 --tests gemm_random --json " + json.string() +
        " --junit " + xml.string() + " -o " + summary.string() + " 2>/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0);
    for (const fs::path& path : {json, xml, summary}) {
      struct stat st {};
      ASSERT_EQ(stat(path.c_str(), &st), 0) << path;
      EXPECT_EQ(st.st_mode & 0777, unsigned(mode)) << path << " umask " << mask;
      fs::remove(path);
    }
  }
}

// A real preflight (`qacc cosim --dry-run`): a config without an RTL build is one error up front.
TEST(RegressPreflight, ConfigWithoutRtlBuildIsOneErrorUpFront) {
  if (!HasCosim()) GTEST_SKIP() << "built without the co-simulation: no `qacc cosim`";
  const auto dir = ScratchDir("regress_preflight");
  const auto config = dir / "big.json";
  std::ofstream(config) << R"({"name": "big", "array": {"rows": 16, "cols": 16}})";
  const CliResult r = RunQacc("regress --suite gemm --seeds 3 --config " + config.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("every run would fail: --config: no Verilated qacc_top"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("[1/"), std::string::npos) << "a run started:\n" << r.err;
  fs::remove_all(dir);
}

// Starts `qacc regress ARGS` in the background with stderr to `err`; returns its pid.
pid_t StartRegress(const std::vector<std::string>& args, const fs::path& err) {
  std::vector<std::string> argv = {QACC_BINARY, "regress"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> c_argv;
  for (std::string& arg : argv) c_argv.push_back(arg.data());
  c_argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  posix_spawn(&pid, c_argv[0], &actions, nullptr, c_argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

bool GroupAlive(pid_t pgid) { return kill(-pgid, 0) == 0; }

// A killed process stays in its group until its new parent reaps it: wait a little for that.
bool GroupGone(pid_t pgid) {
  for (int i = 0; i < 100 && GroupAlive(pgid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return !GroupAlive(pgid);
}

// Ctrl-C (SIGINT) or SIGTERM ends the hung children's process groups too, and leaves no report.
TEST_F(RegressCli, SignalsEndEveryChild) {
  for (int sig : {SIGINT, SIGTERM}) {
    const fs::path json = dir_ / "r.json", err = dir_ / "err.txt";
    const pid_t regress =
        StartRegress({"--child-command", fake_.string(), "--suite", "gemm", "--seeds", "2",
                      "--tests", "gemm_m1", "-j", "2", "--json", json.string()},
                     err);
    ASSERT_GT(regress, 0);
    // Both children hang in `sleep 30` once they have written their pids.
    std::vector<pid_t> children;
    for (int i = 0; i < 200 && children.size() < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      children.clear();
      for (const char* seed : {"1", "2"}) {
        std::ifstream in(dir_ / (std::string("hung.") + seed));
        pid_t pid = 0;
        if (in >> pid) children.push_back(pid);
      }
    }
    ASSERT_EQ(children.size(), 2u);
    for (pid_t child : children) EXPECT_TRUE(GroupAlive(child));
    kill(regress, sig);
    int status = 0;
    ASSERT_EQ(waitpid(regress, &status, 0), regress);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
    for (pid_t child : children) EXPECT_TRUE(GroupGone(child)) << "child group " << child;
    EXPECT_NE(ReadWholeFile(err).find("interrupted by SIG"), std::string::npos)
        << ReadWholeFile(err);
    EXPECT_FALSE(fs::exists(json));
    for (const auto& entry : fs::directory_iterator(dir_)) {
      EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
    }
    for (const char* seed : {"1", "2"}) fs::remove(dir_ / (std::string("hung.") + seed));
  }
}

long ResidentKb(pid_t pid) {
  const std::string status = ReadWholeFile("/proc/" + std::to_string(pid) + "/status");
  const auto pos = status.find("VmRSS:");
  return pos == std::string::npos ? -1 : std::stol(status.substr(pos + 6));
}

// 10^8 seeds: runs start at once and memory does not grow with the runs (the schedule is not built
// up front; reports are streamed). Growth, not size, is checked: sanitizers add a large constant.
TEST_F(RegressCli, HugeSeedCountsStream) {
  const fs::path err = dir_ / "err.txt";
  const pid_t regress = StartRegress({"--child-command", fake_.string(), "--suite", "gemm",
                                      "--seeds", "100000000", "--tests", "gemm_random", "-j", "2"},
                                     err);
  ASSERT_GT(regress, 0);
  auto wait_for = [&](const std::string& line) {
    for (int i = 0; i < 200; ++i) {
      if (ReadWholeFile(err).find(line) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
  };
  EXPECT_TRUE(wait_for("[3/100000000] PASS")) << ReadWholeFile(err);
  const long before = ResidentKb(regress);
  EXPECT_TRUE(wait_for("[40/100000000] PASS")) << ReadWholeFile(err);
  const long after = ResidentKb(regress);
  ASSERT_GT(before, 0);
  EXPECT_LT(after - before, 8 * 1024) << "kB grown over 37 runs: " << before << " -> " << after;
  kill(regress, SIGTERM);
  int code = 0;
  ASSERT_EQ(waitpid(regress, &code, 0), regress);
  EXPECT_EQ(WEXITSTATUS(code), 128 + SIGTERM);
}

}  // namespace
}  // namespace qacc::testing
