#include "model/command.h"

namespace qacc::model {

LaunchDecision DecodeCommand(const arch::ArchConfig& config, const arch::Command& raw) {
  LaunchDecision decision;
  decision.error = arch::ValidateCommand(config, raw);
  if (decision.error != arch::ErrCode::kNone) {
    decision.cycles = arch::kErrorCycles;
    return decision;
  }
  constexpr uint32_t kBaseMask = (uint32_t{1} << arch::kBaseBits) - 1;
  DecodedCommand& cmd = decision.command;
  cmd.raw = raw;
  cmd.timing =
      arch::Timing(config.rows, config.cols, raw.M(), raw.N(), raw.K(), raw.lut(), raw.slope());
  cmd.a_base = raw.a_base & kBaseMask;
  cmd.b_base = raw.b_base & kBaseMask;
  cmd.bias_base = raw.bias_base & kBaseMask;
  cmd.rq_base = raw.rq_base & kBaseMask;
  cmd.out_base = raw.out_base & kBaseMask;
  cmd.a_zp = arch::ZpA(raw.zp_ab);
  cmd.b_zp = arch::ZpB(raw.zp_ab);
  cmd.a_unsigned = raw.a_unsigned();
  cmd.b_unsigned = raw.b_unsigned();
  cmd.per_channel = raw.per_channel();
  cmd.out_raw = raw.out_raw();
  cmd.bias_en = raw.bias_en();
  if (raw.tpu_mlir_form() && !raw.out_raw()) {
    // requant.md 6.1: the multiplier's low MULT_WIDTH bits, the shift field read unsigned, and
    // RSHIFT_ROUND's mode in golden::tpu_mlir::kAllRoundings order (validated: each in range;
    // with OUT_RAW they are not validated, and not used).
    cmd.requant.form = golden::RequantForm::kTpuMlir;
    cmd.requant.mult_bits = arch::MultWidthBits(raw.mult_width());
    cmd.requant.multiplier =
        arch::LowBitsSigned(static_cast<uint32_t>(raw.mult), cmd.requant.mult_bits);
    cmd.requant.shift = static_cast<int>(arch::RshiftValue(raw.shift));
    cmd.requant.rshift_rounding = golden::tpu_mlir::kAllRoundings[raw.rshift_round()];
  } else {
    cmd.requant.multiplier = raw.mult;
    cmd.requant.shift = arch::ShiftValue(raw.shift);
    cmd.requant.rounding = raw.single_rounding() ? golden::RequantRounding::kSingleRounding
                                                 : golden::RequantRounding::kDoubleRounding;
  }
  cmd.requant.output_zero_point = raw.zp_out;
  cmd.requant.clamp_min = raw.clamp_min;
  cmd.requant.clamp_max = raw.clamp_max;
  cmd.lut = raw.lut();
  cmd.lut_fields = {raw.lut_slot(), raw.lut_in_bits(), raw.lut_entry_bits()};
  cmd.out_layout = arch::OutLayoutOf(raw);
  if (raw.slope()) cmd.slope = golden::DecodeSlopeRegisters(raw.slope_regs);  // legal: validated
  cmd.slope_per_channel = raw.slope_per_channel();
  cmd.rq_words_per_tile = raw.rq_words_per_tile();
  decision.cycles = cmd.timing.E();
  return decision;
}

}  // namespace qacc::model
