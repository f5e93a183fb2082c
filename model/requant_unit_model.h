// The requant unit (unit 2, docs/architecture.md 5.2) as plain C++: C lanes, one per output column.
// One MAC array output beat (acc[C]) plus the tile's bias and rq SRAM words -> one requant output
// beat (out_data[C]): x = acc + bias (32-bit wrap), then golden::RequantizeAccumulator per lane, or
// x itself with OUT_RAW. No timing: the SystemC shell (requant_tlm.h) emits the result Lq cycles
// after the input beat.
#ifndef QACC_MODEL_REQUANT_UNIT_MODEL_H_
#define QACC_MODEL_REQUANT_UNIT_MODEL_H_

#include <cstdint>
#include <vector>

#include "golden/requant.h"
#include "model/command.h"
#include "model/srams.h"

namespace qacc::model {

// The per-lane inputs of one tile: its bias and rq SRAM words (read at O(t,0) - 1 and held for the
// R beats of the tile) merged with the command-static fields.
struct RequantLaneInputs {
  std::vector<int32_t> bias;                  // C lanes: bias[c], or 0 without BIAS_EN
  std::vector<golden::RequantParams> params;  // C lanes: CMD_* values, (mult, shift) per lane with
                                              // PER_CHANNEL
  // Bit c set when lane c has a defined result. Clear only with PER_CHANNEL (and not OUT_RAW), the
  // TFLite form and an rq shift outside -31..30 in lane c: the 8-bit field allows them, section 5.2
  // defines no result. The TPU-MLIR form's lanes take the low bits of the multiplier word and of
  // the rshift (requant.md 6.1), which the model does too: every lane of it is known.
  uint64_t known_lanes = 0;
  std::vector<uint8_t> legal_mult;  // C lanes: multiplier 0 or in [2^30, 2^31) (golden's range)
};

// Holds a copy of the command and a reference to the SRAMs: `srams` must outlive the model and its
// bias and rq contents must not change while tiles are computed (refused while BUSY).
class RequantUnitModel {
 public:
  RequantUnitModel(const arch::ArchConfig& config, const DecodedCommand& command,
                   const Srams& srams);

  int cols() const { return cols_; }

  // The bias word BIAS_BASE + nb and rq word RQ_BASE + nb of column block nb (section 6.1).
  RequantLaneInputs ReadLaneInputs(int64_t nb) const;

  // One beat: `acc` (C lanes, a MAC array output beat) -> `out` (C lanes, out_data). Lanes without
  // a defined result (inputs.known_lanes bit clear) get 0. Returns inputs.known_lanes.
  uint64_t ComputeBeat(const RequantLaneInputs& inputs, const int32_t* acc, int32_t* out) const;

 private:
  int cols_;
  DecodedCommand command_;
  const Srams& srams_;
};

// One requant lane, stages 2..4 of 5.2 on the biased accumulator x, for any multiplier: a legal one
// goes through golden::RequantizeAccumulator; an illegal one (per-channel values are not validated
// at launch, section 4) follows the formula of 5.2 with golden's MultiplyByQuantizedMultiplier*,
// then the zero point and the clamp. Precondition: params.shift in -31..30.
int32_t RequantLane(int32_t x, const golden::RequantParams& params, bool legal_mult);

}  // namespace qacc::model

#endif  // QACC_MODEL_REQUANT_UNIT_MODEL_H_
