// The golden program executor (golden/program.h) against docs/data_movement.md 11-14 and
// docs/architecture.md 3-6: descriptor encoding with the register field masks, every validation
// rule at its boundary and the order of the checks, DMA patterns against a naive unit-by-unit
// reference, GEMM against golden::Gemm + RequantizeAccumulator on matrices the test packs itself,
// MOVE by chaining two layers, the queue (tokens, depths, deadlock, errors) and the race checker.
// Expected values come from the spec's formulas written out here, never from the executor.
#include "golden/program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/gemm.h"
#include "golden/requant.h"

namespace qacc::golden {
namespace {

// ---- Helpers ----------------------------------------------------------------------------------

// Small SRAMs (every depth different, so a check that reads the wrong depth fails) in the three
// array shapes of configs/.
AccelGeometry Small(int rows, int cols) {
  AccelGeometry g;
  g.rows = rows;
  g.cols = cols;
  g.a_depth = 64;
  g.b_depth = 128;
  g.bias_depth = 32;
  g.rq_depth = 16;
  g.out_depth = 32;
  g.lut_slots = cols == 16 ? 3 : 1;  // LUT table 32 * slots words: 96 (not a power of two) or 32
  return g;
}
const AccelGeometry kGeometries[] = {Small(8, 8), Small(4, 16), Small(16, 4)};

std::string Name(const AccelGeometry& g) {
  return std::to_string(g.rows) + "x" + std::to_string(g.cols);
}

int Uniform(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}
uint32_t Word(std::mt19937& rng) { return static_cast<uint32_t>(rng()); }

void FillRandom(std::vector<uint8_t>& bytes, std::mt19937& rng) {
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
}
void FillRandom(MachineState& state, std::mt19937& rng) {
  for (auto* image : {&state.a, &state.b, &state.bias, &state.rq, &state.out}) {
    FillRandom(*image, rng);
  }
  for (uint64_t i = 0; i < state.ext.size(); ++i) state.ext[i] = static_cast<uint8_t>(rng());
}

template <typename Bytes>  // std::vector<uint8_t> or MemoryImage
uint32_t Get32(const Bytes& bytes, uint64_t offset) {
  return uint32_t{bytes.at(offset)} | uint32_t{bytes.at(offset + 1)} << 8 |
         uint32_t{bytes.at(offset + 2)} << 16 | uint32_t{bytes.at(offset + 3)} << 24;
}
template <typename Bytes>
void Put32(Bytes& bytes, uint64_t offset, uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes.at(offset + i) = static_cast<uint8_t>(value >> (8 * i));
}

// Memories compared image by image, so a failure names the memory.
void ExpectSameState(const MachineState& actual, const MachineState& expected,
                     const std::string& what) {
  EXPECT_TRUE(actual.a == expected.a) << what << ": A SRAM differs";
  EXPECT_TRUE(actual.b == expected.b) << what << ": B SRAM differs";
  EXPECT_TRUE(actual.bias == expected.bias) << what << ": bias SRAM differs";
  EXPECT_TRUE(actual.rq == expected.rq) << what << ": rq SRAM differs";
  EXPECT_TRUE(actual.out == expected.out) << what << ": out SRAM differs";
  EXPECT_TRUE(actual.lut == expected.lut) << what << ": LUT table SRAM differs";
  EXPECT_TRUE(actual.ext == expected.ext) << what << ": external memory differs";
}

Header Flags(bool wait, bool signal) {
  Header h;
  h.wait = wait;
  h.signal = signal;
  return h;
}
const Header kNoFlags{};

// CMD_MODE bits, written from the register table (architecture.md 3.2).
constexpr uint32_t kRqForm = 1u << 6;  // CMD_MODE.RQ_FORM: the TPU-MLIR form
constexpr uint32_t kSingle = 1, kPerChannel = 2, kOutRaw = 4, kBiasEn = 8, kAUnsigned = 16,
                   kBUnsigned = 32;
uint32_t ZpAb(int a_zp, int b_zp) {
  return (static_cast<uint32_t>(a_zp) & 0x1FF) | (static_cast<uint32_t>(b_zp) & 0x1FF) << 16;
}
uint32_t ShiftField(int shift) { return static_cast<uint32_t>(shift) & 0xFF; }

int64_t Ceil(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::vector<Descriptor> Program(std::initializer_list<Descriptor> descriptors) {
  return std::vector<Descriptor>(descriptors);
}

// ---- 11: encoding ---------------------------------------------------------------------------

TEST(ProgramEncodeTest, GemmWordsAreTheMaskedCommandRegisters) {
  GemmFields f;
  f.m = 0x12345;
  f.n = 0xFFFF0002;
  f.k = 0xFFFF;
  f.a_base = 0xABCDEF1;
  f.b_base = 0xFFFFF;
  f.bias_base = 0x100000;
  f.rq_base = 0x7;
  f.out_base = 0xFFF12345;
  f.mode = 0xFFFFFFFF;
  f.zp_ab = 0xFFFFFFFF;
  f.zp_out = -5;
  f.clamp_min = -128;
  f.clamp_max = std::numeric_limits<int32_t>::max();
  f.mult = std::numeric_limits<int32_t>::min();
  f.shift = 0xFFFFFFE1;
  Header h;
  h.op = 7;  // ignored: a GEMM descriptor's opcode is 0
  h.wait = true;
  const Descriptor expected = {
      0x2345,     0x0002,     0xFFFF,     0xCDEF1,    0xFFFFF,    0x00000,    0x7,  0x12345,
      0x3FFFFFFF, 0x01FF01FF, 0xFFFFFFFB, 0xFFFFFF80, 0x7FFFFFFF, 0x80000000, 0xE1, 0x100};
  EXPECT_EQ(EncodeGemm(f, h), expected);
  h.wait = false;
  h.signal = true;
  EXPECT_EQ(EncodeGemm(f, h)[15], 0x200u);
}

TEST(ProgramEncodeTest, DmaAndMoveWords) {
  DmaFields dma;
  dma.count0 = 0x10003;  // [15:0]
  dma.count1 = 2;
  dma.count2 = 0xFFFF;
  dma.sram_base = 0x123456;  // [19:0]
  dma.sram_stride1 = 0xFFFFFFFF;
  dma.sram_stride2 = 5;
  dma.ext_addr = 0xFFFFFFC0;  // 32 bits, kept
  dma.ext_stride1 = 0x80000000;
  dma.ext_stride2 = 0x40;
  dma.sram = 0x1D;  // [3:0] = 13 (version 2.0: 4 bits; 1.x kept [2:0] = 5)
  dma.out_int32 = true;
  const Descriptor load = {3,    2,    0xFFFF, 0x23456, 0xFFFFF, 5, 0xFFFFFFC0, 0x80000000,
                           0x40, 0x1D, 0,      0,       0,       0, 0,          0x301};
  EXPECT_EQ(EncodeDma(Op::kLoad, dma, Flags(true, true)), load);
  Descriptor store = load;
  store[15] = 0x002;
  EXPECT_EQ(EncodeDma(Op::kStore, dma, kNoFlags), store);
  EXPECT_THROW(EncodeDma(Op::kGemm, dma, kNoFlags), std::invalid_argument);
  EXPECT_THROW(EncodeDma(Op::kMove, dma, kNoFlags), std::invalid_argument);

  MoveFields move;
  move.count0 = 0x20008;
  move.count1 = 1;
  move.count2 = 0x10001;
  move.dst_base = 0x1FFFFF;
  move.dst_stride1 = 3;
  move.dst_stride2 = 0xF00000;
  move.src_base = 0xFFFFFFFC;  // [19:0] like every SRAM field
  move.src_stride1 = 8;
  move.src_stride2 = 0x100004;
  move.dst = 0x1A;  // [3:0] = 10 (version 2.0: 4 bits)
  const Descriptor expected = {8, 1, 1, 0xFFFFF, 3, 0, 0xFFFFC, 8, 4, 0xA, 0, 0, 0, 0, 0, 0x203};
  EXPECT_EQ(EncodeMove(move, Flags(false, true)), expected);
}

TEST(ProgramEncodeTest, HeaderDecode) {
  // Exhaustive over the 12 low bits of word 15; the other bits are ignored.
  for (uint32_t low = 0; low < 4096; ++low) {
    Descriptor d{};
    d[15] = low | 0xABCDE000;
    const Header h = DecodeHeader(d);
    EXPECT_EQ(h.op, low & 0xF);
    EXPECT_EQ(h.wait, (low >> 8 & 1) != 0);
    EXPECT_EQ(h.signal, (low >> 9 & 1) != 0);
  }
}

// Word-level: decoding any 16 words and encoding them again keeps exactly the bits the registers
// store (the masks of 3.2, 12 and 13, written out here).
TEST(ProgramEncodeTest, RandomWordsRoundTripThroughTheFieldMasks) {
  constexpr uint32_t kAll = 0xFFFFFFFF;
  const Descriptor gemm_mask = {0xFFFF,  0xFFFF,  0xFFFF,     0xFFFFF,   0xFFFFF, 0xFFFFF,
                                0xFFFFF, 0xFFFFF, 0x3FFFFFFF, 0x1FF01FF, kAll,    kAll,
                                kAll,    kAll,    0xFF,       0x300};
  const Descriptor dma_mask = {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFFF, 0xFFFFF, 0xFFFFF, kAll, kAll,
                               kAll,   0x3F,   0,      0,       0,       0,       0,    0x300};
  const Descriptor move_mask = {0xFFFF,  0xFFFF,  0xFFFF,  0xFFFFF, 0xFFFFF, 0xFFFFF,
                                0xFFFFF, 0xFFFFF, 0xFFFFF, 0xF,     0,       0,
                                0,       0,       0,       0x300};
  std::mt19937 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    Descriptor d;
    for (uint32_t& w : d) w = Word(rng);
    if (trial % 4 == 0) d.fill(0xFFFFFFFF);
    const Header h = DecodeHeader(d);
    auto masked = [&d](const Descriptor& mask, uint32_t op) {
      Descriptor m;
      for (int i = 0; i < kDescriptorWords; ++i) m[i] = d[i] & mask[i];
      m[15] |= op;
      return m;
    };
    EXPECT_EQ(EncodeGemm(DecodeGemm(d), h), masked(gemm_mask, 0));
    EXPECT_EQ(EncodeDma(Op::kLoad, DecodeDma(d), h), masked(dma_mask, 1));
    EXPECT_EQ(EncodeDma(Op::kStore, DecodeDma(d), h), masked(dma_mask, 2));
    EXPECT_EQ(EncodeMove(DecodeMove(d), h), masked(move_mask, 3));
  }
}

// Field-level: Decode(Encode(fields)) = the fields masked to their widths.
TEST(ProgramEncodeTest, RandomFieldsRoundTrip) {
  std::mt19937 rng(12);
  for (int trial = 0; trial < 2000; ++trial) {
    GemmFields g;
    g.m = Word(rng), g.n = Word(rng), g.k = Word(rng);
    g.a_base = Word(rng), g.b_base = Word(rng), g.bias_base = Word(rng), g.rq_base = Word(rng);
    g.out_base = Word(rng), g.mode = Word(rng), g.zp_ab = Word(rng);
    g.zp_out = static_cast<int32_t>(Word(rng)), g.clamp_min = static_cast<int32_t>(Word(rng));
    g.clamp_max = static_cast<int32_t>(Word(rng)), g.mult = static_cast<int32_t>(Word(rng));
    g.shift = Word(rng);
    const GemmFields gd = DecodeGemm(EncodeGemm(g, kNoFlags));
    EXPECT_EQ(gd.m, g.m & 0xFFFF);
    EXPECT_EQ(gd.n, g.n & 0xFFFF);
    EXPECT_EQ(gd.k, g.k & 0xFFFF);
    EXPECT_EQ(gd.a_base, g.a_base & 0xFFFFF);
    EXPECT_EQ(gd.b_base, g.b_base & 0xFFFFF);
    EXPECT_EQ(gd.bias_base, g.bias_base & 0xFFFFF);
    EXPECT_EQ(gd.rq_base, g.rq_base & 0xFFFFF);
    EXPECT_EQ(gd.out_base, g.out_base & 0xFFFFF);
    EXPECT_EQ(gd.mode, g.mode & 0x3FFFFFFF);
    EXPECT_EQ(gd.zp_ab, g.zp_ab & 0x01FF01FF);
    EXPECT_EQ(gd.zp_out, g.zp_out);
    EXPECT_EQ(gd.clamp_min, g.clamp_min);
    EXPECT_EQ(gd.clamp_max, g.clamp_max);
    EXPECT_EQ(gd.mult, g.mult);
    EXPECT_EQ(gd.shift, g.shift & 0xFF);

    DmaFields m;
    m.count0 = Word(rng), m.count1 = Word(rng), m.count2 = Word(rng);
    m.sram_base = Word(rng), m.sram_stride1 = Word(rng), m.sram_stride2 = Word(rng);
    m.ext_addr = Word(rng), m.ext_stride1 = Word(rng), m.ext_stride2 = Word(rng);
    m.sram = Word(rng), m.out_int32 = Word(rng) & 1;
    const Header flags = Flags(Word(rng) & 1, Word(rng) & 1);
    const Descriptor dd = EncodeDma(Op::kStore, m, flags);
    const DmaFields md = DecodeDma(dd);
    EXPECT_EQ(md.count0, m.count0 & 0xFFFF);
    EXPECT_EQ(md.count1, m.count1 & 0xFFFF);
    EXPECT_EQ(md.count2, m.count2 & 0xFFFF);
    EXPECT_EQ(md.sram_base, m.sram_base & 0xFFFFF);
    EXPECT_EQ(md.sram_stride1, m.sram_stride1 & 0xFFFFF);
    EXPECT_EQ(md.sram_stride2, m.sram_stride2 & 0xFFFFF);
    EXPECT_EQ(md.ext_addr, m.ext_addr);
    EXPECT_EQ(md.ext_stride1, m.ext_stride1);
    EXPECT_EQ(md.ext_stride2, m.ext_stride2);
    EXPECT_EQ(md.sram, m.sram & 0xF);
    EXPECT_EQ(md.out_int32, m.out_int32);
    EXPECT_EQ(DecodeHeader(dd).op, 2u);
    EXPECT_EQ(DecodeHeader(dd).wait, flags.wait);
    EXPECT_EQ(DecodeHeader(dd).signal, flags.signal);

    MoveFields v;
    v.count0 = Word(rng), v.count1 = Word(rng), v.count2 = Word(rng);
    v.dst_base = Word(rng), v.dst_stride1 = Word(rng), v.dst_stride2 = Word(rng);
    v.src_base = Word(rng), v.src_stride1 = Word(rng), v.src_stride2 = Word(rng);
    v.dst = Word(rng);
    const MoveFields vd = DecodeMove(EncodeMove(v, kNoFlags));
    EXPECT_EQ(vd.count0, v.count0 & 0xFFFF);
    EXPECT_EQ(vd.count1, v.count1 & 0xFFFF);
    EXPECT_EQ(vd.count2, v.count2 & 0xFFFF);
    EXPECT_EQ(vd.dst_base, v.dst_base & 0xFFFFF);
    EXPECT_EQ(vd.dst_stride1, v.dst_stride1 & 0xFFFFF);
    EXPECT_EQ(vd.dst_stride2, v.dst_stride2 & 0xFFFFF);
    EXPECT_EQ(vd.src_base, v.src_base & 0xFFFFF);
    EXPECT_EQ(vd.src_stride1, v.src_stride1 & 0xFFFFF);
    EXPECT_EQ(vd.src_stride2, v.src_stride2 & 0xFFFFF);
    EXPECT_EQ(vd.dst, v.dst & 0xF);
  }
}

TEST(ProgramEncodeTest, NamesAndEngines) {
  const char* names[] = {"NONE",       "BAD_SHAPE", "A_RANGE",     "B_RANGE",   "BIAS_RANGE",
                         "RQ_RANGE",   "OUT_RANGE", "BAD_REQUANT", "BAD_ZP",    "UNIT_ABSENT",
                         "BAD_OPCODE", "BAD_SRAM",  "EXT_ALIGN",   "EXT_RANGE", "EXT_FAULT",
                         "DEADLOCK",   "BAD_SET"};
  for (int code = 0; code < 17; ++code) {
    EXPECT_STREQ(ProgramErrorName(static_cast<ProgramError>(code)), names[code]);
  }
  EXPECT_EQ(EngineOf(Op::kGemm), Engine::kCompute);
  EXPECT_EQ(EngineOf(Op::kMove), Engine::kCompute);
  EXPECT_EQ(EngineOf(Op::kLoad), Engine::kDma);
  EXPECT_EQ(EngineOf(Op::kStore), Engine::kDma);
  EXPECT_EQ(EngineOf(Op::kSet), Engine::kCompute);
}

// Units.md 19.4: VALUE[i] in word i (0..13), REG in word 14 [11:2], COUNT in word 14 [19:16].
TEST(ProgramEncodeTest, SetWords) {
  SetFields f;
  for (uint32_t i = 0; i < f.value.size(); ++i) f.value[i] = 0x1000'0000u * (i + 1) + i;
  f.reg = 0x7FF;   // [9:0] = 0x3FF: the last register of block 15
  f.count = 0x2E;  // [3:0] = 14
  const Descriptor expected = {0x10000000, 0x20000001, 0x30000002, 0x40000003,
                               0x50000004, 0x60000005, 0x70000006, 0x80000007,
                               0x90000008, 0xA0000009, 0xB000000A, 0xC000000B,
                               0xD000000C, 0xE000000D, 0x000E0FFC, 0x304};
  EXPECT_EQ(EncodeSet(f, Flags(true, true)), expected);
  const SetFields back = DecodeSet(expected);
  EXPECT_EQ(back.value, f.value);
  EXPECT_EQ(back.reg, 0x3FFu);
  EXPECT_EQ(back.count, 14u);
  // Bits outside the fields are ignored.
  Descriptor noisy = expected;
  noisy[14] |= 0xFFF0'0003;
  EXPECT_EQ(EncodeSet(DecodeSet(noisy), Flags(true, true)), expected);
  EXPECT_EQ(DescribeDescriptor(Small(8, 8), expected), "SET 14 registers from 0xffc WAIT SIGNAL");
}

// The one present unit with registers is the slope stage (requant.md 6.2): a SET is legal only of
// exactly its ten registers (REG 0x80, COUNT 10), BAD_SHAPE for a COUNT of 0 or above 14, BAD_SET
// for any other. Exhaustive over both fields; the zero values are a legal slope.
TEST(ProgramValidateSetTest, SetOnlyOfTheSlopeRegisters) {
  const AccelGeometry g = Small(8, 8);
  for (uint32_t reg = 0; reg < 1024; ++reg) {
    for (uint32_t count = 0; count < 16; ++count) {
      SetFields f;
      f.reg = reg, f.count = count;
      const ProgramError expected = count == 0 || count > 14     ? ProgramError::kBadShape
                                    : reg == 0x80 && count == 10 ? ProgramError::kNone
                                                                 : ProgramError::kBadSet;
      ASSERT_EQ(Validate(g, EncodeSet(f, {})), expected) << reg << " " << count;
    }
  }
  MachineState state(g, 64);
  EXPECT_THROW(Execute(g, EncodeSet(SetFields{}, {}), state), std::invalid_argument);
}

// A SET of the slope registers stores each value's fields (the shift's 8 bits, the configuration's
// fields), and an illegal slope among its values is BAD_SLOPE at fetch.
TEST(ProgramValidateSetTest, SetWritesTheSlopeRegistersAndChecksTheirValues) {
  const AccelGeometry g = Small(8, 8);
  SetFields f;
  f.reg = 0x80, f.count = 10;
  f.value = {0x4000'0000u, 0xFFFF'FF02u, 0xFFFF'FFF0u, 0xFFFF'866Bu, 7u,
             3u,           0u,           1u,           0xFFFF'FF80u, 127u};
  MachineState state(g, 64);
  ASSERT_EQ(Execute(g, EncodeSet(f, {}), state), ProgramError::kNone);
  const SlopeRegisters expected = {0x4000'0000u, 0x02u, 0xFFFF'FFF0u, 0x01FF'0263u, 7u,
                                   3u,           0u,    1u,           0xFFFF'FF80u, 127u};
  EXPECT_EQ(state.slope_registers(), expected);
  f.value[9] = 256;  // the clamp beyond the int8 mode's
  EXPECT_EQ(Validate(g, EncodeSet(f, {})), ProgramError::kBadSlope);
}

TEST(ProgramEncodeTest, UnitBytesAndSramUnits) {
  for (const AccelGeometry& g : kGeometries) {
    const uint32_t r = g.rows, c = g.cols;
    const uint32_t unit[] = {0, r, c, 4 * c, 8 * c, c, 16};  // the LUT table: 8 16-bit entries
    const uint64_t units[] = {0,
                              g.a_depth,
                              g.b_depth,
                              g.bias_depth,
                              g.rq_depth,
                              4u * g.out_depth,
                              32u * uint64_t(g.lut_slots)};
    for (uint32_t sram = 0; sram < (1u << arch::kSramIdBits); ++sram) {
      EXPECT_EQ(UnitBytes(g, sram, false), sram <= 6 ? unit[sram] : 0u) << sram;
      EXPECT_EQ(SramUnits(g, sram, false), sram <= 6 ? units[sram] : 0u) << sram;
      const bool out = sram == 5;
      EXPECT_EQ(UnitBytes(g, sram, true), out ? 4 * c : UnitBytes(g, sram, false)) << sram;
      EXPECT_EQ(SramUnits(g, sram, true), out ? g.out_depth : SramUnits(g, sram, false)) << sram;
    }
    const MachineState state(g, 100);
    EXPECT_EQ(state.a.size(), size_t{g.a_depth} * r);
    EXPECT_EQ(state.b.size(), size_t{g.b_depth} * c);
    EXPECT_EQ(state.bias.size(), size_t{g.bias_depth} * 4 * c);
    EXPECT_EQ(state.rq.size(), size_t{g.rq_depth} * 8 * c);
    EXPECT_EQ(state.out.size(), size_t{g.out_depth} * 4 * c);
    EXPECT_EQ(state.ext.size(), 100u);
    EXPECT_EQ(&state.sram(Sram::kA), &state.a);
    EXPECT_EQ(&state.sram(Sram::kOut), &state.out);
    EXPECT_EQ(&state.sram(Sram::kRq), &state.rq);
  }
}

TEST(ProgramEncodeTest, DescribeNamesTheCommand) {
  const AccelGeometry g = Small(8, 8);
  DmaFields dma;
  dma.sram = 1;
  dma.sram_base = 12;
  dma.ext_addr = 0x1000;
  dma.count0 = 3, dma.count1 = 64;
  const std::string load = DescribeDescriptor(g, EncodeDma(Op::kLoad, dma, Flags(true, false)));
  EXPECT_NE(load.find("LOAD"), std::string::npos) << load;
  EXPECT_NE(load.find("0x1000"), std::string::npos) << load;
  EXPECT_NE(load.find("WAIT"), std::string::npos) << load;
  EXPECT_EQ(load.find('\n'), std::string::npos) << load;
  GemmFields gemm;
  gemm.m = 17, gemm.n = 5, gemm.k = 33;
  const std::string text = DescribeDescriptor(g, EncodeGemm(gemm, Flags(false, true)));
  EXPECT_NE(text.find("M=17 N=5 K=33"), std::string::npos) << text;
  EXPECT_NE(text.find("SIGNAL"), std::string::npos) << text;
  Descriptor reserved{};
  reserved[15] = 9;
  EXPECT_NE(DescribeDescriptor(g, reserved).find("9"), std::string::npos);
  EXPECT_NE(DescribeDescriptor(g, EncodeMove(MoveFields{}, kNoFlags)).find("MOVE"),
            std::string::npos);
}

// ---- 4: GEMM validation -----------------------------------------------------------------------

GemmFields LegalGemm() {
  GemmFields f;
  f.m = 9, f.n = 10, f.k = 5;
  return f;
}
ProgramError ValidateFields(const AccelGeometry& g, const GemmFields& f) {
  return Validate(g, EncodeGemm(f, kNoFlags));
}

TEST(ProgramValidateGemmTest, ReservedOpcodesComeFirst) {
  const AccelGeometry g = Small(8, 8);
  GemmFields bad = LegalGemm();
  bad.m = 0;  // BAD_SHAPE as a GEMM
  bad.mode = 0xF00;
  for (uint32_t op = 0; op < 16; ++op) {
    for (const GemmFields& f : {LegalGemm(), bad}) {
      Descriptor d = EncodeGemm(f, Flags(true, true));
      d[15] |= op;
      if (op >= arch::kNumDescOpcodes) {
        EXPECT_EQ(Validate(g, d), ProgramError::kBadOpcode) << op;
      } else if (op == 0) {
        EXPECT_EQ(Validate(g, d), f.m == 0 ? ProgramError::kBadShape : ProgramError::kNone);
      } else {  // the same words read as LOAD / STORE / MOVE / SET fields
        EXPECT_NE(Validate(g, d), ProgramError::kBadOpcode) << op;
      }
    }
  }
}

TEST(ProgramValidateGemmTest, EveryCheckAtItsBoundary) {
  for (AccelGeometry g : kGeometries) {
    g.out_depth = 64;  // room for 9 x 10 in int32 mode on every shape
    SCOPED_TRACE(Name(g));
    const GemmFields legal = LegalGemm();
    ASSERT_EQ(ValidateFields(g, legal), ProgramError::kNone);
    const int64_t mb = Ceil(9, g.rows), nb = Ceil(10, g.cols), k = 5;
    auto with = [&legal](const std::function<void(GemmFields&)>& change) {
      GemmFields f = legal;
      change(f);
      return f;
    };
    // BAD_SHAPE: each dimension 0, also through the 16-bit field mask.
    EXPECT_EQ(ValidateFields(g, with([](GemmFields& f) { f.m = 0; })), ProgramError::kBadShape);
    EXPECT_EQ(ValidateFields(g, with([](GemmFields& f) { f.n = 0; })), ProgramError::kBadShape);
    EXPECT_EQ(ValidateFields(g, with([](GemmFields& f) { f.k = 0; })), ProgramError::kBadShape);
    Descriptor raw = EncodeGemm(legal, kNoFlags);
    raw[2] = 0x10000;  // K as the register stores it: 0
    EXPECT_EQ(Validate(g, raw), ProgramError::kBadShape);
    // The largest dimensions are legal shapes (then out of range).
    EXPECT_EQ(ValidateFields(g, with([](GemmFields& f) { f.m = 0xFFFF; })), ProgramError::kARange);

    // A_RANGE: A_BASE + MB * K <= ADepth.
    const uint32_t a_limit = static_cast<uint32_t>(g.a_depth - mb * k);
    EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) { f.a_base = a_limit; })),
              ProgramError::kNone);
    EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) { f.a_base = a_limit + 1; })),
              ProgramError::kARange);
    EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) { f.a_base = 0xFFFFF; })),
              ProgramError::kARange);
    // K alone: MB * K = ADepth fits exactly.
    EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) {
                               f.m = g.rows, f.k = g.a_depth, f.b_base = 0, f.n = 1;
                             })),
              g.a_depth <= g.b_depth ? ProgramError::kNone : ProgramError::kBRange);
    EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) { f.m = g.rows, f.k = g.a_depth + 1; })),
              ProgramError::kARange);
    // B_RANGE: B_BASE + NB * K <= BDepth.
    const uint32_t b_limit = static_cast<uint32_t>(g.b_depth - nb * k);
    EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) { f.b_base = b_limit; })),
              ProgramError::kNone);
    EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) { f.b_base = b_limit + 1; })),
              ProgramError::kBRange);
    // BIAS_RANGE only with BIAS_EN.
    const uint32_t bias_limit = static_cast<uint32_t>(g.bias_depth - nb);
    EXPECT_EQ(
        ValidateFields(g, with([&](GemmFields& f) { f.mode = kBiasEn, f.bias_base = bias_limit; })),
        ProgramError::kNone);
    EXPECT_EQ(ValidateFields(
                  g, with([&](GemmFields& f) { f.mode = kBiasEn, f.bias_base = bias_limit + 1; })),
              ProgramError::kBiasRange);
    EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) { f.bias_base = 0xFFFFF; })),
              ProgramError::kNone);
    // RQ_RANGE only with PER_CHANNEL (in both output modes).
    const uint32_t rq_limit = static_cast<uint32_t>(g.rq_depth - nb);
    for (uint32_t raw_mode : {0u, kOutRaw}) {
      EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) {
                                 f.mode = kPerChannel | raw_mode, f.rq_base = rq_limit;
                               })),
                ProgramError::kNone);
      EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) {
                                 f.mode = kPerChannel | raw_mode, f.rq_base = rq_limit + 1;
                               })),
                ProgramError::kRqRange);
    }
    EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) { f.rq_base = 0xFFFFF; })),
              ProgramError::kNone);
    // OUT_RANGE: OUT_BASE + (OUT_RAW ? T * R : T * R / 4) <= OutDepth.
    const int64_t tiles = mb * nb;
    for (bool out_raw : {false, true}) {
      const int64_t words = out_raw ? tiles * g.rows : tiles * g.rows / 4;
      const uint32_t limit = static_cast<uint32_t>(g.out_depth - words);
      EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) {
                                 f.mode = out_raw ? kOutRaw : 0, f.out_base = limit;
                               })),
                ProgramError::kNone)
          << out_raw;
      EXPECT_EQ(ValidateFields(g, with([&](GemmFields& f) {
                                 f.mode = out_raw ? kOutRaw : 0, f.out_base = limit + 1;
                               })),
                ProgramError::kOutRange)
          << out_raw;
    }
  }
}

