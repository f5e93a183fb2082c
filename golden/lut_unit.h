// The LUT unit and the ELTWISE command as the accelerator defines them (docs/lut.md 10): the table
// SRAM's slots, the hardware read (the raw low bits of a code address a slot), the ELTWISE
// descriptor's fields, their validation in the spec's order, the add as the hardware holds its
// parameters (golden's Add, golden/add.h, from the descriptor's fields) and the command on the out
// SRAM's window image, int8 or int16 layout.
//
// The arithmetic is golden's own (Lut, Add); this file adds what the hardware fixes around it:
// where each entry and each operand byte lives, and which fields are legal.
#ifndef QACC_GOLDEN_LUT_UNIT_H_
#define QACC_GOLDEN_LUT_UNIT_H_

#include <cstdint>
#include <vector>

#include "golden/add.h"
#include "golden/lut.h"
#include "spec/arch_spec.h"

namespace qacc::golden {

// Table SRAM (10.1): S slots of 256 entries of 16 bits, entry e of slot s at byte 512 s + 2 e of
// the window, little-endian.
inline constexpr int kLutSlotEntries = arch::kLutSlotEntries;
inline constexpr int kLutEntryBytes = arch::kLutEntryBytes;
inline constexpr uint32_t kLutSlotBytes = kLutSlotEntries * kLutEntryBytes;

// LUT_SLOT, LUT_IN_BITS and LUT_ENTRY_BITS (10.3): a GEMM's CMD_MODE or an ELTWISE's word 4.
struct LutFields {
  uint32_t slot = 0;
  uint32_t in_bits = 8;
  uint32_t entry_bits = 8;
};

// A GEMM's lookup (10.4): whether CMD_MODE selects ACT = LUT, and its LUT fields, raw.
bool GemmHasLut(uint32_t mode);
LutFields GemmLutFields(uint32_t mode);
// Out words of a GEMM of `tiles` tiles of `rows` rows (6.3, 10.6): R words a tile with OUT_RAW,
// R / 2 in the int16 layout (ACT = LUT and LUT_ENTRY_BITS = 16, whatever the other LUT fields),
// R / 4 otherwise.
uint64_t GemmOutWords(uint32_t mode, uint64_t tiles, int rows);

// The slot image of `lut` (512 bytes): entry a < 2^in_bits holds the low entry_bits bits of
// entries_by_address()[a] (bits [15:8] 0 for an 8-bit table), entries from 2^in_bits on are 0.
// Throws std::invalid_argument ("entry_bits") for a table whose entries are not 8 or 16 bits.
std::vector<uint8_t> LutSlotImage(const Lut& lut);

// The hardware read: the entry at address `code & (2^in_bits - 1)` of `fields.slot` in the table
// SRAM's window image, its low entry_bits bits, zero-extended. `fields` must be legal and the slot
// inside the image (std::out_of_range otherwise).
uint32_t LutRead(const std::vector<uint8_t>& table_sram, const LutFields& fields, int32_t code);

// ELTWISE's OP (10.5); 3 is BAD_SHAPE.
enum class EltwiseOp : uint32_t { kLut = 0, kAdd = 1, kAddLut = 2 };
// ELTWISE's FORM: 0 tflite, 1 seed-symmetric.
inline constexpr uint32_t kEltwiseFormTflite = 0;
inline constexpr uint32_t kEltwiseFormSeed = 1;

// The fields of an ELTWISE descriptor (10.5), decoded: signed fields sign-extended from their
// width, the others raw (masked to their width), so every illegal value a descriptor can hold is
// here.
struct EltwiseFields {
  uint32_t count = 1;  // source words, each 4C int8 entries
  uint32_t src_a = 0, src_b = 0, dst = 0;
  uint32_t op = 0;    // EltwiseOp, raw 0..3
  uint32_t form = 0;  // kEltwiseFormTflite or kEltwiseFormSeed
  bool a_unsigned = false, b_unsigned = false, y_unsigned = false;
  uint32_t rounding = 0;  // seed: index into kAllRoundingModes, raw 0..7
  bool wrap = false;      // seed: the int16 sum wraps (else saturates)
  LutFields lut;
  int32_t zp_a = 0, zp_b = 0, zp_y = 0;           // tflite, 9-bit: -256..255
  uint32_t left_shift = kTfliteAddLeftShift;      // tflite, raw 0..31
  int32_t clamp_min = -128, clamp_max = 127;      // 9-bit: -256..255
  uint32_t mult_a = 0, mult_b = 0, mult_y = 0;    // raw 32-bit words
  int32_t shift_a = 0, shift_b = 0, shift_y = 0;  // tflite, 6-bit: -32..31
  uint32_t rshift = 0;                            // seed, raw 0..63

