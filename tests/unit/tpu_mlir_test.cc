// golden/tpu_mlir against an independent model of TPU-MLIR's rules, written here from the rules in
// exact integer arithmetic (the double's mantissa and exponent, 128-bit products), not by calling
// the code under test, over a grid of scales at every boundary; plus the values TPU-MLIR's own
// arithmetic gives for fixed inputs (read from sophgo/tpu-mlir lib/Support/MathUtils.cpp,
// docs/requant.md).
#include "golden/tpu_mlir.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "golden/requant.h"

namespace qacc::golden::tpu_mlir {
namespace {

__extension__ typedef __int128 Int128;

// A finite double > 0 as m * 2^e with m a 53-bit integer.
struct Dyadic {
  int64_t m = 0;
  int e = 0;
};
Dyadic Split(double x) {
  int e = 0;
  const double f = std::frexp(x, &e);  // x = f * 2^e, f in [0.5, 1)
  return {static_cast<int64_t>(std::ldexp(f, 53)), e - 53};
}

// sign(m * 2^k - v) for m >= 0, v >= 0, exactly.
int Compare(int64_t m, int k, int64_t v) {
  if (k >= 0) {
    if (k > 64) return m == 0 ? (v == 0 ? 0 : -1) : 1;
    const Int128 lhs = static_cast<Int128>(m) << k;
    return lhs < v ? -1 : lhs > v ? 1 : 0;
  }
  if (-k > 62) return m == 0 && v == 0 ? 0 : (v == 0 ? 1 : -1);  // m * 2^k < 2^-9 < 1 <= v
  const Int128 rhs = static_cast<Int128>(v) << -k;
  return m < rhs ? -1 : m > rhs ? 1 : 0;
}

// floor(m * 2^k) for m >= 0 (the result fits int64 where the rule takes it).
int64_t FloorTimesPow2(int64_t m, int k) {
  if (k >= 0) return static_cast<int64_t>(static_cast<Int128>(m) << k);
  return -k >= 63 ? 0 : (m >> -k);
}

// The rule, exactly: saturate above max; else the smallest R in 0..62 with scale * 2^(R+1) >= max
// and multiplier floor(scale * 2^R); else (0, 0). Zero, negative and NaN scales find no R.
RShiftMultiplier ModelFromQScale(double scale, int64_t max) {
  if (std::isnan(scale) || scale <= 0.0) return {0, 0, false};
  if (std::isinf(scale)) return {max, 0, true};
  const Dyadic d = Split(scale);
  if (Compare(d.m, d.e, max) > 0) return {max, 0, true};
  for (int r = 0; r <= 62; ++r) {
    if (Compare(d.m, d.e + r + 1, max) >= 0) return {FloorTimesPow2(d.m, d.e + r), r, false};
  }
  return {0, 0, false};
}

// floor(a / 2^s) and the remainder, exactly, for s 1..63.
void FloorDiv(Int128 a, int s, Int128& q, Int128& r) {
  const Int128 d = static_cast<Int128>(1) << s;
  q = a / d;
  r = a - q * d;
  if (r < 0) {
    q -= 1;
    r += d;
  }
}

// Each mode from its definition on the exact quotient src / 2^s.
int64_t ModelShiftRound(int64_t src, int s, Rounding mode) {
  if (s == 0) return src;
  if (s > 63) s = 63;
  Int128 q = 0, r = 0;
  FloorDiv(src, s, q, r);
  const Int128 twice = 2 * r, d = static_cast<Int128>(1) << s;
  const bool above = twice > d, tie = twice == d;
  switch (mode) {
    case Rounding::kHalfAwayFromZero:
      return int64_t(q + (above || (tie && src >= 0) ? 1 : 0));
    case Rounding::kHalfUp:
      return int64_t(q + (above || tie ? 1 : 0));
    case Rounding::kHalfDown:
      return int64_t(q + (above ? 1 : 0));
    case Rounding::kHalfToEven:
      return int64_t(q + (above || (tie && (q % 2 != 0)) ? 1 : 0));
    case Rounding::kTowardsZero:
      return int64_t(q + (src < 0 && r != 0 ? 1 : 0));
    case Rounding::kUp:
      return int64_t(q + (r != 0 ? 1 : 0));
    case Rounding::kDown:
      return int64_t(q);
  }
  return 0;
}

// Marsaglia's xorshift64: fixed-seed inputs, the same on every platform.
class XorShift {
 public:
  explicit XorShift(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  double Unit() { return static_cast<double>(Next() >> 11) * std::ldexp(1.0, -53); }  // [0, 1)
  // An int32 of random magnitude (every bit length equally likely); a Q31 multiplier.
  int32_t Accumulator() { return static_cast<int32_t>(Next()) >> (Next() % 32); }
  int32_t Q31Multiplier() {
    return static_cast<int32_t>((int64_t{1} << 30) + int64_t(Next() % (int64_t{1} << 30)));
  }

 private:
  uint64_t state_;
};

// ---- Derivation --------------------------------------------------------------------------------

TEST(TpuMlirFromQScale, ValuesOfTheIssueAndTheSeed) {
  struct Case {
    double scale;
    int64_t max, multiplier;
    int rshift;
    bool saturated;
  };
  for (const Case& c : std::vector<Case>{{0.3, 127, 76, 8, false},
                                         {0.99, 127, 126, 7, false},
                                         {0.12421875, 127, 63, 9, false},
                                         {200, 127, 127, 0, true},
                                         {0.3, 255, 153, 9, false},
                                         {127, 127, 127, 0, false},
                                         {127.5, 127, 127, 0, true},
                                         {63.5, 127, 63, 0, false},
                                         {63.4999, 127, 126, 1, false},
                                         {1.4e-17, 127, 64, 62, false},
                                         {1e-18, 127, 0, 0, false},
                                         {0.0, 127, 0, 0, false},
                                         {-0.5, 127, 0, 0, false}}) {
    const RShiftMultiplier got = RShiftAndMultiplierFromQScale(c.scale, c.max);
    EXPECT_EQ(got.multiplier, c.multiplier) << c.scale << " max " << c.max;
    EXPECT_EQ(got.rshift, c.rshift) << c.scale << " max " << c.max;
    EXPECT_EQ(got.saturated, c.saturated) << c.scale << " max " << c.max;
  }
}

// Every power-of-two boundary, the truncation boundaries M / 2^R at every rshift (and their ties
// (M + 1/2) / 2^R), the search boundary max / 2^(R+1), just above the maximum, below the smallest
// representable scale, and non-finite inputs, each with its neighbouring doubles, for each maximum.
std::vector<double> Grid(int64_t max) {
  std::vector<double> base;
  for (int k = -80; k <= 64; ++k) base.push_back(std::ldexp(1.0, k));
  const double dmax = static_cast<double>(max);
  for (int r = 0; r <= 63; ++r) {
    base.push_back(std::ldexp(dmax, -(r + 1)));
    for (int64_t m : {(max + 1) / 2, max / 2, max - 1, max}) {
      base.push_back(std::ldexp(static_cast<double>(m), -r));
      base.push_back(std::ldexp(static_cast<double>(m) + 0.5, -r));
    }
  }
  for (double v : {dmax, dmax + 0.5, dmax + 1, 2 * dmax, 1e300, std::ldexp(dmax, -63),
                   std::ldexp(dmax, -64), 5e-324, 0.3, 0.99, 0.12421875, 1.0 / 3}) {
    base.push_back(v);
  }
  std::vector<double> grid;
  for (double v : base) {
    grid.push_back(v);
    grid.push_back(std::nextafter(v, 0.0));
    grid.push_back(std::nextafter(v, std::numeric_limits<double>::infinity()));
  }
  for (double v : {0.0, -0.0, -1.0, std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN()}) {
    grid.push_back(v);
  }
  return grid;
}

TEST(TpuMlirFromQScale, AgreesWithTheModelOnTheGrid) {
  int cases = 0;
  for (int64_t max :
       {int64_t{127}, int64_t{255}, int64_t{1000}, int64_t{32767}, int64_t{2147483647}}) {
    for (double scale : Grid(max)) {
      const RShiftMultiplier want = ModelFromQScale(scale, max);
      const RShiftMultiplier got = RShiftAndMultiplierFromQScale(scale, max);
      ASSERT_EQ(got.multiplier, want.multiplier) << scale << " max " << max;
      ASSERT_EQ(got.rshift, want.rshift) << scale << " max " << max;
      ASSERT_EQ(got.saturated, want.saturated) << scale << " max " << max;
      ++cases;
    }
  }
  RecordProperty("cases", cases);
  std::printf("%d (scale, max) cases agree with the model\n", cases);
  EXPECT_GT(cases, 5000);
}

TEST(TpuMlirFromQScale, RefusesAMaximumOutOfRange) {
  for (int64_t max : {int64_t{0}, int64_t{-127}, (int64_t{1} << 62) + 1}) {
    try {
      RShiftAndMultiplierFromQScale(0.5, max);
      ADD_FAILURE() << max;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("max_multiplier"), std::string::npos) << e.what();
    }
  }
}

// qdm: clamp at 1, then TFLite's Q31 rounding of the frexp mantissa (half away from zero), with the
// carry, the flush below 2^-32 and the exponent clamp; modelled exactly from the double's bits.
QdmMultiplier ModelQdm(double scale) {
  if (scale >= 1.0) scale = 0.999999;
  if (scale == 0.0) return {0, 0};
  const Dyadic d = Split(scale);  // scale = m * 2^e, m in [2^52, 2^53)
  const int exponent = d.e + 53;  // frexp exponent
  // round(m * 2^(31 - 53)) half away from zero (m > 0): (m + 2^21) >> 22.
  int64_t q = (d.m + (int64_t{1} << 21)) >> 22;
  int ex = exponent;
  if (q == (int64_t{1} << 31)) {
    q >>= 1;
    ++ex;
  }
  if (ex < -31) return {0, 0};
  return {q, -ex};
}

TEST(TpuMlirQdm, ValuesAndTheModel) {
  EXPECT_EQ(QdmMultiplierFromQScale(0.3).multiplier, 1288490189);
  EXPECT_EQ(QdmMultiplierFromQScale(0.3).rshift, 1);
  EXPECT_EQ(QdmMultiplierFromQScale(0.5).multiplier, int64_t{1} << 30);
  EXPECT_EQ(QdmMultiplierFromQScale(0.5).rshift, 0);
  EXPECT_EQ(QdmMultiplierFromQScale(2.0).multiplier, 2147481501);  // clamped to 0.999999
  EXPECT_EQ(QdmMultiplierFromQScale(2.0).rshift, 0);
  // Just below 1: the mantissa carries to 2^31, halved, exponent 1.
  const QdmMultiplier carry = QdmMultiplierFromQScale(std::nextafter(1.0, 0.0));
  EXPECT_EQ(carry.multiplier, int64_t{1} << 30);
  EXPECT_EQ(carry.rshift, -1);
  int cases = 0;
  for (double scale : Grid(127)) {
    if (!(scale >= 0.0) || std::isinf(scale)) continue;
    const QdmMultiplier want = ModelQdm(scale), got = QdmMultiplierFromQScale(scale);
    ASSERT_EQ(got.multiplier, want.multiplier) << scale;
    ASSERT_EQ(got.rshift, want.rshift) << scale;
    ++cases;
  }
  EXPECT_GT(cases, 1000);
  for (double bad :
       {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(QdmMultiplierFromQScale(bad), std::invalid_argument) << bad;
  }
}

// ---- Application -------------------------------------------------------------------------------

TEST(TpuMlirRightShiftRound, TheTableOfEachMode) {
  // shift 2, src 5, 6, 7, 10, -5, -6, -7, -10 (TPU-MLIR's RightShiftRound).
  const std::vector<int64_t> src = {5, 6, 7, 10, -5, -6, -7, -10};
  const std::vector<std::pair<Rounding, std::vector<int64_t>>> table = {
      {Rounding::kHalfAwayFromZero, {1, 2, 2, 3, -1, -2, -2, -3}},
      {Rounding::kHalfUp, {1, 2, 2, 3, -1, -1, -2, -2}},
      {Rounding::kHalfDown, {1, 1, 2, 2, -1, -2, -2, -3}},
      {Rounding::kHalfToEven, {1, 2, 2, 2, -1, -2, -2, -2}},
      {Rounding::kTowardsZero, {1, 1, 1, 2, -1, -1, -1, -2}},
      {Rounding::kUp, {2, 2, 2, 3, -1, -1, -1, -2}},
      {Rounding::kDown, {1, 1, 1, 2, -2, -2, -2, -3}}};
  for (const auto& [mode, want] : table) {
    for (size_t i = 0; i < src.size(); ++i) {
      EXPECT_EQ(RightShiftRound(src[i], 2, mode), want[i]) << RoundingName(mode) << " " << src[i];
    }
  }
  EXPECT_EQ(RightShiftRound(-7, 0, Rounding::kUp), -7);  // shift 0: unchanged in every mode
  EXPECT_EQ(RightShiftRound(int64_t{1} << 62, 100, Rounding::kDown),
            0);  // shift above 63 acts as 63
  EXPECT_THROW(RightShiftRound(1, -1, Rounding::kDown), std::invalid_argument);
}

TEST(TpuMlirRightShiftRound, AgreesWithTheModel) {
  XorShift rng(12345);
  std::vector<int64_t> values = {0, 1, -1, std::numeric_limits<int64_t>::min(),
                                 std::numeric_limits<int64_t>::max()};
  for (int s = 0; s <= 63; ++s) {
    const int64_t p = int64_t{1} << std::min(s, 62);
    for (int64_t k : {-3, -2, -1, 0, 1, 2, 3}) {
      // Multiples of 2^s and the ties between them, where they fit in int64 (2^62 * 3 does not).
      for (int64_t offset : {int64_t{0}, p / 2, -(p / 2)}) {
        int64_t multiple = 0, value = 0;
        if (!__builtin_mul_overflow(p, k, &multiple) &&
            !__builtin_add_overflow(multiple, offset, &value))
          values.push_back(value);
      }
    }
  }
  for (int i = 0; i < 20000; ++i)
    values.push_back(static_cast<int64_t>(rng.Next()) >> (rng.Next() % 63));
  for (Rounding mode : kAllRoundings) {
    for (int s : {0, 1, 2, 3, 7, 15, 16, 30, 31, 32, 33, 61, 62, 63, 64, 70}) {
      for (int64_t v : values) {
        ASSERT_EQ(RightShiftRound(v, s, mode), ModelShiftRound(v, s, mode))
            << RoundingName(mode) << " " << v << " >> " << s;
      }
    }
  }
}

TEST(TpuMlirApply, MultiplierShiftAndShiftOnly) {
  // 76 >> 8 (scale 0.3), half up: 337 * 76 / 256 = 100.05 -> 100; -1000 * 76 / 256 -> -297.
  EXPECT_EQ(ApplyMultiplierAndRShift(337, 76, 8), 100);
  EXPECT_EQ(ApplyMultiplierAndRShift(-1000, 76, 8), -297);
  EXPECT_EQ(ApplyMultiplierAndRShift(-2, 64, 8, Rounding::kHalfUp), 0);  // -0.5: tie toward +inf
  EXPECT_EQ(ApplyMultiplierAndRShift(-2, 64, 8, Rounding::kHalfAwayFromZero), -1);
  EXPECT_EQ(ApplyRShiftOnly(-6, 2, Rounding::kHalfToEven), -2);
  EXPECT_THROW(ApplyMultiplierAndRShift(int64_t{1} << 31, 1, 0), std::invalid_argument);
}

// TPU-MLIR's TFLite-style path, modelled with 128-bit products and the exact rounding definitions.
int32_t ModelMultiplyByQuantizedMultiplier(int32_t x, int32_t m, int shift, Rounding mode) {
  int64_t v = x;
  if (shift > 0) v = static_cast<int32_t>(static_cast<uint32_t>(x) * (uint32_t{1} << shift));
  int64_t s1 = ModelShiftRound(v * int64_t{m}, 31, Rounding::kHalfUp);
  s1 = std::min<int64_t>(std::max<int64_t>(s1, INT32_MIN), INT32_MAX);
  return static_cast<int32_t>(shift < 0 ? ModelShiftRound(s1, -shift, mode) : s1);
}

TEST(TpuMlirApply, TfliteStylePath) {
  // x = -5, M for 0.3, shift -1: stage 1 = -3 (SRDHM), stage 2 -1.5 -> -1 half up, -2 away.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-5, 1288490189, -1, Rounding::kHalfUp), -1);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-5, 1288490189, -1, Rounding::kHalfAwayFromZero), -2);
  XorShift rng(99);
  for (int i = 0; i < 200000; ++i) {
    const int32_t x = rng.Accumulator(), m = rng.Q31Multiplier();
    const int shift = int(rng.Next() % 95) - 63;
    const Rounding mode = kAllRoundings[rng.Next() % 7];
    ASSERT_EQ(MultiplyByQuantizedMultiplier(x, m, shift, mode),
              ModelMultiplyByQuantizedMultiplier(x, m, shift, mode))
        << x << " " << m << " " << shift << " " << RoundingName(mode);
  }
  EXPECT_THROW(MultiplyByQuantizedMultiplier(1, 1 << 30, 32), std::invalid_argument);
}

// With half away from zero in stage 2 and shifts -31..0, the path is TFLite's double rounding
// (golden MultiplyByQuantizedMultiplierDoubleRounding, itself checked against gemmlowp): stage 1 is
// SRDHM.
TEST(TpuMlirApply, TfliteStylePathIsTfliteWithHalfAwayFromZero) {
  XorShift rng(7);
  for (int i = 0; i < 200000; ++i) {
    const int32_t x = rng.Accumulator(), m = rng.Q31Multiplier();
    const int shift = -int(rng.Next() % 32);
    ASSERT_EQ(MultiplyByQuantizedMultiplier(x, m, shift, Rounding::kHalfAwayFromZero),
              golden::MultiplyByQuantizedMultiplierDoubleRounding(x, m, shift))
        << x << " " << m << " " << shift;
  }
}

TEST(TpuMlirRounding, NamesRoundTrip) {
  for (Rounding mode : kAllRoundings) EXPECT_EQ(ParseRounding(RoundingName(mode)), mode);
  EXPECT_FALSE(ParseRounding("half_odd").has_value());
  EXPECT_EQ(RoundingChoices(),
            "half_away_from_zero|half_up|half_down|half_to_even|towards_zero|up|down");
}

// The two derivations over 10^5 log-uniform scales in [2^-40, 2^8] (fixed seed), per multiplier
// width: how many (multiplier, rshift) pairs differ, and each one's largest relative error. The
// exact derivation rounds and takes the largest rshift that fits, so its error is never larger than
// TPU-MLIR's on the same scale; a scale above the exact range (round(scale) > max) is counted apart
// (TPU-MLIR saturates it). The figures are printed for docs/requant.md 5.
TEST(TpuMlirVsExact, LogUniformSweep) {
  XorShift rng(2026);
  std::vector<double> scales;
  for (int i = 0; i < 100000; ++i) scales.push_back(std::exp2(-40.0 + 48.0 * rng.Unit()));
  for (int bits : kMultiplierRshiftBits) {
    const int64_t max = (int64_t{1} << (bits - 1)) - 1;
    int differ = 0, exact_refuses = 0, tpu_flushes = 0;
    double exact_worst = 0, tpu_worst = 0;
    for (double scale : scales) {
      const RShiftMultiplier tpu = RShiftAndMultiplierFromQScale(scale, max);
      const double tpu_error =
          std::fabs(std::ldexp(double(tpu.multiplier), -tpu.rshift) - scale) / scale;
      tpu_flushes += tpu.multiplier == 0;
      MultiplierRshift exact;
      try {
        exact = QuantizeMultiplierRshift(scale, bits);
      } catch (const std::invalid_argument&) {
        ++exact_refuses;
        ASSERT_TRUE(tpu.saturated) << scale;
        continue;
      }
      const double exact_error = std::fabs(EffectiveScale(exact) - scale) / scale;
      ASSERT_LE(exact_error, tpu_error) << scale << " bits " << bits;
      differ += exact.multiplier != tpu.multiplier || exact.rshift != tpu.rshift;
      exact_worst = std::max(exact_worst, exact_error);
      tpu_worst = std::max(tpu_worst, tpu_error);
    }
    std::printf(
        "bits %d (max %lld): %d of %zu differ; exact refuses %d (TPU-MLIR saturates); TPU-MLIR "
        "flushes %d to 0; largest relative error exact %.3e, TPU-MLIR %.3e\n",
        bits, static_cast<long long>(max), differ, scales.size(), exact_refuses, tpu_flushes,
        exact_worst, tpu_worst);
    EXPECT_GT(differ, 0) << bits;
  }
}

}  // namespace
}  // namespace qacc::golden::tpu_mlir