TEST(ProgramValidateGemmTest, RequantZeroPointAndUnitChecks) {
  const AccelGeometry g = Small(8, 8);
  auto check = [&g](const std::function<void(GemmFields&)>& change) {
    GemmFields f = LegalGemm();
    change(f);
    return ValidateFields(g, f);
  };
  const ProgramError kOk = ProgramError::kNone, kBad = ProgramError::kBadRequant;
  // Every value of the 8-bit shift field: -31..30 legal, the rest not; with PER_CHANNEL too;
  // never with OUT_RAW.
  for (int shift = -128; shift <= 127; ++shift) {
    const bool legal = shift >= -31 && shift <= 30;
    for (uint32_t mode : {0u, kPerChannel, kSingle}) {
      EXPECT_EQ(check([&](GemmFields& f) { f.shift = ShiftField(shift), f.mode = mode; }),
                legal ? kOk : kBad)
          << shift << " mode " << mode;
    }
    EXPECT_EQ(check([&](GemmFields& f) { f.shift = ShiftField(shift), f.mode = kOutRaw; }), kOk);
  }
  // MULT: 0 or 2^30..2^31-1 per tensor; anything with PER_CHANNEL or OUT_RAW.
  const int32_t kMin = std::numeric_limits<int32_t>::min(), kMax = 0x7FFFFFFF;
  for (int32_t mult : {0, 1 << 30, kMax}) {
    EXPECT_EQ(check([&](GemmFields& f) { f.mult = mult; }), kOk) << mult;
  }
  for (int32_t mult : {1, (1 << 30) - 1, -1, kMin, -(1 << 30)}) {
    EXPECT_EQ(check([&](GemmFields& f) { f.mult = mult; }), kBad) << mult;
    EXPECT_EQ(check([&](GemmFields& f) { f.mult = mult, f.mode = kPerChannel; }), kOk) << mult;
    EXPECT_EQ(check([&](GemmFields& f) { f.mult = mult, f.mode = kOutRaw; }), kOk) << mult;
  }
  // Clamp order and the int8-mode bounds -128..255.
  EXPECT_EQ(check([](GemmFields& f) { f.clamp_min = 5, f.clamp_max = 5; }), kOk);
  EXPECT_EQ(check([](GemmFields& f) { f.clamp_min = 6, f.clamp_max = 5; }), kBad);
  EXPECT_EQ(check([](GemmFields& f) { f.clamp_min = -128, f.clamp_max = 255; }), kOk);
  EXPECT_EQ(check([](GemmFields& f) { f.clamp_min = -129; }), kBad);
  EXPECT_EQ(check([](GemmFields& f) { f.clamp_max = 256; }), kBad);
  EXPECT_EQ(check([](GemmFields& f) { f.clamp_min = 256, f.clamp_max = 256; }), kBad);
  EXPECT_EQ(check([](GemmFields& f) { f.clamp_min = -129, f.clamp_max = -129; }), kBad);
  EXPECT_EQ(check([&](GemmFields& f) { f.clamp_min = kMin, f.clamp_max = kMax; }), kBad);
  EXPECT_EQ(check([&](GemmFields& f) { f.clamp_min = kMin, f.clamp_max = kMax, f.mode = kOutRaw; }),
            kOk);
  EXPECT_EQ(check([](GemmFields& f) { f.clamp_min = 9, f.clamp_max = 1, f.mode = kOutRaw; }), kOk);
  // The TPU-MLIR form (requant.md 6.1), exhaustively over its encodings and the shift field, per
  // tensor: BAD_REQUANT for width code 3 or mode 7, then MULT_WIDTH, then RSHIFT_RANGE (64..255).
  // With PER_CHANNEL only the encodings are checked; with OUT_RAW nothing.
  for (uint32_t width = 0; width < 4; ++width) {
    for (uint32_t round = 0; round < 8; ++round) {
      for (uint32_t shift = 0; shift < 256; shift += (shift < 70 || shift > 250) ? 1 : 37) {
        const uint32_t mode = kRqForm | round << 25 | width << 28;
        const int bits = 8 << std::min(width, 2u);
        for (int64_t mult :
             {int64_t{0}, -(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1,
              int64_t{1} << (bits - 1), -(int64_t{1} << (bits - 1)) - 1}) {
          if (mult > kMax || mult < kMin) continue;
          const bool bad_form = width == 3 || round == 7;
          const bool fits =
              mult >= -(int64_t{1} << (bits - 1)) && mult < (int64_t{1} << (bits - 1));
          const ProgramError expected = bad_form     ? kBad
                                        : !fits      ? ProgramError::kMultWidth
                                        : shift > 63 ? ProgramError::kRshiftRange
                                                     : kOk;
          auto set = [&](uint32_t extra) {
            return [&, extra](GemmFields& f) {
              f.mode = mode | extra, f.shift = shift, f.mult = int32_t(mult);
            };
          };
          EXPECT_EQ(check(set(0)), expected)
              << width << " " << round << " " << shift << " " << mult;
          EXPECT_EQ(check(set(kPerChannel)), bad_form ? kBad : kOk);
          EXPECT_EQ(check(set(kOutRaw)), kOk);
        }
      }
    }
  }
  // Zero points: every 9-bit value, -128..255 legal.
  for (int zp = -256; zp <= 255; ++zp) {
    const ProgramError expected = zp >= -128 ? kOk : ProgramError::kBadZp;
    EXPECT_EQ(check([&](GemmFields& f) { f.zp_ab = ZpAb(zp, 0); }), expected) << zp;
    EXPECT_EQ(check([&](GemmFields& f) { f.zp_ab = ZpAb(0, zp); }), expected) << zp;
  }
  // ACT: 0 (none), 1 (LUT, here with LUT_IN_BITS 0) and 3 (SLOPE) name present units, the others
  // do not.
  for (uint32_t act = 0; act < 16; ++act) {
    EXPECT_EQ(check([&](GemmFields& f) { f.mode = act << 8; }), act == 0 || act == 3 ? kOk
                                                                : act == 1
                                                                    ? ProgramError::kLutInBits
                                                                    : ProgramError::kUnitAbsent)
        << act;
  }
  // ACT = SLOPE (requant.md 6.2): not with OUT_RAW; ZP_OUT, the input codes' zero point, within
  // -128..255 (the registers are checked by ValidateSlopeAtFetch).
  const uint32_t slope = 3u << 8;
  EXPECT_EQ(check([&](GemmFields& f) { f.mode = slope | arch::kModeOutRaw; }),
            ProgramError::kBadShape);
  for (const int32_t zp : {-129, -128, 255, 256, INT32_MIN, INT32_MAX}) {
    EXPECT_EQ(check([&](GemmFields& f) { f.mode = slope, f.zp_out = zp; }),
              zp >= -128 && zp <= 255 ? kOk : ProgramError::kBadSlope)
        << zp;
  }
}

// ACT = LUT (lut.md 10.4): every value of each LUT field with the others legal, on geometries of
// 1 and 3 slots; OUT_RAW refused; the int16 layout's words in OUT_RANGE.
TEST(ProgramValidateGemmTest, LutFieldsOverTheirWholeFields) {
  for (const AccelGeometry& g : kGeometries) {
    auto mode = [](uint32_t slot, uint32_t in_bits, uint32_t entry_bits) {
      return 1u << 8 | slot << 12 | in_bits << 16 | entry_bits << 20;
    };
    auto check = [&](uint32_t m) {
      GemmFields f = LegalGemm();
      f.mode = m;
      return ValidateFields(g, f);
    };
    for (uint32_t slot = 0; slot < 16; ++slot) {
      EXPECT_EQ(check(mode(slot, 8, 8)),
                slot < uint32_t(g.lut_slots) ? ProgramError::kNone : ProgramError::kLutSlot)
          << slot;
    }
    for (uint32_t bits = 0; bits < 16; ++bits) {
      EXPECT_EQ(check(mode(0, bits, 16)),
                bits >= 2 && bits <= 8 ? ProgramError::kNone : ProgramError::kLutInBits)
          << bits;
    }
    for (uint32_t bits = 0; bits < 32; ++bits) {
      EXPECT_EQ(check(mode(0, 2, bits)),
                bits == 8 || bits == 16 ? ProgramError::kNone : ProgramError::kLutEntryBits)
          << bits;
    }
    EXPECT_EQ(check(mode(0, 8, 8) | kOutRaw), ProgramError::kBadShape);
    // M = 9 rows, N = 10: tiles T = MB * NB; int16 words T * R / 2, int8 words T * R / 4.
    GemmFields f = LegalGemm();
    const uint32_t tiles = uint32_t(((9 + g.rows - 1) / g.rows) * ((10 + g.cols - 1) / g.cols));
    f.mode = mode(0, 8, 16);
    f.out_base = g.out_depth - tiles * uint32_t(g.rows) / 2;
    EXPECT_EQ(ValidateFields(g, f), ProgramError::kNone);
    ++f.out_base;
    EXPECT_EQ(ValidateFields(g, f), ProgramError::kOutRange);
    f.mode = mode(0, 8, 8);
    f.out_base = g.out_depth - tiles * uint32_t(g.rows) / 4;
    EXPECT_EQ(ValidateFields(g, f), ProgramError::kNone);
    f.mode = mode(0, 0, 16);  // the layout follows LUT_ENTRY_BITS whatever the other fields
    f.out_base = g.out_depth - tiles * uint32_t(g.rows) / 2 + 1;
    EXPECT_EQ(ValidateFields(g, f), ProgramError::kOutRange);
  }
}

// One way to fail one check of a GEMM descriptor.
struct GemmBreaker {
  ProgramError error;
  std::function<void(Descriptor&)> apply;
};

// Every subset of `breakers` applied to `base` at once reports the earliest of them (the breakers
// are in the table's order and independent of each other).
void ExpectEarliestOfEverySubset(const AccelGeometry& g, const GemmFields& base,
                                 const std::vector<GemmBreaker>& breakers) {
  for (uint32_t subset = 0; subset < (1u << breakers.size()); ++subset) {
    Descriptor d = EncodeGemm(base, kNoFlags);
    ProgramError expected = ProgramError::kNone;
    for (size_t i = 0; i < breakers.size(); ++i) {
      if (!(subset >> i & 1)) continue;
      breakers[i].apply(d);
      if (expected == ProgramError::kNone) expected = breakers[i].error;
    }
    EXPECT_EQ(Validate(g, d), expected) << "subset " << subset;
  }
}

// Every subset of the ten GEMM checks failing at once reports the earliest of them in the
// table's order (2^10 combinations, each breaker independent of the others).
TEST(ProgramValidateGemmTest, CheckOrderOverAllCombinations) {
  const AccelGeometry g = Small(8, 8);
  const std::vector<GemmBreaker> breakers = {
      {ProgramError::kBadOpcode, [](Descriptor& d) { d[15] = arch::kNumDescOpcodes; }},
      {ProgramError::kBadShape, [](Descriptor& d) { d[2] = 0; }},
      {ProgramError::kARange, [&](Descriptor& d) { d[3] = g.a_depth; }},
      {ProgramError::kBRange, [&](Descriptor& d) { d[4] = g.b_depth; }},
      {ProgramError::kBiasRange, [&](Descriptor& d) { d[8] |= kBiasEn, d[5] = g.bias_depth; }},
      {ProgramError::kRqRange, [&](Descriptor& d) { d[8] |= kPerChannel, d[6] = g.rq_depth; }},
      {ProgramError::kOutRange, [&](Descriptor& d) { d[7] = g.out_depth; }},
      {ProgramError::kBadRequant, [](Descriptor& d) { d[11] = 10, d[12] = 5; }},
      {ProgramError::kBadZp, [](Descriptor& d) { d[9] = ZpAb(-129, 0); }},
      {ProgramError::kUnitAbsent, [](Descriptor& d) { d[8] |= 2u << 8; }},
  };
  ExpectEarliestOfEverySubset(g, LegalGemm(), breakers);
}

// The same over the checks of a GEMM with ACT = LUT: UNIT_ABSENT gives way to the LUT fields'
// checks, after BAD_ZP (lut.md 10.4).
TEST(ProgramValidateGemmTest, LutCheckOrderOverAllCombinations) {
  const AccelGeometry g = Small(4, 16);  // 3 slots
  const std::vector<GemmBreaker> breakers = {
      {ProgramError::kBadShape, [](Descriptor& d) { d[8] |= kOutRaw; }},
      {ProgramError::kARange, [&](Descriptor& d) { d[3] = g.a_depth; }},
      {ProgramError::kOutRange, [&](Descriptor& d) { d[7] = g.out_depth; }},
      {ProgramError::kBadZp, [](Descriptor& d) { d[9] = ZpAb(-129, 0); }},
      {ProgramError::kLutSlot, [](Descriptor& d) { d[8] = (d[8] & ~0xF000u) | 3u << 12; }},
      {ProgramError::kLutInBits, [](Descriptor& d) { d[8] = (d[8] & ~0xF0000u) | 9u << 16; }},
      {ProgramError::kLutEntryBits, [](Descriptor& d) { d[8] = (d[8] & ~0x1F00000u) | 7u << 20; }},
  };
  GemmFields lut = LegalGemm();
  lut.mode = 1u << 8 | 2u << 12 | 5u << 16 | 16u << 20;
  ExpectEarliestOfEverySubset(g, lut, breakers);
}

// ---- 12: DMA validation -----------------------------------------------------------------------

struct DmaCase {
  Op op;
  DmaFields f;
};
ProgramError ValidateDmaFields(const AccelGeometry& g, Op op, const DmaFields& f) {
  return Validate(g, EncodeDma(op, f, kNoFlags));
}
ProgramError RangeCode(uint32_t sram) {
  const ProgramError codes[] = {ProgramError::kNone,    ProgramError::kARange,
                                ProgramError::kBRange,  ProgramError::kBiasRange,
                                ProgramError::kRqRange, ProgramError::kOutRange,
                                ProgramError::kLutRange};
  return codes[sram];
}
// Units of SRAM `sram` written out from section 12's table.
uint64_t UnitsOf(const AccelGeometry& g, uint32_t sram, bool out32) {
  switch (sram) {
    case 1:
      return g.a_depth;
    case 2:
      return g.b_depth;
    case 3:
      return g.bias_depth;
    case 4:
      return g.rq_depth;
    case 6:
      return 32u * uint64_t(g.lut_slots);
    default:
      return out32 ? g.out_depth : 4 * uint64_t{g.out_depth};
  }
}
uint32_t UnitOf(const AccelGeometry& g, uint32_t sram, bool out32) {
  switch (sram) {
    case 1:
      return g.rows;
    case 2:
      return g.cols;
    case 3:
      return 4 * g.cols;
    case 4:
      return 8 * g.cols;
    case 6:
      return 16;
    default:
      return out32 ? 4 * g.cols : g.cols;
  }
}

TEST(ProgramValidateDmaTest, EveryCheckAtItsBoundary) {
  for (const AccelGeometry& g : kGeometries) {
    for (Op op : {Op::kLoad, Op::kStore}) {
      for (uint32_t sram = 1; sram <= 6; ++sram) {
        for (bool out32 : {false, true}) {
          SCOPED_TRACE(Name(g) + " op " + std::to_string(int(op)) + " sram " +
                       std::to_string(sram) + " out32 " + std::to_string(out32));
          const uint32_t u = UnitOf(g, sram, out32);
          const uint64_t units = UnitsOf(g, sram, out32);
          DmaFields f;
          f.sram = sram;
          f.out_int32 = out32;
          f.count0 = 3, f.count1 = 2, f.count2 = 2;
          f.sram_stride1 = 5, f.sram_stride2 = 3;  // extent 2 + 5 + 3 = 10 units
          f.ext_addr = 2 * u, f.ext_stride1 = 3 * u, f.ext_stride2 = 64 * u;
          const uint32_t last_base = static_cast<uint32_t>(units - 1 - 10);
          f.sram_base = last_base;
          EXPECT_EQ(ValidateDmaFields(g, op, f), ProgramError::kNone);
          // BAD_SHAPE: any count 0 (also 0x10000 through the mask).
          for (int which = 0; which < 3; ++which) {
            for (uint32_t zero : {0u, 0x10000u}) {
              DmaFields z = f;
              (which == 0 ? z.count0 : which == 1 ? z.count1 : z.count2) = zero;
              EXPECT_EQ(ValidateDmaFields(g, op, z), ProgramError::kBadShape);
            }
          }
          // SRAM range: the last unit is units - 1 at the limit.
          DmaFields r = f;
          r.sram_base = last_base + 1;
          EXPECT_EQ(ValidateDmaFields(g, op, r), RangeCode(sram));
          r = f;
          r.sram_base = 0, r.count0 = 1, r.count1 = 1, r.count2 = 1;
          r.sram_base = static_cast<uint32_t>(units - 1);
          EXPECT_EQ(ValidateDmaFields(g, op, r), ProgramError::kNone);
          r.count0 = 2;
          EXPECT_EQ(ValidateDmaFields(g, op, r), RangeCode(sram));
          // Each term of the last unit counts: strides at their largest with two rows/planes.
          r = f;
          r.sram_base = 0, r.count0 = 1, r.count1 = 2, r.count2 = 1;
          r.sram_stride1 = static_cast<uint32_t>(units - 1);
          EXPECT_EQ(ValidateDmaFields(g, op, r), ProgramError::kNone);
          r.sram_stride1 += 1;
          EXPECT_EQ(ValidateDmaFields(g, op, r), RangeCode(sram));
          r.count1 = 1, r.count2 = 2;
          r.sram_stride2 = static_cast<uint32_t>(units - 1);
          EXPECT_EQ(ValidateDmaFields(g, op, r), ProgramError::kNone);
          r.sram_stride2 += 1;
          EXPECT_EQ(ValidateDmaFields(g, op, r), RangeCode(sram));
          // Nothing wraps: the largest fields are out of range.
          r = f;
          r.count0 = r.count1 = r.count2 = 0xFFFF;
          r.sram_base = r.sram_stride1 = r.sram_stride2 = 0xFFFFF;
          EXPECT_EQ(ValidateDmaFields(g, op, r), RangeCode(sram));
          // EXT_ALIGN: each of the three fields, one byte off and half a unit off.
          for (int which = 0; which < 3; ++which) {
            for (uint32_t off : {1u, u / 2, u - 1}) {
              DmaFields a = f;
              (which == 0 ? a.ext_addr : which == 1 ? a.ext_stride1 : a.ext_stride2) += off;
              EXPECT_EQ(ValidateDmaFields(g, op, a), ProgramError::kExtAlign) << which << off;
            }
          }
          // EXT_RANGE: the last byte is exactly 2^32 - 1 at the limit.
          DmaFields e = f;  // span: 3u + 3u + 64u = 70u bytes
          e.ext_addr = static_cast<uint32_t>((uint64_t{1} << 32) - 70 * uint64_t{u});
          EXPECT_EQ(ValidateDmaFields(g, op, e), ProgramError::kNone);
          e.ext_addr += u;
          EXPECT_EQ(ValidateDmaFields(g, op, e), ProgramError::kExtRange);
          e = f;  // 64-bit sums: 65534 rows of 2^31 bytes
          e.count1 = 0xFFFF, e.ext_stride1 = 0x80000000, e.sram_stride1 = 0;
          EXPECT_EQ(ValidateDmaFields(g, op, e), ProgramError::kExtRange);
        }
      }
      // BAD_SRAM: 0, 7, 8 (before any range or alignment check).
      for (uint32_t sram : {0u, 7u, 8u}) {
        DmaFields f;
        f.sram = sram;
        f.sram_base = 0xFFFFF;
        f.ext_addr = 1;
        EXPECT_EQ(ValidateDmaFields(g, op, f), ProgramError::kBadSram) << sram;
        f.count2 = 0;
        EXPECT_EQ(ValidateDmaFields(g, op, f), ProgramError::kBadShape) << sram;
      }
    }
  }
}

TEST(ProgramValidateDmaTest, CheckOrderOverAllCombinations) {
  for (const AccelGeometry& g : kGeometries) {
    for (uint32_t sram = 1; sram <= 6; ++sram) {
      struct Breaker {
        ProgramError error;
        std::function<void(DmaFields&)> apply;
      };
      const std::vector<Breaker> breakers = {
          {ProgramError::kBadShape, [](DmaFields& f) { f.count1 = 0; }},
          {ProgramError::kBadSram, [](DmaFields& f) { f.sram = 7; }},
          {RangeCode(sram), [&](DmaFields& f) { f.sram_base = 0xFFFF0; }},
          {ProgramError::kExtAlign, [](DmaFields& f) { f.ext_stride1 = 2; }},
          {ProgramError::kExtRange, [](DmaFields& f) { f.ext_stride2 = 0xFFFFF000; }},
      };
      for (uint32_t subset = 0; subset < 32; ++subset) {
        DmaFields f;
        f.sram = sram;
        f.count0 = 2, f.count1 = 1, f.count2 = 2;
        f.ext_addr = 0x10000;
        ProgramError expected = ProgramError::kNone;
        for (size_t i = 0; i < breakers.size(); ++i) {
          if (!(subset >> i & 1)) continue;
          breakers[i].apply(f);
          if (expected == ProgramError::kNone) expected = breakers[i].error;
        }
        EXPECT_EQ(ValidateDmaFields(g, Op::kLoad, f), expected) << Name(g) << " " << subset;
        EXPECT_EQ(ValidateDmaFields(g, Op::kStore, f), expected) << Name(g) << " " << subset;
      }
    }
  }
}

// ---- 13: MOVE validation ----------------------------------------------------------------------

ProgramError ValidateMoveFields(const AccelGeometry& g, const MoveFields& f) {
  return Validate(g, EncodeMove(f, kNoFlags));
}

TEST(ProgramValidateMoveTest, EveryCheckAtItsBoundary) {
  for (const AccelGeometry& g : kGeometries) {
    SCOPED_TRACE(Name(g));
    for (uint32_t dst : {1u, 2u}) {
      const uint32_t limit0 = dst == 1 ? g.cols : g.rows;  // COUNT0 into A: Cols; into B: Rows
      const uint32_t depth = dst == 1 ? g.a_depth : g.b_depth;
      const ProgramError dst_range = dst == 1 ? ProgramError::kARange : ProgramError::kBRange;
      MoveFields f;
      f.dst = dst;
      f.count0 = limit0, f.count1 = 3, f.count2 = 2;
      f.src_stride1 = 4, f.src_stride2 = 12;
      f.dst_stride1 = 1, f.dst_stride2 = 5;
      EXPECT_EQ(ValidateMoveFields(g, f), ProgramError::kNone) << dst;
      MoveFields m = f;
      m.count0 = limit0 + 1;
      EXPECT_EQ(ValidateMoveFields(g, m), ProgramError::kBadShape) << dst;
      for (int which = 0; which < 3; ++which) {
        for (uint32_t zero : {0u, 0x10000u}) {
          m = f;
          (which == 0 ? m.count0 : which == 1 ? m.count1 : m.count2) = zero;
          EXPECT_EQ(ValidateMoveFields(g, m), ProgramError::kBadShape) << dst << which;
        }
      }
      // OUT_RANGE: alignment of each source field (also a stride that is never multiplied).
      for (int which = 0; which < 3; ++which) {
        for (uint32_t off : {1u, 2u, 3u}) {
          m = f;
          m.count1 = 1, m.count2 = 1;
          (which == 0 ? m.src_base : which == 1 ? m.src_stride1 : m.src_stride2) += off;
          EXPECT_EQ(ValidateMoveFields(g, m), ProgramError::kOutRange) << which << off;
        }
      }
      // OUT_RANGE: the last entry SRC_BASE + ... + Rows - 1 <= 4 * OutDepth - 1.
      const uint32_t entries = 4 * g.out_depth;
      const uint32_t src_extent = 2 * 4 + 1 * 12 + g.rows - 1;
      m = f;
      m.src_base = entries - 1 - src_extent;  // a multiple of 4: entries and Rows are
      EXPECT_EQ(ValidateMoveFields(g, m), ProgramError::kNone);
      m.src_base += 4;
      EXPECT_EQ(ValidateMoveFields(g, m), ProgramError::kOutRange);
      m = f;
      m.count1 = 1, m.count2 = 1, m.src_base = entries - g.rows;
      EXPECT_EQ(ValidateMoveFields(g, m), ProgramError::kNone);
      m.count0 = 1;  // the range covers Rows entries whatever COUNT0 is
      m.src_base += 4;
      EXPECT_EQ(ValidateMoveFields(g, m), ProgramError::kOutRange);
      // A_RANGE / B_RANGE: the last word DST_BASE + ... + COUNT0 - 1 < depth.
      const uint32_t dst_extent = 2 * 1 + 1 * 5 + limit0 - 1;
      m = f;
      m.dst_base = depth - 1 - dst_extent;
      EXPECT_EQ(ValidateMoveFields(g, m), ProgramError::kNone);
      m.dst_base += 1;
      EXPECT_EQ(ValidateMoveFields(g, m), dst_range);
      m = f;
      m.count0 = m.count1 = m.count2 = 0xFFFF;
      m.count0 = limit0;
      m.dst_stride1 = m.dst_stride2 = 0xFFFFF;
      m.src_stride1 = m.src_stride2 = 0;
      EXPECT_EQ(ValidateMoveFields(g, m), dst_range);
    }
    // BAD_SRAM: DST other than 1 and 2; COUNT0 has no limit then (it depends on DST).
    for (uint32_t dst : {0u, 3u, 4u, 5u, 6u, 7u}) {
      MoveFields f;
      f.dst = dst;
      f.count0 = 1000;
      f.src_base = 3;
      EXPECT_EQ(ValidateMoveFields(g, f), ProgramError::kBadSram) << dst;
      f.count1 = 0;
      EXPECT_EQ(ValidateMoveFields(g, f), ProgramError::kBadShape) << dst;
    }
  }
}

TEST(ProgramValidateMoveTest, CheckOrderOverAllCombinations) {
  for (const AccelGeometry& g : kGeometries) {
    for (uint32_t dst : {1u, 2u}) {
      struct Breaker {
        ProgramError error;
        std::function<void(MoveFields&)> apply;
      };
      const std::vector<Breaker> breakers = {
          {ProgramError::kBadShape, [](MoveFields& f) { f.count2 = 0; }},
          {ProgramError::kBadSram, [](MoveFields& f) { f.dst = 0; }},
          {ProgramError::kOutRange, [](MoveFields& f) { f.src_stride2 = 6; }},
          {dst == 1 ? ProgramError::kARange : ProgramError::kBRange,
           [](MoveFields& f) { f.dst_base = 0xFFFFF; }},
      };
      for (uint32_t subset = 0; subset < 16; ++subset) {
        MoveFields f;
        f.dst = dst;
        f.count0 = 2, f.count1 = 2, f.count2 = 1;
        f.src_stride1 = 4;
        ProgramError expected = ProgramError::kNone;
        for (size_t i = 0; i < breakers.size(); ++i) {
          if (!(subset >> i & 1)) continue;
          breakers[i].apply(f);
          if (expected == ProgramError::kNone) expected = breakers[i].error;
        }
        EXPECT_EQ(ValidateMoveFields(g, f), expected) << Name(g) << " " << dst << " " << subset;
      }
      // BAD_SHAPE by COUNT0 above the limit comes before an also-bad range.
      MoveFields f;
      f.dst = dst;
      f.count0 = (dst == 1 ? g.cols : g.rows) + 1;
      f.src_base = 2;
      f.dst_base = 0xFFFFF;
      EXPECT_EQ(ValidateMoveFields(g, f), ProgramError::kBadShape);
    }
  }
}

// ---- 12: DMA execution ------------------------------------------------------------------------

// The window byte of byte b of SRAM unit u, from the layouts of 3.1 and 6.3 (an out int8 entry u
// is in word u / 4 at bytes (u mod 4) * C).
uint64_t SramByte(const AccelGeometry& g, uint32_t sram, bool out32, uint64_t u, uint32_t b) {
  const uint64_t c = g.cols;
  switch (sram) {
    case 1:
      return u * g.rows + b;
    case 2:
      return u * c + b;
    case 3:
      return u * 4 * c + b;
    case 4:
      return u * 8 * c + b;
    default:
      return out32 ? u * 4 * c + b : (u / 4) * 4 * c + (u % 4) * c + b;
  }
}
std::vector<uint8_t>& Image(MachineState& s, uint32_t sram) {
  switch (sram) {
    case 1:
      return s.a;
    case 2:
      return s.b;
    case 3:
      return s.bias;
    case 4:
      return s.rq;
    default:
      return s.out;
  }
}

// Unit by unit, byte by byte, in the order i2, i1, i0. Returns false at the first unit that reaches
// past the external memory.
bool ReferenceDma(const AccelGeometry& g, bool load, const DmaFields& f, MachineState& s) {
  const uint32_t u = UnitOf(g, f.sram, f.out_int32);
  std::vector<uint8_t>& sram = Image(s, f.sram);
  for (uint64_t i2 = 0; i2 < f.count2; ++i2) {
    for (uint64_t i1 = 0; i1 < f.count1; ++i1) {
      for (uint64_t i0 = 0; i0 < f.count0; ++i0) {
        const uint64_t unit = f.sram_base + i0 + i1 * f.sram_stride1 + i2 * f.sram_stride2;
        const uint64_t ext = f.ext_addr + i0 * u + i1 * f.ext_stride1 + i2 * f.ext_stride2;
        if (ext + u > s.ext.size()) return false;
        std::vector<uint8_t> bytes(u);
        for (uint32_t b = 0; b < u; ++b) {
          bytes[b] = load ? s.ext[ext + b] : sram[SramByte(g, f.sram, f.out_int32, unit, b)];
        }
        if (f.sram == 4) {
          for (int lane = 0; lane < g.cols; ++lane) {
            const int shift_byte = lane * 8 + 4;
            // LOAD: the window keeps bits [7:0]; STORE: it reads them back sign-extended.
            int value = bytes[shift_byte];
            if (!load && value >= 128) value -= 256;
            Put32(bytes, shift_byte, static_cast<uint32_t>(value));
          }
        }
        for (uint32_t b = 0; b < u; ++b) {
          if (load) {
            sram[SramByte(g, f.sram, f.out_int32, unit, b)] = bytes[b];
          } else {
            s.ext[ext + b] = bytes[b];
          }
        }
      }
    }
  }
  return true;
}

// Random valid 3-D patterns on every SRAM, both out units, LOAD and STORE, with strides 0
// (broadcast / repeated writes), overlapping rows, and external memories that end inside the
// transfer (EXT_FAULT after a partial copy).
TEST(ProgramDmaTest, RandomPatternsMatchNaiveReference) {
  std::mt19937 rng(2026);
  int faults = 0, complete = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const AccelGeometry& g = kGeometries[trial % 3];
    const uint32_t sram = 1 + (trial / 3) % 5;
    const bool out32 = sram == 5 && Uniform(rng, 0, 1);
    const bool load = Uniform(rng, 0, 1);
    const uint32_t u = UnitOf(g, sram, out32);
    const uint64_t units = UnitsOf(g, sram, out32);
    DmaFields f;
    f.sram = sram;
    f.out_int32 = out32;
    f.count0 = Uniform(rng, 1, 5), f.count1 = Uniform(rng, 1, 4), f.count2 = Uniform(rng, 1, 3);
    f.sram_stride1 = Uniform(rng, 0, 3) == 0 ? 0 : Uniform(rng, 1, 8);
    f.sram_stride2 = Uniform(rng, 0, 3) == 0 ? 0 : Uniform(rng, 1, 24);
    const uint64_t extent =
        (f.count0 - 1) + (f.count1 - 1) * f.sram_stride1 + (f.count2 - 1) * f.sram_stride2;
    if (extent >= units) continue;
    f.sram_base =
        static_cast<uint32_t>(std::uniform_int_distribution<uint64_t>(0, units - 1 - extent)(rng));
    f.ext_addr = u * Uniform(rng, 0, 9);
    f.ext_stride1 = u * (Uniform(rng, 0, 3) == 0 ? 0 : Uniform(rng, 1, 7));
    f.ext_stride2 = u * (Uniform(rng, 0, 3) == 0 ? 0 : Uniform(rng, 1, 30));
    const uint64_t needed = f.ext_addr + uint64_t{f.count0} * u +
                            uint64_t{f.count1 - 1} * f.ext_stride1 +
                            uint64_t{f.count2 - 1} * f.ext_stride2;
    const bool short_ext = Uniform(rng, 0, 4) == 0;
    const size_t ext_size =
        short_ext ? Uniform(rng, 0, int(needed) - 1) : needed + Uniform(rng, 0, 2 * int(u));
    MachineState state(g, ext_size);
    FillRandom(state, rng);
    const Descriptor d = EncodeDma(load ? Op::kLoad : Op::kStore, f, kNoFlags);
    ASSERT_EQ(Validate(g, d), ProgramError::kNone);
    MachineState expected = state;
    const bool ok = ReferenceDma(g, load, f, expected);
    const ProgramError error = Execute(g, d, state);
    ASSERT_EQ(error, ok ? ProgramError::kNone : ProgramError::kExtFault) << trial;
    ExpectSameState(
        state, expected,
        "trial " + std::to_string(trial) + " " + Name(g) + " " + DescribeDescriptor(g, d));
    if (HasFailure()) return;
    (ok ? complete : faults)++;
  }
  EXPECT_GT(complete, 1500);
  EXPECT_GT(faults, 200);
}

