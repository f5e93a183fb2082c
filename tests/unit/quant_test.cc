#include "golden/quant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace qacc::golden {
namespace {

TEST(RoundReal, TiesFollowEachMode) {
  // Expected values straight from each mode's definition, for the ties +-0.5, +-1.5, +-2.5.
  struct Case {
    double x;
    double away, even, up, zero, floor;
  };
  const Case cases[] = {
      {0.5, 1, 0, 1, 0, 0},     {-0.5, -1, -0, -0, -0, -1}, {1.5, 2, 2, 2, 1, 1},
      {-1.5, -2, -2, -1, -1, -2}, {2.5, 3, 2, 3, 2, 2},     {-2.5, -3, -2, -2, -2, -3},
      {2.7, 3, 3, 3, 2, 2},     {-2.7, -3, -3, -3, -2, -3}, {2.2, 2, 2, 2, 2, 2},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RoundReal(c.x, RoundingMode::kHalfAwayFromZero), c.away) << c.x;
    EXPECT_EQ(RoundReal(c.x, RoundingMode::kHalfToEven), c.even) << c.x;
    EXPECT_EQ(RoundReal(c.x, RoundingMode::kHalfUp), c.up) << c.x;
    EXPECT_EQ(RoundReal(c.x, RoundingMode::kTowardZero), c.zero) << c.x;
    EXPECT_EQ(RoundReal(c.x, RoundingMode::kFloor), c.floor) << c.x;
  }
}

TEST(RoundReal, HalfUpIsExactJustBelowHalf) {
  // 0.49999999999999994 + 0.5 rounds to 1.0 in double; the exact implementation must not.
  const double below_half = std::nextafter(0.5, 0.0);
  EXPECT_EQ(RoundReal(below_half, RoundingMode::kHalfUp), 0.0);
  EXPECT_EQ(RoundReal(below_half, RoundingMode::kHalfAwayFromZero), 0.0);
  EXPECT_EQ(RoundReal(below_half, RoundingMode::kHalfToEven), 0.0);
}

TEST(RoundReal, MatchesLibmForRandomValues) {
  // Independent oracles: std::round, std::nearbyint (default round-to-nearest-even), std::trunc, std::floor.
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> dist(-1e6, 1e6);
  for (int i = 0; i < 200000; ++i) {
    const double x = i % 2 ? dist(rng) : std::round(dist(rng) * 2) / 2;  // half the samples are ties
    ASSERT_EQ(RoundReal(x, RoundingMode::kHalfAwayFromZero), std::round(x));
    ASSERT_EQ(RoundReal(x, RoundingMode::kHalfToEven), std::nearbyint(x));
    ASSERT_EQ(RoundReal(x, RoundingMode::kHalfUp), std::floor(x + 0.5));  // exact for these magnitudes
    ASSERT_EQ(RoundReal(x, RoundingMode::kTowardZero), std::trunc(x));
    ASSERT_EQ(RoundReal(x, RoundingMode::kFloor), std::floor(x));
  }
}

TEST(RoundingModeNames, RoundTrip) {
  for (RoundingMode mode : kAllRoundingModes) {
    EXPECT_EQ(ParseRoundingMode(RoundingModeName(mode)), mode);
  }
  EXPECT_FALSE(ParseRoundingMode("nearest").has_value());
}

TEST(QRange, SignedUnsignedNarrow) {
  EXPECT_EQ(QMin(8, true), -128);
  EXPECT_EQ(QMax(8, true), 127);
  EXPECT_EQ(QMin(8, true, true), -127);
  EXPECT_EQ(QMin(8, false), 0);
  EXPECT_EQ(QMax(8, false), 255);
  EXPECT_EQ(QMin(2, true), -2);
  EXPECT_EQ(QMax(2, true), 1);
  EXPECT_EQ(QMin(2, true, true), -1);
  EXPECT_EQ(QMax(16, true), 32767);
  EXPECT_EQ(QMax(16, false), 65535);
  EXPECT_EQ(QMax(40, true), (int64_t{1} << 39) - 1);
}

TEST(Quantize, ZeroPointIsAddedAfterRounding) {
  // With zp = 3: x/scale = -2.5 rounds first (half away -> -3), then + 3 = 0. Rounding after the add would
  // give round(0.5) = 1.
  QuantSpec spec{8, true, false, 1.0, 3};
  EXPECT_EQ(Quantize(-2.5, spec, RoundingMode::kHalfAwayFromZero), 0);
  EXPECT_EQ(Quantize(-2.5, spec, RoundingMode::kHalfUp), 1);
  EXPECT_EQ(Quantize(-2.5, spec, RoundingMode::kHalfToEven), 1);
}

