// qacc lut run as a user would: its JSON against the golden API, its text, and every bad argument.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "golden/elementwise.h"
#include "golden/lut.h"
#include "golden/quant.h"
#include "tests/cli/cli_runner.h"

namespace qacc::testing {
namespace {

nlohmann::json RunJson(const std::string& args) {
  const CliResult r = RunQacc("lut " + args + " --json");
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
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
      {"--func sigmoid " + ok_in + " --out-bits 16 --compat seed", {"--out-bits", "must be 8"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --compat seed --round floor",
       {"--round", "--compat seed"}},
      {"--func sigmoid " + ok_in + " --out-bits 8 --compat seed --in-unsigned",
       {"--in-unsigned", "--compat"}},
      // relu on an unsigned grid entirely <= 0: f = 0 everywhere, no output scale can be derived.
      {"--func relu --in-bits 8 --in-unsigned --in-scale 0.1 --in-zp 255 --out-bits 8",
       {"--out-amax", "is 0"}},
      {"--func exp --in-bits 8 --in-amax 1000 --out-bits 8", {"--out-amax", "inf"}},
      {"--func sigmoid --in-bits 8 --in-amax 1e-60 --out-bits 8 --compat seed",
       {"--in-amax", "float32"}},
  };
  const auto dir = ScratchDir("lut_bad");
  const auto path = dir / "table.json";
  for (const Bad& bad : cases) {
    const CliResult r = RunQacc("lut " + bad.args + " --json -o " + path.string());
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