// The unit layout spelled out on one case per SRAM: an out int8 entry is a quarter of a word.
TEST(ProgramDmaTest, OutInt8EntriesAreQuartersOfWords) {
  const AccelGeometry g = Small(8, 8);
  MachineState state(g, 256);
  for (size_t i = 0; i < state.ext.size(); ++i) state.ext[i] = static_cast<uint8_t>(i);
  DmaFields f;
  f.sram = 5;
  f.sram_base = 6;  // entries 6, 7 = word 1, bytes 16..31
  f.count0 = 2;
  ASSERT_EQ(Execute(g, EncodeDma(Op::kLoad, f, kNoFlags), state), ProgramError::kNone);
  for (int b = 0; b < 16; ++b) EXPECT_EQ(state.out[32 + 16 + b], b) << b;
  EXPECT_EQ(state.out[32 + 15], 0);
  EXPECT_EQ(state.out[64], 0);
  f.out_int32 = true;
  f.sram_base = 1;  // word 1: bytes 32..63
  f.ext_addr = 64;
  f.count0 = 1;
  ASSERT_EQ(Execute(g, EncodeDma(Op::kLoad, f, kNoFlags), state), ProgramError::kNone);
  for (int b = 0; b < 32; ++b) EXPECT_EQ(state.out[32 + b], 64 + b) << b;
}

