// qacc multiplier, run as a user would: JSON values against hand-derived facts, usage errors, -o
// behaviour.
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

const nlohmann::json* FindWidth(const nlohmann::json& j, int bits) {
  for (const nlohmann::json& entry : j.at("exact_rshift")) {
    if (entry.at("bits") == bits) return &entry;
  }
  return nullptr;
}

TEST(MultiplierCli, JsonMatchesKnownFacts) {
  const nlohmann::json j = ParseJson(RunQacc("multiplier --scale 0.1234 --json"));
  EXPECT_EQ(j.at("scale"), 0.1234);
  // TFLite: 0.1234 = 0.9872 * 2^-3, round(0.9872 * 2^31) = 2119995857.
  EXPECT_EQ(j.at("tflite").at("multiplier"), 2119995857);
  EXPECT_EQ(j.at("tflite").at("shift"), -3);
  EXPECT_EQ(j.at("tflite").at("effective_scale"), 2119995857.0 / 17179869184.0);  // / 2^34
  EXPECT_LT(std::abs(j.at("tflite").at("relative_error").get<double>()), 1e-9);
  ASSERT_EQ(j.at("exact_rshift").size(), 3u);
  // Exact: 32-bit (2119995857, 34) as in TPU-MLIR's documentation; 16-bit 0.1234 * 2^18 = 32348.57 ->
  // 32349; 8-bit 0.1234 * 2^10 = 126.36 -> 126.
  const struct {
    int bits;
    int64_t multiplier;
    int rshift;
  } expected[] = {{8, 126, 10}, {16, 32349, 18}, {32, 2119995857, 34}};
  for (const auto& e : expected) {
    const nlohmann::json* entry = FindWidth(j, e.bits);
    ASSERT_NE(entry, nullptr) << e.bits;
    EXPECT_EQ(entry->at("multiplier"), e.multiplier) << e.bits;
    EXPECT_EQ(entry->at("rshift"), e.rshift) << e.bits;
    const double effective = static_cast<double>(e.multiplier) / std::ldexp(1.0, e.rshift);
    EXPECT_EQ(entry->at("effective_scale"), effective) << e.bits;
    EXPECT_DOUBLE_EQ(entry->at("relative_error").get<double>(), (effective - 0.1234) / 0.1234)
        << e.bits;
  }
}

TEST(MultiplierCli, TfliteFactsAndOneWidth) {
  const nlohmann::json one = ParseJson(RunQacc("multiplier --scale 1 --bits 8 --json"));
  EXPECT_EQ(one.at("tflite").at("multiplier"), 1 << 30);
  EXPECT_EQ(one.at("tflite").at("shift"), 1);
  ASSERT_EQ(one.at("exact_rshift").size(), 1u);
  EXPECT_EQ(one.at("exact_rshift")[0].at("multiplier"), 64);  // 1.0 * 2^7 = 128 does not fit: 64 >> 6
  EXPECT_EQ(one.at("exact_rshift")[0].at("rshift"), 6);

  const nlohmann::json third =
      ParseJson(RunQacc("multiplier --scale 0.3333333333333333 --bits 32 --json"));
  EXPECT_EQ(third.at("tflite").at("multiplier"), 1431655765);
  EXPECT_EQ(third.at("tflite").at("shift"), -1);

  const nlohmann::json tiny = ParseJson(RunQacc("multiplier --scale 1e-10 --json"));
  EXPECT_EQ(tiny.at("tflite").at("multiplier"), 0);  // flushed: shift would be -33
  EXPECT_EQ(tiny.at("tflite").at("shift"), 0);
  EXPECT_EQ(tiny.at("tflite").at("relative_error"), -1.0);
}

TEST(MultiplierCli, WidthThatCannotRepresentTheScaleIsMarked) {
  // 300 = 0.5859375 * 2^9: TFLite (1258291200, 9). 8 bits cannot hold round(300) = 300;
  // 16 bits: 300 * 2^6 = 19200.
  const nlohmann::json j = ParseJson(RunQacc("multiplier --scale 300 --json"));
  EXPECT_EQ(j.at("tflite").at("multiplier"), 1258291200);
  EXPECT_EQ(j.at("tflite").at("shift"), 9);
  const nlohmann::json* eight = FindWidth(j, 8);
  ASSERT_NE(eight, nullptr);
  EXPECT_TRUE(eight->contains("error"));
  EXPECT_FALSE(eight->contains("multiplier"));
  const nlohmann::json* sixteen = FindWidth(j, 16);
  ASSERT_NE(sixteen, nullptr);
  EXPECT_EQ(sixteen->at("multiplier"), 19200);
  EXPECT_EQ(sixteen->at("rshift"), 6);
}

