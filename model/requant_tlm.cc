#include "model/requant_tlm.h"

namespace qacc::model {

RequantTlm::RequantTlm(sc_core::sc_module_name name, const sc_core::sc_time& clock_period)
    : sc_core::sc_module(name),
      beat_in("beat_in"),
      beat_out("beat_out"),
      monitor("monitor"),
      clock_(clock_period) {
  SC_HAS_PROCESS(RequantTlm);
  SC_THREAD(Run);
}

void RequantTlm::Run() {
  for (;;) {
    const MacTransfer in = beat_in->read();
    const GemmEngine& command = *in.command;
    if (in.command != inputs_command_ || in.beat.tile != inputs_tile_) {
      inputs_ = command.requant_unit().ReadLaneInputs(command.timing().TileNb(in.beat.tile));
      inputs_command_ = in.command;
      inputs_tile_ = in.beat.tile;
    }
    RequantTransfer transfer;
    transfer.command = in.command;
    RequantBeat& beat = transfer.beat;
    beat.cycle = in.beat.cycle + arch::kRequantLatency;
    beat.tile = in.beat.tile;
    beat.row = in.beat.row;
    beat.last = in.beat.last;
    beat.data.resize(in.beat.acc.size());
    beat.known_lanes =
        command.requant_unit().ComputeBeat(inputs_, in.beat.acc.data(), beat.data.data());
    clock_.WaitUntil(beat.cycle, name());
    monitor.write(beat);
    WriteOrReport(beat_out, transfer, name());
  }
}

}  // namespace qacc::model
