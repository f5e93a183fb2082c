// ELTWISE (docs/lut.md 10.5), the compute engine's elementwise command, cycle by cycle. Started at
// s, with t = c - s and x = 4 w for source word w < COUNT:
//   t = x          reads word SRC_A + w of the out SRAM;
//   t = x + 1      reads word SRC_B + w (ADD and ADD_LUT only);
//   t = x + 2 + r  row r (0..3) of the word enters the add lanes; its code is ready
//                  ADD_LANE_LATENCY later, the LUT lanes read the table at t = x + 6 + r and the
//                  row's result is ready at t = x + 7 + r (LUT_LATENCY after the code);
//   t = x + 11     writes word DST + w (int8 output);
//   t = x + 9, x + 11  writes words DST + 2w and DST + 2w + 1 (int16 output: rows 0-1, 2-3).
// The last write, t = 4 COUNT + 7, is the command's completion e (EltwiseEnd). The values are
// golden's (EltwiseCode, LutRead), computed when a word's operands are read; the reads and writes
// of each cycle are performed on the SRAM images in that cycle.
#ifndef QACC_MODEL_ELTWISE_UNIT_H_
#define QACC_MODEL_ELTWISE_UNIT_H_

#include <cstdint>
#include <deque>
#include <vector>

#include "golden/lut_unit.h"
#include "model/arch.h"
#include "model/descriptor.h"
#include "model/sram_ports.h"
#include "model/srams.h"

namespace qacc::model {

// Offsets from a word's first cycle x (lut.md 10.5): its b read, its first row into the lanes, the
// first table read, its int8 write and the first int16 write.
inline constexpr uint64_t kEltReadB = 1;
inline constexpr uint64_t kEltFirstRow = kEltReadB + arch::kSramReadLatency;
inline constexpr uint64_t kEltTableRead =
    kEltFirstRow + arch::kAddLaneLatency + arch::kLutLatency - arch::kSramReadLatency;
inline constexpr uint64_t kEltWrite =
    kEltFirstRow + 3 + arch::kAddLaneLatency + arch::kLutLatency + arch::kOutWriteLatency;
inline constexpr uint64_t kEltWrite16 = kEltWrite - 2;

// t of an ELTWISE's last write (its completion): 4 COUNT + 7.
inline uint64_t EltwiseEnd(uint32_t count) { return 4 * uint64_t{count} - 4 + kEltWrite; }

class EltwiseUnit {
 public:
  // `srams` must outlive the unit.
  EltwiseUnit(const arch::ArchConfig& config, Srams& srams);

  // Starts a valid ELTWISE at cycle s.
  void Start(const golden::EltwiseFields& fields, uint64_t start_cycle);
  uint64_t end_cycle() const { return end_; }
  // The out SRAM's read and write ports and the table SRAM's lanes (both ports of every copy) in
  // cycle c.
  PortUse PortsAt(uint64_t cycle) const;
  // The out SRAM accesses of cycle c (s <= c <= e), called for every cycle in order.
  void Cycle(uint64_t cycle, OutAccess& access);

 private:
  bool int16() const { return fields_.has_lookup() && fields_.lut.entry_bits == 16; }
  // A word's results from its operand words (4C bytes each): one out word, or two (int16).
  void Compute(const uint8_t* a, const uint8_t* b);

  const arch::ArchConfig& config_;
  Srams& srams_;
  golden::EltwiseFields fields_;
  golden::AddParams add_;
  uint64_t start_ = 0, end_ = 0;
  std::vector<uint8_t> a_word_;               // operand a's word, as read
  std::deque<std::vector<uint8_t>> results_;  // out words computed and not yet written
};

}  // namespace qacc::model

#endif  // QACC_MODEL_ELTWISE_UNIT_H_
