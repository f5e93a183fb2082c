// Requantization primitives against independent references:
//  * gemmlowp's own SaturatingRoundingDoublingHighMul / RoundingDivideByPOT, and TFLite's
//  composition of them;
//  * exact 128-bit integer arithmetic written here (floor division, remainders), never the code
//  under test;
//  * facts derived by hand (TFLite and TPU-MLIR documentation values, ties, carries, flushes).
#include "golden/requant.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixedpoint/fixedpoint.h"

namespace qacc::golden {
namespace {

__extension__ typedef __int128 Int128;

constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int32_t kQ31Half = int32_t{1} << 30;  // 0.5 in Q31, the smallest normalised multiplier
constexpr int kRandomCases = 1000000;

std::string ToString(Int128 x) {
  if (x == 0) return "0";
  const bool negative = x < 0;
  std::string digits;
  while (x != 0) {
    const int digit = static_cast<int>(x % 10);
    digits.insert(digits.begin(), static_cast<char>('0' + (negative ? -digit : digit)));
    x /= 10;
  }
  return negative ? "-" + digits : digits;
}

// Collects mismatches instead of stopping at the first; reports the count and the first one
// precisely.
class MismatchLog {
 public:
  template <typename Actual, typename Expected>
  void Check(bool equal, const std::string& inputs, Actual actual, Expected expected) {
    ++checked_;
    if (equal) return;
    if (mismatches_++ == 0) {
      std::ostringstream out;
      out << inputs << ": got " << ToString(static_cast<Int128>(actual)) << ", expected "
          << ToString(static_cast<Int128>(expected));
      first_ = out.str();
    }
  }
  int64_t mismatches() const { return mismatches_; }
  int64_t checked() const { return checked_; }
  std::string Report() const {
    return std::to_string(mismatches_) + " of " + std::to_string(checked_) +
           " mismatch; first: " + first_;
  }

 private:
  int64_t mismatches_ = 0;
  int64_t checked_ = 0;
  std::string first_;
};

// ---- Independent exact references ---------------------------------------------------------------

Int128 FloorDiv(Int128 a, Int128 b) {  // b > 0
  Int128 q = a / b;                    // C++ truncates toward zero
  if (a % b != 0 && a < 0) --q;
  return q;
}

// round(x / 2^shift) under `mode`, each mode written from its own definition with exact division.
Int128 ExactShift(Int128 x, int shift, RoundingMode mode) {
  const Int128 d = static_cast<Int128>(1) << shift;
  switch (mode) {
    case RoundingMode::kFloor:
      return FloorDiv(x, d);
    case RoundingMode::kTowardZero:
      return x / d;
    case RoundingMode::kHalfUp:
      return FloorDiv(2 * x + d, 2 * d);  // floor(x/d + 1/2)
    case RoundingMode::kHalfAwayFromZero:
      return x >= 0 ? FloorDiv(2 * x + d, 2 * d) : -FloorDiv(-2 * x + d, 2 * d);
    case RoundingMode::kHalfToEven: {
      const Int128 q = FloorDiv(x, d);
      const Int128 twice_remainder = 2 * (x - q * d);
      if (twice_remainder > d) return q + 1;
      if (twice_remainder < d) return q;
      return q % 2 == 0 ? q : q + 1;
    }
  }
  return 0;
}

int32_t Saturate(Int128 x) {
  if (x < kInt32Min) return kInt32Min;
  if (x > kInt32Max) return kInt32Max;
  return static_cast<int32_t>(x);
}

// TFLite's reference MultiplyByQuantizedMultiplier (double rounding) built from gemmlowp's
// primitives. Only defined where x * 2^left_shift fits int32 (TFLite's int32 multiplication is
// undefined behaviour otherwise).
bool TfliteDoubleRoundingDefined(int32_t x, int shift) {
  const int64_t shifted = static_cast<int64_t>(x) * (int64_t{1} << std::max(shift, 0));
  return shifted >= kInt32Min && shifted <= kInt32Max;
}
int32_t TfliteDoubleRounding(int32_t x, int32_t multiplier, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  return gemmlowp::RoundingDivideByPOT(
      gemmlowp::SaturatingRoundingDoublingHighMul(
          static_cast<int32_t>(x * (int64_t{1} << left_shift)), multiplier),
      right_shift);
}

// Exact round_half_up(x * M * 2^(shift - 31)), saturated: the single-rounding definition.
int32_t ExactSingleRounding(int32_t x, int32_t multiplier, int shift) {
  return Saturate(
      ExactShift(static_cast<Int128>(x) * multiplier, 31 - shift, RoundingMode::kHalfUp));
}

// ---- Random inputs ------------------------------------------------------------------------------

const std::vector<int32_t>& EdgeInt32() {
  static const std::vector<int32_t> values = {kInt32Min,
                                              kInt32Min + 1,
                                              -(1 << 30) - 1,
                                              -(1 << 30),
                                              -(1 << 30) + 1,
                                              -65536,
                                              -32768,
                                              -3,
                                              -2,
                                              -1,
                                              0,
                                              1,
                                              2,
                                              3,
                                              32767,
                                              32768,
                                              65536,
                                              (1 << 30) - 1,
                                              1 << 30,
                                              (1 << 30) + 1,
                                              kInt32Max - 1,
                                              kInt32Max};
  return values;
}

// Full-range, small, edge or random-bit-length values, so ties, tiny and huge inputs all appear
// often.
int32_t RandomInt32(std::mt19937_64& rng) {
  const uint64_t bits = rng();
  switch (bits % 4) {
    case 0:
      return static_cast<int32_t>(static_cast<uint32_t>(rng()));
    case 1:
      return static_cast<int32_t>(static_cast<int64_t>(rng() % 2001) - 1000);
    case 2:
      return EdgeInt32()[rng() % EdgeInt32().size()];
    default:
      return static_cast<int32_t>(static_cast<int64_t>(static_cast<int32_t>(rng())) >>
                                  (rng() % 32));
  }
}

int64_t RandomInt64(std::mt19937_64& rng) {
  const uint64_t bits = rng();
  switch (bits % 3) {
    case 0:
      return static_cast<int64_t>(rng());
    case 1:
      return static_cast<int64_t>(rng()) >> (rng() % 64);
    default: {
      static const int64_t edges[] = {kInt64Min, kInt64Min + 1, kInt64Max, kInt64Max - 1, -1, 0, 1};
      return edges[rng() % std::size(edges)];
    }
  }
}

// Normalised Q31 multiplier in [2^30, 2^31), biased toward both ends.
int32_t RandomQ31Multiplier(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return kQ31Half;
    case 1:
      return kInt32Max;
    default:
      return static_cast<int32_t>(kQ31Half + static_cast<int64_t>(rng() % (uint64_t{1} << 30)));
  }
}

// ---- SaturatingRoundingDoublingHighMul ----------------------------------------------------------

TEST(SaturatingRoundingDoublingHighMul, HandFacts) {
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kInt32Min, kInt32Min), kInt32Max);  // +1.0 saturates
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kInt32Min, kInt32Max), -kInt32Max);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kInt32Max, kInt32Max), kInt32Max - 1);
  // a * b / 2^31 for b = 2^30 is a / 2. Ties go toward +infinity:
  // +0.5 -> 1, -0.5 -> 0, -1.5 -> -1, -2.5 -> -2.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1, kQ31Half), 1);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-1, kQ31Half), 0);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-3, kQ31Half), -1);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-5, kQ31Half), -2);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-10, kQ31Half), -5);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(0, kInt32Min), 0);
}

