// The golden executor of accelerator programs (docs/data_movement.md 11-14): descriptors, their
// validation, the DMA (LOAD/STORE), MOVE and GEMM commands on byte images of the SRAMs and of the
// external memory, and the command queue (fetcher, two engines, token counters, deadlock). Untimed
// and functional: the engines are a Kahn network (14.2), so whichever order this executor runs
// them in, a race-free program leaves the memories exactly as the timed model and RTL do.
//
// An independent implementation of the spec: it does not use model/ (the SystemC model). It takes
// the data of the spec from spec/arch_spec.h (generated from docs/spec/qacc_spec.json): where each
// descriptor field lives, the error codes, the SRAM ids; its checks and arithmetic are its own.
#ifndef QACC_GOLDEN_PROGRAM_H_
#define QACC_GOLDEN_PROGRAM_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "golden/lut_unit.h"
#include "golden/memory_image.h"
#include "golden/slope_stage.h"
#include "spec/arch_spec.h"

namespace qacc::golden {

// The hardware parameters the programs depend on (configs/*.json; docs/architecture.md 1).
struct AccelGeometry {
  int rows = 8;  // R
  int cols = 8;  // C
  uint32_t a_depth = 8192, b_depth = 8192, bias_depth = 256, rq_depth = 256, out_depth = 8192;
  int lut_slots =
      4;  // LUT table slots: the LUT table SRAM holds LUT_SLOT_WORDS of each (lut.md 10.1)
};

inline constexpr int kDescriptorWords = arch::kDescWords;
inline constexpr uint32_t kDescriptorBytes = arch::kDescBytes;
inline constexpr int kQueueDepth = arch::kQueueDepth;  // descriptors per engine queue (14.2)
inline constexpr int kMaxTokens = arch::kMaxTokens;    // a token counter's largest value (14.2)
using Descriptor = std::array<uint32_t, kDescriptorWords>;

using Op = arch::Opcode;  // kGemm, kLoad, kStore, kMove, kSet, kEltwise
enum class Engine : uint8_t { kDma = 0, kCompute = 1 };

// ERR_CODE values (architecture.md 4 and data_movement.md 11), from the spec data.
using ProgramError = arch::ErrCode;
const char* ProgramErrorName(ProgramError error);  // "NONE", "BAD_SHAPE", ..., "DEADLOCK"

// SRAM ids of the DMA's `SRAM` field and of MOVE's `DST`: the window numbers of 3.1 (kA .. kOut).
using Sram = arch::Region;

// Word 15 of every descriptor.
struct Header {
  uint32_t op = 0;      // OP, raw (reserved opcodes included)
  bool wait = false;    // WAIT
  bool signal = false;  // SIGNAL
};

// LOAD / STORE (12). Fields hold raw values; Encode masks them to their widths.
struct DmaFields {
  uint32_t count0 = 1, count1 = 1, count2 = 1;
  uint32_t sram_base = 0, sram_stride1 = 0, sram_stride2 = 0;
  uint32_t ext_addr = 0, ext_stride1 = 0, ext_stride2 = 0;
  uint32_t sram = uint32_t(arch::Region::kA);  // SRAM: an SRAM id, arch::kSrams
  bool out_int32 = false;
  bool out_int16 = false;  // the out SRAM's int16 entries (lut.md 10.6); with out_int32 BAD_SHAPE
};

// MOVE (13).
struct MoveFields {
  uint32_t count0 = 1, count1 = 1, count2 = 1;
  uint32_t dst_base = 0, dst_stride1 = 0, dst_stride2 = 0;
  uint32_t src_base = 0, src_stride1 = 0, src_stride2 = 0;
  uint32_t dst = uint32_t(arch::Region::kA);  // A or B
};

// GEMM: the CMD_* register images (architecture.md 3.2), words 0..14 of the descriptor.
struct GemmFields {
  uint32_t m = 1, n = 1, k = 1;
  uint32_t a_base = 0, b_base = 0, bias_base = 0, rq_base = 0, out_base = 0;
  uint32_t mode = 0;   // CMD_MODE: bit0 ROUNDING (1 single), bit1 PER_CHANNEL, bit2 OUT_RAW,
                       // bit3 BIAS_EN, bit4 A_UNSIGNED, bit5 B_UNSIGNED, bit6 RQ_FORM,
                       // [11:8] ACT, [15:12] LUT_SLOT, [19:16] LUT_IN_BITS,
                       // [24:20] LUT_ENTRY_BITS, [27:25] RSHIFT_ROUND, [29:28] MULT_WIDTH
  uint32_t zp_ab = 0;  // CMD_ZP_AB: [8:0] a_zp, [24:16] b_zp, 9-bit two's complement
  int32_t zp_out = 0;
  int32_t clamp_min = -128, clamp_max = 127;
  int32_t mult = 1 << 30;
  uint32_t shift = 0;  // [7:0]: TFLite form two's complement, TPU-MLIR form the rshift, unsigned
};

// SET (units.md 19.4): registers REG .. REG + COUNT - 1 of a unit's register block get VALUE[0 ..].
struct SetFields {
  std::array<uint32_t, arch::desc::set::kValueWords> value{};
  uint32_t reg = 0;    // REG: the register of value[0], byte offset 4 * reg in the register region
  uint32_t count = 1;  // COUNT: 1..14
};

Descriptor EncodeDma(Op op, const DmaFields& fields, Header flags);  // op: kLoad or kStore
Descriptor EncodeMove(const MoveFields& fields, Header flags);
Descriptor EncodeGemm(const GemmFields& fields, Header flags);
Descriptor EncodeSet(const SetFields& fields, Header flags);
// ELTWISE (lut.md 10.5): golden::EltwiseFields (golden/lut_unit.h); Encode masks each field to its
// width, Decode sign-extends the signed ones.
Descriptor EncodeEltwise(const EltwiseFields& fields, Header flags);
EltwiseFields DecodeEltwise(const Descriptor& d);
Header DecodeHeader(const Descriptor& d);
DmaFields DecodeDma(const Descriptor& d);  // fields masked to their widths
MoveFields DecodeMove(const Descriptor& d);
GemmFields DecodeGemm(const Descriptor& d);
SetFields DecodeSet(const Descriptor& d);
// The engine of a valid opcode; kCompute for GEMM, MOVE, SET and ELTWISE, kDma for LOAD and STORE.
Engine EngineOf(Op op);
// "LOAD A[12..] <- ext 0x1000 (3 x 64 x 1 units)", "GEMM M=.. N=.. K=..", for reports.
std::string DescribeDescriptor(const AccelGeometry& geometry, const Descriptor& d);

// Bytes of one DMA unit (12): R, C, 4C, 8C, C (out int8), 4C (out int32), 2C (out int16, without
// out_int32) or 16 (the LUT table); 0 for a bad SRAM id.
uint32_t UnitBytes(const AccelGeometry& geometry, uint32_t sram, bool out_int32,
                   bool out_int16 = false);
// Units in an SRAM: its depth, or 4 * out_depth int8 entries, or 2 * out_depth int16 entries.
uint64_t SramUnits(const AccelGeometry& geometry, uint32_t sram, bool out_int32,
                   bool out_int16 = false);

// The checks of 4 (GEMM), 12 (DMA), 13 (MOVE), units.md 19.4 (SET) and lut.md 10.5 (ELTWISE), in
// their order; kNone when the descriptor is legal. Descriptors with a reserved opcode give
// kBadOpcode. A SET is legal only when it writes exactly the registers of a present unit (the slope
// stage's ten), with values that the unit accepts (BAD_SLOPE for the slope stage, requant.md 6.2).
// The one check that depends on the registers is left to ValidateSlopeAtFetch.
ProgramError Validate(const AccelGeometry& geometry, const Descriptor& d);

// Whether a GEMM's CMD_MODE uses the slope stage (ACT = SLOPE).
bool GemmHasSlope(uint32_t mode);
// The rq words a GEMM reads per column tile (requant.md 6.3): PER_CHANNEL's, then with ACT = SLOPE
// and SLOPE_PER_CHANNEL the slope's. Tile nb's first word is RQ_BASE + RqWordsPerTile * nb.
int RqWordsPerTile(uint32_t mode);
// Whether a (valid) SET writes the slope stage's registers.
bool SetsSlope(const Descriptor& d);
// Requant.md 6.2: a GEMM with ACT = SLOPE is BAD_SLOPE when no SET into the slope block was fetched
// before it since the launch (slope_set_seen) and the registers it will read, those of the launch,
// are not a legal slope. kNone for every other descriptor.
ProgramError ValidateSlopeAtFetch(const Descriptor& d, const SlopeRegisters& at_launch,
                                  bool slope_set_seen);

// Everything a program touches: the five SRAMs as host-window images (architecture.md 3.1: A is
// a_depth * R bytes, ..., rq 8 bytes per lane with the shift word keeping bits [5:0] in byte 0 and
// its other bytes 0, out 4C bytes per word) and the external memory (byte 0 at address 0; an
// access at or above its size is an error response: EXT_FAULT).
struct MachineState {
  std::vector<uint8_t> a, b, bias, rq, out, lut;
  MemoryImage ext;
  // The unit register blocks (units.md 19.3), by byte offset, as the registers store them; an
  // offset not here holds its reset value 0.
  std::map<uint32_t, uint32_t> unit_registers;

