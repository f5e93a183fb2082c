#include "model/beats.h"

#include <stdexcept>

#include "model/out_writer_model.h"

namespace qacc::model {

MacInRun MakeMacInRun(const DecodedCommand& cmd, int64_t tile, int64_t launch_cycle) {
  return {tile, launch_cycle + cmd.timing.I(tile, 0), cmd.timing.k};
}

RowBeat MakeRowBeat(arch::BeatUnit unit, const DecodedCommand& cmd, const TileResult& tile, int row,
                    int64_t launch_cycle) {
  const arch::Timing& timing = cmd.timing;
  const size_t cols = size_t(timing.cols);
  RowBeat beat;
  beat.cycle = launch_cycle + timing.Beat(unit, tile.tile, row);
  beat.tile = tile.tile;
  beat.row = row;
  beat.last = row == timing.rows - 1;
  // The lanes of each beat unit in a computed tile (a new stage unit adds its case).
  const std::vector<int32_t>* lanes = nullptr;
  switch (unit) {
    case arch::BeatUnit::kMac:
      lanes = &tile.acc;
      break;
    case arch::BeatUnit::kRequant:
      lanes = &tile.out;
      beat.known_lanes = tile.known_lanes;
      break;
    case arch::BeatUnit::kLut:
      lanes = &tile.lut;
      beat.known_lanes = tile.stage_known_lanes;
      break;
    case arch::BeatUnit::kSlope:
      lanes = &tile.slope;
      beat.known_lanes = tile.stage_known_lanes;
      break;
  }
  if (lanes == nullptr || lanes->empty())
    throw std::logic_error("MakeRowBeat: a beat unit without lanes in TileResult");
  beat.lanes.assign(lanes->begin() + ptrdiff_t(row * cols),
                    lanes->begin() + ptrdiff_t((row + 1) * cols));
  return beat;
}

// Section 6.3, packed by the out writer's model (out_writer_model.h).
OutWriteBeat MakeOutWriteBeat(const DecodedCommand& cmd, const TileResult& tile, int row,
                              int64_t launch_cycle) {
  if (row >= tile.m_valid)
    throw std::invalid_argument("MakeOutWriteBeat: row >= m_valid is not written");
  OutWriteBeat beat;
  beat.cycle = launch_cycle + cmd.timing.W(tile.tile, row);
  beat.tile = tile.tile;
  beat.row = row;
  PackOutRow(cmd, tile.tile, row, &tile.written()[size_t(row) * cmd.timing.cols],
             tile.written_known_lanes(), beat);
  return beat;
}

}  // namespace qacc::model
