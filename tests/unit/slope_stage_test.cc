// The slope stage's rule (golden/slope_stage.h, docs/requant.md 6.2) gives golden's three forms of
// LeakyReLU bit for bit: every input code of each form's input spec, over random specs and slopes,
// against the forms' own functions (golden/activation.cc, written for each form apart from the
// stage).
#include "golden/slope_stage.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "expect_invalid.h"
#include "golden/activation.h"

namespace qacc::golden {
namespace {

using testing::ExpectInvalidArgument;

QuantSpec RandomInt8Spec(std::mt19937& rng, bool is_signed) {
  QuantSpec spec;
  spec.is_signed = is_signed;
  spec.narrow = is_signed && rng() % 4 == 0;
  spec.scale = std::exp(std::uniform_real_distribution<double>(std::log(1e-3), std::log(1.0))(rng));
  spec.zero_point =
      static_cast<int32_t>(std::uniform_int_distribution<int64_t>(spec.qmin(), spec.qmax())(rng));
  return spec;
}

double RandomAlpha(std::mt19937& rng) {
  switch (rng() % 6) {
    case 0:
      return 0.0;
    case 1:
      return -std::uniform_real_distribution<double>(0.0,
                                                     2.0)(rng);  // PReLU learns negative slopes
    case 2:
      return std::uniform_real_distribution<double>(1.0, 8.0)(rng);
    default:
      return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  }
}

TEST(SlopeStage, GivesLeakyReluOnEveryCode) {
  std::mt19937 rng(4201);
  int64_t codes = 0;
  for (int config = 0; config < 3000; ++config) {
    const QuantSpec in = RandomInt8Spec(rng, rng() % 2 == 0);
    const QuantSpec out = RandomInt8Spec(rng, rng() % 2 == 0);
    const double alpha = RandomAlpha(rng);
    const auto rounding =
        rng() % 2 ? RequantRounding::kDoubleRounding : RequantRounding::kSingleRounding;
    LeakyReluParams params;
    try {
      params = MakeLeakyReluParams(in, out, alpha, rounding);
    } catch (const std::invalid_argument&) {
      continue;  // a ratio whose shift exceeds 30: no Q31 form
    }
    const SlopeStageParams stage = SlopeFromLeakyRelu(params);
    ValidateSlopeStage(stage, in.zero_point);
    for (int64_t q = in.qmin(); q <= in.qmax(); ++q, ++codes) {
      ASSERT_EQ(SlopeStage(int32_t(q), in.zero_point, stage), LeakyRelu(int32_t(q), params))
          << "config " << config << " q " << q << " alpha " << alpha;
    }
  }
  EXPECT_GT(codes, 600000);
}

TEST(SlopeStage, GivesSeed002Int8SlopeOnEveryCodeAndRounding) {
  std::mt19937 rng(4202);
  int64_t codes = 0;
  for (int config = 0; config < 1500; ++config) {
    const QuantSpec in = RandomInt8Spec(rng, rng() % 2 == 0);
    QuantSpec out = RandomInt8Spec(rng, rng() % 2 == 0);
    out.scale = in.scale;  // the form's BackwardCalibration
    const std::vector<double> alphas = {RandomAlpha(rng) * (rng() % 8 ? 1 : 15), RandomAlpha(rng)};
    Int8SlopeParams params = MakeInt8SlopePreluParams(in, out, alphas);
    for (const RoundingMode mode : kAllRoundingModes) {
      params.rounding = mode;
      for (size_t c = 0; c < alphas.size(); ++c) {
        const SlopeStageParams stage = SlopeFromInt8Slope(params, c);
        ValidateSlopeStage(stage, in.zero_point);
        for (int64_t q = in.qmin(); q <= in.qmax(); ++q, ++codes) {
          ASSERT_EQ(SlopeStage(int32_t(q), in.zero_point, stage),
                    Int8SlopeLeakyRelu(int32_t(q), params, c))
              << "config " << config << " channel " << c << " q " << q;
        }
      }
    }
  }
  EXPECT_GT(codes, 3000000);
}

TEST(SlopeStage, GivesTfliteR115OnEveryCode) {
  std::mt19937 rng(4203);
  int64_t codes = 0;
  for (int config = 0; config < 3000; ++config) {
    const QuantSpec in = RandomInt8Spec(rng, false);
    const QuantSpec out = RandomInt8Spec(rng, false);
    // alpha anywhere on the input grid and beyond, so that q_alpha - Z_1 spans -255..255
    const double alpha = std::uniform_real_distribution<double>(-300.0, 300.0)(rng) * in.scale;
    TfliteR115LeakyReluParams params;
    try {
      params = MakeTfliteR115LeakyReluParams(in, out, alpha);
    } catch (const std::invalid_argument&) {
      continue;  // S_1^2 / S_2 outside TFLite's range
    }
    const SlopeStageParams stage = SlopeFromTfliteR115(params);
    ValidateSlopeStage(stage, in.zero_point);
    for (int32_t q = 0; q <= 255; ++q, ++codes) {
      ASSERT_EQ(SlopeStage(q, in.zero_point, stage), TfliteR115LeakyRelu(q, params))
          << "config " << config << " q " << q << " k " << stage.negative.k;
    }
  }
  EXPECT_GT(codes, 400000);
}

TEST(SlopeStage, RoundingModesMapToTpuMlirsOfTheSameDefinition) {
  // -7.5 and -6.5 (x = -15, -13 over 2^1) and 6.5, 7.5: each mode's ties and its direction away
  // from ties.
  for (const RoundingMode mode : kAllRoundingModes) {
    for (int64_t x = -40; x <= 40; ++x) {
      EXPECT_EQ(RoundingRightShift(x, 2, mode),
                tpu_mlir::RightShiftRound(x, 2, TpuMlirRoundingOf(mode)))
          << RoundingModeName(mode) << " x " << x;
    }
  }
}

TEST(SlopeStage, SideIsChosenBySignOfDAndKScalesIt) {
  SlopeStageParams stage;
  stage.positive.k = 3;
  stage.positive.requant = {};  // TFLite 2^30 with shift 1: the identity
  stage.negative.k = -200;
  stage.negative.requant.form = RequantForm::kTpuMlir;
  stage.negative.requant.mult_bits = 8;
  stage.negative.requant.multiplier = -1;
  stage.negative.requant.shift = 8;
  stage.negative.requant.rshift_rounding = tpu_mlir::Rounding::kDown;
  stage.negative.requant.output_zero_point = 5;
  stage.clamp_min = -128;
  stage.clamp_max = 255;
  EXPECT_EQ(SlopeStage(10, 10, stage), 0);               // d = 0: positive side
  EXPECT_EQ(SlopeStage(50, 10, stage), 120);             // 40 * 3
  EXPECT_EQ(SlopeStage(100, 10, stage), 255);            // 270 clamped
  EXPECT_EQ(SlopeStage(9, 10, stage), 5 + (-200 >> 8));  // floor(-200 / 256) = -1, + 5
  EXPECT_EQ(SlopeStage(0, 10, stage), -3);               // d = -10: floor(-2000 / 256) = -8, + 5
  EXPECT_EQ(SlopeStage(-128, 255, stage),
            -128);  // d = -383: floor(-76600 / 256) + 5 = -295, clamped
}

TEST(SlopeStage, ValidationNamesTheField) {
  SlopeStageParams ok;
  ValidateSlopeStage(ok, 0);
  ValidateSlopeStage(ok, -128);
  ValidateSlopeStage(ok, 255);
  ExpectInvalidArgument([&] { ValidateSlopeStage(ok, -129); }, "input_zero_point");
  ExpectInvalidArgument([&] { ValidateSlopeStage(ok, 256); }, "input_zero_point");
  auto with = [&](auto change) {
    SlopeStageParams p = ok;
    change(p);
    return p;
  };
  ValidateSlopeStage(with([](auto& p) { p.negative.k = kMinSlopeK; }), 0);
  ValidateSlopeStage(with([](auto& p) { p.positive.k = kMaxSlopeK; }), 0);
  ExpectInvalidArgument([&] { ValidateSlopeStage(with([](auto& p) { p.negative.k = -257; }), 0); },
                        "negative.k");
  ExpectInvalidArgument([&] { ValidateSlopeStage(with([](auto& p) { p.positive.k = 256; }), 0); },
                        "positive.k");
  ExpectInvalidArgument(
      [&] {
        ValidateSlopeStage(with([](auto& p) { p.negative.requant.multiplier = (1 << 30) - 1; }), 0);
      },
      "negative.multiplier");
  ExpectInvalidArgument(
      [&] { ValidateSlopeStage(with([](auto& p) { p.positive.requant.shift = 31; }), 0); },
      "positive.shift");
  auto tpu = [&](int bits, int32_t mult, int rshift) {
    return with([=](auto& p) {
      p.negative.requant.form = RequantForm::kTpuMlir;
      p.negative.requant.mult_bits = bits;
      p.negative.requant.multiplier = mult;
      p.negative.requant.shift = rshift;
    });
  };
  ValidateSlopeStage(tpu(8, -128, 63), 0);
  ValidateSlopeStage(tpu(16, 32767, 0), 0);
  ExpectInvalidArgument([&] { ValidateSlopeStage(tpu(8, 128, 0), 0); }, "negative.multiplier");
  ExpectInvalidArgument([&] { ValidateSlopeStage(tpu(16, -32769, 0), 0); }, "negative.multiplier");
  ExpectInvalidArgument([&] { ValidateSlopeStage(tpu(32, 0, 64), 0); }, "negative.shift");
  ValidateSlopeStage(with([](auto& p) { p.clamp_min = p.clamp_max = 255; }), 0);
  ExpectInvalidArgument([&] { ValidateSlopeStage(with([](auto& p) { p.clamp_min = -129; }), 0); },
                        "clamp_min");
  ExpectInvalidArgument([&] { ValidateSlopeStage(with([](auto& p) { p.clamp_max = 256; }), 0); },
                        "clamp_max");
  ExpectInvalidArgument(
      [&] { ValidateSlopeStage(with([](auto& p) { p.clamp_min = 1, p.clamp_max = 0; }), 0); },
      "clamp_min");
}

TEST(SlopeStage, OneClampOnly) {
  LeakyReluParams params;
  params.negative.clamp_max = 100;
  ExpectInvalidArgument([&] { SlopeFromLeakyRelu(params); }, "negative.clamp_min");
  Int8SlopeParams int8;
  int8.multipliers = {3};
  ExpectInvalidArgument([&] { SlopeFromInt8Slope(int8, 1); }, "channel");
}

}  // namespace
}  // namespace qacc::golden
