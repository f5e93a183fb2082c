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

namespace qacc::golden {
namespace {

struct MismatchLog {
  int64_t count = 0;
  std::string first;
  void Add(const std::string& what) {
    if (count++ == 0) first = what;
  }
};

// Error statistics of an approximate path against a float oracle.
struct ErrorStats {
  int64_t max = 0;
  double sum = 0;
  int64_t n = 0;
  void Add(int64_t error) {
    max = std::max(max, error);
    sum += double(error);
    ++n;
  }
  double mean() const { return n ? sum / double(n) : 0.0; }
};

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

}  // namespace
}  // namespace qacc::golden
