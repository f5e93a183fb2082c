// qacc regress as a user runs it, against a fake `qacc cosim` child (--child-command, a shell
// script) that passes, fails, crashes or hangs depending on the test name: argument errors,
// failure/crash/ timeout handling, the JUnit and JSON reports, and the determinism of the schedule.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/cli_runner.h"

namespace qacc::testing {
namespace {

namespace fs = std::filesystem;

// Arguments: cosim --test NAME --seed N [--config FILE] --json [--model-only]. Each call appends
// its arguments to calls.log next to the script.
constexpr const char* kFakeCosim = R"(#!/bin/sh
dir=$(dirname "$0")
echo "$@" >> "$dir/calls.log"
test=$3
seed=$5
case "$test" in
  gemm_k1) kill -SEGV $$ ;;
  gemm_m1) sleep 30 ;;
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
  for (const auto& entry : fs::directory_iterator(dir_)) files += entry.is_regular_file();
  EXPECT_EQ(files, 4u);  // fake_cosim.sh, calls.log, report.xml, report.json
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

}  // namespace
}  // namespace qacc::testing
