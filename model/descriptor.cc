#include "model/descriptor.h"

namespace qacc::model {

namespace {

constexpr uint32_t kCountMask = (uint32_t{1} << 16) - 1;              // COUNT0..2 [15:0]
constexpr uint32_t kBaseMask = (uint32_t{1} << arch::kBaseBits) - 1;  // SRAM fields [19:0]
constexpr uint32_t kDimMask = arch::kMaxDim;
constexpr uint32_t kOpMask = (uint32_t{1} << arch::kOpBits) - 1;
constexpr uint32_t kWaitBit = uint32_t{1} << 8;
constexpr uint32_t kSignalBit = uint32_t{1} << 9;
constexpr uint32_t kSelectMask = 0x7;                // word 9 [2:0]: SRAM or DST
constexpr uint32_t kOutInt32Bit = uint32_t{1} << 4;  // word 9 bit 4 of a DMA
constexpr int kHeaderWord = kDescriptorWords - 1;
// CMD_MODE keeps its six flags and ACT; CMD_ZP_AB its two 9-bit fields; CMD_SHIFT [5:0].
constexpr uint32_t kModeMask = 0x3Fu | arch::kModeActMask;
constexpr uint32_t kZpAbMask = arch::kZpAMask | arch::kZpBMask;
constexpr uint32_t kShiftMask = (uint32_t{1} << arch::kShiftBits) - 1;
// The last byte address of the memory port (EXT_RANGE).
constexpr uint64_t kMaxExtByte = (uint64_t{1} << 32) - 1;

ProgramError RangeErrorOf(uint8_t sram) {
  switch (sram) {
    case kSramA:
      return ProgramError::kARange;
    case kSramB:
      return ProgramError::kBRange;
    case kSramBias:
      return ProgramError::kBiasRange;
    case kSramRq:
      return ProgramError::kRqRange;
    default:
      return ProgramError::kOutRange;
  }
}

uint64_t SramUnits(const arch::ArchConfig& config, uint8_t sram, bool out_int32) {
  switch (sram) {
    case kSramA:
      return config.a_depth;
    case kSramB:
      return config.b_depth;
    case kSramBias:
      return config.bias_depth;
    case kSramRq:
      return config.rq_depth;
    case kSramOut:
      return out_int32 ? uint64_t{config.out_depth} : 4 * uint64_t{config.out_depth};
    default:
      return 0;
  }
}

// 12, in its order. Sums in 64 bits: the last unit is below 2^37, the last byte below 2^50.
ProgramError ValidateDma(const arch::ArchConfig& config, const DmaDesc& f) {
  if (f.count0 == 0 || f.count1 == 0 || f.count2 == 0) return ProgramError::kBadShape;
  if (f.sram < kSramA || f.sram > kSramOut) return ProgramError::kBadSram;
  const uint64_t last_unit = uint64_t{f.sram_base} + (f.count0 - 1) +
                             uint64_t{f.count1 - 1} * f.sram_stride1 +
                             uint64_t{f.count2 - 1} * f.sram_stride2;
  if (last_unit >= SramUnits(config, f.sram, f.out_int32)) return RangeErrorOf(f.sram);
  const uint32_t unit = DmaUnitBytes(config, f.sram, f.out_int32);
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

}  // namespace

const char* ProgramErrorName(ProgramError error) { return arch::ErrCodeName(error); }

DescHeader DecodeDescHeader(const Descriptor& d) {
  DescHeader h;
  h.op = d[kHeaderWord] & kOpMask;
  h.wait = d[kHeaderWord] & kWaitBit;
  h.signal = d[kHeaderWord] & kSignalBit;
  return h;
}

DmaDesc DecodeDmaDesc(const Descriptor& d) {
  DmaDesc f;
  f.load = DecodeDescHeader(d).op == uint32_t(DescOp::kLoad);
  f.count0 = d[0] & kCountMask;
  f.count1 = d[1] & kCountMask;
  f.count2 = d[2] & kCountMask;
  f.sram_base = d[3] & kBaseMask;
  f.sram_stride1 = d[4] & kBaseMask;
  f.sram_stride2 = d[5] & kBaseMask;
  f.ext_addr = d[6];
  f.ext_stride1 = d[7];
  f.ext_stride2 = d[8];
  f.sram = static_cast<uint8_t>(d[9] & kSelectMask);
  f.out_int32 = d[9] & kOutInt32Bit;
  return f;
}

MoveDesc DecodeMoveDesc(const Descriptor& d) {
  MoveDesc f;
  f.count0 = d[0] & kCountMask;
  f.count1 = d[1] & kCountMask;
  f.count2 = d[2] & kCountMask;
  f.dst_base = d[3] & kBaseMask;
  f.dst_stride1 = d[4] & kBaseMask;
  f.dst_stride2 = d[5] & kBaseMask;
  f.src_base = d[6] & kBaseMask;
  f.src_stride1 = d[7] & kBaseMask;
  f.src_stride2 = d[8] & kBaseMask;
  f.dst = static_cast<uint8_t>(d[9] & kSelectMask);
  return f;
}

arch::Command GemmCommandOf(const Descriptor& d) {
  arch::Command c;
  c.op = static_cast<uint32_t>(arch::Opcode::kGemm);
  c.m = d[0] & kDimMask;
  c.n = d[1] & kDimMask;
  c.k = d[2] & kDimMask;
  c.a_base = d[3] & kBaseMask;
  c.b_base = d[4] & kBaseMask;
  c.bias_base = d[5] & kBaseMask;
  c.rq_base = d[6] & kBaseMask;
  c.out_base = d[7] & kBaseMask;
  c.mode = d[8] & kModeMask;
  c.zp_ab = d[9] & kZpAbMask;
  c.zp_out = static_cast<int32_t>(d[10]);
  c.clamp_min = static_cast<int32_t>(d[11]);
  c.clamp_max = static_cast<int32_t>(d[12]);
  c.mult = static_cast<int32_t>(d[13]);
  c.shift = d[14] & kShiftMask;
  return c;
}

uint32_t DmaUnitBytes(const arch::ArchConfig& config, uint8_t sram, bool out_int32) {
  if (sram == kSramOut) return out_int32 ? 4u * uint32_t(config.cols) : uint32_t(config.cols);
  return sram >= kSramA && sram <= kSramRq ? SramWordBytes(config, sram) : 0;
}

uint32_t SramWordBytes(const arch::ArchConfig& config, uint8_t sram) {
  switch (sram) {
    case kSramA:
      return config.a_word_bytes();
    case kSramB:
      return config.b_word_bytes();
    case kSramBias:
      return config.bias_word_bytes();
    case kSramRq:
      return config.rq_word_bytes();
    case kSramOut:
      return config.out_word_bytes();
    default:
      return 0;
  }
}

ProgramError ValidateDescriptor(const arch::ArchConfig& config, const Descriptor& d) {
  switch (DecodeDescHeader(d).op) {
    case uint32_t(DescOp::kGemm):
      return arch::ValidateCommand(config, GemmCommandOf(d));
    case uint32_t(DescOp::kLoad):
    case uint32_t(DescOp::kStore):
      return ValidateDma(config, DecodeDmaDesc(d));
    case uint32_t(DescOp::kMove):
      return ValidateMove(config, DecodeMoveDesc(d));
    default:
      return ProgramError::kBadOpcode;
  }
}

}  // namespace qacc::model
