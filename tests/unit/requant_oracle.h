// Test-only oracles for requantization, written from the TFLite/gemmlowp definitions and independent of
// golden/requant.cc: they compose gemmlowp's own primitives or use plain int64 floor division.
#ifndef QACC_TESTS_UNIT_REQUANT_ORACLE_H_
#define QACC_TESTS_UNIT_REQUANT_ORACLE_H_

#include <cmath>
#include <cstdint>

#include "fixedpoint/fixedpoint.h"

namespace qacc::testing {

// TFLite QuantizeMultiplier from its definition, keeping the sign: real = q * 2^(shift - 31), |q| in
// [2^30, 2^31); scales whose shift would be < -31 flush to (0, 0).
struct RefMultiplier {
  int32_t multiplier;
  int shift;
};

inline RefMultiplier RefQuantizeMultiplier(double real) {
  if (real == 0.0) return {0, 0};
  int exponent = 0;
  const double mantissa = std::frexp(real, &exponent);  // real = mantissa * 2^exponent, |mantissa| in [0.5, 1)
  int64_t q = std::llround(mantissa * 2147483648.0);
  if (q == (int64_t{1} << 31) || q == -(int64_t{1} << 31)) {
    q /= 2;
    ++exponent;
  }
  if (exponent < -31) return {0, 0};
  return {static_cast<int32_t>(q), exponent};
}

// gemmlowp composition of TFLite's MultiplyByQuantizedMultiplier (double rounding), signed multipliers
// allowed. The left shift is done in int32 as TFLite does, so callers keep x * 2^shift inside int32.
inline int32_t GemmlowpMultiply(int32_t x, RefMultiplier m) {
  const int left = m.shift > 0 ? m.shift : 0;
  const int right = m.shift > 0 ? 0 : -m.shift;
  return gemmlowp::RoundingDivideByPOT(gemmlowp::SaturatingRoundingDoublingHighMul(
                                           static_cast<int32_t>(x * (1 << left)), m.multiplier),
                                       right);
}

// Single rounding: floor((x * M + 2^(30 - shift)) / 2^(31 - shift)), explicit floor division.
inline int32_t SingleRoundingMultiply(int32_t x, RefMultiplier m) {
  const int total = 31 - m.shift;
  const int64_t num = int64_t{x} * m.multiplier + (int64_t{1} << (total - 1));
  const int64_t den = int64_t{1} << total;
  return static_cast<int32_t>(num / den - ((num % den != 0 && num < 0) ? 1 : 0));
}

}  // namespace qacc::testing

#endif  // QACC_TESTS_UNIT_REQUANT_ORACLE_H_
