#include "model/feed_controller_tlm.h"

#include <utility>

namespace qacc::model {

FeedControllerTlm::FeedControllerTlm(sc_core::sc_module_name name, const UnitLatencies& latencies)
    : sc_core::sc_module(name),
      feed_out("feed_out"),
      complete_in("complete_in"),
      monitor("monitor"),
      latencies_(latencies) {
  complete_in.bind(*this);
  SC_HAS_PROCESS(FeedControllerTlm);
  SC_THREAD(Run);
}

void FeedControllerTlm::Start(std::shared_ptr<const GemmEngine> command, int64_t launch_cycle) {
  command_ = std::move(command);
  mb_ = nb_ = 0;
  mac_busy_ = feed_stall_ = 0;
  horizon_ = std::numeric_limits<int64_t>::min();
  if (!command_) {
    // Validation fails in the decode cycle; the error path sets DONE after it.
    all_fed_ = finished_ = true;
    covered_until_ = std::numeric_limits<int64_t>::max();
    done_cycle_ = launch_cycle + arch::kErrorCycles;
    return;
  }
  all_fed_ = finished_ = false;
  next_first_ = launch_cycle + latencies_.setup + latencies_.sram_read;
  covered_until_ = next_first_ - 1;
}

void FeedControllerTlm::Request(int64_t cycle) {
  if (cycle <= horizon_) return;
  horizon_ = cycle;
  wake_event_.notify(sc_core::SC_ZERO_TIME);
}

void FeedControllerTlm::Run() {
  for (;;) {
    while (all_fed_ || next_first_ > horizon_) sc_core::wait(wake_event_);
    while (!all_fed_ && next_first_ <= horizon_) FeedNextTile();
    covered_until_ = all_fed_ ? std::numeric_limits<int64_t>::max() : next_first_ - 1;
    progress_event_.notify();
  }
}

void FeedControllerTlm::FeedNextTile() {
  const arch::Timing& tiling = command_->timing();
  TileFeed feed;
  feed.command = command_;
  feed.tile = mb_ * tiling.NB() + nb_;
  feed.last_tile = mb_ == tiling.MB() - 1 && nb_ == tiling.NB() - 1;
  feed.first_cycle = next_first_;
  feed.beats = tiling.k;
  feed_out->Feed(feed);
  // The reads of a tile after the first wait while the array refuses it.
  if (feed.tile > 0) feed_stall_ += feed.first_cycle - next_first_;
  mac_busy_ += feed.beats;
  monitor.write(MacInRun{feed.tile, feed.first_cycle, feed.beats});
  next_first_ = feed.first_cycle + feed.beats;
  all_fed_ = feed.last_tile;
  if (++nb_ == tiling.NB()) {
    nb_ = 0;
    ++mb_;
  }
}

void FeedControllerTlm::CommandComplete(int64_t last_row_cycle) {
  done_cycle_ = last_row_cycle + latencies_.status;
  finished_ = true;
}

}  // namespace qacc::model
