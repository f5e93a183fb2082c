// SystemC model of the LUT unit (unit 4, docs/lut.md 10.4): a pipeline of L_lut stages between the
// requant unit and the out writer, taking one row beat (C codes) per cycle. With ACT = LUT each row
// leaves L_lut cycles after it entered, its lanes looked up by the plain C++ LutUnitModel; without,
// the stage is bypassed: requant's tile passes on unchanged, and the unit has no beats.
#ifndef QACC_MODEL_LUT_TLM_H_
#define QACC_MODEL_LUT_TLM_H_

#include <cstdint>
#include <systemc>
#include <tlm>

#include "model/unit_tlm.h"

namespace qacc::model {

class LutTlm : public sc_core::sc_module, public tlm::tlm_blocking_put_if<RowTile> {
 public:
  sc_core::sc_export<tlm::tlm_blocking_put_if<RowTile>> beat_in;  // from the requant unit
  sc_core::sc_port<tlm::tlm_blocking_put_if<RowTile>> beat_out;   // to the out writer
  tlm::tlm_analysis_port<RowTile> monitor;

  LutTlm(sc_core::sc_module_name name, const UnitLatencies& latencies);

  void put(const RowTile& in) override;

  // Input beats taken since the last Clear (its PERF_LUT_BUSY events).
  int64_t input_beats() const { return input_beats_; }
  void Clear() { input_beats_ = 0; }

 private:
  int64_t latency_;
  int64_t input_beats_ = 0;
  IssueRateCheck input_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_LUT_TLM_H_
