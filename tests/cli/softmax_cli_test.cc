// qacc softmax-tables run as a user would: JSON values against facts derived here (table formulas
// and the float softmax with std::exp), warnings, $readmemh images, usage errors and -o behaviour.
// qacc table-memory is tested in table_memory_cli_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/cli/cli_runner.h"
#include "tests/cli/hex_reader.h"

namespace qacc::testing {
namespace {

nlohmann::json ParseJson(const CliResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);  // throws (and fails the test) on malformed output
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
  // Compat mode divides by S = 0 as the original does; the exact mode's constant is not used.
  EXPECT_TRUE(seed.at("zero_sum_output").is_null());
  EXPECT_EQ(seed.at("params").at("mode"), "seed");
  EXPECT_EQ(def.at("params").at("mode"), "exact");
  EXPECT_EQ(def.at("zero_sum_output"), 3);  // uniform: round(255 / 100), never used (rowmax)
}

// Issue 6 A: --compat seed builds the original's float32 tables (checked entry for entry against a
// float32 emulation in seed_compat_softmax_test); here the numbers through the CLI, and the
// report of the wrap.
TEST(SoftmaxTablesCli, SeedCompatIsTheOriginalsFloat32Arithmetic) {
  const std::string base =
      "softmax-tables --n 1 --in-bits 4 --in-amax 1 --out-bits 8 --out-unsigned --out-amax 1 "
      "--error-rows 2 --compat seed";
  // acc 16: P(7) = 8355584 (the exact mode's double tables: 8355585).
  const nlohmann::json j = ParseJson(RunQacc(base + " --acc-bits 16 --json"));
  EXPECT_EQ(j.at("numerator_table")[15], 8355584);
  EXPECT_EQ(j.at("exp_table")[15], 32767);
  EXPECT_EQ(j.at("stats").at("t_wrapped"), 0);
  const CliResult quiet = RunQacc(base + " --acc-bits 16");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_TRUE(quiet.err.empty()) << quiet.err;
  EXPECT_NE(quiet.out.find("mode seed (--compat seed: the original code's float32 arithmetic)"),
            std::string::npos)
      << quiet.out;

  // acc 32, n 1: float32(2^31 - 1) = 2^31, wrapped to -2^31 by the int32 cast, and said so.
  const CliResult wrapped = RunQacc(base + " --acc-bits 32 --json");
  const nlohmann::json w = ParseJson(wrapped);
  EXPECT_EQ(w.at("exp_table")[15], -2147483648LL);
  EXPECT_EQ(w.at("stats").at("t_wrapped"), 1);
  EXPECT_EQ(w.at("stats").at("p_wrapped"), 0);
  EXPECT_EQ(wrapped.err.rfind("qacc: warning: softmax-tables: --compat seed: 1 T and 0 P entries "
                              "wrapped to -2147483648 as in the original",
                              0),
            0u)
      << wrapped.err;
  const CliResult text = RunQacc(base + " --acc-bits 32");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("T 1 P 0 wrapped 2^31 -> -2^31 (the original's int32 cast), so S can be "
                          "negative"),
            std::string::npos)
      << text.out;
  // The exact mode never wraps.
  const nlohmann::json exact = ParseJson(RunQacc(
      "softmax-tables --n 1 --in-bits 4 --in-amax 1 --out-bits 8 --out-unsigned --acc-bits 32 "
      "--error-rows 2 --json"));
  EXPECT_EQ(exact.at("exp_table")[15], 2147483647);
  EXPECT_EQ(exact.at("stats").at("t_wrapped"), 0);