// The out SRAM's int16 unit (OUT_INT16, lut.md 10.6): 2C bytes, two per word; the other SRAMs
// ignore the bit; OUT_INT32 with OUT_INT16 is BAD_SHAPE before any other check, whatever the SRAM.
TEST(ProgramValidateDmaTest, Int16UnitOfTheOutSram) {
  for (const AccelGeometry& g : kGeometries) {
    SCOPED_TRACE(Name(g));
    const uint32_t c = g.cols;
    EXPECT_EQ(UnitBytes(g, 5, false, true), 2 * c);
    EXPECT_EQ(SramUnits(g, 5, false, true), 2 * uint64_t{g.out_depth});
    for (uint32_t sram : {1u, 2u, 3u, 4u, 6u}) {
      EXPECT_EQ(UnitBytes(g, sram, false, true), UnitBytes(g, sram, false, false)) << sram;
      EXPECT_EQ(SramUnits(g, sram, false, true), SramUnits(g, sram, false, false)) << sram;
    }
    for (Op op : {Op::kLoad, Op::kStore}) {
      DmaFields f;
      f.sram = 5;
      f.out_int16 = true;
      f.count0 = 2;
      f.sram_base = 2 * g.out_depth - 2;  // the last two int16 entries
      f.ext_addr = 6 * c;
      EXPECT_EQ(ValidateDmaFields(g, op, f), ProgramError::kNone);
      DmaFields r = f;
      r.sram_base += 1;
      EXPECT_EQ(ValidateDmaFields(g, op, r), ProgramError::kOutRange);
      r = f;
      r.ext_addr = 7 * c;  // a multiple of C, not of 2C
      EXPECT_EQ(ValidateDmaFields(g, op, r), ProgramError::kExtAlign);
      r = f;
      r.out_int16 = false;  // the same base in int8 entries is legal
      EXPECT_EQ(ValidateDmaFields(g, op, r), ProgramError::kNone);
      for (uint32_t sram = 0; sram < 16; ++sram) {
        r = f;
        r.sram = sram;
        r.out_int32 = true;
        r.sram_base = 0xFFFFF;  // past every SRAM
        r.ext_addr = 1;         // misaligned
        EXPECT_EQ(ValidateDmaFields(g, op, r), ProgramError::kBadShape) << sram;
      }
    }
  }
}

TEST(ProgramDmaTest, Int16EntriesLoadIntoTheirHalfWords) {
  for (const AccelGeometry& g : kGeometries) {
    const uint32_t c = g.cols;
    MachineState state(g, 64 * c);
    for (size_t i = 0; i < state.ext.size(); ++i) state.ext[i] = static_cast<uint8_t>(i * 7 + 1);
    DmaFields f;
    f.sram = 5;
    f.out_int16 = true;
    f.count0 = 3;
    f.sram_base = 5;  // entries 5, 6, 7: word 2 upper half, word 3 both halves
    f.ext_addr = 4 * c;
    ASSERT_EQ(Execute(g, EncodeDma(Op::kLoad, f, kNoFlags), state), ProgramError::kNone);
    for (uint32_t byte = 0; byte < 4 * c * 6; ++byte) {
      // Entry e, lane l, byte k: word e / 2, byte 2 ((e mod 2) C + l) + k (lut.md 10.6).
      const uint32_t word = byte / (4 * c), in_word = byte % (4 * c);
      const uint32_t e = 2 * word + in_word / (2 * c);
      const bool loaded = e >= 5 && e < 8;
      const uint8_t want = loaded ? state.ext[4 * c + (e - 5) * 2 * c + in_word % (2 * c)] : 0;
      ASSERT_EQ(state.out[byte], want) << Name(g) << " byte " << byte;
    }
    // A STORE of the same entries returns them.
    f.ext_addr = 32 * c;
    ASSERT_EQ(Execute(g, EncodeDma(Op::kStore, f, kNoFlags), state), ProgramError::kNone);
    for (uint32_t i = 0; i < 6 * c; ++i) {
      ASSERT_EQ(state.ext[32 * c + i], state.ext[4 * c + i]) << Name(g) << " " << i;
    }
  }
}