TEST(SaturatingRoundingDoublingHighMul, MatchesGemmlowp) {
  MismatchLog log;
  auto check = [&log](int32_t a, int32_t b) {
    const int32_t expected = gemmlowp::SaturatingRoundingDoublingHighMul(a, b);
    const int32_t actual = SaturatingRoundingDoublingHighMul(a, b);
    log.Check(actual == expected, "SRDHM(" + std::to_string(a) + ", " + std::to_string(b) + ")",
              actual, expected);
  };
  for (int32_t a : EdgeInt32()) {
    for (int32_t b : EdgeInt32()) check(a, b);
  }
  std::mt19937_64 rng(101);
  for (int i = 0; i < kRandomCases; ++i) check(RandomInt32(rng), RandomInt32(rng));
  // Exact ties: an odd a times 2^30 is (a / 2) * 2^31 with a half left over.
  for (int i = 0; i < 100000; ++i) {
    const auto odd = static_cast<int32_t>(static_cast<uint32_t>(rng()) | 1u);
    check(odd, kQ31Half);
    check(kQ31Half, odd);
  }
  EXPECT_EQ(log.mismatches(), 0) << log.Report();
}

// ---- RoundingDivideByPOT ------------------------------------------------------------------------

TEST(RoundingDivideByPOT, HandFacts) {
  EXPECT_EQ(RoundingDivideByPOT(5, 1), 3);    // 2.5 -> 3
  EXPECT_EQ(RoundingDivideByPOT(-5, 1), -3);  // -2.5 -> -3
  EXPECT_EQ(RoundingDivideByPOT(-3, 1), -2);  // -1.5 -> -2
  EXPECT_EQ(RoundingDivideByPOT(-7, 2), -2);  // -1.75 -> -2
  EXPECT_EQ(RoundingDivideByPOT(-6, 2), -2);  // -1.5 -> -2
  EXPECT_EQ(RoundingDivideByPOT(-5, 2), -1);  // -1.25 -> -1
  EXPECT_EQ(RoundingDivideByPOT(kInt32Min, 0), kInt32Min);
  EXPECT_EQ(RoundingDivideByPOT(kInt32Min, 31), -1);
  EXPECT_EQ(RoundingDivideByPOT(kInt32Max, 31), 1);  // 0.99999... -> 1
  EXPECT_EQ(RoundingDivideByPOT(1 << 30, 31), 1);    // 0.5 -> 1
  EXPECT_EQ(RoundingDivideByPOT(-(1 << 30), 31), -1);
  EXPECT_THROW(RoundingDivideByPOT(1, 32), std::invalid_argument);
  EXPECT_THROW(RoundingDivideByPOT(1, -1), std::invalid_argument);
}

TEST(RoundingDivideByPOT, MatchesGemmlowp) {
  MismatchLog log;
  auto check = [&log](int32_t x, int exponent) {
    const int32_t expected = gemmlowp::RoundingDivideByPOT(x, exponent);
    const int32_t actual = RoundingDivideByPOT(x, exponent);
    log.Check(actual == expected,
              "RoundingDivideByPOT(" + std::to_string(x) + ", " + std::to_string(exponent) + ")",
              actual, expected);
  };
  for (int exponent = 0; exponent <= 31; ++exponent) {
    for (int32_t x : EdgeInt32()) check(x, exponent);
    // Ties: (2k + 1) * 2^(exponent - 1), both signs.
    if (exponent > 0) {
      for (int64_t k = -4; k <= 3; ++k) {
        const int64_t tie = (2 * k + 1) * (int64_t{1} << (exponent - 1));
        if (tie >= kInt32Min && tie <= kInt32Max) check(static_cast<int32_t>(tie), exponent);
      }
    }
  }
  std::mt19937_64 rng(102);
  for (int i = 0; i < kRandomCases; ++i) check(RandomInt32(rng), static_cast<int>(rng() % 32));
  EXPECT_EQ(log.mismatches(), 0) << log.Report();
}

// ---- MultiplyByQuantizedMultiplier: double and single rounding ----------------------------------

TEST(MultiplyByQuantizedMultiplier, DoubleVersusSingleRoundingOnATie) {
  // x = -10, M = 2^30 (0.5), shift = -1: real = 0.25, x * real = -2.5 exactly.
  // Double: SRDHM gives -5 exactly, then -5 / 2 = -2.5 rounds half away -> -3.
  // Single: floor(-2.5 + 0.5) = -2.
  EXPECT_EQ(MultiplyByQuantizedMultiplierDoubleRounding(-10, kQ31Half, -1), -3);
  EXPECT_EQ(MultiplyByQuantizedMultiplierSingleRounding(-10, kQ31Half, -1), -2);
  EXPECT_EQ(MultiplyByQuantizedMultiplierDoubleRounding(10, kQ31Half, -1), 3);
  EXPECT_EQ(MultiplyByQuantizedMultiplierSingleRounding(10, kQ31Half, -1), 3);
  // Double rounding also errs off ties: x = 5, M = 2^30 + 1, shift = -1 is exactly
  // 1.25 + 5 * 2^-32 -> 1, but SRDHM(5, 2^30 + 1) = round(2.5 + 5 * 2^-31) = 3, then 1.5 -> 2.
  EXPECT_EQ(MultiplyByQuantizedMultiplierDoubleRounding(5, kQ31Half + 1, -1), 2);
  EXPECT_EQ(MultiplyByQuantizedMultiplierSingleRounding(5, kQ31Half + 1, -1), 1);
}

