#include "golden/program.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "golden/gemm.h"
#include "golden/lut_unit.h"
#include "golden/progress.h"
#include "golden/requant.h"
#include "golden/slope_stage.h"

namespace qacc::golden {

namespace {

// ---- Descriptor fields: the layouts, masks and codes of the spec data (spec/arch_spec.h) ---

namespace desc = arch::desc;
using arch::kMaxInt8ModeClamp;
using arch::kMinInt8ModeClamp;
using arch::kModeActMask;
using arch::kModeAUnsigned;
using arch::kModeBiasEn;
using arch::kModeBUnsigned;
using arch::kModeOutRaw;
using arch::kModePerChannel;
using arch::kShiftBits;
using arch::kZpBits;
using arch::kZpBLsb;
constexpr uint32_t kModeSingleRounding = arch::kModeRounding;  // ROUNDING = 1: single rounding
// Per-tensor MULT and a per-channel multiplier: 0 or 2^30..2^31-1.
constexpr int32_t kMinNonzeroMult = int32_t{arch::kMinNonzeroMult};
constexpr uint32_t kShiftMask = (uint32_t{1} << kShiftBits) - 1;
// The last byte address of the external memory port (EXT_RANGE).
constexpr uint64_t kMaxExtAddress = (uint64_t{1} << 32) - 1;
// rq SRAM lane (3.1): multiplier word at +0, shift word at +4.
constexpr uint32_t kRqLaneBytes = 8;
constexpr uint32_t kRqShiftOffset = 4;

constexpr int32_t SignExtend(uint32_t value, int bits) {
  const uint32_t mask = (uint32_t{1} << bits) - 1;
  const uint32_t sign = uint32_t{1} << (bits - 1);
  const uint32_t v = value & mask;
  return (v & sign) ? static_cast<int32_t>(v) - static_cast<int32_t>(sign << 1)
                    : static_cast<int32_t>(v);
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// ---- The requant form fields of CMD_MODE (requant.md 6.1) ---------------------------------------

bool TpuMlirForm(uint32_t mode) { return mode & arch::kModeRqForm; }
uint32_t RshiftRoundCode(uint32_t mode) {
  return (mode & arch::kModeRshiftRoundMask) >> arch::kModeRshiftRoundLsb;
}
uint32_t MultWidthCode(uint32_t mode) {
  return (mode & arch::kModeMultWidthMask) >> arch::kModeMultWidthLsb;
}
// MULT_WIDTH 0, 1, 2: 8, 16, 32 bits.
int MultWidthBits(uint32_t code) { return 8 << code; }
bool FitsSigned(int64_t value, int bits) {
  const int64_t half = int64_t{1} << (bits - 1);
  return value >= -half && value < half;
}
// The low `bits` bits of `word`, sign-extended (bits 1..32).
int32_t LowBitsSigned(uint32_t word, int bits) {
  const uint64_t sign = uint64_t{1} << (bits - 1);
  const uint64_t v = uint64_t{word} & ((sign << 1) - 1);
  return static_cast<int32_t>(static_cast<int64_t>(v ^ sign) - static_cast<int64_t>(sign));
}
// TPU-MLIR's mode of RSHIFT_ROUND's code 0..6: the field numbers the modes in
// golden::tpu_mlir::kAllRoundings order.
tpu_mlir::Rounding RshiftRounding(uint32_t code) { return tpu_mlir::kAllRoundings[code]; }

bool IsValidOp(uint32_t op) { return op < arch::kNumDescOpcodes; }

// The program error of each check of lut.md 10.3 and 10.5 (10.7), each by name.
ProgramError ErrorOf(EltwiseCheck check) {
  switch (check) {
    case EltwiseCheck::kNone:
      return ProgramError::kNone;
    case EltwiseCheck::kBadShape:
      return ProgramError::kBadShape;
    case EltwiseCheck::kOutRange:
      return ProgramError::kOutRange;
    case EltwiseCheck::kOverlap:
      return ProgramError::kEltOverlap;
    case EltwiseCheck::kLutSlot:
      return ProgramError::kLutSlot;
    case EltwiseCheck::kLutInBits:
      return ProgramError::kLutInBits;
    case EltwiseCheck::kLutEntryBits:
      return ProgramError::kLutEntryBits;
    case EltwiseCheck::kBadAdd:
      return ProgramError::kBadAdd;
  }
  throw std::logic_error("golden: an EltwiseCheck without a program error");
}

template <typename Bytes>  // std::vector<uint8_t> or MemoryImage
uint32_t Load32(const Bytes& bytes, uint64_t offset) {
  return uint32_t{bytes[offset]} | uint32_t{bytes[offset + 1]} << 8 |
         uint32_t{bytes[offset + 2]} << 16 | uint32_t{bytes[offset + 3]} << 24;
}

template <typename Bytes>
void Store32(Bytes& bytes, uint64_t offset, uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

// The SRAM of a valid id (Validate checked it).
const arch::SramInfo& SramOf(uint32_t sram) {
  const arch::SramInfo* info = arch::FindSram(sram);
  if (info == nullptr) throw std::logic_error(fmt::format("golden: no SRAM has id {}", sram));
  return *info;
}

// The SRAM range error of a DMA into `sram` (codes 2..6).
ProgramError RangeErrorOf(uint32_t sram) { return SramOf(sram).range_error; }

// "A", ..., "rq", and the out SRAM by its unit: "out8" (int8 entries), "out16" or "out32" (words).
std::string SramName(uint32_t sram, bool out_int32, bool out_int16) {
  const arch::SramInfo* info = arch::FindSram(sram);
  if (info == nullptr) return "sram?";
  if (info->int8_entries == 1) return info->name;
  return fmt::format("{}{}", info->name, out_int32 ? "32" : out_int16 ? "16" : "8");
}

// Entries of a word of `info` the unit takes: 1 (the word), or the out SRAM's int8 or int16
// entries.
uint64_t EntriesPerWord(const arch::SramInfo& info, bool out_int32, bool out_int16) {
  if (out_int32) return 1;
  return uint64_t(out_int16 ? info.int16_entries : info.int8_entries);
}

// ---- Validation -------------------------------------------------------------------------------

// Architecture.md 4, in the order of its table (after the opcode), with the LUT stage's rules of
// lut.md 10.4. Sums in int64: M, N, K < 2^16 and bases < 2^20, so nothing can wrap.
ProgramError ValidateGemm(const AccelGeometry& geometry, const GemmFields& f) {
  const bool out_raw = f.mode & kModeOutRaw, per_channel = f.mode & kModePerChannel;
  const bool lut = GemmHasLut(f.mode), slope = GemmHasSlope(f.mode);
  // A raw accumulator is not a table's or a slope's input.
  if (f.m == 0 || f.n == 0 || f.k == 0 || ((lut || slope) && out_raw))
    return ProgramError::kBadShape;
  const int64_t mb = CeilDiv(f.m, geometry.rows), nb = CeilDiv(f.n, geometry.cols);
  const int64_t k = f.k;
  if (int64_t{f.a_base} + mb * k > int64_t{geometry.a_depth}) return ProgramError::kARange;
  if (int64_t{f.b_base} + nb * k > int64_t{geometry.b_depth}) return ProgramError::kBRange;
  if ((f.mode & kModeBiasEn) && int64_t{f.bias_base} + nb > int64_t{geometry.bias_depth}) {
    return ProgramError::kBiasRange;
  }
  const int64_t rq_words = RqWordsPerTile(f.mode);
  if (rq_words > 0 && int64_t{f.rq_base} + rq_words * nb > int64_t{geometry.rq_depth}) {
    return ProgramError::kRqRange;
  }
  const uint64_t out_words = GemmOutWords(f.mode, uint64_t(mb * nb), geometry.rows);
  if (uint64_t{f.out_base} + out_words > uint64_t{geometry.out_depth}) {
    return ProgramError::kOutRange;
  }
  if (!out_raw) {
    const bool tpu = TpuMlirForm(f.mode);
    bool bad_form = false;
    if (tpu) {
      // Encodings that name no width or mode.
      bad_form = MultWidthCode(f.mode) >= std::size(kMultiplierRshiftBits) ||
                 RshiftRoundCode(f.mode) >= std::size(tpu_mlir::kAllRoundings);
    } else {
      // The per-tensor SHIFT is checked with PER_CHANNEL too: the table's condition does not
      // depend on it (and the model does the same).
      const int32_t shift = SignExtend(f.shift, kShiftBits);
      const bool bad_shift = shift < kMinQuantizedShift || shift > kMaxQuantizedShift;
      const bool bad_mult = !per_channel && f.mult != 0 && f.mult < kMinNonzeroMult;
      bad_form = bad_shift || bad_mult;
    }
    const bool bad_order = f.clamp_min > f.clamp_max;
    const bool bad_bound = f.clamp_min < kMinInt8ModeClamp || f.clamp_min > kMaxInt8ModeClamp ||
                           f.clamp_max < kMinInt8ModeClamp || f.clamp_max > kMaxInt8ModeClamp;
    if (bad_form || bad_order || bad_bound) return ProgramError::kBadRequant;
    if (tpu && !per_channel) {
      if (!FitsSigned(int64_t{f.mult}, MultWidthBits(MultWidthCode(f.mode)))) {
        return ProgramError::kMultWidth;
      }
      if ((f.shift & kShiftMask) > uint32_t{kMaxRequantRshift}) return ProgramError::kRshiftRange;
    }
  }
  const int32_t a_zp = SignExtend(f.zp_ab, kZpBits), b_zp = SignExtend(f.zp_ab >> kZpBLsb, kZpBits);
  if (a_zp < kMinOperandZeroPoint || a_zp > kMaxOperandZeroPoint || b_zp < kMinOperandZeroPoint ||
      b_zp > kMaxOperandZeroPoint) {
    return ProgramError::kBadZp;
  }
  if ((f.mode & kModeActMask) != 0 && !lut && !slope) return ProgramError::kUnitAbsent;
  if (lut) return ErrorOf(CheckLutFields(GemmLutFields(f.mode), geometry.lut_slots));
  // The slope's input zero point; its registers are ValidateSlopeAtFetch's (requant.md 6.2).
  const auto zp_out = static_cast<int32_t>(f.zp_out);
  if (slope && (zp_out < kMinInt8ModeClamp || zp_out > kMaxInt8ModeClamp))
    return ProgramError::kBadSlope;
  return ProgramError::kNone;
}

// Data_movement.md 12, in its order. Every bound in uint64: the last unit is below 2^37 and the
// last external byte below 2^50.
ProgramError ValidateDma(const AccelGeometry& geometry, const DmaFields& f) {
  // OUT_INT32 and OUT_INT16 together: the reserved unit (lut.md 10.6), whatever the SRAM.
  if (f.count0 == 0 || f.count1 == 0 || f.count2 == 0 || (f.out_int32 && f.out_int16)) {
    return ProgramError::kBadShape;
  }
  if (arch::FindSram(f.sram) == nullptr) {
    return ProgramError::kBadSram;
  }
  const uint64_t last_unit = uint64_t{f.sram_base} + (f.count0 - 1) +
                             uint64_t{f.count1 - 1} * f.sram_stride1 +
                             uint64_t{f.count2 - 1} * f.sram_stride2;
  if (last_unit >= SramUnits(geometry, f.sram, f.out_int32, f.out_int16)) {
    return RangeErrorOf(f.sram);
  }
  const uint32_t unit = UnitBytes(geometry, f.sram, f.out_int32, f.out_int16);
  if (f.ext_addr % unit != 0 || f.ext_stride1 % unit != 0 || f.ext_stride2 % unit != 0) {
    return ProgramError::kExtAlign;
  }
  const uint64_t last_byte = uint64_t{f.ext_addr} + uint64_t{f.count0} * unit - 1 +
                             uint64_t{f.count1 - 1} * f.ext_stride1 +
                             uint64_t{f.count2 - 1} * f.ext_stride2;
  if (last_byte > kMaxExtAddress) return ProgramError::kExtRange;
  return ProgramError::kNone;
}

// Data_movement.md 13, in its order. The COUNT0 limit depends on DST, so it applies only to a DST
// of 1 or 2; any other DST is BAD_SRAM (unless a count is 0).
ProgramError ValidateMove(const AccelGeometry& geometry, const MoveFields& f) {
  const bool into_a = f.dst == static_cast<uint32_t>(Sram::kA);
  const bool into_b = f.dst == static_cast<uint32_t>(Sram::kB);
  if (f.count0 == 0 || f.count1 == 0 || f.count2 == 0) return ProgramError::kBadShape;
  if ((into_a && f.count0 > uint32_t(geometry.cols)) ||
      (into_b && f.count0 > uint32_t(geometry.rows))) {
    return ProgramError::kBadShape;
  }
  if (!into_a && !into_b) return ProgramError::kBadSram;
  const uint64_t last_entry = uint64_t{f.src_base} + uint64_t{f.count1 - 1} * f.src_stride1 +
                              uint64_t{f.count2 - 1} * f.src_stride2 + geometry.rows - 1;
  if (f.src_base % 4 != 0 || f.src_stride1 % 4 != 0 || f.src_stride2 % 4 != 0 ||
      last_entry > 4 * uint64_t{geometry.out_depth} - 1) {
    return ProgramError::kOutRange;
  }
  const uint64_t last_word = uint64_t{f.dst_base} + uint64_t{f.count1 - 1} * f.dst_stride1 +
                             uint64_t{f.count2 - 1} * f.dst_stride2 + f.count0 - 1;
  if (into_a && last_word >= geometry.a_depth) return ProgramError::kARange;
  if (into_b && last_word >= geometry.b_depth) return ProgramError::kBRange;
  return ProgramError::kNone;
}

// The ten values of a SET into the slope block, in register order.
SlopeRegisters SlopeValuesOf(const SetFields& f) {
  SlopeRegisters values{};
  std::copy_n(f.value.begin(), kSlopeRegisterCount, values.begin());
  return values;
}

// Units.md 19.4, in its order: COUNT, then the registers: exactly those of one present unit's block
// (the registers of the spec data in that block, all of them), then the unit's own check of the
// values (the slope stage's, requant.md 6.2).
ProgramError ValidateSet(const SetFields& f) {
  if (f.count == 0 || f.count > uint32_t(arch::kMaxSetCount)) return ProgramError::kBadShape;
  const uint32_t first = 4 * f.reg, block = first / arch::kUnitBlockBytes;
  const bool present_unit = std::any_of(
      std::begin(arch::kUnits), std::end(arch::kUnits), [block](const arch::UnitInfo& u) {
        return u.present && u.block != 0 && uint32_t(u.block) == block;
      });
  // The unit's registers: those of the spec data in its block (an absent unit's are not generated).
  std::vector<uint32_t> in_block;
  for (const arch::RegisterInfo& r : arch::kRegisters) {
    if (r.offset / arch::kUnitBlockBytes == block && block >= 2) in_block.push_back(r.offset);
  }
  if (!present_unit || in_block.empty() || first != in_block.front() ||
      f.count != in_block.size()) {
    return ProgramError::kBadSet;
  }
  if (first == arch::reg::kSlopePosMult && !SlopeRegistersLegal(SlopeValuesOf(f))) {
    return ProgramError::kBadSlope;
  }
  return ProgramError::kNone;
}

// ---- Execution --------------------------------------------------------------------------------

// Unit (i0, i1, i2) of 12, in the order i2, i1, i0. A LOAD writes an rq shift word as the window
// stores it (bits [5:0] in byte 0); a STORE reads it as the window returns it (sign-extended).
ProgramError ExecuteDma(const AccelGeometry& geometry, bool load, const DmaFields& f,
                        MachineState& state) {
  const uint32_t unit = UnitBytes(geometry, f.sram, f.out_int32, f.out_int16);
  std::vector<uint8_t>& sram = state.sram(static_cast<Sram>(f.sram));
  const bool rq = f.sram == static_cast<uint32_t>(Sram::kRq);
  for (uint64_t i2 = 0; i2 < f.count2; ++i2) {
    for (uint64_t i1 = 0; i1 < f.count1; ++i1) {
      for (uint64_t i0 = 0; i0 < f.count0; ++i0) {
        const uint64_t sram_byte =
            (f.sram_base + i0 + i1 * f.sram_stride1 + i2 * f.sram_stride2) * unit;
        const uint64_t ext_byte = f.ext_addr + i0 * unit + i1 * f.ext_stride1 + i2 * f.ext_stride2;
        if (ext_byte + unit > state.ext.size()) return ProgramError::kExtFault;
        // A LOAD reads the image without marking its pages written.
        uint8_t* dst = load ? &sram[sram_byte] : state.ext.Span(ext_byte, unit);
        const uint8_t* src = load ? std::as_const(state.ext).data() + ext_byte : &sram[sram_byte];
        std::copy(src, src + unit, dst);
        if (!rq) continue;
        for (uint32_t lane = 0; lane < unit; lane += kRqLaneBytes) {
          uint8_t* shift = dst + lane + kRqShiftOffset;
          const uint32_t value =
              load ? (shift[0] & kShiftMask)
                   : static_cast<uint32_t>(SignExtend(src[lane + kRqShiftOffset], kShiftBits));
          for (int b = 0; b < 4; ++b) shift[b] = static_cast<uint8_t>(value >> (8 * b));
        }
      }
    }
  }
  return ProgramError::kNone;
}

// Tile (i1, i2) of 13. Output entry e of the int8 layout (6.3) is the C bytes at e * C of the out
// window (word e / 4, bytes (e mod 4) * C ..).
void ExecuteMove(const AccelGeometry& geometry, const MoveFields& f, MachineState& state) {
  const uint64_t rows = geometry.rows, cols = geometry.cols;
  const bool into_a = f.dst == static_cast<uint32_t>(Sram::kA);
  std::vector<uint8_t>& dst = state.sram(into_a ? Sram::kA : Sram::kB);
  for (uint64_t i2 = 0; i2 < f.count2; ++i2) {
    for (uint64_t i1 = 0; i1 < f.count1; ++i1) {
      const uint64_t s = f.src_base + i1 * f.src_stride1 + i2 * f.src_stride2;
      const uint64_t d = f.dst_base + i1 * f.dst_stride1 + i2 * f.dst_stride2;
      for (uint64_t j = 0; j < f.count0; ++j) {
        if (into_a) {  // A word d + j, lane r = entry s + r, lane j: the transpose
          for (uint64_t r = 0; r < rows; ++r)
            dst[(d + j) * rows + r] = state.out[(s + r) * cols + j];
        } else {  // B word d + j = entry s + j
          std::copy_n(&state.out[(s + j) * cols], cols, &dst[(d + j) * cols]);
        }
      }
    }
  }
}

// The requant parameters of lane c of column tile nb (architecture.md 5.2, requant.md 6.1): the
// command's, or with PER_CHANNEL its rq SRAM entry's. Throws std::domain_error for an entry the
// spec gives no result for (per-channel words are not checked at fetch).
RequantParams LaneRequant(const GemmFields& f, const MachineState& state, int64_t nb, int64_t c,
                          int64_t cols) {
  RequantParams params;
  params.output_zero_point = f.zp_out;
  params.clamp_min = f.clamp_min;
  params.clamp_max = f.clamp_max;
  uint32_t mult_word = static_cast<uint32_t>(f.mult), shift_byte = f.shift & kShiftMask;
  const bool per_channel = f.mode & kModePerChannel;
  const uint64_t word = uint64_t{f.rq_base} + uint64_t(RqWordsPerTile(f.mode) * nb);
  const uint64_t entry = (word * uint64_t(cols) + uint64_t(c)) * kRqLaneBytes;
  if (per_channel) {
    mult_word = Load32(state.rq, entry);
    shift_byte = state.rq[entry + kRqShiftOffset];
  }
  if (TpuMlirForm(f.mode)) {
    params.form = RequantForm::kTpuMlir;
    params.mult_bits = MultWidthBits(MultWidthCode(f.mode));
    params.rshift_rounding = RshiftRounding(RshiftRoundCode(f.mode));
    params.multiplier = LowBitsSigned(mult_word, params.mult_bits);
    params.shift = static_cast<int>(shift_byte);
    if (per_channel &&
        (params.multiplier != WrapToInt32(mult_word) || params.shift > kMaxRequantRshift)) {
      throw std::domain_error(fmt::format(
          "rq: word {} lane {} holds (multiplier {}, rshift {}), not a {}-bit multiplier and an "
          "rshift 0..{}; the spec defines no result",
          word, c, WrapToInt32(mult_word), shift_byte, params.mult_bits, kMaxRequantRshift));
    }
    return params;
  }
  params.rounding = (f.mode & kModeSingleRounding) ? RequantRounding::kSingleRounding
                                                   : RequantRounding::kDoubleRounding;
  params.multiplier = WrapToInt32(mult_word);
  params.shift = SignExtend(shift_byte, kShiftBits);
  if (per_channel && ((params.multiplier != 0 && params.multiplier < kMinNonzeroMult) ||
                      params.shift < kMinQuantizedShift || params.shift > kMaxQuantizedShift)) {
    throw std::domain_error(fmt::format(
        "rq: word {} lane {} holds (multiplier {}, shift {}), outside 0 or 2^30..2^31-1 "
        "and -31..30; the spec defines no result",
        word, c, params.multiplier, params.shift));
  }
  return params;
}

// The slope stage of lane c of column tile nb: the registers' (requant.md 6.2), or with
// SLOPE_PER_CHANNEL the NEG side from the tile's slope word (6.3). Throws std::domain_error for
// words the spec gives no result for.
SlopeStageParams LaneSlope(const GemmFields& f, const MachineState& state,
                           const SlopeStageParams& registers, int64_t nb, int64_t c, int64_t cols) {
  if (!(f.mode & arch::kModeSlopePerChannel)) return registers;
  const bool first_stage_word = f.mode & kModePerChannel;
  const uint64_t word =
      uint64_t{f.rq_base} + uint64_t(RqWordsPerTile(f.mode) * nb) + (first_stage_word ? 1 : 0);
  const uint64_t entry = (word * uint64_t(cols) + uint64_t(c)) * kRqLaneBytes;
  SlopeChannelWords words;
  words.mult = Load32(state.rq, entry);
  words.shift = state.rq[entry + kRqShiftOffset];
  const std::optional<SlopeStageParams> lane = ApplySlopeChannelWords(registers, words);
  if (!lane) {
    throw std::domain_error(fmt::format(
        "rq: slope word {} lane {} holds (multiplier word {:#x}, shift byte {}), no legal NEG "
        "side of its form; the spec defines no result",
        word, c, words.mult, words.shift));
  }
  return *lane;
}

// Architecture.md 5 and 6 on the SRAM images: panels unpacked (6.1), padded lanes factor 0 (6.2),
// accumulators mod 2^32, bias, requant, output layout (6.3). Only rows i < m_valid and lanes
// c < n_valid are written.
void ExecuteGemm(const AccelGeometry& geometry, const GemmFields& f, MachineState& state) {
  const int64_t rows = geometry.rows, cols = geometry.cols;
  const int64_t m = f.m, n = f.n, k = f.k;
  const int64_t mb_count = CeilDiv(m, rows), nb_count = CeilDiv(n, cols);
  const int32_t a_zp = SignExtend(f.zp_ab, kZpBits), b_zp = SignExtend(f.zp_ab >> kZpBLsb, kZpBits);
  const bool a_unsigned = f.mode & kModeAUnsigned, b_unsigned = f.mode & kModeBUnsigned;
  const bool out_raw = f.mode & kModeOutRaw, bias_en = f.mode & kModeBiasEn;
  const bool lut = GemmHasLut(f.mode);
  const LutFields lut_fields = GemmLutFields(f.mode);
  // The slope stage (requant.md 6.2) on the first stage's code, with the registers as they are now.
  std::optional<SlopeStageParams> slope;
  if (GemmHasSlope(f.mode)) {
    slope = DecodeSlopeRegisters(state.slope_registers());
    if (!slope)
      throw std::logic_error(
          "golden: ACT = SLOPE with registers no form has (ValidateSlopeAtFetch)");
  }
  auto operand = [](uint8_t code, bool is_unsigned) {
    return is_unsigned ? int32_t{code} : int32_t{static_cast<int8_t>(code)};
  };
  // Factors (operand - zp), -383..383, one row per padded output row / column: a_factor[row * K +
  // k], b_factor[col * K + k]. Their count is bounded by the A and B SRAM sizes.
  std::vector<int16_t> a_factor(size_t(mb_count * rows * k), 0);
  for (int64_t mb = 0; mb < mb_count; ++mb) {
    const int64_t m_valid = std::min(rows, m - mb * rows);
    for (int64_t kk = 0; kk < k; ++kk) {
      const uint64_t word = f.a_base + mb * k + kk;
      for (int64_t r = 0; r < m_valid; ++r) {
        a_factor[size_t((mb * rows + r) * k + kk)] =
            static_cast<int16_t>(operand(state.a[word * rows + r], a_unsigned) - a_zp);
      }
    }
  }
  std::vector<int16_t> b_factor(size_t(nb_count * cols * k), 0);
  for (int64_t nb = 0; nb < nb_count; ++nb) {
    const int64_t n_valid = std::min(cols, n - nb * cols);
    for (int64_t kk = 0; kk < k; ++kk) {
      const uint64_t word = f.b_base + nb * k + kk;
      for (int64_t c = 0; c < n_valid; ++c) {
        b_factor[size_t((nb * cols + c) * k + kk)] =
            static_cast<int16_t>(operand(state.b[word * cols + c], b_unsigned) - b_zp);
      }
    }
  }
  const uint64_t out_word_bytes = 4 * uint64_t(cols);
  for (int64_t mb = 0; mb < mb_count; ++mb) {
    const int64_t m_valid = std::min(rows, m - mb * rows);
    for (int64_t nb = 0; nb < nb_count; ++nb) {
      const int64_t n_valid = std::min(cols, n - nb * cols);
      const int64_t t = mb * nb_count + nb;
      for (int64_t c = 0; c < n_valid; ++c) {
        const uint64_t lane = (uint64_t{f.bias_base} + nb) * cols + c;
        const int32_t bias = bias_en ? WrapToInt32(Load32(state.bias, lane * 4)) : 0;
        const RequantParams params = out_raw ? RequantParams{} : LaneRequant(f, state, nb, c, cols);
        const std::optional<SlopeStageParams> lane_slope =
            slope ? std::optional(LaneSlope(f, state, *slope, nb, c, cols)) : std::nullopt;
        const int16_t* b_col = &b_factor[size_t((nb * cols + c) * k)];
        for (int64_t i = 0; i < m_valid; ++i) {
          const int16_t* a_row = &a_factor[size_t((mb * rows + i) * k)];
          uint32_t acc = static_cast<uint32_t>(bias);  // wraps like the 32-bit adder
          for (int64_t kk = 0; kk < k; ++kk) {
            acc += static_cast<uint32_t>(int32_t{a_row[kk]} * int32_t{b_col[kk]});
          }
          const int32_t x = WrapToInt32(acc);
          const uint64_t e = uint64_t(t * rows + i);
          if (out_raw) {
            Store32(state.out, (f.out_base + e) * out_word_bytes + 4 * c, static_cast<uint32_t>(x));
            continue;
          }
          int64_t y = RequantizeAccumulator(x, params);
          if (lane_slope)
            y = SlopeStage(static_cast<int32_t>(y), static_cast<int32_t>(f.zp_out), *lane_slope);
          if (!lut) {
            state.out[(f.out_base + e / 4) * out_word_bytes + (e % 4) * cols + c] =
                static_cast<uint8_t>(static_cast<uint64_t>(y) & 0xFF);
            continue;
          }
          // The LUT stage (lut.md 10.4): the code's low bits address the slot.
          const uint32_t entry = LutRead(state.lut, lut_fields, static_cast<int32_t>(y));
          if (lut_fields.entry_bits == 8) {
            state.out[(f.out_base + e / 4) * out_word_bytes + (e % 4) * cols + c] =
                static_cast<uint8_t>(entry);
          } else {
            const uint64_t byte = Int16OutByte(int(cols), f.out_base, e, int(c));
            state.out[byte] = static_cast<uint8_t>(entry);
            state.out[byte + 1] = static_cast<uint8_t>(entry >> 8);
          }
        }
      }
    }
  }
}

// ---- Footprints -------------------------------------------------------------------------------

// More rows than this in one strided pattern are summarised by their hull (a superset, so a race
// check stays sound); no realistic command comes near it.
constexpr uint64_t kMaxPatternRows = uint64_t{1} << 20;

// Sorts and merges touching or overlapping intervals of each memory.
void Normalize(std::vector<Interval>& intervals) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& x, const Interval& y) {
    return std::tie(x.memory, x.begin, x.end) < std::tie(y.memory, y.begin, y.end);
  });
  std::vector<Interval> merged;
  for (const Interval& in : intervals) {
    if (in.begin >= in.end) continue;
    if (!merged.empty() && merged.back().memory == in.memory && in.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, in.end);
    } else {
      merged.push_back(in);
    }
  }
  intervals = std::move(merged);
}