TEST(ProgramDmaTest, LoadThenStoreRoundTrips) {
  std::mt19937 rng(7);
  for (const AccelGeometry& g : kGeometries) {
    for (uint32_t sram = 1; sram <= 6; ++sram) {
      for (bool out32 : {false, true}) {
        if (out32 && sram != 5) continue;
        const uint32_t u = UnitOf(g, sram, out32);
        const uint32_t count =
            static_cast<uint32_t>(std::min<uint64_t>(UnitsOf(g, sram, out32), 7));
        MachineState state(g, 2 * count * u + 64);
        FillRandom(state, rng);
        if (sram == 4) {  // legal rq images: shift words hold 6 bits
          for (size_t lane = 0; lane < state.ext.size() / 8; ++lane) {
            const int shift = Uniform(rng, -32, 31);
            Put32(state.ext, lane * 8 + 4, static_cast<uint32_t>(shift));
          }
        }
        const MemoryImage original = state.ext;
        DmaFields f;
        f.sram = sram;
        f.out_int32 = out32;
        f.count0 = count;
        f.sram_base = 0;
        f.ext_addr = 0;
        ASSERT_EQ(Execute(g, EncodeDma(Op::kLoad, f, kNoFlags), state), ProgramError::kNone);
        f.ext_addr = count * u;
        ASSERT_EQ(Execute(g, EncodeDma(Op::kStore, f, kNoFlags), state), ProgramError::kNone);
        for (uint32_t i = 0; i < count * u; ++i) {
          ASSERT_EQ(state.ext[count * u + i], original[i])
              << Name(g) << " sram " << sram << " " << i;
        }
      }
    }
  }
}

TEST(ProgramDmaTest, RqShiftWordsKeepEightBitsAndReadBackSignExtended) {
  const AccelGeometry g = Small(4, 4);  // rq word: 4 lanes of 8 bytes
  MachineState state(g, 128);
  // Lane 0: multiplier 0x11223344, shift word 0x563412E1 -> bits [7:0] = 0xE1 = -31.
  // Lane 1: shift word 0xFFFFFF1F -> 0x1F = 31. Lane 2: 0x00000080 -> -128. Lane 3: 0x0000017F ->
  // 127.
  const uint32_t shift_words[] = {0x563412E1, 0xFFFFFF1F, 0x00000080, 0x0000017F};
  for (int lane = 0; lane < 4; ++lane) {
    Put32(state.ext, lane * 8, 0x11223344u + lane);
    Put32(state.ext, lane * 8 + 4, shift_words[lane]);
  }
  DmaFields f;
  f.sram = 4;
  f.sram_base = 2;
  ASSERT_EQ(Execute(g, EncodeDma(Op::kLoad, f, kNoFlags), state), ProgramError::kNone);
  const uint32_t stored[] = {0xE1, 0x1F, 0x80, 0x7F};
  const uint32_t read_back[] = {0xFFFFFFE1, 0x0000001F, 0xFFFFFF80, 0x0000007F};
  for (int lane = 0; lane < 4; ++lane) {
    EXPECT_EQ(Get32(state.rq, 2 * 32 + lane * 8), 0x11223344u + lane) << lane;
    EXPECT_EQ(Get32(state.rq, 2 * 32 + lane * 8 + 4), stored[lane]) << lane;
  }
  // Garbage above bit 7 of an image (not a state a window write leaves) is ignored by a STORE.
  state.rq[2 * 32 + 4 + 1] = 0xAB;
  f.ext_addr = 64;
  ASSERT_EQ(Execute(g, EncodeDma(Op::kStore, f, kNoFlags), state), ProgramError::kNone);
  for (int lane = 0; lane < 4; ++lane) {
    EXPECT_EQ(Get32(state.ext, 64 + lane * 8), 0x11223344u + lane) << lane;
    EXPECT_EQ(Get32(state.ext, 64 + lane * 8 + 4), read_back[lane]) << lane;
  }
}

TEST(ProgramDmaTest, ExtFaultCopiesTheUnitsBeforeTheFaultingOne) {
  const AccelGeometry g = Small(8, 8);  // A unit: 8 bytes
  // Rows of 4 units 64 bytes apart; the external memory ends 4 bytes into unit (i1 = 2, i0 = 1),
  // so that unit faults although its first bytes exist.
  MachineState state(g, 2 * 64 + 8 + 4);
  for (size_t i = 0; i < state.ext.size(); ++i) state.ext[i] = static_cast<uint8_t>(i + 1);
  DmaFields f;
  f.sram = 1;
  f.count0 = 4, f.count1 = 3;
  f.sram_stride1 = 4;  // A words 0..11 in order
  f.ext_stride1 = 64;
  ASSERT_EQ(Validate(g, EncodeDma(Op::kLoad, f, kNoFlags)), ProgramError::kNone);
  MachineState load_state = state;
  EXPECT_EQ(Execute(g, EncodeDma(Op::kLoad, f, kNoFlags), load_state), ProgramError::kExtFault);
  for (int word = 0; word < 12; ++word) {
    const int row = word / 4, col = word % 4;
    const bool copied = word < 9;  // units (0, 0) .. (2, 0)
    for (int b = 0; b < 8; ++b) {
      EXPECT_EQ(load_state.a[word * 8 + b], copied ? uint8_t(row * 64 + col * 8 + b + 1) : 0)
          << word << " " << b;
    }
  }
  // STORE: the bytes of the faulting unit that exist stay as they were.
  MachineState store_state = state;
  for (size_t i = 0; i < store_state.a.size(); ++i)
    store_state.a[i] = static_cast<uint8_t>(0xC0 ^ i);
  EXPECT_EQ(Execute(g, EncodeDma(Op::kStore, f, kNoFlags), store_state), ProgramError::kExtFault);
  for (size_t i = 0; i < store_state.ext.size(); ++i) {
    const size_t row = i / 64, col = (i % 64) / 8;
    const bool written = col < 4 && row * 4 + col < 9;
    const size_t word = row * 4 + col;
    EXPECT_EQ(store_state.ext[i], written ? uint8_t(0xC0 ^ (word * 8 + i % 8)) : state.ext[i]) << i;
  }
  // The first unit faulting: nothing moves.
  MachineState tiny(g, 7);
  const MachineState before = tiny;
  EXPECT_EQ(Execute(g, EncodeDma(Op::kLoad, f, kNoFlags), tiny), ProgramError::kExtFault);
  ExpectSameState(tiny, before, "tiny");
}

TEST(ProgramDmaTest, ExecuteRefusesInvalidDescriptors) {
  const AccelGeometry g = Small(8, 8);
  MachineState state(g, 64);
  DmaFields f;
  f.sram = 7;
  EXPECT_THROW(Execute(g, EncodeDma(Op::kLoad, f, kNoFlags), state), std::invalid_argument);
  Descriptor reserved{};
  reserved[15] = 12;
  EXPECT_THROW(Execute(g, reserved, state), std::invalid_argument);
}

// ---- 5, 6: GEMM execution ---------------------------------------------------------------------

struct GemmCase {
  int m = 1, n = 1, k = 1;
  bool a_unsigned = false, b_unsigned = false;
  std::vector<uint8_t> a, b;  // M x K and K x N codes, row-major
  int a_zp = 0, b_zp = 0;
  std::vector<int32_t> bias;  // empty: BIAS_EN = 0
  bool out_raw = false, per_channel = false, single = false;
  int32_t mult = 1 << 30;
  int shift = 0;
  std::vector<int32_t> ch_mult;
  std::vector<int> ch_shift;
  int32_t zp_out = 0, clamp_min = -128, clamp_max = 127;
  uint32_t a_base = 0, b_base = 0, bias_base = 0, rq_base = 0, out_base = 0;
};

GemmFields FieldsOf(const GemmCase& c) {
  GemmFields f;
  f.m = c.m, f.n = c.n, f.k = c.k;
  f.a_base = c.a_base, f.b_base = c.b_base, f.bias_base = c.bias_base, f.rq_base = c.rq_base;
  f.out_base = c.out_base;
  f.mode = (c.single ? kSingle : 0) | (c.per_channel ? kPerChannel : 0) |
           (c.out_raw ? kOutRaw : 0) | (c.bias.empty() ? 0 : kBiasEn) |
           (c.a_unsigned ? kAUnsigned : 0) | (c.b_unsigned ? kBUnsigned : 0);
  f.zp_ab = ZpAb(c.a_zp, c.b_zp);
  f.zp_out = c.zp_out, f.clamp_min = c.clamp_min, f.clamp_max = c.clamp_max;
  f.mult = c.mult;
  f.shift = ShiftField(c.shift);
  return f;
}

// Writes the panels of 6.1 into the images; padding lanes get random bytes (don't-care), padded
// rq lanes illegal values (never used).
void Pack(const AccelGeometry& g, const GemmCase& c, MachineState& s, std::mt19937& rng) {
  const int rows = g.rows, cols = g.cols;
  const int mb_count = int(Ceil(c.m, rows)), nb_count = int(Ceil(c.n, cols));
  for (int mb = 0; mb < mb_count; ++mb) {
    for (int k = 0; k < c.k; ++k) {
      for (int r = 0; r < rows; ++r) {
        const int m = mb * rows + r;
        s.a.at((c.a_base + size_t(mb) * c.k + k) * rows + r) =
            m < c.m ? c.a[size_t(m) * c.k + k] : static_cast<uint8_t>(rng());
      }
    }
  }
  for (int nb = 0; nb < nb_count; ++nb) {
    for (int k = 0; k < c.k; ++k) {
      for (int col = 0; col < cols; ++col) {
        const int n = nb * cols + col;
        s.b.at((c.b_base + size_t(nb) * c.k + k) * cols + col) =
            n < c.n ? c.b[size_t(k) * c.n + n] : static_cast<uint8_t>(rng());
      }
    }
    for (int col = 0; col < cols; ++col) {
      const int n = nb * cols + col;
      const size_t lane = (c.bias_base + size_t(nb)) * cols + col;
      if (!c.bias.empty()) Put32(s.bias, lane * 4, n < c.n ? uint32_t(c.bias[n]) : Word(rng));
      if (c.per_channel) {
        const size_t entry = ((c.rq_base + size_t(nb)) * cols + col) * 8;
        Put32(s.rq, entry, n < c.n ? uint32_t(c.ch_mult[n]) : 5u);
        Put32(s.rq, entry + 4, n < c.n ? ShiftField(c.ch_shift[n]) : ShiftField(31));
      }
    }
  }
}

template <typename T>
Matrix<T> ToMatrix(int rows, int cols, const std::vector<uint8_t>& codes) {
  Matrix<T> matrix(rows, cols);
  for (size_t i = 0; i < codes.size(); ++i) matrix.data[i] = static_cast<T>(codes[i]);
  return matrix;
}

Matrix<int32_t> ReferenceAcc(const GemmCase& c) {
  if (c.a_unsigned) {
    return c.b_unsigned ? Gemm(ToMatrix<uint8_t>(c.m, c.k, c.a), ToMatrix<uint8_t>(c.k, c.n, c.b),
                               c.bias, c.a_zp, c.b_zp)
                        : Gemm(ToMatrix<uint8_t>(c.m, c.k, c.a), ToMatrix<int8_t>(c.k, c.n, c.b),
                               c.bias, c.a_zp, c.b_zp);
  }
  return c.b_unsigned ? Gemm(ToMatrix<int8_t>(c.m, c.k, c.a), ToMatrix<uint8_t>(c.k, c.n, c.b),
                             c.bias, c.a_zp, c.b_zp)
                      : Gemm(ToMatrix<int8_t>(c.m, c.k, c.a), ToMatrix<int8_t>(c.k, c.n, c.b),
                             c.bias, c.a_zp, c.b_zp);
}

// The M x N results (x with OUT_RAW, else y) from golden::Gemm and RequantizeAccumulator.
Matrix<int32_t> ReferenceOut(const GemmCase& c) {
  Matrix<int32_t> x = ReferenceAcc(c);
  if (c.out_raw) return x;
  for (int m = 0; m < c.m; ++m) {
    for (int n = 0; n < c.n; ++n) {
      RequantParams p;
      p.multiplier = c.per_channel ? c.ch_mult[n] : c.mult;
      p.shift = c.per_channel ? c.ch_shift[n] : c.shift;
      p.rounding = c.single ? RequantRounding::kSingleRounding : RequantRounding::kDoubleRounding;
      p.output_zero_point = c.zp_out;
      p.clamp_min = c.clamp_min;
      p.clamp_max = c.clamp_max;
      x.at(m, n) = RequantizeAccumulator(x.at(m, n), p);
    }
  }
  return x;
}

// `out` with the results placed as 6.3 says: element (m, n) in entry
// e = ((m / R) * NB + n / C) * R + m mod R, lane n mod C.
std::vector<uint8_t> PlaceOutput(const AccelGeometry& g, const GemmCase& c,
                                 const Matrix<int32_t>& y, std::vector<uint8_t> out) {
  const int64_t nb_count = Ceil(c.n, g.cols);
  for (int m = 0; m < c.m; ++m) {
    for (int n = 0; n < c.n; ++n) {
      const int64_t e = ((m / g.rows) * nb_count + n / g.cols) * g.rows + m % g.rows;
      const int64_t lane = n % g.cols;
      if (c.out_raw) {
        Put32(out, (c.out_base + e) * 4 * g.cols + 4 * lane, static_cast<uint32_t>(y.at(m, n)));
      } else {
        out.at((c.out_base + e / 4) * 4 * g.cols + (e % 4) * g.cols + lane) =
            static_cast<uint8_t>(y.at(m, n));
      }
    }
  }
  return out;
}

GemmCase RandomGemmCase(const AccelGeometry& g, std::mt19937& rng, int max_mn, int max_k) {
  GemmCase c;
  c.m = Uniform(rng, 1, max_mn), c.n = Uniform(rng, 1, max_mn), c.k = Uniform(rng, 1, max_k);
  c.a_unsigned = Uniform(rng, 0, 1), c.b_unsigned = Uniform(rng, 0, 1);
  for (int i = 0; i < c.m * c.k; ++i) c.a.push_back(static_cast<uint8_t>(rng()));
  for (int i = 0; i < c.k * c.n; ++i) c.b.push_back(static_cast<uint8_t>(rng()));
  switch (Uniform(rng, 0, 3)) {  // zero points: 0, the extremes, anything
    case 0:
      c.a_zp = c.b_zp = 0;
      break;
    case 1:
      c.a_zp = Uniform(rng, 0, 1) ? -128 : 255, c.b_zp = Uniform(rng, 0, 1) ? -128 : 255;
      break;
    default:
      c.a_zp = Uniform(rng, -128, 255), c.b_zp = Uniform(rng, -128, 255);
  }
  if (Uniform(rng, 0, 1)) {
    const bool huge = Uniform(rng, 0, 3) == 0;  // wraps the 32-bit sum
    for (int n = 0; n < c.n; ++n) {
      c.bias.push_back(huge ? static_cast<int32_t>(Word(rng)) : Uniform(rng, -(1 << 20), 1 << 20));
    }
  }
  c.out_raw = Uniform(rng, 0, 3) == 0;
  c.per_channel = Uniform(rng, 0, 1);
  c.single = Uniform(rng, 0, 1);
  c.mult = Uniform(rng, 0, 9) == 0 ? 0 : Uniform(rng, 1 << 30, 0x7FFFFFFF);
  c.shift = Uniform(rng, 0, 4) == 0 ? Uniform(rng, -31, 30) : Uniform(rng, -20, 2);
  for (int n = 0; n < c.n && c.per_channel; ++n) {
    c.ch_mult.push_back(Uniform(rng, 0, 9) == 0 ? 0 : Uniform(rng, 1 << 30, 0x7FFFFFFF));
    c.ch_shift.push_back(Uniform(rng, -31, 30));
  }
  switch (Uniform(rng, 0, 3)) {
    case 0:
      c.clamp_min = -128, c.clamp_max = 127;
      break;
    case 1:
      c.clamp_min = 0, c.clamp_max = 255;
      break;
    case 2:
      c.clamp_min = 0, c.clamp_max = 127;
      break;
    default:
      c.clamp_min = Uniform(rng, -128, 0), c.clamp_max = Uniform(rng, 0, 255);
  }
  c.zp_out = Uniform(rng, -300, 300);
  // Bases anywhere the command fits.
  const int64_t mb = Ceil(c.m, g.rows), nb = Ceil(c.n, g.cols), tiles = mb * nb;
  const int64_t out_words = c.out_raw ? tiles * g.rows : tiles * g.rows / 4;
  auto base = [&rng](int64_t depth, int64_t used) {
    return depth >= used ? static_cast<uint32_t>(Uniform(rng, 0, int(depth - used))) : 0u;
  };
  c.a_base = base(g.a_depth, mb * c.k);
  c.b_base = base(g.b_depth, nb * c.k);
  c.bias_base = base(g.bias_depth, nb);
  c.rq_base = base(g.rq_depth, nb);
  c.out_base = base(g.out_depth, out_words);
  return c;
}

