#include "model/lut_tlm.h"

namespace qacc::model {

LutTlm::LutTlm(sc_core::sc_module_name name, const UnitLatencies& latencies)
    : sc_core::sc_module(name),
      beat_in("beat_in"),
      beat_out("beat_out"),
      monitor("monitor"),
      latency_(latencies.lut) {
  beat_in.bind(*this);
}

void LutTlm::put(const RowTile& in) {
  const LutUnitModel* lut = in.command->lut_unit();
  if (lut == nullptr) {  // ACT = NONE: the out writer takes the requant beats
    beat_out->put(in);
    return;
  }
  RowTile out;
  out.command = in.command;
  out.tile = in.tile;
  out.last_tile = in.last_tile;
  out.rows.resize(in.rows.size());
  for (size_t i = 0; i < in.rows.size(); ++i) {
    const RowBeat& row = in.rows[i];
    input_.Accept(row.cycle, name());
    ++input_beats_;
    RowBeat& beat = out.rows[i];
    beat.cycle = row.cycle + latency_;
    beat.tile = row.tile;
    beat.row = row.row;
    beat.last = row.last;
    beat.lanes.resize(row.lanes.size());
    beat.known_lanes = lut->ComputeBeat(row.known_lanes, row.lanes.data(), beat.lanes.data());
  }
  monitor.write(out);
  beat_out->put(out);
}

}  // namespace qacc::model
