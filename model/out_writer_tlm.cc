#include "model/out_writer_tlm.h"

namespace qacc::model {

OutWriterTlm::OutWriterTlm(sc_core::sc_module_name name, const UnitLatencies& latencies)
    : sc_core::sc_module(name),
      beat_in("beat_in"),
      complete_out("complete_out"),
      monitor("monitor"),
      latency_(latencies.out_write) {
  beat_in.bind(*this);
}

void OutWriterTlm::put(const RowTile& in) {
  if (in.command != command_) {
    command_ = in.command;
    writer_.emplace(command_->command());
  }
  OutWriteTile out;
  out.tile = in.tile;
  out.last_tile = in.last_tile;
  for (const RowBeat& row : in.rows) {
    input_.Accept(row.cycle, name());
    // A padded row passes the stage too, without a write.
    last_row_ = row.cycle + latency_;
    if (!writer_->Writes(row.tile, row.row)) continue;
    OutWriteBeat write = writer_->Write(row);
    write.cycle = last_row_;
    out.writes.push_back(std::move(write));
  }
  monitor.write(out);
  if (in.last_tile) complete_out->CommandComplete(last_row_);
}

}  // namespace qacc::model
