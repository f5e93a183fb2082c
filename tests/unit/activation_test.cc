// Fused ReLU / ReLU6 clamps, LeakyReLU and PReLU against float oracles (dequantize -> activation ->
// quantize) and a gemmlowp-composed integer oracle, exhaustively over every input code.
#include "golden/activation.h"

#include <fixedpoint/fixedpoint.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/quant.h"
#include "golden/requant.h"
#include "golden/requant_tensor.h"
#include "tests/unit/requant_oracle.h"
#include "tests/unit/expect_invalid.h"
#include "tests/unit/sweep_oracle.h"

namespace qacc::golden {
namespace {

using testing::ErrorStats;
using testing::MismatchLog;
using testing::RefRoundShift;

double Relu(double x, Activation activation) {
  switch (activation) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return std::max(x, 0.0);
    case Activation::kRelu6:
      return std::min(std::max(x, 0.0), 6.0);
  }
  return x;
}

// ---- ActivationClamp ----------------------------------------------------------------------------

TEST(ActivationClamp, BoundsFromScaleAndZeroPoint) {
  const QuantSpec u8{8, false, false, 0.1, 0};
  EXPECT_EQ(ActivationClamp(Activation::kNone, u8).clamp_min, 0);
  EXPECT_EQ(ActivationClamp(Activation::kNone, u8).clamp_max, 255);
  EXPECT_EQ(ActivationClamp(Activation::kRelu6, u8).clamp_max, 60);  // 6 / 0.1

  const QuantSpec s8{8, true, false, 0.25, 10};
  EXPECT_EQ(ActivationClamp(Activation::kRelu, s8).clamp_min, 10);  // the code of real 0
  EXPECT_EQ(ActivationClamp(Activation::kRelu, s8).clamp_max, 127);
  EXPECT_EQ(ActivationClamp(Activation::kRelu6, s8).clamp_min, 10);
  EXPECT_EQ(ActivationClamp(Activation::kRelu6, s8).clamp_max, 34);  // 10 + 6 / 0.25

  // Range [0, 6] spread over all 256 codes: ReLU keeps everything, ReLU6 too (-128 + 255 = 127).
  const QuantSpec full{8, true, false, 6.0 / 255, -128};
  EXPECT_EQ(ActivationClamp(Activation::kRelu6, full).clamp_min, -128);
  EXPECT_EQ(ActivationClamp(Activation::kRelu6, full).clamp_max, 127);

  // 6 / S beyond the range saturates at qmax instead of overflowing.
  const QuantSpec tiny{16, true, false, 1e-9, 0};
  EXPECT_EQ(ActivationClamp(Activation::kRelu6, tiny).clamp_max, 32767);
}

TEST(ActivationClamp, SixOverScaleRoundsUnderTheChosenMode) {
  // S = 12: 6 / S = 0.5 exactly. S = 4: 1.5 exactly. Expected values from each mode's definition.
  const QuantSpec half{8, true, false, 12.0, 0};
  const QuantSpec one_and_half{8, true, false, 4.0, 0};
  struct Case {
    RoundingMode mode;
    int32_t half, one_and_half;
  };
  const Case cases[] = {{RoundingMode::kHalfAwayFromZero, 1, 2},
                        {RoundingMode::kHalfToEven, 0, 2},
                        {RoundingMode::kHalfUp, 1, 2},
                        {RoundingMode::kTowardZero, 0, 1},
                        {RoundingMode::kFloor, 0, 1}};
  for (const Case& c : cases) {
    EXPECT_EQ(ActivationClamp(Activation::kRelu6, half, c.mode).clamp_max, c.half)
        << RoundingModeName(c.mode);
    EXPECT_EQ(ActivationClamp(Activation::kRelu6, one_and_half, c.mode).clamp_max, c.one_and_half)
        << RoundingModeName(c.mode);
  }
  EXPECT_EQ(ActivationClamp(Activation::kRelu6, half).clamp_max,
            1);  // default: half away from zero
}

TEST(ActivationClamp, FusedClampEqualsFloatActivationOfTheDequantizedOutput) {
  // For every int8 input code q, an accumulator (q - Z_x) * w is requantized twice: with the fused
  // clamp, and without activation followed by dequantize -> float ReLU / ReLU6 -> quantize (same
  // rounding for 6 / S). Zero tolerance: clamping is exactly the activation (seed 004).
  const double scales[] = {0.01, 6.0 / 255, 0.047, 0.1, 0.5, 4.0, 12.0};
  const double real_multipliers[] = {0.9, 0.013, 1.7};
  const int32_t weights[] = {1, 37, -53};
  MismatchLog log;
  int64_t checked = 0, cut_by_relu = 0, cut_by_six = 0;
  for (bool is_signed : {true, false}) {
    const int32_t qmin = is_signed ? -128 : 0, qmax = is_signed ? 127 : 255;
    for (double scale : scales) {
      for (int32_t zp : {qmin, qmin + 1, qmin / 2 + qmax / 2, qmax - 30, qmax}) {
        const QuantSpec out{8, is_signed, false, scale, zp};
        for (RoundingMode mode : kAllRoundingModes) {
          for (RequantRounding rounding :
               {RequantRounding::kDoubleRounding, RequantRounding::kSingleRounding}) {
            for (double real : real_multipliers) {
              for (int32_t w : weights) {
                const RequantParams plain =
                    MakeRequantParams(real, out, Activation::kNone, rounding);
                for (Activation activation : {Activation::kRelu, Activation::kRelu6}) {
                  RequantParams fused = plain;
                  const ClampBounds bounds = ActivationClamp(activation, out, mode);
                  fused.clamp_min = bounds.clamp_min;
                  fused.clamp_max = bounds.clamp_max;
                  for (int q = -128; q <= 127; ++q) {
                    const int32_t acc = (q - 3) * w;
                    const int32_t y_plain = RequantizeAccumulator(acc, plain);
                    // quantize(dequantize(k)) = k exactly; only a value the activation changed is
                    // quantized again (in double, S * k / S could land below k and floor to k - 1).
                    const double r = Dequantize(y_plain, out);
                    const double activated = Relu(r, activation);
                    const int32_t oracle =
                        activated == r ? y_plain : Quantize(activated, out, mode);
                    const int32_t y = RequantizeAccumulator(acc, fused);
                    ++checked;
                    cut_by_relu += y_plain < zp;
                    cut_by_six += activation == Activation::kRelu6 && y != y_plain && y_plain > zp;
                    if (y != oracle) {
                      log.Add(fmt::format("{} S={} Z={} {} {} real={} w={} q={}: oracle {}, got {}",
                                          ActivationName(activation), scale, zp,
                                          RoundingModeName(mode), RequantRoundingName(rounding),
                                          real, w, q, oracle, y));
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(log.count, 0) << "of " << checked << "; first: " << log.first;
  EXPECT_GT(cut_by_relu, 0);
  EXPECT_GT(cut_by_six, 0);
}

TEST(Activation, NamesRoundTrip) {
  for (Activation a : {Activation::kNone, Activation::kRelu, Activation::kRelu6}) {
    EXPECT_EQ(ParseActivation(ActivationName(a)), a);
  }
  EXPECT_FALSE(ParseActivation("gelu").has_value());
}

// ---- LeakyReLU / PReLU oracles ------------------------------------------------------------------

using testing::GemmlowpMultiply;
using testing::RefMultiplier;
using testing::RefQuantizeMultiplier;
using testing::SingleRoundingMultiply;

int32_t IntegerLeakyOracle(int32_t q, const QuantSpec& in, const QuantSpec& out, double alpha,
                           RequantRounding rounding) {
  const int32_t x = q - in.zero_point;
  const RefMultiplier m = RefQuantizeMultiplier((x >= 0 ? 1.0 : alpha) * in.scale / out.scale);
  const int32_t scaled = rounding == RequantRounding::kDoubleRounding
                             ? GemmlowpMultiply(x, m)
                             : SingleRoundingMultiply(x, m);
  return static_cast<int32_t>(
      std::clamp<int64_t>(int64_t{scaled} + out.zero_point, out.qmin(), out.qmax()));
}

int32_t FloatLeakyOracle(int32_t q, const QuantSpec& in, const QuantSpec& out, double alpha) {
  const double r = Dequantize(q, in);
  return Quantize(r >= 0 ? r : alpha * r, out, RoundingMode::kHalfAwayFromZero);
}

std::vector<QuantSpec> InputSpecs() {
  return {QuantSpec{8, true, false, 0.05, 0},   QuantSpec{8, true, false, 0.031, -20},
          QuantSpec{8, false, false, 0.1, 128}, QuantSpec{8, false, false, 0.02, 17},
          QuantSpec{8, true, true, 0.7, 5},     QuantSpec{8, true, false, 1.0 / 64, 127}};
}

std::vector<QuantSpec> OutputSpecs() {
  return {QuantSpec{8, true, false, 0.05, 0}, QuantSpec{8, true, false, 0.04, -60},
          QuantSpec{8, false, false, 0.09, 40}, QuantSpec{8, true, false, 0.013, 90}};
}

const double kAlphas[] = {0.0, 0.01, 0.1, 0.2, 1.0 / 3, 0.5, 1.0, 1.5, 3.0, -0.25, -1.0};

TEST(LeakyRelu, MatchesGemmlowpExactlyAndFloatWithin1Lsb) {
  MismatchLog exact_log, float_log;
  ErrorStats stats[2];
  for (const QuantSpec& in : InputSpecs()) {
    for (const QuantSpec& out : OutputSpecs()) {
      for (double alpha : kAlphas) {
        for (RequantRounding rounding :
             {RequantRounding::kDoubleRounding, RequantRounding::kSingleRounding}) {
          const LeakyReluParams params = MakeLeakyReluParams(in, out, alpha, rounding);
          for (int64_t q : AllCodes(in)) {
            const int32_t code = static_cast<int32_t>(q);
            const int32_t y = LeakyRelu(code, params);
            const std::string where =
                fmt::format("in S={} Z={} out S={} Z={} alpha={} {} q={}", in.scale, in.zero_point,
                            out.scale, out.zero_point, alpha, RequantRoundingName(rounding), q);
            const int32_t exact = IntegerLeakyOracle(code, in, out, alpha, rounding);
            if (y != exact)
              exact_log.Add(fmt::format("{}: integer oracle {}, got {}", where, exact, y));
            const int32_t by_float = FloatLeakyOracle(code, in, out, alpha);
            const int64_t error = std::abs(int64_t{y} - by_float);
            stats[int(rounding)].Add(error);
            if (error > 1) float_log.Add(fmt::format("{}: float {}, got {}", where, by_float, y));
          }
        }
      }
    }
  }
  EXPECT_EQ(exact_log.count, 0) << "first: " << exact_log.first;
  EXPECT_EQ(float_log.count, 0) << "first: " << float_log.first;
  for (RequantRounding rounding :
       {RequantRounding::kDoubleRounding, RequantRounding::kSingleRounding}) {
    std::cout << "leaky relu " << RequantRoundingName(rounding) << " vs float: max error "
              << stats[int(rounding)].max << " LSB, mean " << stats[int(rounding)].mean()
              << " LSB over " << stats[int(rounding)].n << " codes\n";
  }
}

TEST(LeakyRelu, IdentityBranchReturnsTheInputWhenSpecsMatch) {
  // S_x = S_y and Z_x = Z_y: the identity multiplier is exactly 1 (2^30, shift 1), so every code at
  // or above the zero point comes back unchanged; with alpha = 1 every code does.
  for (const QuantSpec& spec :
       {QuantSpec{8, true, false, 0.05, 0}, QuantSpec{8, true, false, 0.0371, -101},
        QuantSpec{8, false, false, 0.3, 200}, QuantSpec{16, true, false, 1e-4, 1234},
        QuantSpec{8, true, true, 3.0, 127}}) {
    for (RequantRounding rounding :
         {RequantRounding::kDoubleRounding, RequantRounding::kSingleRounding}) {
      const LeakyReluParams leaky = MakeLeakyReluParams(spec, spec, 0.1, rounding);
      const LeakyReluParams identity = MakeLeakyReluParams(spec, spec, 1.0, rounding);
      MismatchLog log;
      for (int64_t q : AllCodes(spec)) {
        const int32_t code = static_cast<int32_t>(q);
        if (q >= spec.zero_point && LeakyRelu(code, leaky) != code) {
          log.Add(fmt::format("alpha 0.1 Z={} q={}: got {}", spec.zero_point, q,
                              LeakyRelu(code, leaky)));
        }
        if (LeakyRelu(code, identity) != code) {
          log.Add(fmt::format("alpha 1 Z={} q={}: got {}", spec.zero_point, q,
                              LeakyRelu(code, identity)));
        }
      }
      EXPECT_EQ(log.count, 0) << RequantRoundingName(rounding) << " first: " << log.first;
    }
  }
}

TEST(LeakyRelu, AlphaZeroIsReluAndNegativeAlphaFlipsTheSign) {
  const QuantSpec spec{8, true, false, 0.1, -10};
  const LeakyReluParams relu =
      MakeLeakyReluParams(spec, spec, 0.0, RequantRounding::kDoubleRounding);
  const LeakyReluParams flip =
      MakeLeakyReluParams(spec, spec, -1.0, RequantRounding::kDoubleRounding);
  EXPECT_FALSE(relu.negate_negative);
  EXPECT_TRUE(flip.negate_negative);
  for (int q = -128; q <= 127; ++q) {
    EXPECT_EQ(LeakyRelu(q, relu), std::max(q, -10)) << q;
    // -1 * (q - Z) + Z = -20 - q for q < Z: |x|, clamped at 127 (q = -128 gives 108).
    EXPECT_EQ(LeakyRelu(q, flip), q >= -10 ? q : std::min(127, -20 - q)) << q;
  }
}

TEST(Prelu, EachChannelUsesItsOwnAlpha) {
  // NHWC with C = 4: element i is channel i % 4. Checked against the float oracle (1 LSB), the
  // gemmlowp oracle and LeakyRelu with that channel's alpha (both exact); the alphas differ enough
  // that a wrong channel shows.
  const QuantSpec in{8, true, false, 0.05, 3};
  const QuantSpec out{8, true, false, 0.04, -7};
  const std::vector<double> alphas = {0.0, 0.1, 0.9, -0.5};
  const std::vector<LeakyReluParams> params =
      MakePreluParams(in, out, alphas, RequantRounding::kDoubleRounding);
  ASSERT_EQ(params.size(), 4u);
  std::vector<int32_t> x;  // 2 x 4 x 8 x 4: every int8 code in every channel
  for (int q = -128; q <= 127; ++q) {
    for (int c = 0; c < 4; ++c) x.push_back(q);
  }
  const std::vector<int32_t> y = Prelu(x, params);
  ASSERT_EQ(y.size(), x.size());
  MismatchLog log;
  ErrorStats stats;
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = i % 4;
    const int32_t by_channel =
        LeakyRelu(x[i], MakeLeakyReluParams(in, out, alphas[c], RequantRounding::kDoubleRounding));
    const int32_t exact =
        IntegerLeakyOracle(x[i], in, out, alphas[c], RequantRounding::kDoubleRounding);
    const int32_t by_float = FloatLeakyOracle(x[i], in, out, alphas[c]);
    stats.Add(std::abs(int64_t{y[i]} - by_float));
    if (y[i] != by_channel || y[i] != exact || std::abs(y[i] - by_float) > 1) {
      log.Add(fmt::format("i={} c={} q={}: channel {}, gemmlowp {}, float {}, got {}", i, c, x[i],
                          by_channel, exact, by_float, y[i]));
    }
  }
  EXPECT_EQ(log.count, 0) << "first: " << log.first;
  std::cout << "prelu vs float: max error " << stats.max << " LSB, mean " << stats.mean()
            << " LSB\n";
}

using testing::ExpectInvalidArgument;

TEST(LeakyRelu, ValidatesArguments) {
  const QuantSpec spec{8, true, false, 0.05, 0};
  const auto rounding = RequantRounding::kDoubleRounding;
  ExpectInvalidArgument([&] { MakeLeakyReluParams(spec, spec, std::nan(""), rounding); }, "alpha");
  ExpectInvalidArgument(
      [&] {
        MakeLeakyReluParams(QuantSpec{8, true, false, 0.0, 0}, spec, 0.1, rounding);
      },
      "input.scale");
  ExpectInvalidArgument(
      [&] {
        MakeLeakyReluParams(QuantSpec{8, true, false, 1e12, 0}, spec, 0.1, rounding);
      },
      "input.scale / output.scale");
  ExpectInvalidArgument([&] { MakeLeakyReluParams(spec, spec, 1e12, rounding); },
                        "alpha * input.scale / output.scale");
  ExpectInvalidArgument([&] { MakePreluParams(spec, spec, {}, rounding); }, "alphas.size");
  ExpectInvalidArgument([&] { MakePreluParams(spec, spec, {0.1, 1e12}, rounding); }, "alphas[1]");
  const std::vector<LeakyReluParams> three = MakePreluParams(spec, spec, {0.1, 0.2, 0.3}, rounding);
  ExpectInvalidArgument([&] { Prelu({1, 2, 3, 4}, three); }, "input.size");
  ExpectInvalidArgument([&] { Prelu({1, 2, 3}, {}); }, "per_channel.size");
}

// ---- Seed 002's 8-bit slope form ----------------------------------------------------------------

// The shared rshift by search (the largest in 0..62 whose rounded multiplier of max |alpha| is at
// most 127) and each channel's multiplier rounded half away at it.
struct RefSlopes {
  std::vector<int64_t> m;
  int rshift = 0;
};

RefSlopes RefInt8Slopes(const std::vector<double>& alphas) {
  double max_abs = 0;
  for (double a : alphas) max_abs = std::max(max_abs, std::fabs(a));
  RefSlopes r;
  if (max_abs > 0) {
    for (int s = 62; s >= 0; --s) {
      if (std::round(std::ldexp(max_abs, s)) <= 127.0) {  // in double: no int64 overflow
        r.rshift = s;
        break;
      }
    }
  }
  for (double a : alphas) r.m.push_back(std::llround(std::ldexp(a, r.rshift)));
  return r;
}

struct SlopeOracle {
  int32_t y;
  double bound;  // |y - float| <= bound (half modes)
};

SlopeOracle Int8SlopeOracle(int32_t q, const QuantSpec& in, const QuantSpec& out, double alpha,
                            const RefSlopes& slopes, size_t c, RoundingMode mode) {
  const int64_t x = int64_t{q} - in.zero_point;
  const int64_t v = x >= 0 ? x : RefRoundShift(x * slopes.m[c], slopes.rshift, mode);
  const double e = x >= 0 ? 0.0
                          : std::fabs(double(x)) *
                                std::fabs(std::ldexp(double(slopes.m[c]), -slopes.rshift) - alpha);
  return {static_cast<int32_t>(std::clamp<int64_t>(v + out.zero_point, out.qmin(), out.qmax())),
          (x >= 0 ? 0.0 : 1.0) + e + 1e-9};
}

TEST(Int8SlopeLeakyRelu, ExhaustiveAgainstIntegerOracleAndFloat) {
  // The seed's form needs S_y = S_x; the zero points may differ.
  struct Specs {
    QuantSpec in, out;
  };
  const Specs cases[] = {
      {QuantSpec{8, true, false, 0.05, 0}, QuantSpec{8, true, false, 0.05, 0}},
      {QuantSpec{8, true, false, 0.031, -20}, QuantSpec{8, true, false, 0.031, -20}},
      {QuantSpec{8, false, false, 0.1, 128}, QuantSpec{8, false, false, 0.1, 100}},
      {QuantSpec{8, true, false, 0.02, 50}, QuantSpec{8, false, false, 0.02, 3}},
      {QuantSpec{16, true, false, 1e-3, -300}, QuantSpec{16, true, false, 1e-3, 0}},
  };
  MismatchLog exact_log, float_log;
  ErrorStats stats[2];  // 8-bit and 16-bit inputs
  for (const Specs& sp : cases) {
    for (double alpha : kAlphas) {
      for (RoundingMode mode :
           {RoundingMode::kHalfUp, RoundingMode::kHalfAwayFromZero, RoundingMode::kHalfToEven}) {
        Int8SlopeParams params = MakeInt8SlopeLeakyReluParams(sp.in, sp.out, alpha);
        params.rounding = mode;
        const RefSlopes slopes = RefInt8Slopes({alpha});
        ASSERT_EQ(params.rshift, slopes.rshift) << alpha;
        ASSERT_EQ(params.multipliers, std::vector<int32_t>{int32_t(slopes.m[0])}) << alpha;
        ASSERT_LE(std::abs(params.multipliers[0]), 127);
        for (int64_t q : AllCodes(sp.in)) {
          const auto code = static_cast<int32_t>(q);
          const int32_t y = Int8SlopeLeakyRelu(code, params);
          const SlopeOracle ref = Int8SlopeOracle(code, sp.in, sp.out, alpha, slopes, 0, mode);
          const std::string where =
              fmt::format("Z_x={} Z_y={} alpha={} {} q={}", sp.in.zero_point, sp.out.zero_point,
                          alpha, RoundingModeName(mode), q);
          if (y != ref.y) exact_log.Add(fmt::format("{}: oracle {}, got {}", where, ref.y, y));
          const int32_t by_float = FloatLeakyOracle(code, sp.in, sp.out, alpha);
          const int64_t error = std::abs(int64_t{y} - by_float);
          if (mode == RoundingMode::kHalfUp) stats[sp.in.bits > 8].Add(error);
          if (double(error) > ref.bound) {
            float_log.Add(
                fmt::format("{}: float {}, got {}, bound {}", where, by_float, y, ref.bound));
          }
        }
      }
    }
  }
  EXPECT_EQ(exact_log.count, 0) << "first: " << exact_log.first;
  EXPECT_EQ(float_log.count, 0) << "first: " << float_log.first;
  for (int wide = 0; wide < 2; ++wide) {
    std::cout << "int8-slope leaky relu (half up), " << (wide ? 16 : 8)
              << "-bit input, vs float: max error " << stats[wide].max << " LSB, mean "
              << stats[wide].mean() << " LSB over " << stats[wide].n << " codes\n";
  }
}

TEST(Int8SlopePrelu, ChannelsShareTheRshiftOfTheLargestSlope) {
  // alphas 0.9 (largest), 0.1, -0.25, 0: rshift 7 (0.9 * 128 = 115.2 fits, 0.9 * 256 does not),
  // multipliers 115, 13, -32, 0.
  const QuantSpec in{8, true, false, 0.05, 3};
  const QuantSpec out{8, true, false, 0.05, -7};
  const std::vector<double> alphas = {0.1, 0.9, -0.25, 0.0};
  const Int8SlopeParams params = MakeInt8SlopePreluParams(in, out, alphas);
  EXPECT_EQ(params.rshift, 7);
  EXPECT_EQ(params.multipliers, (std::vector<int32_t>{13, 115, -32, 0}));
  const RefSlopes slopes = RefInt8Slopes(alphas);
  std::vector<int32_t> x;
  for (int q = -128; q <= 127; ++q) {
    for (int c = 0; c < 4; ++c) x.push_back(q);
  }
  const std::vector<int32_t> y = Int8SlopePrelu(x, params);
  ASSERT_EQ(y.size(), x.size());
  MismatchLog log;
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = i % 4;
    const SlopeOracle ref =
        Int8SlopeOracle(x[i], in, out, alphas[c], slopes, c, RoundingMode::kHalfUp);
    const int32_t by_float = FloatLeakyOracle(x[i], in, out, alphas[c]);
    if (y[i] != ref.y || double(std::abs(y[i] - by_float)) > ref.bound) {
      log.Add(fmt::format("i={} c={} q={}: oracle {}, float {}, got {}", i, c, x[i], ref.y,
                          by_float, y[i]));
    }
  }
  EXPECT_EQ(log.count, 0) << "first: " << log.first;
  // A single channel's LeakyReLU params differ: its rshift fits its own alpha.
  EXPECT_EQ(MakeInt8SlopeLeakyReluParams(in, out, 0.1).rshift, 10);  // 0.1 * 1024 = 102.4
}

TEST(Int8SlopeLeakyRelu, ValidatesArguments) {
  const QuantSpec s{8, true, false, 0.05, 0};
  ExpectInvalidArgument(
      [&] {
        MakeInt8SlopeLeakyReluParams(s, QuantSpec{8, true, false, 0.06, 0}, 0.1);
      },
      "output.scale");
  ExpectInvalidArgument([&] { MakeInt8SlopeLeakyReluParams(s, s, std::nan("")); }, "alpha");
  ExpectInvalidArgument([&] { MakeInt8SlopeLeakyReluParams(s, s, 128.0); }, "alpha");
  EXPECT_NO_THROW(MakeInt8SlopeLeakyReluParams(s, s, 127.4));
  ExpectInvalidArgument([&] { MakeInt8SlopePreluParams(s, s, {}); }, "alphas.size");
  ExpectInvalidArgument([&] { MakeInt8SlopePreluParams(s, s, {0.1, INFINITY}); }, "alphas[1]");
  ExpectInvalidArgument([&] { MakeInt8SlopePreluParams(s, s, {0.1, -200.0}); }, "alphas[1]");
  const Int8SlopeParams three = MakeInt8SlopePreluParams(s, s, {0.1, 0.2, 0.3});
  ExpectInvalidArgument([&] { Int8SlopeLeakyRelu(0, three, 3); }, "channel");
  ExpectInvalidArgument([&] { Int8SlopePrelu({1, 2, 3, 4}, three); }, "input.size");
  ExpectInvalidArgument([&] { Int8SlopePrelu({1, 2, 3}, Int8SlopeParams{}); }, "input.size");
}

// ---- TFLite r1.15 uint8 LeakyReLU ---------------------------------------------------------------

// reference_ops::QuantizeLeakyRelu and LeakyReluPrepare of r1.15 from their text, with gemmlowp's
// own fixed-point primitives and float32 scales and alpha.
int32_t TfliteR115Oracle(int32_t q, const QuantSpec& in, const QuantSpec& out, double alpha) {
  const float scale_1 = static_cast<float>(in.scale), scale_2 = static_cast<float>(out.scale);
  const float alpha_f = static_cast<float>(alpha);
  const auto q_alpha = static_cast<uint8_t>(
      std::max<float>(std::numeric_limits<uint8_t>::min(),
                      std::min<float>(std::numeric_limits<uint8_t>::max(),
                                      std::round(in.zero_point + (alpha_f / scale_1)))));
  const double real_multiplier = scale_1 * scale_1 / scale_2;
  const RefMultiplier m = RefQuantizeMultiplier(real_multiplier);
  const int32_t input_value = q - in.zero_point;
  if (input_value >= 0) return q;
  const int32_t alpha_value = q_alpha - in.zero_point;
  const int32_t unclamped =
      out.zero_point + gemmlowp::RoundingDivideByPOT(gemmlowp::SaturatingRoundingDoublingHighMul(
                                                         input_value * alpha_value, m.multiplier),
                                                     -m.shift);
  return std::min(255, std::max(0, unclamped));
}

QuantSpec U8(double scale, int32_t zp) { return QuantSpec{8, false, false, scale, zp}; }

TEST(TfliteR115LeakyRelu, MatchesGemmlowpCompositionExactly) {
  const QuantSpec ins[] = {U8(0.05, 128), U8(12.0 / 255, 128), U8(0.02, 0), U8(0.1, 255),
                           U8(0.0371, 77)};
  const QuantSpec outs[] = {U8(0.05, 128), U8(0.03, 10), U8(0.2, 200), U8(6.06 / 255, 3)};
  MismatchLog log;
  int64_t checked = 0;
  for (const QuantSpec& in : ins) {
    for (const QuantSpec& out : outs) {
      for (double alpha : {0.0, 0.01, 0.1, 0.2, 1.0 / 3, 0.5, 1.0, -0.25, 3.0}) {
        if (in.scale * in.scale / out.scale >= 1.0) continue;  // TFLite rejects these
        const TfliteR115LeakyReluParams params = MakeTfliteR115LeakyReluParams(in, out, alpha);
        for (int q = 0; q <= 255; ++q) {
          const int32_t y = TfliteR115LeakyRelu(q, params);
          const int32_t ref = TfliteR115Oracle(q, in, out, alpha);
          ++checked;
          if (y != ref) {
            log.Add(fmt::format("in S={} Z={} out S={} Z={} alpha={} q={}: oracle {}, got {}",
                                in.scale, in.zero_point, out.scale, out.zero_point, alpha, q, ref,
                                y));
          }
          if (q >= in.zero_point && y != q) log.Add(fmt::format("q={}: not passed through", q));
        }
      }
    }
  }
  EXPECT_EQ(log.count, 0) << "of " << checked << "; first: " << log.first;
  EXPECT_GT(checked, 10000);
}

TEST(TfliteR115LeakyRelu, AlphaLivesOnTheInputGrid) {
  // S_1 = 0.05, Z_1 = 128: q_alpha = round(128 + alpha / 0.05).
  const QuantSpec s = U8(0.05, 128);
  EXPECT_EQ(MakeTfliteR115LeakyReluParams(s, s, 0.2).q_alpha, 132);   // alpha exactly 4 steps
  EXPECT_EQ(MakeTfliteR115LeakyReluParams(s, s, 0.01).q_alpha, 128);  // 0.2 steps: alpha -> 0
  EXPECT_EQ(MakeTfliteR115LeakyReluParams(s, s, 0.024).q_alpha, 128);
  EXPECT_EQ(MakeTfliteR115LeakyReluParams(s, s, 0.026).q_alpha, 129);
  EXPECT_EQ(MakeTfliteR115LeakyReluParams(s, s, 100.0).q_alpha, 255);  // clamped: alpha 6.35
  // alpha = 0.01 < S_1 / 2 quantizes to 0: the negative side is flat at Z_2, a ReLU.
  const TfliteR115LeakyReluParams relu = MakeTfliteR115LeakyReluParams(s, s, 0.01);
  for (int q = 0; q < 128; ++q) EXPECT_EQ(TfliteR115LeakyRelu(q, relu), 128) << q;
  // S_1^2 / S_2 = 0.05 = 0.8 * 2^-4.
  EXPECT_EQ(relu.output_shift, -4);
}

TEST(TfliteR115LeakyRelu, FloatErrorWhenTheSpecsMatch) {
  // With S_2 = S_1 and Z_2 = Z_1 the pass-through is exact; the negative side is off by at most
  // 1 + |q - Z_1| |alpha - alpha_q| LSB (S_1 / S_2 = 1), alpha_q = S_1 (q_alpha - Z_1) the alpha
  // on the input grid, plus the double rounding's 2^(shift - 1).
  MismatchLog log;
  ErrorStats negative;
  for (const QuantSpec& s : {U8(0.05, 128), U8(12.0 / 255, 128), U8(0.0371, 77), U8(0.1, 200)}) {
    for (double alpha : {0.0, 0.01, 0.1, 0.2, 1.0 / 3, 0.5, 1.0}) {
      const TfliteR115LeakyReluParams params = MakeTfliteR115LeakyReluParams(s, s, alpha);
      const double alpha_q = double(static_cast<float>(s.scale)) * (params.q_alpha - s.zero_point);
      for (int q = 0; q <= 255; ++q) {
        const int32_t y = TfliteR115LeakyRelu(q, params);
        const int32_t by_float = FloatLeakyOracle(q, s, s, alpha);
        const int64_t error = std::abs(int64_t{y} - by_float);
        // Double rounding (SRDHM, then RoundingDivideByPOT) adds up to 2^(shift - 1) LSB.
        const double bound = q >= s.zero_point
                                 ? 0.0
                                 : 1.0 + std::abs(q - s.zero_point) * std::fabs(alpha - alpha_q) +
                                       std::ldexp(0.5, params.output_shift) + 1e-6;
        if (q < s.zero_point) negative.Add(error);
        if (double(error) > bound) {
          log.Add(fmt::format("S={} Z={} alpha={} q={}: float {}, got {}, bound {}", s.scale,
                              s.zero_point, alpha, q, by_float, y, bound));
        }
      }
    }
  }
  EXPECT_EQ(log.count, 0) << "first: " << log.first;
  std::cout << "tflite r1.15 leaky relu, matching specs, negative side vs float: max "
            << negative.max << " LSB, mean " << negative.mean() << " LSB\n";
}

TEST(TfliteR115LeakyRelu, PassThroughErrorWhenTheSpecsDiffer) {
  // The positive side returns q; the right code is round(Z_2 + S_1 / S_2 (q - Z_1)) (clamped).
  // The error is |(1 - S_1 / S_2)(q - Z_1) + Z_1 - Z_2| rounded, largest at q = 255. Measured here
  // against the float reference over all q >= Z_1; the table goes to docs/seed002_operators.md.
  struct Row {
    const char* what;
    QuantSpec in, out;
  };
  // Calibrated LeakyReLU: input range [-6, 6]; output range [alpha * -6, 6].
  const QuantSpec cal_in = AsymmetricFromMinMax(-6.0, 6.0, 8, false);
  const std::vector<Row> rows = {
      {"same spec", U8(0.05, 128), U8(0.05, 128)},
      {"Z_2 = Z_1 - 5", U8(0.05, 128), U8(0.05, 123)},
      {"Z_2 = Z_1 + 20", U8(0.05, 100), U8(0.05, 120)},
      {"S_2 = 1.01 S_1", U8(0.05, 128), U8(0.0505, 128)},
      {"S_2 = 1.1 S_1", U8(0.05, 128), U8(0.055, 128)},
      {"S_2 = 2 S_1", U8(0.05, 128), U8(0.1, 128)},
      {"S_2 = 0.5 S_1", U8(0.05, 128), U8(0.025, 128)},
      {"calibrated, alpha 0.1", cal_in, AsymmetricFromMinMax(-0.6, 6.0, 8, false)},
      {"calibrated, alpha 0.01", cal_in, AsymmetricFromMinMax(-0.06, 6.0, 8, false)},
      {"calibrated, alpha 0.3", cal_in, AsymmetricFromMinMax(-1.8, 6.0, 8, false)},
  };
  for (const Row& row : rows) {
    const double alpha = 0.1;
    if (row.in.scale * row.in.scale / row.out.scale >= 1.0) continue;
    const TfliteR115LeakyReluParams params = MakeTfliteR115LeakyReluParams(row.in, row.out, alpha);
    int64_t max_error = 0, wrong = 0, positive = 0;
    int max_at = -1;
    for (int q = row.in.zero_point; q <= 255; ++q) {
      const int32_t y = TfliteR115LeakyRelu(q, params);
      ASSERT_EQ(y, q);
      const int32_t by_float = FloatLeakyOracle(q, row.in, row.out, alpha);
      const int64_t error = std::abs(int64_t{y} - by_float);
      // The closed form, before the output clamp.
      const double predicted =
          std::fabs((1.0 - row.in.scale / row.out.scale) * (q - row.in.zero_point) +
                    row.in.zero_point - row.out.zero_point);
      if (by_float > 0 && by_float < 255) {
        ASSERT_LE(std::fabs(double(error) - predicted), 0.5 + 1e-9) << row.what << " q=" << q;
      }
      ++positive;
      wrong += error != 0;
      if (error > max_error) {
        max_error = error;
        max_at = q;
      }
    }
    const bool same = row.in.scale == row.out.scale && row.in.zero_point == row.out.zero_point;
    if (same) {
      EXPECT_EQ(max_error, 0) << row.what;
    } else {
      EXPECT_GT(max_error, 0) << row.what;
    }
    std::cout << fmt::format(
        "tflite r1.15 pass-through, {:<24} in S={:.6g} Z={:<3} out S={:.6g} Z={:<3}: wrong {:>3} "
        "of "
        "{:>3} positive codes, max {:>3} LSB at q={}\n",
        row.what, row.in.scale, row.in.zero_point, row.out.scale, row.out.zero_point, wrong,
        positive, max_error, max_at < 0 ? std::string("-") : std::to_string(max_at));
  }
}

TEST(TfliteR115LeakyRelu, ValidatesArguments) {
  const QuantSpec s = U8(0.05, 128);
  ExpectInvalidArgument(
      [&] {
        MakeTfliteR115LeakyReluParams(QuantSpec{8, true, false, 0.05, 0}, s, 0.1);
      },
      "input.is_signed");
  ExpectInvalidArgument(
      [&] {
        MakeTfliteR115LeakyReluParams(s, QuantSpec{16, false, false, 0.05, 0}, 0.1);
      },
      "output.bits");
  ExpectInvalidArgument([&] { MakeTfliteR115LeakyReluParams(s, s, std::nan("")); }, "alpha");
  // S_1^2 / S_2 >= 1 (QuantizeMultiplierSmallerThanOneExp).
  ExpectInvalidArgument([&] { MakeTfliteR115LeakyReluParams(U8(2.0, 0), U8(4.0, 0), 0.1); },
                        "output.scale");
  const TfliteR115LeakyReluParams params = MakeTfliteR115LeakyReluParams(s, s, 0.1);
  ExpectInvalidArgument([&] { TfliteR115LeakyRelu(256, params); }, "q");
}

}  // namespace
}  // namespace qacc::golden