// The bytes [base + i1 * stride1 + i2 * stride2, + length) for i1 < count1, i2 < count2, appended
// to `out` (unmerged). A dimension whose stride is 0 repeats the same bytes; one whose stride is at
// most the extent of the inner part extends it into a single interval.
void AppendPattern(uint8_t memory, uint64_t base, uint64_t stride1, uint64_t stride2,
                   uint64_t count1, uint64_t count2, uint64_t length, std::vector<Interval>& out) {
  if (count1 == 1 || stride1 == 0) count1 = 1;
  if (count1 > 1 && stride1 <= length) length += (count1 - 1) * stride1, count1 = 1;
  if (count2 == 1 || stride2 == 0) count2 = 1;
  if (count1 == 1 && count2 > 1 && stride2 <= length) {
    length += (count2 - 1) * stride2, count2 = 1;
  }
  if (count1 * count2 > kMaxPatternRows) {
    out.push_back({memory, base, base + (count1 - 1) * stride1 + (count2 - 1) * stride2 + length});
    return;
  }
  for (uint64_t i2 = 0; i2 < count2; ++i2) {
    for (uint64_t i1 = 0; i1 < count1; ++i1) {
      const uint64_t begin = base + i1 * stride1 + i2 * stride2;
      out.push_back({memory, begin, begin + length});
    }
  }
}

