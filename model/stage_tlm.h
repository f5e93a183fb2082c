// SystemC model of a stage unit in the beat path after requant (units.md 20): the LUT unit (unit 4,
// docs/lut.md 10.4) and the slope stage (unit 7, docs/requant.md 6.2), each a pipeline of L stages
// taking one row beat (C lanes) per cycle. With its command's unit (ACT = LUT, ACT = SLOPE) each
// row leaves L cycles after it entered, its lanes computed by the unit's plain C++ model; without,
// the stage is bypassed: the tile passes on unchanged, and the unit has no beats.
#ifndef QACC_MODEL_STAGE_TLM_H_
#define QACC_MODEL_STAGE_TLM_H_

#include <cstdint>
#include <systemc>
#include <tlm>

#include "model/gemm_engine.h"
#include "model/unit_tlm.h"

namespace qacc::model {

class StageTlm : public sc_core::sc_module, public tlm::tlm_blocking_put_if<RowTile> {
 public:
  // The command's model of this unit, or null when the command does not use it.
  using Select = const BeatStageModel* (*)(const GemmEngine& command);

  sc_core::sc_export<tlm::tlm_blocking_put_if<RowTile>> beat_in;  // from the unit before
  sc_core::sc_port<tlm::tlm_blocking_put_if<RowTile>> beat_out;   // to the next one
  tlm::tlm_analysis_port<RowTile> monitor;

  StageTlm(sc_core::sc_module_name name, int64_t latency, Select select);

  void put(const RowTile& in) override;

  // Input beats taken since the last Clear (its PERF_<x>_BUSY events).
  int64_t input_beats() const { return input_beats_; }
  void Clear() { input_beats_ = 0; }

 private:
  int64_t latency_;
  Select select_;
  int64_t input_beats_ = 0;
  IssueRateCheck input_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_STAGE_TLM_H_
