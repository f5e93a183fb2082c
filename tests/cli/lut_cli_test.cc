// qacc lut run as a user would: its JSON against the golden API, its text, and every bad argument.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "golden/elementwise.h"
#include "golden/lut.h"
#include "golden/quant.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/hex_reader.h"

namespace qacc::testing {
namespace {

// stderr may hold a saturation warning (checked by the Saturation* tests), nothing else.
nlohmann::json RunJson(const std::string& args) {
  const CliResult r = RunQacc("lut " + args + " --json");
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  EXPECT_TRUE(r.err.empty() || r.err.rfind("qacc: warning: ", 0) == 0) << r.err;
  return nlohmann::json::parse(r.out);
}

// The JSON's table, SRAM image and sizes equal the golden Lut's.
void ExpectMatchesGolden(const nlohmann::json& json, const golden::Lut& lut) {
  EXPECT_EQ(json["table"].get<std::vector<int32_t>>(), lut.entries_by_value());
  EXPECT_EQ(json["sram"].get<std::vector<int32_t>>(), lut.entries_by_address());
  EXPECT_EQ(json["sram_words"].get<std::vector<uint32_t>>(), lut.SramWords());
  EXPECT_EQ(json["bits"], lut.size_bits());
  EXPECT_EQ(json["bytes"], lut.size_bytes());
  EXPECT_EQ(json["addresses"], lut.num_addresses());
  EXPECT_EQ(json["entry_bits"], lut.entry_bits());
  EXPECT_EQ(json["input"]["scale"].get<double>(), lut.in().scale);
  EXPECT_EQ(json["input"]["zero_point"], lut.in().zero_point);
  EXPECT_EQ(json["input"]["qmin"], lut.in().qmin());
  EXPECT_EQ(json["output"]["scale"].get<double>(), lut.out().scale);
  EXPECT_EQ(json["output"]["zero_point"], lut.out().zero_point);
  if (lut.unused_address()) {
    EXPECT_EQ(json["unused_address"], *lut.unused_address());
  } else {
    EXPECT_TRUE(json["unused_address"].is_null());
  }
}

TEST(LutCli, DerivedSigmoidMatchesGolden) {
  const nlohmann::json json = RunJson("--func sigmoid --in-bits 8 --in-amax 8 --out-bits 8");
  golden::LutSpec spec;
  spec.in = golden::SymmetricFromAmax(8.0, 8, true);
  spec.out = golden::QuantSpec{8, true, false, 1.0, 0};
  spec.derive_out = true;
  const golden::Lut lut = golden::BuildLut(golden::GetElementwise("sigmoid"), spec);
  ExpectMatchesGolden(json, lut);
  EXPECT_EQ(json["function"], "sigmoid");
  EXPECT_EQ(json["mode"], "exact");
  EXPECT_EQ(json["rounding"], "half_even");  // the default
  EXPECT_EQ(json["output"]["source"], "derived");
  EXPECT_EQ(json["output"]["amax"].get<double>(), *lut.derived_out_amax());
  EXPECT_TRUE(json["alpha"].is_null());
  EXPECT_EQ(json["table"].size(), 256u);
  EXPECT_EQ(json["bytes"], 256);
}

TEST(LutCli, NarrowUnsignedOutputWithRoundingMatchesGolden) {
  const nlohmann::json json = RunJson(
      "--func gelu --in-bits 6 --in-amax 3 --narrow --out-bits 12 --out-unsigned --out-amax 3 "
      "--round half_up");
  golden::LutSpec spec;
  spec.in = golden::SymmetricFromAmax(3.0, 6, true, true);
  spec.out = golden::SymmetricFromAmax(3.0, 12, false);
  spec.rounding = golden::RoundingMode::kHalfUp;
  const golden::Lut lut = golden::BuildLut(golden::GetElementwise("gelu"), spec);
  ExpectMatchesGolden(json, lut);
  EXPECT_EQ(json["unused_address"], 32);
  EXPECT_EQ(json["input"]["narrow"], true);
  EXPECT_EQ(json["output"]["narrow"], false);  // --narrow applies to signed specs only
  EXPECT_EQ(json["output"]["source"], "amax");
  EXPECT_EQ(json["table"].size(), 63u);
  EXPECT_EQ(json["sram"].size(), 64u);
  EXPECT_EQ(json["bytes"], 64 * 12 / 8);
}

TEST(LutCli, ScaleZeroPointAndMinMaxMatchGolden) {
  const nlohmann::json json = RunJson(
      "--func leaky_relu --alpha 0.2 --in-bits 4 --in-unsigned --in-scale 0.25 --in-zp 8 "
      "--out-bits 8 "
      "--out-min -1 --out-max 2 --round floor");
  golden::LutSpec spec;
  spec.in = golden::QuantSpec{4, false, false, 0.25, 8};
  spec.out = golden::AsymmetricFromMinMax(-1.0, 2.0, 8, true);
  spec.rounding = golden::RoundingMode::kFloor;
  const golden::Lut lut = golden::BuildLut(golden::GetElementwise("leaky_relu", 0.2), spec);
  ExpectMatchesGolden(json, lut);
  EXPECT_EQ(json["alpha"].get<double>(), 0.2);
  EXPECT_EQ(json["output"]["source"], "min_max");

  const nlohmann::json by_scale =
      RunJson("--func tanh --in-bits 3 --in-scale 0.5 --out-bits 5 --out-scale 0.0625 --out-zp -2");
  spec.in = golden::QuantSpec{3, true, false, 0.5, 0};
  spec.out = golden::QuantSpec{5, true, false, 0.0625, -2};
  spec.rounding = golden::RoundingMode::kHalfToEven;
  ExpectMatchesGolden(by_scale, golden::BuildLut(golden::GetElementwise("tanh"), spec));
}

TEST(LutCli, SeedCompatMatchesGolden) {
  const nlohmann::json json =
      RunJson("--func tanh --in-bits 4 --in-amax 2.5 --narrow --out-bits 4 --compat seed");
  const golden::Lut lut =
      golden::BuildLut(golden::GetElementwise("tanh"), golden::SeedCompatSpec(2.5, 4, true));
  ExpectMatchesGolden(json, lut);
  EXPECT_EQ(json["mode"], "seed");
  EXPECT_EQ(json["rounding"], "toward_zero");
  // Seed 000's own numbers (see lut_test HandDerivedEntries).
  EXPECT_EQ(json["table"].get<std::vector<int32_t>>(),
            (std::vector<int32_t>{-7, -6, -6, -6, -5, -4, -2, 0, 2, 4, 5, 6, 6, 6, 7}));
  const nlohmann::json given = RunJson(
      "--func tanh --in-bits 4 --in-amax 2.5 --narrow --out-bits 4 "
      "--out-amax 0.9 --compat seed");
  EXPECT_EQ(given["table"].get<std::vector<int32_t>>(),
            (std::vector<int32_t>{-7, -7, -7, -6, -6, -4, -2, 0, 2, 4, 6, 6, 7, 7, 7}));
}

// Issue 6 A: --compat seed takes every format the original _SymmetryQuantTable takes (unsigned
// input or output, an output width of its own, narrow with unsigned specs). The golden tables are
// checked against a float32 emulation of the original in seed_compat_lut_test; here the options
// must reach them.
TEST(LutCli, SeedCompatTakesEveryFormatOfTheOriginal) {
  struct Case {
    std::string args;
    golden::SeedLutParams params;
    const char* func;
  };
  const auto params = [](int in_bits, double in_amax, bool in_unsigned, int out_bits,
                         std::optional<double> out_amax, bool out_unsigned, bool narrow) {
    golden::SeedLutParams p;
    p.in_bits = in_bits;
    p.in_amax = in_amax;
    p.in_unsigned = in_unsigned;
    p.out_bits = out_bits;
    p.out_amax = out_amax;
    p.out_unsigned = out_unsigned;
    p.narrow = narrow;
    return p;
  };
  const Case cases[] = {
      {"--func sigmoid --in-bits 4 --in-amax 4 --in-unsigned --out-bits 8 --out-unsigned",
       params(4, 4.0, true, 8, std::nullopt, true, false), "sigmoid"},
      {"--func sigmoid --in-bits 4 --in-amax 8 --out-bits 8",  // the 4 -> 8 bits
       params(4, 8.0, false, 8, std::nullopt, false, false), "sigmoid"},
      {"--func tanh --in-bits 6 --in-amax 3 --narrow --out-bits 14 --out-amax 0.9",
       params(6, 3.0, false, 14, 0.9, false, true), "tanh"},
      {"--func tanh --in-bits 8 --in-amax 2 --in-unsigned --narrow --out-bits 3 --out-unsigned",
       params(8, 2.0, true, 3, std::nullopt, true, true), "tanh"},
      {"--func sigmoid --in-bits 2 --in-amax 1 --narrow --out-bits 16",
       params(2, 1.0, false, 16, std::nullopt, false, true), "sigmoid"},
  };
  for (const Case& c : cases) {
    const nlohmann::json json = RunJson(c.args + " --compat seed");
    const golden::Lut lut =
        golden::BuildLut(golden::GetElementwise(c.func), golden::SeedCompatSpec(c.params));
    ExpectMatchesGolden(json, lut);
    EXPECT_EQ(json["mode"], "seed") << c.args;
    EXPECT_EQ(json["output"]["bits"], c.params.out_bits) << c.args;
    EXPECT_EQ(json["input"]["signed"], !c.params.in_unsigned) << c.args;
    EXPECT_EQ(json["output"]["signed"], !c.params.out_unsigned) << c.args;
    // Narrow narrows the signed specs only, as QuantConfig does.
    EXPECT_EQ(json["input"]["narrow"], c.params.narrow && !c.params.in_unsigned) << c.args;
    EXPECT_EQ(json["output"]["narrow"], c.params.narrow && !c.params.out_unsigned) << c.args;
  }
  // Unsigned input 0..15, x = q * float32(4 / 15), sigmoid into uint8 with a derived amax
  // (seed_compat_lut_test HandDerivedUnsignedAndWidened): T(0) = trunc(129.8) = 129.
  const nlohmann::json u = RunJson(
      "--func sigmoid --in-bits 4 --in-amax 4 --in-unsigned --out-bits 8 --out-unsigned "
      "--compat seed");
  EXPECT_EQ(u["table"][0], 129);
  EXPECT_EQ(u["table"][15], 255);
  // Both unsigned with --narrow: accepted in compat mode (no effect, said in the text), refused
  // in exact mode.
  const std::string both =
      "lut --func tanh --in-bits 3 --in-amax 2 --in-unsigned --narrow "
      "--out-bits 4 --out-unsigned";
  const CliResult text = RunQacc(both + " --compat seed");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("narrow    no effect on the unsigned input and output (codes "
                          "0..2^bits - 1), as in the original"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(RunQacc(both).exit_code, 2);
}

TEST(LutCli, HumanOutputListsParametersAndRows) {
  const CliResult r = RunQacc("lut --func relu --in-bits 2 --in-amax 1 --out-bits 4 --narrow");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"lut relu: max(x, 0)", "rounding half_even", "2-bit signed narrow",
                           "derived", "4 addresses x 4 bits = 16 bits = 2 bytes",
                           "unused    address 2", "    -1 -> 0", "     0 -> 0", "     1 -> 7"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  }
}

TEST(LutCli, OutputFileHoldsTheJson) {
  const auto dir = ScratchDir("lut_out");
  const auto path = dir / "table.json";
  const CliResult r =
      RunQacc("lut --func exp --in-bits 5 --in-amax 2 --out-bits 16 --json -o " + path.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  const nlohmann::json json = nlohmann::json::parse(ReadWholeFile(path));
  EXPECT_EQ(json["table"].size(), 32u);
  std::filesystem::remove_all(dir);
}

// ---- Saturation and error against f (issue 20 B) ----------------------------------------------

// Saturated entries and |T(q) - (f(x) / s_out + z_out)| recomputed here with float math: x from
// the JSON's input spec, f and the rounding written out in the test.
struct Recount {
  int64_t entries = 0;
  int64_t saturated = 0;
  double max_lsb = 0.0;
  double mean_lsb = 0.0;
};

Recount RecountTable(const nlohmann::json& j, const std::function<double(double)>& f,
                     const std::function<double(double)>& round, bool check_entries) {
  const double s_in = j["input"]["scale"], s_out = j["output"]["scale"];
  const int64_t z_in = j["input"]["zero_point"], z_out = j["output"]["zero_point"];
  const int64_t q0 = j["input"]["qmin"], lo = j["output"]["qmin"], hi = j["output"]["qmax"];
  const std::vector<int64_t> table = j["table"].get<std::vector<int64_t>>();
  Recount c;
  double sum = 0.0;
  for (size_t i = 0; i < table.size(); ++i) {
    const double r = f(s_in * static_cast<double>(q0 + static_cast<int64_t>(i) - z_in)) / s_out;
    const double rounded = round(r) + static_cast<double>(z_out);
    const bool clamped = rounded < static_cast<double>(lo) || rounded > static_cast<double>(hi);
    c.saturated += clamped;
    if (check_entries) {
      EXPECT_EQ(table[i], clamped ? (rounded < lo ? lo : hi) : static_cast<int64_t>(rounded)) << i;
    }
    const double error = std::abs(static_cast<double>(table[i]) - (r + static_cast<double>(z_out)));
    c.max_lsb = std::max(c.max_lsb, error);
    sum += error;
    ++c.entries;
  }
  c.mean_lsb = sum / static_cast<double>(c.entries);
  return c;
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double Gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double HalfEven(double x) { return std::nearbyint(x); }  // the default FE_TONEAREST mode
double HalfUp(double x) { return std::floor(x + 0.5); }

TEST(LutCli, SaturationAndErrorMatchFloatMath) {
  struct Case {
    std::string args;
    std::function<double(double)> f;
    std::function<double(double)> round;
    int64_t saturated;  // known by hand where the issue gives it, -1: only the recount
    bool check_entries = true;
  };
  const Case cases[] = {
      // The issue: unsigned tanh clamps every negative input (|x| >= 4/127 gives <= -8 LSB).
      {"--func tanh --in-bits 8 --in-amax 4 --out-bits 8 --out-unsigned",
       [](double x) { return std::tanh(x); }, HalfEven, 128},
      // The issue: a tiny scale saturates every entry but tanh(0) = 0.
      {"--func tanh --in-bits 4 --in-amax 8 --out-bits 8 --out-scale 1e-300",
       [](double x) { return std::tanh(x); }, HalfEven, 15},
      {"--func sigmoid --in-bits 8 --in-amax 8 --out-bits 8", Sigmoid, HalfEven, 0},
      {"--func gelu --in-bits 6 --in-amax 3 --narrow --out-bits 12 --out-unsigned --out-amax 3 "
       "--round half_up",
       Gelu, HalfUp, -1},
      {"--func leaky_relu --alpha 0.2 --in-bits 4 --in-unsigned --in-scale 0.25 --in-zp 8 "
       "--out-bits 8 --out-min -1 --out-max 2 --round floor",
       [](double x) { return x >= 0 ? x : 0.2 * x; }, [](double x) { return std::floor(x); }, -1},
      {"--func exp --in-bits 5 --in-amax 3 --out-bits 6 --out-scale 0.25 --out-zp -20",
       [](double x) { return std::exp(x); }, HalfEven, -1},
      // Truncation of the original float32 code; the recount is in double, the table in float32.
      {"--func sigmoid --in-bits 4 --in-amax 8 --out-bits 4 --out-amax 0.5 --compat seed", Sigmoid,
       [](double x) { return std::trunc(x); }, 7, false},
  };
  for (const Case& c : cases) {
    const CliResult r = RunQacc("lut " + c.args + " --json");
    ASSERT_EQ(r.exit_code, 0) << c.args << "\n" << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);  // the warning is not on stdout
    const Recount want = RecountTable(j, c.f, c.round, c.check_entries);
    if (c.saturated >= 0) {
      EXPECT_EQ(want.saturated, c.saturated) << c.args;
    }
    EXPECT_EQ(j["saturated"], want.saturated) << c.args;
    const double max_lsb = j["error_lsb"]["max"], mean_lsb = j["error_lsb"]["mean"];
    EXPECT_NEAR(max_lsb, want.max_lsb, 1e-9 * std::max(1.0, want.max_lsb)) << c.args;
    EXPECT_NEAR(mean_lsb, want.mean_lsb, 1e-9 * std::max(1.0, want.mean_lsb)) << c.args;
    if (want.saturated == 0) {
      EXPECT_LT(max_lsb, 1.0) << c.args;  // rounding alone, nothing clamped
      EXPECT_TRUE(r.err.empty()) << c.args << "\n" << r.err;
    } else {
      const std::string warning = "qacc: warning: lut " + j["function"].get<std::string>() + ": " +
                                  std::to_string(want.saturated) + " of " +
                                  std::to_string(want.entries) + " entries saturated";
      EXPECT_EQ(r.err.rfind(warning, 0), 0u) << c.args << "\n" << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
  // The derived unsigned tanh: scale = max |tanh| over the grid / 255, so the most
  // negative input is 255 LSB below code 0.
  const nlohmann::json j =
      RunJson("--func tanh --in-bits 8 --in-amax 4 --out-bits 8 --out-unsigned");
  EXPECT_DOUBLE_EQ(j["output"]["scale"].get<double>(), std::tanh(128 * 4.0 / 127) / 255);
  EXPECT_NEAR(j["error_lsb"]["max"].get<double>(), 255.0, 1e-9);
}

TEST(LutCli, SaturationWarningGoesToStderrOnly) {
  const std::string args = "lut --func tanh --in-bits 8 --in-amax 4 --out-bits 8 --out-unsigned";
  const std::string warning = "qacc: warning: lut tanh: 128 of 256 entries saturated";
  const CliResult text = RunQacc(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.err.rfind(warning, 0), 0u) << text.err;
  EXPECT_EQ(text.out.find("warning"), std::string::npos) << text.out;
  for (const char* line : {"saturated 128 of 256 entries", "error     max 255 LSB, mean "}) {
    EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;
  }
  const auto dir = ScratchDir("lut_warn");
  const auto path = dir / "table.json";
  const CliResult file = RunQacc(args + " --json -o " + path.string());
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_TRUE(file.out.empty()) << file.out;
  EXPECT_EQ(file.err.rfind(warning, 0), 0u) << file.err;
  EXPECT_EQ(nlohmann::json::parse(ReadWholeFile(path))["saturated"], 128);
  std::filesystem::remove_all(dir);
}

// ---- $readmemh image (issue 20 E) ---------------------------------------------------------------

TEST(LutCli, HexImageMatchesTheJsonTable) {
  struct Case {
    std::string args;
    int addresses, bits, digits;
  };
  const Case cases[] = {
      {"--func sigmoid --in-bits 4 --in-amax 8 --out-bits 8", 16, 8, 2},         // negative entries
      {"--func tanh --in-bits 8 --in-amax 3 --narrow --out-bits 5", 256, 5, 2},  // unused address
      {"--func gelu --in-bits 6 --in-unsigned --in-scale 0.1 --in-zp 30 --out-bits 12 "
       "--out-unsigned",
       64, 12, 3},
      {"--func exp --in-bits 2 --in-amax 1 --out-bits 16 --out-scale 0.001 --out-zp -32768", 4, 16,
       4},
      {"--func tanh --in-bits 3 --in-amax 2 --out-bits 3 --compat seed", 8, 3, 1},
  };
  const auto dir = ScratchDir("lut_hex");
  const auto hex = dir / "table.hex";
  for (const Case& c : cases) {
    const CliResult r = RunQacc("lut " + c.args + " --json --hex " + hex.string());
    ASSERT_EQ(r.exit_code, 0) << c.args << "\n" << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const ReadHex image = ReadHexImage(hex, c.digits);
    EXPECT_EQ(image.comment, "// qacc lut " + j["function"].get<std::string>() + ": " +
                                 std::to_string(c.addresses) + " x " + std::to_string(c.bits) +
                                 " bits, address = raw input code bits");
    ASSERT_EQ(image.words.size(), static_cast<size_t>(c.addresses)) << c.args;
    // Every code q is at address q mod 2^in_bits, as its two's complement (signed output) word.
    const int in_bits = j["input"]["bits"];
    const bool out_signed = j["output"]["signed"];
    const int64_t q0 = j["input"]["qmin"];
    const std::vector<int64_t> table = j["table"].get<std::vector<int64_t>>();
    for (size_t i = 0; i < table.size(); ++i) {
      const int64_t q = q0 + static_cast<int64_t>(i);
      const uint64_t address = static_cast<uint64_t>(q) & ((uint64_t{1} << in_bits) - 1);
      EXPECT_LT(image.words[address], uint64_t{1} << c.bits) << c.args;
      EXPECT_EQ(WordToCode(image.words[address], c.bits, out_signed), table[i])
          << c.args << " q " << q;
    }
    // The narrow input's unused address 2^(b-1) holds T(qmin), as the JSON's SRAM image.
    EXPECT_EQ(image.words, j["sram_words"].get<std::vector<uint64_t>>());
  }
  std::filesystem::remove_all(dir);
}

TEST(LutCli, HexBadPathNamesTheOptionAndLeavesNoFile) {
  const std::string args = "lut --func sigmoid --in-bits 4 --in-amax 8 --out-bits 8";
  const auto dir = ScratchDir("lut_hex_bad");
  const CliResult r = RunQacc(args + " --hex " + (dir / "missing" / "t.hex").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.rfind("qacc: error: --hex: ", 0), 0u) << r.err;
  // The image is written, then -o fails: the image is removed again.
  const auto hex = dir / "t.hex";
  const CliResult o =
      RunQacc(args + " --hex " + hex.string() + " -o " + (dir / "missing" / "t.json").string());
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--output"), std::string::npos) << o.err;
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            0);
  std::filesystem::remove_all(dir);
}

// ---- Help (issue 20 D) --------------------------------------------------------------------------

TEST(LutCli, HelpDefinesCompatSeedAndTheInputWidth) {
  const CliResult r = RunQacc("lut --help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("seed 000"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Seed 000"), std::string::npos) << r.out;
  for (const char* text :
       {"original float32 PyTorch code of the LUT article", "Not related to a random seed",
        "Input bits, 2..8: the table SRAM is addressed by an int8 code", "$readmemh"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  }
}

// Each bad invocation: exit 2, one message naming the option (and what is allowed), nothing
// written.
TEST(LutCli, BadArgumentsNameTheOptionAndWriteNothing) {
  struct Bad {
    std::string args;
    std::vector<std::string> expected;  // substrings of stderr
  };
  const std::string ok_in = "--in-bits 8 --in-amax 4";
  const Bad cases[] = {
      {"--func sigmoid --in-bits 9 --in-amax 4 --out-bits 8", {"--in-bits", "2..8"}},
      {"--func sigmoid --in-bits 1 --in-amax 4 --out-bits 8", {"--in-bits", "2..8"}},
      {"--func sigmoid --in-bits x --in-amax 4 --out-bits 8", {"--in-bits", "2..8"}},
      {"--func sigmoid " + ok_in + " --out-bits 17", {"--out-bits", "2..16"}},
      {"--func sigmoid " + ok_in + " --out-bits 1", {"--out-bits", "2..16"}},
      {"--func sigmoid --in-bits 8 --in-amax 0 --out-bits 8", {"--in-amax", "> 0"}},
      {"--func sigmoid --in-bits 8 --in-amax -1 --out-bits 8", {"--in-amax", "> 0"}},
      {"--func sigmoid --in-bits 8 --in-amax nan --out-bits 8", {"--in-amax", "> 0"}},
      {"--func sigmoid --in-bits 8 --in-amax inf --out-bits 8", {"--in-amax", "> 0"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --out-amax 0", {"--out-amax", "> 0"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --out-amax nan", {"--out-amax", "> 0"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --out-scale -2", {"--out-scale", "> 0"}},
      {"--func swish " + ok_in + " --out-bits 8", {"--func", "'swish'", "sigmoid|tanh|gelu"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --round nearest",
       {"--round", "'nearest'", "half_away|half_even|half_up|toward_zero|floor"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --compat torch", {"--compat", "'torch'", "seed"}},
      {"--func sigmoid --in-bits 8 --in-amax 4 --in-unsigned --out-bits 8 --out-unsigned --narrow",
       {"--narrow", "signed"}},
      {"--func sigmoid --in-bits 8 --out-bits 8", {"--in-amax", "required"}},
      {"--in-bits 8 --in-amax 4 --out-bits 8", {"--func", "required"}},
      {"--func sigmoid --in-amax 4 --out-bits 8", {"--in-bits", "required"}},
      {"--func sigmoid " + ok_in, {"--out-bits", "required"}},
      {"--func sigmoid " + ok_in + " --alpha 0.1 --out-bits 8", {"--alpha", "leaky_relu"}},
      {"--func leaky_relu " + ok_in + " --alpha nan --out-bits 8", {"--alpha", "finite"}},
      {"--func sigmoid --in-bits 8 --in-amax 4 --in-scale 0.1 --out-bits 8",
       {"--in-amax", "--in-scale"}},
      {"--func sigmoid --in-bits 8 --in-scale 0.1 --in-zp 128 --out-bits 8",
       {"--in-zp", "-128..127"}},
      {"--func sigmoid --in-bits 8 --in-amax 4 --in-zp 3 --out-bits 8", {"--in-zp", "--in-scale"}},
      {"--func sigmoid " + ok_in + " --out-bits 4 --out-scale 0.1 --out-zp 8",
       {"--out-zp", "-8..7"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --out-min 2 --out-max 1",
       {"--out-min", "--out-max"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --out-min -1", {"--out-min", "--out-max"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --out-amax 1 --out-scale 0.1",
       {"--out-scale", "--out-amax"}},
      // The original's QuantConfig asserts a signed spec above 8 bits.
      {"--func sigmoid " + ok_in + " --out-bits 12 --out-unsigned --compat seed",
       {"--out-bits", "12 is out of range", "2..8", "unsigned"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --compat seed --round floor",
       {"--round", "--compat seed"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --compat seed --in-scale 0.1",
       {"--in-scale", "--in-amax"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --compat seed --out-scale 0.1",
       {"--out-scale", "--compat seed"}},
      // relu on an unsigned grid entirely <= 0: f = 0 everywhere, no output scale can be derived.
      {"--func relu --in-bits 8 --in-unsigned --in-scale 0.1 --in-zp 255 --out-bits 8",
       {"--out-amax", "is 0"}},
      {"--func exp --in-bits 8 --in-amax 1000 --out-bits 8", {"--out-amax", "inf"}},
      {"--func sigmoid --in-bits 8 --in-amax 1e-60 --out-bits 8 --compat seed",
       {"--in-amax", "float32"}},
  };
  const auto dir = ScratchDir("lut_bad");
  const auto path = dir / "table.json";
  const auto hex = dir / "table.hex";
  for (const Bad& bad : cases) {
    const CliResult r =
        RunQacc("lut " + bad.args + " --json -o " + path.string() + " --hex " + hex.string());
    EXPECT_EQ(r.exit_code, 2) << bad.args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << bad.args;
    for (const std::string& text : bad.expected) {
      EXPECT_NE(r.err.find(text), std::string::npos) << bad.args << "\nmissing: " << text << "\n"
                                                     << r.err;
    }
    EXPECT_EQ(r.err.rfind("qacc: error: ", 0), 0u) << r.err;
    EXPECT_FALSE(std::filesystem::exists(path)) << bad.args;
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                            std::filesystem::directory_iterator()),
              0)
        << bad.args << ": a temporary file was left behind";
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace qacc::testing
