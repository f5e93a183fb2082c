#include "golden/lut_unit.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "golden/requant.h"

namespace qacc::golden {

namespace {

// The hardware addresses every table golden builds (lut.h) by the code's raw bits.
static_assert(arch::kLutMinInBits == kMinLutInBits && arch::kLutMaxInBits == kMaxLutInBits);
static_assert(kLutSlotEntries == arch::kLutSlotWords * arch::kLutWordEntries);

constexpr int kOperandBits = 8;
constexpr uint32_t kEltwiseOpCount = 3;  // OP 0..2; 3 is BAD_SHAPE
// tflite: a Q31 multiplier is 0 or normalised, as the requant unit's (architecture.md 4).
constexpr uint32_t kQ31Min = uint32_t{1} << 30;
constexpr int kMinAddShift = -31;
constexpr int kMaxAddShift = 0;
constexpr uint32_t kMaxSeedMultiplier = (uint32_t{1} << (kSeedAddMultiplierBits - 1)) - 1;  // 127

bool IsQ31(uint32_t multiplier) {
  return multiplier == 0 || (multiplier >= kQ31Min && multiplier < 2 * kQ31Min);
}

bool IsAddShift(int32_t shift) { return shift >= kMinAddShift && shift <= kMaxAddShift; }

QuantSpec OperandSpec(bool is_unsigned, int32_t zero_point) {
  QuantSpec spec;
  spec.bits = kOperandBits;
  spec.is_signed = !is_unsigned;
  spec.zero_point = zero_point;
  return spec;
}

bool AddFieldsLegal(const EltwiseFields& f) {
  const QuantSpec y = OperandSpec(f.y_unsigned, 0);
  const bool clamp_ok =
      f.clamp_min <= f.clamp_max && f.clamp_min >= y.qmin() && f.clamp_max <= y.qmax();
  if (!clamp_ok) return false;
  if (f.form == kEltwiseFormSeed) {
    return f.mult_a <= kMaxSeedMultiplier && f.mult_b <= kMaxSeedMultiplier &&
           f.rshift <= static_cast<uint32_t>(kMaxRshift) &&
           f.rounding < std::size(kAllRoundingModes);
  }
  return IsQ31(f.mult_a) && IsQ31(f.mult_b) && IsQ31(f.mult_y) && IsAddShift(f.shift_a) &&
         IsAddShift(f.shift_b) && IsAddShift(f.shift_y) &&
         f.left_shift <= static_cast<uint32_t>(kTfliteAddLeftShift);
}

// [begin, begin + words) and [other, other + other_words) share a word.
bool Intersect(uint64_t begin, uint64_t words, uint64_t other, uint64_t other_words) {
  return begin < other + other_words && other < begin + words;
}

}  // namespace

std::vector<uint8_t> LutSlotImage(const Lut& lut) {
  if (lut.entry_bits() != 8 && lut.entry_bits() != 16) {
    throw std::invalid_argument(fmt::format(
        "entry_bits: {} cannot be held by the table SRAM, allowed 8 or 16", lut.entry_bits()));
  }
  std::vector<uint8_t> image(kLutSlotBytes, 0);
  const std::vector<uint32_t> words = lut.SramWords();
  for (size_t a = 0; a < words.size(); ++a) {
    image[2 * a] = static_cast<uint8_t>(words[a]);
    image[2 * a + 1] = static_cast<uint8_t>(words[a] >> 8);
  }
  return image;
}

uint32_t LutRead(const std::vector<uint8_t>& table_sram, const LutFields& fields, int32_t code) {
  const uint32_t address = TableAddress(code, static_cast<int>(fields.in_bits));
  const uint64_t byte = uint64_t{fields.slot} * kLutSlotBytes + 2 * uint64_t{address};
  if (byte + 1 >= table_sram.size()) {
    throw std::out_of_range(fmt::format("LutRead: slot {} is outside a table SRAM of {} bytes",
                                        fields.slot, table_sram.size()));
  }
  const uint32_t entry = table_sram[byte] | (uint32_t{table_sram[byte + 1]} << 8);
  return fields.entry_bits == 16 ? entry : entry & 0xFF;
}

bool EltwiseFields::has_add() const {
  return op == uint32_t(EltwiseOp::kAdd) || op == uint32_t(EltwiseOp::kAddLut);
}

bool EltwiseFields::has_lookup() const {
  return op == uint32_t(EltwiseOp::kLut) || op == uint32_t(EltwiseOp::kAddLut);
}

uint64_t EltwiseFields::result_words() const {
  return (has_lookup() && lut.entry_bits == 16 ? 2 : 1) * uint64_t{count};
}

const char* EltwiseCheckName(EltwiseCheck check) {
  switch (check) {
    case EltwiseCheck::kNone:
      return "NONE";
    case EltwiseCheck::kBadShape:
      return "BAD_SHAPE";
    case EltwiseCheck::kOutRange:
      return "OUT_RANGE";
    case EltwiseCheck::kOverlap:
      return "ELT_OVERLAP";
    case EltwiseCheck::kLutSlot:
      return "LUT_SLOT";
    case EltwiseCheck::kLutInBits:
      return "LUT_IN_BITS";
    case EltwiseCheck::kLutEntryBits:
      return "LUT_ENTRY_BITS";
    case EltwiseCheck::kBadAdd:
      return "BAD_ADD";
  }
  return "?";
}

bool GemmHasLut(uint32_t mode) {
  return ((mode & arch::kModeActMask) >> arch::kModeActLsb) ==
         static_cast<uint32_t>(arch::Act::kLut);
}

LutFields GemmLutFields(uint32_t mode) {
  LutFields f;
  f.slot = (mode & arch::kModeLutSlotMask) >> arch::kModeLutSlotLsb;
  f.in_bits = (mode & arch::kModeLutInBitsMask) >> arch::kModeLutInBitsLsb;
  f.entry_bits = (mode & arch::kModeLutEntryBitsMask) >> arch::kModeLutEntryBitsLsb;
  return f;
}

uint64_t GemmOutWords(uint32_t mode, uint64_t tiles, int rows) {
  if (mode & arch::kModeOutRaw) return tiles * uint64_t(rows);
  const bool int16 = GemmHasLut(mode) && GemmLutFields(mode).entry_bits == 16;
  return tiles * uint64_t(rows) / (int16 ? 2 : 4);
}

EltwiseCheck CheckLutFields(const LutFields& fields, int slots) {
  if (fields.slot >= static_cast<uint32_t>(slots)) return EltwiseCheck::kLutSlot;
  if (fields.in_bits < static_cast<uint32_t>(arch::kLutMinInBits) ||
      fields.in_bits > static_cast<uint32_t>(arch::kLutMaxInBits)) {
    return EltwiseCheck::kLutInBits;
  }
  if (fields.entry_bits != 8 && fields.entry_bits != 16) return EltwiseCheck::kLutEntryBits;
  return EltwiseCheck::kNone;
}

EltwiseCheck ValidateEltwise(const EltwiseFields& f, uint32_t out_depth, int slots) {
  if (f.count == 0 || f.op >= kEltwiseOpCount) return EltwiseCheck::kBadShape;
  const uint64_t count = f.count;
  const uint64_t result = f.result_words();
  const bool b_read = f.has_add();
  if (f.src_a + count > out_depth || (b_read && f.src_b + count > out_depth) ||
      f.dst + result > out_depth) {
    return EltwiseCheck::kOutRange;
  }
  // In place is DST equal to a source and the result as long as it: each word is read before it is
  // written. Any other shared word may be written before it is read.
  const auto overlaps = [&](uint32_t src) {
    return Intersect(f.dst, result, src, count) && !(f.dst == src && result == count);
  };
  if (overlaps(f.src_a) || (b_read && overlaps(f.src_b))) return EltwiseCheck::kOverlap;
  if (f.has_lookup()) {
    const EltwiseCheck lut = CheckLutFields(f.lut, slots);
    if (lut != EltwiseCheck::kNone) return lut;
  }
  if (b_read && !AddFieldsLegal(f)) return EltwiseCheck::kBadAdd;
  return EltwiseCheck::kNone;
}

AddParams EltwiseAddParams(const EltwiseFields& f) {
  AddParams params;
  const bool seed = f.form == kEltwiseFormSeed;
  params.form = seed ? AddForm::kSeedSymmetric : AddForm::kTfliteAsymmetric;
  params.a = OperandSpec(f.a_unsigned, seed ? 0 : f.zp_a);
  params.b = OperandSpec(f.b_unsigned, seed ? 0 : f.zp_b);
  params.y = OperandSpec(f.y_unsigned, seed ? 0 : f.zp_y);
  if (seed) {
    params.seed.multiplier_a = static_cast<int32_t>(f.mult_a);
    params.seed.multiplier_b = static_cast<int32_t>(f.mult_b);
    params.seed.rshift = static_cast<int>(f.rshift);
    params.seed.rounding = kAllRoundingModes[f.rounding];
    params.seed.overflow = f.wrap ? IntermediateOverflow::kWrap : IntermediateOverflow::kSaturate;
  } else {
    params.tflite.left_shift = static_cast<int>(f.left_shift);
    params.tflite.multiplier_a = static_cast<int32_t>(f.mult_a);
    params.tflite.shift_a = f.shift_a;
    params.tflite.multiplier_b = static_cast<int32_t>(f.mult_b);
    params.tflite.shift_b = f.shift_b;
    params.tflite.output_multiplier = static_cast<int32_t>(f.mult_y);
    params.tflite.output_shift = f.shift_y;
  }
  return params;
}

EltwiseFields EltwiseAddFields(const AddParams& p, EltwiseOp op) {
  for (const auto& [spec, what] :
       {std::pair{&p.a, "a"}, std::pair{&p.b, "b"}, std::pair{&p.y, "y"}}) {
    if (spec->bits != kOperandBits) {
      throw std::invalid_argument(fmt::format("{}.bits: {} is not an ELTWISE operand's, allowed {}",
                                              what, spec->bits, kOperandBits));
    }
  }
  EltwiseFields f;
  f.op = uint32_t(op);
  f.a_unsigned = !p.a.is_signed;
  f.b_unsigned = !p.b.is_signed;
  f.y_unsigned = !p.y.is_signed;
  f.clamp_min = static_cast<int32_t>(p.y.qmin());
  f.clamp_max = static_cast<int32_t>(p.y.qmax());
  if (p.form == AddForm::kSeedSymmetric) {
    f.form = kEltwiseFormSeed;
    f.mult_a = static_cast<uint32_t>(p.seed.multiplier_a);
    f.mult_b = static_cast<uint32_t>(p.seed.multiplier_b);
    f.rshift = static_cast<uint32_t>(p.seed.rshift);
    f.rounding = static_cast<uint32_t>(
        std::find(std::begin(kAllRoundingModes), std::end(kAllRoundingModes), p.seed.rounding) -
        std::begin(kAllRoundingModes));
    f.wrap = p.seed.overflow == IntermediateOverflow::kWrap;
  } else {
    f.form = kEltwiseFormTflite;
    f.zp_a = p.a.zero_point;
    f.zp_b = p.b.zero_point;
    f.zp_y = p.y.zero_point;
    f.left_shift = static_cast<uint32_t>(p.tflite.left_shift);
    f.mult_a = static_cast<uint32_t>(p.tflite.multiplier_a);
    f.mult_b = static_cast<uint32_t>(p.tflite.multiplier_b);
    f.mult_y = static_cast<uint32_t>(p.tflite.output_multiplier);
    f.shift_a = p.tflite.shift_a;
    f.shift_b = p.tflite.shift_b;
    f.shift_y = p.tflite.output_shift;
  }
  return f;
}

int32_t EltwiseCode(const EltwiseFields& f, const AddParams& add, uint8_t byte_a, uint8_t byte_b) {
  const auto code = [](uint8_t byte, bool is_unsigned) {
    return is_unsigned ? int32_t{byte} : int32_t{static_cast<int8_t>(byte)};
  };
  const int32_t qa = code(byte_a, f.a_unsigned);
  if (!f.has_add()) return qa;
  return std::clamp(Add(qa, code(byte_b, f.b_unsigned), add), f.clamp_min, f.clamp_max);
}

void ExecuteEltwise(const EltwiseFields& f, int cols, const std::vector<uint8_t>& table_sram,
                    std::vector<uint8_t>& out_sram) {
  const uint64_t word_bytes = 4 * uint64_t(cols);
  const AddParams add = f.has_add() ? EltwiseAddParams(f) : AddParams{};
  const bool int16 = f.has_lookup() && f.lut.entry_bits == 16;
  // Element by element in address order: in place, each byte is read before it is written.
  for (uint64_t i = 0; i < f.count * word_bytes; ++i) {
    const uint8_t byte_a = out_sram.at(f.src_a * word_bytes + i);
    const uint8_t byte_b = f.has_add() ? out_sram.at(f.src_b * word_bytes + i) : 0;
    const int32_t code = EltwiseCode(f, add, byte_a, byte_b);
    if (!f.has_lookup()) {
      out_sram.at(f.dst * word_bytes + i) = static_cast<uint8_t>(code);
      continue;
    }
    const uint32_t entry = LutRead(table_sram, f.lut, code);
    if (!int16) {
      out_sram.at(f.dst * word_bytes + i) = static_cast<uint8_t>(entry);
      continue;
    }
    // Source byte i is entry i / C (int8 layout: four entries per word), lane i mod C.
    const uint64_t byte = Int16OutByte(cols, f.dst, i / cols, static_cast<int>(i % cols));
    out_sram.at(byte) = static_cast<uint8_t>(entry);
    out_sram.at(byte + 1) = static_cast<uint8_t>(entry >> 8);
  }
}

uint64_t Int16OutByte(int cols, uint32_t out_base, uint64_t entry, int lane) {
  const uint64_t word_bytes = 4 * uint64_t(cols);
  return (out_base + entry / 2) * word_bytes + 2 * ((entry % 2) * cols + lane);
}

}  // namespace qacc::golden
