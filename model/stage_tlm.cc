#include "model/stage_tlm.h"

namespace qacc::model {

StageTlm::StageTlm(sc_core::sc_module_name name, int64_t latency, Select select)
    : sc_core::sc_module(name),
      beat_in("beat_in"),
      beat_out("beat_out"),
      monitor("monitor"),
      latency_(latency),
      select_(select) {
  beat_in.bind(*this);
}

void StageTlm::put(const RowTile& in) {
  const BeatStageModel* unit = select_(*in.command);
  if (unit == nullptr) {  // the command does not use the unit: the tile passes on
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
    beat.known_lanes = unit->ComputeBeat(in.command->timing().TileNb(in.tile), row.known_lanes,
                                         row.lanes.data(), beat.lanes.data());
  }
  monitor.write(out);
  beat_out->put(out);
}

}  // namespace qacc::model
