#include "model/out_writer_tlm.h"

namespace qacc::model {

OutWriterTlm::OutWriterTlm(sc_core::sc_module_name name, const sc_core::sc_time& clock_period)
    : sc_core::sc_module(name), beat_in("beat_in"), monitor("monitor"), clock_(clock_period) {
  SC_HAS_PROCESS(OutWriterTlm);
  SC_THREAD(Run);
}

void OutWriterTlm::Run() {
  for (;;) {
    const RequantTransfer in = beat_in->read();
    if (in.command != command_) {
      command_ = in.command;
      writer_.emplace(command_->command());
    }
    if (!writer_->Writes(in.beat.tile, in.beat.row)) continue;
    OutWriteBeat write = writer_->Write(in.beat);
    write.cycle = in.beat.cycle + arch::kOutWriteLatency;
    clock_.WaitUntil(write.cycle, name());
    monitor.write(write);
  }
}

}  // namespace qacc::model