AccelGeometry GemmGeometry(int rows, int cols) {
  AccelGeometry g = Small(rows, cols);
  g.a_depth = 1024, g.b_depth = 2048, g.out_depth = 256, g.bias_depth = 32, g.rq_depth = 16;
  return g;
}

// The three array shapes in turn: 8x8, 4x16, 16x4.
AccelGeometry RotatingGeometry(int trial) {
  static constexpr int kRows[] = {8, 4, 16}, kCols[] = {8, 16, 4};
  return GemmGeometry(kRows[trial % 3], kCols[trial % 3]);
}

std::string Describe(const GemmCase& c) {
  return "M=" + std::to_string(c.m) + " N=" + std::to_string(c.n) + " K=" + std::to_string(c.k) +
         " raw=" + std::to_string(c.out_raw) + " per_channel=" + std::to_string(c.per_channel) +
         " bias=" + std::to_string(!c.bias.empty()) + " single=" + std::to_string(c.single) +
         " zp=" + std::to_string(c.a_zp) + "," + std::to_string(c.b_zp);
}

TEST(ProgramGemmTest, RandomCommandsMatchGoldenGemmAndRequant) {
  std::mt19937 rng(31);
  int run = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const AccelGeometry g = RotatingGeometry(trial);
    const GemmCase c = RandomGemmCase(g, rng, trial < 500 ? 40 : 70, trial % 50 == 0 ? 300 : 24);
    const Descriptor d = EncodeGemm(FieldsOf(c), kNoFlags);
    if (Validate(g, d) != ProgramError::kNone) continue;  // too large for the SRAMs
    MachineState state(g, 0);
    FillRandom(state, rng);
    Pack(g, c, state, rng);
    MachineState expected = state;
    expected.out = PlaceOutput(g, c, ReferenceOut(c), state.out);
    ASSERT_EQ(Execute(g, d, state), ProgramError::kNone);
    ExpectSameState(state, expected,
                    "trial " + std::to_string(trial) + " " + Name(g) + " " + Describe(c));
    if (HasFailure()) return;
    ++run;
  }
  EXPECT_GT(run, 500);
}

// ACT = LUT (lut.md 10.3, 10.4, 10.6): each requant code's low LUT_IN_BITS bits address the
// slot's 16-bit entries in the table SRAM (byte 512 slot + 2 address, little-endian, random
// bytes here); 8-bit entries write their low byte in the int8 layout, 16-bit ones both bytes in
// the int16 layout (word OUT_BASE + e / 2, lane c at bytes 2 ((e mod 2) C + c)).
TEST(ProgramGemmTest, RandomLutCommandsLookUpTheirSlot) {
  std::mt19937 rng(41);
  int run = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const AccelGeometry g = RotatingGeometry(trial);
    GemmCase c = RandomGemmCase(g, rng, 40, 24);
    c.out_raw = false;
    const uint32_t slot = uint32_t(Uniform(rng, 0, g.lut_slots - 1));
    const uint32_t in_bits = uint32_t(Uniform(rng, 2, 8));
    const bool wide = Uniform(rng, 0, 1);
    GemmFields f = FieldsOf(c);
    f.mode |= 1u << 8 | slot << 12 | in_bits << 16 | (wide ? 16u : 8u) << 20;
    const int64_t tiles = Ceil(c.m, g.rows) * Ceil(c.n, g.cols);
    const int64_t words = tiles * g.rows / (wide ? 2 : 4);
    if (words > g.out_depth) continue;
    f.out_base = c.out_base = uint32_t(Uniform(rng, 0, int(g.out_depth - words)));
    const Descriptor d = EncodeGemm(f, kNoFlags);
    if (Validate(g, d) != ProgramError::kNone) continue;  // too large for the SRAMs
    MachineState state(g, 0);
    FillRandom(state, rng);
    FillRandom(state.lut, rng);
    Pack(g, c, state, rng);
    MachineState expected = state;
    const Matrix<int32_t> y = ReferenceOut(c);
    const int64_t nb_count = Ceil(c.n, g.cols);
    for (int m = 0; m < c.m; ++m) {
      for (int n = 0; n < c.n; ++n) {
        const uint32_t address = static_cast<uint32_t>(y.at(m, n)) & ((1u << in_bits) - 1);
        const size_t entry = slot * 512 + 2 * address;
        const int64_t e = ((m / g.rows) * nb_count + n / g.cols) * g.rows + m % g.rows;
        const int64_t lane = n % g.cols;
        if (wide) {
          const size_t byte = (c.out_base + e / 2) * 4 * g.cols + 2 * ((e % 2) * g.cols + lane);
          expected.out.at(byte) = state.lut.at(entry);
          expected.out.at(byte + 1) = state.lut.at(entry + 1);
        } else {
          expected.out.at((c.out_base + e / 4) * 4 * g.cols + (e % 4) * g.cols + lane) =
              state.lut.at(entry);
        }
      }
    }
    ASSERT_EQ(Execute(g, d, state), ProgramError::kNone);
    ExpectSameState(state, expected,
                    "trial " + std::to_string(trial) + " " + Name(g) + " " + Describe(c));
    if (HasFailure()) return;
    ++run;
  }
  EXPECT_GT(run, 200);
}

// Accumulators wrap modulo 2^32 (bias near the int32 limits, long K at the largest factors).
TEST(ProgramGemmTest, AccumulatorsWrap) {
  const AccelGeometry g = GemmGeometry(8, 8);
  std::mt19937 rng(3);
  for (int32_t bias : {std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()}) {
    GemmCase c;
    c.m = 3, c.n = 9, c.k = 1000;
    c.a.assign(size_t(c.m) * c.k, 0x80);  // -128
    c.b.assign(size_t(c.k) * c.n, 0x80);
    c.a_zp = 255, c.b_zp = 255;  // factors -383: products 146689, sum 146689000
    c.bias.assign(c.n, bias);
    c.out_raw = true;
    MachineState state(g, 0);
    Pack(g, c, state, rng);
    ASSERT_EQ(Execute(g, EncodeGemm(FieldsOf(c), kNoFlags), state), ProgramError::kNone);
    const int64_t exact = int64_t{bias} + int64_t{146689} * 1000;
    const int32_t wrapped = static_cast<int32_t>(
        exact > std::numeric_limits<int32_t>::max() ? exact - (int64_t{1} << 32) : exact);
    EXPECT_EQ(static_cast<int32_t>(Get32(state.out, 0)), wrapped);
    EXPECT_EQ(static_cast<int32_t>(Get32(state.out, 2 * 32 + 4 * 7)), wrapped);  // entry 2 lane 7
    EXPECT_EQ(static_cast<int32_t>(Get32(state.out, 8 * 32)), wrapped);  // tile 1 (columns 8..)
  }
}

// Only rows i < m_valid and lanes c < n_valid are written; everything else keeps its bytes.
TEST(ProgramGemmTest, PaddedRowsAndLanesAreNotWritten) {
  for (bool out_raw : {false, true}) {
    const AccelGeometry g = GemmGeometry(8, 8);
    std::mt19937 rng(8);
    GemmCase c;
    c.m = 9, c.n = 3, c.k = 2;
    c.a.assign(18, 1), c.b.assign(6, 1);
    c.out_raw = out_raw;
    c.out_base = 1;
    c.zp_out = 7;
    MachineState state(g, 0);
    std::fill(state.out.begin(), state.out.end(), 0xEE);
    Pack(g, c, state, rng);
    ASSERT_EQ(Execute(g, EncodeGemm(FieldsOf(c), kNoFlags), state), ProgramError::kNone);
    // acc = 2 for every element; requant with (2^30, 0): 1, + 7 = 8.
    const size_t word = 32;
    for (size_t i = 0; i < state.out.size(); ++i) {
      uint8_t expected = 0xEE;
      if (out_raw) {  // entries 0..7 (rows 0..7) and 8 (row 8), words 1..9, lanes 0..2
        const size_t w = i / word, byte = i % word;
        if (w >= 1 && w <= 9 && byte < 12) expected = byte % 4 == 0 ? 2 : 0;
      } else {  // int8: entries 0..8 in words 1, 2, 3 (entry 8 = word 3 quarter 0)
        const size_t entry = (i / word - 1) * 4 + (i % word) / 8, lane = i % 8;
        if (i >= word && entry <= 8 && lane < 3) expected = 8;
      }
      ASSERT_EQ(state.out[i], expected) << "out_raw " << out_raw << " byte " << i;
    }
  }
}

// The TPU-MLIR form per channel (requant.md 6.1): lane c's word is its multiplier (8 bits here)
// and its byte 4 the rshift, read unsigned; every element's accumulator is 3 * 2 * 3 = 18.
TEST(ProgramGemmTest, TpuMlirFormPerChannel) {
  const AccelGeometry g = GemmGeometry(8, 8);
  std::mt19937 rng(5);
  GemmCase c;
  c.m = 1, c.n = 4, c.k = 3;
  c.a.assign(3, 3), c.b.assign(12, 2);
  c.per_channel = true;
  c.ch_mult = {-3, 127, -128, 1};
  c.ch_shift = {2, 63, 0, 2};
  c.zp_out = 5;
  MachineState state(g, 0);
  Pack(g, c, state, rng);
  GemmFields f = FieldsOf(c);
  // Width 8 (code 0), RSHIFT_ROUND 1 (half_up); CMD_MULT and the rshift are not read.
  f.mode |= kRqForm | 1u << 25;
  f.mult = 12345, f.shift = 200;
  MachineState run = state;
  ASSERT_EQ(Execute(g, EncodeGemm(f, kNoFlags), run), ProgramError::kNone);
  // 18 * -3 / 4 = -13.5 -> -13 (half up); 18 * 127 >> 63 = 0; 18 * -128 = -2304 clamps to -128;
  // 18 / 4 = 4.5 -> 5. Each + 5, clamped to -128..127.
  const int8_t expected[] = {-8, 5, -128, 10};
  for (int lane = 0; lane < 4; ++lane) {
    EXPECT_EQ(int8_t(run.out[size_t(lane)]), expected[lane]) << lane;
  }
  // A multiplier word that is not an 8-bit integer, or an rshift above 63, has no defined result.
  for (const auto& [mult, shift] :
       std::vector<std::pair<uint32_t, uint32_t>>{{128, 0}, {0xFFFFFF7Fu, 0}, {1, 64}}) {
    MachineState bad = state;
    Put32(bad.rq, 8, mult);
    Put32(bad.rq, 12, shift);
    EXPECT_THROW(Execute(g, EncodeGemm(f, kNoFlags), bad), std::domain_error) << mult;
  }
}

TEST(ProgramGemmTest, IllegalPerChannelEntryOfAValidLaneThrows) {
  const AccelGeometry g = GemmGeometry(8, 8);
  std::mt19937 rng(4);
  GemmCase c;
  c.m = 2, c.n = 5, c.k = 3;
  c.a.assign(6, 3), c.b.assign(15, 2);
  c.per_channel = true;
  c.ch_mult.assign(5, 1 << 30);
  c.ch_shift.assign(5, 0);
  MachineState state(g, 0);
  Pack(g, c, state, rng);  // lanes 5..7 hold (5, 31): illegal and unused
  const Descriptor d = EncodeGemm(FieldsOf(c), kNoFlags);
  MachineState ok = state;
  EXPECT_NO_THROW(Execute(g, d, ok));
  for (int lane : {0, 4}) {
    for (const auto& [mult, shift] : std::vector<std::pair<uint32_t, uint32_t>>{
             {(1u << 30) - 1, 0}, {0x80000000u, 0}, {1u << 30, 31}, {1u << 30, 0x20}}) {
      MachineState bad = state;
      Put32(bad.rq, lane * 8, mult);
      Put32(bad.rq, lane * 8 + 4, shift);
      EXPECT_THROW(Execute(g, d, bad), std::domain_error) << lane << " " << mult << " " << shift;
      // OUT_RAW does not use the rq entries.
      GemmCase raw = c;
      raw.out_raw = true;
      EXPECT_NO_THROW(Execute(g, EncodeGemm(FieldsOf(raw), kNoFlags), bad));
    }
  }
  // The edge values are legal: multiplier 0 and 2^31 - 1, shifts -31 and 30.
  for (const auto& [mult, shift] :
       std::vector<std::pair<uint32_t, int>>{{0, 0}, {0x7FFFFFFF, -31}, {1u << 30, 30}}) {
    MachineState edge = state;
    Put32(edge.rq, 0, mult);
    Put32(edge.rq, 4, ShiftField(shift));
    EXPECT_NO_THROW(Execute(g, d, edge)) << mult << " " << shift;
  }
}

// ---- 13: MOVE execution -----------------------------------------------------------------------

// Byte `lane` of output entry e in the int8 layout.
uint64_t EntryByte(const AccelGeometry& g, uint64_t e, uint64_t lane) {
  return (e / 4) * 4 * g.cols + (e % 4) * g.cols + lane;
}

TEST(ProgramMoveTest, RandomTilesMatchNaiveReference) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 1500; ++trial) {
    const AccelGeometry& g = kGeometries[trial % 3];
    MoveFields f;
    f.dst = 1 + Uniform(rng, 0, 1);
    const bool into_a = f.dst == 1;
    f.count0 = Uniform(rng, 1, into_a ? g.cols : g.rows);
    f.count1 = Uniform(rng, 1, 4), f.count2 = Uniform(rng, 1, 3);
    f.src_stride1 = 4 * Uniform(rng, 0, 6), f.src_stride2 = 4 * Uniform(rng, 0, 10);
    f.dst_stride1 = Uniform(rng, 0, 12), f.dst_stride2 = Uniform(rng, 0, 30);
    f.src_base = 4 * Uniform(rng, 0, 8);
    f.dst_base = Uniform(rng, 0, 10);
    const Descriptor d = EncodeMove(f, kNoFlags);
    if (Validate(g, d) != ProgramError::kNone) continue;
    MachineState state(g, 0);
    FillRandom(state, rng);
    MachineState expected = state;
    for (uint64_t i2 = 0; i2 < f.count2; ++i2) {
      for (uint64_t i1 = 0; i1 < f.count1; ++i1) {
        const uint64_t s = f.src_base + i1 * f.src_stride1 + i2 * f.src_stride2;
        const uint64_t w = f.dst_base + i1 * f.dst_stride1 + i2 * f.dst_stride2;
        for (uint64_t j = 0; j < f.count0; ++j) {
          if (into_a) {
            for (int r = 0; r < g.rows; ++r) {
              expected.a[(w + j) * g.rows + r] = state.out[EntryByte(g, s + r, j)];
            }
          } else {
            for (int c = 0; c < g.cols; ++c) {
              expected.b[(w + j) * g.cols + c] = state.out[EntryByte(g, s + j, c)];
            }
          }
        }
      }
    }
    ASSERT_EQ(Execute(g, d, state), ProgramError::kNone);
    ExpectSameState(
        state, expected,
        "trial " + std::to_string(trial) + " " + Name(g) + " " + DescribeDescriptor(g, d));
    if (HasFailure()) return;
  }
}

MoveFields Move(uint32_t dst, uint32_t count0, uint32_t count1, uint32_t count2, uint32_t src_base,
                uint32_t src_stride1, uint32_t src_stride2, uint32_t dst_base, uint32_t dst_stride1,
                uint32_t dst_stride2) {
  MoveFields f;
  f.dst = dst;
  f.count0 = count0, f.count1 = count1, f.count2 = count2;
  f.src_base = src_base, f.src_stride1 = src_stride1, f.src_stride2 = src_stride2;
  f.dst_base = dst_base, f.dst_stride1 = dst_stride1, f.dst_stride2 = dst_stride2;
  return f;
}

// Reads the M x N int8 result of `c` (its out_base, clamp) back from the out image.
Matrix<int32_t> UnpackInt8(const AccelGeometry& g, const GemmCase& c,
                           const std::vector<uint8_t>& out) {
  Matrix<int32_t> y(c.m, c.n);
  const int64_t nb_count = Ceil(c.n, g.cols);
  for (int m = 0; m < c.m; ++m) {
    for (int n = 0; n < c.n; ++n) {
      const int64_t e = ((m / g.rows) * nb_count + n / g.cols) * g.rows + m % g.rows;
      const int code = out.at(EntryByte(g, c.out_base * 4 + e, n % g.cols));
      y.at(m, n) = c.clamp_min >= 0 || code < 128 ? code : code - 256;
    }
  }
  return y;
}

