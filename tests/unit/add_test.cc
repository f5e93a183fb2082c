// Quantized Add (golden/add.h): both forms exhaustively over all 65536 code pairs of several scale
// triples, against an independent integer oracle written here (the seed form with plain int64
// arithmetic and its own multiplier search, the TFLite form composed from gemmlowp's fixedpoint.h)
// and against the float reference requant(dequant(q_a) + dequant(q_b)).
#include "golden/add.h"

#include <fixedpoint/fixedpoint.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "golden/quant.h"
#include "tests/unit/expect_invalid.h"
#include "tests/unit/requant_oracle.h"
#include "tests/unit/sweep_oracle.h"

namespace qacc::golden {
namespace {

using testing::ErrorStats;
using testing::ExpectInvalidArgument;
using testing::GemmlowpMultiply;
using testing::MismatchLog;
using testing::RefMultiplier;
using testing::RefQuantizeMultiplier;
using testing::RefRoundShift;

QuantSpec Int8(double scale, int32_t zp = 0) { return QuantSpec{8, true, false, scale, zp}; }
QuantSpec Uint8(double scale, int32_t zp = 0) { return QuantSpec{8, false, false, scale, zp}; }

std::string Describe(const QuantSpec& s) {
  return fmt::format("{}{}(S={}, Z={})", s.is_signed ? "i" : "u", s.bits, s.scale, s.zero_point);
}

// ---- Independent oracles ------------------------------------------------------------------------

// The seed form's multipliers by search: the largest rshift in 0..62 whose rounded multiplier of
// the larger ratio is at most 127, then both ratios rounded half away at that rshift.
struct RefSeedMultipliers {
  int64_t ma = 0, mb = 0;
  int rshift = 0;
};

RefSeedMultipliers RefSeed(double ra, double rb) {
  const double rmax = std::max(ra, rb);
  RefSeedMultipliers m;
  for (int s = 62; s >= 0; --s) {
    if (std::round(std::ldexp(rmax, s)) <= 127.0) {  // in double: no int64 overflow
      m.rshift = s;
      break;
    }
  }
  m.ma = std::llround(std::ldexp(ra, m.rshift));
  m.mb = std::llround(std::ldexp(rb, m.rshift));
  return m;
}

struct SeedOracleResult {
  int32_t y;
  bool overflowed;  // the exact sum left int16
  double bound;     // |y - float reference| <= bound when it did not (half-mode rounding)
};

SeedOracleResult SeedOracle(int32_t qa, int32_t qb, const QuantSpec& a, const QuantSpec& b,
                            const QuantSpec& y, RoundingMode mode, bool wrap) {
  const double ra = a.scale / y.scale, rb = b.scale / y.scale;
  const RefSeedMultipliers m = RefSeed(ra, rb);
  const int64_t sum = qa * m.ma + qb * m.mb;
  const bool overflowed = sum < -32768 || sum > 32767;
  int64_t held = std::clamp<int64_t>(sum, -32768, 32767);
  if (wrap) held = ((sum + 32768) % 65536 + 65536) % 65536 - 32768;
  const int64_t shifted = RefRoundShift(held, m.rshift, mode);
  const double e = std::abs(qa) * std::fabs(std::ldexp(double(m.ma), -m.rshift) - ra) +
                   std::abs(qb) * std::fabs(std::ldexp(double(m.mb), -m.rshift) - rb);
  return {static_cast<int32_t>(std::clamp<int64_t>(shifted, y.qmin(), y.qmax())), overflowed,
          1.0 + e + 1e-9};
}

// TFLite's Add from its definition (kernels/add.cc, reference_ops AddElementwise) with gemmlowp's
// own SaturatingRoundingDoublingHighMul and RoundingDivideByPOT, scales as float32.
int32_t TfliteOracle(int32_t qa, int32_t qb, const QuantSpec& a, const QuantSpec& b,
                     const QuantSpec& y) {
  const float fa = static_cast<float>(a.scale), fb = static_cast<float>(b.scale),
              fy = static_cast<float>(y.scale);
  const int left_shift = 20;
  const double twice_max_input_scale = 2 * std::max(fa, fb);
  const RefMultiplier ma = RefQuantizeMultiplier(fa / twice_max_input_scale);
  const RefMultiplier mb = RefQuantizeMultiplier(fb / twice_max_input_scale);
  const RefMultiplier my = RefQuantizeMultiplier(twice_max_input_scale / ((1 << left_shift) * fy));
  const int32_t input1_val = qa - a.zero_point;
  const int32_t input2_val = qb - b.zero_point;
  const int32_t scaled1 = GemmlowpMultiply(input1_val * (1 << left_shift), ma);
  const int32_t scaled2 = GemmlowpMultiply(input2_val * (1 << left_shift), mb);
  const int32_t raw_output = GemmlowpMultiply(scaled1 + scaled2, my) + y.zero_point;
  return std::clamp<int32_t>(raw_output, static_cast<int32_t>(y.qmin()),
                             static_cast<int32_t>(y.qmax()));
}

struct Triple {
  QuantSpec a, b, y;
};

std::string Describe(const Triple& t) {
  return fmt::format("a {} b {} y {}", Describe(t.a), Describe(t.b), Describe(t.y));
}

// ---- Names and validation -----------------------------------------------------------------------

TEST(AddForm, NamesRoundTrip) {
  EXPECT_EQ(AddFormName(AddForm::kSeedSymmetric), "seed-symmetric");
  EXPECT_EQ(AddFormName(AddForm::kTfliteAsymmetric), "tflite");
  for (AddForm form : kAllAddForms) EXPECT_EQ(ParseAddForm(AddFormName(form)), form);
  EXPECT_FALSE(ParseAddForm("tpu-mlir").has_value());
  EXPECT_EQ(AddFormChoices(), "seed-symmetric|tflite");
  EXPECT_EQ(IntermediateOverflowName(IntermediateOverflow::kSaturate), "saturate");
  EXPECT_EQ(IntermediateOverflowName(IntermediateOverflow::kWrap), "wrap");
}

TEST(Add, ValidatesArguments) {
  const QuantSpec s = Int8(0.05);
  const auto seed = AddForm::kSeedSymmetric;
  const auto tflite = AddForm::kTfliteAsymmetric;
  ExpectInvalidArgument([&] { MakeAddParams(Int8(0.05, 3), s, s, seed); }, "a.zero_point");
  ExpectInvalidArgument([&] { MakeAddParams(s, Uint8(0.05, 128), s, seed); }, "b.zero_point");
  ExpectInvalidArgument([&] { MakeAddParams(s, s, Int8(0.05, -1), seed); }, "y.zero_point");
  ExpectInvalidArgument(
      [&] {
        MakeAddParams(QuantSpec{16, true, false, 0.1, 0}, s, s, seed);
      },
      "a.bits");
  ExpectInvalidArgument(
      [&] {
        MakeAddParams(s, s, QuantSpec{12, true, false, 0.1, 0}, tflite);
      },
      "y.bits");
  ExpectInvalidArgument([&] { MakeAddParams(Int8(0.0), s, s, tflite); }, "a.scale");
  // From 127.5 on no 8-bit multiplier holds the ratio, even with rshift 0.
  ExpectInvalidArgument([&] { MakeAddParams(s, Int8(0.05 * 128), s, seed); }, "b.scale / y.scale");
  EXPECT_NO_THROW(MakeAddParams(s, Int8(0.05 * 127.4), s, seed));
  // TFLite needs 2 max(S_a, S_b) / (2^20 S_y) < 1.
  ExpectInvalidArgument([&] { MakeAddParams(s, s, Int8(0.1 / 1048576.0), tflite); }, "y.scale");
  EXPECT_NO_THROW(MakeAddParams(s, s, Int8(0.11 / 1048576.0), tflite));
  ExpectInvalidArgument([&] { MakeAddParams(Int8(1e-50), s, s, tflite); }, "a.scale");

  const AddParams params = MakeAddParams(s, Uint8(0.05), s, tflite);
  ExpectInvalidArgument([&] { Add(128, 0, params); }, "qa");
  ExpectInvalidArgument([&] { Add(0, -1, params); }, "qb");
  AddParams wide = params;
  wide.tflite.left_shift = 21;  // 255 * 2^21 * 2 would leave int32
  ExpectInvalidArgument([&] { Add(0, 0, wide); }, "tflite.left_shift");
}

TEST(Add, SeedSymmetricMultipliersShareTheRshiftOfTheLargerRatio) {
  // r_a = 0.4, r_b = 0.48: 0.48 * 2^8 = 122.88 -> 123 fits 127, 2^9 would give 246: rshift 8,
  // M_a = round(102.4) = 102.
  const AddParams p =
      MakeAddParams(Uint8(0.01), Uint8(0.012), Uint8(0.025), AddForm::kSeedSymmetric);
  EXPECT_EQ(p.seed.rshift, 8);
  EXPECT_EQ(p.seed.multiplier_a, 102);
  EXPECT_EQ(p.seed.multiplier_b, 123);
  EXPECT_EQ(p.seed.rounding, RoundingMode::kHalfUp);
  EXPECT_EQ(p.seed.overflow, IntermediateOverflow::kSaturate);
  // Equal scales: ratio 1 is 64 >> 6, so the sum is exact.
  const AddParams same = MakeAddParams(Int8(0.1), Int8(0.1), Int8(0.1), AddForm::kSeedSymmetric);
  EXPECT_EQ(same.seed.multiplier_a, 64);
  EXPECT_EQ(same.seed.multiplier_b, 64);
  EXPECT_EQ(same.seed.rshift, 6);
  EXPECT_EQ(Add(100, 20, same), 120);
  EXPECT_EQ(Add(100, 30, same), 127);  // saturates to int8
  EXPECT_EQ(Add(-100, -30, same), -128);
}

TEST(Add, TfliteMultipliersFollowAddPrepare) {
  // Equal input scales: each input multiplier is 1/2 = (2^30, 0); the output one is
  // 2 S / (2^20 S_y) = 2^-20 for S_y = 2 S: (2^30, -19).
  const AddParams p = MakeAddParams(Uint8(0.05, 128), Uint8(0.05, 128), Uint8(0.1, 128),
                                    AddForm::kTfliteAsymmetric);
  EXPECT_EQ(p.tflite.left_shift, 20);
  EXPECT_EQ(p.tflite.multiplier_a, 1 << 30);
  EXPECT_EQ(p.tflite.shift_a, 0);
  EXPECT_EQ(p.tflite.multiplier_b, 1 << 30);
  EXPECT_EQ(p.tflite.shift_b, 0);
  EXPECT_EQ(p.tflite.output_multiplier, 1 << 30);
  EXPECT_EQ(p.tflite.output_shift, -19);
  // 0.05 (130 - 128) + 0.05 (140 - 128) = 0.7 = 0.1 * 7: code 135.
  EXPECT_EQ(Add(130, 140, p), 135);
}

// ---- Seed-symmetric, exhaustive -----------------------------------------------------------------

std::vector<Triple> SeedTriples() {
  return {
      {Int8(0.1), Int8(0.1), Int8(0.1)},          // ratio 1: exact
      {Int8(0.02), Int8(0.03), Int8(0.045)},      // typical
      {Int8(0.1), Int8(0.001), Int8(0.05)},       // r_b = 0.02: M_b = 3 at rshift 7, coarse
      {Int8(0.07), Int8(0.19), Int8(0.1)},        // ratios above 1
      {Int8(0.013), Int8(0.011), Int8(0.0031)},   // output finer: saturates often
      {Int8(0.02), Uint8(0.01), Int8(0.04)},      // mixed signedness
      {Uint8(0.01), Uint8(0.012), Uint8(0.025)},  // uint8: the int16 sum overflows
      {Uint8(0.01), Uint8(0.01), Uint8(0.02)},    // uint8 with M_a + M_b = 128: never overflows
  };
}

TEST(AddSeedSymmetric, ExhaustiveAgainstIntegerOracleAndFloat) {
  MismatchLog exact_log, float_log;
  for (const Triple& t : SeedTriples()) {
    for (RoundingMode mode : {RoundingMode::kHalfUp, RoundingMode::kHalfAwayFromZero,
                              RoundingMode::kHalfToEven, RoundingMode::kFloor}) {
      for (IntermediateOverflow overflow :
           {IntermediateOverflow::kSaturate, IntermediateOverflow::kWrap}) {
        // Wrapping only matters with the default rounding; the other modes run saturated.
        if (overflow == IntermediateOverflow::kWrap && mode != RoundingMode::kHalfUp) continue;
        AddParams params = MakeAddParams(t.a, t.b, t.y, AddForm::kSeedSymmetric);
        params.seed.rounding = mode;
        params.seed.overflow = overflow;
        ErrorStats stats;
        int64_t overflowed = 0;
        for (int64_t qa : AllCodes(t.a)) {
          for (int64_t qb : AllCodes(t.b)) {
            const auto ia = static_cast<int32_t>(qa), ib = static_cast<int32_t>(qb);
            const int32_t y = Add(ia, ib, params);
            const SeedOracleResult ref =
                SeedOracle(ia, ib, t.a, t.b, t.y, mode, overflow == IntermediateOverflow::kWrap);
            const std::string where =
                fmt::format("{} {} {} qa={} qb={}", Describe(t), RoundingModeName(mode),
                            IntermediateOverflowName(overflow), qa, qb);
            if (y != ref.y) exact_log.Add(fmt::format("{}: oracle {}, got {}", where, ref.y, y));
            if (ref.overflowed) {
              ++overflowed;
              continue;
            }
            const int32_t by_float = AddFloatReference(ia, ib, t.a, t.b, t.y);
            const int64_t error = std::abs(int64_t{y} - by_float);
            stats.Add(error);
            // Floor rounds up to 1 away from the exact value, the half modes 1/2.
            const double bound = ref.bound + (mode == RoundingMode::kFloor ? 0.5 : 0.0);
            if (double(error) > bound) {
              float_log.Add(
                  fmt::format("{}: float {}, got {}, bound {}", where, by_float, y, bound));
            }
          }
        }
        if (mode == RoundingMode::kHalfUp && overflow == IntermediateOverflow::kSaturate) {
          std::cout << "seed-symmetric " << Describe(t) << " (M_a " << params.seed.multiplier_a
                    << ", M_b " << params.seed.multiplier_b << ", rshift " << params.seed.rshift
                    << "): vs float max " << stats.max << " LSB, mean " << stats.mean()
                    << " LSB; int16 overflow in " << overflowed << " of 65536 pairs\n";
        }
      }
    }
  }
  EXPECT_EQ(exact_log.count, 0) << "first: " << exact_log.first;
  EXPECT_EQ(float_log.count, 0) << "first: " << float_log.first;
}

TEST(AddSeedSymmetric, Int8InputsNeverOverflowTheInt16Sum) {
  // |q| <= 128 and M <= 127: |q_a M_a + q_b M_b| <= 32512 for any scales. Checked on a grid of
  // ratios whose multipliers reach 127, against the oracle's exact sum.
  int64_t pairs = 0;
  for (double ra : {0.01, 0.5, 0.99, 1.0, 1.98, 63.4, 127.0}) {
    for (double rb : {0.003, 0.49, 0.996, 1.0, 126.9}) {
      const RefSeedMultipliers m = RefSeed(ra, rb);
      ASSERT_LE(std::max(m.ma, m.mb), 127);
      for (int qa = -128; qa <= 127; ++qa) {
        for (int qb = -128; qb <= 127; ++qb) {
          const int64_t sum = qa * m.ma + qb * m.mb;
          ASSERT_TRUE(sum >= -32768 && sum <= 32767) << ra << " " << rb << " " << qa << " " << qb;
          ++pairs;
        }
      }
    }
  }
  EXPECT_EQ(pairs, 35 * 65536);
}

TEST(AddSeedSymmetric, Int16OverflowSaturatesByDefault) {
  // uint8 inputs, M_a = 102, M_b = 123, rshift 8: 255 * 225 = 57375 > 32767.
  const Triple t{Uint8(0.01), Uint8(0.012), Uint8(0.025)};
  AddParams params = MakeAddParams(t.a, t.b, t.y, AddForm::kSeedSymmetric);
  // Float: (2.55 + 3.06) / 0.025 = 224.4 -> 224, representable in uint8.
  EXPECT_EQ(AddFloatReference(255, 255, t.a, t.b, t.y), 224);
  // Saturated: 32767 / 256 = 127.996 -> 128 (half up).
  EXPECT_EQ(Add(255, 255, params), 128);
  // The largest sum that fits is exact: 160 * 102 + 133 * 123 = 32679 -> 127.65 -> 128.
  EXPECT_EQ(Add(160, 133, params), 128);
  params.seed.overflow = IntermediateOverflow::kWrap;
  // Wrapped: 57375 - 65536 = -8161 -> -31.9 -> clamped to 0.
  EXPECT_EQ(Add(255, 255, params), 0);
  // Every overflowing pair saturates to 32767 (int16 max) before the shift: result 128.
  params.seed.overflow = IntermediateOverflow::kSaturate;
  int64_t overflowing = 0;
  for (int qa = 0; qa <= 255; ++qa) {
    for (int qb = 0; qb <= 255; ++qb) {
      if (qa * 102 + qb * 123 > 32767) {
        ++overflowing;
        ASSERT_EQ(Add(qa, qb, params), 128) << qa << " " << qb;
      }
    }
  }
  EXPECT_GT(overflowing, 10000);
}

// ---- TFLite, exhaustive -------------------------------------------------------------------------

std::vector<Triple> TfliteTriples() {
  return {
      {Uint8(0.05, 128), Uint8(0.05, 128), Uint8(0.1, 128)},
      {Int8(0.02, -5), Int8(0.035, 20), Int8(0.04, -10)},
      {Uint8(0.1, 0), Uint8(0.003, 3), Uint8(0.09, 7)},
      {Int8(1.0, 10), Int8(1e-3, -7), Int8(0.5, 0)},  // one input 1000x finer
      {Int8(0.05, 0), Int8(0.05, 0), Int8(0.01, 0)},  // output finer: heavy clamping
      {Uint8(0.0123, 77), Int8(0.0456, -100), Uint8(0.0601, 250)},
      {Int8(0.1, 0), Int8(0.1, 0), Int8(0.1, 0)},  // symmetric specs: the seed's case
  };
}

TEST(AddTflite, ExhaustiveAgainstGemmlowpAndFloatWithin1Lsb) {
  MismatchLog exact_log, float_log;
  for (const Triple& t : TfliteTriples()) {
    const AddParams params = MakeAddParams(t.a, t.b, t.y, AddForm::kTfliteAsymmetric);
    ErrorStats stats;
    for (int64_t qa : AllCodes(t.a)) {
      for (int64_t qb : AllCodes(t.b)) {
        const auto ia = static_cast<int32_t>(qa), ib = static_cast<int32_t>(qb);
        const int32_t y = Add(ia, ib, params);
        const std::string where = fmt::format("{} qa={} qb={}", Describe(t), qa, qb);
        const int32_t exact = TfliteOracle(ia, ib, t.a, t.b, t.y);
        if (y != exact) exact_log.Add(fmt::format("{}: gemmlowp {}, got {}", where, exact, y));
        const int32_t by_float = AddFloatReference(ia, ib, t.a, t.b, t.y);
        const int64_t error = std::abs(int64_t{y} - by_float);
        stats.Add(error);
        if (error > 1) float_log.Add(fmt::format("{}: float {}, got {}", where, by_float, y));
      }
    }
    std::cout << "tflite " << Describe(t) << ": vs float max " << stats.max << " LSB, mean "
              << stats.mean() << " LSB over " << stats.n << " pairs\n";
  }
  EXPECT_EQ(exact_log.count, 0) << "first: " << exact_log.first;
  EXPECT_EQ(float_log.count, 0) << "first: " << float_log.first;
}

TEST(AddTflite, SymmetricSpecsAgreeWithTheSeedFormWhereItsMultipliersAreExact) {
  // Equal scales make both forms exact: the seed form is 64 (q_a + q_b) >> 6, TFLite's multipliers
  // are powers of two (1/2 for each input, 2^-19 for the output). Both give clamp(q_a + q_b).
  const QuantSpec s = Int8(0.1);
  const AddParams tflite = MakeAddParams(s, s, s, AddForm::kTfliteAsymmetric);
  const AddParams seed = MakeAddParams(s, s, s, AddForm::kSeedSymmetric);
  for (int qa = -128; qa <= 127; ++qa) {
    for (int qb = -128; qb <= 127; ++qb) {
      ASSERT_EQ(Add(qa, qb, tflite), Add(qa, qb, seed)) << qa << " " << qb;
      ASSERT_EQ(Add(qa, qb, seed), std::clamp(qa + qb, -128, 127));
    }
  }
}

}  // namespace
}  // namespace qacc::golden