// The first bytes (lowest memory, then lowest address) where two normalized lists overlap.
std::optional<Interval> FirstOverlap(const std::vector<Interval>& x,
                                     const std::vector<Interval>& y) {
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    const Interval& p = x[i];
    const Interval& q = y[j];
    if (p.memory != q.memory) {
      (p.memory < q.memory ? i : j)++;
      continue;
    }
    const uint64_t begin = std::max(p.begin, q.begin), end = std::min(p.end, q.end);
    if (begin < end) return Interval{p.memory, begin, end};
    (p.end <= q.end ? i : j)++;
  }
  return std::nullopt;
}

bool Before(const Interval& x, const Interval& y) {
  return std::tie(x.memory, x.begin) < std::tie(y.memory, y.begin);
}

// ---- The queue (14) ---------------------------------------------------------------------------

Engine Other(Engine engine) { return engine == Engine::kDma ? Engine::kCompute : Engine::kDma; }

// One untimed run of the fetcher, the two engines and the two token counters. The schedule: the
// engines run as far as they can, then the fetcher fetches one descriptor, and again, until
// nothing moves. Each command runs atomically. Any schedule gives the same memories for a
// race-free program (14.2); this one lets every descriptor run as early as tokens allow, so at a
// validation error or a faulting fetch every earlier descriptor that can complete has completed.
class QueueRun {
 public:
  QueueRun(const AccelGeometry& geometry, uint32_t q_base, uint32_t count, MachineState& state)
      : geometry_(geometry),
        q_base_(q_base),
        count_(count),
        state_(state),
        launch_slope_(state.slope_registers()) {}

