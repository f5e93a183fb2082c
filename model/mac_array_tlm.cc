#include "model/mac_array_tlm.h"

#include <utility>
#include <vector>

namespace qacc::model {

MacArrayTlm::MacArrayTlm(sc_core::sc_module_name name, const sc_core::sc_time& clock_period)
    : sc_core::sc_module(name), beat_out("beat_out"), monitor("monitor"), clock_(clock_period) {
  SC_HAS_PROCESS(MacArrayTlm);
  SC_THREAD(Run);
}

void MacArrayTlm::Start(std::shared_ptr<const GemmEngine> command, int64_t launch_cycle) {
  commands_.emplace_back(std::move(command), launch_cycle);
  start_event_.notify(sc_core::SC_ZERO_TIME);
}

void MacArrayTlm::Run() {
  std::vector<int32_t> acc;
  for (;;) {
    while (commands_.empty()) sc_core::wait(start_event_);
    const auto [command, launch_cycle] = commands_.front();
    commands_.pop_front();
    const arch::Timing& timing = command->timing();
    const int rows = command->rows(), cols = command->cols();
    for (int64_t t = 0; t < timing.T(); ++t) {
      command->mac_array().ComputeTile(t, acc);
      for (int row = 0; row < rows; ++row) {
        MacTransfer transfer;
        transfer.command = command;
        MacBeat& beat = transfer.beat;
        beat.cycle = launch_cycle + timing.O(t, row);
        beat.tile = t;
        beat.row = row;
        beat.last = row == rows - 1;
        beat.acc.assign(acc.begin() + size_t(row) * cols, acc.begin() + size_t(row + 1) * cols);
        clock_.WaitUntil(beat.cycle, name());
        monitor.write(beat);
        WriteOrReport(beat_out, transfer, name());
      }
    }
  }
}

}  // namespace qacc::model