  // Unsigned specs with --narrow: the original ignores narrow there, so does --compat seed.
  const nlohmann::json both =
      ParseJson(RunQacc("softmax-tables --n 8 --in-bits 3 --in-amax 2 --in-unsigned --out-bits 4 "
                        "--out-unsigned --narrow --error-rows 2 --compat seed --json"));
  EXPECT_EQ(both.at("params").at("in").at("narrow"), false);
  EXPECT_EQ(both.at("first_code"), 0);
  EXPECT_EQ(both.at("exp_table").size(), 8u);
  // Different widths and an unsigned input, as the original accepts them.
  const nlohmann::json wide = ParseJson(
      RunQacc("softmax-tables --n 3 --in-bits 5 --in-amax 3 --in-unsigned --out-bits 12 "
              "--out-amax 0.5 --acc-bits 20 --narrow --error-rows 2 --compat seed --json"));
  EXPECT_EQ(wide.at("params").at("out").at("bits"), 12);
  EXPECT_EQ(wide.at("params").at("out").at("narrow"), true);
  EXPECT_EQ(wide.at("exp_table").size(), 32u);
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

// ---- Error in real units and the output-range warning (issue 20 C) ------------------------------

// --out-amax 100: every probability is code 0 or 1 (s_y = 100 / 127), so the LSB error is 0 while
// the outputs are up to s_y / 2 off. The real error is recomputed here over the adversarial rows
// (--error-rows 0) from the float softmax, given that the integer path equals the quantized float
// softmax (0 LSB).
TEST(SoftmaxTablesCli, CoarseOutputReportsRealErrorAndWarns) {
  const CliResult r = RunQacc(
      "softmax-tables --n 4 --in-bits 2 --in-amax 1 --out-bits 8 --out-amax 100 --error-rows 0 "
      "--json");
  const nlohmann::json j = ParseJson(r);
  const double s_y = 100.0 / 127;
  EXPECT_DOUBLE_EQ(j.at("params").at("out").at("scale").get<double>(), s_y);
  ASSERT_EQ(j.at("error").at("total").at("max_abs_lsb"), 0);

  // Rows of codes -2..1 (x = code, s_x = 1) as in golden/softmax_error.h: all_equal, skyscraper,
  // two_max and bimodal (the same rows for n = 4), low_peak.
  using Row = std::vector<std::pair<int, int>>;  // (code, count)
  std::vector<Row> rows;
  for (int c = -2; c <= 1; ++c) rows.push_back({{c, 4}});
  for (int c = -2; c < 1; ++c) {
    rows.push_back({{1, 1}, {c, 3}});
    rows.push_back({{1, 2}, {c, 2}});
    rows.push_back({{1, 2}, {c, 2}});
  }
  for (int c = -1; c < 1; ++c) rows.push_back({{c, 1}, {-2, 3}});
  double max_real = 0.0, sum_real = 0.0;
  int elements = 0;
  for (const Row& row : rows) {
    double sum = 0.0;
    for (const auto& [code, count] : row) sum += count * std::exp(code);
    for (const auto& [code, count] : row) {
      const double y = std::exp(code) / sum;
      const double error = std::abs(s_y * std::round(y / s_y) - y);
      max_real = std::max(max_real, error);
      sum_real += count * error;
      elements += count;
    }
  }
  const nlohmann::json& total = j.at("error").at("total");
  EXPECT_EQ(total.at("elements"), elements);
  EXPECT_NEAR(total.at("max_abs_real").get<double>(), max_real, 1e-12);
  EXPECT_NEAR(total.at("mean_abs_real").get<double>(), sum_real / elements, 1e-12);
  EXPECT_GT(max_real, 0.3);
  EXPECT_DOUBLE_EQ(j.at("error").at("families").at("all_equal").at("max_abs_real").get<double>(),
                   0.25);  // 1/4 is code 0

  // A probability of 1 is code round(127 / 100) = 1 of 127: warned on stderr, with the numbers.
  EXPECT_EQ(j.at("output_use").at("code_of_one"), 1);
  EXPECT_EQ(j.at("output_use").at("positive_codes"), 127);
  EXPECT_EQ(j.at("output_use").at("small"), true);
  EXPECT_EQ(r.err.rfind("qacc: warning: softmax-tables: output codes reach at most 1 of 127: "
                        "--out-amax 100 is much larger than softmax's maximum of 1",
                        0),
            0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  // The text has the real error column; the warning stays off stdout.
  const CliResult text = RunQacc(
      "softmax-tables --n 4 --in-bits 2 --in-amax 1 --out-bits 8 --out-amax 100 --error-rows 0");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("max real"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("a probability of 1 is code 1 of 127"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("warning"), std::string::npos) << text.out;
  EXPECT_FALSE(text.err.empty());
}

// The rule: warn when quantize(1.0) is below a quarter of the positive codes.
TEST(SoftmaxTablesCli, OutputUseWarningThreshold) {
  const struct {
    std::string out;
    std::string amax;
    int qmax;
  } cases[] = {{"--out-bits 8", "1", 127},   {"--out-bits 8", "4", 127},
               {"--out-bits 8", "4.1", 127}, {"--out-bits 8 --out-unsigned", "100", 255},
               {"--out-bits 4", "0.5", 7},   {"--out-bits 16", "3", 32767}};
  for (const auto& c : cases) {
    const std::string args = "softmax-tables --n 4 --in-bits 4 --in-amax 4 --error-rows 4 " +
                             c.out + " --out-amax " + c.amax + " --json";
    const CliResult r = RunQacc(args);
    const nlohmann::json j = ParseJson(r);
    const double s_y = std::stod(c.amax) / c.qmax;
    const int code = std::min<int>(c.qmax, static_cast<int>(std::round(1.0 / s_y)));
    const bool small = code * 4 < c.qmax;
    EXPECT_EQ(j.at("output_use").at("code_of_one"), code) << args;
    EXPECT_EQ(j.at("output_use").at("small"), small) << args;
    EXPECT_EQ(r.err.empty(), !small) << args << "\n" << r.err;
    if (small) {
      EXPECT_NE(
          r.err.find("reach at most " + std::to_string(code) + " of " + std::to_string(c.qmax)),
          std::string::npos)
          << r.err;
    }
    // k LSB off the quantized float softmax is at least (k - 1/2) LSB off the float softmax.
    const nlohmann::json& total = j.at("error").at("total");
    EXPECT_LE((total.at("max_abs_lsb").get<double>() - 0.5) * s_y - 1e-12,
              total.at("max_abs_real").get<double>())
        << args;
  }
}

// ---- $readmemh images (issue 20 E) --------------------------------------------------------------

TEST(SoftmaxTablesCli, HexImagesMatchTheJsonTables) {
  const struct {
    std::string args;
    int in_bits, t_bits, p_bits;
  } cases[] = {
      {"--n 8 --in-bits 4 --in-amax 4 --narrow --out-bits 8 --out-unsigned --acc-bits 16", 4, 16,
       24},
      {"--n 5 --in-bits 3 --in-amax 2 --in-unsigned --out-bits 5 --acc-bits 13", 3, 13, 18},
      {"--n 100 --in-bits 8 --in-amax 8 --out-bits 8 --compat seed", 8, 32, 40},
  };
  const auto dir = ScratchDir("softmax_hex");
  const std::string prefix = (dir / "sm").string();
  for (const auto& c : cases) {
    const nlohmann::json j = ParseJson(
        RunQacc("softmax-tables " + c.args + " --error-rows 0 --json --hex-prefix " + prefix));
    const int64_t first = j.at("first_code");
    const bool in_signed = j.at("params").at("in").at("signed");
    const bool narrow = j.at("params").at("in").at("narrow");
    for (const auto& [file, key, bits, name] :
         {std::tuple{"_exp.hex", "exp_table", c.t_bits, "X->T"},
          std::tuple{"_numerator.hex", "numerator_table", c.p_bits, "X->P"}}) {
      const ReadHex image = ReadHexImage(prefix + file, (bits + 3) / 4);
      const size_t depth = size_t{1} << c.in_bits;
      EXPECT_EQ(image.comment, "// qacc softmax-tables " + std::string(name) + ": " +
                                   std::to_string(depth) + " x " + std::to_string(bits) +
                                   " bits, address = raw input code bits");
      ASSERT_EQ(image.words.size(), depth) << c.args;
      const std::vector<int64_t> table = j.at(key).get<std::vector<int64_t>>();
      for (size_t i = 0; i < table.size(); ++i) {
        const uint64_t address =
            static_cast<uint64_t>(first + static_cast<int64_t>(i)) & (depth - 1);
        EXPECT_EQ(image.words[address], static_cast<uint64_t>(table[i])) << c.args << " " << key;
      }
      if (in_signed && narrow) {
        EXPECT_EQ(image.words[depth / 2], 0u);  // the unused address
      }
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(SoftmaxTablesCli, HexBadPathNamesTheOptionAndLeavesNoFile) {
  const std::string args = "softmax-tables --n 4 --in-bits 2 --in-amax 1 --out-bits 4";
  const auto dir = ScratchDir("softmax_hex_bad");
  const CliResult r = RunQacc(args + " --hex-prefix " + (dir / "missing" / "sm").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.rfind("qacc: error: --hex-prefix: ", 0), 0u) << r.err;
  // Both images are written, then -o fails: both are removed again.
  const CliResult o = RunQacc(args + " --hex-prefix " + (dir / "sm").string() + " -o " +
                              (dir / "missing" / "sm.json").string());
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--output"), std::string::npos) << o.err;
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            0);
  std::filesystem::remove_all(dir);
}

// ---- Help (issue 20 D) --------------------------------------------------------------------------

TEST(SoftmaxTablesCli, HelpDefinesCompatSeedAndTheInputWidth) {
  const CliResult r = RunQacc("softmax-tables --help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("seed 000"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Seed 000"), std::string::npos) << r.out;
  for (const char* text :
       {"original PyTorch code of the softmax article", "Not related to --seed",
        "Input bits, 2..8: the table SRAMs are addressed by an int8 code", "$readmemh"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  }
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
      // The original's QuantConfig asserts a signed spec above 8 bits.
      {"softmax-tables --n 8 --in-bits 8 --in-amax 8 --out-bits 12 --out-unsigned --compat seed",
       "--out-bits: 12 is out of range for an unsigned output in compat mode, allowed 2..8"},
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
