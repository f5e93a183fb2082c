// What the SystemC unit modules (mac_array_tlm.h, requant_tlm.h, out_writer_tlm.h) share: the
// transactions on the sc_fifo channels between them and the clock they time their beats with.
//
// The channels carry one beat each, tagged with the command it belongs to (its GemmEngine: the
// decoded command-static fields of docs/architecture.md 8 and the unit models). A unit reads a beat
// in the cycle it was emitted and emits its own result at input cycle + its latency; the hardware
// has no back-pressure, so a full channel is a model error, never a stall (see WriteOrReport).
#ifndef QACC_MODEL_UNIT_TLM_H_
#define QACC_MODEL_UNIT_TLM_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <systemc>

#include "model/beats.h"
#include "model/gemm_engine.h"

namespace qacc::model {

// A MAC array output beat on its way to the requant unit.
struct MacTransfer {
  MacBeat beat;
  std::shared_ptr<const GemmEngine> command;
};

// A requant output beat on its way to the out writer.
struct RequantTransfer {
  RequantBeat beat;
  std::shared_ptr<const GemmEngine> command;
};

// sc_fifo<T> prints its contents with operator<< (sc_object::print / dump).
std::ostream& operator<<(std::ostream& os, const MacTransfer& transfer);
std::ostream& operator<<(std::ostream& os, const RequantTransfer& transfer);

// Cycle n of the clock spans [n * period, (n + 1) * period), as in QaccTlm.
class CycleClock {
 public:
  explicit CycleClock(const sc_core::sc_time& period) : period_(period) {}

  sc_core::sc_time TimeOfCycle(int64_t cycle) const { return period_ * static_cast<double>(cycle); }
  // Suspends the calling thread until the start of `cycle`. A cycle already past is a timing error
  // of the model (a beat would be late): reported with SC_REPORT_ERROR naming `unit`.
  void WaitUntil(int64_t cycle, const char* unit) const;

 private:
  sc_core::sc_time period_;
};

// Writes `transfer` into an output channel without blocking; a full channel (a unit that would
// stall) is reported with SC_REPORT_ERROR naming `unit`.
template <typename Transfer>
void WriteOrReport(sc_core::sc_fifo_out<Transfer>& port, const Transfer& transfer,
                   const char* unit) {
  if (!port->nb_write(transfer)) {
    SC_REPORT_ERROR(unit, ("output channel full at beat of cycle " +
                           std::to_string(transfer.beat.cycle) + ": the next unit fell behind")
                              .c_str());
  }
}

}  // namespace qacc::model

#endif  // QACC_MODEL_UNIT_TLM_H_
