// SystemC TLM-2.0 shell of the accelerator: a loosely-timed target on the register map of
// docs/architecture.md section 3. The behaviour is AccelState (plain C++); this module only decodes
// generic payloads, turns their time into bus cycles, annotates the APB timing, drives irq and, on
// request, runs the unit modules that emit every command's beats at their simulated times.
//
// Timing. Cycle n of the clock spans [n * period, (n + 1) * period). A transaction arriving at
// local time t = sc_time_stamp() + delay starts its setup phase in cycle s = ceil(t / period) and
// completes at the end of cycle s + 1 (registers, SRAM writes) or s + 2 (SRAM reads, one wait
// state); the returned delay points at that edge. A START write completing in cycle w launches the
// command at cycle w + 1 (its cycle 0), so BUSY holds in cycles w+1 .. w+E and DONE/irq rise at the
// start of cycle w+1+E.
//
// Structure (docs/architecture.md 2). Children, each a thin SystemC shell around a plain C++ unit
// model of the command's GemmEngine: mac_array (MacArrayTlm), requant (RequantTlm) and out_writer
// (OutWriterTlm).
//
//   mac_array --sc_fifo--> requant --sc_fifo--> out_writer
//     | monitor, O(t,i)      | monitor, Q(t,i)    | monitor, W(t,i)
//     +----------------------+--------------------+--> QaccTlm --> BeatObserver
//
// The data path between units is an sc_fifo of beats tagged with their command (a unit reads a beat
// in the cycle it is emitted and emits its own Lq or Lw cycles later). Each unit's output also goes
// to a tlm_analysis_port `monitor`; QaccTlm subscribes to the three ports and hands the beats to
// the BeatObserver one delta cycle later, in the fixed order MAC, requant, out write, done within a
// cycle. The controller part (register map, b_transport, irq, AccelState, the done event) stays
// here.
#ifndef QACC_MODEL_QACC_TLM_H_
#define QACC_MODEL_QACC_TLM_H_

#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <deque>
#include <systemc>
#include <tlm>

#include "model/accel_state.h"
#include "model/arch.h"
#include "model/beat_predictor.h"
#include "model/beats.h"
#include "model/mac_array_tlm.h"
#include "model/out_writer_tlm.h"
#include "model/requant_tlm.h"
#include "model/unit_tlm.h"

namespace qacc::model {

// Receives the beats of every command at their simulated time (sc_time_stamp() is the start of the
// beat's cycle), as the unit modules emit them; they equal BeatPredictor's stream. Within one cycle
// the calls come in the order MAC, requant, out write, done. Default implementations ignore the
// beat.
class BeatObserver {
 public:
  virtual ~BeatObserver() = default;
  virtual void OnMacBeat(const MacBeat& /*beat*/) {}
  virtual void OnRequantBeat(const RequantBeat& /*beat*/) {}
  virtual void OnOutWrite(const OutWriteBeat& /*beat*/) {}
  virtual void OnDone(int64_t /*cycle*/, arch::ErrCode /*error*/) {}
};

class QaccTlm : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<QaccTlm> target_socket;
  sc_core::sc_out<bool> irq;  // STATUS.DONE & CTRL.IRQ_EN, level

  // `config` gives every hardware parameter (the configs/*.json the RTL build also reads);
  // `clock_period` is the period of clk_i.
  QaccTlm(sc_core::sc_module_name name, const arch::ArchConfig& config,
          sc_core::sc_time clock_period = sc_core::sc_time(1, sc_core::SC_NS));

  const sc_core::sc_time& clock_period() const { return clock_period_; }
  // The clock cycle that contains time `time` (rounded up to the next clock edge when between
  // edges).
  int64_t CycleAt(const sc_core::sc_time& time) const;
  sc_core::sc_time TimeOfCycle(int64_t cycle) const {
    return clock_period_ * static_cast<double>(cycle);
  }

  AccelState& state() { return state_; }
  const AccelState& state() const { return state_; }

  // Sends the beats of every later command to `observer` at their cycles (nullptr: off). The unit
  // modules run only for commands launched with an observer set (AccelState has already produced
  // the results, the beats are their only output). With an observer, the initiator must not write
  // the SRAMs of the next command before the previous one's done time.
  void set_beat_observer(BeatObserver* observer) { observer_ = observer; }
  // Notified at the start of each command's cycle 0.
  const sc_core::sc_event& launch_event() const { return launch_event_; }

 private:
  // Queues what a unit's monitor port writes for Dispatch.
  template <typename Beat>
  class Tap : public tlm::tlm_analysis_if<Beat> {
   public:
    Tap(std::deque<Beat>& queue, sc_core::sc_event& event) : queue_(queue), event_(event) {}
    void write(const Beat& beat) override {
      queue_.push_back(beat);
      event_.notify(sc_core::SC_ZERO_TIME);
    }

   private:
    std::deque<Beat>& queue_;
    sc_core::sc_event& event_;
  };
  struct Done {
    int64_t cycle;
    arch::ErrCode error;
  };

  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  void OnLaunch(const Launch& launch);
  void UpdateIrq();
  void SignalDone();
  void Dispatch();

  arch::ArchConfig config_;
  sc_core::sc_time clock_period_;
  AccelState state_;
  BeatObserver* observer_ = nullptr;
  sc_core::sc_event launch_event_;
  sc_core::sc_event irq_update_event_;

  // The units and the channels between them (depth: the beats a unit can hold in its latency, with
  // margin; a full channel is reported, see unit_tlm.h).
  MacArrayTlm mac_array_;
  RequantTlm requant_;
  OutWriterTlm out_writer_;
  sc_core::sc_fifo<MacTransfer> mac_to_requant_;
  sc_core::sc_fifo<RequantTransfer> requant_to_out_;

  // Observer side: the done cycles still to signal, and the beats of the current cycle waiting for
  // Dispatch.
  std::deque<Done> pending_done_;
  sc_core::sc_event done_event_;
  std::deque<MacBeat> mac_beats_;
  std::deque<RequantBeat> requant_beats_;
  std::deque<OutWriteBeat> out_writes_;
  std::deque<Done> dones_;
  sc_core::sc_event dispatch_event_;
  Tap<MacBeat> mac_tap_{mac_beats_, dispatch_event_};
  Tap<RequantBeat> requant_tap_{requant_beats_, dispatch_event_};
  Tap<OutWriteBeat> out_tap_{out_writes_, dispatch_event_};
};

}  // namespace qacc::model

#endif  // QACC_MODEL_QACC_TLM_H_
