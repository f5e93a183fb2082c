#include "golden/slope_stage.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

#include "spec/arch_spec.h"

namespace qacc::golden {
namespace {

void CheckBound(const char* field, int64_t value) {
  if (value < arch::kMinInt8ModeClamp || value > arch::kMaxInt8ModeClamp) {
    throw std::invalid_argument(fmt::format("{}: {} is out of range, allowed {}..{}", field, value,
                                            arch::kMinInt8ModeClamp, arch::kMaxInt8ModeClamp));
  }
}

void ValidateSide(const char* name, const SlopeSide& side) {
  try {
    if (side.k < kMinSlopeK || side.k > kMaxSlopeK) {
      throw std::invalid_argument(
          fmt::format("k: {} is out of range, allowed {}..{}", side.k, kMinSlopeK, kMaxSlopeK));
    }
    RequantParams requant = side.requant;
    requant.clamp_min = requant.clamp_max = 0;  // the stage's clamp is checked on its own
    ValidateRequantParams(requant);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}.{}", name, e.what()));
  }
}

// The side's first-stage parameters with the stage's shared clamp.
RequantParams WithClamp(const SlopeSide& side, const SlopeStageParams& params) {
  RequantParams requant = side.requant;
  requant.clamp_min = params.clamp_min;
  requant.clamp_max = params.clamp_max;
  return requant;
}

// The identity side of the 8-bit and r1.15 forms: y = d + zero_point, as multiplier 1 and rshift 0.
SlopeSide PassThrough(int32_t zero_point) {
  SlopeSide side;
  side.requant.form = RequantForm::kTpuMlir;
  side.requant.mult_bits = 8;
  side.requant.multiplier = 1;
  side.requant.shift = 0;
  side.requant.rshift_rounding = tpu_mlir::Rounding::kHalfUp;
  side.requant.output_zero_point = zero_point;
  return side;
}

}  // namespace

void ValidateSlopeStage(const SlopeStageParams& params, int32_t input_zero_point) {
  ValidateSide("positive", params.positive);
  ValidateSide("negative", params.negative);
  CheckBound("clamp_min", params.clamp_min);
  CheckBound("clamp_max", params.clamp_max);
  if (params.clamp_min > params.clamp_max) {
    throw std::invalid_argument(fmt::format("clamp_min: {} must not exceed clamp_max {}",
                                            params.clamp_min, params.clamp_max));
  }
  CheckBound("input_zero_point", input_zero_point);
}

int32_t SlopeStage(int32_t q, int32_t input_zero_point, const SlopeStageParams& params) {
  const int32_t d = q - input_zero_point;
  const SlopeSide& side = d >= 0 ? params.positive : params.negative;
  return RequantizeAccumulator(d * side.k, WithClamp(side, params));
}

SlopeStageParams SlopeFromLeakyRelu(const LeakyReluParams& params) {
  if (params.negative.clamp_min != params.positive.clamp_min ||
      params.negative.clamp_max != params.positive.clamp_max) {
    throw std::invalid_argument(
        fmt::format("negative.clamp_min: [{}, {}] differs from the positive side's [{}, {}]; the "
                    "stage has one clamp",
                    params.negative.clamp_min, params.negative.clamp_max, params.positive.clamp_min,
                    params.positive.clamp_max));
  }
  SlopeStageParams stage;
  stage.positive.requant = params.positive;
  stage.negative.requant = params.negative;
  stage.negative.k = params.negate_negative ? -1 : 1;
  stage.clamp_min = params.positive.clamp_min;
  stage.clamp_max = params.positive.clamp_max;
  return stage;
}

