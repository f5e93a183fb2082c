// qacc calibrate run as a user would: its JSON must equal the golden API on the same file, and
// every bad invocation must exit 2 with one message naming the option or file, leaving no output
// file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "golden/calibration.h"
#include "golden/npy.h"
#include "tests/cli/cli_runner.h"

namespace qacc::testing {
namespace {

using golden::CalibrationMethod;
using golden::CalibrationOptions;
using golden::CalibrationResult;

class CalibrateCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir("calibrate");
    // 20000 N(0, 1) samples, a few zeros, and two outliers at -40 and +60: every method differs.
    std::mt19937_64 rng(17);
    std::normal_distribution<double> dist(0.0, 1.0);
    std::vector<double> v(20000);
    for (double& x : v) x = dist(rng);
    for (int i = 0; i < 50; ++i) v[100 + i] = 0.0;
    v[7] = -40.0;
    v[9] = 60.0;
    npy_ = (dir_ / "act.npy").string();
    golden::WriteNpy(npy_, v, {100, 200}, golden::NpyDtype::kFloat32);
    samples_ = golden::ReadNpy(npy_).values;  // the float32-rounded values the CLI sees
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Out(const std::string& name) const { return (dir_ / name).string(); }

  // Runs `qacc calibrate <npy> <args> --json` and parses stdout.
  nlohmann::json RunJson(const std::string& args) const {
    const CliResult r = RunQacc("calibrate " + npy_ + " " + args + " --json");
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    return nlohmann::json::parse(r.out);
  }

  // A bad invocation: exit 2, nothing on stdout, stderr names `needle`, and `-o` leaves no file.
  void ExpectUsageError(const std::string& args, const std::string& needle) const {
    const std::string out = Out("never.json");
    const CliResult r = RunQacc("calibrate " + args + " -o " + out);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << args << "\n" << r.out;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << args;
  }

  static void ExpectMatches(const nlohmann::json& j, const CalibrationResult& g) {
    EXPECT_EQ(j["method"], std::string(golden::CalibrationMethodName(g.method)));
    EXPECT_EQ(j["samples"], g.sample_count);
    EXPECT_EQ(j["symmetric"], g.symmetric);
    if (g.symmetric) {
      EXPECT_EQ(j["threshold"].get<double>(), g.threshold);
    } else {
      EXPECT_TRUE(j["threshold"].is_null());
    }
    EXPECT_EQ(j["range"][0].get<double>(), g.range_min);
    EXPECT_EQ(j["range"][1].get<double>(), g.range_max);
    EXPECT_EQ(j["scale"].get<double>(), g.spec.scale);
    EXPECT_EQ(j["zero_point"], g.spec.zero_point);
    EXPECT_EQ(j["bits"], g.spec.bits);
    EXPECT_EQ(j["signed"], g.spec.is_signed);
    EXPECT_EQ(j["qmin"], g.spec.qmin());
    EXPECT_EQ(j["qmax"], g.spec.qmax());
  }

