// `qacc bench` with shapes at and past the SRAM limits of configs/default.json (8x8; A, B and out
// 8192 words, bias 256): a shape past a limit is refused before anything runs, naming the SRAM and
// the largest dimension that fits; a shape exactly at a limit runs and passes. Before the fix,
// 300x300x300 and the other overflowing shapes aborted with a heap corruption (exit 134).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "tests/cli/cli_runner.h"

namespace qacc {
namespace {

using testing::CliResult;
using testing::RunQacc;

TEST(BenchCli, ShapesPastTheSramsAreRefusedNamingTheLimit) {
  // shape, the SRAM that overflows, the largest dimension that fits (with the others as given)
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"-m 300 -n 300 -k 300", "A SRAM", "-k 215"},      // ceil(300/8) * 300 = 11400 > 8192
      {"-m 8200 -n 256 -k 256", "A SRAM", "-m 256"},     // 1025 * 256 > 8192; 32 panels fit
      {"-m 256 -n 9000 -k 256", "B SRAM", "-n 256"},     // 1125 * 256 > 8192
      {"-m 256 -n 256 -k 9000", "A SRAM", "-k 256"},     // 32 * 9000 > 8192
      {"-m 8 -n 8 -k 8193", "A SRAM", "-k 8192"},        // one beat past A and B
      {"-m 8 -n 2049 -k 4", "bias SRAM", "-n 2048"},     // 257 bias words > 256
      {"-m 520 -n 512 -k 1", "out SRAM", "-m 512"},      // 65 * 64 tiles * 2 words > 8192
      {"-m 65535 -n 65535 -k 65535", "A SRAM", "none"},  // the help's maximum
  };
  for (const auto& [shape, sram, limit] : cases) {
    const CliResult r = RunQacc("bench " + shape + " --repeat 1");
    EXPECT_EQ(r.exit_code, 2) << shape << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << shape;
    EXPECT_NE(r.err.find("does not fit the " + sram), std::string::npos) << shape << "\n" << r.err;
    EXPECT_NE(r.err.find(limit), std::string::npos) << shape << "\n" << r.err;
  }
}

TEST(BenchCli, ShapesExactlyAtTheLimitsRun) {
  for (const std::string shape : {"-m 8 -n 8 -k 8192",    // A and B full
                                  "-m 8 -n 2048 -k 4",    // bias full
                                  "-m 512 -n 512 -k 1"})  // out full
  {
    const CliResult r = RunQacc("bench " + shape + " --repeat 1 --json");
    ASSERT_EQ(r.exit_code, 0) << shape << "\n" << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j["lockstep"]["pass"].get<bool>()) << shape;
    EXPECT_TRUE(j["lockstep_2_threads"]["pass"].get<bool>()) << shape;
    EXPECT_TRUE(j["model_only"]["pass"].get<bool>()) << shape;
    EXPECT_FALSE(j.contains("goals_met"));
  }
}

TEST(BenchCli, PrintsMeasurementsOnly) {
  const CliResult r = RunQacc("bench -m 16 -n 16 -k 16 --repeat 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("goal"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cycles/s"), std::string::npos) << r.out;
}

// --program: the layer compiled into a program (the compiler tiles it, so a shape past the SRAMs
// runs) and launched with CTRL.RUN; a layer the compiler cannot split is refused naming the limit.
TEST(BenchCli, ProgramRunsACompiledLayer) {
  const CliResult r = RunQacc("bench --program -m 40 -n 300 -k 30 --repeat 1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["program"].get<bool>());
  EXPECT_TRUE(j["lockstep"]["pass"].get<bool>());
  EXPECT_TRUE(j["model_only"]["pass"].get<bool>());
  EXPECT_EQ(j["rtl_only"]["cycles"], j["lockstep"]["cycles"]);
  EXPECT_TRUE(j["lockstep_2_threads"]["pass"].get<bool>());
  EXPECT_EQ(j["lockstep_2_threads"]["cycles"], j["lockstep"]["cycles"]);
  const CliResult bad = RunQacc("bench --program -m 8 -n 8 -k 9000 --repeat 1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--program: layer 'gemm': K = 9000"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace qacc