  ProgramResult Run() {
    ProgramResult result;
    if (count_ == 0) {
      result.error = ProgramError::kBadShape;
      result.error_index = 0;
      return result;
    }
    while (true) {
      RunEngines();
      if (fault_index_ >= 0 || !FetchOne()) break;
    }
    result.retired = static_cast<int>(completion_order_.size());
    result.completion_order = completion_order_;
    if (fault_index_ >= 0) {  // EXT_FAULT: it ends everything, whatever was pending
      result.error = ProgramError::kExtFault;
      result.error_index = fault_index_;
    } else if (invalid_index_ >= 0) {  // the first error wins over a later deadlock
      result.error = invalid_error_;
      result.error_index = invalid_index_;
    } else if (result.retired < static_cast<int>(count_)) {
      result.error = ProgramError::kDeadlock;
      result.error_index = std::numeric_limits<int>::max();
      for (const EngineState& engine : engines_) {
        if (!engine.queue.empty()) {
          result.error_index = std::min(result.error_index, engine.queue.front());
        }
      }
    }
    return result;
  }

 private:
  // A queue holds a descriptor from its push until it retires, the one at the front being the
  // one the engine runs (or waits to start, or whose SIGNAL waits for room): the engine reads its
  // fields in place, as part 1's units read the CMD_* registers. Depth counts all of them.
  struct EngineState {
    std::deque<int> queue;
    bool signal_pending = false;  // the front has run; its SIGNAL waits for a counter below 15
  };

  EngineState& engine(Engine e) { return engines_[static_cast<int>(e)]; }
  // The counter towards engine e: d2c for the compute engine, c2d for the DMA engine.
  int& tokens_to(Engine e) { return tokens_[static_cast<int>(e)]; }

  void RunEngines() {
    bool moved = true;
    while (moved && fault_index_ < 0) {
      moved = Step(Engine::kDma);
      if (fault_index_ < 0) moved = Step(Engine::kCompute) || moved;
    }
  }

  // Starts (and completes) the front command of `e`, or deposits its pending SIGNAL token.
  // Returns whether anything changed.
  bool Step(Engine e) {
    EngineState& s = engine(e);
    if (s.queue.empty()) return false;
    const int index = s.queue.front();
    bool moved = false;
    if (!s.signal_pending) {
      const Header header = DecodeHeader(fetched_[index]);
      if (header.wait) {
        if (tokens_to(e) == 0) return false;
        --tokens_to(e);
      }
      if (Execute(geometry_, fetched_[index], state_) != ProgramError::kNone) {
        fault_index_ = index;  // only EXT_FAULT can come back from a valid descriptor
        return true;
      }
      moved = true;
      if (!header.signal) {
        Retire(e);
        return true;
      }
      s.signal_pending = true;
    }
    if (tokens_to(Other(e)) == kMaxTokens) return moved;  // the engine waits; no error
    ++tokens_to(Other(e));
    s.signal_pending = false;
    Retire(e);
    return true;
  }

  // A command retires when it has run and its SIGNAL token, if any, is deposited: Q_RETIRED and
  // Q_ERR_INDEX of a DEADLOCK count a command blocked on a full counter as not completed.
  void Retire(Engine e) {
    completion_order_.push_back(engine(e).queue.front());
    engine(e).queue.pop_front();
    ReportProgress("golden program", "descriptors", completion_order_.size(), count_);
  }

