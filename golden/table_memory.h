// Memory taken by lookup tables, as seed 000's memory table counts it: a table addressed by a `in_bits` input
// has 2^in_bits entries of `entry_bits` each, whether or not every address is used (narrow range leaves one
// address unused but the SRAM still has it).
#ifndef QACC_GOLDEN_TABLE_MEMORY_H_
#define QACC_GOLDEN_TABLE_MEMORY_H_

#include <cstdint>

#include "spec/arch_spec.h"

namespace qacc::golden {

// 2^in_bits * entry_bits. in_bits 1..16, entry_bits 1..64.
inline constexpr int64_t TableBits(int in_bits, int entry_bits) {
  return (int64_t{1} << in_bits) * entry_bits;
}

// TableBits rounded up to whole bytes.
inline constexpr int64_t TableBytes(int in_bits, int entry_bits) {
  return (TableBits(in_bits, entry_bits) + 7) / 8;
}

// SRAM address of input code `code` in a table addressed by `in_bits` bits: the low in_bits of its two's
// complement pattern (seed 000's "adjust sequence for easier retrieve" done by wiring, not by reordering).
// For 8 bits: 0..127 -> 0..127, -128..-1 -> 128..255; unsigned codes are their own address.
inline constexpr uint32_t TableAddress(int64_t code, int in_bits) {
  // Converting to uint64 is modulo 2^64, so the mask keeps the low in_bits of the pattern.
  return static_cast<uint32_t>(static_cast<uint64_t>(code) & ((uint64_t{1} << in_bits) - 1));
}

// Seed 000's softmax tables: X -> T holds acc_bits per entry, X -> P holds acc_bits + out_bits per entry.
struct SoftmaxTableBytes {
  int64_t exp_table = 0;        // X -> T
  int64_t numerator_table = 0;  // X -> P
  int64_t total() const { return exp_table + numerator_table; }
};

inline constexpr SoftmaxTableBytes SoftmaxTablesBytes(int in_bits, int acc_bits, int out_bits) {
  return {TableBytes(in_bits, acc_bits), TableBytes(in_bits, acc_bits + out_bits)};
}

// The LUT unit's table SRAM (docs/lut.md 10.1-10.2): `slots` slots of 256 entries of 16 bits,
// stored once per two lanes as dual-port copies, so that `lanes` lanes each look up one entry per
// cycle.
struct LutUnitMemory {
  int lanes = 0;
  int slots = 0;
  int copies = 0;         // ceil(lanes / 2)
  int64_t copy_bits = 0;  // slots x 256 x 16: the memory without replication
  int64_t bits() const { return copies * copy_bits; }
};

inline constexpr LutUnitMemory LutUnitTableMemory(int lanes, int slots) {
  return {lanes, slots, (lanes + 1) / 2,
          int64_t{slots} * arch::kLutSlotEntries * arch::kLutEntryBytes * 8};
}

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_TABLE_MEMORY_H_
