#include "model/requant_tlm.h"

namespace qacc::model {

RequantTlm::RequantTlm(sc_core::sc_module_name name, const UnitLatencies& latencies)
    : sc_core::sc_module(name),
      beat_in("beat_in"),
      beat_out("beat_out"),
      monitor("monitor"),
      latency_(latencies.requant) {
  beat_in.bind(*this);
}

void RequantTlm::put(const RowTile& in) {
  const GemmEngine& command = *in.command;
  const RequantLaneInputs inputs =
      command.requant_unit().ReadLaneInputs(command.timing().TileNb(in.tile));
  RowTile out;
  out.command = in.command;
  out.tile = in.tile;
  out.last_tile = in.last_tile;
  out.rows.resize(in.rows.size());
  for (size_t i = 0; i < in.rows.size(); ++i) {
    const RowBeat& row = in.rows[i];
    input_.Accept(row.cycle, name());
    RowBeat& beat = out.rows[i];
    beat.cycle = row.cycle + latency_;
    beat.tile = row.tile;
    beat.row = row.row;
    beat.last = row.last;
    beat.lanes.resize(row.lanes.size());
    beat.known_lanes =
        command.requant_unit().ComputeBeat(inputs, row.lanes.data(), beat.lanes.data());
  }
  monitor.write(out);
  beat_out->put(out);
}

}  // namespace qacc::model