TEST(MultiplierCli, HumanOutputShowsBothConventions) {
  const CliResult r = RunQacc("multiplier --scale 0.1234");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("TFLite"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rshift    real = multiplier / 2^rshift, exact"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("TPU-MLIR"), std::string::npos) << "the exact mode is not TPU-MLIR's: " << r.out;
  EXPECT_NE(r.out.find("2119995857"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("32349"), std::string::npos) << r.out;
}

// A zero scale (a dead channel) is multiplier 0 everywhere, as TFLite; no relative error.
TEST(MultiplierCli, ZeroScaleIsMultiplierZero) {
  const nlohmann::json j = ParseJson(RunQacc("multiplier --scale 0 --json"));
  EXPECT_EQ(j.at("tflite").at("multiplier"), 0);
  EXPECT_TRUE(j.at("tflite").at("relative_error").is_null());
  for (const nlohmann::json& e : j.at("exact_rshift")) EXPECT_EQ(e.at("multiplier"), 0) << e;
  const nlohmann::json t = ParseJson(RunQacc("multiplier --scale 0 --compat tpu-mlir --json"));
  for (const nlohmann::json& e : t.at("tpu_mlir")) EXPECT_EQ(e.at("multiplier"), 0) << e;
}

// The examples of TPU-MLIR's derivation (truncated multiplier, smallest rshift reaching max / 2,
// saturation above the maximum) next to the exact derivation's different answers.
TEST(MultiplierCli, TpuMlirCompatReproducesItsDerivation) {
  struct Case {
    const char* scale;
    int64_t m127;
    int r127;
    int64_t exact8;
    int exact8_rshift;
  };
  for (const Case& c : {Case{"0.3", 76, 8, 77, 8}, Case{"0.99", 126, 7, 127, 7},
                        Case{"0.12421875", 63, 9, 127, 10}}) {
    const nlohmann::json t =
        ParseJson(RunQacc(std::string("multiplier --compat tpu-mlir --json --scale ") + c.scale));
    ASSERT_EQ(t.at("tpu_mlir").size(), 2u);
    EXPECT_EQ(t.at("tpu_mlir")[0].at("max_multiplier"), 127);
    EXPECT_EQ(t.at("tpu_mlir")[0].at("multiplier"), c.m127) << c.scale;
    EXPECT_EQ(t.at("tpu_mlir")[0].at("rshift"), c.r127) << c.scale;
    EXPECT_EQ(t.at("tpu_mlir")[1].at("max_multiplier"), 255);
    const nlohmann::json e =
        ParseJson(RunQacc(std::string("multiplier --bits 8 --json --scale ") + c.scale));
    EXPECT_EQ(e.at("exact_rshift")[0].at("multiplier"), c.exact8) << c.scale;
    EXPECT_EQ(e.at("exact_rshift")[0].at("rshift"), c.exact8_rshift) << c.scale;
  }
  const nlohmann::json sat =
      ParseJson(RunQacc("multiplier --compat tpu-mlir --bits 8 --scale 200 --json"));
  ASSERT_EQ(sat.at("tpu_mlir").size(), 1u);
  EXPECT_EQ(sat.at("tpu_mlir")[0].at("multiplier"), 127);
  EXPECT_EQ(sat.at("tpu_mlir")[0].at("rshift"), 0);
  EXPECT_EQ(sat.at("tpu_mlir")[0].at("saturated"), true);
  // TFLite cannot represent 1e10 (shift > 30); TPU-MLIR saturates: reported, exit 0.
  const nlohmann::json huge = ParseJson(RunQacc("multiplier --compat tpu-mlir --scale 1e10 --json"));
  EXPECT_TRUE(huge.at("tflite").contains("error"));
  EXPECT_EQ(huge.at("tpu_mlir")[0].at("multiplier"), 127);
  const nlohmann::json user =
      ParseJson(RunQacc("multiplier --compat tpu-mlir --max-multiplier 1000 --scale 0.3 --json"));
  EXPECT_EQ(user.at("tpu_mlir")[0].at("multiplier"), 614);  // 0.3 * 2^11 = 614.4, 0.3 * 2^12 >= 1000
  EXPECT_EQ(user.at("tpu_mlir")[0].at("rshift"), 11);
  const nlohmann::json qdm = ParseJson(RunQacc("multiplier --compat tpu-mlir --qdm --scale 0.3 --json"));
  EXPECT_EQ(qdm.at("tpu_mlir_qdm").at("multiplier"), 1288490189);
  EXPECT_EQ(qdm.at("tpu_mlir_qdm").at("rshift"), 1);
  const CliResult text = RunQacc("multiplier --compat tpu-mlir --scale 0.3");
  EXPECT_NE(text.out.find("TPU-MLIR"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("getRShiftAndMultiplierFromQScale"), std::string::npos) << text.out;
}

TEST(MultiplierCli, OutputFileHoldsTheJson) {
  const auto dir = ScratchDir("multiplier_out");
  const auto path = dir / "m.json";
  const CliResult r = RunQacc("multiplier --scale 0.5 --json -o " + path.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  const nlohmann::json j = nlohmann::json::parse(ReadWholeFile(path));
  EXPECT_EQ(j.at("tflite").at("multiplier"), 1 << 30);
  EXPECT_EQ(j.at("tflite").at("shift"), 0);
  std::filesystem::remove_all(dir);
}

struct BadArgs {
  const char* args;
  const char* option;  // the option the message must name
};

TEST(MultiplierCli, BadArgumentsExitTwoNameTheOptionAndWriteNoFile) {
  const BadArgs cases[] = {
      {"--scale -1", "--scale"},
      {"--scale -0.5 --compat tpu-mlir", "--scale"},
      {"--scale 0.5 --compat tflite", "--compat"},
      {"--scale 0.5 --max-multiplier 127", "--max-multiplier"},  // only with --compat tpu-mlir
      {"--scale 0.5 --qdm", "--qdm"},
      {"--scale 0.5 --compat tpu-mlir --max-multiplier 0", "--max-multiplier"},
      {"--scale 0.5 --compat tpu-mlir --max-multiplier 127 --bits 8", "--max-multiplier"},
      {"--scale 0.5 --compat tpu-mlir --qdm --bits 8", "--bits"},
      {"--scale nan", "--scale"},
      {"--scale abc", "--scale"},
      {"--scale inf", "--scale"},
      {"--scale 2e9", "--scale"},           // TFLite shift would exceed 30
      {"--scale 300 --bits 8", "--scale"},  // round(300) does not fit int8
      {"--scale 0.5 --bits 12", "--bits"},
      {"--scale 0.5 --bits abc", "--bits"},
      {"--bits 8", "--scale"},  // missing --scale
  };
  const auto dir = ScratchDir("multiplier_bad");
  for (const BadArgs& c : cases) {
    const auto path = dir / "never.json";
    const CliResult r =
        RunQacc(std::string("multiplier ") + c.args + " --json -o " + path.string());
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.option), std::string::npos) << c.args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args;
    EXPECT_FALSE(std::filesystem::exists(path)) << c.args;
    EXPECT_TRUE(std::filesystem::is_empty(dir)) << c.args << ": temporary file left behind";
  }
  std::filesystem::remove_all(dir);
}

TEST(MultiplierCli, BadRangeMessagesStateTheAllowedRange) {
  EXPECT_NE(RunQacc("multiplier --scale 0.5 --bits 12").err.find("8, 16 or 32"), std::string::npos);
  EXPECT_NE(RunQacc("multiplier --scale -1").err.find(">= 0"), std::string::npos);
  EXPECT_NE(RunQacc("multiplier --scale 1 --compat tpu-mlir --max-multiplier 0").err.find("range 1 to "),
            std::string::npos);
  EXPECT_NE(RunQacc("multiplier --scale 300 --bits 8").err.find("127.5"), std::string::npos);
  EXPECT_NE(RunQacc("multiplier --scale 2e9").err.find("1073741823.75"), std::string::npos);
}

}  // namespace
}  // namespace qacc::testing