TEST(MultiplyByQuantizedMultiplier, ExtremeShiftsAndMultipliers) {
  // shift 30, M = 2^30: real = 2^29.
  EXPECT_EQ(MultiplyByQuantizedMultiplierDoubleRounding(3, kQ31Half, 30), 3 << 29);
  EXPECT_EQ(MultiplyByQuantizedMultiplierDoubleRounding(4, kQ31Half, 30),
            kInt32Max);  // 2^31 saturates
  EXPECT_EQ(MultiplyByQuantizedMultiplierSingleRounding(-4, kQ31Half, 30),
            kInt32Min);  // -2^31 fits
  EXPECT_EQ(MultiplyByQuantizedMultiplierSingleRounding(-5, kQ31Half, 30), kInt32Min);
  // shift -31, M = 2^31 - 1: real = (2^31 - 1) * 2^-62, so INT32_MAX * real = (1 - 2^-31)^2 -> 1
  // and INT32_MIN * real = -(1 - 2^-31) -> -1. Double: SRDHM(MAX, MAX) = MAX - 1, / 2^31 -> 1.
  EXPECT_EQ(MultiplyByQuantizedMultiplierDoubleRounding(kInt32Max, kInt32Max, -31), 1);
  EXPECT_EQ(MultiplyByQuantizedMultiplierSingleRounding(kInt32Max, kInt32Max, -31), 1);
  EXPECT_EQ(MultiplyByQuantizedMultiplierDoubleRounding(kInt32Min, kInt32Max, -31), -1);
  EXPECT_EQ(MultiplyByQuantizedMultiplierSingleRounding(kInt32Min, kInt32Max, -31), -1);
  EXPECT_EQ(MultiplyByQuantizedMultiplierSingleRounding(1 << 20, kInt32Max, -31), 0);
  // real = 2^30 * 2^(-31 - 31) = 2^-32: INT32_MIN * 2^-32 = -0.5 exactly. Single: half up -> 0.
  // Double: SRDHM(INT32_MIN, 2^30) = -2^30, then -2^30 / 2^31 = -0.5 rounds half away -> -1.
  EXPECT_EQ(MultiplyByQuantizedMultiplierSingleRounding(kInt32Min, kQ31Half, -31), 0);
  EXPECT_EQ(MultiplyByQuantizedMultiplierDoubleRounding(kInt32Min, kQ31Half, -31), -1);
  // Documented choice: x * 2^shift is exact, not int32 (TFLite would wrap 2^30 * 2 to INT32_MIN and
  // return -2^30). 2^30 * 2^30 * 2^(1 - 31) = 2^30.
  EXPECT_EQ(MultiplyByQuantizedMultiplierDoubleRounding(1 << 30, kQ31Half, 1), 1 << 30);
  EXPECT_THROW(MultiplyByQuantizedMultiplierDoubleRounding(1, kQ31Half, 31), std::invalid_argument);
  EXPECT_THROW(MultiplyByQuantizedMultiplierDoubleRounding(1, kQ31Half, -32),
               std::invalid_argument);
  EXPECT_THROW(MultiplyByQuantizedMultiplierSingleRounding(1, kQ31Half, 31), std::invalid_argument);
  EXPECT_THROW(MultiplyByQuantizedMultiplierSingleRounding(1, kQ31Half, -32),
               std::invalid_argument);
}

TEST(MultiplyByQuantizedMultiplier, DoubleRoundingMatchesTfliteComposedFromGemmlowp) {
  MismatchLog tflite_log;  // where TFLite is defined: gemmlowp composition
  MismatchLog
      exact_log;  // where x * 2^shift overflows int32: the documented exact, saturated result
  auto check = [&](int32_t x, int32_t multiplier, int shift) {
    const int32_t actual = MultiplyByQuantizedMultiplierDoubleRounding(x, multiplier, shift);
    const std::string inputs = "Double(" + std::to_string(x) + ", " + std::to_string(multiplier) +
                               ", " + std::to_string(shift) + ")";
    if (TfliteDoubleRoundingDefined(x, shift)) {
      const int32_t expected = TfliteDoubleRounding(x, multiplier, shift);
      tflite_log.Check(actual == expected, inputs, actual, expected);
    } else {
      const int32_t expected =
          ExactSingleRounding(x, multiplier, shift);  // one half-up rounding, saturated
      exact_log.Check(actual == expected, inputs, actual, expected);
    }
  };
  const int32_t multipliers[] = {0,          kQ31Half,      kQ31Half + 1, 1717986918,
                                 1431655765, kInt32Max - 1, kInt32Max};
  for (int shift = -31; shift <= 30; ++shift) {
    for (int32_t multiplier : multipliers) {
      for (int32_t x : EdgeInt32()) check(x, multiplier, shift);
    }
  }
  std::mt19937_64 rng(103);
  for (int i = 0; i < kRandomCases; ++i) {
    const int shift = static_cast<int>(rng() % 62) - 31;
    int32_t x = RandomInt32(rng);
    // Keep most left-shifted inputs inside int32 so the gemmlowp oracle covers positive shifts too.
    if (shift > 0 && rng() % 4 != 0) x = static_cast<int32_t>(x / (int64_t{1} << shift));
    check(x, RandomQ31Multiplier(rng), shift);
  }
  EXPECT_EQ(tflite_log.mismatches(), 0) << tflite_log.Report();
  EXPECT_EQ(exact_log.mismatches(), 0) << exact_log.Report();
  EXPECT_GT(tflite_log.checked(), kRandomCases / 2);
  EXPECT_GT(exact_log.checked(), 10000);
}

TEST(MultiplyByQuantizedMultiplier, SingleRoundingMatchesExactArithmetic) {
  MismatchLog log;
  auto check = [&log](int32_t x, int32_t multiplier, int shift) {
    const int32_t expected = ExactSingleRounding(x, multiplier, shift);
    const int32_t actual = MultiplyByQuantizedMultiplierSingleRounding(x, multiplier, shift);
    log.Check(actual == expected,
              "Single(" + std::to_string(x) + ", " + std::to_string(multiplier) + ", " +
                  std::to_string(shift) + ")",
              actual, expected);
  };
  for (int shift = -31; shift <= 30; ++shift) {
    for (int32_t multiplier : {kQ31Half, kQ31Half + 1, kInt32Max}) {
      for (int32_t x : EdgeInt32()) check(x, multiplier, shift);
    }
  }
  std::mt19937_64 rng(104);
  for (int i = 0; i < kRandomCases; ++i) {
    check(RandomInt32(rng), RandomQ31Multiplier(rng), static_cast<int>(rng() % 62) - 31);
  }
  EXPECT_EQ(log.mismatches(), 0) << log.Report();
}

// ---- QuantizeMultiplier -------------------------------------------------------------------------

void ExpectQuantized(double real, int32_t multiplier, int shift) {
  const QuantizedMultiplier q = QuantizeMultiplier(real);
  EXPECT_EQ(q.multiplier, multiplier) << real;
  EXPECT_EQ(q.shift, shift) << real;
}

TEST(QuantizeMultiplier, TfliteFacts) {
  ExpectQuantized(0.5, 1 << 30, 0);
  ExpectQuantized(1.0, 1 << 30, 1);
  ExpectQuantized(0.1, 1717986918, -3);      // 0.8 * 2^31 = 1717986918.4
  ExpectQuantized(1.0 / 3, 1431655765, -1);  // (2/3) * 2^31 = 1431655765.33
  ExpectQuantized(300, 1258291200, 9);       // 300 = 0.5859375 * 2^9
  ExpectQuantized(1e-10, 0, 0);              // 1e-10 = 0.859 * 2^-33: flushed
  ExpectQuantized(0.0, 0, 0);
}

