// SystemC shell of the requant unit (unit 2): reads each MAC array beat from `beat_in` in the cycle
// it leaves the array, computes it with the plain C++ RequantUnitModel of its command (the bias and
// rq words of the tile are read with the tile's first beat and held for its R beats) and emits the
// result Lq cycles later, at Q(t,i) = O(t,i) + Lq (docs/architecture.md 7), on `monitor` and into
// `beat_out` towards the out writer. The channel from the MAC array holds the beats in the Lq
// pipeline stages.
#ifndef QACC_MODEL_REQUANT_TLM_H_
#define QACC_MODEL_REQUANT_TLM_H_

#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>

#include "model/beats.h"
#include "model/requant_unit_model.h"
#include "model/unit_tlm.h"

namespace qacc::model {

class RequantTlm : public sc_core::sc_module {
 public:
  sc_core::sc_fifo_in<MacTransfer> beat_in;        // from the MAC array
  sc_core::sc_fifo_out<RequantTransfer> beat_out;  // to the out writer
  tlm::tlm_analysis_port<RequantBeat> monitor;     // every output beat, at the start of its cycle

  RequantTlm(sc_core::sc_module_name name, const sc_core::sc_time& clock_period);

 private:
  void Run();

  CycleClock clock_;
  // The lane inputs of the tile in flight and the command and tile they were read for.
  std::shared_ptr<const GemmEngine> inputs_command_;
  int64_t inputs_tile_ = -1;
  RequantLaneInputs inputs_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_REQUANT_TLM_H_
