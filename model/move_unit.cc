#include "model/move_unit.h"

#include <algorithm>

namespace qacc::model {

MoveUnit::MoveUnit(const arch::ArchConfig& config, Srams& srams)
    : config_(config),
      srams_(srams),
      read_words_(config.rows / 4),
      tile_(size_t(config.rows) * size_t(config.cols)) {}

void MoveUnit::Start(const MoveDesc& desc, uint64_t start_cycle) {
  desc_ = desc;
  start_ = start_cycle;
  const uint64_t tiles = uint64_t{desc.count1} * desc.count2;
  end_ = start_ + tiles * period() - 1;
}

uint64_t MoveUnit::TileEntry(uint64_t tile) const {
  const uint64_t i1 = tile % desc_.count1, i2 = tile / desc_.count1;
  return desc_.src_base + i1 * desc_.src_stride1 + i2 * desc_.src_stride2;
}

uint64_t MoveUnit::TileWord(uint64_t tile) const {
  const uint64_t i1 = tile % desc_.count1, i2 = tile / desc_.count1;
  return desc_.dst_base + i1 * desc_.dst_stride1 + i2 * desc_.dst_stride2;
}

PortUse MoveUnit::PortsAt(uint64_t cycle) const {
  PortUse use;
  if (cycle < start_ || cycle > end_) return use;
  const uint64_t phase = (cycle - start_) % period();
  if (phase < uint64_t(read_words_)) use.read |= uint8_t(1u << kSramOut);
  if (phase > uint64_t(read_words_)) use.write |= uint8_t(1u << desc_.dst);
  return use;
}

void MoveUnit::Cycle(uint64_t cycle, MoveRead& read, MoveWrite& write) {
  read = MoveRead{};
  write = MoveWrite{};
  if (cycle < start_ || cycle > end_) return;
  const uint64_t tile = (cycle - start_) / period(), phase = (cycle - start_) % period();
  const size_t rows = size_t(config_.rows), cols = size_t(config_.cols);
  if (phase < uint64_t(read_words_)) {
    // Output word w of the tile holds entries 4w .. 4w + 3 (6.3): 4C bytes from entry 4w on.
    const uint64_t entry = TileEntry(tile) + 4 * phase;
    const std::vector<uint8_t>& out = srams_.image(arch::Region::kOut);
    std::copy_n(&out[entry * cols], 4 * cols, &tile_[size_t(phase) * 4 * cols]);
    read.valid = true;
    read.word = uint32_t(entry / 4);
    return;
  }
  if (phase == uint64_t(read_words_)) return;  // the read latency
  const uint64_t j = phase - read_words_ - 1;
  const uint64_t word = TileWord(tile) + j;
  write.valid = true;
  write.sram = desc_.dst;
  write.word = uint32_t(word);
  if (desc_.dst == kSramA) {  // A word lane r = entry r, byte j: the transpose
    std::vector<uint8_t>& a = srams_.image(arch::Region::kA);
    for (size_t r = 0; r < rows; ++r) write.data[r] = a[word * rows + r] = tile_[r * cols + j];
    write.bytes = uint16_t(rows);
  } else {  // B word = entry j
    std::vector<uint8_t>& b = srams_.image(arch::Region::kB);
    std::copy_n(&tile_[j * cols], cols, &b[word * cols]);
    std::copy_n(&tile_[j * cols], cols, write.data.begin());
    write.bytes = uint16_t(cols);
  }
}

}  // namespace qacc::model