TEST(QuantizeMultiplier, CarryAndFlushBoundaries) {
  // Mantissa 1 - 2^-53 rounds to 2^31: carried into (2^30, shift + 1).
  ExpectQuantized(std::nextafter(1.0, 0.0), 1 << 30, 1);
  ExpectQuantized(std::nextafter(0.5, 0.0), 1 << 30, 0);
  // 2^-32 = 0.5 * 2^-31: the smallest shift, kept. 2^-33 = 0.5 * 2^-32: flushed.
  ExpectQuantized(std::ldexp(1.0, -32), 1 << 30, -31);
  ExpectQuantized(std::ldexp(1.0, -33), 0, 0);
  // Just below 2^-32 the carry lifts the shift from -32 back to -31: kept.
  ExpectQuantized(std::nextafter(std::ldexp(1.0, -32), 0.0), 1 << 30, -31);
  // Subnormal scales flush.
  ExpectQuantized(std::numeric_limits<double>::denorm_min(), 0, 0);
  // Largest accepted: 2^30 - 0.5 = (2^31 - 1) * 2^(30 - 31).
  ExpectQuantized(std::ldexp(1.0, 30) - 0.5, kInt32Max, 30);
  ExpectQuantized(std::ldexp(1.0, 29), 1 << 30, 30);
}

TEST(QuantizeMultiplier, RejectsNegativeNonFiniteAndHugeScales) {
  for (double bad : {-1.0, -1e-300, std::nan(""), std::numeric_limits<double>::infinity(),
                     std::ldexp(1.0, 30) - 0.25, std::ldexp(1.0, 30), 1e300}) {
    try {
      QuantizeMultiplier(bad);
      ADD_FAILURE() << "no exception for " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("scale"), std::string::npos) << e.what();
    }
  }
  try {
    QuantizeMultiplier(2e9);
    ADD_FAILURE() << "no exception for 2e9";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1073741823.75"), std::string::npos) << e.what();
  }
}

TEST(QuantizeMultiplier, RandomScalesWithinHalfAnUlp) {
  std::mt19937_64 rng(105);
  std::uniform_real_distribution<double> mantissa(0.5, 1.0);
  MismatchLog log;
  for (int i = 0; i < 200000; ++i) {
    const int exponent = static_cast<int>(rng() % 61) - 30;  // 2^-31 <= real < 2^30
    const double real = std::ldexp(mantissa(rng), exponent);
    const QuantizedMultiplier q = QuantizeMultiplier(real);
    const std::string inputs =
        "QuantizeMultiplier(" + std::to_string(real) + ") shift " + std::to_string(q.shift);
    log.Check(q.multiplier >= kQ31Half, inputs + " multiplier >= 2^30", q.multiplier, kQ31Half);
    // Both terms are doubles within a factor 2 of each other, so the difference is exact
    // (Sterbenz).
    const double effective = std::ldexp(static_cast<double>(q.multiplier), q.shift - 31);
    const double error = std::fabs(effective - real);
    log.Check(error <= std::ldexp(1.0, q.shift - 32), inputs + " error <= 2^(shift-32) (x 2^80)",
              static_cast<Int128>(std::ldexp(error, 80)),
              static_cast<Int128>(std::ldexp(1.0, q.shift + 48)));
    log.Check(EffectiveScale(q) == effective, inputs + " EffectiveScale", 0, 0);
  }
  EXPECT_EQ(log.mismatches(), 0) << log.Report();
}

// ---- RoundingRightShift -------------------------------------------------------------------------

TEST(RoundingRightShift, TiesFollowEachMode) {
  struct Case {
    int64_t x;
    int shift;
    int64_t away, even, up, zero, floor;
  };
  const Case cases[] = {
      {5, 1, 3, 2, 3, 2, 2},                // 2.5
      {-5, 1, -3, -2, -2, -2, -3},          // -2.5
      {-3, 1, -2, -2, -1, -1, -2},          // -1.5
      {7, 1, 4, 4, 4, 3, 3},                // 3.5
      {-7, 2, -2, -2, -2, -1, -2},          // -1.75
      {-5, 2, -1, -1, -1, -1, -2},          // -1.25
      {-1, 1, -1, 0, 0, 0, -1},             // -0.5
      {kInt64Min, 63, -1, -1, -1, -1, -1},  // exactly -1
      {kInt64Max, 63, 1, 1, 1, 0, 0},       // 1 - 2^-63
      {kInt64Min + 1, 63, -1, -1, -1, 0, -1},
      {int64_t{1} << 62, 63, 1, 0, 1, 0, 0},       // 0.5
      {-(int64_t{1} << 62), 63, -1, 0, 0, 0, -1},  // -0.5
      {kInt64Min, 0, kInt64Min, kInt64Min, kInt64Min, kInt64Min, kInt64Min},
      {kInt64Max, 1, int64_t{1} << 62, int64_t{1} << 62, int64_t{1} << 62, (int64_t{1} << 62) - 1,
       (int64_t{1} << 62) - 1},  // 2^62 - 0.5
  };
  for (const Case& c : cases) {
    const std::string where = std::to_string(c.x) + " >> " + std::to_string(c.shift);
    EXPECT_EQ(RoundingRightShift(c.x, c.shift, RoundingMode::kHalfAwayFromZero), c.away) << where;
    EXPECT_EQ(RoundingRightShift(c.x, c.shift, RoundingMode::kHalfToEven), c.even) << where;
    EXPECT_EQ(RoundingRightShift(c.x, c.shift, RoundingMode::kHalfUp), c.up) << where;
    EXPECT_EQ(RoundingRightShift(c.x, c.shift, RoundingMode::kTowardZero), c.zero) << where;
    EXPECT_EQ(RoundingRightShift(c.x, c.shift, RoundingMode::kFloor), c.floor) << where;
  }
  EXPECT_THROW(RoundingRightShift(1, 64, RoundingMode::kFloor), std::invalid_argument);
  EXPECT_THROW(RoundingRightShift(1, -1, RoundingMode::kFloor), std::invalid_argument);
}