  // Reads (once), validates and pushes the next descriptor. Returns whether one was pushed.
  bool FetchOne() {
    if (invalid_index_ >= 0 || next_ >= count_) return false;
    if (!held_) {
      const uint64_t address = uint64_t{q_base_} + uint64_t{next_} * kDescriptorBytes;
      if (address + kDescriptorBytes > state_.ext.size()) {
        fault_index_ = static_cast<int>(next_);
        return false;
      }
      Descriptor d;
      for (int w = 0; w < kDescriptorWords; ++w) d[w] = Load32(state_.ext, address + 4 * w);
      ProgramError error = Validate(geometry_, d);
      if (error == ProgramError::kNone)
        error = ValidateSlopeAtFetch(d, launch_slope_, slope_set_seen_);
      slope_set_seen_ = slope_set_seen_ || (error == ProgramError::kNone && SetsSlope(d));
      if (error != ProgramError::kNone) {
        invalid_error_ = error;
        invalid_index_ = static_cast<int>(next_);
        return false;
      }
      fetched_.push_back(d);
      held_ = true;
    }
    const Engine e = EngineOf(static_cast<Op>(DecodeHeader(fetched_.back()).op));
    if (engine(e).queue.size() >= size_t{kQueueDepth}) return false;  // waits with it in hand
    engine(e).queue.push_back(static_cast<int>(next_));
    held_ = false;
    ++next_;
    return true;
  }

  const AccelGeometry& geometry_;
  uint32_t q_base_;
  uint32_t count_;
  MachineState& state_;
  std::vector<Descriptor> fetched_;  // by index
  bool held_ = false;                // fetched_.back() is read and valid but not yet pushed
  // Requant.md 6.2: the slope registers at the launch, and whether a SET into them was fetched
  // since.
  SlopeRegisters launch_slope_;
  bool slope_set_seen_ = false;
  uint32_t next_ = 0;                // the next descriptor to push
  EngineState engines_[2];
  int tokens_[2] = {0, 0};
  std::vector<int> completion_order_;
  int fault_index_ = -1;
  int invalid_index_ = -1;
  ProgramError invalid_error_ = ProgramError::kNone;
};

}  // namespace

const char* ProgramErrorName(ProgramError error) { return arch::ErrCodeName(error); }

// ---- Encoding ---------------------------------------------------------------------------------

namespace {

void PutHeader(Op op, Header flags, Descriptor& d) {
  desc::Put(d, desc::header::kOp, static_cast<uint32_t>(op));
  desc::Put(d, desc::header::kWait, flags.wait);
  desc::Put(d, desc::header::kSignal, flags.signal);
}

}  // namespace

Descriptor EncodeDma(Op op, const DmaFields& fields, Header flags) {
  if (op != Op::kLoad && op != Op::kStore) {
    throw std::invalid_argument(
        fmt::format("op: {} is not LOAD (1) or STORE (2)", static_cast<int>(op)));
  }
  namespace f = desc::dma;
  Descriptor d{};
  desc::Put(d, f::kCount0, fields.count0);
  desc::Put(d, f::kCount1, fields.count1);
  desc::Put(d, f::kCount2, fields.count2);
  desc::Put(d, f::kSramBase, fields.sram_base);
  desc::Put(d, f::kSramStride1, fields.sram_stride1);
  desc::Put(d, f::kSramStride2, fields.sram_stride2);
  desc::Put(d, f::kExtAddr, fields.ext_addr);
  desc::Put(d, f::kExtStride1, fields.ext_stride1);
  desc::Put(d, f::kExtStride2, fields.ext_stride2);
  desc::Put(d, f::kSram, fields.sram);
  desc::Put(d, f::kOutInt32, fields.out_int32);
  desc::Put(d, f::kOutInt16, fields.out_int16);
  PutHeader(op, flags, d);
  return d;
}

Descriptor EncodeMove(const MoveFields& fields, Header flags) {
  namespace f = desc::move;
  Descriptor d{};
  desc::Put(d, f::kCount0, fields.count0);
  desc::Put(d, f::kCount1, fields.count1);
  desc::Put(d, f::kCount2, fields.count2);
  desc::Put(d, f::kDstBase, fields.dst_base);
  desc::Put(d, f::kDstStride1, fields.dst_stride1);
  desc::Put(d, f::kDstStride2, fields.dst_stride2);
  desc::Put(d, f::kSrcBase, fields.src_base);
  desc::Put(d, f::kSrcStride1, fields.src_stride1);
  desc::Put(d, f::kSrcStride2, fields.src_stride2);
  desc::Put(d, f::kDst, fields.dst);
  PutHeader(Op::kMove, flags, d);
  return d;
}

Descriptor EncodeGemm(const GemmFields& fields, Header flags) {
  namespace f = desc::gemm;
  Descriptor d{};
  desc::Put(d, f::kM, fields.m);
  desc::Put(d, f::kN, fields.n);
  desc::Put(d, f::kK, fields.k);
  desc::Put(d, f::kABase, fields.a_base);
  desc::Put(d, f::kBBase, fields.b_base);
  desc::Put(d, f::kBiasBase, fields.bias_base);
  desc::Put(d, f::kRqBase, fields.rq_base);
  desc::Put(d, f::kOutBase, fields.out_base);
  desc::PutWord(d, f::kCmdModeFields, fields.mode);  // GemmFields keeps these as register words
  desc::PutWord(d, f::kCmdZpAbFields, fields.zp_ab);
  desc::Put(d, f::kZpOut, static_cast<uint32_t>(fields.zp_out));
  desc::Put(d, f::kClampMin, static_cast<uint32_t>(fields.clamp_min));
  desc::Put(d, f::kClampMax, static_cast<uint32_t>(fields.clamp_max));
  desc::Put(d, f::kMult, static_cast<uint32_t>(fields.mult));
  desc::Put(d, f::kShift, fields.shift);
  PutHeader(Op::kGemm, flags, d);
  return d;
}

Header DecodeHeader(const Descriptor& d) {
  Header header;
  header.op = desc::Get(d, desc::header::kOp);
  header.wait = desc::Get(d, desc::header::kWait);
  header.signal = desc::Get(d, desc::header::kSignal);
  return header;
}

DmaFields DecodeDma(const Descriptor& d) {
  namespace f = desc::dma;
  DmaFields r;
  r.count0 = desc::Get(d, f::kCount0);
  r.count1 = desc::Get(d, f::kCount1);
  r.count2 = desc::Get(d, f::kCount2);
  r.sram_base = desc::Get(d, f::kSramBase);
  r.sram_stride1 = desc::Get(d, f::kSramStride1);
  r.sram_stride2 = desc::Get(d, f::kSramStride2);
  r.ext_addr = desc::Get(d, f::kExtAddr);
  r.ext_stride1 = desc::Get(d, f::kExtStride1);
  r.ext_stride2 = desc::Get(d, f::kExtStride2);
  r.sram = desc::Get(d, f::kSram);
  r.out_int32 = desc::Get(d, f::kOutInt32);
  r.out_int16 = desc::Get(d, f::kOutInt16);
  return r;
}

Descriptor EncodeEltwise(const EltwiseFields& fields, Header flags) {
  namespace f = desc::eltwise;
  Descriptor d{};
  desc::Put(d, f::kCount, fields.count);
  desc::Put(d, f::kSrcA, fields.src_a);
  desc::Put(d, f::kSrcB, fields.src_b);
  desc::Put(d, f::kDst, fields.dst);
  desc::Put(d, f::kOp, fields.op);
  desc::Put(d, f::kForm, fields.form);
  desc::Put(d, f::kAUnsigned, fields.a_unsigned);
  desc::Put(d, f::kBUnsigned, fields.b_unsigned);
  desc::Put(d, f::kYUnsigned, fields.y_unsigned);
  desc::Put(d, f::kRounding, fields.rounding);
  desc::Put(d, f::kWrap, fields.wrap);
  desc::Put(d, f::kLutSlot, fields.lut.slot);
  desc::Put(d, f::kLutInBits, fields.lut.in_bits);
  desc::Put(d, f::kLutEntryBits, fields.lut.entry_bits);
  desc::Put(d, f::kZpA, uint32_t(fields.zp_a));
  desc::Put(d, f::kZpB, uint32_t(fields.zp_b));
  desc::Put(d, f::kZpY, uint32_t(fields.zp_y));
  desc::Put(d, f::kLeftShift, fields.left_shift);
  desc::Put(d, f::kClampMin, uint32_t(fields.clamp_min));
  desc::Put(d, f::kClampMax, uint32_t(fields.clamp_max));
  desc::Put(d, f::kMultA, fields.mult_a);
  desc::Put(d, f::kMultB, fields.mult_b);
  desc::Put(d, f::kMultY, fields.mult_y);
  desc::Put(d, f::kShiftA, uint32_t(fields.shift_a));
  desc::Put(d, f::kShiftB, uint32_t(fields.shift_b));
  desc::Put(d, f::kShiftY, uint32_t(fields.shift_y));
  desc::Put(d, f::kRshift, fields.rshift);
  PutHeader(Op::kEltwise, flags, d);
  return d;
}