  bool has_add() const;
  bool has_lookup() const;
  // Out words the result takes: count, or 2 count with a 16-bit lookup.
  uint64_t result_words() const;
};

// The checks of 10.5 in their order; each maps to the program error of the same name (10.7).
enum class EltwiseCheck {
  kNone,
  kBadShape,      // COUNT 0 or OP 3
  kOutRange,      // a source or the result past the out SRAM
  kOverlap,       // ELT_OVERLAP
  kLutSlot,       // LUT_SLOT >= slots
  kLutInBits,     // LUT_IN_BITS outside 2..8
  kLutEntryBits,  // LUT_ENTRY_BITS not 8 or 16
  kBadAdd,        // a field of the add's form, or its clamp
};
const char* EltwiseCheckName(EltwiseCheck check);  // "NONE", "BAD_SHAPE", ..., "BAD_ADD"

// The LUT fields' checks of 10.3 in their order (kLutSlot, kLutInBits, kLutEntryBits), for a GEMM
// with ACT = LUT and an ELTWISE with a lookup.
EltwiseCheck CheckLutFields(const LutFields& fields, int slots);

// The first failing check of 10.5 for an out SRAM of `out_depth` words and `slots` table slots.
EltwiseCheck ValidateEltwise(const EltwiseFields& fields, uint32_t out_depth, int slots);

// Golden's AddParams that the descriptor's add fields stand for: 8-bit specs of the declared
// signedness, the tflite form's zero points (0 in the seed form), the form's multipliers and
// shifts. The fields must pass ValidateEltwise. The hardware's code is then clamp(Add(q_a, q_b,
// params), CLAMP_MIN, CLAMP_MAX).
AddParams EltwiseAddParams(const EltwiseFields& fields);

// The inverse, as a compiler writes a descriptor: the add fields of golden's `params` with OP =
// `op`, the clamp y's whole range. Throws std::invalid_argument ("a.bits") for specs other than 8
// bits.
EltwiseFields EltwiseAddFields(const AddParams& params, EltwiseOp op);

// The code of one element before any lookup: the add's (clamped), or operand a's with OP = LUT.
// `byte_a` and `byte_b` are the operands' out SRAM bytes.
int32_t EltwiseCode(const EltwiseFields& fields, const AddParams& add, uint8_t byte_a,
                    uint8_t byte_b);

// Runs a validated ELTWISE on the out SRAM's window image (4 cols bytes per word), reading the
// table SRAM's window image for a lookup. Results: the code's low 8 bits (ADD), or the looked-up
// entry's bits [7:0] (int8 layout) or its 16 bits (int16 layout, Int16OutByte).
void ExecuteEltwise(const EltwiseFields& fields, int cols, const std::vector<uint8_t>& table_sram,
                    std::vector<uint8_t>& out_sram);

// Byte of lane `lane`'s low byte of output entry `entry` in the int16 layout (10.6), from
// `out_base`: word out_base + entry / 2, bytes 2 ((entry mod 2) C + lane) .. +1.
uint64_t Int16OutByte(int cols, uint32_t out_base, uint64_t entry, int lane);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_LUT_UNIT_H_
