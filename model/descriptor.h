// Descriptors of a program (docs/data_movement.md 11-13) as the model's fetcher sees them: field
// extraction, the unit of each SRAM and the validation of every opcode in the spec's order.
// Written from the spec, apart from golden/program.h (the oracle the model is tested against).
#ifndef QACC_MODEL_DESCRIPTOR_H_
#define QACC_MODEL_DESCRIPTOR_H_

#include <array>
#include <cstdint>

#include "golden/lut_unit.h"
#include "model/arch.h"

namespace qacc::model {

// The spec's constants (docs/spec/qacc_spec.json, generated into arch_spec.h) under the model's
// names.
inline constexpr int kDescriptorWords = arch::kDescWords;
inline constexpr uint32_t kDescriptorBytes = uint32_t(arch::kDescBytes);
inline constexpr int kQueueDepth = arch::kQueueDepth;  // descriptors per engine queue (14.2)
inline constexpr int kMaxTokens = arch::kMaxTokens;    // largest value of a token counter (14.2)
using Descriptor = std::array<uint32_t, kDescriptorWords>;

// The header's OP.
enum class DescOp : uint8_t { kGemm = 0, kLoad = 1, kStore = 2, kMove = 3, kSet = 4, kEltwise = 5 };

// ERR_CODE of a program: part 1's codes 1..10 and part 2's 11..15, one enum generated from the
// spec.
using ProgramError = arch::ErrCode;
const char* ProgramErrorName(ProgramError error);  // "NONE", "BAD_SHAPE", ..., "DEADLOCK"

// SRAM ids of a DMA's SRAM field and of MOVE's DST: the window numbers (arch::Region 1..6).
inline constexpr uint8_t kSramA = uint8_t(arch::Region::kA), kSramB = uint8_t(arch::Region::kB),
                         kSramBias = uint8_t(arch::Region::kBias),
                         kSramRq = uint8_t(arch::Region::kRq),
                         kSramOut = uint8_t(arch::Region::kOut),
                         kSramLut = uint8_t(arch::Region::kLut);

struct DescHeader {
  uint32_t op = 0;  // OP, reserved opcodes included
  bool wait = false;
  bool signal = false;
};

// LOAD / STORE (12), fields masked to their widths.
struct DmaDesc {
  bool load = true;
  uint32_t count0 = 1, count1 = 1, count2 = 1;
  uint32_t sram_base = 0, sram_stride1 = 0, sram_stride2 = 0;
  uint32_t ext_addr = 0, ext_stride1 = 0, ext_stride2 = 0;
  uint8_t sram = 0;  // SRAM
  bool out_int32 = false;
  bool out_int16 = false;  // the out SRAM's int16 entries (lut.md 10.6); with out_int32 BAD_SHAPE
};

// MOVE (13).
struct MoveDesc {
  uint32_t count0 = 1, count1 = 1, count2 = 1;
  uint32_t dst_base = 0, dst_stride1 = 0, dst_stride2 = 0;
  uint32_t src_base = 0, src_stride1 = 0, src_stride2 = 0;
  uint8_t dst = 0;  // 1 A, 2 B
};

DescHeader DecodeDescHeader(const Descriptor& d);
DmaDesc DecodeDmaDesc(const Descriptor& d);
MoveDesc DecodeMoveDesc(const Descriptor& d);
// ELTWISE (lut.md 10.5): golden's field struct, decoded here from the spec's layout (signed fields
// sign-extended).
golden::EltwiseFields DecodeEltwiseDesc(const Descriptor& d);
// ELTWISE's add fields legal (BAD_ADD otherwise): the clamp ordered and inside the result's type,
// then the form's own ranges.
bool EltwiseAddFieldsLegal(const golden::EltwiseFields& f);
// A GEMM descriptor's words 0..14 as the CMD_* registers store them (each masked to its fields,
// as a register write would be), OP = GEMM.
arch::Command GemmCommandOf(const Descriptor& d);
// True for LOAD and STORE: the DMA engine's opcodes; the others go to the compute engine.
inline bool IsDmaOp(uint32_t op) {
  return op == uint32_t(DescOp::kLoad) || op == uint32_t(DescOp::kStore);
}

// Bytes of one unit of `sram` (12): R, C, 4C, 8C, C (out int8 entry), 4C (out int32 word) or 2C
// (out int16 entry, without out_int32), 16 (LUT table); 0 for a bad SRAM id.
uint32_t DmaUnitBytes(const arch::ArchConfig& config, uint8_t sram, bool out_int32,
                      bool out_int16 = false);
// Bytes of one word of `sram` (architecture.md 3.1): R, C, 4C, 8C, 4C, 16.
uint32_t SramWordBytes(const arch::ArchConfig& config, uint8_t sram);

// The checks of architecture.md 4 (GEMM), data_movement.md 12 (LOAD/STORE) and 13 (MOVE), units.md
// 19.4 (SET) and lut.md 10.5 (ELTWISE), each in its order; kBadOpcode for a reserved opcode; kNone
// for a legal descriptor. slope_ok: whether the slope registers a GEMM with ACT = SLOPE reads at
// its start will be legal (the fetcher's rule of requant.md 6.2: a SET into them fetched before it,
// or the registers legal now).
ProgramError ValidateDescriptor(const arch::ArchConfig& config, const Descriptor& d, bool slope_ok);
// Whether a descriptor is a SET into the slope stage's registers.
bool SetsSlopeRegisters(const Descriptor& d);

}  // namespace qacc::model

#endif  // QACC_MODEL_DESCRIPTOR_H_
