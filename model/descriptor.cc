#include "model/descriptor.h"

namespace qacc::model {

namespace {

namespace desc = arch::desc;
// The last byte address of the memory port (EXT_RANGE).
constexpr uint64_t kMaxExtByte = (uint64_t{1} << 32) - 1;

// Entries of a word the unit takes: 1 (the word), or the out SRAM's int8 or int16 entries.
uint64_t EntriesPerWord(const arch::SramInfo& sram, bool out_int32, bool out_int16) {
  if (out_int32) return 1;
  return uint64_t(out_int16 ? sram.int16_entries : sram.int8_entries);
}

// Units in an SRAM: its words, or for the out SRAM's int8 or int16 unit its entries.
uint64_t SramUnits(const arch::ArchConfig& config, const arch::SramInfo& sram, bool out_int32,
                   bool out_int16) {
  return uint64_t{config.depth(sram.id)} * EntriesPerWord(sram, out_int32, out_int16);
}

// 12, in its order. Sums in 64 bits: the last unit is below 2^37, the last byte below 2^50.
ProgramError ValidateDma(const arch::ArchConfig& config, const DmaDesc& f) {
  // OUT_INT32 and OUT_INT16 together: the reserved unit (lut.md 10.6), whatever the SRAM.
  if (f.count0 == 0 || f.count1 == 0 || f.count2 == 0 || (f.out_int32 && f.out_int16)) {
    return ProgramError::kBadShape;
  }
  const arch::SramInfo* sram = arch::FindSram(f.sram);
  if (sram == nullptr) return ProgramError::kBadSram;
  const uint64_t last_unit = uint64_t{f.sram_base} + (f.count0 - 1) +
                             uint64_t{f.count1 - 1} * f.sram_stride1 +
                             uint64_t{f.count2 - 1} * f.sram_stride2;
  if (last_unit >= SramUnits(config, *sram, f.out_int32, f.out_int16)) return sram->range_error;
  const uint32_t unit = DmaUnitBytes(config, f.sram, f.out_int32, f.out_int16);
  if (f.ext_addr % unit || f.ext_stride1 % unit || f.ext_stride2 % unit) {
    return ProgramError::kExtAlign;
  }
  const uint64_t last_byte = uint64_t{f.ext_addr} + uint64_t{f.count0} * unit - 1 +
                             uint64_t{f.count1 - 1} * f.ext_stride1 +
                             uint64_t{f.count2 - 1} * f.ext_stride2;
  if (last_byte > kMaxExtByte) return ProgramError::kExtRange;
  return ProgramError::kNone;
}

// 13, in its order; the COUNT0 bound depends on DST, so it applies only to DST 1 or 2.
ProgramError ValidateMove(const arch::ArchConfig& config, const MoveDesc& f) {
  const bool into_a = f.dst == kSramA, into_b = f.dst == kSramB;
  if (f.count0 == 0 || f.count1 == 0 || f.count2 == 0) return ProgramError::kBadShape;
  if ((into_a && f.count0 > uint32_t(config.cols)) ||
      (into_b && f.count0 > uint32_t(config.rows))) {
    return ProgramError::kBadShape;
  }
  if (!into_a && !into_b) return ProgramError::kBadSram;
  const uint64_t last_entry = uint64_t{f.src_base} + uint64_t{f.count1 - 1} * f.src_stride1 +
                              uint64_t{f.count2 - 1} * f.src_stride2 + uint64_t(config.rows) - 1;
  if (f.src_base % 4 || f.src_stride1 % 4 || f.src_stride2 % 4 ||
      last_entry >= 4 * uint64_t{config.out_depth}) {
    return ProgramError::kOutRange;
  }
  const uint64_t last_word = uint64_t{f.dst_base} + uint64_t{f.count1 - 1} * f.dst_stride1 +
                             uint64_t{f.count2 - 1} * f.dst_stride2 + f.count0 - 1;
  if (into_a && last_word >= config.a_depth) return ProgramError::kARange;
  if (into_b && last_word >= config.b_depth) return ProgramError::kBRange;
  return ProgramError::kNone;
}

// Units.md 19.4, in its order. The registers REG .. REG + COUNT - 1 must share one block (the top
// bits of the register index) owned by a present unit and none may be read-only.
// Units.md 19.4: COUNT, then exactly the registers of a present unit's block (all of them, from its
// first), then the unit's check of the values (the slope stage's, requant.md 6.2).
ProgramError ValidateSet(const Descriptor& d) {
  const uint32_t reg = desc::Get(d, desc::set::kReg), count = desc::Get(d, desc::set::kCount);
  if (count == 0 || count > uint32_t(arch::kMaxSetCount)) return ProgramError::kBadShape;
  constexpr uint32_t kRegsPerBlock = arch::kUnitBlockBytes / 4;
  const uint32_t block = reg / kRegsPerBlock;
  for (const arch::UnitInfo& unit : arch::kUnits) {
    if (!unit.present || unit.block == 0 || uint32_t(unit.block) != block) continue;
    // The unit's registers: a contiguous run from the block's first offset that holds one.
    uint32_t first = 0, n = 0;
    for (const arch::RegisterInfo& r : arch::kRegisters) {
      if (r.offset / arch::kUnitBlockBytes != block) continue;
      if (n == 0) first = r.offset / 4;
      ++n;
    }
    if (n == 0 || reg != first || count != n) return ProgramError::kBadSet;
    if (4 * reg == arch::reg::kSlopePosMult) {
      std::array<uint32_t, arch::kSlopeRegisterCount> values{};
      for (size_t i = 0; i < values.size(); ++i) values[i] = d[i];
      if (!arch::SlopeRegistersLegal(values)) return ProgramError::kBadSlope;
    }
    return ProgramError::kNone;
  }
  return ProgramError::kBadSet;
}

// lut.md 10.5's legal ranges of the add's fields.
constexpr uint32_t kMaxLeftShift = 20, kMaxSeedMult = 127, kMaxRshift = 62, kMaxRounding = 4;
constexpr int32_t kMinAddShift = -31, kMaxAddShift = 0;

bool IsQ31Multiplier(uint32_t m) { return m == 0 || (m >= (1u << 30) && m < (1u << 31)); }
bool IsAddShift(int32_t s) { return s >= kMinAddShift && s <= kMaxAddShift; }

}  // namespace

bool EltwiseAddFieldsLegal(const golden::EltwiseFields& f) {
  const int32_t y_min = f.y_unsigned ? 0 : -128, y_max = f.y_unsigned ? 255 : 127;
  if (f.clamp_min > f.clamp_max || f.clamp_min < y_min || f.clamp_max > y_max) return false;
  if (f.form == golden::kEltwiseFormSeed) {
    return f.mult_a <= kMaxSeedMult && f.mult_b <= kMaxSeedMult && f.rshift <= kMaxRshift &&
           f.rounding <= kMaxRounding;
  }
  return IsQ31Multiplier(f.mult_a) && IsQ31Multiplier(f.mult_b) && IsQ31Multiplier(f.mult_y) &&
         IsAddShift(f.shift_a) && IsAddShift(f.shift_b) && IsAddShift(f.shift_y) &&
         f.left_shift <= kMaxLeftShift;
}

namespace {

// lut.md 10.5, in its order. Word counts in 64 bits (a base of 20 bits plus 2 COUNT).
ProgramError ValidateEltwise(const arch::ArchConfig& config, const golden::EltwiseFields& f) {
  const bool add = f.op == 1 || f.op == 2, lookup = f.op == 0 || f.op == 2;
  if (f.count == 0 || f.op == 3) return ProgramError::kBadShape;
  const uint64_t count = f.count, depth = config.out_depth;
  const uint64_t result = lookup && f.lut.entry_bits == 16 ? 2 * count : count;
  if (f.src_a + count > depth || (add && f.src_b + count > depth) || f.dst + result > depth) {
    return ProgramError::kOutRange;
  }
  // Only exactly in place may a source share words with the result.
  const auto overlaps = [&](uint64_t src) {
    const bool shared = f.dst < src + count && src < f.dst + result;
    return shared && !(f.dst == src && result == count);
  };
  if (overlaps(f.src_a) || (add && overlaps(f.src_b))) return ProgramError::kEltOverlap;
  if (lookup) {
    if (f.lut.slot >= uint32_t(config.lut_slots)) return ProgramError::kLutSlot;
    if (f.lut.in_bits < uint32_t(arch::kLutMinInBits) ||
        f.lut.in_bits > uint32_t(arch::kLutMaxInBits)) {
      return ProgramError::kLutInBits;
    }
    if (f.lut.entry_bits != 8 && f.lut.entry_bits != 16) return ProgramError::kLutEntryBits;
  }
  if (add && !EltwiseAddFieldsLegal(f)) return ProgramError::kBadAdd;
  return ProgramError::kNone;
}

// A field of `width` bits as two's complement.
int32_t SignedField(uint32_t value, int width) {
  const uint32_t sign = 1u << (width - 1);
  return int32_t(value ^ sign) - int32_t(sign);
}

}  // namespace

const char* ProgramErrorName(ProgramError error) { return arch::ErrCodeName(error); }

DescHeader DecodeDescHeader(const Descriptor& d) {
  DescHeader h;
  h.op = desc::Get(d, desc::header::kOp);
  h.wait = desc::Get(d, desc::header::kWait);
  h.signal = desc::Get(d, desc::header::kSignal);
  return h;
}

DmaDesc DecodeDmaDesc(const Descriptor& d) {
  namespace f = desc::dma;
  DmaDesc r;
  r.load = DecodeDescHeader(d).op == uint32_t(DescOp::kLoad);
  r.count0 = desc::Get(d, f::kCount0);
  r.count1 = desc::Get(d, f::kCount1);
  r.count2 = desc::Get(d, f::kCount2);
  r.sram_base = desc::Get(d, f::kSramBase);
  r.sram_stride1 = desc::Get(d, f::kSramStride1);
  r.sram_stride2 = desc::Get(d, f::kSramStride2);
  r.ext_addr = desc::Get(d, f::kExtAddr);
  r.ext_stride1 = desc::Get(d, f::kExtStride1);
  r.ext_stride2 = desc::Get(d, f::kExtStride2);
  r.sram = static_cast<uint8_t>(desc::Get(d, f::kSram));
  r.out_int32 = desc::Get(d, f::kOutInt32);
  r.out_int16 = desc::Get(d, f::kOutInt16);
  return r;
}

MoveDesc DecodeMoveDesc(const Descriptor& d) {
  namespace f = desc::move;
  MoveDesc r;
  r.count0 = desc::Get(d, f::kCount0);
  r.count1 = desc::Get(d, f::kCount1);
  r.count2 = desc::Get(d, f::kCount2);
  r.dst_base = desc::Get(d, f::kDstBase);
  r.dst_stride1 = desc::Get(d, f::kDstStride1);
  r.dst_stride2 = desc::Get(d, f::kDstStride2);
  r.src_base = desc::Get(d, f::kSrcBase);
  r.src_stride1 = desc::Get(d, f::kSrcStride1);
  r.src_stride2 = desc::Get(d, f::kSrcStride2);
  r.dst = static_cast<uint8_t>(desc::Get(d, f::kDst));
  return r;
}

golden::EltwiseFields DecodeEltwiseDesc(const Descriptor& d) {
  namespace f = desc::eltwise;
  const auto get = [&](desc::Field field) { return desc::Get(d, field); };
  const auto get_signed = [&](desc::Field field) { return SignedField(get(field), field.width); };
  golden::EltwiseFields r;
  r.count = get(f::kCount);
  r.src_a = get(f::kSrcA);
  r.src_b = get(f::kSrcB);
  r.dst = get(f::kDst);
  r.op = get(f::kOp);
  r.form = get(f::kForm);
  r.a_unsigned = get(f::kAUnsigned);
  r.b_unsigned = get(f::kBUnsigned);
  r.y_unsigned = get(f::kYUnsigned);
  r.rounding = get(f::kRounding);
  r.wrap = get(f::kWrap);
  r.lut.slot = get(f::kLutSlot);
  r.lut.in_bits = get(f::kLutInBits);
  r.lut.entry_bits = get(f::kLutEntryBits);
  r.zp_a = get_signed(f::kZpA);
  r.zp_b = get_signed(f::kZpB);
  r.zp_y = get_signed(f::kZpY);
  r.left_shift = get(f::kLeftShift);
  r.clamp_min = get_signed(f::kClampMin);
  r.clamp_max = get_signed(f::kClampMax);
  r.mult_a = get(f::kMultA);
  r.mult_b = get(f::kMultB);
  r.mult_y = get(f::kMultY);
  r.shift_a = get_signed(f::kShiftA);
  r.shift_b = get_signed(f::kShiftB);
  r.shift_y = get_signed(f::kShiftY);
  r.rshift = get(f::kRshift);
  return r;
}

arch::Command GemmCommandOf(const Descriptor& d) {
  namespace f = desc::gemm;
  arch::Command c;
  c.op = static_cast<uint32_t>(arch::Opcode::kGemm);
  c.m = desc::Get(d, f::kM);
  c.n = desc::Get(d, f::kN);
  c.k = desc::Get(d, f::kK);
  c.a_base = desc::Get(d, f::kABase);
  c.b_base = desc::Get(d, f::kBBase);
  c.bias_base = desc::Get(d, f::kBiasBase);
  c.rq_base = desc::Get(d, f::kRqBase);
  c.out_base = desc::Get(d, f::kOutBase);
  c.mode = desc::GetWord(d, f::kCmdModeFields);  // the register words, as a write stores them
  c.zp_ab = desc::GetWord(d, f::kCmdZpAbFields);
  c.zp_out = static_cast<int32_t>(desc::Get(d, f::kZpOut));
  c.clamp_min = static_cast<int32_t>(desc::Get(d, f::kClampMin));
  c.clamp_max = static_cast<int32_t>(desc::Get(d, f::kClampMax));
  c.mult = static_cast<int32_t>(desc::Get(d, f::kMult));
  c.shift = desc::Get(d, f::kShift);
  return c;
}

uint32_t DmaUnitBytes(const arch::ArchConfig& config, uint8_t sram, bool out_int32,
                      bool out_int16) {
  const arch::SramInfo* info = arch::FindSram(sram);
  if (info == nullptr) return 0;
  return SramWordBytes(config, sram) / uint32_t(EntriesPerWord(*info, out_int32, out_int16));
}

uint32_t SramWordBytes(const arch::ArchConfig& config, uint8_t sram) {
  const arch::SramInfo* info = arch::FindSram(sram);
  if (info == nullptr) return 0;
  return uint32_t(arch::SramWordBytes(*info, config.rows, config.cols));
}

bool SetsSlopeRegisters(const Descriptor& d) {
  return DecodeDescHeader(d).op == uint32_t(DescOp::kSet) &&
         4 * desc::Get(d, desc::set::kReg) == arch::reg::kSlopePosMult;
}

ProgramError ValidateDescriptor(const arch::ArchConfig& config, const Descriptor& d,
                                bool slope_ok) {
  switch (DecodeDescHeader(d).op) {
    case uint32_t(DescOp::kGemm): {
      const arch::Command cmd = GemmCommandOf(d);
      const ProgramError error =
          arch::ValidateCommand(config, cmd, /*slope_registers_checked=*/true);
      if (error == ProgramError::kNone && cmd.slope() && !slope_ok) return ProgramError::kBadSlope;
      return error;
    }
    case uint32_t(DescOp::kLoad):
    case uint32_t(DescOp::kStore):
      return ValidateDma(config, DecodeDmaDesc(d));
    case uint32_t(DescOp::kMove):
      return ValidateMove(config, DecodeMoveDesc(d));
    case uint32_t(DescOp::kSet):
      return ValidateSet(d);
    case uint32_t(DescOp::kEltwise):
      return ValidateEltwise(config, DecodeEltwiseDesc(d));
    default:
      return ProgramError::kBadOpcode;
  }
}

}  // namespace qacc::model