// Layer 1 (GEMM into the out SRAM) -> MOVE -> layer 2 reading it as A (Y x W2) or as B (X2 x Y),
// as one program, against the two layers computed on matrices.
TEST(ProgramMoveTest, ChainedLayersEqualMatrixMath) {
  std::mt19937 rng(17);
  int chains = 0;
  for (int trial = 0; trial < 240; ++trial) {
    const AccelGeometry g = RotatingGeometry(trial);
    const bool into_a = trial % 2 == 0;
    const int rows = g.rows, cols = g.cols;
    GemmCase l1 = RandomGemmCase(g, rng, 40, 20);
    l1.out_raw = false;
    if (l1.clamp_min < 0) l1.clamp_max = std::min(l1.clamp_max, 127);  // int8 codes
    l1.a_base = 0, l1.b_base = 0, l1.bias_base = 0, l1.rq_base = 0, l1.out_base = 2;
    const bool unsigned_y = l1.clamp_min >= 0;
    GemmCase l2 = RandomGemmCase(g, rng, 40, 1);
    l2.out_raw = Uniform(rng, 0, 1);
    const int64_t mb1 = Ceil(l1.m, rows), nb1 = Ceil(l1.n, cols);
    // Layer 2's operands: Y is its A (K2 = N1) or its B (K2 = M1).
    l2.k = into_a ? l1.n : l1.m;
    if (into_a) {
      l2.m = l1.m;
      l2.a_unsigned = unsigned_y;
    } else {
      l2.n = l1.n;
      l2.b_unsigned = unsigned_y;
    }
    l2.a.resize(size_t(l2.m) * l2.k);
    l2.b.resize(size_t(l2.k) * l2.n);
    for (auto& v : l2.a) v = static_cast<uint8_t>(rng());
    for (auto& v : l2.b) v = static_cast<uint8_t>(rng());
    l2.bias.resize(l2.bias.empty() ? 0 : l2.n);
    for (auto& v : l2.bias) v = Uniform(rng, -5000, 5000);
    l2.ch_mult.resize(l2.per_channel ? l2.n : 0, 1 << 30);
    l2.ch_shift.resize(l2.per_channel ? l2.n : 0, -3);
    const int64_t mb2 = Ceil(l2.m, rows), nb2 = Ceil(l2.n, cols);
    l2.a_base = static_cast<uint32_t>(mb1 * l1.k + 3);
    l2.b_base = static_cast<uint32_t>(nb1 * l1.k + 5);
    l2.bias_base = static_cast<uint32_t>(nb1 + 1);
    l2.rq_base = static_cast<uint32_t>(nb1);
    l2.out_base = static_cast<uint32_t>(2 + mb1 * nb1 * rows / 4);

    std::vector<Descriptor> program = {EncodeGemm(FieldsOf(l1), kNoFlags)};
    const uint32_t src = l1.out_base * 4;
    if (into_a) {  // 13: SRC_STRIDE1 = R, SRC_STRIDE2 = NB * R, DST_STRIDE1 = C, DST_STRIDE2 = K'
      const uint32_t full = l1.n / cols, rest = l1.n % cols, k2 = l2.k;
      if (full > 0) {
        program.push_back(EncodeMove(
            Move(1, cols, full, mb1, src, rows, nb1 * rows, l2.a_base, cols, k2), kNoFlags));
      }
      if (rest > 0) {
        program.push_back(EncodeMove(Move(1, rest, 1, mb1, src + full * rows, rows, nb1 * rows,
                                          l2.a_base + full * cols, cols, k2),
                                     kNoFlags));
      }
    } else {  // tile (nb, mb): entries s + j -> B word B_BASE + nb * K' + mb * R + j
      const uint32_t full = l1.m / rows, rest = l1.m % rows, k2 = l2.k;
      if (full > 0) {
        program.push_back(EncodeMove(
            Move(2, rows, nb1, full, src, rows, nb1 * rows, l2.b_base, k2, rows), kNoFlags));
      }
      if (rest > 0) {
        program.push_back(EncodeMove(
            Move(2, rest, nb1, 1, src + full * nb1 * rows, rows, 0, l2.b_base + full * rows, k2, 0),
            kNoFlags));
      }
    }
    program.push_back(EncodeGemm(FieldsOf(l2), kNoFlags));
    bool valid = true;
    for (const Descriptor& d : program) valid = valid && Validate(g, d) == ProgramError::kNone;
    if (!valid) continue;
    MachineState state(g, 64 * 8);
    FillRandom(state, rng);
    Pack(g, l1, state, rng);
    // Layer 2's own operand (B when Y is A, A when Y is B) and its bias/rq; Y's panels come from
    // the MOVE, so the packed copy of them is overwritten with garbage first.
    GemmCase l2_packed = l2;
    if (into_a) {
      l2_packed.a.assign(l2.a.size(), 0);
    } else {
      l2_packed.b.assign(l2.b.size(), 0);
    }
    Pack(g, l2_packed, state, rng);
    if (into_a) {
      for (int64_t w = 0; w < mb2 * l2.k; ++w) {
        for (int r = 0; r < rows; ++r)
          state.a[(l2.a_base + w) * rows + r] = static_cast<uint8_t>(rng());
      }
    } else {
      for (int64_t w = 0; w < nb2 * l2.k; ++w) {
        for (int c = 0; c < cols; ++c)
          state.b[(l2.b_base + w) * cols + c] = static_cast<uint8_t>(rng());
      }
    }

    StoreProgram(program, 0, state);
    const MemoryImage ext_before = state.ext;
    const std::vector<uint8_t> out_before = state.out;

    // The matrices: Y = layer 1's int8 result, then layer 2 on it.
    const Matrix<int32_t> y = ReferenceOut(l1);
    GemmCase l2_math = l2;
    std::vector<uint8_t>& y_codes = into_a ? l2_math.a : l2_math.b;
    for (size_t i = 0; i < y.data.size(); ++i) y_codes[i] = static_cast<uint8_t>(y.data[i]);
    const Matrix<int32_t> z = ReferenceOut(l2_math);

    const ProgramResult result = RunQueue(g, 0, static_cast<uint32_t>(program.size()), state);
    ASSERT_EQ(result.error, ProgramError::kNone) << trial;
    ASSERT_EQ(result.retired, static_cast<int>(program.size()));
    EXPECT_EQ(UnpackInt8(g, l1, state.out).data, y.data) << trial;
    const std::vector<uint8_t> expected_out =
        PlaceOutput(g, l2, z, PlaceOutput(g, l1, y, out_before));
    ASSERT_TRUE(expected_out == state.out)
        << "trial " << trial << (into_a ? " into A " : " into B ") << Name(g) << " L1 "
        << Describe(l1) << " L2 " << Describe(l2);
    EXPECT_TRUE(state.ext == ext_before);  // nothing went through external memory
    ++chains;
  }
  EXPECT_GT(chains, 150);
}

// ---- 14: the queue ----------------------------------------------------------------------------

// Small commands on the default-shaped array with small SRAMs.
const AccelGeometry kQ = Small(8, 8);

Descriptor LoadA(uint32_t word, uint32_t ext, uint32_t words, Header h) {
  DmaFields f;
  f.sram = 1, f.sram_base = word, f.ext_addr = ext, f.count0 = words;
  return EncodeDma(Op::kLoad, f, h);
}
Descriptor StoreOut32(uint32_t word, uint32_t ext, uint32_t words, Header h) {
  DmaFields f;
  f.sram = 5, f.out_int32 = true, f.sram_base = word, f.ext_addr = ext, f.count0 = words;
  return EncodeDma(Op::kStore, f, h);
}
// One 8 x 8 tile, K = 2, raw int32 output: reads A words a..a+1 and B words 0..1, writes out words
// out..out+7.
Descriptor TileGemm(uint32_t a, uint32_t out, Header h) {
  GemmFields f;
  f.m = 8, f.n = 8, f.k = 2;
  f.a_base = a, f.out_base = out;
  f.mode = kOutRaw;
  return EncodeGemm(f, h);
}
// A compute command with no visible effect worth checking: one B word from out entry 0.
Descriptor SmallMove(Header h) { return EncodeMove(Move(2, 1, 1, 1, 0, 0, 0, 100, 0, 0), h); }

MachineState QueueState(std::mt19937& rng, size_t ext_bytes = 4096) {
  MachineState state(kQ, ext_bytes);
  FillRandom(state, rng);
  return state;
}

// Runs `program` from q_base 0x400 on a copy of `state`.
ProgramResult RunProgram(const std::vector<Descriptor>& program, MachineState& state,
                         uint32_t q_base = 0x400) {
  StoreProgram(program, q_base, state);
  return RunQueue(kQ, q_base, static_cast<uint32_t>(program.size()), state);
}

// Executes descriptors one by one in `order` (a schedule the test knows is valid).
MachineState Sequential(const std::vector<Descriptor>& program, const std::vector<int>& order,
                        MachineState state, uint32_t q_base = 0x400) {
  StoreProgram(program, q_base, state);
  for (int i : order) EXPECT_EQ(Execute(kQ, program[i], state), ProgramError::kNone) << i;
  return state;
}

TEST(ProgramQueueTest, WaitBeforeItsSignalInProgramOrder) {
  std::mt19937 rng(1);
  const MachineState initial = QueueState(rng);
  // 0: the GEMM waits for the data that LOAD 1 brings (program order is not a valid schedule).
  const auto program =
      Program({TileGemm(0, 0, Flags(true, false)), LoadA(0, 0, 2, Flags(false, true))});
  MachineState state = initial;
  const ProgramResult result = RunProgram(program, state);
  EXPECT_EQ(result.error, ProgramError::kNone);
  EXPECT_EQ(result.error_index, -1);
  EXPECT_EQ(result.retired, 2);
  EXPECT_EQ(result.completion_order, (std::vector<int>{1, 0}));
  ExpectSameState(state, Sequential(program, {1, 0}, initial), "load first");
  // The order matters here: GEMM first gives other output.
  EXPECT_FALSE(Sequential(program, {0, 1}, initial).out == state.out);
  EXPECT_TRUE(RaceCheck(kQ, program, 0x400).empty());
}

TEST(ProgramQueueTest, MutualWaitDeadlocks) {
  std::mt19937 rng(2);
  MachineState state = QueueState(rng);
  const MachineState initial = state;
  const auto program =
      Program({TileGemm(0, 0, Flags(true, true)), LoadA(0, 0, 2, Flags(true, true))});
  const ProgramResult result = RunProgram(program, state);
  EXPECT_EQ(result.error, ProgramError::kDeadlock);
  EXPECT_EQ(result.error_index, 0);
  EXPECT_EQ(result.retired, 0);
  EXPECT_TRUE(result.completion_order.empty());
  MachineState expected = initial;
  StoreProgram(program, 0x400, expected);
  ExpectSameState(state, expected, "nothing ran");

  // A WAIT nobody signals: the LOAD before it completes, DEADLOCK names the waiter.
  MachineState state2 = initial;
  const auto program2 = Program(
      {LoadA(0, 0, 2, kNoFlags), TileGemm(0, 0, Flags(true, false)), LoadA(4, 16, 1, kNoFlags)});
  const ProgramResult result2 = RunProgram(program2, state2);
  EXPECT_EQ(result2.error, ProgramError::kDeadlock);
  EXPECT_EQ(result2.error_index, 1);
  EXPECT_EQ(result2.retired, 2);
  EXPECT_EQ(result2.completion_order, (std::vector<int>{0, 2}));
  ExpectSameState(state2, Sequential(program2, {0, 2}, initial), "loads only");
}

// The compute queue holds 4 descriptors: with its head waiting, a fifth compute descriptor stops
// the fetcher before the DMA SIGNAL that would release it.
TEST(ProgramQueueTest, FullQueueStopsTheFetcher) {
  std::mt19937 rng(3);
  const MachineState initial = QueueState(rng);
  for (int compute = 1; compute <= 6; ++compute) {
    std::vector<Descriptor> program;
    for (int i = 0; i < compute; ++i) program.push_back(SmallMove(Flags(i == 0, false)));
    program.push_back(LoadA(0, 0, 1, Flags(false, true)));
    MachineState state = initial;
    const ProgramResult result = RunProgram(program, state);
    if (compute <= kQueueDepth) {
      EXPECT_EQ(result.error, ProgramError::kNone) << compute;
      EXPECT_EQ(result.retired, compute + 1);
      EXPECT_EQ(result.completion_order.front(), compute) << "the LOAD runs first";
    } else {
      EXPECT_EQ(result.error, ProgramError::kDeadlock) << compute;
      EXPECT_EQ(result.error_index, 0);
      EXPECT_EQ(result.retired, 0);
      EXPECT_TRUE(state.a == initial.a) << "the LOAD was never fetched";
    }
  }
  // The same on the DMA queue.
  for (int dma = 1; dma <= 6; ++dma) {
    std::vector<Descriptor> program;
    for (int i = 0; i < dma; ++i) program.push_back(LoadA(i, 8 * i, 1, Flags(i == 0, false)));
    program.push_back(SmallMove(Flags(false, true)));
    MachineState state = initial;
    const ProgramResult result = RunProgram(program, state);
    EXPECT_EQ(result.error, dma <= kQueueDepth ? ProgramError::kNone : ProgramError::kDeadlock)
        << dma;
    EXPECT_EQ(result.retired, dma <= kQueueDepth ? dma + 1 : 0) << dma;
  }
}

// 16 SIGNALs into a counter that holds 15: the 16th waits (without error) until the other engine
// takes a token.
TEST(ProgramQueueTest, TokenCounterSaturatesAtFifteen) {
  std::mt19937 rng(4);
  const MachineState initial = QueueState(rng);
  constexpr int kSignals = kMaxTokens + 1;
  std::vector<Descriptor> program;
  for (int i = 0; i < kSignals; ++i) program.push_back(SmallMove(Flags(false, true)));
  for (int i = 0; i < kSignals; ++i) program.push_back(LoadA(i, 8 * i, 1, Flags(true, false)));
  MachineState state = initial;
  const ProgramResult result = RunProgram(program, state);
  EXPECT_EQ(result.error, ProgramError::kNone);
  EXPECT_EQ(result.retired, 2 * kSignals);
  const auto& order = result.completion_order;
  const auto at = [&order](int index) {
    return std::find(order.begin(), order.end(), index) - order.begin();
  };
  // The 16th SIGNAL is deposited only after the first WAIT took a token.
  EXPECT_GT(at(kSignals - 1), at(kSignals));
  for (int i = 0; i < kSignals - 1; ++i) EXPECT_LT(at(i), at(kSignals)) << i;

  // 15 SIGNALs that nobody takes are fine; a 16th with nobody to take one deadlocks, and the
  // blocked command has run but is not retired.
  for (int signals : {kMaxTokens, kMaxTokens + 1}) {
    std::vector<Descriptor> only;
    for (int i = 0; i < signals; ++i) only.push_back(LoadA(i, 8 * i, 1, Flags(false, true)));
    MachineState s = initial;
    const ProgramResult r = RunProgram(only, s);
    if (signals == kMaxTokens) {
      EXPECT_EQ(r.error, ProgramError::kNone);
      EXPECT_EQ(r.retired, kMaxTokens);
    } else {
      EXPECT_EQ(r.error, ProgramError::kDeadlock);
      EXPECT_EQ(r.error_index, kMaxTokens);
      EXPECT_EQ(r.retired, kMaxTokens);
      std::vector<int> all(signals);
      for (int i = 0; i < signals; ++i) all[i] = i;
      ExpectSameState(s, Sequential(only, all, initial), "the 16th LOAD ran");
    }
  }
}

TEST(ProgramQueueTest, ValidationErrorMidProgram) {
  std::mt19937 rng(5);
  const MachineState initial = QueueState(rng);
  DmaFields bad;
  bad.sram = 0;
  const auto program = Program({LoadA(0, 0, 2, kNoFlags), TileGemm(0, 0, kNoFlags),
                                EncodeDma(Op::kLoad, bad, kNoFlags), LoadA(8, 64, 2, kNoFlags),
                                TileGemm(8, 16, kNoFlags)});
  MachineState state = initial;
  const ProgramResult result = RunProgram(program, state);
  EXPECT_EQ(result.error, ProgramError::kBadSram);
  EXPECT_EQ(result.error_index, 2);
  EXPECT_EQ(result.retired, 2);
  ExpectSameState(state, Sequential(program, {0, 1}, initial), "0 and 1 only");

  // A descriptor before the error that waits for a token only a later one gives: it stays, the
  // validation error is reported (not DEADLOCK).
  Descriptor reserved{};
  reserved[15] = 15;
  const auto program2 = Program({LoadA(0, 0, 2, kNoFlags), TileGemm(0, 0, Flags(true, false)),
                                 reserved, LoadA(8, 64, 2, Flags(false, true))});
  MachineState state2 = initial;
  const ProgramResult result2 = RunProgram(program2, state2);
  EXPECT_EQ(result2.error, ProgramError::kBadOpcode);
  EXPECT_EQ(result2.error_index, 2);
  EXPECT_EQ(result2.retired, 1);
  ExpectSameState(state2, Sequential(program2, {0}, initial), "0 only");

  // The first descriptor invalid.
  MachineState state3 = initial;
  const ProgramResult result3 = RunProgram(Program({reserved, LoadA(0, 0, 2, kNoFlags)}), state3);
  EXPECT_EQ(result3.error, ProgramError::kBadOpcode);
  EXPECT_EQ(result3.error_index, 0);
  EXPECT_EQ(result3.retired, 0);
}

