#include "golden/tpu_mlir.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace qacc::golden::tpu_mlir {

namespace {

constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxMaxMultiplier = int64_t{1} << 62;

}  // namespace

// All in double, as TPU-MLIR: scale * 2^k is exact, so the truncation is of the exact product.
RShiftMultiplier RShiftAndMultiplierFromQScale(double scale, int64_t max_multiplier) {
  if (max_multiplier < 1 || max_multiplier > kMaxMaxMultiplier) {
    throw std::invalid_argument(fmt::format(
        "max_multiplier: {} is out of range, allowed 1..{}", max_multiplier, kMaxMaxMultiplier));
  }
  const double max = static_cast<double>(max_multiplier);
  if (scale > max) return {max_multiplier, 0, true};
  for (int rshift = 0; rshift <= kMaxSearchRshift; ++rshift) {
    if (scale * std::ldexp(1.0, rshift + 1) >= max) {
      return {static_cast<int64_t>(scale * std::ldexp(1.0, rshift)), rshift, false};
    }
  }
  return {0, 0, false};  // below max * 2^-63, zero, negative or NaN
}

QdmMultiplier QdmMultiplierFromQScale(double scale) {
  if (!std::isfinite(scale) || scale < 0.0) {
    throw std::invalid_argument(
        fmt::format("scale: {} is not allowed, must be finite and >= 0", scale));
  }
  if (scale >= 1.0) scale = 0.999999;
  if (scale == 0.0) return {0, 0};
  int exponent = 0;
  const double mantissa = std::frexp(scale, &exponent);  // in [0.5, 1)
  int64_t q = static_cast<int64_t>(std::round(std::ldexp(mantissa, 31)));
  if (q == (int64_t{1} << 31)) {
    q /= 2;
    ++exponent;
  }
  if (exponent < -31) return {0, 0};
  if (exponent > 30) return {kInt32Max, -30};
  return {q, -exponent};
}

std::string_view RoundingName(Rounding mode) {
  switch (mode) {
    case Rounding::kHalfAwayFromZero:
      return "half_away_from_zero";
    case Rounding::kHalfUp:
      return "half_up";
    case Rounding::kHalfDown:
      return "half_down";
    case Rounding::kHalfToEven:
      return "half_to_even";
    case Rounding::kTowardsZero:
      return "towards_zero";
    case Rounding::kUp:
      return "up";
    case Rounding::kDown:
      return "down";
  }
  return "?";
}

std::optional<Rounding> ParseRounding(std::string_view name) {
  for (Rounding mode : kAllRoundings) {
    if (RoundingName(mode) == name) return mode;
  }
  return std::nullopt;
}

std::string RoundingChoices() {
  std::string out;
  for (Rounding mode : kAllRoundings) {
    if (!out.empty()) out += '|';
    out += RoundingName(mode);
  }
  return out;
}

// floor(src / 2^shift) from the arithmetic shift, then the increment each mode asks for, decided by the
// discarded bits `mant` (always >= 0) against half = 2^(shift - 1).
int64_t RightShiftRound(int64_t src, int shift, Rounding mode) {
  if (shift < 0) {
    throw std::invalid_argument(fmt::format("shift: {} is out of range, allowed 0..63", shift));
  }
  if (shift == 0) return src;
  shift = std::min(shift, 63);
  const int64_t val = src >> shift;  // arithmetic (C++20 defines it; every C++17 compiler we use does so)
  const uint64_t mant = static_cast<uint64_t>(src) & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  bool up = false;
  switch (mode) {
    case Rounding::kHalfToEven:
      up = mant > half || (mant == half && (val & 1) != 0);
      break;
    case Rounding::kHalfAwayFromZero:
      up = src >= 0 ? mant >= half : mant > half;
      break;
    case Rounding::kHalfUp:
      up = mant >= half;
      break;
    case Rounding::kHalfDown:
      up = mant > half;
      break;
    case Rounding::kTowardsZero:
      up = src < 0 && mant != 0;
      break;
    case Rounding::kUp:
      up = mant != 0;
      break;
    case Rounding::kDown:
      break;
  }
  return val + (up ? 1 : 0);
}

int64_t ApplyMultiplierAndRShift(int64_t v, int64_t multiplier, int rshift, Rounding mode) {
  if (v < kInt32Min || v > kInt32Max) {
    throw std::invalid_argument(
        fmt::format("v: {} is out of range, allowed {}..{}", v, kInt32Min, kInt32Max));
  }
  if (multiplier < kInt32Min || multiplier > kInt32Max) {
    throw std::invalid_argument(fmt::format("multiplier: {} is out of range, allowed {}..{}",
                                            multiplier, kInt32Min, kInt32Max));
  }
  return RightShiftRound(v * multiplier, rshift, mode);  // |v * multiplier| <= 2^62
}

int64_t ApplyRShiftOnly(int64_t v, int rshift, Rounding mode) {
  return RightShiftRound(v, rshift, mode);
}

int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift, Rounding mode) {
  if (shift < -63 || shift > 31) {
    throw std::invalid_argument(fmt::format("shift: {} is out of range, allowed -63..31", shift));
  }
  // TPU-MLIR shifts the int32 left before widening: the result wraps in 32 bits.
  const int64_t v = shift > 0 ? static_cast<int32_t>(static_cast<uint32_t>(x) << shift) : x;
  const int64_t stage1 = std::clamp(RightShiftRound(v * multiplier, 31, Rounding::kHalfUp),
                                    kInt32Min, kInt32Max);
  return static_cast<int32_t>(shift < 0 ? RightShiftRound(stage1, -shift, mode) : stage1);
}

}  // namespace qacc::golden::tpu_mlir
