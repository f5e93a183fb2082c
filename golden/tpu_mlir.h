// TPU-MLIR's own requantization arithmetic, bit for bit: how sophgo/tpu-mlir derives a multiplier and right
// shift from a real scale (getRShiftAndMultiplierFromQScale, lib/Support/MathUtils.cpp) and how it applies
// them (applyMultiplierAndRShift, RightShiftRound, MultiplyByQuantizedMultiplier). Seed 002 describes this
// scheme. qacc's default (QuantizeMultiplierRshift in golden/requant.h) is a different, more exact
// derivation; docs/requant.md 5 lists the differences. Everything here is `--compat tpu-mlir`.
#ifndef QACC_GOLDEN_TPU_MLIR_H_
#define QACC_GOLDEN_TPU_MLIR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qacc::golden::tpu_mlir {

// The maxima TPU-MLIR's callers pass: int8 multipliers (its default) and uint8 ones.
inline constexpr int64_t kInt8MaxMultiplier = 127;
inline constexpr int64_t kUint8MaxMultiplier = 255;
// Its search tries rshift 0..62.
inline constexpr int kMaxSearchRshift = 62;

struct RShiftMultiplier {
  int64_t multiplier = 0;  // 0..max_multiplier; real ~= multiplier / 2^rshift
  int rshift = 0;          // 0..62
  bool saturated = false;  // scale > max_multiplier: (max_multiplier, 0)
};

// getRShiftAndMultiplierFromQScale(scale, &m, &r, qdm = false, max_multiplier):
//   scale > max                 -> (max, 0), saturated
//   else the smallest rshift in 0..62 with scale * 2^(rshift + 1) >= max,
//        multiplier = trunc(scale * 2^rshift)            (in [max/2, max), or up to max at rshift 0)
//   none (scale < max * 2^-63, zero, NaN, negative) -> (0, 0)
// Scale 0.3: 76 >> 8; 0.99: 126 >> 7; 0.12421875: 63 >> 9; 200: 127 >> 0 (saturated).
// Throws std::invalid_argument naming "max_multiplier" unless it is in 1..2^62.
RShiftMultiplier RShiftAndMultiplierFromQScale(double scale, int64_t max_multiplier = kInt8MaxMultiplier);

// The same with qdm = true (CV18xx per-channel layers): a scale >= 1 is clamped to 0.999999, then TFLite's
// QuantizeMultiplier: Q31 multiplier = round_half_away(frexp mantissa * 2^31) (a carry to 2^31 halves it and
// raises the exponent), scales below 2^-32 flush to (0, 0), exponents above 30 clamp to (2^31 - 1, 30).
// real ~= multiplier * 2^-(31 + rshift), rshift = -exponent (-1 for a scale in [1 - 2^-32, 1), whose
// mantissa carries). 0.3: (1288490189, 1); 0.5: (2^30, 0); 2.0: (2147481501, 0).
struct QdmMultiplier {
  int64_t multiplier = 0;  // Q31, 0 or in [2^30, 2^31)
  int rshift = 0;
};
QdmMultiplier QdmMultiplierFromQScale(double scale);

// TPU-MLIR's RoundingMode values that RightShiftRound implements (lower-case names on the command line).
enum class Rounding {
  kHalfAwayFromZero,  // "half_away_from_zero": ties away from 0
  kHalfUp,            // "half_up": ties toward +infinity
  kHalfDown,          // "half_down": ties toward -infinity
  kHalfToEven,        // "half_to_even"
  kTowardsZero,       // "towards_zero": truncation
  kUp,                // "up": ceiling
  kDown,              // "down": floor
};
inline constexpr Rounding kAllRoundings[] = {Rounding::kHalfAwayFromZero, Rounding::kHalfUp,
                                             Rounding::kHalfDown,         Rounding::kHalfToEven,
                                             Rounding::kTowardsZero,      Rounding::kUp,
                                             Rounding::kDown};
std::string_view RoundingName(Rounding mode);
std::optional<Rounding> ParseRounding(std::string_view name);
std::string RoundingChoices();  // "half_away_from_zero|half_up|..."

// RightShiftRound<int64>(src, shift, mode): shift 0 returns src whatever the mode; shift 1..63 is an
// arithmetic shift (floor) plus one where the discarded bits call for it under `mode`; a shift above 63
// acts as 63. Throws std::invalid_argument naming "shift" for a negative shift.
int64_t RightShiftRound(int64_t src, int shift, Rounding mode);

// applyMultiplierAndRShift in its MultiplierShift mode (BM1684/BM1684X): RightShiftRound(v * multiplier,
// rshift, mode), the product in int64; no saturation (callers clamp to the output type). Throws
// std::invalid_argument naming the field when |v| >= 2^31 or |multiplier| >= 2^31 (the product must
// not overflow int64) or rshift is negative. TPU-MLIR's default mode is half_up.
int64_t ApplyMultiplierAndRShift(int64_t v, int64_t multiplier, int rshift,
                                 Rounding mode = Rounding::kHalfUp);

// applyMultiplierAndRShift in its OnlyShift mode: RightShiftRound(v, rshift, mode).
int64_t ApplyRShiftOnly(int64_t v, int rshift, Rounding mode = Rounding::kHalfUp);

// TPU-MLIR's MultiplyByQuantizedMultiplier (its TFLite-style requant modes; shift > 0 is a left shift):
//   v = shift > 0 ? int32(x << shift) : x           (the shift wraps in 32 bits, as TPU-MLIR's)
//   v = clamp(RightShiftRound(v * multiplier, 31, half_up), INT32_MIN, INT32_MAX)   stage 1: ties up
//   v = shift < 0 ? RightShiftRound(v, -shift, mode) : v                              stage 2
// Stage 1 is gemmlowp's SRDHM, floor((v * M + 2^30) / 2^31) (docs/requant.md 2); stage 2 takes any mode where
// TFLite's RoundingDivideByPOT rounds half away from zero: x = -5, M = 1288490189 (0.3), shift -1 gives stage
// 1 = -3, then -1 with half_up, -2 with half_away_from_zero. Throws std::invalid_argument naming "shift"
// outside -63..31.
int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift,
                                      Rounding mode = Rounding::kHalfAwayFromZero);

}  // namespace qacc::golden::tpu_mlir

#endif  // QACC_GOLDEN_TPU_MLIR_H_