SlopeStageParams SlopeFromInt8Slope(const Int8SlopeParams& params, size_t channel) {
  if (channel >= params.multipliers.size()) {
    throw std::invalid_argument(fmt::format("channel: {} is out of range, the params have {}",
                                            channel, params.multipliers.size()));
  }
  SlopeStageParams stage;
  stage.positive = PassThrough(params.output_zero_point);
  stage.negative.requant.form = RequantForm::kTpuMlir;
  stage.negative.requant.mult_bits = 8;
  stage.negative.requant.multiplier = params.multipliers[channel];
  stage.negative.requant.shift = params.rshift;
  stage.negative.requant.rshift_rounding = TpuMlirRoundingOf(params.rounding);
  stage.negative.requant.output_zero_point = params.output_zero_point;
  stage.clamp_min = params.clamp_min;
  stage.clamp_max = params.clamp_max;
  return stage;
}

SlopeStageParams SlopeFromTfliteR115(const TfliteR115LeakyReluParams& params) {
  SlopeStageParams stage;
  // q >= Z_1 returns the input code: d + Z_1.
  stage.positive = PassThrough(params.input_offset);
  stage.negative.k = params.q_alpha - params.alpha_offset;
  stage.negative.requant.form = RequantForm::kTflite;
  stage.negative.requant.rounding = RequantRounding::kDoubleRounding;
  stage.negative.requant.multiplier = params.output_multiplier;
  stage.negative.requant.shift = params.output_shift;
  stage.negative.requant.output_zero_point = params.output_offset;
  stage.clamp_min = 0;
  stage.clamp_max = 255;
  return stage;
}

namespace {

// Word i of the image is the register at kSlopePosMult + 4 i; a side's four words start at 4 *
// side.
constexpr int kMultWord = 0, kShiftWord = 1, kZpWord = 2, kCfgWord = 3, kClampMinWord = 8,
              kClampMaxWord = 9;
// The two sides' configuration registers have one layout (the POS constants name its fields).
constexpr uint32_t kCfgForm = arch::kSlopePosRqForm, kCfgRounding = arch::kSlopePosRounding;
constexpr int kCfgRshiftRoundLsb = arch::kSlopePosRshiftRoundLsb,
              kCfgMultWidthLsb = arch::kSlopePosMultWidthLsb;
constexpr int kCfgKLsb = arch::kSlopePosKLsb;
constexpr uint32_t kShiftMask = (uint32_t{1} << arch::kShiftBits) - 1;  // SHIFT [7:0]
static_assert(arch::kSlopeNegKLsb == kCfgKLsb && arch::kSlopeNegMultWidthLsb == kCfgMultWidthLsb &&
              arch::kSlopeNegRshiftRoundLsb == kCfgRshiftRoundLsb &&
              arch::kSlopeNegRqForm == kCfgForm && arch::kSlopeNegRounding == kCfgRounding);
static_assert(arch::reg::kSlopeClampMax ==
              arch::reg::kSlopePosMult + 4 * (kSlopeRegisterCount - 1));

int32_t SignExtendBits(uint32_t value, int bits) {
  const uint32_t sign = uint32_t{1} << (bits - 1);
  value &= (sign << 1) - 1;
  // In 64 bits: at 32 bits, sign is 2^31, which int32 cannot hold.
  return static_cast<int32_t>(int64_t{value ^ sign} - int64_t{sign});
}

std::optional<SlopeSide> DecodeSide(const uint32_t* words) {
  const uint32_t cfg = words[kCfgWord];
  const uint32_t width_code = (cfg & arch::kSlopePosMultWidthMask) >> kCfgMultWidthLsb,
                 round_code = (cfg & arch::kSlopePosRshiftRoundMask) >> kCfgRshiftRoundLsb;
  SlopeSide side;
  side.k = SignExtendBits(cfg >> kCfgKLsb, arch::kSlopeKBits);
  RequantParams& rq = side.requant;
  rq.multiplier = static_cast<int32_t>(words[kMultWord]);
  rq.output_zero_point = static_cast<int32_t>(words[kZpWord]);
  if (cfg & kCfgForm) {
    if (width_code >= std::size(kMultiplierRshiftBits) ||
        round_code >= std::size(tpu_mlir::kAllRoundings)) {
      return std::nullopt;
    }
    rq.form = RequantForm::kTpuMlir;
    rq.mult_bits = kMultiplierRshiftBits[width_code];
    rq.rshift_rounding = tpu_mlir::kAllRoundings[round_code];
    rq.shift = static_cast<int>(words[kShiftWord] & kShiftMask);
  } else {
    rq.form = RequantForm::kTflite;
    rq.rounding =
        (cfg & kCfgRounding) ? RequantRounding::kSingleRounding : RequantRounding::kDoubleRounding;
    rq.shift = SignExtendBits(words[kShiftWord], arch::kShiftBits);
  }
  return side;
}

void EncodeSide(const SlopeSide& side, uint32_t* words) {
  const RequantParams& rq = side.requant;
  uint32_t cfg = (static_cast<uint32_t>(side.k) & ((1u << arch::kSlopeKBits) - 1)) << kCfgKLsb;
  if (rq.form == RequantForm::kTpuMlir) {
    const auto width =
        std::find(std::begin(kMultiplierRshiftBits), std::end(kMultiplierRshiftBits), rq.mult_bits);
    const auto round = std::find(std::begin(tpu_mlir::kAllRoundings),
                                 std::end(tpu_mlir::kAllRoundings), rq.rshift_rounding);
    cfg |= kCfgForm | uint32_t(width - std::begin(kMultiplierRshiftBits)) << kCfgMultWidthLsb |
           uint32_t(round - std::begin(tpu_mlir::kAllRoundings)) << kCfgRshiftRoundLsb;
  } else if (rq.rounding == RequantRounding::kSingleRounding) {
    cfg |= kCfgRounding;
  }
  words[kMultWord] = static_cast<uint32_t>(rq.multiplier);
  words[kShiftWord] = static_cast<uint32_t>(rq.shift) & kShiftMask;
  words[kZpWord] = static_cast<uint32_t>(rq.output_zero_point);
  words[kCfgWord] = cfg;
}

}  // namespace

