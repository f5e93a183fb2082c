// The monitor-side faults of the checker's self-check (docs/cosim.md "Self-check"): what the
// scoreboard sees of one RTL cycle is perturbed once, so that a run with the fault must fail. The
// stimulus fault (start-lost) and the model fault (requant-latency) are applied where the stimulus
// and the model are made; this class has the ones on the monitors.
#ifndef QACC_SIM_COSIM_FAULT_INJECTOR_H_
#define QACC_SIM_COSIM_FAULT_INJECTOR_H_

#include "sim/cosim/cosim.h"
#include "sim/cosim/dut.h"

namespace qacc::cosim {

class FaultInjector {
 public:
  FaultInjector(Fault fault, int rows, int cols) : fault_(fault), rows_(rows), cols_(cols) {}

  // Applies the fault to the sample of one cycle (cycles in order), once.
  void Apply(RtlSample& sample);

 private:
  Fault fault_;
  int rows_, cols_;
  bool injected_ = false;
  bool delayed_ = false;  // a beat held back one cycle (mac-late)
  BeatSample delayed_beat_;
};

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_FAULT_INJECTOR_H_
