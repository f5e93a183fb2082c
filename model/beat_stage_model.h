// What a stage unit after requant computes on one row beat (units.md 20): the LUT unit and the
// slope stage as plain C++, stepped beat by beat by their SystemC shell (stage_tlm.h) and tile by
// tile by GemmEngine.
#ifndef QACC_MODEL_BEAT_STAGE_MODEL_H_
#define QACC_MODEL_BEAT_STAGE_MODEL_H_

#include <cstdint>

namespace qacc::model {

class BeatStageModel {
 public:
  virtual ~BeatStageModel() = default;
  // One beat of column tile nb: `in` (C lanes, the beat before the stage) -> `out` (C lanes). A
  // lane outside `known_lanes` (its requant result undefined) gets 0 and stays unknown. Returns the
  // known lanes: known_lanes, less those whose stage parameters the spec leaves undefined.
  virtual uint64_t ComputeBeat(int64_t nb, uint64_t known_lanes, const int32_t* in,
                               int32_t* out) const = 0;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_BEAT_STAGE_MODEL_H_
