#include "model/out_writer_model.h"

#include <stdexcept>

namespace qacc::model {

void PackOutRow(const DecodedCommand& cmd, int64_t tile, int row, const int32_t* data,
                uint64_t known_lanes, OutWriteBeat& beat) {
  const arch::Timing& timing = cmd.timing;
  const int cols = static_cast<int>(timing.cols);
  const int n_valid = static_cast<int>(timing.NValid(timing.TileNb(tile)));
  const int64_t entry = arch::OutEntry(tile, row, timing.rows);
  beat.addr = static_cast<uint32_t>(arch::OutWordAddr(cmd.out_base, entry, cmd.out_layout));
  const size_t word_bytes = size_t(4) * cols;
  beat.be.assign(word_bytes, 0);
  beat.data.assign(word_bytes, 0);
  beat.known.assign(word_bytes, 0);
  const int bytes = cmd.out_layout == arch::OutLayout::kInt32   ? 4
                    : cmd.out_layout == arch::OutLayout::kInt16 ? 2
                                                                : 1;
  for (int c = 0; c < n_valid; ++c) {
    const uint32_t value = static_cast<uint32_t>(data[c]);
    const uint8_t known = (known_lanes >> c) & 1u;
    const size_t first = static_cast<size_t>(arch::OutByteInWord(entry, c, cols, cmd.out_layout));
    for (int j = 0; j < bytes; ++j) {
      beat.be[first + j] = 1;
      beat.data[first + j] = static_cast<uint8_t>(value >> (8 * j));
      beat.known[first + j] = known;
    }
  }
}

OutWriteBeat OutWriterModel::Write(const RowBeat& beat) const {
  if (!Writes(beat.tile, beat.row))
    throw std::invalid_argument("OutWriterModel::Write: row >= m_valid is not written");
  OutWriteBeat write;
  write.tile = beat.tile;
  write.row = beat.row;
  PackOutRow(command_, beat.tile, beat.row, beat.lanes.data(), beat.known_lanes, write);
  return write;
}

}  // namespace qacc::model