SlopeRegisters StoredSlopeRegisters(const SlopeRegisters& written) {
  SlopeRegisters stored{};
  for (int i = 0; i < kSlopeRegisterCount; ++i) {
    const uint32_t offset = arch::reg::kSlopePosMult + 4 * uint32_t(i);
    const auto* info =
        std::find_if(std::begin(arch::kRegisters), std::end(arch::kRegisters),
                     [offset](const arch::RegisterInfo& r) { return r.offset == offset; });
    if (info == std::end(arch::kRegisters))
      throw std::logic_error("golden: the spec has no slope register");
    stored[size_t(i)] = written[size_t(i)] & info->rw_mask;
  }
  return stored;
}

std::optional<SlopeStageParams> DecodeSlopeRegisters(const SlopeRegisters& registers) {
  const SlopeRegisters r = StoredSlopeRegisters(registers);
  const std::optional<SlopeSide> positive = DecodeSide(&r[0]), negative = DecodeSide(&r[4]);
  if (!positive || !negative) return std::nullopt;
  SlopeStageParams params;
  params.positive = *positive;
  params.negative = *negative;
  params.clamp_min = static_cast<int32_t>(r[kClampMinWord]);
  params.clamp_max = static_cast<int32_t>(r[kClampMaxWord]);
  return params;
}

bool SlopeRegistersLegal(const SlopeRegisters& registers) {
  const std::optional<SlopeStageParams> params = DecodeSlopeRegisters(registers);
  if (!params) return false;
  try {
    ValidateSlopeStage(*params, 0);
  } catch (const std::invalid_argument&) {
    return false;
  }
  return true;
}

SlopeRegisters EncodeSlopeRegisters(const SlopeStageParams& params) {
  ValidateSlopeStage(params, 0);
  SlopeRegisters image{};
  EncodeSide(params.positive, &image[0]);
  EncodeSide(params.negative, &image[4]);
  image[kClampMinWord] = static_cast<uint32_t>(params.clamp_min);
  image[kClampMaxWord] = static_cast<uint32_t>(params.clamp_max);
  return image;
}

