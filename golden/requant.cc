#include "golden/requant.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace qacc::golden {

namespace {

// GCC/Clang 128-bit integers; __extension__ keeps -Wpedantic quiet about the non-ISO type.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
// Q31 fixed point: 1.0 is 2^31, and a normalised multiplier lies in [0.5, 1.0) = [2^30, 2^31).
constexpr int kQ31FractionBits = 31;
constexpr int64_t kQ31Half = int64_t{1} << (kQ31FractionBits - 1);

template <typename Signed>
int32_t SaturateToInt32(Signed x) {
  if (x < static_cast<Signed>(kInt32Min)) return static_cast<int32_t>(kInt32Min);
  if (x > static_cast<Signed>(kInt32Max)) return static_cast<int32_t>(kInt32Max);
  return static_cast<int32_t>(x);
}

void CheckRange(std::string_view field, int64_t value, int64_t min, int64_t max) {
  if (value < min || value > max) {
    throw std::invalid_argument(
        fmt::format("{}: {} is out of range, allowed {}..{}", field, value, min, max));
  }
}

// floor(x / 2^shift) plus a rounding increment decided from the discarded bits alone; no rounding
// constant is added to x. With shift >= 1 and Signed at least 64 bits wide, floor <= 2^62, so the
// increment cannot overflow.
template <typename Signed, typename Unsigned>
Signed RoundingRightShiftImpl(Signed x, int shift, RoundingMode mode) {
  if (shift == 0) return x;
  const Unsigned one = 1;
  // x mod 2^shift, in [0, 2^shift), compared with half = 2^(shift - 1).
  const Unsigned remainder = static_cast<Unsigned>(x) & ((one << shift) - 1);
  const Unsigned half = one << (shift - 1);
  const Signed floor = x >> shift;  // arithmetic shift: GCC/Clang define it, C++20 requires it
  // Branch-free (& and | on the conditions, the increment added as 0 or 1): the discarded bits of
  // real accumulators are random, and a branch on them mispredicts about every other call (the
  // model's 256x256x256 command took 1.8 ms with branches, 1.1 ms without).
  bool increment = false;
  switch (mode) {
    case RoundingMode::kHalfAwayFromZero:
      increment = (remainder > half) | ((remainder == half) & (x >= 0));
      break;
    case RoundingMode::kHalfToEven:
      increment = (remainder > half) | ((remainder == half) & ((floor & 1) != 0));
      break;
    case RoundingMode::kHalfUp:
      increment = remainder >= half;
      break;
    case RoundingMode::kTowardZero:
      increment = (x < 0) & (remainder != 0);
      break;
    case RoundingMode::kFloor:
      break;
  }
  return floor + static_cast<Signed>(increment);
}

}  // namespace

// ---- TFLite / gemmlowp convention ---------------------------------------------------------

// Compiler side, no RTL stage. frexp gives real = m * 2^e with m in [0.5, 1);
// q = round_half_away(m * 2^31) is in [2^30, 2^31] (ldexp and round are exact), and the carry case
// q = 2^31 (m >= 1 - 2^-32) becomes (2^30, e + 1).
QuantizedMultiplier QuantizeMultiplier(double real_multiplier) {
  if (!std::isfinite(real_multiplier) || real_multiplier < 0.0) {
    throw std::invalid_argument(
        fmt::format("scale: {} is not allowed, must be finite and >= 0", real_multiplier));
  }
  if (real_multiplier == 0.0) return {};
  int shift = 0;
  const double mantissa = std::frexp(real_multiplier, &shift);
  auto q = static_cast<int64_t>(std::round(std::ldexp(mantissa, kQ31FractionBits)));
  if (q == (int64_t{1} << kQ31FractionBits)) {
    q /= 2;
    ++shift;
  }
  // Below ~2^-32 every int32 input times the scale is below 0.5 in magnitude: flush.
  if (shift < kMinQuantizedShift) return {};
  if (shift > kMaxQuantizedShift) {
    // (2^31 - 1) * 2^(30 - 31) = 2^30 - 2^-1 is the largest representable scale; from
    // 2^30 - 2^-2 on the mantissa rounds up to the carry case with shift 31.
    throw std::invalid_argument(fmt::format(
        "scale: {} is out of range, allowed 0 <= scale < {} (2^30 - 2^-2, so that shift <= {})",
        real_multiplier, std::ldexp(1.0, 30) - 0.25, kMaxQuantizedShift));
  }
  return {static_cast<int32_t>(q), shift};
}

double EffectiveScale(const QuantizedMultiplier& quantized) {
  return std::ldexp(static_cast<double>(quantized.multiplier), quantized.shift - kQ31FractionBits);
}

