// The slope stage's rule (golden/slope_stage.h, docs/requant.md 6.2) gives golden's three forms of
// LeakyReLU bit for bit: every input code of each form's input spec, over random specs and slopes,
// against the forms' own functions (golden/activation.cc, written for each form apart from the
// stage).
#include "golden/slope_stage.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
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

// PReLU's per-channel NEG side (requant.md 6.3): each channel's words on the registers of another
// channel give golden's Prelu on every code of every channel, against Prelu itself on a
// channels-last tensor of every code.
TEST(SlopeChannelWords, GivePreluOnEveryCodeOfEveryChannel) {
  std::mt19937 rng(4204);
  int64_t codes = 0, negated = 0;
  for (int config = 0; config < 600; ++config) {
    const QuantSpec in = RandomInt8Spec(rng, rng() % 2 == 0);
    const QuantSpec out = RandomInt8Spec(rng, rng() % 2 == 0);
    std::vector<double> alphas(1 + rng() % 16);
    for (double& alpha : alphas) alpha = RandomAlpha(rng);
    const auto rounding =
        rng() % 2 ? RequantRounding::kDoubleRounding : RequantRounding::kSingleRounding;
    std::vector<LeakyReluParams> params;
    try {
      params = MakePreluParams(in, out, alphas, rounding);
    } catch (const std::invalid_argument&) {
      continue;  // a ratio whose shift exceeds 30: no Q31 form
    }
    const size_t channels = alphas.size();
    const SlopeStageParams registers = SlopeFromLeakyRelu(params[rng() % channels]);
    std::vector<int32_t> input;
    for (int64_t q = in.qmin(); q <= in.qmax(); ++q)
      input.insert(input.end(), channels, int32_t(q));
    const std::vector<int32_t> want = Prelu(input, params);
    for (size_t c = 0; c < channels; ++c) {
      const SlopeChannelWords words =
          EncodeSlopeChannelWords(registers, SlopeFromLeakyRelu(params[c]));
      negated += (words.mult & kSlopeNegateBit) != 0;
      const std::optional<SlopeStageParams> lane = ApplySlopeChannelWords(registers, words);
      ASSERT_TRUE(lane.has_value()) << "config " << config << " channel " << c;
      for (size_t i = c; i < input.size(); i += channels, ++codes) {
        ASSERT_EQ(SlopeStage(input[i], in.zero_point, *lane), want[i])
            << "config " << config << " channel " << c << " q " << input[i];
      }
    }
  }
  EXPECT_GT(codes, 1000000);
  EXPECT_GT(negated, 500);  // channels whose alpha's sign is not the registers'
}

TEST(SlopeChannelWords, GiveSeed002Int8SlopePreluOnEveryCodeAndRounding) {
  std::mt19937 rng(4205);
  int64_t codes = 0;
  for (int config = 0; config < 300; ++config) {
    const QuantSpec in = RandomInt8Spec(rng, rng() % 2 == 0);
    QuantSpec out = RandomInt8Spec(rng, rng() % 2 == 0);
    out.scale = in.scale;  // the form's BackwardCalibration
    std::vector<double> alphas(1 + rng() % 16);
    for (double& alpha : alphas) alpha = RandomAlpha(rng) * (rng() % 8 ? 1 : 15);
    Int8SlopeParams params = MakeInt8SlopePreluParams(in, out, alphas);
    const size_t channels = alphas.size();
    std::vector<int32_t> input;
    for (int64_t q = in.qmin(); q <= in.qmax(); ++q)
      input.insert(input.end(), channels, int32_t(q));
    for (const RoundingMode mode : kAllRoundingModes) {
      params.rounding = mode;
      const std::vector<int32_t> want = Int8SlopePrelu(input, params);
      const SlopeStageParams registers = SlopeFromInt8Slope(params, rng() % channels);
      for (size_t c = 0; c < channels; ++c) {
        const std::optional<SlopeStageParams> lane = ApplySlopeChannelWords(
            registers, EncodeSlopeChannelWords(registers, SlopeFromInt8Slope(params, c)));
        ASSERT_TRUE(lane.has_value()) << "config " << config << " channel " << c;
        for (size_t i = c; i < input.size(); i += channels, ++codes) {
          ASSERT_EQ(SlopeStage(input[i], in.zero_point, *lane), want[i])
              << "config " << config << " channel " << c << " q " << input[i];
        }
      }
    }
  }
  EXPECT_GT(codes, 2000000);
}

