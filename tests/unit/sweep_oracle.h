// Test-only pieces shared by the exhaustive and constrained-random sweeps of the golden tests: a
// log that counts mismatches and keeps the first, error statistics against a float oracle, and an
// integer rounding shift written from its definition (explicit floor division and remainder),
// independent of golden/requant.cc.
#ifndef QACC_TESTS_UNIT_SWEEP_ORACLE_H_
#define QACC_TESTS_UNIT_SWEEP_ORACLE_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "golden/quant.h"

namespace qacc::testing {

// Collects every mismatch of a sweep and keeps the first one's description.
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

// x / 2^shift rounded under `mode`. T is int64_t, or __int128 for wide products.
template <typename T>
T RefRoundShift(T x, int shift, golden::RoundingMode mode) {
  using golden::RoundingMode;
  if (shift == 0) return x;
  const T den = T{1} << shift;
  T q = x / den;
  T r = x % den;
  if (r < 0) {  // floor division: remainder in [0, den)
    r += den;
    --q;
  }
  const T twice = 2 * r;
  switch (mode) {
    case RoundingMode::kHalfUp:
      return twice >= den ? q + 1 : q;
    case RoundingMode::kHalfAwayFromZero:
      return (twice > den || (twice == den && x >= 0)) ? q + 1 : q;
    case RoundingMode::kHalfToEven:
      return (twice > den || (twice == den && (q % 2 != 0))) ? q + 1 : q;
    case RoundingMode::kTowardZero:
      return (x < 0 && r != 0) ? q + 1 : q;
    case RoundingMode::kFloor:
      return q;
  }
  return q;
}

}  // namespace qacc::testing

#endif  // QACC_TESTS_UNIT_SWEEP_ORACLE_H_