  std::filesystem::path dir_;
  std::string npy_;
  std::vector<double> samples_;
};

TEST_F(CalibrateCli, EveryMethodMatchesTheGoldenApi) {
  for (CalibrationMethod method : {CalibrationMethod::kMinMax, CalibrationMethod::kKl,
                                   CalibrationMethod::kPercentile, CalibrationMethod::kMse}) {
    CalibrationOptions options;
    options.method = method;
    const nlohmann::json j =
        RunJson(std::string("--method ") + std::string(golden::CalibrationMethodName(method)));
    ExpectMatches(j, golden::Calibrate(samples_, options));
    EXPECT_EQ(j["shape"], (std::vector<int64_t>{100, 200}));
    EXPECT_EQ(j["dtype"], "<f4");
    EXPECT_EQ(j["format"], "npy");
  }
}

TEST_F(CalibrateCli, KlReportsItsDiagnosticsAndVariant) {
  CalibrationOptions options;
  options.method = CalibrationMethod::kKl;
  const CalibrationResult g = golden::Calibrate(samples_, options);
  const nlohmann::json j = RunJson("--method kl");
  EXPECT_EQ(j["kl_variant"], "default");
  EXPECT_EQ(j["diagnostics"]["bins_kept"], g.chosen_bin);
  EXPECT_EQ(j["diagnostics"]["zeros_skipped"], 50);
  EXPECT_EQ(j["diagnostics"]["bins"], 2048);
  EXPECT_LT(j["threshold"].get<double>(), 60.0);  // the outliers are clipped

  options.kl_variant = golden::KlVariant::kTengine;
  options.num_bins = 1024;
  const nlohmann::json t = RunJson("--method kl --kl-variant tengine --bins 1024");
  EXPECT_EQ(t["kl_variant"], "tengine");
  ExpectMatches(t, golden::Calibrate(samples_, options));
}

TEST_F(CalibrateCli, TargetShapeOptions) {
  CalibrationOptions options;
  options.method = CalibrationMethod::kPercentile;
  options.percentile = 99.5;
  options.asymmetric = true;
  options.is_signed = false;
  options.bits = 6;
  const nlohmann::json j =
      RunJson("--method percentile --percentile 99.5 --asymmetric --unsigned --bits 6");
  ExpectMatches(j, golden::Calibrate(samples_, options));
  EXPECT_EQ(j["percentile"], 99.5);

  options = CalibrationOptions{};
  options.method = CalibrationMethod::kMse;
  options.narrow = true;
  options.bits = 4;
  ExpectMatches(RunJson("--method mse --narrow --bits 4"), golden::Calibrate(samples_, options));
}

TEST_F(CalibrateCli, RawFloat32Input) {
  const std::string raw = Out("act.f32");
  {
    std::ofstream out(raw, std::ios::binary);
    for (double x : samples_) {
      const auto f = static_cast<float>(x);
      out.write(reinterpret_cast<const char*>(&f), sizeof(f));
    }
  }
  const CliResult r = RunQacc("calibrate " + raw + " --raw-f32 --method minmax --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "raw-f32");
  EXPECT_EQ(j["samples"], 20000);
  EXPECT_EQ(j["threshold"].get<double>(), 60.0);
}

// Issue 20 A: --raw-f32 on a .npy read its header as floats (max 7.7e31) and calibrated to them.
TEST_F(CalibrateCli, RawFloat32RefusesANpyFile) {
  for (const char* method : {"minmax", "kl"}) {
    ExpectUsageError(npy_ + " --raw-f32 --method " + method,
                     "--raw-f32: " + npy_ + " is a .npy file");
    ExpectUsageError(npy_ + " --raw-f32 --method " + method, "drop --raw-f32");
  }
  // The magic alone is enough (a float64 .npy, and a file holding just the 6 magic bytes)...
  const std::string f8 = Out("act_f8.npy");
  golden::WriteNpy(f8, {1.0, 2.0}, {2}, golden::NpyDtype::kFloat64);
  ExpectUsageError(f8 + " --raw-f32 --method minmax", "is a .npy file");
  const std::string magic = Out("magic.bin");
  std::ofstream(magic, std::ios::binary) << "\x93NUMPY";
  ExpectUsageError(magic + " --raw-f32 --method minmax", "is a .npy file");
  // ...and a raw file that differs from it in the last byte is read as two float32 values.
  const std::string raw = Out("near.f32");
  std::ofstream(raw, std::ios::binary) << std::string("\x93NUMPZ\0\0", 8);
  const CliResult r = RunQacc("calibrate " + raw + " --raw-f32 --method minmax --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["samples"], 2);
}

TEST_F(CalibrateCli, HumanOutputAndOutputFile) {
  const CliResult r = RunQacc("calibrate " + npy_ + " --method minmax");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"method      minmax\n", "threshold   60\n", "range       [-60, 60]\n", "zero point  0\n",
        "samples     20000 ", "scale       0.47244094488188976\n"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  const std::string out = Out("result.json");
  const CliResult w = RunQacc("calibrate " + npy_ + " --method percentile --json -o " + out);
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_TRUE(w.out.empty());
  EXPECT_EQ(nlohmann::json::parse(ReadWholeFile(out))["method"], "percentile");
}

TEST_F(CalibrateCli, BadArgumentsExitTwoAndNameTheOption) {
  ExpectUsageError(npy_ + " --method entropy",
                   "--method: 'entropy' is not a calibration method; "
                   "choose minmax|kl|percentile|mse");
  ExpectUsageError(npy_, "--method is required");
  ExpectUsageError(npy_ + " --method percentile --percentile 0", "--percentile: 0 is out of range");
  ExpectUsageError(npy_ + " --method percentile --percentile 100.01", "--percentile");
  ExpectUsageError(npy_ + " --method percentile --percentile abc", "--percentile");
  ExpectUsageError(npy_ + " --method kl --percentile 99", "--percentile applies only");
  ExpectUsageError(npy_ + " --method minmax --kl-variant tengine", "--kl-variant applies only");
  ExpectUsageError(npy_ + " --method kl --kl-variant mxnet", "choose default|tengine");
  ExpectUsageError(npy_ + " --method minmax --bins 100", "--bins applies only");
  ExpectUsageError(npy_ + " --method kl --bits 17", "--bits");
  ExpectUsageError(npy_ + " --method kl --bits 1", "--bits");
  ExpectUsageError(npy_ + " --method kl --bits 16", "--bins: 2048 histogram bins are too few");
  ExpectUsageError(npy_ + " --method kl --asymmetric", "--asymmetric: method kl is symmetric only");
  ExpectUsageError(npy_ + " --method minmax --unsigned --narrow", "--narrow");
  ExpectUsageError(npy_ + " --method minmax --unsigned", "needs samples >= 0");
}

TEST_F(CalibrateCli, BadFilesExitTwoAndNameTheFile) {
  const std::string missing = Out("missing.npy");
  ExpectUsageError(missing + " --method minmax", missing + ": cannot open");

  const std::string text = Out("notes.npy");
  std::ofstream(text) << "not numpy";
  ExpectUsageError(text + " --method minmax", text + ": not a .npy file: bad magic");

  const std::string big_endian = Out("be.npy");
  {
    std::string header = "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';  // numpy's 64-byte alignment
    header += '\n';
    std::ofstream out(big_endian, std::ios::binary);
    out << std::string("\x93NUMPY\x01\x00", 8) << static_cast<char>(header.size()) << '\0' << header
        << std::string("\x3f\x80\x00\x00", 4);
  }
  ExpectUsageError(big_endian + " --method minmax", big_endian + ": big-endian dtype '>f4'");

  const std::string truncated = Out("short.npy");
  {
    const std::string bytes = ReadWholeFile(npy_);
    std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() - 4);
  }
  ExpectUsageError(truncated + " --method minmax", truncated + ": data is truncated");

  const std::string with_nan = Out("nan.npy");
  golden::WriteNpy(with_nan, {1.0, std::nan(""), 2.0}, {3}, golden::NpyDtype::kFloat64);
  ExpectUsageError(with_nan + " --method kl", with_nan + ": sample 1 is nan");

  // Integer codes are not activations: the .npy reader takes them (for qacc apply), calibrate not.
  const std::string codes = Out("codes.npy");
  golden::WriteNpy(codes, {1.0, -3.0}, {2}, golden::NpyDtype::kInt8);
  ExpectUsageError(codes + " --method minmax", codes + ": dtype int8 holds integer codes");

  const std::string empty = Out("empty.npy");
  golden::WriteNpy(empty, {}, {0}, golden::NpyDtype::kFloat32);
  ExpectUsageError(empty + " --method minmax", empty + ": no samples");

  const std::string odd = Out("odd.f32");
  std::ofstream(odd, std::ios::binary) << "abcdef";
  ExpectUsageError(odd + " --raw-f32 --method minmax", odd + ": raw float32 file size 6 bytes");
}

}  // namespace
}  // namespace qacc::testing