TEST(RoundingRightShift, MatchesExactDivisionForEveryMode) {
  MismatchLog log;
  auto check = [&log](int64_t x, int shift) {
    for (RoundingMode mode : kAllRoundingModes) {
      const Int128 expected = ExactShift(x, shift, mode);
      const int64_t actual = RoundingRightShift(x, shift, mode);
      log.Check(actual == expected,
                std::to_string(x) + " >> " + std::to_string(shift) + " " +
                    std::string(RoundingModeName(mode)),
                actual, expected);
    }
  };
  const int64_t edges[] = {kInt64Min, kInt64Min + 1, kInt64Max, kInt64Max - 1, -1, 0, 1, -2, 2};
  for (int shift = 0; shift <= 63; ++shift) {
    for (int64_t x : edges) check(x, shift);
    if (shift > 0) {  // ties (2k + 1) * 2^(shift - 1) and their neighbours
      for (int64_t k = -3; k <= 2; ++k) {
        const Int128 tie = static_cast<Int128>(2 * k + 1) * (static_cast<Int128>(1) << (shift - 1));
        for (int delta = -1; delta <= 1; ++delta) {
          const Int128 x = tie + delta;
          if (x >= kInt64Min && x <= kInt64Max) check(static_cast<int64_t>(x), shift);
        }
      }
    }
  }
  std::mt19937_64 rng(106);
  for (int i = 0; i < 400000; ++i) check(RandomInt64(rng), static_cast<int>(rng() % 64));
  EXPECT_EQ(log.mismatches(), 0) << log.Report();
}

// ---- TPU-MLIR multiplier and rshift -------------------------------------------------------------

void ExpectRshift(double real, int bits, int64_t multiplier, int rshift) {
  const MultiplierRshift m = QuantizeMultiplierRshift(real, bits);
  EXPECT_EQ(m.multiplier, multiplier) << real << " bits " << bits;
  EXPECT_EQ(m.rshift, rshift) << real << " bits " << bits;
  EXPECT_EQ(m.bits, bits);
}

TEST(QuantizeMultiplierRshift, HandFacts) {
  // TPU-MLIR documentation: y = x * 0.1234 = (x * 2119995857) >> 34; 0.1234 * 2^34 = 2119995857.31.
  ExpectRshift(0.1234, 32, 2119995857, 34);
  ExpectRshift(0.1234, 16, 32349, 18);  // 0.1234 * 2^18 = 32348.57; 2^19 would give 64697 > 32767
  ExpectRshift(0.1234, 8, 126, 10);     // 0.1234 * 2^10 = 126.36; 2^11 would give 253 > 127
  // Carry: 0.999 * 2^7 = 127.87 rounds to 128 > 127, so rshift 6: 0.999 * 64 = 63.94 -> 64.
  ExpectRshift(0.999, 8, 64, 6);
  ExpectRshift(1.0, 8, 64, 6);
  ExpectRshift(1.0, 32, 1 << 30, 30);
  // Scales of 2^(bits-1) and more: rshift 0 while round(scale) fits.
  ExpectRshift(127.4, 8, 127, 0);
  ExpectRshift(300, 16, 19200, 6);  // 300 * 64 = 19200; * 128 = 38400 > 32767
  ExpectRshift(300, 32, 1258291200, 22);
  ExpectRshift(std::ldexp(1.0, 31) - 1, 32, kInt32Max, 0);
  // rshift cap 62: 1e-18 * 2^62 = 4.61 -> 5; 1e-30 * 2^62 = 4.6e-12 -> flushed to (0, 0).
  ExpectRshift(1e-18, 32, 5, 62);
  ExpectRshift(1e-30, 32, 0, 0);
  ExpectRshift(std::ldexp(1.0, -62), 8, 1, 62);
}

TEST(QuantizeMultiplierRshift, ZeroScaleIsMultiplierZero) {
  for (int bits : kMultiplierRshiftBits) {
    const MultiplierRshift m = QuantizeMultiplierRshift(0.0, bits);
    EXPECT_EQ(m.multiplier, 0) << bits;
    EXPECT_EQ(m.rshift, 0) << bits;
    EXPECT_EQ(MultiplyRshift(123456, m.multiplier, m.rshift, RoundingMode::kHalfUp), 0) << bits;
  }
}

TEST(QuantizeMultiplierRshift, RejectsBadArguments) {
  auto expect_error = [](double real, int bits, const std::string& field) {
    try {
      QuantizeMultiplierRshift(real, bits);
      ADD_FAILURE() << "no exception for " << real << " bits " << bits;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind(field + ":", 0), 0u) << e.what();
    }
  };
  for (int bits : {0, 7, 12, 64, -8}) expect_error(0.5, bits, "bits");
  for (double real : {-1.0, -0.5, std::nan(""), std::numeric_limits<double>::infinity()}) {
    expect_error(real, 32, "scale");
  }
  expect_error(127.5, 8, "scale");  // rounds to 128
  expect_error(200, 8, "scale");
  expect_error(32767.5, 16, "scale");
  expect_error(std::ldexp(1.0, 31) - 0.5, 32, "scale");
  expect_error(1e300, 32, "scale");
}

TEST(QuantizeMultiplierRshift, RandomScalesAreAccurateAndMaximal) {
  std::mt19937_64 rng(107);
  std::uniform_real_distribution<double> mantissa(0.5, 1.0);
  MismatchLog log;
  for (int bits : kMultiplierRshiftBits) {
    const int64_t max_multiplier = (int64_t{1} << (bits - 1)) - 1;
    for (int i = 0; i < 100000; ++i) {
      // 2^-24 .. 2^(bits - 2): far from the rshift cap and from the rshift-0 limit.
      const int exponent = static_cast<int>(rng() % static_cast<uint64_t>(bits + 22)) - 23;
      const double real = std::ldexp(mantissa(rng), exponent);
      const MultiplierRshift m = QuantizeMultiplierRshift(real, bits);
      const std::string inputs = "QuantizeMultiplierRshift(" + std::to_string(real) + ", " +
                                 std::to_string(bits) + ") = " + std::to_string(m.multiplier) +
                                 " >> " + std::to_string(m.rshift);
      log.Check(m.multiplier > 0 && m.multiplier <= max_multiplier, inputs + " fits", m.multiplier,
                max_multiplier);
      log.Check(m.rshift >= 0 && m.rshift <= 62, inputs + " rshift range", m.rshift, 62);
      // Round to nearest: |multiplier - real * 2^rshift| <= 1/2 (ldexp is exact, the difference
      // too).
      const double scaled = std::ldexp(real, m.rshift);
      log.Check(std::fabs(static_cast<double>(m.multiplier) - scaled) <= 0.5, inputs + " rounding",
                m.multiplier, static_cast<Int128>(std::round(scaled)));
      // Relative error bound 2^-(bits - 2), in long double.
      const long double relative = std::fabs(
          (static_cast<long double>(m.multiplier) / std::ldexp(1.0L, m.rshift) - real) / real);
      log.Check(relative <= std::ldexp(1.0L, -(bits - 2)), inputs + " relative error (x 2^60)",
                static_cast<Int128>(std::ldexp(relative, 60)),
                static_cast<Int128>(1) << (62 - bits));
      // Maximal: one more bit of rshift would overflow the multiplier.
      const double next = std::round(std::ldexp(real, m.rshift + 1));
      log.Check(next > static_cast<double>(max_multiplier), inputs + " maximal rshift",
                static_cast<Int128>(next), max_multiplier);
      log.Check(EffectiveScale(m) == std::ldexp(static_cast<double>(m.multiplier), -m.rshift),
                inputs + " EffectiveScale", 0, 0);
    }
  }
  EXPECT_EQ(log.mismatches(), 0) << log.Report();
}

