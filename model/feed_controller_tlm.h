// SystemC model of the controller's sequencing (docs/architecture.md 2, 6.1, 7): it decodes a
// launched command (Ls cycles), walks its tiles in order (mb outer, nb inner: t = mb * NB + nb),
// reads each tile's K beats from the A/B SRAMs on consecutive cycles (data on the array input Lr
// cycles after the address), and feeds them to the MAC array, which moves a tile later while it
// would collide with the one before (no tile period is computed here: it follows from the array).
// The command is done `status` cycles after the out writer reports that its last row left.
//
// Pull-driven (loosely timed): the controller feeds only the tiles a consumer asked for with
// Request(c), i.e. those whose first beat can come in or before cycle c, then notifies
// progress_event(). The units downstream complete each tile inside the Feed call, so once a request
// is served every beat due by c has been produced.
#ifndef QACC_MODEL_FEED_CONTROLLER_TLM_H_
#define QACC_MODEL_FEED_CONTROLLER_TLM_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <systemc>
#include <tlm>

#include "model/unit_tlm.h"

namespace qacc::model {

class FeedControllerTlm : public sc_core::sc_module, public CompletionIf {
 public:
  sc_core::sc_port<FeedIf> feed_out;          // to the MAC array
  sc_core::sc_export<CompletionIf> complete_in;  // from the out writer
  tlm::tlm_analysis_port<MacInRun> monitor;   // every tile's input beats, with their cycles

  FeedControllerTlm(sc_core::sc_module_name name, const UnitLatencies& latencies);

  // Starts a command launched in `launch_cycle` (its cycle 0); `command` null: rejected by
  // validation, done after the error path without a beat.
  void Start(std::shared_ptr<const GemmEngine> command, int64_t launch_cycle);
  // Asks for every tile whose first input beat can come in or before `cycle`.
  void Request(int64_t cycle);
  const sc_core::sc_event& progress_event() const { return progress_event_; }

  // Every beat due in or before this cycle has been produced.
  int64_t covered_until() const { return covered_until_; }
  bool finished() const { return finished_; }
  int64_t done_cycle() const { return done_cycle_; }
  int64_t mac_busy() const { return mac_busy_; }      // input beats fed
  int64_t feed_stall() const { return feed_stall_; }  // cycles the feed waited between tiles

  void CommandComplete(int64_t last_row_cycle) override;

 private:
  void Run();
  void FeedNextTile();

  UnitLatencies latencies_;
  std::shared_ptr<const GemmEngine> command_;
  int64_t mb_ = 0, nb_ = 0;
  bool all_fed_ = true;
  int64_t next_first_ = 0;  // the cycle the next tile's first beat could be on the array input
  int64_t horizon_ = std::numeric_limits<int64_t>::min();
  int64_t covered_until_ = std::numeric_limits<int64_t>::max();
  bool finished_ = true;
  int64_t done_cycle_ = 0;
  int64_t mac_busy_ = 0, feed_stall_ = 0;
  sc_core::sc_event wake_event_;
  sc_core::sc_event progress_event_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_FEED_CONTROLLER_TLM_H_
