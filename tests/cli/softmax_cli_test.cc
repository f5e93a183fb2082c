// qacc softmax-tables and qacc table-memory, run as a user would: JSON values against facts derived
// here (seed 000's memory table, table formulas with std::exp), usage errors and -o behaviour.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/cli_runner.h"

namespace qacc::testing {
namespace {

nlohmann::json ParseJson(const CliResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);  // throws (and fails the test) on malformed output
}

// ---- table-memory -------------------------------------------------------------------------------

TEST(TableMemoryCli, SeedTableWithoutArguments) {
  const CliResult text = RunQacc("table-memory");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* figure : {"1280", "2304", "72", "512", "768", "1024", "40"}) {
    EXPECT_NE(text.out.find(figure), std::string::npos) << figure << "\n" << text.out;
  }
  const nlohmann::json j = ParseJson(RunQacc("table-memory --json"));
  ASSERT_EQ(j.at("rows").size(), 3u);
  // Seed 000's memory table: (8, 16, 8) 512 + 768 = 1280; (8, 32, 8) 1024 + 1280 = 2304; (4, 16, 4)
  // 32 + 40.
  const struct {
    int in, acc, out;
    int64_t t, p, total, lut;
  } seed[] = {{8, 16, 8, 512, 768, 1280, 256},
              {8, 32, 8, 1024, 1280, 2304, 256},
              {4, 16, 4, 32, 40, 72, 8}};
  for (int i = 0; i < 3; ++i) {
    const nlohmann::json& row = j.at("rows").at(i);
    EXPECT_EQ(row.at("in_bits"), seed[i].in);
    EXPECT_EQ(row.at("acc_bits"), seed[i].acc);
    EXPECT_EQ(row.at("out_bits"), seed[i].out);
    EXPECT_EQ(row.at("exp_table_bytes"), seed[i].t);
    EXPECT_EQ(row.at("numerator_table_bytes"), seed[i].p);
    EXPECT_EQ(row.at("total_bytes"), seed[i].total);
    EXPECT_EQ(row.at("lut_bytes"), seed[i].lut);  // 2^in * out / 8
  }
}

TEST(TableMemoryCli, OneRow) {
  // 2^6 * 20 bits = 160 B; 2^6 * (20 + 7) = 1728 bits = 216 B; LUT 2^6 * 7 = 448 bits = 56 B.
  const nlohmann::json j =
      ParseJson(RunQacc("table-memory --in-bits 6 --acc-bits 20 --out-bits 7 --json"));
  ASSERT_EQ(j.at("rows").size(), 1u);
  EXPECT_EQ(j.at("rows")[0].at("exp_table_bytes"), 160);
  EXPECT_EQ(j.at("rows")[0].at("numerator_table_bytes"), 216);
  EXPECT_EQ(j.at("rows")[0].at("total_bytes"), 376);
  EXPECT_EQ(j.at("rows")[0].at("lut_bytes"), 56);
  // Partial bytes round up: 2 addresses x 1 bit, 2 x 3 bits.
  const nlohmann::json small =
      ParseJson(RunQacc("table-memory --in-bits 1 --acc-bits 1 --out-bits 3 --json"));
  EXPECT_EQ(small.at("rows")[0].at("exp_table_bytes"), 1);  // 2 bits -> 1 byte
  EXPECT_EQ(small.at("rows")[0].at("lut_bytes"), 1);        // 6 bits -> 1 byte
}

