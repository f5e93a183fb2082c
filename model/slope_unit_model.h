// The slope stage (unit 7, docs/requant.md 6.2) as plain C++: C lanes, one per output column. One
// requant output beat (C codes q) -> one slope output beat: lane c is golden::SlopeStage(q, ZP_OUT,
// the lane's parameters), the registers' or, with SLOPE_PER_CHANNEL (6.3), the registers' with the
// NEG side of the tile's slope word in the rq SRAM. No timing: the SystemC shell emits the result
// L_slope cycles after the input beat.
#ifndef QACC_MODEL_SLOPE_UNIT_MODEL_H_
#define QACC_MODEL_SLOPE_UNIT_MODEL_H_

#include <cstdint>

#include "golden/slope_stage.h"
#include "model/beat_stage_model.h"
#include "model/command.h"
#include "model/srams.h"

namespace qacc::model {

// Holds the command's slope parameters (legal: validated at fetch), its input zero point and, for
// SLOPE_PER_CHANNEL, a reference to the SRAMs (`srams` must outlive the model; the rq words must
// not change while the command runs).
class SlopeUnitModel : public BeatStageModel {
 public:
  SlopeUnitModel(int cols, const DecodedCommand& command, const Srams& srams);

  // One beat of column tile nb: `in` (C lanes, a requant output beat) -> `out` (C lanes, codes). A
  // lane whose slope word holds no legal NEG side (not checked at fetch) becomes unknown.
  uint64_t ComputeBeat(int64_t nb, uint64_t known_lanes, const int32_t* in,
                       int32_t* out) const override;

 private:
  int cols_;
  golden::SlopeStageParams params_;
  int32_t input_zero_point_;
  bool per_channel_;
  uint32_t first_word_;  // the slope word of tile 0 (requant.md 6.3)
  int64_t words_per_tile_;
  const Srams& srams_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_SLOPE_UNIT_MODEL_H_
