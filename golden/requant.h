// Scale -> integer multiplier and shift, and requantization of int32 accumulators.
//
// Two multiplier conventions are supported:
//  * TFLite/gemmlowp: real ~= multiplier * 2^(shift - 31), multiplier a Q31 value in [2^30, 2^31), shift
//    signed (positive = left shift). Applied with double rounding (SRDHM then rounding divide by 2^-shift)
//    or single rounding (one 64-bit product, one round-half-up shift).
//  * TPU-MLIR: real ~= multiplier / 2^rshift, multiplier a signed integer of 8, 16 or 32 bits, rshift >= 0.
//    Applied as (x * multiplier) >> rshift with any RoundingMode.
// The RTL requant unit mirrors RequantizeAccumulator() stage by stage: bias add, multiply, rounding shift,
// zero point, clamp.
#ifndef QACC_GOLDEN_REQUANT_H_
#define QACC_GOLDEN_REQUANT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "golden/quant.h"
#include "golden/tpu_mlir.h"
#include "spec/arch_spec.h"

namespace qacc::golden {

// ---- TFLite / gemmlowp convention -------------------------------------------------------------------------

// Range of the TFLite shift (TFLite DCHECKs the same). QuantizeMultiplier flushes scales below it
// to (0, 0) and throws above it; the MultiplyByQuantizedMultiplier* functions throw outside it.
inline constexpr int kMinQuantizedShift = -31;
inline constexpr int kMaxQuantizedShift = 30;

struct QuantizedMultiplier {
  int32_t multiplier = 0;  // Q31, in [2^30, 2^31) for any nonzero result; 0 with shift 0 for tiny scales
  int shift = 0;           // real = multiplier * 2^(shift - 31)
};

// TFLite QuantizeMultiplier: frexp the scale, round the Q31 mantissa half away from zero, fold the carry case
// (mantissa rounding to 2^31) into shift + 1, and flush scales whose shift would be < -31 to (0, 0).
// 0.5 -> (2^30, 0); 1.0 -> (2^30, 1); 0.1 -> (1717986918, -3); 300 -> (1258291200, 9); 1e-10 -> (0, 0).
// Throws std::invalid_argument for a scale that is negative, NaN or infinite; 0 gives (0, 0).
// Huge scales: a scale >= 2^30 - 2^-2 (1073741823.75) would need shift >= 31, which no Multiply*
// function accepts, so it throws std::invalid_argument naming "scale" and the allowed range.
QuantizedMultiplier QuantizeMultiplier(double real_multiplier);

// multiplier * 2^(shift - 31), exact in double. (0, 0) gives 0.
double EffectiveScale(const QuantizedMultiplier& quantized);

// gemmlowp SaturatingRoundingDoublingHighMul: (a * b) / 2^31 rounded half up, i.e.
// floor((a * b + 2^30) / 2^31), as ARM's VQRDMULH, saturating the single overflow case a = b = INT32_MIN to
// INT32_MAX. (gemmlowp's nudge is 1 - 2^30 for negative products and the division truncates, so negative ties
// round toward +infinity: SRDHM(-1, 2^30) = 0, SRDHM(-3, 2^30) = -1.)
int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b);

// gemmlowp RoundingDivideByPOT: x / 2^exponent rounded half away from zero, exponent in 0..31.
int32_t RoundingDivideByPOT(int32_t x, int exponent);

// TFLite MultiplyByQuantizedMultiplier with double rounding:
// RoundingDivideByPOT(SRDHM(x * 2^max(shift, 0), multiplier), max(-shift, 0)). shift in -31..30.
// x * 2^shift is exact, not an int32 product (TFLite's can overflow): for shift >= 0 the result
// is floor((x * multiplier + 2^(30 - shift)) / 2^(31 - shift)) saturated, as single rounding.
int32_t MultiplyByQuantizedMultiplierDoubleRounding(int32_t x, int32_t multiplier, int shift);

// TFLite MultiplyByQuantizedMultiplier with TFLITE_SINGLE_ROUNDING: total = 31 - shift,
// (int64(x) * multiplier + 2^(total - 1)) >> total, saturated to int32. shift in -31..30.
int32_t MultiplyByQuantizedMultiplierSingleRounding(int32_t x, int32_t multiplier, int shift);

// ---- TPU-MLIR convention ------------------------------------------------------------------------------------

// Multiplier widths QuantizeMultiplierRshift accepts.
inline constexpr int kMultiplierRshiftBits[] = {8, 16, 32};
// Largest rshift QuantizeMultiplierRshift returns, as TPU-MLIR's getRShiftAndMultiplierFromQScale
// (its search loop stops at 62) and TFLite's flush (31 - (-31) = 62). Smaller scales keep rshift 62
// with a multiplier of fewer bits, and flush to (0, 0) when even that rounds to 0.
inline constexpr int kMaxRshift = 62;
// Largest shift RoundingRightShift and MultiplyRshift accept.
inline constexpr int kMaxRoundingShift = 63;

