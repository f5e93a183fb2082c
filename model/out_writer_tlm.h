// SystemC shell of the out writer (unit 3): reads each requant beat from `beat_in` in the cycle it
// leaves the requant unit and, for rows i < m_valid, emits the output SRAM write packed by the
// plain C++ OutWriterModel Lw cycles later, at W(t,i) = Q(t,i) + Lw (docs/architecture.md 7), on
// `monitor`. Padded rows are dropped. The output SRAM itself is written by AccelState at launch
// (its results are visible only from the done cycle, see accel_state.h); this module emits the
// write beats a monitor compares.
#ifndef QACC_MODEL_OUT_WRITER_TLM_H_
#define QACC_MODEL_OUT_WRITER_TLM_H_

#include <memory>
#include <optional>
#include <systemc>
#include <tlm>

#include "model/beats.h"
#include "model/out_writer_model.h"
#include "model/unit_tlm.h"

namespace qacc::model {

class OutWriterTlm : public sc_core::sc_module {
 public:
  sc_core::sc_fifo_in<RequantTransfer> beat_in;  // from the requant unit
  tlm::tlm_analysis_port<OutWriteBeat> monitor;  // every SRAM write, at the start of its cycle

  OutWriterTlm(sc_core::sc_module_name name, const sc_core::sc_time& clock_period);

 private:
  void Run();

  CycleClock clock_;
  std::shared_ptr<const GemmEngine> command_;  // the command `writer_` was built for
  std::optional<OutWriterModel> writer_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_OUT_WRITER_TLM_H_