EltwiseFields DecodeEltwise(const Descriptor& d) {
  namespace f = desc::eltwise;
  const auto get_signed = [&](desc::Field field) {
    return SignExtend(desc::Get(d, field), field.width);
  };
  EltwiseFields r;
  r.count = desc::Get(d, f::kCount);
  r.src_a = desc::Get(d, f::kSrcA);
  r.src_b = desc::Get(d, f::kSrcB);
  r.dst = desc::Get(d, f::kDst);
  r.op = desc::Get(d, f::kOp);
  r.form = desc::Get(d, f::kForm);
  r.a_unsigned = desc::Get(d, f::kAUnsigned) != 0;
  r.b_unsigned = desc::Get(d, f::kBUnsigned) != 0;
  r.y_unsigned = desc::Get(d, f::kYUnsigned) != 0;
  r.rounding = desc::Get(d, f::kRounding);
  r.wrap = desc::Get(d, f::kWrap) != 0;
  r.lut.slot = desc::Get(d, f::kLutSlot);
  r.lut.in_bits = desc::Get(d, f::kLutInBits);
  r.lut.entry_bits = desc::Get(d, f::kLutEntryBits);
  r.zp_a = get_signed(f::kZpA);
  r.zp_b = get_signed(f::kZpB);
  r.zp_y = get_signed(f::kZpY);
  r.left_shift = desc::Get(d, f::kLeftShift);
  r.clamp_min = get_signed(f::kClampMin);
  r.clamp_max = get_signed(f::kClampMax);
  r.mult_a = desc::Get(d, f::kMultA);
  r.mult_b = desc::Get(d, f::kMultB);
  r.mult_y = desc::Get(d, f::kMultY);
  r.shift_a = get_signed(f::kShiftA);
  r.shift_b = get_signed(f::kShiftB);
  r.shift_y = get_signed(f::kShiftY);
  r.rshift = desc::Get(d, f::kRshift);
  return r;
}

MoveFields DecodeMove(const Descriptor& d) {
  namespace f = desc::move;
  MoveFields r;
  r.count0 = desc::Get(d, f::kCount0);
  r.count1 = desc::Get(d, f::kCount1);
  r.count2 = desc::Get(d, f::kCount2);
  r.dst_base = desc::Get(d, f::kDstBase);
  r.dst_stride1 = desc::Get(d, f::kDstStride1);
  r.dst_stride2 = desc::Get(d, f::kDstStride2);
  r.src_base = desc::Get(d, f::kSrcBase);
  r.src_stride1 = desc::Get(d, f::kSrcStride1);
  r.src_stride2 = desc::Get(d, f::kSrcStride2);
  r.dst = desc::Get(d, f::kDst);
  return r;
}

GemmFields DecodeGemm(const Descriptor& d) {
  namespace f = desc::gemm;
  GemmFields r;
  r.m = desc::Get(d, f::kM);
  r.n = desc::Get(d, f::kN);
  r.k = desc::Get(d, f::kK);
  r.a_base = desc::Get(d, f::kABase);
  r.b_base = desc::Get(d, f::kBBase);
  r.bias_base = desc::Get(d, f::kBiasBase);
  r.rq_base = desc::Get(d, f::kRqBase);
  r.out_base = desc::Get(d, f::kOutBase);
  r.mode = desc::GetWord(d, f::kCmdModeFields);
  r.zp_ab = desc::GetWord(d, f::kCmdZpAbFields);
  r.zp_out = WrapToInt32(desc::Get(d, f::kZpOut));
  r.clamp_min = WrapToInt32(desc::Get(d, f::kClampMin));
  r.clamp_max = WrapToInt32(desc::Get(d, f::kClampMax));
  r.mult = WrapToInt32(desc::Get(d, f::kMult));
  r.shift = desc::Get(d, f::kShift);
  return r;
}

Descriptor EncodeSet(const SetFields& fields, Header flags) {
  namespace f = desc::set;
  Descriptor d{};
  for (int i = 0; i < f::kValueWords; ++i) {
    desc::Put(d, desc::Field{f::kValue.word + i, f::kValue.lsb, f::kValue.width}, fields.value[i]);
  }
  desc::Put(d, f::kReg, fields.reg);
  desc::Put(d, f::kCount, fields.count);
  PutHeader(Op::kSet, flags, d);
  return d;
}

SetFields DecodeSet(const Descriptor& d) {
  namespace f = desc::set;
  SetFields r;
  for (int i = 0; i < f::kValueWords; ++i) {
    r.value[i] = desc::Get(d, desc::Field{f::kValue.word + i, f::kValue.lsb, f::kValue.width});
  }
  r.reg = desc::Get(d, f::kReg);
  r.count = desc::Get(d, f::kCount);
  return r;
}

Engine EngineOf(Op op) {
  return op == Op::kLoad || op == Op::kStore ? Engine::kDma : Engine::kCompute;
}

std::string DescribeDescriptor(const AccelGeometry& geometry, const Descriptor& d) {
  const Header header = DecodeHeader(d);
  std::string text;
  switch (header.op) {
    case static_cast<uint32_t>(Op::kGemm): {
      const GemmFields f = DecodeGemm(d);
      const bool lut16 = GemmHasLut(f.mode) && GemmLutFields(f.mode).entry_bits == 16;
      text = fmt::format("GEMM M={} N={} K={} A[{}..] B[{}..] -> {}[{}..]", f.m, f.n, f.k, f.a_base,
                         f.b_base,
                         f.mode & kModeOutRaw ? "out32"
                         : lut16              ? "out16"
                                              : "out8",
                         f.out_base);
      if (f.mode & kModeBiasEn) text += fmt::format(" bias[{}..]", f.bias_base);
      if (f.mode & kModePerChannel) text += fmt::format(" rq[{}..]", f.rq_base);
      if (GemmHasSlope(f.mode)) {
        text += (f.mode & arch::kModeSlopePerChannel)
                    ? fmt::format(" slope per channel rq[{}..]", f.rq_base)
                    : std::string(" slope");
      }
      if (GemmHasLut(f.mode)) {
        const LutFields lut = GemmLutFields(f.mode);
        text += fmt::format(" lut slot {} ({} -> {} bits)", lut.slot, lut.in_bits, lut.entry_bits);
      }
      break;
    }
    case static_cast<uint32_t>(Op::kLoad):
    case static_cast<uint32_t>(Op::kStore): {
      const DmaFields f = DecodeDma(d);
      const std::string sram =
          fmt::format("{}[{}..]", SramName(f.sram, f.out_int32, f.out_int16), f.sram_base);
      const std::string ext = fmt::format("ext {:#x}", f.ext_addr);
      const bool load = header.op == static_cast<uint32_t>(Op::kLoad);
      text = fmt::format("{} {} <- {} ({} x {} x {} units of {} B)", load ? "LOAD" : "STORE",
                         load ? sram : ext, load ? ext : sram, f.count0, f.count1, f.count2,
                         UnitBytes(geometry, f.sram, f.out_int32, f.out_int16));
      break;
    }
    case static_cast<uint32_t>(Op::kMove): {
      const MoveFields f = DecodeMove(d);
      text = fmt::format("MOVE {}[{}..] <- out8[{}..] ({} words x {} x {} tiles)",
                         SramName(f.dst, false, false), f.dst_base, f.src_base, f.count0, f.count1,
                         f.count2);
      break;
    }
    case static_cast<uint32_t>(Op::kSet): {
      const SetFields f = DecodeSet(d);
      text = fmt::format("SET {} registers from {:#05x}", f.count, 4 * f.reg);
      break;
    }
    case static_cast<uint32_t>(Op::kEltwise): {
      const EltwiseFields f = DecodeEltwise(d);
      static constexpr const char* kOps[] = {"LUT", "ADD", "ADD_LUT", "OP 3"};
      const bool int16 = f.has_lookup() && f.lut.entry_bits == 16;
      text = fmt::format("ELTWISE {} {}[{}..] <- out8[{}..]", kOps[f.op & 3],
                         int16 ? "out16" : "out8", f.dst, f.src_a);
      if (f.has_add()) {
        text += fmt::format(" + out8[{}..] ({})", f.src_b,
                            f.form == kEltwiseFormSeed ? "seed-symmetric" : "tflite");
      }
      text += fmt::format(" ({} words)", f.count);
      if (f.has_lookup()) {
        text += fmt::format(" lut slot {} ({} -> {} bits)", f.lut.slot, f.lut.in_bits,
                            f.lut.entry_bits);
      }
      break;
    }
    default:
      text = fmt::format("OP {} (reserved)", header.op);
  }
  if (header.wait) text += " WAIT";
  if (header.signal) text += " SIGNAL";
  return text;
}

uint32_t UnitBytes(const AccelGeometry& geometry, uint32_t sram, bool out_int32, bool out_int16) {
  const arch::SramInfo* info = arch::FindSram(sram);
  if (info == nullptr) return 0;
  const int word = arch::SramWordBytes(*info, geometry.rows, geometry.cols);
  return uint32_t(uint64_t(word) / EntriesPerWord(*info, out_int32, out_int16));
}

