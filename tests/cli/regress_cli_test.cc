// qacc regress as a user runs it, against a fake `qacc cosim` child (--child-command, a shell
// script: tests/cli/regress_fake.h) that passes, fails, crashes, hangs or runs out of memory
// depending on the test name: argument errors, failure/crash/timeout/memory handling, the JUnit and
// JSON reports, signals, and the determinism of the schedule. Interrupted regressions and --resume:
// regress_resume_test.cc.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "sim/build_paths.h"
#include "sim/testgen/gemm_tests.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/regress_fake.h"
#include "tests/qacc_binary.h"

namespace qacc::testing {
namespace {

namespace fs = std::filesystem;

using RegressCli = RegressFixture;

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

// A rebuild during a long regression replaces the qacc file: the runs after it still start (each
// is spawned through qacc's own memory-limit wrapper, asked for explicitly since a sanitizer build
// defaults to none) from the binary the regression began with.
TEST_F(RegressCli, RunsGoOnWhenTheBinaryIsReplaced) {
  const fs::path copy = dir_ / "qacc";
  fs::copy_file(QACC_BINARY, copy);
  SetDelay(0.5);
  const pid_t pid =
      StartRegress({"--child-command", fake_.string(), "--suite", "gemm", "--seeds", "3", "-j", "1",
                    "--tests", "gemm_random", "--memory-limit", "4096"},
                   dir_ / "err.txt", false, copy.string());
  ASSERT_TRUE(WaitForText(dir_ / "calls.log", "cosim --test"));
  fs::remove(copy);
  std::ofstream(copy) << "#!/bin/sh\nexit 99\n";
  fs::permissions(copy, fs::perms::owner_all);
  EXPECT_EQ(WaitExitCode(pid), 0) << ReadWholeFile(dir_ / "err.txt");
  EXPECT_EQ(Count(ReadWholeFile(dir_ / "calls.log"), "cosim --test"), 3u);
}

// --fail-fast (qacc validate's per-mutant regression): no run starts after the first failure, the
// report lists the runs that ran and says so; --mutant and --coverage-dir reach every child (whose
// own reproduce line, from qacc cosim, carries --mutant).
TEST_F(RegressCli, FailFastStopsAtTheFirstFailureAndPassesTheMutantOn) {
  const fs::path json = dir_ / "report.json";
  const CliResult r = Regress("--suite gemm --seeds 3 -j 1 --fail-fast --mutant 7 --coverage-dir " +
                              (dir_ / "cov").string() +
                              " --tests gemm_random,gemm_n1,gemm_edges --json " + json.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string calls = ReadWholeFile(dir_ / "calls.log");
  EXPECT_EQ(Count(calls, "cosim --test"), 2u) << calls;  // gemm_random seed 1, then gemm_n1 fails
  EXPECT_EQ(Count(calls, "--mutant 7"), 2u) << calls;
  EXPECT_NE(calls.find("--coverage " + (dir_ / "cov" / "gemm_n1.1.dat").string()),
            std::string::npos)
      << calls;
  const nlohmann::json report = Json(json);
  EXPECT_EQ(report["runs"].size(), 2u);
  EXPECT_EQ(report["fail_fast"], true);
  EXPECT_EQ(report["mutant"], 7);
  EXPECT_NE(r.out.find("stopped at the first failure (--fail-fast): 2 of 9 runs ran"),
            std::string::npos)
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

// An unwritable report path is one error naming the option and the path, before any run, and
// leaves no file behind: two reports on one path, a directory, a missing directory, a pseudo file
// system, a read-only directory.
TEST_F(RegressCli, ReportPathsAreCheckedBeforeAnyRun) {
  const std::string a = (dir_ / "a").string();
  const fs::path read_only = dir_ / "read_only";
  fs::create_directory(read_only);
  fs::permissions(read_only, fs::perms::owner_read | fs::perms::owner_exec);
  std::vector<std::pair<std::string, std::string>> cases = {
      {"--json " + a + " --junit " + a, "--json and --junit: both write"},
      {"--json " + a + " -o " + (dir_ / "." / "a").string(), "--output and --json: both write"},
      {"--json - --junit -", "both write standard output"},
      {"--json " + dir_.string(), "--json: " + dir_.string() + " is a directory"},
      {"--junit /proc/x.xml", "--junit: cannot create a file in /proc"},
      {"--json /sys/r.json", "--json: cannot create a file in /sys"},
      {"--json ''", "--json: the file name is empty"},
      {"-o /nonexistent/s.txt", "--output: directory /nonexistent does not exist"},
      {"--junit " + (dir_ / "missing" / "r.xml").string(),
       "--junit: directory " + (dir_ / "missing").string() + " does not exist"},
  };
  // Root writes into a read-only directory all the same.
  if (geteuid() != 0) {
    cases.emplace_back("-o " + (read_only / "s.txt").string(),
                       "--output: cannot create a file in " + read_only.string());
  }
  for (const auto& [args, message] : cases) {
    const CliResult r = Regress("--suite gemm --seeds 1 --tests gemm_random " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << args << "\n" << r.out;
  }
  EXPECT_FALSE(fs::exists(dir_ / "calls.log"));  // nothing ran
  std::set<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir_)) left.insert(entry.path().filename());
  EXPECT_EQ(left, (std::set<std::string>{"fake_cosim.sh", "read_only"}));
  EXPECT_TRUE(fs::is_empty(read_only));
  fs::permissions(read_only, fs::perms::owner_all);
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

// --list --suite lists that suite; an unknown suite and an option that --list would ignore are
// errors (issue 37: `--list --suite bogus` listed every suite).
TEST_F(RegressCli, ListWithSuiteListsThatSuiteAndRefusesWhatItWouldIgnore) {
  const CliResult dma = RunQacc("regress --list --suite dma");
  ASSERT_EQ(dma.exit_code, 0) << dma.err;
  EXPECT_NE(dma.out.find("suite dma"), std::string::npos) << dma.out;
  EXPECT_EQ(dma.out.find("suite gemm"), std::string::npos) << dma.out;
  EXPECT_EQ(dma.out.find("suite all"), std::string::npos) << dma.out;
  const CliResult all = RunQacc("regress --list --suite all");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out, RunQacc("regress --list").out);
  for (const auto& [args, message] :
       {std::pair{"--list --suite bogus", "--suite: unknown suite 'bogus'"},
        std::pair{"--list --suite gemm --seeds 3", "--seeds: not with --list"},
        std::pair{"--list --model-only", "--model-only: not with --list"}}) {
    const CliResult r = RunQacc(std::string("regress ") + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << args << "\n" << r.out;
  }
}

// A regression that stops on a bad argument creates nothing: --coverage-dir and its parents are
// made only once every argument, the report paths and the check run (`qacc cosim --dry-run`) have
// passed (issue 37: the directory was made, then the check run failed, exit 2).
TEST_F(RegressCli, AFailedRegressionCreatesNoCoverageDirectory) {
  const fs::path cov = dir_ / "new" / "cov";
  const CliResult junit = Regress("--suite gemm --seeds 1 --tests gemm_random --coverage-dir " +
                                  cov.string() + " --junit /nonexistent/dir/r.xml");
  EXPECT_EQ(junit.exit_code, 2) << junit.err;
  EXPECT_NE(junit.err.find("--junit: directory /nonexistent/dir does not exist"), std::string::npos)
      << junit.err;
  EXPECT_FALSE(fs::exists(dir_ / "new"));
  const fs::path file = dir_ / "file";
  std::ofstream(file) << "x";
  const CliResult not_dir =
      Regress("--suite gemm --seeds 1 --coverage-dir " + (file / "cov").string());
  EXPECT_EQ(not_dir.exit_code, 2) << not_dir.err;
  EXPECT_NE(not_dir.err.find("--coverage-dir: " + (file / "cov").string() + ": " + file.string() +
                             " is not a directory"),
            std::string::npos)
      << not_dir.err;
  if (HasCosim()) {
    // The real check run: the release RTL build has no Verilator coverage.
    const CliResult real =
        RunQacc("regress --suite gemm --seeds 1 --tests gemm_k1 --coverage-dir " + cov.string());
    EXPECT_EQ(real.exit_code, 2) << real.err;
    EXPECT_NE(real.err.find("has no Verilator coverage"), std::string::npos) << real.err;
    EXPECT_TRUE(real.out.empty()) << real.out;
    EXPECT_FALSE(fs::exists(dir_ / "new"));
  }
  // With every argument right, the directory is made, parents included.
  const CliResult ok =
      Regress("--suite gemm --seeds 1 --tests gemm_random --coverage-dir " + cov.string());
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(fs::is_directory(cov));
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
  for (const std::string& what : std::vector<std::string>{
           " timestamp=\"20", " hostname=\"", "<properties>",
           "<property name=\"config\" value=\"" + std::string(QACC_SOURCE_DIR),
           "<property name=\"tool_version\" value=\"qacc ", "<property name=\"tool_commit\" value=\""}) {
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

// The pids (process groups) of the hung gemm_m1 children of `seeds`, once they have all started.
std::vector<pid_t> HungChildren(const fs::path& dir, int seeds) {
  std::vector<pid_t> children;
  for (int i = 0; i < 200 && int(children.size()) < seeds; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    children.clear();
    for (int seed = 1; seed <= seeds; ++seed) {
      std::ifstream in(dir / ("hung." + std::to_string(seed)));
      pid_t pid = 0;
      if (in >> pid) children.push_back(pid);
    }
  }
  return children;
}

// Ctrl-C (SIGINT), SIGTERM or SIGHUP ends the hung children's process groups too, and writes the
// report marked incomplete: the runs killed in flight are not run, not failures.
TEST_F(RegressCli, SignalsEndEveryChild) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    const fs::path json = dir_ / "r.json", err = dir_ / "err.txt";
    const pid_t regress =
        StartRegress({"--child-command", fake_.string(), "--suite", "gemm", "--seeds", "2",
                      "--tests", "gemm_m1", "-j", "2", "--json", json.string()},
                     err);
    ASSERT_GT(regress, 0);
    // Both children hang in `sleep 30` once they have written their pids.
    const std::vector<pid_t> children = HungChildren(dir_, 2);
    ASSERT_EQ(children.size(), 2u);
    for (pid_t child : children) EXPECT_TRUE(GroupAlive(child));
    kill(regress, sig);
    EXPECT_EQ(WaitExitCode(regress), 128 + sig);
    for (pid_t child : children) EXPECT_TRUE(GroupGone(child)) << "child group " << child;
    EXPECT_NE(ReadWholeFile(err).find("INCOMPLETE: interrupted by SIG"), std::string::npos)
        << ReadWholeFile(err);
    const nlohmann::json report = Json(json);
    EXPECT_EQ(report["complete"], false);
    EXPECT_EQ(report["runs"].size(), 0u);
    EXPECT_EQ(report["not_run"], 2);
    EXPECT_EQ(report["failed"], 0);
    EXPECT_EQ(TemporaryFiles(dir_), std::vector<std::string>{});
    for (const char* seed : {"1", "2"}) fs::remove(dir_ / (std::string("hung.") + seed));
  }
}

// A stop signal that was ignored when the regression started stays ignored: `nohup qacc regress`
// goes on after a hangup.
TEST_F(RegressCli, NohupKeepsSighupIgnored) {
  const fs::path json = dir_ / "r.json", err = dir_ / "err.txt";
  const pid_t regress =
      StartRegress({"--child-command", fake_.string(), "--suite", "gemm", "--seeds", "1", "--tests",
                    "gemm_m1", "--json", json.string()},
                   err, /*nohup=*/true);
  ASSERT_GT(regress, 0);
  ASSERT_EQ(HungChildren(dir_, 1).size(), 1u);
  kill(regress, SIGHUP);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(waitpid(regress, nullptr, WNOHANG), 0) << "stopped by an ignored SIGHUP";
  kill(regress, SIGTERM);
  EXPECT_EQ(WaitExitCode(regress), 128 + SIGTERM);
  EXPECT_EQ(Json(json)["interrupted"], "SIGTERM (15)");
}

// A child killed from outside (a user, the kernel's out-of-memory killer) is a crash with its
// reproduce line; the regression goes on.
TEST_F(RegressCli, ChildKilledFromOutsideIsACrash) {
  const fs::path json = dir_ / "r.json", err = dir_ / "err.txt";
  const pid_t regress =
      StartRegress({"--child-command", fake_.string(), "--suite", "gemm", "--seeds", "1", "--tests",
                    "gemm_m1,gemm_random", "--json", json.string()},
                   err);
  ASSERT_GT(regress, 0);
  const std::vector<pid_t> children = HungChildren(dir_, 1);
  ASSERT_EQ(children.size(), 1u);
  kill(children[0], SIGKILL);
  EXPECT_EQ(WaitExitCode(regress), 1);
  const nlohmann::json report = Json(json);
  ASSERT_EQ(report["runs"].size(), 2u) << report.dump(2);
  const nlohmann::json& killed = report["runs"][0];
  EXPECT_EQ(killed["status"], "crash");
  EXPECT_EQ(killed["signal"], "SIGKILL (9)");
  EXPECT_NE(killed["message"].get<std::string>().find("out-of-memory killer"), std::string::npos)
      << killed;
  EXPECT_EQ(killed["reproduce"].get<std::string>().rfind("qacc cosim --test gemm_m1 --seed 1 ", 0),
            0u)
      << killed;
  EXPECT_EQ(report["runs"][1]["status"], "pass");
  EXPECT_EQ(report["complete"], true);
}

// A run that exhausts --memory-limit is recorded as out of memory, with a reproduce line under the
// same limit; the others go on. The fake allocates only under a limit of 1 GB at most.
TEST_F(RegressCli, RunOutOfMemoryIsAFailureAndTheRestGoesOn) {
  const fs::path json = dir_ / "r.json", xml = dir_ / "r.xml";
  const CliResult r = Regress(
      "--suite program --seeds 2 --tests prog_chain,prog_corners --memory-limit 64 --timeout 60 "
      "-j 2 --json " +
      json.string() + " --junit " + xml.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(ReadWholeFile(dir_ / "limit.1"), "65536\n");  // KB: the limit reached the child
  const nlohmann::json report = Json(json);
  ASSERT_EQ(report["runs"].size(), 4u);
  EXPECT_EQ(report["memory_limit_mb"], 64);
  for (const nlohmann::json& run : report["runs"]) {
    if (run["test"] == "prog_chain") {
      EXPECT_EQ(run["status"], "pass") << run;
      continue;
    }
    EXPECT_EQ(run["status"], "oom") << run;
    EXPECT_EQ(run["message"].get<std::string>().rfind("out of memory (limit 64 MB): ", 0), 0u)
        << run;
    EXPECT_NE(run["stderr_tail"].get<std::string>().find("memory exhausted"), std::string::npos)
        << run;
    EXPECT_EQ(run["reproduce"].get<std::string>().rfind(
                  "prlimit --as=67108864 qacc cosim --test prog_corners --seed ", 0),
              0u)
        << run;
  }
  EXPECT_NE(r.out.find("4 runs: 2 passed, 2 failed"), std::string::npos) << r.out;
  EXPECT_EQ(Count(ReadWholeFile(xml), "<error type=\"oom\""), 2u);
}

// --memory-limit 0 runs the children without a limit; a limit too small for a run to start is one
// error up front.
TEST_F(RegressCli, MemoryLimitZeroIsNoneAndTooSmallIsAnError) {
  const fs::path json = dir_ / "r.json";
  const CliResult none = Regress(
      "--suite program --seeds 1 --tests prog_corners --memory-limit 0 "
      "--json " +
      json.string());
  EXPECT_EQ(none.exit_code, 1) << none.err;
  EXPECT_EQ(ReadWholeFile(dir_ / "limit.1"), "unlimited\n");
  EXPECT_EQ(Json(json)["runs"][0]["status"], "fail");  // the fake refuses to allocate: exit 3

  fs::remove(dir_ / "calls.log");
  const CliResult tiny = Regress("--suite program --seeds 1 --tests prog_chain --memory-limit 1");
  EXPECT_EQ(tiny.exit_code, 2) << tiny.err;
  EXPECT_NE(tiny.err.find("--memory-limit: 1 MB is too small for a run to start"),
            std::string::npos)
      << tiny.err;
  EXPECT_FALSE(fs::exists(dir_ / "calls.log"));
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
  EXPECT_EQ(WaitExitCode(regress), 128 + SIGTERM);
}

}  // namespace
}  // namespace qacc::testing
