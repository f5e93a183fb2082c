#include "model/beats.h"

#include <stdexcept>

namespace qacc::model {

MacBeat MakeMacBeat(const DecodedCommand& cmd, const TileResult& tile, int row,
                    int64_t launch_cycle) {
  const arch::Timing& timing = cmd.timing;
  const int cols = static_cast<int>(timing.cols);
  MacBeat beat;
  beat.cycle = launch_cycle + timing.O(tile.tile, row);
  beat.tile = tile.tile;
  beat.row = row;
  beat.last = row == timing.rows - 1;
  beat.acc.assign(tile.acc.begin() + size_t(row) * cols, tile.acc.begin() + size_t(row + 1) * cols);
  return beat;
}

RequantBeat MakeRequantBeat(const DecodedCommand& cmd, const TileResult& tile, int row,
                            int64_t launch_cycle) {
  const arch::Timing& timing = cmd.timing;
  const int cols = static_cast<int>(timing.cols);
  RequantBeat beat;
  beat.cycle = launch_cycle + timing.Q(tile.tile, row);
  beat.tile = tile.tile;
  beat.row = row;
  beat.last = row == timing.rows - 1;
  beat.data.assign(tile.out.begin() + size_t(row) * cols,
                   tile.out.begin() + size_t(row + 1) * cols);
  beat.known_lanes = tile.known_lanes;
  return beat;
}

// Section 6.3: entry e = t * R + i; int32 mode: word OUT_BASE + e, lane c in bytes 4c..4c+3; int8
// mode: word OUT_BASE + e / 4, lane c in byte (e mod 4) * C + c holding the low 8 bits of y. Lanes
// c >= n_valid: be = 0.
OutWriteBeat MakeOutWriteBeat(const DecodedCommand& cmd, const TileResult& tile, int row,
                              int64_t launch_cycle) {
  if (row >= tile.m_valid)
    throw std::invalid_argument("MakeOutWriteBeat: row >= m_valid is not written");
  const arch::Timing& timing = cmd.timing;
  const int cols = static_cast<int>(timing.cols);
  const int64_t entry = arch::OutEntry(tile.tile, row, timing.rows);
  OutWriteBeat beat;
  beat.cycle = launch_cycle + timing.W(tile.tile, row);
  beat.tile = tile.tile;
  beat.row = row;
  beat.addr = static_cast<uint32_t>(arch::OutWordAddr(cmd.out_base, entry, cmd.out_raw));
  const size_t word_bytes = size_t(4) * cols;
  beat.be.assign(word_bytes, 0);
  beat.data.assign(word_bytes, 0);
  beat.known.assign(word_bytes, 0);
  for (int c = 0; c < tile.n_valid; ++c) {
    const uint32_t value = static_cast<uint32_t>(tile.out[size_t(row) * cols + c]);
    const uint8_t known = (tile.known_lanes >> c) & 1u;
    const size_t first = static_cast<size_t>(arch::OutByteInWord(entry, c, cols, cmd.out_raw));
    const int bytes = cmd.out_raw ? 4 : 1;
    for (int j = 0; j < bytes; ++j) {
      beat.be[first + j] = 1;
      beat.data[first + j] = static_cast<uint8_t>(value >> (8 * j));
      beat.known[first + j] = known;
    }
  }
  return beat;
}

}  // namespace qacc::model
