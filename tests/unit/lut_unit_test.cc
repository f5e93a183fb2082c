// The LUT unit and ELTWISE as the hardware defines them (golden/lut_unit.h, docs/lut.md 10),
// against oracles that do not share their code paths:
//  * slot images read back through raw addresses against the table's ascending-input view
//    (entries_by_value: no addressing at all), every function, input width, signedness and both
//    entry widths, every code of the input's bit patterns;
//  * the add's descriptor fields as a compiler writes them (EltwiseAddFields) and as the hardware
//    reads them back (EltwiseAddParams), over all 65,536 operand byte pairs, against golden's Add
//    on the params MakeAddParams derived, and an explicit clamp;
//  * ELTWISE on an out SRAM image against per-element indexing written here from the layouts'
//    word/byte formulas (6.3, 10.6);
//  * each validation rule one value inside and one outside its boundary, and pairs of failing
//    checks reporting the first in the spec's order.
#include "golden/lut_unit.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "golden/add.h"
#include "golden/elementwise.h"
#include "golden/lut.h"
#include "golden/quant.h"

namespace qacc::golden {
namespace {

constexpr int kSlots = 4;

std::vector<uint8_t> RandomBytes(size_t n, std::mt19937& rng) {
  std::vector<uint8_t> bytes(n);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

LutSpec TableSpec(int in_bits, bool in_signed, bool narrow, int entry_bits) {
  LutSpec spec;
  spec.in.bits = in_bits;
  spec.in.is_signed = in_signed;
  spec.in.narrow = narrow;
  spec.in.scale = 4.0 / static_cast<double>(spec.in.qmax());
  spec.in.zero_point = in_signed ? 0 : static_cast<int32_t>(spec.in.qmax() / 2);
  spec.out.bits = entry_bits;
  spec.derive_out = true;
  return spec;
}

// ---- Table SRAM --------------------------------------------------------------------------------

TEST(LutUnit, EverySlotImageReadsBackThroughRawAddresses) {
  std::mt19937 rng(41);
  int64_t checked = 0;
  for (const std::string& name : ElementwiseNames()) {
    for (int in_bits = kMinLutInBits; in_bits <= kMaxLutInBits; ++in_bits) {
      for (const auto& [in_signed, narrow] :
           {std::pair{true, false}, std::pair{true, true}, std::pair{false, false}}) {
        for (int entry_bits : {8, 16}) {
          const Lut lut =
              BuildLut(GetElementwise(name), TableSpec(in_bits, in_signed, narrow, entry_bits));
          const auto slot = static_cast<uint32_t>(rng() % kSlots);
          std::vector<uint8_t> sram = RandomBytes(kSlots * kLutSlotBytes, rng);
          const std::vector<uint8_t> image = LutSlotImage(lut);
          ASSERT_EQ(image.size(), kLutSlotBytes);
          std::copy(image.begin(), image.end(), sram.begin() + slot * kLutSlotBytes);
          // Entries past 2^in_bits and an 8-bit entry's high byte are written 0.
          for (uint32_t e = 0; e < static_cast<uint32_t>(kLutSlotEntries); ++e) {
            if (e >= (1u << in_bits)) {
              ASSERT_EQ(image[2 * e] | image[2 * e + 1], 0) << name << " entry " << e;
            } else if (entry_bits == 8) {
              ASSERT_EQ(image[2 * e + 1], 0) << name << " entry " << e;
            }
          }
          const LutFields fields{slot, static_cast<uint32_t>(in_bits),
                                 static_cast<uint32_t>(entry_bits)};
          const std::vector<int32_t>& by_value = lut.entries_by_value();
          const int64_t qmin = lut.in().qmin();
          // Every bit pattern of the input: the narrow-excluded -2^(b-1) reads T(qmin).
          const int64_t lo = in_signed ? -(int64_t{1} << (in_bits - 1)) : 0;
          const int64_t hi = in_signed ? (int64_t{1} << (in_bits - 1)) - 1 : (1 << in_bits) - 1;
          for (int64_t q = lo; q <= hi; ++q) {
            const int32_t entry = by_value[std::max<int64_t>(q, qmin) - qmin];
            const uint32_t expected = static_cast<uint32_t>(entry) & ((1u << entry_bits) - 1);
            ASSERT_EQ(LutRead(sram, fields, static_cast<int32_t>(q)), expected)
                << name << " in_bits " << in_bits << (in_signed ? " signed" : " unsigned")
                << (narrow ? " narrow" : "") << " entry_bits " << entry_bits << " q " << q;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 15 * 3 * 2 * (4 + 8 + 16 + 32 + 64 + 128 + 256));
}

TEST(LutUnit, ReadsOnlyTheCodesLowBitsAndItsSlot) {
  std::mt19937 rng(7);
  const std::vector<uint8_t> sram = RandomBytes(kSlots * kLutSlotBytes, rng);
  for (uint32_t slot = 0; slot < kSlots; ++slot) {
    for (int32_t code = -128; code <= 255; ++code) {
      const uint32_t address = static_cast<uint32_t>(code) & 0x1F;  // 5 input bits
      const size_t byte = slot * kLutSlotBytes + 2 * address;
      EXPECT_EQ(LutRead(sram, {slot, 5, 16}, code), sram[byte] | (sram[byte + 1] << 8u));
      EXPECT_EQ(LutRead(sram, {slot, 5, 8}, code), sram[byte]);
    }
  }
  EXPECT_THROW(LutRead(sram, {kSlots, 8, 8}, 0), std::out_of_range);
}

TEST(LutUnit, SlotImageRefusesOtherEntryWidths) {
  for (int entry_bits : {4, 12}) {
    EXPECT_THROW(
        LutSlotImage(BuildLut(GetElementwise("tanh"), TableSpec(8, true, false, entry_bits))),
        std::invalid_argument);
  }
}

// ---- The add -----------------------------------------------------------------------------------

struct AddCase {
  QuantSpec a, b, y;
  AddForm form;
};

QuantSpec Spec8(bool is_signed, double scale, int32_t zp) {
  return {8, is_signed, false, scale, zp};
}

TEST(LutUnit, AddFieldsGiveGoldensAddForEveryOperandPair) {
  const std::vector<AddCase> cases = {
      {Spec8(true, 0.05, 0), Spec8(true, 0.03, 0), Spec8(true, 0.07, 0), AddForm::kSeedSymmetric},
      {Spec8(false, 0.02, 0), Spec8(false, 0.02, 0), Spec8(false, 0.03, 0),
       AddForm::kSeedSymmetric},
      {Spec8(true, 0.5, 0), Spec8(false, 0.004, 0), Spec8(true, 0.01, 0), AddForm::kSeedSymmetric},
      {Spec8(true, 0.05, -3), Spec8(true, 0.03, 7), Spec8(true, 0.07, 1),
       AddForm::kTfliteAsymmetric},
      {Spec8(false, 0.02, 128), Spec8(false, 0.05, 3), Spec8(false, 0.06, 200),
       AddForm::kTfliteAsymmetric},
      {Spec8(true, 0.1, -128), Spec8(false, 0.001, 255), Spec8(true, 0.0005, 127),
       AddForm::kTfliteAsymmetric},
  };
  for (const AddCase& c : cases) {
    AddParams golden = MakeAddParams(c.a, c.b, c.y, c.form);
    for (bool wrap : {false, true}) {
      if (wrap && c.form != AddForm::kSeedSymmetric) continue;
      golden.seed.overflow = wrap ? IntermediateOverflow::kWrap : IntermediateOverflow::kSaturate;
      EltwiseFields f = EltwiseAddFields(golden, EltwiseOp::kAdd);
      // y's range, and a clamp inside it: a fused ReLU below a lowered maximum.
      const int32_t relu = std::max(f.clamp_min, c.y.zero_point);
      for (const auto& [lo, hi] : {std::pair{f.clamp_min, f.clamp_max},
                                   std::pair{relu, std::max(relu, f.clamp_max - 3)}}) {
        f.clamp_min = lo;
        f.clamp_max = hi;
        ASSERT_EQ(ValidateEltwise(f, 64, kSlots), EltwiseCheck::kNone)
            << AddFormName(c.form) << " y " << c.y.zero_point << " clamp " << lo << ".." << hi;
        const AddParams held = EltwiseAddParams(f);
        for (int ba = 0; ba < 256; ++ba) {
          for (int bb = 0; bb < 256; ++bb) {
            const int32_t qa = c.a.is_signed ? static_cast<int8_t>(ba) : ba;
            const int32_t qb = c.b.is_signed ? static_cast<int8_t>(bb) : bb;
            const int32_t expected = std::clamp(Add(qa, qb, golden), lo, hi);
            ASSERT_EQ(EltwiseCode(f, held, static_cast<uint8_t>(ba), static_cast<uint8_t>(bb)),
                      expected)
                << AddFormName(c.form) << " wrap " << wrap << " a " << qa << " b " << qb;
          }
        }
      }
    }
  }
}

TEST(LutUnit, AddFieldsTakeEightBitSpecsOnly) {
  AddParams params = MakeAddParams(Spec8(true, 0.05, 0), Spec8(true, 0.03, 0), Spec8(true, 0.07, 0),
                                   AddForm::kTfliteAsymmetric);
  params.y.bits = 7;
  EXPECT_THROW(EltwiseAddFields(params, EltwiseOp::kAdd), std::invalid_argument);
}

// ---- The command on the out SRAM ---------------------------------------------------------------

// Byte of lane c of int8 entry e from word `base` (6.3: word base + e / 4, byte (e mod 4) C + c).
size_t Int8Byte(int cols, uint32_t base, size_t e, int c) {
  return (base + e / 4) * 4 * cols + (e % 4) * cols + c;
}

TEST(LutUnit, EltwiseWritesEachLayoutEntryByEntry) {
  std::mt19937 rng(5);
  for (int cols : {4, 8, 16}) {
    const uint32_t depth = 64;
    const std::vector<uint8_t> table = RandomBytes(kSlots * kLutSlotBytes, rng);
    for (uint32_t op : {0u, 1u, 2u}) {
      for (uint32_t entry_bits : {8u, 16u}) {
        EltwiseFields f;
        f.op = op;
        f.count = 5;
        f.src_a = 3;
        f.src_b = 20;
        f.dst = 40;
        f.form = kEltwiseFormSeed;
        f.mult_a = 90;
        f.mult_b = 33;
        f.rshift = 7;
        f.rounding = 2;
        f.lut = {static_cast<uint32_t>(rng() % kSlots), 6, entry_bits};
        ASSERT_EQ(ValidateEltwise(f, depth, kSlots), EltwiseCheck::kNone);
        const std::vector<uint8_t> before = RandomBytes(depth * 4 * cols, rng);
        std::vector<uint8_t> out = before;
        ExecuteEltwise(f, cols, table, out);
        std::vector<uint8_t> expected = before;
        const AddParams add = EltwiseAddParams(f);
        for (size_t e = 0; e < 4 * f.count; ++e) {
          for (int c = 0; c < cols; ++c) {
            const uint8_t a = before[Int8Byte(cols, f.src_a, e, c)];
            const uint8_t b = before[Int8Byte(cols, f.src_b, e, c)];
            const int32_t code = EltwiseCode(f, add, a, b);
            if (op == uint32_t(EltwiseOp::kAdd)) {
              expected[Int8Byte(cols, f.dst, e, c)] = static_cast<uint8_t>(code);
              continue;
            }
            const size_t entry =
                (static_cast<uint32_t>(code) & 0x3F) * 2 + f.lut.slot * kLutSlotBytes;
            if (entry_bits == 8) {
              expected[Int8Byte(cols, f.dst, e, c)] = table[entry];
            } else {  // 10.6: word dst + e / 2, bytes 2 ((e mod 2) C + c) .. +1
              const size_t byte = (f.dst + e / 2) * 4 * cols + 2 * ((e % 2) * cols + c);
              expected[byte] = table[entry];
              expected[byte + 1] = table[entry + 1];
            }
          }
        }
        ASSERT_EQ(out, expected) << "cols " << cols << " op " << op << " entry_bits " << entry_bits;
      }
    }
  }
}

TEST(LutUnit, EltwiseInPlaceReadsEachWordBeforeWritingIt) {
  std::mt19937 rng(9);
  const int cols = 8;
  const std::vector<uint8_t> table = RandomBytes(kSlots * kLutSlotBytes, rng);
  for (const bool on_b : {false, true}) {
    EltwiseFields f;
    f.op = uint32_t(EltwiseOp::kAddLut);
    f.count = 4;
    f.src_a = 8;
    f.src_b = 16;
    f.dst = on_b ? f.src_b : f.src_a;
    f.mult_a = f.mult_b = f.mult_y = 1u << 30;
    f.shift_a = f.shift_b = -1;
    f.shift_y = -19;
    f.lut = {1, 8, 8};
    ASSERT_EQ(ValidateEltwise(f, 32, kSlots), EltwiseCheck::kNone);
    const std::vector<uint8_t> before = RandomBytes(32 * 4 * cols, rng);
    std::vector<uint8_t> in_place = before;
    ExecuteEltwise(f, cols, table, in_place);
    // The same command into a free range, then copied over the source it replaced.
    EltwiseFields apart = f;
    apart.dst = 24;
    std::vector<uint8_t> expected = before;
    ExecuteEltwise(apart, cols, table, expected);
    std::copy_n(expected.begin() + 24 * 4 * cols, 4 * 4 * cols,
                expected.begin() + f.dst * 4 * cols);
    std::copy_n(before.begin() + 24 * 4 * cols, 4 * 4 * cols, expected.begin() + 24 * 4 * cols);
    EXPECT_EQ(in_place, expected) << (on_b ? "on b" : "on a");
  }
}

TEST(LutUnit, Int16LayoutPutsTwoEntriesPerWord) {
  // C = 8: a word is 32 bytes; entry 0 lanes at 0..15, entry 1 at 16..31, entry 2 in the next word.
  EXPECT_EQ(Int16OutByte(8, 10, 0, 0), 320u);
  EXPECT_EQ(Int16OutByte(8, 10, 0, 7), 334u);
  EXPECT_EQ(Int16OutByte(8, 10, 1, 0), 336u);
  EXPECT_EQ(Int16OutByte(8, 10, 2, 3), 358u);
}

// ---- Validation --------------------------------------------------------------------------------

EltwiseFields LegalAdd(uint32_t form) {
  EltwiseFields f;
  f.op = uint32_t(EltwiseOp::kAddLut);
  f.form = form;
  f.count = 4;
  f.src_a = 0;
  f.src_b = 4;
  f.dst = 8;
  f.mult_a = f.mult_b = form == kEltwiseFormSeed ? 100 : 1u << 30;
  f.mult_y = form == kEltwiseFormSeed ? 0 : (1u << 31) - 1;
  return f;
}

void ExpectCheck(const EltwiseFields& f, EltwiseCheck expected, const std::string& what) {
  EXPECT_EQ(EltwiseCheckName(ValidateEltwise(f, 16, kSlots)),
            std::string(EltwiseCheckName(expected)))
      << what;
}

TEST(LutUnit, EachRuleAtItsBoundary) {
  using C = EltwiseCheck;
  const EltwiseFields base = LegalAdd(kEltwiseFormTflite);
  ExpectCheck(base, C::kNone, "legal");
  auto with = [&](auto change) {
    EltwiseFields f = base;
    change(f);
    return f;
  };
  ExpectCheck(with([](auto& f) { f.count = 0; }), C::kBadShape, "COUNT 0");
  ExpectCheck(with([](auto& f) { f.op = 3; }), C::kBadShape, "OP 3");
  // Ranges: depth 16. The result of a 16-bit lookup takes 2 COUNT words.
  ExpectCheck(with([](auto& f) { f.src_a = 12, f.dst = 4, f.src_b = 8; }), C::kNone,
              "a at the end");
  ExpectCheck(with([](auto& f) { f.src_a = 13; }), C::kOutRange, "a past the end");
  ExpectCheck(with([](auto& f) { f.src_b = 13; }), C::kOutRange, "b past the end");
  ExpectCheck(with([](auto& f) { f.src_b = 13, f.op = 0; }), C::kNone, "b unread by LUT");
  ExpectCheck(with([](auto& f) { f.dst = 12; }), C::kNone, "dst at the end");
  ExpectCheck(with([](auto& f) { f.dst = 13; }), C::kOutRange, "dst past the end");
  ExpectCheck(with([](auto& f) { f.dst = 8, f.lut.entry_bits = 16; }), C::kNone,
              "int16 at the end");
  ExpectCheck(with([](auto& f) { f.dst = 9, f.lut.entry_bits = 16; }), C::kOutRange, "int16 past");
  ExpectCheck(with([](auto& f) { f.dst = 9, f.lut.entry_bits = 16, f.op = 1; }), C::kNone,
              "ADD writes int8 whatever LUT_ENTRY_BITS");
  // Overlap: in place exactly, or disjoint.
  ExpectCheck(with([](auto& f) { f.dst = 0; }), C::kNone, "in place on a");
  ExpectCheck(with([](auto& f) { f.dst = 4; }), C::kNone, "in place on b");
  ExpectCheck(with([](auto& f) { f.dst = 4, f.op = 0; }), C::kNone, "b unread, no overlap");
  ExpectCheck(with([](auto& f) { f.dst = 1; }), C::kOverlap, "a shifted by one");
  ExpectCheck(with([](auto& f) { f.dst = 3; }), C::kOverlap, "a's last word");
  ExpectCheck(with([](auto& f) { f.dst = 7; }), C::kOverlap, "b's last word");
  ExpectCheck(with([](auto& f) { f.dst = 0, f.lut.entry_bits = 16; }), C::kOverlap,
              "int16 in place");
  ExpectCheck(with([](auto& f) { f.dst = 8, f.src_b = 0; }), C::kNone, "a and b may be one range");
  // The lookup's fields, only with a lookup.
  ExpectCheck(with([](auto& f) { f.lut.slot = kSlots - 1; }), C::kNone, "last slot");
  ExpectCheck(with([](auto& f) { f.lut.slot = kSlots; }), C::kLutSlot, "slot past");
  ExpectCheck(with([](auto& f) { f.lut.slot = kSlots, f.op = 1; }), C::kNone, "ADD: no lookup");
  for (uint32_t bits = 0; bits < 16; ++bits) {
    ExpectCheck(with([&](auto& f) { f.lut.in_bits = bits; }),
                bits >= 2 && bits <= 8 ? C::kNone : C::kLutInBits, fmt::format("in_bits {}", bits));
  }
  for (uint32_t bits = 0; bits < 32; ++bits) {
    ExpectCheck(with([&](auto& f) { f.lut.entry_bits = bits; }),
                bits == 8 || bits == 16 ? C::kNone : C::kLutEntryBits,
                fmt::format("entry_bits {}", bits));
  }
}

TEST(LutUnit, EachAddFieldAtItsBoundary) {
  using C = EltwiseCheck;
  auto check = [](uint32_t form, auto change, C expected, const std::string& what) {
    EltwiseFields f = LegalAdd(form);
    change(f);
    ExpectCheck(f, expected, what);
    f.op = uint32_t(EltwiseOp::kLut);  // no add: its fields are not read
    ExpectCheck(f, C::kNone, what + " (LUT only)");
  };
  const uint32_t tf = kEltwiseFormTflite;
  const uint32_t seed = kEltwiseFormSeed;
  for (uint32_t EltwiseFields::*mult :
       {&EltwiseFields::mult_a, &EltwiseFields::mult_b, &EltwiseFields::mult_y}) {
    for (const std::pair<uint32_t, bool>& value :
         {std::pair{0u, true}, std::pair{(1u << 30) - 1, false}, std::pair{1u << 30, true},
          std::pair{(1u << 31) - 1, true}, std::pair{1u << 31, false}}) {
      check(
          tf, [&](auto& f) { f.*mult = value.first; }, value.second ? C::kNone : C::kBadAdd,
          fmt::format("tflite multiplier {:#x}", value.first));
    }
  }
  for (int32_t EltwiseFields::*shift :
       {&EltwiseFields::shift_a, &EltwiseFields::shift_b, &EltwiseFields::shift_y}) {
    for (const std::pair<int32_t, bool>& value :
         {std::pair{-32, false}, std::pair{-31, true}, std::pair{0, true}, std::pair{1, false}}) {
      check(
          tf, [&](auto& f) { f.*shift = value.first; }, value.second ? C::kNone : C::kBadAdd,
          fmt::format("tflite shift {}", value.first));
    }
  }
  check(
      tf, [](auto& f) { f.left_shift = 20; }, C::kNone, "left_shift 20");
  check(
      tf, [](auto& f) { f.left_shift = 21; }, C::kBadAdd, "left_shift 21");
  check(
      tf, [](auto& f) { f.rshift = 63, f.rounding = 7, f.zp_a = -256; }, C::kNone,
      "the seed form's fields do not bind tflite");
  for (uint32_t EltwiseFields::*mult : {&EltwiseFields::mult_a, &EltwiseFields::mult_b}) {
    check(
        seed, [&](auto& f) { f.*mult = 127; }, C::kNone, "seed multiplier 127");
    check(
        seed, [&](auto& f) { f.*mult = 128; }, C::kBadAdd, "seed multiplier 128");
  }
  check(
      seed, [](auto& f) { f.rshift = 62; }, C::kNone, "rshift 62");
  check(
      seed, [](auto& f) { f.rshift = 63; }, C::kBadAdd, "rshift 63");
  check(
      seed, [](auto& f) { f.rounding = 4; }, C::kNone, "rounding 4");
  check(
      seed, [](auto& f) { f.rounding = 5; }, C::kBadAdd, "rounding 5");
  check(
      seed, [](auto& f) { f.mult_y = 1, f.shift_a = 5, f.left_shift = 31; }, C::kNone,
      "the tflite form's fields do not bind seed");
  // The clamp: ordered and inside y's type, for both forms.
  for (uint32_t form : {tf, seed}) {
    check(
        form, [](auto& f) { f.clamp_min = -128, f.clamp_max = 127; }, C::kNone, "int8 clamp");
    check(
        form, [](auto& f) { f.clamp_min = -129; }, C::kBadAdd, "int8 clamp_min -129");
    check(
        form, [](auto& f) { f.clamp_max = 128; }, C::kBadAdd, "int8 clamp_max 128");
    check(
        form, [](auto& f) { f.clamp_min = 5, f.clamp_max = 5; }, C::kNone, "one code");
    check(
        form, [](auto& f) { f.clamp_min = 5, f.clamp_max = 4; }, C::kBadAdd, "reversed");
    check(
        form, [](auto& f) { f.y_unsigned = true, f.clamp_min = 0, f.clamp_max = 255; }, C::kNone,
        "uint8 clamp");
    check(
        form, [](auto& f) { f.y_unsigned = true, f.clamp_min = -1, f.clamp_max = 255; }, C::kBadAdd,
        "uint8 clamp_min -1");
    check(
        form, [](auto& f) { f.y_unsigned = true, f.clamp_min = 0, f.clamp_max = 256; }, C::kBadAdd,
        "uint8 clamp_max 256");
  }
}

TEST(LutUnit, TwoFailingChecksReportTheFirstInOrder) {
  using C = EltwiseCheck;
  // Each adjacent pair of 10.5's order, both failing in one descriptor.
  const auto both = [](auto first, auto second) {
    EltwiseFields f = LegalAdd(kEltwiseFormTflite);
    first(f);
    second(f);
    return f;
  };
  const auto shape = [](EltwiseFields& f) { f.count = 0; };
  const auto range = [](EltwiseFields& f) { f.src_b = 15; };
  const auto overlap = [](EltwiseFields& f) { f.dst = 2; };
  const auto slot = [](EltwiseFields& f) { f.lut.slot = kSlots; };
  const auto in_bits = [](EltwiseFields& f) { f.lut.in_bits = 9; };
  const auto entry = [](EltwiseFields& f) { f.lut.entry_bits = 12; };
  const auto add = [](EltwiseFields& f) { f.left_shift = 31; };
  ExpectCheck(both(shape, range), C::kBadShape, "BAD_SHAPE before OUT_RANGE");
  ExpectCheck(both(range, overlap), C::kOutRange, "OUT_RANGE before ELT_OVERLAP");
  ExpectCheck(both(overlap, slot), C::kOverlap, "ELT_OVERLAP before LUT_SLOT");
  ExpectCheck(both(slot, in_bits), C::kLutSlot, "LUT_SLOT before LUT_IN_BITS");
  ExpectCheck(both(in_bits, entry), C::kLutInBits, "LUT_IN_BITS before LUT_ENTRY_BITS");
  ExpectCheck(both(entry, add), C::kLutEntryBits, "LUT_ENTRY_BITS before BAD_ADD");
}

}  // namespace
}  // namespace qacc::golden