// The words' legal ranges at their boundaries (requant.md 6.3): outside them ApplySlopeChannelWords
// gives no result.
TEST(SlopeChannelWords, RefuseWordsOutsideTheFormsRanges) {
  SlopeStageParams tflite;  // both sides TFLite, K 1
  tflite.negative.requant.multiplier = 1 << 30;
  const auto legal = [](const SlopeStageParams& r, uint32_t mult, uint8_t shift) {
    return ApplySlopeChannelWords(r, {mult, shift}).has_value();
  };
  EXPECT_TRUE(legal(tflite, 0, 0));
  EXPECT_TRUE(legal(tflite, 1u << 30, 0));
  EXPECT_TRUE(legal(tflite, 0x7FFFFFFFu | kSlopeNegateBit, 0));
  EXPECT_FALSE(legal(tflite, (1u << 30) - 1, 0));
  EXPECT_FALSE(legal(tflite, 1u | kSlopeNegateBit, 0));
  EXPECT_TRUE(legal(tflite, 0, 30));
  EXPECT_FALSE(legal(tflite, 0, 31));
  EXPECT_TRUE(legal(tflite, 0, 0xE1));  // -31
  EXPECT_FALSE(legal(tflite, 0, 0xE0));
  const SlopeStageParams negated = *ApplySlopeChannelWords(tflite, {kSlopeNegateBit, 0});
  EXPECT_EQ(negated.negative.k, -1);
  EXPECT_EQ(negated.positive.k, 1);

  SlopeStageParams tpu = tflite;
  tpu.negative.requant.form = RequantForm::kTpuMlir;
  tpu.negative.requant.mult_bits = 8;
  tpu.negative.requant.multiplier = 1;
  EXPECT_TRUE(legal(tpu, 127, 63));
  EXPECT_TRUE(legal(tpu, uint32_t(-128), 0));
  EXPECT_FALSE(legal(tpu, 128, 0));
  EXPECT_FALSE(legal(tpu, uint32_t(-129), 0));
  EXPECT_FALSE(legal(tpu, 0, 64));
  EXPECT_EQ(ApplySlopeChannelWords(tpu, {uint32_t(-5), 7})->negative.requant.multiplier, -5);
  EXPECT_EQ(ApplySlopeChannelWords(tpu, {uint32_t(-5), 7})->negative.k, 1);  // no NEGATE bit
  SlopeStageParams tpu32 = tpu;  // every word is a 32-bit multiplier, -2^31 too
  tpu32.negative.requant.mult_bits = 32;
  EXPECT_EQ(ApplySlopeChannelWords(tpu32, {0x80000000u, 0})->negative.requant.multiplier,
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(ApplySlopeChannelWords(tpu32, {0x7FFFFFFFu, 63})->negative.requant.multiplier,
            std::numeric_limits<int32_t>::max());

  // The encoding refuses a channel that differs from the registers elsewhere.
  SlopeStageParams other = tflite;
  other.positive.requant.output_zero_point = 3;
  ExpectInvalidArgument([&] { EncodeSlopeChannelWords(tflite, other); }, "positive");
  other = tflite;
  other.negative.requant.output_zero_point = 3;
  ExpectInvalidArgument([&] { EncodeSlopeChannelWords(tflite, other); }, "negative.k");
  other = tpu;
  other.negative.k = -1;  // the TPU-MLIR form has no NEGATE bit: its multiplier holds the sign
  ExpectInvalidArgument([&] { EncodeSlopeChannelWords(tpu, other); }, "negative.k");
  other = tflite;
  other.negative.requant.multiplier = 5;
  ExpectInvalidArgument([&] { EncodeSlopeChannelWords(tflite, other); }, "negative.multiplier");
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
