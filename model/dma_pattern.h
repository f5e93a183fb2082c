// The geometry of one LOAD or STORE (docs/data_movement.md 12, 17.4): its rows, the memory bursts
// of each row and the SRAM steps, without timing. Rows are computed on demand (a command may have
// 65535^2 of them).
//
//   row     COUNT0 units, the external bytes [a, a + COUNT0 * U); rows in the order (i2, i1)
//   bursts  the row's beats floor(a / D) .. floor((a + COUNT0 * U - 1) / D), cut greedily from the
//           first one at 16 beats and at every 4 KiB boundary
//   step    one SRAM access: a D-byte slice of a unit when U >= D, a whole unit when U < D
#ifndef QACC_MODEL_DMA_PATTERN_H_
#define QACC_MODEL_DMA_PATTERN_H_

#include <cstdint>

#include "model/arch.h"
#include "model/descriptor.h"

namespace qacc::model {

class DmaPattern {
 public:
  // `desc` must be valid (ValidateDescriptor).
  DmaPattern(const arch::ArchConfig& config, const DmaDesc& desc);

  struct Step {
    uint64_t window_offset = 0;  // first byte in the SRAM's window image (unit u is at u * U)
    uint32_t bytes = 0;          // D (U >= D) or U (U < D)
    uint64_t beat = 0;           // the row-relative beat holding the step's external bytes
    uint32_t beat_offset = 0;    // first byte of the step inside that beat
    bool first_of_beat = false, last_of_beat = false;
  };

  const DmaDesc& desc() const { return desc_; }
  uint32_t unit_bytes() const { return unit_; }
  uint32_t beat_bytes() const { return beat_; }
  uint64_t rows() const { return uint64_t{desc_.count1} * desc_.count2; }
  uint64_t steps_per_row() const { return steps_per_row_; }

  uint64_t RowAddress(uint64_t row) const;    // a: external byte address (below 2^32)
  uint64_t RowBeats(uint64_t row) const;      // beats the row spans
  uint64_t RowFirstBeat(uint64_t row) const;  // floor(a / D)
  // Beats of the burst that starts at row-relative beat `beat`: at most 16, to the row's end and
  // to the next 4 KiB boundary.
  uint32_t BurstBeats(uint64_t row, uint64_t beat) const;
  Step StepAt(uint64_t row, uint64_t k) const;  // k < steps_per_row()

 private:
  uint64_t RowUnit(uint64_t row) const;  // first SRAM unit

  DmaDesc desc_;
  uint32_t unit_ = 0;  // U
  uint32_t beat_ = 0;  // D
  uint64_t steps_per_row_ = 0;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_DMA_PATTERN_H_
