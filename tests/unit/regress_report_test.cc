// The findings of the `regress_report` fuzz harness (docs/fuzzing.md), each the input of a
// tests/fuzz/corpus/regress_report/regression-* file: the --resume report reader (ReportFromJson)
// refuses what contradicts itself or the command line's ranges with a ReportFieldError naming the
// field, and the reader of a run's JSON result (ReadChildResult, ChildFailureMessage) never throws.
#include "sim/build_paths.h"
#include "sim/cli/regress_report.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace qacc::cli {
namespace {

nlohmann::json Corpus(const std::string& name) {
  std::ifstream in(std::string(QACC_SOURCE_DIR) + "/tests/fuzz/corpus/regress_report/" + name);
  return nlohmann::json::parse(in);
}

// The message of the ReportFieldError that reading `report` throws ("" when it is accepted).
std::string Refusal(const nlohmann::json& report) {
  try {
    ReportFromJson(report);
  } catch (const ReportFieldError& e) {
    return e.what();
  }
  return "";
}

TEST(RegressReport, ValidReportsAreAccepted) {
  for (const char* name : {"seed-failures.json", "seed-interrupted.json", "seed-fail_fast.json",
                           "seed-lockstep.json", "seed-model_only.json"}) {
    EXPECT_EQ(Refusal(Corpus(name)), "") << name;
  }
}

TEST(RegressReport, FuzzFindings) {
  const nlohmann::json base = Corpus("seed-failures.json");  // fail, crash, pass: complete
  const auto starts = [](const std::string& message, const std::string& prefix) {
    return message.rfind(prefix, 0) == 0;
  };
  // A run's result holding "coverage" was counted twice on --resume (the report's merged coverage
  // and the run's again), and did not read back as written (the writer drops it).
  EXPECT_TRUE(starts(Refusal(Corpus("regression-result-coverage")),
                     "field \"runs[2].result.coverage\" is present"));
  // Coverage without bins read as `runs` merged runs, and was written back as null (0 runs).
  EXPECT_TRUE(
      starts(Refusal(Corpus("regression-empty-coverage-hits")), "field \"coverage.hits\" is "));
  // Totals and "pass" that contradict the runs were accepted.
  EXPECT_EQ(Refusal(Corpus("regression-counts")),
            "field \"passed\" is 3, expected 1, as the runs say");
  EXPECT_EQ(Refusal(Corpus("regression-pass-not-status")),
            "field \"runs[0].pass\" is true, expected false, as \"status\" is \"fail\"");
  // Recorded arguments beyond the command line's ranges stood for them on --resume.
  EXPECT_EQ(Refusal(Corpus("regression-memory-limit")),
            "field \"memory_limit_mb\" is 1099511627776, expected 0..1073741824");
  nlohmann::json report = base;
  report["mutant"] = -1;
  EXPECT_EQ(Refusal(report), "field \"mutant\" is -1, expected 0..1073741824");
  // --resume passes the tests on as a comma-separated --tests.
  EXPECT_EQ(Refusal(Corpus("regression-test-with-comma")),
            "field \"tests[0]\" is \"gemm_n1,gemm_k1\", expected a test name");
  report = base;
  report["tests"][2] = "gemm_n1";
  EXPECT_EQ(Refusal(report), "field \"tests[2]\" is \"gemm_n1\", expected a test named once");
  // Runs of int64-max cycles: the writer's total overflowed (undefined); it saturates now.
  EXPECT_EQ(Refusal(Corpus("regression-cycles-sum-overflow")), "");
  report = base;
  report["runs"][0]["cycles"] = -1;
  EXPECT_EQ(Refusal(report), "field \"runs[0].cycles\" is -1, expected an integer >= 0");
  // A deeply nested value: copies and messages recursed once per level.
  EXPECT_EQ(Refusal(Corpus("regression-deep-nesting")),
            "field \"runs[2].result\" is an array of 1 elements, expected a JSON result nested at "
            "most 32 levels deep");
  std::string deep = "{\"suite\": ";
  deep += std::string(200000, '[') + std::string(200000, ']') + "}";
  EXPECT_EQ(Refusal(nlohmann::json::parse(deep)),
            "field \"suite\" is an array of 1 elements, expected a string");
  // A complete report must say so consistently.
  report = base;
  report["interrupted"] = "SIGINT (2)";
  EXPECT_TRUE(starts(Refusal(report), "field \"interrupted\" is \"SIGINT (2)\""));
}

TEST(RegressChildResult, FuzzFindings) {
  cli::Run run;
  run.reproduce = "runner";
  // "cycles": "many" threw nlohmann::json::type_error out of the runner: qacc regress stopped with
  // "internal error" and wrote no report.
  std::string problem =
      ReadChildResult(R"({"pass": true, "cycles": "many", "cycles_per_second": 1.5})", run);
  EXPECT_EQ(problem, "field \"cycles\" is \"many\", expected an integer >= 0");
  EXPECT_EQ(run.cycles, 0);
  EXPECT_EQ(run.cycles_per_second, 1.5);
  EXPECT_EQ(ChildFailureMessage(run.result, 0, problem),
            "exit code 0, a bad JSON result: " + problem);
  // "pass": "yes" threw the same from r.value("pass", false).
  EXPECT_EQ(ReadChildResult(R"({"pass": "yes", "cycles": 10})", run), "");
  EXPECT_FALSE(ChildSaysPass(run.result));
  EXPECT_EQ(run.cycles, 10);
  // 2^64 - 1 cycles read as -1; a mismatch count of 1e300 was converted to int64 (undefined), one
  // of 0.5 read as 0 mismatches.
  problem = ReadChildResult(
      R"({"pass": false, "cycles": 18446744073709551615, "mismatches": {"mac": 1e300, "output": 0.5}})",
      run);
  EXPECT_EQ(problem, "field \"cycles\" is 18446744073709551615, expected an integer >= 0");
  EXPECT_EQ(run.cycles, 0);
  EXPECT_EQ(ChildFailureMessage(run.result, 1, ""),
            "exit code 1, mismatches: mac=1e+300 output=0.5");
  // A result nested deeper than a report keeps is not taken.
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  EXPECT_EQ(ReadChildResult(deep, run), "the JSON result nests deeper than 32 levels");
  EXPECT_TRUE(run.result.is_null());
  EXPECT_EQ(ReadChildResult("not json", run), "");
  EXPECT_TRUE(run.result.is_null());
  EXPECT_EQ(run.reproduce, "runner");
}

}  // namespace
}  // namespace qacc::cli
