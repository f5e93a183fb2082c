// The LUT unit (unit 4, docs/lut.md 10.4) as plain C++: C lanes, one per output column. One requant
// output beat (C codes) -> one LUT output beat (C entries): lane c reads the entry at the low
// LUT_IN_BITS bits of its code in slot LUT_SLOT of the table SRAM, zero-extended from
// LUT_ENTRY_BITS (golden::LutRead). No timing: the SystemC shell emits the result L_lut cycles
// after the input beat.
#ifndef QACC_MODEL_LUT_UNIT_MODEL_H_
#define QACC_MODEL_LUT_UNIT_MODEL_H_

#include <cstdint>

#include "golden/lut_unit.h"
#include "model/beat_stage_model.h"
#include "model/srams.h"

namespace qacc::model {

// Holds the command's lookup fields (legal: validated at fetch) and a reference to the SRAMs:
// `srams` must outlive the model, and the command's slot must not change while it runs (a LOAD into
// it is a race, lut.md 10.1).
class LutUnitModel : public BeatStageModel {
 public:
  LutUnitModel(int cols, const golden::LutFields& fields, const Srams& srams);

  // One beat: `in` (C lanes, a requant output beat) -> `out` (C lanes, entries).
  uint64_t ComputeBeat(int64_t nb, uint64_t known_lanes, const int32_t* in,
                       int32_t* out) const override;

 private:
  int cols_;
  golden::LutFields fields_;
  const Srams& srams_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_LUT_UNIT_MODEL_H_
