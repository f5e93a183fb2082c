// SystemC TLM-2.0 shell of the accelerator: a loosely-timed target on the register map of
// docs/architecture.md section 3. The behaviour is AccelState (plain C++); this module only decodes
// generic payloads, turns their time into bus cycles, annotates the APB timing, drives irq and
// starts the unit modules that simulate every command's beats.
//
// Timing. Cycle n of the clock spans [n * period, (n + 1) * period). A transaction arriving at
// local time t = sc_time_stamp() + delay starts its setup phase in cycle s = ceil(t / period) and
// completes at the end of cycle s + 1 (registers, SRAM writes) or s + 2 (SRAM reads, one wait
// state); the returned delay points at that edge. A START write completing in cycle w launches the
// command at cycle w + 1 (its cycle 0), so BUSY holds in cycles w+1 .. w+E and DONE/irq rise at the
// start of cycle w+1+E.
//
// Structure (docs/architecture.md 2). The controller part (register map, b_transport, irq,
// AccelState) is here; at every launch it starts the child `units` (UnitPipeline: the feed
// controller, MAC array, requant and out writer modules), which simulate the command's beats when a
// consumer asks for them (docs/model.md "Simulated units"). AccelState's results and register
// values use the closed-form timing; the units derive theirs on their own.
#ifndef QACC_MODEL_QACC_TLM_H_
#define QACC_MODEL_QACC_TLM_H_

#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <deque>
#include <systemc>
#include <tlm>

#include "model/accel_state.h"
#include "model/arch.h"
#include "model/unit_pipeline.h"
#include "model/unit_tlm.h"

namespace qacc::model {

class QaccTlm : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<QaccTlm> target_socket;
  sc_core::sc_out<bool> irq;  // STATUS.DONE & CTRL.IRQ_EN, level

  // `config` gives every hardware parameter (the configs/*.json the RTL build also reads);
  // `clock_period` is the period of clk_i.
  // `latencies`: the unit modules' (the spec's by default; a test sets a wrong one).
  QaccTlm(sc_core::sc_module_name name, const arch::ArchConfig& config,
          sc_core::sc_time clock_period = sc_core::sc_time(1, sc_core::SC_NS),
          const UnitLatencies& latencies = {});

  const sc_core::sc_time& clock_period() const { return clock_period_; }
  // The clock cycle that contains time `time` (rounded up to the next clock edge when between
  // edges).
  int64_t CycleAt(const sc_core::sc_time& time) const;
  sc_core::sc_time TimeOfCycle(int64_t cycle) const {
    return clock_period_ * static_cast<double>(cycle);
  }

  AccelState& state() { return state_; }
  const AccelState& state() const { return state_; }

  // The simulated beats of the last launched command (valid until the next launch; the initiator
  // must not write the SRAMs before the command's done cycle while it takes them).
  UnitPipeline& units() { return units_; }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  void OnLaunch(const Launch& launch);
  void UpdateIrq();

  arch::ArchConfig config_;
  sc_core::sc_time clock_period_;
  AccelState state_;
  sc_core::sc_event irq_update_event_;
  UnitPipeline units_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_QACC_TLM_H_
