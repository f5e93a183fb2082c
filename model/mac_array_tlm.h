// SystemC shell of the MAC array (unit 1): for each command it is started with, computes tile t's
// accumulators with the plain C++ MacArrayModel (through the command's GemmEngine) and emits row i
// at the start of cycle launch + O(t,i) (docs/architecture.md 7) on `monitor` and, tagged with its
// command, into `beat_out` towards the requant unit. A tile is computed when its first beat is due
// (the operand SRAMs cannot change while BUSY), so at most one tile is held.
#ifndef QACC_MODEL_MAC_ARRAY_TLM_H_
#define QACC_MODEL_MAC_ARRAY_TLM_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <systemc>
#include <tlm>

#include "model/beats.h"
#include "model/gemm_engine.h"
#include "model/unit_tlm.h"

namespace qacc::model {

class MacArrayTlm : public sc_core::sc_module {
 public:
  sc_core::sc_fifo_out<MacTransfer> beat_out;  // to the requant unit
  tlm::tlm_analysis_port<MacBeat> monitor;     // every output beat, at the start of its cycle

  MacArrayTlm(sc_core::sc_module_name name, const sc_core::sc_time& clock_period);

  // Queues a valid command launched at absolute cycle `launch_cycle` (its cycle 0). Commands run
  // one after the other; their beats never overlap (a command ends before the next starts).
  void Start(std::shared_ptr<const GemmEngine> command, int64_t launch_cycle);

 private:
  void Run();

  CycleClock clock_;
  std::deque<std::pair<std::shared_ptr<const GemmEngine>, int64_t>> commands_;
  sc_core::sc_event start_event_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_MAC_ARRAY_TLM_H_
