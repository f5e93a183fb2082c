// The SRAM ports of one cycle (docs/data_movement.md 17.6): every SRAM has one read and one write
// port, and the compute engine never waits for one; a DMA step on a port the compute engine uses
// in that cycle waits. Also the DMA's, MOVE's and the command units' SRAM accesses of a cycle, as
// the co-simulation's monitors see them (18).
#ifndef QACC_MODEL_SRAM_PORTS_H_
#define QACC_MODEL_SRAM_PORTS_H_

#include <array>
#include <cstdint>

namespace qacc::model {

// Bit `id` (SRAM id 1..5: A, B, bias, rq, out) of each mask is set when that port is in use.
struct PortUse {
  uint8_t read = 0;
  uint8_t write = 0;

  bool Reads(uint8_t sram) const { return (read >> sram) & 1u; }
  bool Writes(uint8_t sram) const { return (write >> sram) & 1u; }
};

inline constexpr int kMaxStepBytes = 64;      // a DMA step: at most one beat (D <= 64 bytes)
inline constexpr int kMaxMoveWordBytes = 32;  // a MOVE destination word: Rows or Cols bytes
inline constexpr int kMaxOutWordBytes = 128;  // an out SRAM word: 4 Cols bytes

// mon_dma_sram_o: one DMA step. The byte enables are the `bytes` bytes from `offset` of the word
// (a step never crosses a word); `data[j]` is byte offset + j (writes only; 0 for reads).
struct DmaSramAccess {
  bool valid = false;
  bool write = false;
  uint8_t sram = 0;  // 1..5
  uint32_t word = 0;
  uint16_t offset = 0;
  uint16_t bytes = 0;
  std::array<uint8_t, kMaxStepBytes> data{};
};

// mon_move_o: the MOVE's out SRAM read (word address) and its destination write.
struct MoveRead {
  bool valid = false;
  uint32_t word = 0;
};
struct MoveWrite {
  bool valid = false;
  uint8_t sram = 0;  // 1 (A) or 2 (B)
  uint32_t word = 0;
  uint16_t bytes = 0;  // Rows (A) or Cols (B)
  std::array<uint8_t, kMaxMoveWordBytes> data{};
};

// mon_out_acc_o: a command unit's out SRAM read (word address) and its whole-word write in one
// cycle (ELTWISE's; the command units to come share it, one runs at a time).
struct OutAccess {
  bool read = false;
  uint32_t raddr = 0;
  bool write = false;
  uint32_t waddr = 0;
  uint16_t bytes = 0;  // 4 Cols
  std::array<uint8_t, kMaxOutWordBytes> data{};
};

}  // namespace qacc::model

#endif  // QACC_MODEL_SRAM_PORTS_H_