// RTL stages 2-3: 32x32 -> 64 multiply, then the first rounding: add 2^30, keep bits [62:31].
// gemmlowp's nudge (2^30, or 1 - 2^30 for a negative product, then a truncating division) equals
// floor((a * b + 2^30) / 2^31) for every product: ties round toward +infinity. |a * b| <= 2^62, so
// the sum cannot overflow; the only result outside int32, INT32_MIN * INT32_MIN = 2^31, saturates.
int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == kInt32Min && b == kInt32Min) return static_cast<int32_t>(kInt32Max);
  const int64_t product = int64_t{a} * b;
  return static_cast<int32_t>((product + kQ31Half) >> kQ31FractionBits);
}

// RTL stage 4: the second rounding shift of double rounding. Same as gemmlowp's mask/threshold
// form: the remainder must exceed half - 1 (x >= 0) or half (x < 0) to round up, i.e. half away
// from zero.
int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  CheckRange("exponent", exponent, 0, 31);
  return static_cast<int32_t>(RoundingRightShift(x, exponent, RoundingMode::kHalfAwayFromZero));
}

// RTL stages 2-4. shift < 0: exactly gemmlowp, RoundingDivideByPOT(SRDHM(x, M), -shift), two
// roundings (half up, then half away from zero).
// shift >= 0: TFLite writes x * (1 << shift) in int32, undefined behaviour once it overflows. The
// left shift here is exact, so the result is
//   sat32(floor((x * M + 2^(30 - shift)) / 2^(31 - shift)))
// which equals TFLite wherever TFLite is defined (SRDHM's MIN * MIN case included) and is one
// rounding: identical to MultiplyByQuantizedMultiplierSingleRounding for shift >= 0.
int32_t MultiplyByQuantizedMultiplierDoubleRounding(int32_t x, int32_t multiplier, int shift) {
  CheckRange("shift", shift, kMinQuantizedShift, kMaxQuantizedShift);
  if (shift >= 0) {
    const int64_t product = int64_t{x} * multiplier;  // |product| <= 2^62
    return SaturateToInt32(
        RoundingRightShift(product, kQ31FractionBits - shift, RoundingMode::kHalfUp));
  }
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x, multiplier), -shift);
}

// RTL stages 2-3: total = 31 - shift (1..62), sat32(floor((x * M + 2^(total - 1)) / 2^total)),
// round half up. RoundingRightShift works on the discarded bits, so nothing can overflow.
int32_t MultiplyByQuantizedMultiplierSingleRounding(int32_t x, int32_t multiplier, int shift) {
  CheckRange("shift", shift, kMinQuantizedShift, kMaxQuantizedShift);
  const int64_t product = int64_t{x} * multiplier;
  return SaturateToInt32(
      RoundingRightShift(product, kQ31FractionBits - shift, RoundingMode::kHalfUp));
}

// ---- TPU-MLIR convention -------------------------------------------------------------------

// Compiler side, no RTL stage. With real = m * 2^e (m in [0.5, 1)), rshift = bits - 1 - e puts
// real * 2^rshift = m * 2^(bits-1) in [2^(bits-2), 2^(bits-1)), the top of the signed range: one
// more bit would not fit. If it rounds to 2^(bits-1) (the carry case), rshift - 1 is taken, giving
// multiplier 2^(bits-2). rshift is clamped to 0..kMaxRshift.
MultiplierRshift QuantizeMultiplierRshift(double real_multiplier, int bits) {
  if (std::find(std::begin(kMultiplierRshiftBits), std::end(kMultiplierRshiftBits), bits) ==
      std::end(kMultiplierRshiftBits)) {
    throw std::invalid_argument(fmt::format("bits: {} is not allowed, must be 8, 16 or 32", bits));
  }
  if (!std::isfinite(real_multiplier) || !(real_multiplier >= 0.0)) {
    throw std::invalid_argument(
        fmt::format("scale: {} is not allowed, must be finite and >= 0", real_multiplier));
  }
  if (real_multiplier == 0.0) return {0, 0, bits};
  const double max_multiplier = std::ldexp(1.0, bits - 1) - 1;
  int exponent = 0;
  std::frexp(real_multiplier, &exponent);
  int rshift = std::clamp(bits - 1 - exponent, 0, kMaxRshift);
  double multiplier = std::round(std::ldexp(real_multiplier, rshift));  // exact
  if (multiplier > max_multiplier && rshift > 0) {
    --rshift;
    multiplier = std::round(std::ldexp(real_multiplier, rshift));
  }
  if (multiplier > max_multiplier) {
    throw std::invalid_argument(
        fmt::format("scale: {} is out of range for a {}-bit multiplier (rshift >= 0), allowed {}",
                    real_multiplier, bits, fmt::format("0 < scale < {}", max_multiplier + 0.5)));
  }
  if (multiplier == 0.0) return {0, 0, bits};  // below 2^-63: every int32 input rounds to 0
  return {static_cast<int64_t>(multiplier), rshift, bits};
}

