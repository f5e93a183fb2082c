// `qacc apply` as a user runs it: each operator over .npy tensors of codes, its output checked
// element by element against an oracle written here (gemmlowp and plain integer or float math, not
// the golden code), its --report against a recomputation, and bad input refused with exit 2, a
// message naming the file and the field, and no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "golden/elementwise.h"
#include "golden/lut.h"
#include "golden/npy.h"
#include "golden/quant.h"
#include "golden/softmax.h"
#include "tests/cli/cli_runner.h"
#include "tests/unit/requant_oracle.h"

namespace qacc::testing {
namespace {

namespace fs = std::filesystem;
using golden::NpyDtype;

class ApplyCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir(std::string("apply_") +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Write(const std::string& name, const std::vector<int64_t>& codes,
                    const std::vector<int64_t>& shape, NpyDtype dtype) {
    golden::WriteNpy(Path(name), std::vector<double>(codes.begin(), codes.end()), shape, dtype);
    return Path(name);
  }
  std::vector<int64_t> Read(const std::string& name, std::vector<int64_t>* shape = nullptr,
                            NpyDtype* dtype = nullptr) {
    const golden::NpyArray a = golden::ReadNpy(Path(name));
    if (shape != nullptr) *shape = a.shape;
    if (dtype != nullptr) *dtype = a.dtype;
    return std::vector<int64_t>(a.values.begin(), a.values.end());
  }
  // Runs `qacc apply ARGS`, expecting exit code 2, a message containing `message`, and no output.
  void ExpectUsageError(const std::string& args, const std::string& message) {
    const CliResult r = RunQacc("apply " + args + " -o " + Path("bad_out.npy"));
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
    EXPECT_FALSE(fs::exists(Path("bad_out.npy"))) << args;
  }

  fs::path dir_;
};

std::vector<int64_t> RandomCodes(size_t count, int64_t lo, int64_t hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> code(lo, hi);
  std::vector<int64_t> codes(count);
  for (int64_t& c : codes) c = code(rng);
  return codes;
}

// ---- requant
// A padding whose output would not fit in memory is a usage error naming --pad and the limit, not
// "internal error: std::bad_alloc" (issue 37); within the limit it runs.
TEST_F(ApplyCli, PadBeyondTheOutputLimitIsAUsageError) {
  const std::string x = Write("x.npy", {1, 2, 3, 4}, {1, 2, 2, 1}, NpyDtype::kInt8);
  ExpectUsageError("pad " + x + " --pad 30000 --in-scale 0.02",
                   "--pad: 30000,30000,30000,30000 makes the output of shape (1, 60002, 60002, 1) "
                   "3600240004 codes; at most 67108864 (2^26) are allowed");
  // 2 x (2 + 4095) x (2 + 8190) x 1 = 67125248 codes, 2^26 + 16384.
  const std::string wide =
      Write("wide.npy", std::vector<int64_t>(8, 0), {2, 2, 2, 1}, NpyDtype::kInt8);
  ExpectUsageError("pad " + wide + " --pad 2047,2048,4095,4095 --in-scale 0.02",
                   "(2, 4097, 8192, 1) 67125248 codes; at most 67108864 (2^26) are allowed");
  const CliResult ok =
      RunQacc("apply pad " + x + " -o " + Path("y.npy") + " --pad 1,0,2,0 --in-scale 0.02");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  std::vector<int64_t> shape;
  Read("y.npy", &shape);
  EXPECT_EQ(shape, (std::vector<int64_t>{1, 3, 4, 1}));
}

TEST_F(ApplyCli, RequantPerTensorMatchesGemmlowp) {
  const std::vector<int64_t> acc = RandomCodes(5 * 7, -3000000, 3000000, 1);
  const std::string in = Write("acc.npy", acc, {5, 7}, NpyDtype::kInt32);
  for (const double scale : {0.00003, 0.0123, 0.9}) {
    const CliResult r = RunQacc("apply requant " + in + " -o " + Path("y.npy") + " --scale " +
                                std::to_string(scale) + " --out-zp -5");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    NpyDtype dtype;
    std::vector<int64_t> shape;
    const std::vector<int64_t> y = Read("y.npy", &shape, &dtype);
    EXPECT_EQ(shape, (std::vector<int64_t>{5, 7}));
    EXPECT_EQ(dtype, NpyDtype::kInt8);
    const RefMultiplier m = RefQuantizeMultiplier(std::stod(std::to_string(scale)));
    for (size_t i = 0; i < acc.size(); ++i) {
      const int64_t want =
          std::clamp<int64_t>(GemmlowpMultiply(static_cast<int32_t>(acc[i]), m) - 5, -128, 127);
      ASSERT_EQ(y[i], want) << "scale " << scale << " element " << i;
    }
  }
}

TEST_F(ApplyCli, RequantPerChannelAlongAnyAxis) {
  const std::vector<int64_t> acc = RandomCodes(2 * 3 * 4, -500000, 500000, 2);
  const std::string in = Write("acc.npy", acc, {2, 3, 4}, NpyDtype::kInt32);
  const std::vector<double> scales = {0.0002, 0.0005, 0.00011};
  // Axis 1 (also written -2): element (i, c, k) uses scales[c].
  for (const char* axis : {"1", "-2"}) {
    const CliResult r = RunQacc("apply requant " + in + " -o " + Path("y.npy") +
                                " --scale 0.0002,0.0005,0.00011 --axis " + axis +
                                " --out-unsigned --out-zp 128 --rounding single");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    NpyDtype dtype;
    const std::vector<int64_t> y = Read("y.npy", nullptr, &dtype);
    EXPECT_EQ(dtype, NpyDtype::kUint8);
    for (size_t i = 0; i < acc.size(); ++i) {
      const size_t c = (i / 4) % 3;
      // Single rounding: round(acc * q * 2^(shift - 31)) half away from zero, exactly in int64
      // (|acc| < 2^19 and q < 2^31).
      const RefMultiplier m = RefQuantizeMultiplier(scales[c]);
      const int64_t product = acc[i] * m.multiplier;
      const int right = 31 - m.shift;
      const int64_t mag = (std::abs(product) + (int64_t{1} << (right - 1))) >> right;
      const int64_t rounded = product < 0 ? -mag : mag;
      ASSERT_EQ(y[i], std::clamp<int64_t>(rounded + 128, 0, 255)) << "axis " << axis << " " << i;
    }
  }
}

// --compat tpu-mlir, per tensor and per channel: the pair TPU-MLIR derives (0.3 -> 76 >> 8, 0.0021 ->
// 0.0021 * 2^15 = 68.8 -> 68 >> 15, 0.99 -> 126 >> 7, max 127) applied as (acc * M) >> rshift rounded half up
// (ties toward +infinity: floor(acc * M / 2^r + 1/2)), + zero point, saturated; computed here by hand.
TEST_F(ApplyCli, RequantTpuMlirCompat) {
  const std::vector<int64_t> acc = RandomCodes(4 * 3, -3000, 3000, 5);
  const std::string in = Write("acc.npy", acc, {4, 3}, NpyDtype::kInt32);
  auto half_up = [](int64_t num, int r) {  // floor(num / 2^r + 1/2)
    const int64_t d = int64_t{1} << r;
    const int64_t twice = 2 * num + d, den = 2 * d;
    return twice >= 0 ? twice / den : -((-twice + den - 1) / den);
  };
  const CliResult r = RunQacc("apply requant " + in + " -o " + Path("y.npy") +
                              " --compat tpu-mlir --scale 0.3,0.0021,0.99 --out-zp 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<int64_t> y = Read("y.npy");
  const int64_t m[] = {76, 68, 126};
  const int rs[] = {8, 15, 7};
  for (size_t i = 0; i < acc.size(); ++i) {
    const size_t c = i % 3;
    ASSERT_EQ(y[i], std::clamp<int64_t>(half_up(acc[i] * m[c], rs[c]) + 3, -128, 127)) << i;
  }
  // Per tensor, explicit pair, half away from zero: -2 * 64 / 256 = -0.5 -> -1 (half up would give 0).
  const std::string ties = Write("ties.npy", {-2, 2, -6, 6}, {4}, NpyDtype::kInt32);
  const CliResult t =
      RunQacc("apply requant " + ties + " -o " + Path("t.npy") +
              " --compat tpu-mlir --multiplier 64 --rshift 8 --tpu-rounding half_away_from_zero");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(Read("t.npy"), (std::vector<int64_t>{-1, 1, -2, 2}));
  // A zero scale is a dead channel: the output zero point, in either convention.
  for (const char* compat : {"", " --compat tpu-mlir"}) {
    const CliResult z = RunQacc("apply requant " + ties + " -o " + Path("z.npy") + " --scale 0 --out-zp 7" +
                                compat);
    ASSERT_EQ(z.exit_code, 0) << z.err;
    EXPECT_EQ(Read("z.npy"), (std::vector<int64_t>{7, 7, 7, 7})) << compat;
  }
}

TEST_F(ApplyCli, ReportMatchesARecomputation) {
  const std::vector<int64_t> acc = RandomCodes(1000, -200000, 200000, 3);
  const std::string in = Write("acc.npy", acc, {1000}, NpyDtype::kInt32);
  const CliResult r = RunQacc("apply requant " + in + " -o " + Path("y.npy") +
                              " --multiplier 1518500250 --shift -9 --report --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const std::vector<int64_t> y = Read("y.npy");
  double max_error = 0, sum = 0;
  int64_t saturated = 0, correctly_rounded = 0;
  for (size_t i = 0; i < acc.size(); ++i) {
    const double ref = double(acc[i]) * 1518500250.0 / 2147483648.0 / 512.0;
    const double ideal = std::clamp(ref, -128.0, 127.0);
    saturated += ideal != ref;
    const double e = std::abs(double(y[i]) - ideal);
    max_error = std::max(max_error, e);
    sum += e;
    correctly_rounded += e <= 0.5;
  }
  EXPECT_GT(saturated, 0);  // the range is exceeded on purpose
  EXPECT_DOUBLE_EQ(j["report"]["max_abs_lsb"].get<double>(), max_error);
  EXPECT_NEAR(j["report"]["mean_abs_lsb"].get<double>(), sum / 1000, 1e-12);
  EXPECT_EQ(j["report"]["saturated"], saturated);
  EXPECT_EQ(j["report"]["elements"], 1000);
  EXPECT_EQ(j["report"]["histogram"][0]["count"], correctly_rounded);
  EXPECT_LE(max_error, 0.5 + 1e-6);  // double rounding is off by at most a rounding tie
}

TEST_F(ApplyCli, RequantBadInput) {
  const std::string acc = Write("acc.npy", RandomCodes(12, -9, 9, 4), {3, 4}, NpyDtype::kInt32);
  golden::WriteNpy(Path("float.npy"), {1.0, 2.0}, {2}, NpyDtype::kFloat32);
  ExpectUsageError("requant " + Path("float.npy") + " --scale 0.5",
                   "input: " + Path("float.npy") + ": dtype float32 is not integer codes");
  ExpectUsageError("requant " + acc + " --scale 0.1,0.2",
                   "--axis: axis -1 of the input "
                   "(shape (3, 4)) has 4 channels, but 2 per-channel parameters");
  ExpectUsageError("requant " + acc + " --scale 0.1,0.2,0.3 --axis 2", "--axis: 2 is outside");
  ExpectUsageError("requant " + acc + " --multiplier 5 --shift 0", "--multiplier/--shift");
  ExpectUsageError("requant " + acc + " --multiplier 1073741824", "--multiplier and --shift");
  ExpectUsageError("requant " + acc + " --scale 0.5 --rounding up", "--rounding: 'up'");
  ExpectUsageError("requant " + acc + " --scale 0.5 --compat tflite", "--compat");
  ExpectUsageError("requant " + acc + " --scale 0.5 --compat tpu-mlir --rounding single", "--rounding");
  ExpectUsageError("requant " + acc + " --scale 0.5 --max-multiplier 255", "--max-multiplier");
  ExpectUsageError("requant " + acc + " --scale 0.5 --compat tpu-mlir --tpu-rounding odd",
                   "--tpu-rounding: 'odd'");
  ExpectUsageError("requant " + acc + " --compat tpu-mlir --multiplier 5 --rshift 64", "--multiplier/--rshift");
  ExpectUsageError("requant " + acc + " --compat tpu-mlir --multiplier 5 --shift 3", "--shift");
  ExpectUsageError("requant " + acc + " --scale -0.5", "--scale");
  ExpectUsageError("requant " + acc + " --scale 0.5 --out-zp 300", "--out-zp: 300 is outside");
  ExpectUsageError("requant " + Path("missing.npy") + " --scale 0.5", "missing.npy");
  ExpectUsageError("requant " + acc + " --scale 0.5 --out-bits 17", "--out-bits");
  const CliResult dash = RunQacc("apply requant " + acc + " --scale 0.5 -o -");
  EXPECT_EQ(dash.exit_code, 2);
  EXPECT_NE(dash.err.find("cannot be standard output"), std::string::npos) << dash.err;
  EXPECT_FALSE(fs::exists("-"));
}

// ---- lut
TEST_F(ApplyCli, LutMatchesFloatMathOnEveryCode) {
  // Every int8 code, in a 2-D tensor, twice (the table is indexed, not recomputed).
  std::vector<int64_t> codes;
  for (int rep = 0; rep < 2; ++rep) {
    for (int q = -128; q <= 127; ++q) codes.push_back(q);
  }
  const std::string in = Write("x.npy", codes, {2, 256}, NpyDtype::kInt8);
  struct Case {
    std::string func;
    double (*f)(double);
    std::string out;  // output options
    double out_scale;
    int64_t zp, qmin, qmax;
  };
  const std::vector<Case> cases = {
      {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); },
       "--out-bits 8 --out-unsigned --out-scale 0.00390625", 0.00390625, 0, 0, 255},
      {"tanh", [](double x) { return std::tanh(x); },
       "--out-bits 8 --out-scale 0.0078125 --out-zp 3", 0.0078125, 3, -128, 127},
      {"exp", [](double x) { return std::exp(x); }, "--out-bits 16 --out-unsigned --out-scale 0.01",
       0.01, 0, 0, 65535},
  };
  for (const Case& c : cases) {
    const CliResult r = RunQacc("apply lut " + in + " -o " + Path("y.npy") + " --func " + c.func +
                                " --in-scale 0.03125 " + c.out);
    ASSERT_EQ(r.exit_code, 0) << c.func << "\n" << r.err;
    NpyDtype dtype;
    const std::vector<int64_t> y = Read("y.npy", nullptr, &dtype);
    EXPECT_EQ(dtype, c.qmax > 255 ? NpyDtype::kUint16
                     : c.qmin < 0 ? NpyDtype::kInt8
                                  : NpyDtype::kUint8);
    for (size_t i = 0; i < codes.size(); ++i) {
      const double v = std::nearbyint(c.f(codes[i] * 0.03125) / c.out_scale);  // ties to even
      const int64_t want = std::clamp<int64_t>(static_cast<int64_t>(v) + c.zp, c.qmin, c.qmax);
      ASSERT_EQ(y[i], want) << c.func << " q = " << codes[i];
    }
  }
}

// --compat seed takes the original's parameters (unsigned input, a narrow flag that an unsigned
// spec ignores, an output width of its own) and gives the golden compat table's entries.
TEST_F(ApplyCli, LutSeedCompatUsesTheOriginalsParameters) {
  std::vector<int64_t> codes;
  for (int q = 0; q < 64; ++q) codes.push_back(q);
  const std::string in = Write("x.npy", codes, {64}, NpyDtype::kUint8);
  const CliResult r = RunQacc("apply lut " + in + " -o " + Path("y.npy") +
                              " --func tanh --compat seed --in-bits 6 --in-unsigned --in-amax 3 "
                              "--in-narrow --out-bits 12 --out-narrow");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  golden::SeedLutParams seed;
  seed.in_bits = 6, seed.in_amax = 3, seed.in_unsigned = true, seed.out_bits = 12;
  seed.narrow = true;
  const golden::Lut lut =
      golden::BuildLut(golden::GetElementwise("tanh"), golden::SeedCompatSpec(seed));
  const std::vector<int64_t> y = Read("y.npy");
  for (int q = 0; q < 64; ++q) ASSERT_EQ(y[size_t(q)], lut.Lookup(q)) << q;
  ExpectUsageError("lut " + in + " --func tanh --compat seed --in-unsigned --in-scale 0.1",
                   "--in-scale: not with --compat seed");
  ExpectUsageError("lut " + in + " --func tanh --compat seed --in-unsigned --in-amax 3 --in-narrow",
                   "one narrow flag");
  ExpectUsageError("lut " + in + " --func tanh --compat seed --in-unsigned --in-amax 3 --round up",
                   "--round: not with --compat seed");
}

TEST_F(ApplyCli, LutRefusesCodesOutsideTheInputSpec) {
  const std::string wide = Write("wide.npy", {0, 5, 127, 128}, {2, 2}, NpyDtype::kInt16);
  ExpectUsageError("lut " + wide + " --func tanh --in-amax 4",
                   "input: " + wide +
                       ": element [1, 1] = 128 is outside the 8-bit signed input "
                       "codes, -128..127 (shape (2, 2), dtype int16)");
  const std::string low = Write("low.npy", {-128}, {1}, NpyDtype::kInt8);
  ExpectUsageError("lut " + low + " --func tanh --in-amax 4 --in-narrow",
                   "element [0] = -128 is outside the 8-bit narrow signed input codes, -127..127");
  ExpectUsageError("lut " + low + " --func tanh --in-amax 4 --in-bits 4",
                   "outside the 4-bit signed input codes, -8..7");
  ExpectUsageError("lut " + low + " --func nope --in-amax 4", "--func: ");
  ExpectUsageError("lut " + low + " --func tanh", "--in-scale or --in-amax: required");
  ExpectUsageError("lut " + low + " --func tanh --in-amax 4 --compat maybe", "--compat: 'maybe'");
}

// ---- softmax
TEST_F(ApplyCli, SoftmaxRowsAlongTheLastAxis) {
  const std::vector<int64_t> codes = RandomCodes(3 * 4 * 16, -128, 127, 5);
  const std::string in = Write("x.npy", codes, {3, 4, 16}, NpyDtype::kInt8);
  // Exact mode, the three seed settings in exact mode, and compat mode.
  for (const std::string compat : {"none", "seed-settings", "seed"}) {
    const std::string mode =
        compat == "seed-settings" ? "none --round trunc --div floor --offset qmax" : compat;
    const CliResult r =
        RunQacc("apply softmax " + in + " -o " + Path("y.npy") + " --in-amax 6 --out-bits 8 " +
                "--out-unsigned --out-amax 1 --acc-bits 24 --compat " + mode + " --report --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<int64_t> shape;
    const std::vector<int64_t> y = Read("y.npy", &shape);
    EXPECT_EQ(shape, (std::vector<int64_t>{3, 4, 16}));
    // Each row of 16 is the golden two-table softmax of that row (the library has its own tests;
    // this checks the row split), and within 1 LSB of the float softmax in exact mode.
    golden::SoftmaxParams params;
    params.n = 16;
    params.in = golden::SymmetricFromAmax(6, 8, true);
    params.out = golden::SymmetricFromAmax(1, 8, false);
    params.acc_bits = 24;
    if (compat == "seed-settings") {
      params.table_rounding = golden::RoundingMode::kTowardZero;
      params.div_rounding = golden::DivRounding::kFloor;
      params.offset = golden::SoftmaxOffset::kQmax;
    }
    if (compat == "seed") params = golden::WithSeedCompat(params);
    const golden::SoftmaxTables tables = golden::BuildSoftmaxTables(params);
    for (size_t row = 0; row < 12; ++row) {
      std::vector<int32_t> x(codes.begin() + row * 16, codes.begin() + row * 16 + 16);
      const std::vector<int32_t> want = golden::SoftmaxRow(tables, x);
      double x_max = -1e9, sum = 0;
      for (int32_t q : x) x_max = std::max(x_max, q * 6.0 / 127);
      for (int32_t q : x) sum += std::exp(q * 6.0 / 127 - x_max);
      for (size_t i = 0; i < 16; ++i) {
        ASSERT_EQ(y[row * 16 + i], want[i]) << compat << " row " << row << " element " << i;
        const double ref = std::exp(x[i] * 6.0 / 127 - x_max) / sum * 255;
        if (compat == "none") {
          EXPECT_LE(std::abs(y[row * 16 + i] - ref), 1.0) << row << " " << i;
        }
      }
    }
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["operator"], "softmax");
    EXPECT_EQ(j["report"]["elements"], 3 * 4 * 16);
  }
}

TEST_F(ApplyCli, SoftmaxBadInput) {
  const std::string scalar = Write("s.npy", {3}, {}, NpyDtype::kInt8);
  ExpectUsageError("softmax " + scalar + " --in-amax 4 --out-amax 1", "shape () has no last axis");
  const std::string x = Write("x.npy", {1, 2, 3, 4}, {2, 2}, NpyDtype::kInt8);
  ExpectUsageError("softmax " + x + " --in-amax 4", "--out-scale or --out-amax: required");
  ExpectUsageError("softmax " + x + " --in-amax 4 --out-amax 1 --acc-bits 40", "--acc-bits");
  ExpectUsageError("softmax " + x + " --in-amax 4 --in-zp 1 --out-amax 1",
                   "--in-zp: not with --in-amax");
}

// ---- add
// TFLite's uint8/int8 Add (kernels/add.cc Prepare, reference_ops::AddElementwise) from its
// definition with gemmlowp's primitives: scales are float32, left shift 20.
int64_t TfliteAdd(int64_t qa, int64_t qb, float sa, float sb, float sy, int64_t za, int64_t zb,
                  int64_t zy, int64_t qmin, int64_t qmax) {
  const double twice_max = 2.0 * std::max(double(sa), double(sb));
  const RefMultiplier ma = RefQuantizeMultiplier(double(sa) / twice_max);
  const RefMultiplier mb = RefQuantizeMultiplier(double(sb) / twice_max);
  const RefMultiplier my = RefQuantizeMultiplier(twice_max / ((1 << 20) * double(sy)));
  auto scale = [](int32_t x, RefMultiplier m) {
    return gemmlowp::RoundingDivideByPOT(
        gemmlowp::SaturatingRoundingDoublingHighMul(x, m.multiplier), -m.shift);
  };
  const int32_t a = scale(static_cast<int32_t>((qa - za) * (1 << 20)), ma);
  const int32_t b = scale(static_cast<int32_t>((qb - zb) * (1 << 20)), mb);
  return std::clamp<int64_t>(scale(a + b, my) + zy, qmin, qmax);
}

TEST_F(ApplyCli, AddTfliteFormOnEveryPairOfCodes) {
  std::vector<int64_t> a, b;
  for (int x = 0; x < 256; ++x) {
    for (int z = 0; z < 256; ++z) a.push_back(x), b.push_back(z);
  }
  const std::string in_a = Write("a.npy", a, {256, 256}, NpyDtype::kUint8);
  const std::string in_b = Write("b.npy", b, {256, 256}, NpyDtype::kUint8);
  const CliResult r = RunQacc("apply add " + in_a + " " + in_b + " -o " + Path("y.npy") +
                              " --a-unsigned --a-scale 0.0173 --a-zp 121 --b-unsigned --b-scale "
                              "0.0049 --b-zp 7 --out-unsigned --out-scale 0.021 --out-zp 99 "
                              "--report --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<int64_t> y = Read("y.npy");
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(y[i], TfliteAdd(a[i], b[i], 0.0173f, 0.0049f, 0.021f, 121, 7, 99, 0, 255))
        << "a " << a[i] << " b " << b[i];
  }
  EXPECT_LE(nlohmann::json::parse(r.out)["report"]["max_abs_lsb"].get<double>(), 1.0);
}

TEST_F(ApplyCli, AddSeedSymmetricFormWithinOneLsbOfFloat) {
  const std::vector<int64_t> a = RandomCodes(4096, -128, 127, 6),
                             b = RandomCodes(4096, -128, 127, 7);
  const std::string in_a = Write("a.npy", a, {64, 64}, NpyDtype::kInt8);
  const std::string in_b = Write("b.npy", b, {64, 64}, NpyDtype::kInt8);
  const CliResult r =
      RunQacc("apply add " + in_a + " " + in_b + " -o " + Path("y.npy") +
              " --form seed-symmetric --a-scale 0.02 --b-scale 0.03 --out-scale 0.05");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<int64_t> y = Read("y.npy");
  for (size_t i = 0; i < a.size(); ++i) {
    const double ref = std::clamp((a[i] * 0.02 + b[i] * 0.03) / 0.05, -128.0, 127.0);
    ASSERT_LE(std::abs(y[i] - ref), 1.0) << a[i] << " + " << b[i];
  }
  ExpectUsageError("add " + in_a + " " + in_b +
                       " --form seed-symmetric --a-scale 0.02 --b-scale "
                       "0.03 --out-scale 0.05 --out-zp 1",
                   "y.zero_point");
  const std::string other = Write("c.npy", a, {4096}, NpyDtype::kInt8);
  ExpectUsageError("add " + in_a + " " + other + " --a-scale 1 --b-scale 1 --out-scale 1",
                   "input2: " + other + " has shape (4096,), " + in_a + " has shape (64, 64)");
  ExpectUsageError("add " + in_a + " " + in_b + " --a-scale 1 --b-scale 1 --out-scale 1 --form x",
                   "--form: 'x'");
}

// ---- avgpool and pad (NHWC)
TEST_F(ApplyCli, AvgPoolWithinOneLsbOfTheFloatMean) {
  const std::vector<int64_t> x = RandomCodes(2 * 7 * 6 * 3, 0, 255, 8);
  const std::string in = Write("x.npy", x, {2, 7, 6, 3}, NpyDtype::kUint8);
  for (const bool count_pad : {false, true}) {
    const CliResult r = RunQacc("apply avgpool " + in + " -o " + Path("y.npy") +
                                " --kernel 3,2 --stride 2 --pad 1,1,0,1 --in-unsigned --in-scale "
                                "0.1 --in-zp 128 --out-unsigned --out-scale 0.07 --out-zp 120" +
                                (count_pad ? " --count-include-pad" : ""));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<int64_t> shape;
    const std::vector<int64_t> y = Read("y.npy", &shape);
    // OH = (7 + 2 - 3) / 2 + 1 = 4, OW = (6 + 1 - 2) / 2 + 1 = 3.
    ASSERT_EQ(shape, (std::vector<int64_t>{2, 4, 3, 3}));
    size_t i = 0;
    for (int n = 0; n < 2; ++n) {
      for (int oh = 0; oh < 4; ++oh) {
        for (int ow = 0; ow < 3; ++ow) {
          for (int c = 0; c < 3; ++c, ++i) {
            double sum = 0;
            int taps = 0;
            for (int h = oh * 2 - 1; h < oh * 2 + 2; ++h) {
              for (int w = ow * 2; w < ow * 2 + 2; ++w) {
                const bool inside = h >= 0 && h < 7 && w < 6;
                if (inside) sum += 0.1 * (x[((n * 7 + h) * 6 + w) * 3 + c] - 128);
                taps += inside || count_pad;
              }
            }
            const double ref = std::clamp(sum / taps / 0.07 + 120, 0.0, 255.0);
            ASSERT_LE(std::abs(y[i] - ref), 1.0) << count_pad << " " << i;
          }
        }
      }
    }
  }
  ExpectUsageError("avgpool " + in + " --in-scale 1 --out-scale 1", "--kernel is required");
  const std::string flat = Write("flat.npy", x, {int64_t(x.size())}, NpyDtype::kUint8);
  ExpectUsageError("avgpool " + flat + " --kernel 2 --in-unsigned --in-scale 1 --out-scale 1",
                   "is not 4-D (N, H, W, C)");
  ExpectUsageError("avgpool " + in + " --kernel 2,2,2 --in-unsigned --in-scale 1 --out-scale 1",
                   "--kernel: give one value");
}

TEST_F(ApplyCli, PadWritesTheCodeOfTheValue) {
  const std::vector<int64_t> x = RandomCodes(1 * 2 * 3 * 2, -128, 127, 9);
  const std::string in = Write("x.npy", x, {1, 2, 3, 2}, NpyDtype::kInt8);
  const CliResult r = RunQacc("apply pad " + in + " -o " + Path("y.npy") +
                              " --pad 1,2,0,1 --value -0.3 --in-scale 0.04 --in-zp 5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<int64_t> shape;
  const std::vector<int64_t> y = Read("y.npy", &shape);
  ASSERT_EQ(shape, (std::vector<int64_t>{1, 5, 4, 2}));
  const int64_t pad_code = std::lround(-0.3 / 0.04) + 5;  // -7.5 rounds away from zero: -8 + 5
  EXPECT_EQ(pad_code, -3);
  for (int h = 0; h < 5; ++h) {
    for (int w = 0; w < 4; ++w) {
      for (int c = 0; c < 2; ++c) {
        const bool inside = h >= 1 && h < 3 && w < 3;
        const int64_t want = inside ? x[((h - 1) * 3 + w) * 2 + c] : pad_code;
        ASSERT_EQ(y[(h * 4 + w) * 2 + c], want) << h << " " << w << " " << c;
      }
    }
  }
  ExpectUsageError("pad " + in + " --pad 1,2 --in-scale 1", "--pad: give one value");
  ExpectUsageError("pad " + in + " --pad -1 --in-scale 1", "pads.");
}

}  // namespace
}  // namespace qacc::testing