// ---- MultiplyRshift -----------------------------------------------------------------------------

TEST(MultiplyRshift, HandFacts) {
  // 100 * 0.1234 = 12.34 -> 12; -100 * 0.1234 -> -12 (floor: -13).
  EXPECT_EQ(MultiplyRshift(100, 2119995857, 34, RoundingMode::kHalfAwayFromZero), 12);
  EXPECT_EQ(MultiplyRshift(-100, 2119995857, 34, RoundingMode::kHalfAwayFromZero), -12);
  EXPECT_EQ(MultiplyRshift(-100, 2119995857, 34, RoundingMode::kFloor), -13);
  // -5 * 1 / 2 = -2.5 under each mode.
  EXPECT_EQ(MultiplyRshift(-5, 1, 1, RoundingMode::kHalfAwayFromZero), -3);
  EXPECT_EQ(MultiplyRshift(-5, 1, 1, RoundingMode::kHalfToEven), -2);
  EXPECT_EQ(MultiplyRshift(-5, 1, 1, RoundingMode::kHalfUp), -2);
  // Products beyond int64 saturate instead of wrapping.
  EXPECT_EQ(MultiplyRshift(kInt32Max, kInt64Max, 0, RoundingMode::kFloor), kInt32Max);
  EXPECT_EQ(MultiplyRshift(kInt32Min, kInt64Max, 63, RoundingMode::kFloor),
            kInt32Min);  // -2^31 + 2^-32
  EXPECT_EQ(MultiplyRshift(kInt32Min, kInt64Min, 63, RoundingMode::kFloor), kInt32Max);  // 2^31
  EXPECT_EQ(MultiplyRshift(-(1 << 30), kInt64Min, 63, RoundingMode::kFloor), 1 << 30);
  EXPECT_THROW(MultiplyRshift(1, 1, 64, RoundingMode::kFloor), std::invalid_argument);
  EXPECT_THROW(MultiplyRshift(1, 1, -1, RoundingMode::kFloor), std::invalid_argument);
}

TEST(MultiplyRshift, MatchesExactArithmetic) {
  MismatchLog log;
  std::mt19937_64 rng(108);
  for (int i = 0; i < 300000; ++i) {
    const int32_t x = RandomInt32(rng);
    // Multipliers of 8/16/32 bits (the TPU-MLIR widths) and occasionally any int64.
    const int width = (rng() % 4 == 0) ? 64 : 8 << (rng() % 3);
    const int64_t multiplier =
        width == 64 ? RandomInt64(rng) : static_cast<int64_t>(rng()) >> (64 - width);
    const int rshift = static_cast<int>(rng() % 64);
    for (RoundingMode mode : kAllRoundingModes) {
      const int32_t expected =
          Saturate(ExactShift(static_cast<Int128>(x) * multiplier, rshift, mode));
      const int32_t actual = MultiplyRshift(x, multiplier, rshift, mode);
      log.Check(actual == expected,
                "MultiplyRshift(" + std::to_string(x) + ", " + std::to_string(multiplier) + ", " +
                    std::to_string(rshift) + ", " + std::string(RoundingModeName(mode)) + ")",
                actual, expected);
    }
  }
  EXPECT_EQ(log.mismatches(), 0) << log.Report();
}

// ---- RequantizeAccumulator ----------------------------------------------------------------------

RequantParams Params(int32_t multiplier, int shift, int32_t zero_point, int32_t clamp_min,
                     int32_t clamp_max,
                     RequantRounding rounding = RequantRounding::kDoubleRounding) {
  RequantParams p;
  p.multiplier = multiplier;
  p.shift = shift;
  p.rounding = rounding;
  p.output_zero_point = zero_point;
  p.clamp_min = clamp_min;
  p.clamp_max = clamp_max;
  return p;
}

TEST(RequantizeAccumulator, ZeroPointAndClamp) {
  const RequantParams half = Params(kQ31Half, 0, -5, -128, 127);  // real = 0.5, zero point -5
  EXPECT_EQ(RequantizeAccumulator(100, half), 45);                // 50 - 5
  EXPECT_EQ(RequantizeAccumulator(1000, half), 127);              // 495 clamps
  EXPECT_EQ(RequantizeAccumulator(-1000, half), -128);            // -505 clamps
  // -245 * 0.5 = -122.5: shift 0 is a single half-up rounding -> -122; -122 - 5 = -127, in range.
  EXPECT_EQ(RequantizeAccumulator(-245, half), -127);
  EXPECT_EQ(RequantizeAccumulator(-247, Params(kQ31Half, 0, -5, -200, 127)),
            -128);  // -123.5 -> -123, -128
  // The default params are real = 1.0 into int8.
  EXPECT_EQ(RequantizeAccumulator(-7, RequantParams{}), -7);
  EXPECT_EQ(RequantizeAccumulator(300, RequantParams{}), 127);
}

TEST(RequantizeAccumulator, ReluStyleClampBounds) {
  // ReLU: clamp_min = zero point (real 0). ReLU6 with output scale 0.1: clamp_max = zp + 60.
  const int32_t zp = -20;
  const RequantParams relu6 = Params(kQ31Half, 1, zp, zp, zp + 60);  // real = 1.0
  EXPECT_EQ(RequantizeAccumulator(-7, relu6), zp);
  EXPECT_EQ(RequantizeAccumulator(0, relu6), zp);
  EXPECT_EQ(RequantizeAccumulator(33, relu6), zp + 33);
  EXPECT_EQ(RequantizeAccumulator(61, relu6), zp + 60);
  EXPECT_EQ(RequantizeAccumulator(kInt32Max, relu6), zp + 60);
  EXPECT_EQ(RequantizeAccumulator(kInt32Min, relu6), zp);
}

TEST(RequantizeAccumulator, RoundingSchemeSelectsTheTieBehaviour) {
  // real = 2^30 * 2^(-1 - 31) = 0.25; -10 * 0.25 = -2.5.
  EXPECT_EQ(RequantizeAccumulator(
                -10, Params(kQ31Half, -1, 0, -128, 127, RequantRounding::kDoubleRounding)),
            -3);
  EXPECT_EQ(RequantizeAccumulator(
                -10, Params(kQ31Half, -1, 0, -128, 127, RequantRounding::kSingleRounding)),
            -2);
  EXPECT_EQ(RequantizeAccumulator(
                -10, Params(kQ31Half, -1, 7, -128, 127, RequantRounding::kDoubleRounding)),
            4);
  EXPECT_EQ(RequantizeAccumulator(
                -10, Params(kQ31Half, -1, 7, -128, 127, RequantRounding::kSingleRounding)),
            5);
}