uint64_t SramUnits(const AccelGeometry& geometry, uint32_t sram, bool out_int32, bool out_int16) {
  const arch::SramInfo* info = arch::FindSram(sram);
  if (info == nullptr) return 0;
  uint64_t words = 0;
  switch (info->id) {  // the geometry's field of the SRAM's depth parameter
    case Sram::kA:
      words = geometry.a_depth;
      break;
    case Sram::kB:
      words = geometry.b_depth;
      break;
    case Sram::kBias:
      words = geometry.bias_depth;
      break;
    case Sram::kRq:
      words = geometry.rq_depth;
      break;
    case Sram::kOut:
      words = geometry.out_depth;
      break;
    case Sram::kLut:
      words = uint64_t{arch::kLutSlotWords} * uint64_t(geometry.lut_slots);
      break;
    default:
      throw std::logic_error(
          fmt::format("golden: AccelGeometry has no depth of SRAM {}", info->name));
  }
  return words * EntriesPerWord(*info, out_int32, out_int16);
}

bool GemmHasSlope(uint32_t mode) {
  return ((mode & kModeActMask) >> arch::kModeActLsb) == static_cast<uint32_t>(arch::Act::kSlope);
}

int RqWordsPerTile(uint32_t mode) {
  return ((mode & kModePerChannel) ? 1 : 0) +
         (GemmHasSlope(mode) && (mode & arch::kModeSlopePerChannel) ? 1 : 0);
}

bool SetsSlope(const Descriptor& d) {
  return DecodeHeader(d).op == static_cast<uint32_t>(Op::kSet) &&
         4 * DecodeSet(d).reg == arch::reg::kSlopePosMult;
}

ProgramError ValidateSlopeAtFetch(const Descriptor& d, const SlopeRegisters& at_launch,
                                  bool slope_set_seen) {
  const bool slope_gemm =
      DecodeHeader(d).op == static_cast<uint32_t>(Op::kGemm) && GemmHasSlope(DecodeGemm(d).mode);
  return slope_gemm && !slope_set_seen && !SlopeRegistersLegal(at_launch) ? ProgramError::kBadSlope
                                                                          : ProgramError::kNone;
}

SlopeRegisters MachineState::slope_registers() const {
  SlopeRegisters words{};
  for (int i = 0; i < kSlopeRegisterCount; ++i) {
    const auto it = unit_registers.find(arch::reg::kSlopePosMult + 4 * uint32_t(i));
    words[size_t(i)] = it == unit_registers.end() ? 0 : it->second;
  }
  return words;
}

ProgramError Validate(const AccelGeometry& geometry, const Descriptor& d) {
  switch (DecodeHeader(d).op) {
    case static_cast<uint32_t>(Op::kGemm):
      return ValidateGemm(geometry, DecodeGemm(d));
    case static_cast<uint32_t>(Op::kLoad):
    case static_cast<uint32_t>(Op::kStore):
      return ValidateDma(geometry, DecodeDma(d));
    case static_cast<uint32_t>(Op::kMove):
      return ValidateMove(geometry, DecodeMove(d));
    case static_cast<uint32_t>(Op::kSet):
      return ValidateSet(DecodeSet(d));
    case static_cast<uint32_t>(Op::kEltwise):
      return ErrorOf(ValidateEltwise(DecodeEltwise(d), geometry.out_depth, geometry.lut_slots));
    default:
      return ProgramError::kBadOpcode;
  }
}

MachineState::MachineState(const AccelGeometry& geometry, size_t ext_bytes)
    : a(size_t{geometry.a_depth} * geometry.rows),
      b(size_t{geometry.b_depth} * geometry.cols),
      bias(size_t{geometry.bias_depth} * 4 * geometry.cols),
      rq(size_t{geometry.rq_depth} * kRqLaneBytes * geometry.cols),
      out(size_t{geometry.out_depth} * 4 * geometry.cols),
      lut(size_t{arch::kLutSlotWords} * size_t(geometry.lut_slots) * arch::kLutWordEntries *
          arch::kLutEntryBytes),
      ext(ext_bytes) {}

std::vector<uint8_t>& MachineState::sram(Sram id) {
  return const_cast<std::vector<uint8_t>&>(std::as_const(*this).sram(id));
}

const std::vector<uint8_t>& MachineState::sram(Sram id) const {
  switch (id) {
    case Sram::kA:
      return a;
    case Sram::kB:
      return b;
    case Sram::kBias:
      return bias;
    case Sram::kRq:
      return rq;
    case Sram::kOut:
      return out;
    case Sram::kLut:
      return lut;
    default:
      break;  // the register region and the reserved windows hold no SRAM of this version
  }
  throw std::invalid_argument(fmt::format("id: {} is not an SRAM id 1..6", static_cast<int>(id)));
}

ProgramError Execute(const AccelGeometry& geometry, const Descriptor& d, MachineState& state) {
  // The checks are the caller's (the fetcher's); an invalid descriptor here is a caller bug, and
  // running it would index outside the images.
  const ProgramError error = Validate(geometry, d);
  if (error != ProgramError::kNone) {
    throw std::invalid_argument(fmt::format("descriptor: fails validation with {} ({})",
                                            ProgramErrorName(error),
                                            DescribeDescriptor(geometry, d)));
  }
  switch (static_cast<Op>(DecodeHeader(d).op)) {
    case Op::kGemm:
      ExecuteGemm(geometry, DecodeGemm(d), state);
      return ProgramError::kNone;
    case Op::kLoad:
      return ExecuteDma(geometry, /*load=*/true, DecodeDma(d), state);
    case Op::kStore:
      return ExecuteDma(geometry, /*load=*/false, DecodeDma(d), state);
    case Op::kMove:
      ExecuteMove(geometry, DecodeMove(d), state);
      return ProgramError::kNone;
    case Op::kSet: {
      // Each register keeps its fields (units.md 19.4: as a host write of the value would).
      const SetFields f = DecodeSet(d);
      for (uint32_t i = 0; i < f.count; ++i) {
        const uint32_t offset = 4 * (f.reg + i);
        const auto* info =
            std::find_if(std::begin(arch::kRegisters), std::end(arch::kRegisters),
                         [offset](const arch::RegisterInfo& r) { return r.offset == offset; });
        state.unit_registers[offset] = f.value[i] & info->rw_mask;
      }
      return ProgramError::kNone;
    }
    case Op::kEltwise:
      ExecuteEltwise(DecodeEltwise(d), geometry.cols, state.lut, state.out);
      return ProgramError::kNone;
  }
  return ProgramError::kBadOpcode;  // unreachable: Validate refused it
}

ProgramResult RunQueue(const AccelGeometry& geometry, uint32_t q_base, uint32_t count,
                       MachineState& state) {
  // Q_BASE keeps [31:6] and Q_COUNT [15:0], as the registers store them (14.1).
  constexpr uint32_t kQBaseMask = ~(kDescriptorBytes - 1);
  constexpr uint32_t kQCountMask = (uint32_t{1} << arch::kDimBits) - 1;
  return QueueRun(geometry, q_base & kQBaseMask, count & kQCountMask, state).Run();
}

void StoreProgram(const std::vector<Descriptor>& program, uint32_t q_base, MachineState& state) {
  if (q_base % kDescriptorBytes != 0) {
    throw std::invalid_argument(
        fmt::format("q_base: {:#x} is not a multiple of {}", q_base, kDescriptorBytes));
  }
  const uint64_t end = uint64_t{q_base} + uint64_t{program.size()} * kDescriptorBytes;
  if (end > state.ext.size()) {
    throw std::out_of_range(fmt::format(
        "program: {} descriptors at {:#x} end at {:#x}, beyond the external memory of {:#x} bytes",
        program.size(), q_base, end, state.ext.size()));
  }
  for (size_t i = 0; i < program.size(); ++i) {
    for (int w = 0; w < kDescriptorWords; ++w) {
      Store32(state.ext, q_base + i * kDescriptorBytes + 4 * w, program[i][w]);
    }
  }
}

