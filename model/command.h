// A launched command: the CMD_* registers copied at launch (arch::Command), validated by the spec's
// checks in their order (arch::ValidateCommand, section 4) and decoded into the typed values the
// datapath uses.
#ifndef QACC_MODEL_COMMAND_H_
#define QACC_MODEL_COMMAND_H_

#include <cstdint>
#include <optional>

#include "golden/lut_unit.h"
#include "golden/requant.h"
#include "golden/slope_stage.h"
#include "model/arch.h"

namespace qacc::model {

// The fields of a valid command, decoded (section 3.2 field extraction, section 4 derived values).
struct DecodedCommand {
  arch::Command raw;
  arch::Timing timing;  // R, C, M, N, K and every cycle formula of section 7
  uint32_t a_base = 0, b_base = 0, bias_base = 0, rq_base = 0, out_base = 0;  // SRAM word indices
  int32_t a_zp = 0, b_zp = 0;                                                 // -128..255
  bool a_unsigned = false, b_unsigned = false;
  bool per_channel = false, out_raw = false, bias_en = false;
  // Per-tensor multiplier/shift (from CMD_MULT/SHIFT) plus the command-wide rounding, output zero
  // point and clamp. With per_channel the multiplier and shift are replaced lane by lane from the
  // rq SRAM.
  golden::RequantParams requant;
  // ACT = LUT (lut.md 10.4): the LUT stage's fields (legal), and the out layout they give.
  bool lut = false;
  golden::LutFields lut_fields;
  // ACT = SLOPE (requant.md 6.2): the slope stage's parameters, from the registers at the start.
  std::optional<golden::SlopeStageParams> slope;
  // SLOPE_PER_CHANNEL (requant.md 6.3): the NEG side of lane c of tile nb from rq word
  // rq_base + rq_words_per_tile * nb + per_channel.
  bool slope_per_channel = false;
  int64_t rq_words_per_tile = 0;
  arch::OutLayout out_layout = arch::OutLayout::kInt8;
};

// What launching a command yields: an error code and, when it is kNone, the decoded command.
// `cycles` is E (section 7), or arch::kErrorCycles for a rejected command: the cycle DONE becomes
// visible and PERF_CYCLES.
struct LaunchDecision {
  arch::ErrCode error = arch::ErrCode::kNone;
  int64_t cycles = 0;
  DecodedCommand command;  // meaningful only when error == kNone
};

LaunchDecision DecodeCommand(const arch::ArchConfig& config, const arch::Command& raw);

}  // namespace qacc::model

#endif  // QACC_MODEL_COMMAND_H_