TEST(RequantizeAccumulator, ZeroPointSumDoesNotWrap) {
  const RequantParams up = Params(kQ31Half, 1, 100, kInt32Min, kInt32Max);  // real = 1.0
  EXPECT_EQ(RequantizeAccumulator(kInt32Max, up),
            kInt32Max);  // 2^31 + 99 would wrap negative in int32
  const RequantParams down = Params(kQ31Half, 1, -100, kInt32Min, kInt32Max);
  EXPECT_EQ(RequantizeAccumulator(kInt32Min, down), kInt32Min);
  const RequantParams zero =
      Params(0, 0, 3, -128, 127);  // multiplier 0 (flushed scale): output is the zp
  EXPECT_EQ(RequantizeAccumulator(kInt32Max, zero), 3);
}

TEST(RequantizeAccumulator, RandomMatchesGemmlowpComposition) {
  MismatchLog log;
  std::mt19937_64 rng(109);
  for (int i = 0; i < 200000; ++i) {
    const int32_t acc = RandomInt32(rng);
    const int32_t multiplier = RandomQ31Multiplier(rng);
    const int shift = -static_cast<int>(rng() % 32);  // scales below 1, as in conv/matmul requant
    const auto zp = static_cast<int32_t>(static_cast<int64_t>(rng() % 256) - 128);
    const int32_t lo = (rng() % 2) ? zp : -128;  // ReLU or full range
    const RequantRounding rounding =
        (rng() % 2) ? RequantRounding::kDoubleRounding : RequantRounding::kSingleRounding;
    const RequantParams p = Params(multiplier, shift, zp, lo, 127, rounding);
    const int64_t scaled = rounding == RequantRounding::kDoubleRounding
                               ? TfliteDoubleRounding(acc, multiplier, shift)
                               : ExactSingleRounding(acc, multiplier, shift);
    const int64_t expected = std::min<int64_t>(std::max<int64_t>(scaled + zp, lo), 127);
    const int32_t actual = RequantizeAccumulator(acc, p);
    log.Check(actual == expected,
              "Requantize(" + std::to_string(acc) + ", M " + std::to_string(multiplier) +
                  ", shift " + std::to_string(shift) + ", zp " + std::to_string(zp) + ", " +
                  std::string(RequantRoundingName(rounding)) + ")",
              actual, expected);
  }
  EXPECT_EQ(log.mismatches(), 0) << log.Report();
}

