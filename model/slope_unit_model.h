// The slope stage (unit 7, docs/requant.md 6.2) as plain C++: C lanes, one per output column. One
// requant output beat (C codes q) -> one slope output beat: lane c is golden::SlopeStage(q, ZP_OUT,
// the registers' parameters). No timing: the SystemC shell emits the result L_slope cycles after
// the input beat.
#ifndef QACC_MODEL_SLOPE_UNIT_MODEL_H_
#define QACC_MODEL_SLOPE_UNIT_MODEL_H_

#include <cstdint>

#include "golden/slope_stage.h"
#include "model/beat_stage_model.h"

namespace qacc::model {

// Holds the command's slope parameters (legal: validated at fetch) and its input zero point.
class SlopeUnitModel : public BeatStageModel {
 public:
  SlopeUnitModel(int cols, const golden::SlopeStageParams& params, int32_t input_zero_point);

  // One beat: `in` (C lanes, a requant output beat) -> `out` (C lanes, codes).
  uint64_t ComputeBeat(uint64_t known_lanes, const int32_t* in, int32_t* out) const override;

 private:
  int cols_;
  golden::SlopeStageParams params_;
  int32_t input_zero_point_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_SLOPE_UNIT_MODEL_H_
