// The requant unit's slope stage (docs/requant.md 6.2): LeakyReLU in hardware, a second stage after
// the first requantization. One rule with per-side parameters computes golden's three forms of
// LeakyReLU (golden/activation.h). For the first stage's output code q and its zero point Z
// (ZP_OUT, the input_zero_point below):
//   d = q - Z; the side is `positive` when d >= 0, else `negative`;
//   y = clamp(Requantize(d * side.k, side) + side's zero point, clamp_min, clamp_max),
// where Requantize is the first stage's arithmetic (RequantizeAccumulator) on the accumulator
// d * k: each side has its own form (TFLite Q31 or TPU-MLIR multiplier/rshift), multiplier, shift,
// roundings and zero point; the clamp is shared, as the hardware has one.
#ifndef QACC_GOLDEN_SLOPE_STAGE_H_
#define QACC_GOLDEN_SLOPE_STAGE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "golden/activation.h"
#include "golden/requant.h"

namespace qacc::golden {

// K is a 9-bit two's complement field (the spec's SLOPE_K_W).
inline constexpr int32_t kMinSlopeK = arch::kMinSlopeK;
inline constexpr int32_t kMaxSlopeK = arch::kMaxSlopeK;

struct SlopeSide {
  int32_t k = 1;  // the pre-multiplier of d, kMinSlopeK..kMaxSlopeK
  // form, multiplier, shift, rounding (TFLite) or mult_bits and rshift_rounding (TPU-MLIR), and the
  // side's output_zero_point; its clamp_min / clamp_max are not read (the stage's clamp is shared).
  RequantParams requant;
};

struct SlopeStageParams {
  SlopeSide positive;  // d >= 0
  SlopeSide negative;  // d < 0
  int32_t clamp_min = -128;
  int32_t clamp_max = 127;
};

// The stage's own legal ranges (BAD_SLOPE, requant.md 6.2): each side's form rules
// (ValidateRequantParams on its multiplier and shift), k within kMinSlopeK..kMaxSlopeK, clamp_min
// <= clamp_max and both within kMinInt8ModeClamp..kMaxInt8ModeClamp, and input_zero_point within
// the same range. Throws std::invalid_argument naming the field ("negative.multiplier",
// "clamp_max", "input_zero_point", ...).
void ValidateSlopeStage(const SlopeStageParams& params, int32_t input_zero_point);

// One output code (the rule at the top). Does not validate; q - input_zero_point and d * k must fit
// int32.
int32_t SlopeStage(int32_t q, int32_t input_zero_point, const SlopeStageParams& params);

// golden's three forms of LeakyReLU as parameters of the stage. For every input code q of the
// form's input spec, SlopeStage(q, Z_x, SlopeFrom...(p)) equals the form's own function
// (tests/unit/slope_stage_test.cc). The clamp is the form's [qmin, qmax] (LeakyRelu: its positive
// side's, which its negative side shares).
SlopeStageParams SlopeFromLeakyRelu(const LeakyReluParams& params);
// One channel of seed 002's 8-bit form. Throws std::invalid_argument ("channel") for a channel it
// has no multiplier for.
SlopeStageParams SlopeFromInt8Slope(const Int8SlopeParams& params, size_t channel = 0);
SlopeStageParams SlopeFromTfliteR115(const TfliteR115LeakyReluParams& params);

// ---- The register image (block 2, requant.md 6.2) ----------------------------------------------
// SLOPE_POS_MULT, _SHIFT, _ZP, _CFG, SLOPE_NEG_MULT, _SHIFT, _ZP, _CFG, SLOPE_CLAMP_MIN, _MAX: ten
// words from arch::reg::kSlopePosMult on, what a SET writes (REG = kSlopePosMult / 4, COUNT = 10)
// and the registers hold.
inline constexpr int kSlopeRegisterCount = 10;
using SlopeRegisters = std::array<uint32_t, kSlopeRegisterCount>;

// Each register as it stores a written word (its fields only: the shift's 8 bits, the
// configuration's fields).
SlopeRegisters StoredSlopeRegisters(const SlopeRegisters& written);
// The stage's parameters from the registers; nullopt for an encoding no form has (RSHIFT_ROUND 7,
// MULT_WIDTH 3). The TFLite form reads SHIFT as two's complement, the TPU-MLIR form unsigned; K is
// sign-extended from 9 bits.
std::optional<SlopeStageParams> DecodeSlopeRegisters(const SlopeRegisters& registers);
// Whether the registers hold a legal slope (BAD_SLOPE's register part: encodings and
// ValidateSlopeStage's rules except the input zero point, which is the GEMM's ZP_OUT).
bool SlopeRegistersLegal(const SlopeRegisters& registers);
// The image of legal parameters (ValidateSlopeStage's ranges, else std::invalid_argument naming the
// field): DecodeSlopeRegisters(EncodeSlopeRegisters(p)) gives p's arithmetic back.
SlopeRegisters EncodeSlopeRegisters(const SlopeStageParams& params);

// ---- PReLU: the NEG side per channel (SLOPE_PER_CHANNEL, requant.md 6.3) ---------------------
// One rq SRAM lane per output column: the multiplier word and the shift word's low byte (the SRAM
// keeps bits [7:0]). TFLite form: bits [30:0] the Q31 multiplier, bit 31 NEGATE (K negated),
// SHIFT two's complement. TPU-MLIR form: the multiplier's low mult_bits bits, sign-extended, and
// the rshift unsigned; K is the register's.
inline constexpr uint32_t kSlopeNegateBit = uint32_t{1} << 31;
struct SlopeChannelWords {
  uint32_t mult = 0;
  uint8_t shift = 0;
};

// The stage of one channel: `registers` (the decoded slope registers) with the NEG side's
// multiplier, shift and K's sign from the channel's words. nullopt for words that hold no legal
// value of the NEG side's form (TFLite: bits [30:0] neither 0 nor 2^30..2^31-1, or SHIFT outside
// -31..30; TPU-MLIR: a multiplier word that is not the sign extension of its low mult_bits bits,
// or an rshift above 63): the spec defines no result for them. K may become 256 (-(-256)).
std::optional<SlopeStageParams> ApplySlopeChannelWords(const SlopeStageParams& registers,
                                                       const SlopeChannelWords& words);
// The words that make ApplySlopeChannelWords(registers, words) compute `channel`: channel's NEG
// side may differ from registers' only in its multiplier, its shift and (TFLite form) the sign of
// K. Throws std::invalid_argument naming what else differs ("negative.k", "positive", ...) or a
// value the words cannot hold ("negative.multiplier").
SlopeChannelWords EncodeSlopeChannelWords(const SlopeStageParams& registers,
                                          const SlopeStageParams& channel);

// golden's RoundingMode as TPU-MLIR's mode of the same definition (RSHIFT_ROUND): half away from
// zero, half to even, half up, toward zero and floor are half_away_from_zero, half_to_even,
// half_up, towards_zero, down.
tpu_mlir::Rounding TpuMlirRoundingOf(RoundingMode mode);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_SLOPE_STAGE_H_