TEST(Quantize, SaturatesAndHandlesNonFinite) {
  const QuantSpec spec{8, true, true, 0.5, 0};
  EXPECT_EQ(Quantize(1000.0, spec, RoundingMode::kHalfToEven), 127);
  EXPECT_EQ(Quantize(-1000.0, spec, RoundingMode::kHalfToEven), -127);  // narrow
  EXPECT_EQ(Quantize(std::numeric_limits<double>::infinity(), spec, RoundingMode::kFloor), 127);
  EXPECT_EQ(Quantize(-std::numeric_limits<double>::infinity(), spec, RoundingMode::kFloor), -127);
  EXPECT_EQ(Quantize(std::nan(""), spec, RoundingMode::kFloor), 0);
  EXPECT_EQ(Quantize(1e300, spec, RoundingMode::kFloor), 127);
  EXPECT_EQ(QuantizeToRange(1e300, 1e-300, 0, 0, (int64_t{1} << 40) - 1, RoundingMode::kFloor),
            (int64_t{1} << 40) - 1);
}

TEST(Quantize, DequantizeRoundTripsEveryCode) {
  for (int bits = kMinQuantBits; bits <= kMaxQuantBits; ++bits) {
    for (bool is_signed : {true, false}) {
      QuantSpec spec{bits, is_signed, false, 0.037, is_signed ? -1 : 5};
      for (int64_t q : AllCodes(spec)) {
        for (RoundingMode mode : kAllRoundingModes) {
          if (mode == RoundingMode::kTowardZero || mode == RoundingMode::kFloor) continue;  // not idempotent
          ASSERT_EQ(Quantize(Dequantize(q, spec), spec, mode), q) << bits << " " << q;
        }
      }
    }
  }
}

TEST(SymmetricFromAmax, ScaleIsAmaxOverQmax) {
  EXPECT_DOUBLE_EQ(SymmetricFromAmax(4.0, 8, true).scale, 4.0 / 127);
  EXPECT_DOUBLE_EQ(SymmetricFromAmax(4.0, 8, false).scale, 4.0 / 255);
  EXPECT_DOUBLE_EQ(SymmetricFromAmax(1.0, 4, true, true).scale, 1.0 / 7);
  EXPECT_THROW(SymmetricFromAmax(0.0, 8, true), std::invalid_argument);
  EXPECT_THROW(SymmetricFromAmax(std::nan(""), 8, true), std::invalid_argument);
  EXPECT_THROW(SymmetricFromAmax(1.0, 17, true), std::invalid_argument);
  EXPECT_THROW(SymmetricFromAmax(1.0, 1, true), std::invalid_argument);
}

TEST(AsymmetricFromMinMax, RangeIncludesZeroAndZeroIsExact) {
  const QuantSpec a = AsymmetricFromMinMax(-1.0, 3.0, 8, false);
  EXPECT_DOUBLE_EQ(a.scale, 4.0 / 255);
  EXPECT_EQ(a.zero_point, 64);  // round(0 + 1 / (4/255)) = round(63.75)
  EXPECT_EQ(Quantize(0.0, a, RoundingMode::kHalfToEven), a.zero_point);

  const QuantSpec positive = AsymmetricFromMinMax(2.0, 6.0, 8, true);  // widened to [0, 6]
  EXPECT_DOUBLE_EQ(positive.scale, 6.0 / 255);
  EXPECT_EQ(positive.zero_point, -128);

  const QuantSpec negative = AsymmetricFromMinMax(-6.0, -2.0, 8, false);  // widened to [-6, 0]
  EXPECT_EQ(negative.zero_point, 255);

  const QuantSpec degenerate = AsymmetricFromMinMax(0.0, 0.0, 8, true);
  EXPECT_EQ(degenerate.scale, 1.0);
  EXPECT_THROW(AsymmetricFromMinMax(1.0, -1.0, 8, true), std::invalid_argument);
}

TEST(ValidateQuantSpec, NamesTheField) {
  try {
    ValidateQuantSpec(QuantSpec{17, true, false, 1.0, 0}, "in");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "in.bits: 17 is out of range, allowed 2..16");
  }
  EXPECT_THROW(ValidateQuantSpec(QuantSpec{8, false, true, 1.0, 0}), std::invalid_argument);
  EXPECT_THROW(ValidateQuantSpec(QuantSpec{8, true, false, -1.0, 0}), std::invalid_argument);
  EXPECT_THROW(ValidateQuantSpec(QuantSpec{8, true, false, 1.0, 128}), std::invalid_argument);
  EXPECT_NO_THROW(ValidateQuantSpec(QuantSpec{8, false, false, 1.0, 255}));
}

}  // namespace
}  // namespace qacc::golden
