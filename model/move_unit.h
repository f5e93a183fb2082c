// MOVE (docs/data_movement.md 13, 17.3): output SRAM tiles into the A or B operand layout, one tile
// after another. Tile j of a MOVE started at s starts at x = s + j * (R/4 + 1 + COUNT0), reads its
// R/4 output words at x .. x + R/4 - 1 into an R x C byte buffer (the out SRAM's read port) and
// writes destination word j' at x + R/4 + 1 + j' (the A or B write port). Cycle() performs the
// reads and writes of one cycle on the SRAM images, so each write carries the data of its cycle.
#ifndef QACC_MODEL_MOVE_UNIT_H_
#define QACC_MODEL_MOVE_UNIT_H_

#include <cstdint>
#include <vector>

#include "model/arch.h"
#include "model/descriptor.h"
#include "model/sram_ports.h"
#include "model/srams.h"

namespace qacc::model {

class MoveUnit {
 public:
  // `srams` must outlive the unit.
  MoveUnit(const arch::ArchConfig& config, Srams& srams);

  // Starts a valid MOVE at cycle s.
  void Start(const MoveDesc& desc, uint64_t start_cycle);
  // e: the cycle of its last write.
  uint64_t end_cycle() const { return end_; }
  // The out read port and the A or B write port in cycle c.
  PortUse PortsAt(uint64_t cycle) const;
  // The reads and writes of cycle c (s <= c <= e), called for every cycle in order.
  void Cycle(uint64_t cycle, MoveRead& read, MoveWrite& write);

 private:
  uint64_t period() const { return uint64_t(read_words_) + 1 + desc_.count0; }
  uint64_t TileEntry(uint64_t tile) const;  // first output entry (int8 layout) of tile j
  uint64_t TileWord(uint64_t tile) const;   // first destination word of tile j

  const arch::ArchConfig& config_;
  Srams& srams_;
  MoveDesc desc_;
  uint64_t start_ = 0, end_ = 0;
  int read_words_ = 0;         // R / 4
  std::vector<uint8_t> tile_;  // R entries of C bytes, as read
};

}  // namespace qacc::model

#endif  // QACC_MODEL_MOVE_UNIT_H_