double EffectiveScale(const MultiplierRshift& quantized) {
  return std::ldexp(static_cast<double>(quantized.multiplier), -quantized.rshift);
}

// RTL: the rounding shifter. Exact for every int64 x and shift 0..63 (RoundingRightShiftImpl).
int64_t RoundingRightShift(int64_t x, int shift, RoundingMode mode) {
  CheckRange("shift", shift, 0, kMaxRoundingShift);
  return RoundingRightShiftImpl<int64_t, uint64_t>(x, shift, mode);
}

// RTL: multiply, then the rounding shifter, of a TPU-MLIR style lane. An int32 x int64 product
// needs up to 95 bits, so it is formed in 128 bits; the rounded quotient saturates to int32.
int32_t MultiplyRshift(int32_t x, int64_t multiplier, int rshift, RoundingMode mode) {
  CheckRange("rshift", rshift, 0, kMaxRoundingShift);
  const Int128 product = static_cast<Int128>(x) * multiplier;
  return SaturateToInt32(RoundingRightShiftImpl<Int128, UInt128>(product, rshift, mode));
}

// ---- Requantization of an accumulator ------------------------------------------------------

std::string_view RequantRoundingName(RequantRounding rounding) {
  switch (rounding) {
    case RequantRounding::kDoubleRounding:
      return "double";
    case RequantRounding::kSingleRounding:
      return "single";
  }
  return "?";
}

std::optional<RequantRounding> ParseRequantRounding(std::string_view name) {
  for (RequantRounding rounding : kAllRequantRoundings) {
    if (RequantRoundingName(rounding) == name) return rounding;
  }
  return std::nullopt;
}

std::string RequantRoundingChoices() {
  std::string out;
  for (RequantRounding rounding : kAllRequantRoundings) {
    if (!out.empty()) out += '|';
    out += RequantRoundingName(rounding);
  }
  return out;
}

std::string_view RequantFormName(RequantForm form) {
  return form == RequantForm::kTflite ? "tflite" : "tpu-mlir";
}

void ValidateRequantParams(const RequantParams& params) {
  if (params.form == RequantForm::kTpuMlir) {
    if (params.mult_bits != 8 && params.mult_bits != 16 && params.mult_bits != 32) {
      throw std::invalid_argument(fmt::format(
          "mult_bits: {} is not a multiplier width, allowed 8, 16 or 32", params.mult_bits));
    }
    const int64_t max = (int64_t{1} << (params.mult_bits - 1)) - 1;
    CheckRange("multiplier", params.multiplier, -max - 1, max);
    CheckRange("shift", params.shift, 0, kMaxRequantRshift);
  } else {
    constexpr int64_t kMinNormalized = int64_t{1} << (kQ31FractionBits - 1);
    if (params.multiplier != 0 && params.multiplier < kMinNormalized) {
      throw std::invalid_argument(fmt::format("multiplier: {} is out of range, allowed 0 or {}..{}",
                                              params.multiplier, kMinNormalized, kInt32Max));
    }
    CheckRange("shift", params.shift, kMinQuantizedShift, kMaxQuantizedShift);
  }
  if (params.clamp_min > params.clamp_max) {
    throw std::invalid_argument(fmt::format("clamp_min: {} must not exceed clamp_max {}",
                                            params.clamp_min, params.clamp_max));
  }
}

// The RTL lane stage by stage: bias (already in acc) -> multiply and rounding shift(s) of either
// scheme -> + zero point (in int64, cannot wrap) -> clamp to [clamp_min, clamp_max].
int32_t RequantizeAccumulator(int32_t acc, const RequantParams& params) {
  ValidateRequantParams(params);
  int64_t scaled = 0;
  if (params.form == RequantForm::kTpuMlir) {
    // |acc * multiplier| <= 2^62: the int64 product is exact.
    scaled = tpu_mlir::RightShiftRound(int64_t{acc} * params.multiplier, params.shift,
                                       params.rshift_rounding);
  } else {
    scaled =
        params.rounding == RequantRounding::kDoubleRounding
            ? MultiplyByQuantizedMultiplierDoubleRounding(acc, params.multiplier, params.shift)
            : MultiplyByQuantizedMultiplierSingleRounding(acc, params.multiplier, params.shift);
  }
  // |scaled| <= 2^62 and |zero point| < 2^31: the int64 sum cannot wrap.
  const int64_t shifted = scaled + params.output_zero_point;
  return static_cast<int32_t>(std::clamp<int64_t>(shifted, params.clamp_min, params.clamp_max));
}

}  // namespace qacc::golden