TEST(TableMemoryCli, BadArguments) {
  const struct {
    const char* args;
    const char* needle;
  } cases[] = {{"table-memory --in-bits 8", "--acc-bits"},
               {"table-memory --in-bits 17 --acc-bits 16 --out-bits 8", "--in-bits"},
               {"table-memory --in-bits 8 --acc-bits 49 --out-bits 8", "--acc-bits"},
               {"table-memory --in-bits 8 --acc-bits 16 --out-bits 0", "--out-bits"},
               {"table-memory --in-bits x --acc-bits 16 --out-bits 8", "--in-bits"}};
  for (const auto& c : cases) {
    const CliResult r = RunQacc(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args;
  }
}

// ---- softmax-tables -----------------------------------------------------------------------------

TEST(SoftmaxTablesCli, JsonTablesMatchFormula) {
  const nlohmann::json j = ParseJson(RunQacc(
      "softmax-tables --n 8 --in-bits 4 --in-amax 4 --out-bits 8 --out-unsigned --acc-bits 16 "
      "--error-rows 8 --json"));
  // Signed 4-bit input: codes -8..7, s_x = 4/7; M = floor(32767 / 8) = 4095; s_y = 1/255.
  EXPECT_EQ(j.at("first_code"), -8);
  EXPECT_EQ(j.at("m"), 4095);
  const nlohmann::json& t = j.at("exp_table");
  const nlohmann::json& p = j.at("numerator_table");
  ASSERT_EQ(t.size(), 16u);
  ASSERT_EQ(p.size(), 16u);
  for (int i = 0; i < 16; ++i) {
    const double e = std::exp(4.0 / 7 * (i - 8 - 7));  // ascending input value: code -8 + i
    EXPECT_EQ(t[i].get<int64_t>(), static_cast<int64_t>(std::round(e * 4095))) << i;
    EXPECT_EQ(p[i].get<int64_t>(), static_cast<int64_t>(std::round(e * 4095 / (1.0 / 255)))) << i;
  }
  EXPECT_EQ(t[15], 4095);
  EXPECT_EQ(j.at("memory").at("exp_table_bytes"), 32);        // 16 x 16 bit
  EXPECT_EQ(j.at("memory").at("numerator_table_bytes"), 48);  // 16 x 24 bit
  EXPECT_EQ(j.at("memory").at("total_bytes"), 80);
  EXPECT_EQ(j.at("stats").at("max_t"), 4095);
  EXPECT_EQ(j.at("stats").at("max_p"), 4095 * 255);
  EXPECT_EQ(j.at("stats").at("sum_can_overflow"), false);
  EXPECT_EQ(j.at("stats").at("any_clamped"), false);
  EXPECT_EQ(j.at("params").at("offset"), "rowmax");
  EXPECT_EQ(j.at("params").at("div_rounding"), "nearest");
  EXPECT_EQ(j.at("params").at("table_rounding"), "half_away");
  EXPECT_EQ(j.at("params").at("seed_compatible"), false);
  // 8 random rows of 8 elements + every adversarial row; default settings are within 1 LSB.
  EXPECT_EQ(j.at("error").at("random").at("rows"), 8);
  EXPECT_EQ(j.at("error").at("random").at("elements"), 64);
  EXPECT_GT(j.at("error").at("adversarial").at("rows").get<int>(), 16);
  EXPECT_LE(j.at("error").at("total").at("max_abs_lsb").get<int>(), 1);
  EXPECT_TRUE(j.at("error").at("families").contains("skyscraper"));
}

TEST(SoftmaxTablesCli, SeedCompatIsReportedWorse) {
  // The configuration of the seed-compatible worst row (see softmax_error_test): n 100, int4
  // amax 8.
  const std::string base =
      "softmax-tables --n 100 --in-bits 4 --in-amax 8 --out-bits 8 --out-unsigned --json";
  const nlohmann::json seed = ParseJson(RunQacc(base + " --compat seed"));
  const nlohmann::json def = ParseJson(RunQacc(base));
  EXPECT_EQ(seed.at("params").at("seed_compatible"), true);
  EXPECT_EQ(seed.at("params").at("offset"), "qmax");
  EXPECT_EQ(seed.at("params").at("table_rounding"), "toward_zero");
  EXPECT_GE(seed.at("error").at("total").at("max_abs_lsb").get<int>(), 247);
  EXPECT_LE(def.at("error").at("total").at("max_abs_lsb").get<int>(), 1);
  // Truncation: T(-8) = floor(exp(-120/7) * 21474836) = floor(0.77) = 0, so a row of -8 sums to 0.
  EXPECT_EQ(seed.at("exp_table")[0], 0);
  EXPECT_EQ(seed.at("stats").at("sum_can_be_zero"), true);
  EXPECT_EQ(seed.at("zero_sum_output"), 3);  // uniform: round(255 / 100)
}

TEST(SoftmaxTablesCli, MinAccBitsAndText) {
  const CliResult r = RunQacc(
      "softmax-tables --n 16 --in-bits 8 --in-amax 8 --out-bits 8 --out-unsigned "
      "--min-acc-bits 1 --error-rows 4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"M = floor((2^31 - 1) / 16) = 134217727", "total 2304 B", "min acc bits",
                           "skyscraper", "worst:"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out.substr(0, 2000);
  }
  const nlohmann::json j =
      ParseJson(RunQacc("softmax-tables --n 16 --in-bits 8 --in-amax 8 --out-bits 8 "
                        "--out-unsigned --min-acc-bits 1 --error-rows 4 --json"));
  const int bits = j.at("min_acc_bits").at("acc_bits").get<int>();
  EXPECT_GE(bits, 8);
  EXPECT_LE(bits, 32);
  // At that width the default settings meet the bound.
  const nlohmann::json at =
      ParseJson(RunQacc("softmax-tables --n 16 --in-bits 8 --in-amax 8 --out-bits 8 "
                        "--out-unsigned --error-rows 4 --json --acc-bits " +
                        std::to_string(bits)));
  EXPECT_LE(at.at("error").at("total").at("max_abs_lsb").get<int>(), 1);
}

TEST(SoftmaxTablesCli, OutputFile) {
  const auto dir = ScratchDir("softmax_out");
  const auto path = dir / "tables.json";
  const CliResult r = RunQacc(
      "softmax-tables --n 4 --in-bits 2 --in-amax 1 --out-bits 4 --json -o " + path.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  const nlohmann::json j = nlohmann::json::parse(ReadWholeFile(path));
  EXPECT_EQ(j.at("exp_table").size(), 4u);
  std::filesystem::remove_all(dir);
}

TEST(SoftmaxTablesCli, BadArguments) {
  const std::string ok = "softmax-tables --n 8 --in-bits 8 --in-amax 8 --out-bits 8";
  const struct {
    std::string args;
    const char* needle;
  } cases[] = {
      {"softmax-tables --in-bits 8 --in-amax 8 --out-bits 8", "--n"},
      {"softmax-tables --n 0 --in-bits 8 --in-amax 8 --out-bits 8", "--n"},
      {"softmax-tables --n 65537 --in-bits 8 --in-amax 8 --out-bits 8", "--n"},
      {"softmax-tables --n 8 --in-bits 9 --in-amax 8 --out-bits 8", "--in-bits"},
      {"softmax-tables --n 8 --in-bits 8 --in-amax 0 --out-bits 8", "--in-amax"},
      {"softmax-tables --n 8 --in-bits 8 --in-amax nan --out-bits 8", "--in-amax"},
      {"softmax-tables --n 8 --in-bits 8 --in-amax 8 --out-bits 17", "--out-bits"},
      {ok + " --out-amax -1", "--out-amax"},
      {ok + " --acc-bits 7", "--acc-bits"},
      {ok + " --acc-bits 33", "--acc-bits"},
      {"softmax-tables --n 200 --in-bits 8 --in-amax 8 --out-bits 8 --acc-bits 8",
       "--acc-bits: 8 is too small"},
      {ok + " --round half", "--round"},
      {ok + " --div ceil", "--div"},
      {ok + " --offset min", "--offset"},
      {ok + " --compat tflite", "--compat"},
      {ok + " --compat seed --round nearest", "--compat"},
      {ok + " --error-rows -1", "--error-rows"},
      {ok + " --min-acc-bits -2", "--min-acc-bits"},
      {"softmax-tables --n 8 --in-bits 8 --in-amax 8 --in-unsigned --out-bits 8 --out-unsigned "
       "--narrow",
       "--narrow"},
  };
  for (const auto& c : cases) {
    const auto dir = ScratchDir("softmax_bad");
    const auto path = dir / "out.json";
    const CliResult r = RunQacc(c.args + " -o " + path.string());
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(path)) << c.args;
    std::filesystem::remove_all(dir);
  }
}

}  // namespace
}  // namespace qacc::testing
