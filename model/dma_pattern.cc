#include "model/dma_pattern.h"

#include <algorithm>

#include "model/ext_memory.h"

namespace qacc::model {

DmaPattern::DmaPattern(const arch::ArchConfig& config, const DmaDesc& desc)
    : desc_(desc),
      unit_(DmaUnitBytes(config, desc.sram, desc.out_int32, desc.out_int16)),
      beat_(uint32_t(config.mem_data_bytes)) {
  // Units and beats are powers of two: a unit of U >= D bytes is U / D whole beats (its address
  // is a multiple of U), one of U < D bytes lies inside one beat.
  steps_per_row_ = unit_ >= beat_ ? uint64_t{desc_.count0} * (unit_ / beat_) : desc_.count0;
}

uint64_t DmaPattern::RowAddress(uint64_t row) const {
  const uint64_t i1 = row % desc_.count1, i2 = row / desc_.count1;
  return desc_.ext_addr + i1 * desc_.ext_stride1 + i2 * desc_.ext_stride2;
}

uint64_t DmaPattern::RowUnit(uint64_t row) const {
  const uint64_t i1 = row % desc_.count1, i2 = row / desc_.count1;
  return desc_.sram_base + i1 * desc_.sram_stride1 + i2 * desc_.sram_stride2;
}

uint64_t DmaPattern::RowFirstBeat(uint64_t row) const { return RowAddress(row) / beat_; }

uint64_t DmaPattern::RowBeats(uint64_t row) const {
  const uint64_t a = RowAddress(row);
  return (a + uint64_t{desc_.count0} * unit_ - 1) / beat_ - a / beat_ + 1;
}

uint32_t DmaPattern::BurstBeats(uint64_t row, uint64_t beat) const {
  const uint64_t address = (RowFirstBeat(row) + beat) * beat_;
  const uint64_t to_page = (kAxiPageBytes - address % kAxiPageBytes) / beat_;
  const uint64_t left = RowBeats(row) - beat;
  return uint32_t(std::min<uint64_t>({kMaxBurstBeats, left, to_page}));
}

DmaPattern::Step DmaPattern::StepAt(uint64_t row, uint64_t k) const {
  Step step;
  const uint64_t a = RowAddress(row);
  const uint64_t first_unit = RowUnit(row);
  if (unit_ >= beat_) {
    const uint64_t slices = unit_ / beat_;
    const uint64_t i0 = k / slices, slice = k % slices;
    step.window_offset = (first_unit + i0) * unit_ + slice * beat_;
    step.bytes = beat_;
    step.beat = k;  // a is a multiple of U, hence of D: step k is beat k of the row
    step.beat_offset = 0;
    step.first_of_beat = step.last_of_beat = true;
    return step;
  }
  const uint64_t ext = a + k * unit_;
  step.window_offset = (first_unit + k) * unit_;
  step.bytes = unit_;
  step.beat = ext / beat_ - a / beat_;
  step.beat_offset = uint32_t(ext % beat_);
  step.first_of_beat = k == 0 || step.beat_offset == 0;
  step.last_of_beat = k + 1 == desc_.count0 || step.beat_offset + unit_ == beat_;
  return step;
}

}  // namespace qacc::model