std::optional<SlopeStageParams> ApplySlopeChannelWords(const SlopeStageParams& registers,
                                                       const SlopeChannelWords& words) {
  SlopeStageParams params = registers;
  RequantParams& rq = params.negative.requant;
  if (rq.form == RequantForm::kTpuMlir) {
    rq.multiplier = SignExtendBits(words.mult, rq.mult_bits);
    rq.shift = words.shift;
    if (rq.multiplier != static_cast<int32_t>(words.mult) || rq.shift > arch::kMaxRqRshift)
      return std::nullopt;
    return params;
  }
  rq.multiplier = static_cast<int32_t>(words.mult & ~kSlopeNegateBit);
  rq.shift = SignExtendBits(words.shift, arch::kShiftBits);
  if ((rq.multiplier != 0 && rq.multiplier < arch::kMinNonzeroMult) || rq.shift < arch::kMinShift ||
      rq.shift > arch::kMaxShift) {
    return std::nullopt;
  }
  if (words.mult & kSlopeNegateBit) params.negative.k = -params.negative.k;
  return params;
}

SlopeChannelWords EncodeSlopeChannelWords(const SlopeStageParams& registers,
                                          const SlopeStageParams& channel) {
  const RequantParams &reg = registers.negative.requant, &ch = channel.negative.requant;
  auto same_side = [](const SlopeSide& a, const SlopeSide& b) {
    return a.k == b.k &&
           EncodeSlopeRegisters({a, a, -128, 127}) == EncodeSlopeRegisters({b, b, -128, 127});
  };
  if (!same_side(registers.positive, channel.positive) ||
      registers.clamp_min != channel.clamp_min || registers.clamp_max != channel.clamp_max) {
    throw std::invalid_argument("positive: a channel's POS side and clamp are the registers'");
  }
  // The channel's NEG side with the registers' per-channel fields: it must be the registers'.
  SlopeSide shared = channel.negative;
  shared.requant.multiplier = reg.multiplier;
  shared.requant.shift = reg.shift;
  const bool tpu = reg.form == RequantForm::kTpuMlir;
  const bool negate = !tpu && ch.form == reg.form && channel.negative.k == -registers.negative.k &&
                      channel.negative.k != registers.negative.k;
  if (negate) shared.k = registers.negative.k;
  if (!same_side(registers.negative, shared)) {
    throw std::invalid_argument(
        "negative.k: a channel's NEG side differs from the registers' only in its multiplier, its "
        "shift and (TFLite form) the sign of k");
  }
  SlopeSide alone = channel.negative;
  alone.k = registers.negative.k;
  ValidateSide("negative", alone);  // the multiplier and shift within the form's ranges
  SlopeChannelWords words;
  words.mult = static_cast<uint32_t>(ch.multiplier) | (negate ? kSlopeNegateBit : 0u);
  words.shift = static_cast<uint8_t>(static_cast<uint32_t>(ch.shift) & kShiftMask);
  return words;
}

tpu_mlir::Rounding TpuMlirRoundingOf(RoundingMode mode) {
  switch (mode) {
    case RoundingMode::kHalfAwayFromZero:
      return tpu_mlir::Rounding::kHalfAwayFromZero;
    case RoundingMode::kHalfToEven:
      return tpu_mlir::Rounding::kHalfToEven;
    case RoundingMode::kHalfUp:
      return tpu_mlir::Rounding::kHalfUp;
    case RoundingMode::kTowardZero:
      return tpu_mlir::Rounding::kTowardsZero;
    case RoundingMode::kFloor:
      return tpu_mlir::Rounding::kDown;
  }
  throw std::invalid_argument("rounding: not a RoundingMode");
}

}  // namespace qacc::golden