  // SRAMs of the geometry's sizes, all zero; `ext_bytes` of external memory, all zero.
  MachineState(const AccelGeometry& geometry, size_t ext_bytes);
  std::vector<uint8_t>& sram(Sram id);
  const std::vector<uint8_t>& sram(Sram id) const;
  // The slope stage's ten registers (requant.md 6.2).
  SlopeRegisters slope_registers() const;
};

// Runs one descriptor on `state` (no validation: Validate first). Returns kNone, or kExtFault when
// a LOAD or STORE reaches past the external memory; the units before the faulting one are copied.
// Throws std::domain_error for a GEMM that reads a per-channel rq entry outside the legal ranges
// (multiplier 0 or 2^30..2^31-1, shift -31..30): the spec defines no result for it.
ProgramError Execute(const AccelGeometry& geometry, const Descriptor& d, MachineState& state);

// The result of a queued program.
struct ProgramResult {
  ProgramError error = ProgramError::kNone;
  int error_index = -1;  // Q_ERR_INDEX with an error
  int retired = 0;       // Q_RETIRED: descriptors completed
  // Descriptor indices in the order this executor completed them (one valid schedule).
  std::vector<int> completion_order;
};

// The queue of 14: `count` descriptors read from `state.ext` at `q_base` (64-byte aligned), each
// validated at fetch and pushed to its engine's queue (kQueueDepth), engines running their queues
// in order under WAIT/SIGNAL tokens. A validation error stops the fetcher; the descriptors fetched
// before it complete (as far as their tokens allow) and the error is reported with its index.
// DEADLOCK when nothing can progress. A descriptor outside the external memory is EXT_FAULT at its
// index. After EXT_FAULT the memories are as this schedule left them (the spec leaves them to
// timing). `count` 0 is BAD_SHAPE at index 0.
ProgramResult RunQueue(const AccelGeometry& geometry, uint32_t q_base, uint32_t count,
                       MachineState& state);

// Writes `program` into state.ext at q_base (throws std::out_of_range when it does not fit).
void StoreProgram(const std::vector<Descriptor>& program, uint32_t q_base, MachineState& state);

// What one descriptor reads and writes, in unit-free byte intervals of each memory (SRAM window
// images, external memory). GEMM and MOVE footprints are word-granular; DMA footprints are exact.
struct Interval {
  uint8_t memory = 0;           // Sram id 1..5, or 0 for external memory
  uint64_t begin = 0, end = 0;  // [begin, end) bytes
};
struct Footprint {
  std::vector<Interval> reads, writes;
};
Footprint FootprintOf(const AccelGeometry& geometry, const Descriptor& d);

// A data race (14.2): two descriptors on different engines, not ordered by a chain of tokens, one
// writing bytes the other reads or writes; or a STORE that writes the program's own descriptors.
struct Race {
  int first = -1, second = -1;  // descriptor indices, first < second (second = -1: the program)
  Interval overlap;
};
// Every race of a program of valid descriptors (as the compiler emits them), in order of `second`
// then `first`. Happens-before: program order on each engine, and the j-th SIGNAL of one engine
// before the j-th WAIT of the other.
std::vector<Race> RaceCheck(const AccelGeometry& geometry, const std::vector<Descriptor>& program,
                            uint32_t q_base);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_PROGRAM_H_