TEST(ProgramQueueTest, CountZeroAndRegisterMasks) {
  std::mt19937 rng(6);
  MachineState state = QueueState(rng);
  const MachineState initial = state;
  for (uint32_t count : {0u, 0x10000u}) {
    const ProgramResult result = RunQueue(kQ, 0, count, state);
    EXPECT_EQ(result.error, ProgramError::kBadShape) << count;
    EXPECT_EQ(result.error_index, 0);
    EXPECT_EQ(result.retired, 0);
    ExpectSameState(state, initial, "count 0");
  }
  // Q_BASE bits [5:0] read 0: a program at 0x440 runs from 0x47F.
  const auto program = Program({LoadA(3, 0, 1, kNoFlags)});
  StoreProgram(program, 0x440, state);
  const ProgramResult result = RunQueue(kQ, 0x47F, 0x10001, state);  // Q_COUNT [15:0] = 1
  EXPECT_EQ(result.error, ProgramError::kNone);
  EXPECT_EQ(result.retired, 1);
  EXPECT_TRUE(std::equal(state.ext.begin(), state.ext.begin() + 8, state.a.begin() + 24));
  EXPECT_THROW(StoreProgram(program, 0x441, state), std::invalid_argument);
  EXPECT_THROW(StoreProgram(program, 4096 - 63, state), std::invalid_argument);
  EXPECT_THROW(StoreProgram(program, 4096 - 64 + 64, state), std::out_of_range);
  EXPECT_NO_THROW(StoreProgram(program, 4096 - 64, state));
}

TEST(ProgramQueueTest, DescriptorFetchBeyondExternalMemory) {
  std::mt19937 rng(7);
  // Three descriptors from 0x400; the memory ends 60 bytes into descriptor 2.
  const auto program =
      Program({LoadA(0, 0, 2, kNoFlags), TileGemm(0, 0, kNoFlags), LoadA(8, 64, 2, kNoFlags)});
  MachineState big = QueueState(rng);
  StoreProgram(program, 0x400, big);
  MachineState state(kQ, 0x400 + 2 * 64 + 60);
  state.a = big.a, state.b = big.b, state.out = big.out;
  state.ext.Write(0, big.ext.data(), state.ext.size());
  const MachineState initial = state;
  const ProgramResult result = RunQueue(kQ, 0x400, 3, state);
  EXPECT_EQ(result.error, ProgramError::kExtFault);
  EXPECT_EQ(result.error_index, 2);
  EXPECT_EQ(result.retired, 2);
  MachineState expected = initial;
  for (int i : {0, 1}) ASSERT_EQ(Execute(kQ, program[i], expected), ProgramError::kNone);
  ExpectSameState(state, expected, "0 and 1");
  // A program that starts beyond the memory faults at 0.
  MachineState none = initial;
  const ProgramResult at0 = RunQueue(kQ, 0x10000, 1, none);
  EXPECT_EQ(at0.error, ProgramError::kExtFault);
  EXPECT_EQ(at0.error_index, 0);
}

TEST(ProgramQueueTest, DmaFaultStopsTheProgram) {
  std::mt19937 rng(8);
  MachineState state = QueueState(rng, 2048);
  const auto program = Program({LoadA(0, 0, 2, kNoFlags), LoadA(4, 2048 - 8, 2, kNoFlags),
                                TileGemm(0, 0, kNoFlags), LoadA(8, 0, 2, kNoFlags)});
  const ProgramResult result = RunProgram(program, state);
  EXPECT_EQ(result.error, ProgramError::kExtFault);
  EXPECT_EQ(result.error_index, 1);
  // Only the error and its index are the contract; here no descriptor after it ran.
  EXPECT_EQ(std::count(result.completion_order.begin(), result.completion_order.end(), 3), 0);
}

// Double buffering: LOAD i fills buffer i mod 2 and signals; GEMM i waits for it and signals
// that the buffer is free again; LOAD i + 2 waits for that. Race free, and the queue's result
// equals program order (a valid schedule here).
std::vector<Descriptor> DoubleBuffer(int tiles, int drop_token_of_tile) {
  std::vector<Descriptor> program;
  auto load = [&](int i) {
    const bool wait = i >= 2 && i != drop_token_of_tile;
    program.push_back(LoadA(2 * (i % 2), 16 * i, 2, Flags(wait, true)));
  };
  auto gemm = [&](int i) {
    const bool signal = i + 2 < tiles && i + 2 != drop_token_of_tile;
    program.push_back(TileGemm(2 * (i % 2), 8 * (i % 4), Flags(true, signal)));
  };
  load(0);
  for (int i = 1; i < tiles; ++i) {
    load(i);
    gemm(i - 1);
  }
  gemm(tiles - 1);
  return program;
}

TEST(ProgramRaceTest, DoubleBufferingWithTokensIsRaceFree) {
  std::mt19937 rng(9);
  const MachineState initial = QueueState(rng);
  const auto program = DoubleBuffer(6, -1);
  EXPECT_TRUE(RaceCheck(kQ, program, 0x400).empty());
  MachineState state = initial;
  const ProgramResult result = RunProgram(program, state);
  ASSERT_EQ(result.error, ProgramError::kNone);
  std::vector<int> order(program.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  ExpectSameState(state, Sequential(program, order, initial), "program order");
}

TEST(ProgramRaceTest, MissingTokenIsARace) {
  // Without GEMM 0's SIGNAL and LOAD 2's WAIT, LOAD 2 (index 3) may overwrite buffer 0 while GEMM 0
  // (index 2) reads it: A words 0..1 = bytes [0, 16).
  const auto program = DoubleBuffer(6, 2);
  const std::vector<Race> races = RaceCheck(kQ, program, 0x400);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].first, 2);
  EXPECT_EQ(races[0].second, 3);
  EXPECT_EQ(races[0].overlap.memory, 1);
  EXPECT_EQ(races[0].overlap.begin, 0u);
  EXPECT_EQ(races[0].overlap.end, 16u);

  // No tokens at all between a LOAD and the GEMM reading it.
  const auto plain = Program({LoadA(1, 0, 4, kNoFlags), TileGemm(0, 0, kNoFlags)});
  const auto plain_races = RaceCheck(kQ, plain, 0x400);
  ASSERT_EQ(plain_races.size(), 1u);
  EXPECT_EQ(plain_races[0].first, 0);
  EXPECT_EQ(plain_races[0].second, 1);
  EXPECT_EQ(plain_races[0].overlap.memory, 1);
  EXPECT_EQ(plain_races[0].overlap.begin, 8u);  // A word 1 (the GEMM reads words 0..1)
  EXPECT_EQ(plain_races[0].overlap.end, 16u);
}

TEST(ProgramRaceTest, WhatIsAndIsNotARace) {
  // Two reads of the same bytes on different engines: no race (STORE and MOVE read out word 0).
  EXPECT_TRUE(
      RaceCheck(kQ, Program({StoreOut32(0, 0, 1, kNoFlags), SmallMove(kNoFlags)}), 0x400).empty());
  // Same engine: program order.
  EXPECT_TRUE(
      RaceCheck(kQ, Program({TileGemm(0, 0, kNoFlags), TileGemm(0, 0, kNoFlags)}), 0x400).empty());
  EXPECT_TRUE(
      RaceCheck(kQ, Program({LoadA(0, 0, 2, kNoFlags), LoadA(0, 0, 2, kNoFlags)}), 0x400).empty());
  // Disjoint bytes: none.
  EXPECT_TRUE(
      RaceCheck(kQ, Program({LoadA(2, 0, 2, kNoFlags), TileGemm(0, 0, kNoFlags)}), 0x400).empty());
  // A chain through program order on the other engine: GEMM 0 SIGNAL -> LOAD 1 WAIT -> STORE 2
  // (program order) reading the GEMM's output.
  EXPECT_TRUE(
      RaceCheck(kQ,
                Program({TileGemm(0, 0, Flags(false, true)), LoadA(9, 0, 1, Flags(true, false)),
                         StoreOut32(0, 0, 8, kNoFlags)}),
                0x400)
          .empty());
  // Without the WAIT, the STORE races with the GEMM (out words 0..7 = bytes [0, 256)).
  const auto races = RaceCheck(kQ,
                               Program({TileGemm(0, 0, Flags(false, true)),
                                        LoadA(9, 0, 1, kNoFlags), StoreOut32(0, 0, 8, kNoFlags)}),
                               0x400);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].first, 0);
  EXPECT_EQ(races[0].second, 2);
  EXPECT_EQ(races[0].overlap.memory, 5);
  EXPECT_EQ(races[0].overlap.begin, 0u);
  EXPECT_EQ(races[0].overlap.end, 256u);
  // The j-th WAIT pairs with the j-th SIGNAL: GEMM 2 (first WAIT) follows LOAD 0 only, so it
  // races with LOAD 1 over A words 4..5; GEMM 3 (second WAIT) follows LOAD 1. LOAD 4 (A word 5)
  // follows neither GEMM.
  const auto ranked =
      RaceCheck(kQ,
                Program({LoadA(0, 0, 2, Flags(false, true)), LoadA(4, 0, 2, Flags(false, true)),
                         TileGemm(4, 0, Flags(true, false)), TileGemm(4, 8, Flags(true, false)),
                         LoadA(5, 0, 1, kNoFlags)}),
                0x400);
  ASSERT_EQ(ranked.size(), 3u);
  const int expected[3][4] = {{1, 2, 32, 48}, {2, 4, 40, 48}, {3, 4, 40, 48}};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ranked[i].first, expected[i][0]) << i;
    EXPECT_EQ(ranked[i].second, expected[i][1]) << i;
    EXPECT_EQ(ranked[i].overlap.memory, 1) << i;
    EXPECT_EQ(ranked[i].overlap.begin, uint64_t(expected[i][2])) << i;
    EXPECT_EQ(ranked[i].overlap.end, uint64_t(expected[i][3])) << i;
  }
}

TEST(ProgramRaceTest, StoreOverTheProgram) {
  // Three descriptors at 0x400..0x4BF; the STORE writes 0x480..0x4FF.
  const auto program = Program({TileGemm(0, 0, Flags(false, true)),
                                StoreOut32(0, 0x480, 4, Flags(true, false)), SmallMove(kNoFlags)});
  const auto races = RaceCheck(kQ, program, 0x400);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].first, 1);
  EXPECT_EQ(races[0].second, -1);
  EXPECT_EQ(races[0].overlap.memory, 0);
  EXPECT_EQ(races[0].overlap.begin, 0x480u);
  EXPECT_EQ(races[0].overlap.end, 0x4C0u);
  EXPECT_TRUE(RaceCheck(kQ, program, 0x800).empty());
  EXPECT_TRUE(RaceCheck(kQ, program, 0x380).empty());  // ends at 0x440
}

TEST(ProgramRaceTest, Footprints) {
  const AccelGeometry g = Small(8, 8);
  auto intervals = [](std::initializer_list<Interval> list) { return std::vector<Interval>(list); };
  auto same = [](const std::vector<Interval>& x, const std::vector<Interval>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].memory != y[i].memory || x[i].begin != y[i].begin || x[i].end != y[i].end) {
        return false;
      }
    }
    return true;
  };
  // LOAD of out int8 entries 5 + 10 i1 + 100 i2 (3 per row): bytes e * 8.
  DmaFields f;
  f.sram = 5;
  f.sram_base = 5, f.count0 = 3, f.count1 = 2, f.count2 = 2;
  f.sram_stride1 = 10, f.sram_stride2 = 100;
  f.ext_addr = 0x100, f.ext_stride1 = 0x40, f.ext_stride2 = 0x400;
  Footprint fp = FootprintOf(g, EncodeDma(Op::kLoad, f, kNoFlags));
  EXPECT_TRUE(same(
      fp.reads,
      intervals({{0, 0x100, 0x118}, {0, 0x140, 0x158}, {0, 0x500, 0x518}, {0, 0x540, 0x558}})));
  EXPECT_TRUE(
      same(fp.writes, intervals({{5, 40, 64}, {5, 120, 144}, {5, 840, 864}, {5, 920, 944}})));
  // STORE swaps them; rows that touch or overlap merge; stride 0 repeats.
  f.sram_stride1 = 2, f.sram_stride2 = 0, f.ext_stride1 = 0x18, f.ext_stride2 = 0;
  fp = FootprintOf(g, EncodeDma(Op::kStore, f, kNoFlags));
  EXPECT_TRUE(same(fp.reads, intervals({{5, 40, 80}})));
  EXPECT_TRUE(same(fp.writes, intervals({{0, 0x100, 0x130}})));
  // GEMM: word-granular panels, bias and rq only when enabled, the output words.
  GemmFields gemm;
  gemm.m = 9, gemm.n = 10, gemm.k = 5;  // MB 2, NB 2, T 4
  gemm.a_base = 1, gemm.b_base = 2, gemm.bias_base = 3, gemm.rq_base = 4, gemm.out_base = 5;
  fp = FootprintOf(g, EncodeGemm(gemm, kNoFlags));
  EXPECT_TRUE(same(fp.reads, intervals({{1, 8, 88}, {2, 16, 96}})));
  EXPECT_TRUE(same(fp.writes, intervals({{5, 5 * 32, 13 * 32}})));  // T * R / 4 = 8 words
  gemm.mode = kBiasEn | kPerChannel | kOutRaw;
  fp = FootprintOf(g, EncodeGemm(gemm, kNoFlags));
  EXPECT_TRUE(same(fp.reads, intervals({{1, 8, 88}, {2, 16, 96}, {3, 96, 160}, {4, 256, 384}})));
  EXPECT_TRUE(same(fp.writes, intervals({{5, 5 * 32, 37 * 32}})));  // T * R = 32 words
  // MOVE into A: tiles at entries 8 and 16 (words 2..3 and 4..5), A words 3..5 and 7..9.
  fp = FootprintOf(g, EncodeMove(Move(1, 3, 2, 1, 8, 8, 0, 3, 4, 0), kNoFlags));
  EXPECT_TRUE(same(fp.reads, intervals({{5, 64, 192}})));
  EXPECT_TRUE(same(fp.writes, intervals({{1, 24, 48}, {1, 56, 80}})));
  // Reserved opcodes touch nothing.
  Descriptor reserved{};
  reserved[15] = 4;
  fp = FootprintOf(g, reserved);
  EXPECT_TRUE(fp.reads.empty() && fp.writes.empty());
}

// The Kahn property on random programs: a race-free program whose program order is a valid
// schedule leaves the memories exactly as executing it in program order does.
TEST(ProgramRaceTest, RaceFreeRandomProgramsEqualProgramOrder) {
  std::mt19937 rng(10);
  int race_free = 0, racy = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int length = Uniform(rng, 2, 24);
    std::vector<Descriptor> program;
    int d2c = 0, c2d = 0;  // tokens available in program order
    for (int i = 0; i < length; ++i) {
      const bool dma = Uniform(rng, 0, 1);
      int& in = dma ? c2d : d2c;
      int& out = dma ? d2c : c2d;
      const bool wait = in > 0 && Uniform(rng, 0, 2) != 0;
      if (wait) --in;
      const bool signal = out < kMaxTokens && Uniform(rng, 0, 2) != 0;
      if (signal) ++out;
      const Header h = Flags(wait, signal);
      const uint32_t slot = Uniform(rng, 0, 3);
      switch (Uniform(rng, 0, 1) + (dma ? 0 : 2)) {
        case 0:
          program.push_back(LoadA(2 * slot, 64 * Uniform(rng, 0, 7), 2, h));
          break;
        case 1:
          program.push_back(StoreOut32(8 * slot, 3072 + 256 * slot, 8, h));
          break;
        case 2:
          program.push_back(TileGemm(2 * slot, 8 * Uniform(rng, 0, 3), h));
          break;
        default:
          program.push_back(
              EncodeMove(Move(1, 8, 1, 1, 32 * slot, 0, 0, 2 * Uniform(rng, 0, 3), 0, 0), h));
      }
    }
    const MachineState initial = QueueState(rng);
    if (!RaceCheck(kQ, program, 0x400).empty()) {
      ++racy;
      continue;
    }
    ++race_free;
    MachineState state = initial;
    const ProgramResult result = RunProgram(program, state);
    ASSERT_EQ(result.error, ProgramError::kNone) << trial;
    std::vector<int> order(program.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    ExpectSameState(state, Sequential(program, order, initial), "trial " + std::to_string(trial));
    if (HasFailure()) return;
  }
  EXPECT_GT(race_free, 60);
  EXPECT_GT(racy, 60);
}

}  // namespace
}  // namespace qacc::golden