struct MultiplierRshift {
  int64_t multiplier = 0;  // signed, fits in `bits` bits
  int rshift = 0;          // >= 0; real = multiplier / 2^rshift
  int bits = 32;           // 8, 16 or 32
};

// Largest |multiplier| that fits `bits` signed bits with the largest rshift that keeps it there, so the
// relative error is minimal (0.1234 with 32 bits -> 2119995857 >> 34). A zero scale (a dead channel) gives
// (0, 0), as TFLite's QuantizeMultiplier. Throws std::invalid_argument for bits not in {8, 16, 32} or a scale
// that is negative or not finite.
// rshift is the largest in 0..kMaxRshift with round_half_away(real * 2^rshift) <= 2^(bits-1) - 1.
// A scale with round(real) > 2^(bits-1) - 1 (real >= 2^(bits-1) - 0.5) cannot be represented with
// rshift >= 0 and throws std::invalid_argument naming "scale".
MultiplierRshift QuantizeMultiplierRshift(double real_multiplier, int bits);

// multiplier / 2^rshift, exact in double.
double EffectiveScale(const MultiplierRshift& quantized);

// Shift an integer right by `shift` (0..63) with the given rounding of the discarded bits.
// shift 0 returns x. The rounding is exact: no overflow for any int64 x.
int64_t RoundingRightShift(int64_t x, int shift, RoundingMode mode);

// (x * multiplier) >> rshift with `mode`, saturated to int32. x is an int32 accumulator.
int32_t MultiplyRshift(int32_t x, int64_t multiplier, int rshift, RoundingMode mode);

// ---- Requantization of an accumulator -----------------------------------------------------------------------

enum class RequantRounding {
  kDoubleRounding,  // TFLite reference: SRDHM then RoundingDivideByPOT
  kSingleRounding,  // TFLite TFLITE_SINGLE_ROUNDING: one 64-bit product, one half-up shift
};
std::string_view RequantRoundingName(RequantRounding rounding);  // "double", "single"
std::optional<RequantRounding> ParseRequantRounding(std::string_view name);
inline constexpr RequantRounding kAllRequantRoundings[] = {RequantRounding::kDoubleRounding,
                                                          RequantRounding::kSingleRounding};
// "double|single", for error messages and --help.
std::string RequantRoundingChoices();

// The requant unit's two forms (docs/requant.md 6.1).
enum class RequantForm {
  kTflite,   // Q31 multiplier, signed shift, double or single rounding
  kTpuMlir,  // signed multiplier of 8, 16 or 32 bits, rshift 0..63, TPU-MLIR's RightShiftRound
};
std::string_view RequantFormName(RequantForm form);  // "tflite", "tpu-mlir"

// Largest rshift of the TPU-MLIR form: the spec's (the hardware's shift amount is 6 bits).
inline constexpr int kMaxRequantRshift = arch::kMaxRqRshift;

// Everything one output lane needs to turn an int32 accumulator into an output code.
struct RequantParams {
  int32_t multiplier = 1 << 30;  // kTflite: Q31; kTpuMlir: signed, fits mult_bits
  int shift = 1;                 // kTflite: -31..30; kTpuMlir: the rshift, 0..kMaxRequantRshift
  RequantRounding rounding = RequantRounding::kDoubleRounding;  // kTflite only
  int32_t output_zero_point = 0;
  int32_t clamp_min = -128;      // also fuses ReLU / ReLU6 (see ActivationClamp in golden/activation.h)
  int32_t clamp_max = 127;
  RequantForm form = RequantForm::kTflite;
  int mult_bits = 32;                                                // kTpuMlir only: 8, 16 or 32
  tpu_mlir::Rounding rshift_rounding = tpu_mlir::Rounding::kHalfUp;  // kTpuMlir only
};

// Throws std::invalid_argument naming the field. kTflite: multiplier 0 or in [2^30, 2^31), shift
// -31..30. kTpuMlir: mult_bits 8, 16 or 32, multiplier within its signed range, shift (the rshift)
// 0..63. Both: clamp_min <= clamp_max.
void ValidateRequantParams(const RequantParams& params);

// kTflite: clamp(MultiplyByQuantizedMultiplier(acc, multiplier, shift) + output_zero_point,
// clamp_min, clamp_max).
// kTpuMlir: clamp(tpu_mlir::RightShiftRound(int64(acc) * multiplier, shift, rshift_rounding) +
// output_zero_point, clamp_min, clamp_max): TPU-MLIR's applyMultiplierAndRShift and its callers'
// saturation to the output type, with no int32 saturation in between (docs/requant.md 6.1).
// The bias, if any, is already in acc (the MAC array adds it before requant). The sum with the zero
// point is done in int64, so it cannot wrap.
int32_t RequantizeAccumulator(int32_t acc, const RequantParams& params);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_REQUANT_H_