Footprint FootprintOf(const AccelGeometry& geometry, const Descriptor& d) {
  Footprint fp;
  const uint64_t rows = geometry.rows, cols = geometry.cols;
  const auto sram = [](Sram id) { return static_cast<uint8_t>(id); };
  switch (DecodeHeader(d).op) {
    case static_cast<uint32_t>(Op::kGemm): {
      const GemmFields f = DecodeGemm(d);
      const uint64_t mb = CeilDiv(f.m, rows), nb = CeilDiv(f.n, cols), k = f.k;
      const uint64_t out_words = GemmOutWords(f.mode, mb * nb, int(rows));
      fp.reads.push_back({sram(Sram::kA), f.a_base * rows, (f.a_base + mb * k) * rows});
      fp.reads.push_back({sram(Sram::kB), f.b_base * cols, (f.b_base + nb * k) * cols});
      if (f.mode & kModeBiasEn) {
        fp.reads.push_back(
            {sram(Sram::kBias), f.bias_base * 4 * cols, (f.bias_base + nb) * 4 * cols});
      }
      // The requant lanes read their rq words with PER_CHANNEL also in OUT_RAW mode; the slope
      // stage its own with SLOPE_PER_CHANNEL (requant.md 6.3).
      if (const uint64_t rq_words = uint64_t(RqWordsPerTile(f.mode)); rq_words > 0) {
        const uint64_t word_bytes = kRqLaneBytes * cols;
        fp.reads.push_back(
            {sram(Sram::kRq), f.rq_base * word_bytes, (f.rq_base + rq_words * nb) * word_bytes});
      }
      // A fused lookup reads the 32 words of its slot (lut.md 10.1).
      if (GemmHasLut(f.mode)) {
        const uint64_t slot = GemmLutFields(f.mode).slot;
        fp.reads.push_back({sram(Sram::kLut), slot * kLutSlotBytes, (slot + 1) * kLutSlotBytes});
      }
      fp.writes.push_back(
          {sram(Sram::kOut), f.out_base * 4 * cols, (f.out_base + out_words) * 4 * cols});
      break;
    }
    case static_cast<uint32_t>(Op::kLoad):
    case static_cast<uint32_t>(Op::kStore): {
      const DmaFields f = DecodeDma(d);
      const uint64_t unit = UnitBytes(geometry, f.sram, f.out_int32, f.out_int16);
      if (unit == 0) break;
      // SRAM unit u is the U bytes at u * U of its window for every SRAM (an out int8 entry e is
      // at e * C).
      const uint64_t length = f.count0 * unit;
      std::vector<Interval> sram_side, ext_side;
      AppendPattern(static_cast<uint8_t>(f.sram), f.sram_base * unit, f.sram_stride1 * unit,
                    f.sram_stride2 * unit, f.count1, f.count2, length, sram_side);
      AppendPattern(0, f.ext_addr, f.ext_stride1, f.ext_stride2, f.count1, f.count2, length,
                    ext_side);
      const bool load = DecodeHeader(d).op == static_cast<uint32_t>(Op::kLoad);
      fp.reads = load ? ext_side : sram_side;
      fp.writes = load ? sram_side : ext_side;
      break;
    }
    case static_cast<uint32_t>(Op::kMove): {
      const MoveFields f = DecodeMove(d);
      const bool into_a = f.dst == static_cast<uint32_t>(Sram::kA);
      if (!into_a && f.dst != static_cast<uint32_t>(Sram::kB)) break;
      // A tile reads the Rows / 4 output words of its Rows entries (13), whatever COUNT0 is.
      const uint64_t out_word = 4 * cols;
      AppendPattern(sram(Sram::kOut), f.src_base / 4 * out_word, f.src_stride1 / 4 * out_word,
                    f.src_stride2 / 4 * out_word, f.count1, f.count2, rows / 4 * out_word,
                    fp.reads);
      const uint64_t dst_word = into_a ? rows : cols;
      AppendPattern(static_cast<uint8_t>(f.dst), f.dst_base * dst_word, f.dst_stride1 * dst_word,
                    f.dst_stride2 * dst_word, f.count1, f.count2, f.count0 * dst_word, fp.writes);
      break;
    }
    case static_cast<uint32_t>(Op::kEltwise): {
      const EltwiseFields f = DecodeEltwise(d);
      const uint64_t out_word = 4 * cols;
      fp.reads.push_back({sram(Sram::kOut), f.src_a * out_word, (f.src_a + f.count) * out_word});
      if (f.has_add()) {
        fp.reads.push_back({sram(Sram::kOut), f.src_b * out_word, (f.src_b + f.count) * out_word});
      }
      // A lookup reads the 32 words of its slot, as a fused GEMM does (lut.md 10.1).
      if (f.has_lookup()) {
        const uint64_t slot = f.lut.slot;
        fp.reads.push_back({sram(Sram::kLut), slot * kLutSlotBytes, (slot + 1) * kLutSlotBytes});
      }
      fp.writes.push_back(
          {sram(Sram::kOut), f.dst * out_word, (f.dst + f.result_words()) * out_word});
      break;
    }
    default:
      break;
  }
  Normalize(fp.reads);
  Normalize(fp.writes);
  return fp;
}

std::vector<Race> RaceCheck(const AccelGeometry& geometry, const std::vector<Descriptor>& program,
                            uint32_t q_base) {
  const int n = static_cast<int>(program.size());
  std::vector<Engine> engine_of(n);
  std::vector<int> position(n);  // index among the descriptors of its engine
  std::vector<int> sequence[2];  // descriptors of each engine in program order
  std::vector<int> signals[2], waits[2];
  std::vector<int> wait_rank(n, -1);
  std::vector<Header> headers(n);
  for (int i = 0; i < n; ++i) {
    headers[i] = DecodeHeader(program[i]);
    // Reserved opcodes (a program that fails validation) are placed on the compute engine; they
    // touch nothing.
    const Engine e =
        IsValidOp(headers[i].op) ? EngineOf(static_cast<Op>(headers[i].op)) : Engine::kCompute;
    const int ei = static_cast<int>(e);
    engine_of[i] = e;
    position[i] = static_cast<int>(sequence[ei].size());
    sequence[ei].push_back(i);
    if (headers[i].wait) wait_rank[i] = static_cast<int>(waits[ei].size()), waits[ei].push_back(i);
    if (headers[i].signal) signals[ei].push_back(i);
  }
  // Vector clocks: clock[i][x] = how many descriptors of engine x happen before i or are i.
  // Descriptor i is computed once its predecessor on its engine and, with WAIT, its matching
  // SIGNAL (the wait_rank-th of the other engine) are; this visits the happens-before DAG in a
  // topological order.
  using Clock = std::array<int, 2>;
  std::vector<Clock> clock(n, Clock{0, 0});
  std::vector<bool> done(n, false);
  auto matching_signal = [&](int i) {
    const auto& other = signals[static_cast<int>(Other(engine_of[i]))];
    return wait_rank[i] >= 0 && wait_rank[i] < static_cast<int>(other.size()) ? other[wait_rank[i]]
                                                                              : -1;
  };
  auto compute = [&](int i) {
    const int ei = static_cast<int>(engine_of[i]);
    if (position[i] > 0) clock[i] = clock[sequence[ei][position[i] - 1]];
    clock[i][ei] = position[i] + 1;
    const int signal = matching_signal(i);
    if (signal >= 0 && done[signal]) {
      for (int x = 0; x < 2; ++x) clock[i][x] = std::max(clock[i][x], clock[signal][x]);
    }
    done[i] = true;
  };
  size_t next[2] = {0, 0};
  for (bool moved = true; moved;) {
    moved = false;
    for (int ei = 0; ei < 2; ++ei) {
      while (next[ei] < sequence[ei].size()) {
        const int i = sequence[ei][next[ei]];
        const int signal = matching_signal(i);
        if (headers[i].wait && (signal < 0 || !done[signal])) break;
        compute(i);
        ++next[ei];
        moved = true;
      }
    }
  }
  // What is left never runs (a WAIT without its SIGNAL, or a cycle of them: the program
  // deadlocks). Checked anyway, with the edges that exist, so that its races are not hidden.
  for (int i = 0; i < n; ++i) {
    if (!done[i]) compute(i);
  }

  std::vector<Footprint> footprints(n);
  for (int i = 0; i < n; ++i) footprints[i] = FootprintOf(geometry, program[i]);
  std::vector<Race> races;
  for (int j = 0; j < n; ++j) {
    const int ej = static_cast<int>(engine_of[j]);
    const int ex = 1 - ej;
    // On the other engine, the descriptors before j are the first clock[j][ex]; those after j are
    // the ones whose clock of j's engine has reached j (a monotone condition along that engine):
    // the unordered ones lie between.
    for (size_t p = static_cast<size_t>(clock[j][ex]); p < sequence[ex].size(); ++p) {
      const int k = sequence[ex][p];
      if (clock[k][ej] >= position[j] + 1) break;
      if (k > j) continue;  // each pair once, from its later descriptor
      const Footprint& first = footprints[k];
      const Footprint& second = footprints[j];
      std::optional<Interval> overlap;
      for (const auto& [x, y] :
           {std::pair{&first.writes, &second.reads}, std::pair{&first.writes, &second.writes},
            std::pair{&first.reads, &second.writes}}) {
        const std::optional<Interval> o = FirstOverlap(*x, *y);
        if (o && (!overlap || Before(*o, *overlap))) overlap = o;
      }
      if (overlap) races.push_back({k, j, *overlap});
    }
  }
  // A STORE into the descriptors races with the fetcher, whatever the tokens say.
  const std::vector<Interval> descriptors = {
      {0, q_base, uint64_t{q_base} + uint64_t(n) * kDescriptorBytes}};
  for (int i = 0; i < n; ++i) {
    if (headers[i].op != static_cast<uint32_t>(Op::kStore)) continue;
    if (const auto o = FirstOverlap(footprints[i].writes, descriptors))
      races.push_back({i, -1, *o});
  }
  std::sort(races.begin(), races.end(), [](const Race& x, const Race& y) {
    return std::tie(x.second, x.first) < std::tie(y.second, y.first);
  });
  return races;
}

}  // namespace qacc::golden
