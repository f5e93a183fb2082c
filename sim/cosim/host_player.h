// The one player of a host program (sim::Program::ops): it walks the ops in order and hands each to
// the run that plays it. Lockstep and RTL-only runs (lockstep.cc's Engine) and the model-only run
// (model_run.cc) implement the steps; what an op means is decided here once.
#ifndef QACC_SIM_COSIM_HOST_PLAYER_H_
#define QACC_SIM_COSIM_HOST_PLAYER_H_

#include <cstdint>

#include "sim/testgen/program.h"

namespace qacc::cosim {

class HostSteps {
 public:
  virtual ~HostSteps() = default;
  // One APB access (kWrite, kStart, kRead, kReadOut).
  virtual void Transfer(const sim::HostOp& op) = 0;
  // Idle bus until the command or program in flight has completed.
  virtual void WaitDone() = 0;
  virtual void Idle(int64_t cycles) = 0;
  // The output read back for job `job` against golden.
  virtual void CheckOutput(int job) = 0;
  // Every SRAM, whole (a backdoor: no bus cycles).
  virtual void CheckSrams() = 0;
  // Backdoor bytes into the external memory.
  virtual void ExtWrite(const sim::ExtBlob& blob) = 0;
  // After program command `command` ended: memories and outcome against the golden executor.
  virtual void CheckProgram(int command) = 0;
};

// Plays `program`'s ops on `steps`, in order.
void PlayHostProgram(const sim::Program& program, HostSteps& steps);

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_HOST_PLAYER_H_