// ValidateRequantParams' message for p, or "" when it accepts p.
std::string ValidationMessage(const RequantParams& p) {
  try {
    ValidateRequantParams(p);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ValidateRequantParams, ErrorsNameTheFieldAndRange) {
  EXPECT_EQ(ValidationMessage(RequantParams{}), "");
  EXPECT_EQ(ValidationMessage(Params(0, 0, 0, -128, 127)), "");
  EXPECT_EQ(ValidationMessage(Params(kInt32Max, -31, 0, 5, 5)), "");
  EXPECT_EQ(ValidationMessage(Params(5, 0, 0, -128, 127)),
            "multiplier: 5 is out of range, allowed 0 or 1073741824..2147483647");
  EXPECT_EQ(
      ValidationMessage(Params(kQ31Half - 1, 0, 0, -128, 127)).rfind("multiplier: 1073741823 ", 0),
      0u);
  EXPECT_EQ(
      ValidationMessage(Params(-kQ31Half, 0, 0, -128, 127)).rfind("multiplier: -1073741824 ", 0),
      0u);
  EXPECT_EQ(ValidationMessage(Params(kQ31Half, 31, 0, -128, 127)),
            "shift: 31 is out of range, allowed -31..30");
  EXPECT_EQ(ValidationMessage(Params(kQ31Half, -32, 0, -128, 127)),
            "shift: -32 is out of range, allowed -31..30");
  EXPECT_EQ(ValidationMessage(Params(kQ31Half, 0, 0, 10, 5)),
            "clamp_min: 10 must not exceed clamp_max 5");
  EXPECT_THROW(RequantizeAccumulator(0, Params(5, 0, 0, -128, 127)), std::invalid_argument);
}

// ---- The TPU-MLIR form of RequantizeAccumulator (docs/requant.md 6.1) ------------------------

RequantParams TpuParams(int bits, int64_t multiplier, int rshift, tpu_mlir::Rounding mode,
                        int32_t zero_point = 0, int32_t clamp_min = kInt32Min,
                        int32_t clamp_max = kInt32Max) {
  RequantParams p;
  p.form = RequantForm::kTpuMlir;
  p.mult_bits = bits;
  p.multiplier = static_cast<int32_t>(multiplier);
  p.shift = rshift;
  p.rshift_rounding = mode;
  p.output_zero_point = zero_point;
  p.clamp_min = clamp_min;
  p.clamp_max = clamp_max;
  return p;
}

// round(x / 2^shift) under each of TPU-MLIR's modes, from its definition in exact arithmetic
// (ExactShift for the five modes golden's RoundingMode shares; half down and up here).
Int128 ExactTpuShift(Int128 x, int shift, tpu_mlir::Rounding mode) {
  const Int128 d = static_cast<Int128>(1) << shift;
  switch (mode) {
    case tpu_mlir::Rounding::kHalfAwayFromZero:
      return ExactShift(x, shift, RoundingMode::kHalfAwayFromZero);
    case tpu_mlir::Rounding::kHalfUp:
      return ExactShift(x, shift, RoundingMode::kHalfUp);
    case tpu_mlir::Rounding::kHalfDown:
      return -FloorDiv(-2 * x + d, 2 * d);  // ceil(x/d - 1/2)
    case tpu_mlir::Rounding::kHalfToEven:
      return ExactShift(x, shift, RoundingMode::kHalfToEven);
    case tpu_mlir::Rounding::kTowardsZero:
      return ExactShift(x, shift, RoundingMode::kTowardZero);
    case tpu_mlir::Rounding::kUp:
      return -FloorDiv(-x, d);  // ceil(x/d)
    case tpu_mlir::Rounding::kDown:
      return FloorDiv(x, d);
  }
  return 0;
}

TEST(RequantizeAccumulator, TpuMlirFormHandFacts) {
  using tpu_mlir::Rounding;
  // x = m = -2^31: the largest product, 2^62; at rshift 63 the quotient 1/2 is a tie.
  const int32_t x = kInt32Min;
  const int64_t m = kInt32Min;
  EXPECT_EQ(RequantizeAccumulator(x, TpuParams(32, m, 63, Rounding::kHalfAwayFromZero)), 1);
  EXPECT_EQ(RequantizeAccumulator(x, TpuParams(32, m, 63, Rounding::kHalfUp)), 1);
  EXPECT_EQ(RequantizeAccumulator(x, TpuParams(32, m, 63, Rounding::kHalfDown)), 0);
  EXPECT_EQ(RequantizeAccumulator(x, TpuParams(32, m, 63, Rounding::kHalfToEven)), 0);
  EXPECT_EQ(RequantizeAccumulator(x, TpuParams(32, m, 63, Rounding::kTowardsZero)), 0);
  EXPECT_EQ(RequantizeAccumulator(x, TpuParams(32, m, 63, Rounding::kUp)), 1);
  EXPECT_EQ(RequantizeAccumulator(x, TpuParams(32, m, 63, Rounding::kDown)), 0);
  // -5 * 3 = -15, / 2 = -7.5: each mode's tie of a negative value.
  EXPECT_EQ(RequantizeAccumulator(-5, TpuParams(8, 3, 1, Rounding::kHalfAwayFromZero)), -8);
  EXPECT_EQ(RequantizeAccumulator(-5, TpuParams(8, 3, 1, Rounding::kHalfUp)), -7);
  EXPECT_EQ(RequantizeAccumulator(-5, TpuParams(8, 3, 1, Rounding::kHalfDown)), -8);
  EXPECT_EQ(RequantizeAccumulator(-5, TpuParams(8, 3, 1, Rounding::kHalfToEven)), -8);
  EXPECT_EQ(RequantizeAccumulator(-5, TpuParams(8, 3, 1, Rounding::kTowardsZero)), -7);
  EXPECT_EQ(RequantizeAccumulator(-5, TpuParams(8, 3, 1, Rounding::kUp)), -7);
  EXPECT_EQ(RequantizeAccumulator(-5, TpuParams(8, 3, 1, Rounding::kDown)), -8);
  // rshift 0 is the product itself, in every mode.
  EXPECT_EQ(RequantizeAccumulator(-7, TpuParams(16, -300, 0, Rounding::kUp)), 2100);
  // The zero point is added to the unsaturated quotient (2^32 - 2), not to an int32: TFLite's
  // form would give INT32_MAX - 2^31 = -1.
  EXPECT_EQ(RequantizeAccumulator(kInt32Max, TpuParams(32, 2, 0, Rounding::kHalfUp, kInt32Min)),
            kInt32Max - 1);
  EXPECT_EQ(RequantizeAccumulator(kInt32Max,
                                  TpuParams(32, 2, 0, Rounding::kHalfUp, kInt32Min, -128, 127)),
            127);
}

TEST(RequantizeAccumulator, TpuMlirFormMatchesExactArithmetic) {
  std::mt19937_64 rng(0x7075);
  int mismatches = 0;
  std::string first;
  for (int i = 0; i < kRandomCases; ++i) {
    const int bits = kMultiplierRshiftBits[rng() % 3];
    const int64_t half = int64_t{1} << (bits - 1);
    const int64_t m = std::uniform_int_distribution<int64_t>(-half, half - 1)(rng);
    const int32_t x = RandomInt32(rng);
    const int rshift = static_cast<int>(rng() % (kMaxRequantRshift + 1));
    const tpu_mlir::Rounding mode = tpu_mlir::kAllRoundings[rng() % 7];
    const int32_t zp = (rng() % 2) ? static_cast<int32_t>(rng() % 256) - 128 : RandomInt32(rng);
    int32_t lo = (rng() % 2) ? -128 : RandomInt32(rng), hi = (rng() % 2) ? 127 : RandomInt32(rng);
    if (lo > hi) std::swap(lo, hi);
    const Int128 q = ExactTpuShift(static_cast<Int128>(x) * m, rshift, mode) + zp;
    const int32_t want = static_cast<int32_t>(std::clamp<Int128>(q, lo, hi));
    const int32_t got = RequantizeAccumulator(x, TpuParams(bits, m, rshift, mode, zp, lo, hi));
    if (got != want && mismatches++ == 0) {
      first = ToString(static_cast<Int128>(x)) + " * " + ToString(m) + " >> " +
              std::to_string(rshift) + " mode " + std::string(tpu_mlir::RoundingName(mode));
    }
  }
  EXPECT_EQ(mismatches, 0) << "first: " << first;
}

TEST(ValidateRequantParams, TpuMlirFormErrorsNameTheFieldAndRange) {
  const tpu_mlir::Rounding up = tpu_mlir::Rounding::kHalfUp;
  EXPECT_EQ(ValidationMessage(TpuParams(8, -128, 63, up)), "");
  EXPECT_EQ(ValidationMessage(TpuParams(8, 127, 0, up)), "");
  EXPECT_EQ(ValidationMessage(TpuParams(8, 128, 0, up)),
            "multiplier: 128 is out of range, allowed -128..127");
  EXPECT_EQ(ValidationMessage(TpuParams(16, -32769, 0, up)),
            "multiplier: -32769 is out of range, allowed -32768..32767");
  EXPECT_EQ(ValidationMessage(TpuParams(32, kInt32Min, 0, up)), "");
  EXPECT_EQ(ValidationMessage(TpuParams(32, 1, 64, up)),
            "shift: 64 is out of range, allowed 0..63");
  EXPECT_EQ(ValidationMessage(TpuParams(32, 1, -1, up)),
            "shift: -1 is out of range, allowed 0..63");
  EXPECT_EQ(ValidationMessage(TpuParams(12, 1, 0, up)),
            "mult_bits: 12 is not a multiplier width, allowed 8, 16 or 32");
  // The TFLite form's multiplier range does not apply.
  EXPECT_EQ(ValidationMessage(TpuParams(8, 5, 3, up)), "");
  EXPECT_EQ(RequantFormName(RequantForm::kTflite), "tflite");
  EXPECT_EQ(RequantFormName(RequantForm::kTpuMlir), "tpu-mlir");
}

TEST(RequantRoundingNames, RoundTrip) {
  EXPECT_EQ(RequantRoundingName(RequantRounding::kDoubleRounding), "double");
  EXPECT_EQ(RequantRoundingName(RequantRounding::kSingleRounding), "single");
  EXPECT_EQ(ParseRequantRounding("double"), RequantRounding::kDoubleRounding);
  EXPECT_EQ(ParseRequantRounding("single"), RequantRounding::kSingleRounding);
  EXPECT_FALSE(ParseRequantRounding("triple").has_value());
  EXPECT_FALSE(ParseRequantRounding("").has_value());
  EXPECT_EQ(RequantRoundingChoices(), "double|single");
}

TEST(EffectiveScale, HandFacts) {
  EXPECT_EQ(EffectiveScale(QuantizedMultiplier{1 << 30, 1}), 1.0);
  EXPECT_EQ(EffectiveScale(QuantizedMultiplier{1 << 30, -1}), 0.25);
  EXPECT_EQ(EffectiveScale(QuantizedMultiplier{}), 0.0);
  EXPECT_EQ(EffectiveScale(MultiplierRshift{3, 2, 8}), 0.75);
  EXPECT_EQ(EffectiveScale(MultiplierRshift{2119995857, 34, 32}), 2119995857.0 / 17179869184.0);
}

}  // namespace
}  // namespace qacc::golden
