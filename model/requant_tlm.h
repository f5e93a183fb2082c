// SystemC model of the requant unit (unit 2, docs/architecture.md 5.2): a pipeline of Lq stages
// taking one row beat (C lanes) per cycle. Each row leaves Lq cycles after it entered, computed by
// the plain C++ RequantUnitModel; the tile's bias and rq words are read once, with its first row,
// and held for its R rows.
#ifndef QACC_MODEL_REQUANT_TLM_H_
#define QACC_MODEL_REQUANT_TLM_H_

#include <systemc>
#include <tlm>

#include "model/unit_tlm.h"

namespace qacc::model {

class RequantTlm : public sc_core::sc_module, public tlm::tlm_blocking_put_if<RowTile> {
 public:
  sc_core::sc_export<tlm::tlm_blocking_put_if<RowTile>> beat_in;  // from the MAC array
  sc_core::sc_port<tlm::tlm_blocking_put_if<RowTile>> beat_out;   // to the out writer
  tlm::tlm_analysis_port<RowTile> monitor;

  RequantTlm(sc_core::sc_module_name name, const UnitLatencies& latencies);

  void put(const RowTile& in) override;

 private:
  int64_t latency_;
  IssueRateCheck input_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_REQUANT_TLM_H_
