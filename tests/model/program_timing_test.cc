// Cycle-exact program timing (docs/data_movement.md 17) on small programs whose every cycle is
// derived by hand in the comments from the spec's rules: the fetcher, LOAD and STORE rows, bursts,
// steps and credits, MOVE, GEMM, tokens, the queue depth, errors and the end of a program. Every
// program runs twice, cycle by cycle with a trace and with idle cycles skipped: both must agree.
//
// Common to the derivations (memory Lm = 20, Iv = 1 unless said otherwise): cycle 0 launches; the
// fetcher issues descriptor 0 at 1; a descriptor of 64 / D beats accepted at a has its beats at
// a + 20 .. a + 20 + 64 / D - 1 (when the read stream is free), is validated at r + 1 (r its last
// beat) and pushed at the end of r + 1; its engine starts it at r + 2 at the earliest; the next
// fetch issues at r + 2. With D = 16: AR 1, beats 21..24, push 25, start 26, next AR 26.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "golden/program.h"
#include "model/program_engine.h"
#include "tests/model/program_test_util.h"

namespace qacc::model::testing {
namespace {

using golden::Descriptor;
using golden::DmaFields;
using golden::GemmFields;
using golden::Header;
using golden::MoveFields;
using golden::Op;
using Trace = std::vector<ProgramCycle>;

constexpr uint32_t kQBase = 0x1000;
constexpr size_t kExtBytes = 0x10000;

// Runs `program` at `q_base` traced cycle by cycle, and again skipping idle cycles; the two must
// agree on everything.
ModelOutcome RunTwice(const arch::ArchConfig& config, Images images,
                      const std::vector<Descriptor>& program, uint32_t q_base = kQBase,
                      int latency = 20, int interval = 1) {
  PutProgram(program, q_base, images.ext);
  const uint32_t count = uint32_t(program.size());
  ModelOutcome traced = RunModel(config, images, q_base, count, latency, interval, false, true);
  const ModelOutcome fast = RunModel(config, images, q_base, count, latency, interval, true);
  EXPECT_EQ(int(traced.result.error), int(fast.result.error));
  EXPECT_EQ(traced.result.error_index, fast.result.error_index);
  EXPECT_EQ(traced.result.retired, fast.result.retired);
  EXPECT_TRUE(traced.result.perf == fast.result.perf);
  EXPECT_EQ(traced.result.perf.cycles, fast.result.perf.cycles);
  EXPECT_TRUE(traced.images == fast.images);
  EXPECT_TRUE(traced.violation.empty()) << traced.violation;
  EXPECT_EQ(traced.trace.size(), traced.result.perf.cycles);
  if (!traced.trace.empty()) {
    EXPECT_TRUE(traced.trace.back().last);
  }
  ExpectPerfConsistent(traced.result.perf, "run");
  return traced;
}

std::vector<uint64_t> Cycles(const Trace& trace,
                             const std::function<bool(const ProgramCycle&)>& f) {
  std::vector<uint64_t> cycles;
  for (const ProgramCycle& c : trace) {
    if (f(c)) cycles.push_back(c.cycle);
  }
  return cycles;
}
std::vector<uint64_t> ArCycles(const Trace& t) {
  return Cycles(t, [](const ProgramCycle& c) { return c.axi.ar_valid; });
}
std::vector<uint64_t> AwCycles(const Trace& t) {
  return Cycles(t, [](const ProgramCycle& c) { return c.axi.aw_valid; });
}
std::vector<uint64_t> WCycles(const Trace& t) {
  return Cycles(t, [](const ProgramCycle& c) { return c.axi.w_valid; });
}
std::vector<uint64_t> StepCycles(const Trace& t) {
  return Cycles(t, [](const ProgramCycle& c) { return c.dma_sram.valid; });
}
std::vector<uint64_t> Range(uint64_t first, uint64_t last) {
  std::vector<uint64_t> v;
  for (uint64_t c = first; c <= last; ++c) v.push_back(c);
  return v;
}
std::vector<uint64_t> Concat(std::vector<uint64_t> a, const std::vector<uint64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Descriptor Dma(Op op, uint32_t sram, uint32_t count0, uint32_t sram_base, uint32_t ext_addr,
               Header flags = {}, bool out_int32 = false) {
  DmaFields f;
  f.sram = sram;
  f.count0 = count0;
  f.sram_base = sram_base;
  f.ext_addr = ext_addr;
  f.out_int32 = out_int32;
  return golden::EncodeDma(op, f, flags);
}

Descriptor Gemm(uint32_t m, uint32_t n, uint32_t k, Header flags = {}, uint32_t out_base = 0) {
  GemmFields f;
  f.m = m;
  f.n = n;
  f.k = k;
  f.out_base = out_base;
  f.shift = uint32_t(-8) & 0xFF;
  return golden::EncodeGemm(f, flags);
}

Images Filled(const arch::ArchConfig& config, uint32_t seed) {
  Images images(config, kExtBytes);
  uint32_t x = seed;
  auto next = [&x] {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    return uint8_t(x);
  };
  for (uint64_t i = 0; i < images.ext.size(); ++i) images.ext[i] = next();
  for (auto* image : {&images.a, &images.b, &images.bias, &images.out}) {
    for (uint8_t& byte : *image) byte = next();
  }
  return images;
}

// ---- LOAD ------------------------------------------------------------------------------------

// U = D = 8 (A words of 8 rows, 8-byte beats), 4 contiguous units: one burst of 4 beats.
// Fetch: 8 beats, AR 1, beats 21..28, push 29, start s = 30. LOAD AR at 30 (0x2000, 4 beats),
// beats max(30 + 20, 28 + 1) = 50..53, one step per beat from the cycle after it: 51..54.
// e = 54 = retirement; quiet at 55: PERF_CYCLES 56.
TEST(ProgramTiming, LoadUnitEqualToTheBeat) {
  const arch::ArchConfig config = PortConfig(8, 4);
  const Images in = Filled(config, 1);
  const ModelOutcome o = RunTwice(config, in, {Dma(Op::kLoad, 1, 4, 10, 0x2000)});
  EXPECT_EQ(o.result.error, ProgramError::kNone);
  EXPECT_EQ(o.result.retired, 1u);
  EXPECT_EQ(o.result.perf.cycles, 56u);
  EXPECT_EQ(ArCycles(o.trace), (std::vector<uint64_t>{1, 30}));
  EXPECT_EQ(o.trace[1].axi.ar_addr, kQBase);
  EXPECT_EQ(o.trace[1].axi.ar_len, 7);
  EXPECT_EQ(o.trace[30].axi.ar_addr, 0x2000u);
  EXPECT_EQ(o.trace[30].axi.ar_len, 3);
  EXPECT_EQ(StepCycles(o.trace), Range(51, 54));
  for (int u = 0; u < 4; ++u) {
    const DmaSramAccess& a = o.trace[size_t(51 + u)].dma_sram;
    EXPECT_TRUE(a.write);
    EXPECT_EQ(a.sram, 1);
    EXPECT_EQ(a.word, uint32_t(10 + u));
    EXPECT_EQ(a.offset, 0);
    EXPECT_EQ(a.bytes, 8);
    for (int j = 0; j < 8; ++j) {
      EXPECT_EQ(a.data[size_t(j)], in.ext[size_t(0x2000 + 8 * u + j)]);
      EXPECT_EQ(o.images.a[size_t(8 * (10 + u) + j)], in.ext[size_t(0x2000 + 8 * u + j)]);
    }
  }
  EXPECT_TRUE(o.trace[30].dma_start.valid);
  EXPECT_EQ(o.trace[29].dma_queue, 0);
  EXPECT_EQ(o.trace[30].dma_queue, 1);
  EXPECT_TRUE(o.trace[54].dma_retire.valid);
  EXPECT_EQ(o.trace[55].dma_queue, 0);
  EXPECT_EQ(o.trace[55].retired, 1u);
  EXPECT_EQ(o.result.perf.dma_busy, 25u);  // 30..54
  EXPECT_EQ(o.result.perf.rd_beats, 12u);
  EXPECT_EQ(o.result.perf.compute_busy, 0u);
}

// U = 8 < D = 16: three A units from 0x2008 span beats 0x200 and 0x201 (one burst of 2 beats at
// 0x2000). Start 26, AR 26, beats 46, 47. Step 0 (unit at byte 8 of beat 0) at 47, step 1 (byte 0
// of beat 1, which came at 47) at 48, step 2 at 49 = e; quiet 50, PERF_CYCLES 51.
TEST(ProgramTiming, LoadUnitBelowTheBeat) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 2);
  const ModelOutcome o = RunTwice(config, in, {Dma(Op::kLoad, 1, 3, 0, 0x2008)});
  EXPECT_EQ(o.result.perf.cycles, 51u);
  EXPECT_EQ(ArCycles(o.trace), (std::vector<uint64_t>{1, 26}));
  EXPECT_EQ(o.trace[26].axi.ar_addr, 0x2000u);
  EXPECT_EQ(o.trace[26].axi.ar_len, 1);
  EXPECT_EQ(StepCycles(o.trace), Range(47, 49));
  for (int u = 0; u < 3; ++u) {
    EXPECT_EQ(o.trace[size_t(47 + u)].dma_sram.word, uint32_t(u));
    for (int j = 0; j < 8; ++j) {
      EXPECT_EQ(o.images.a[size_t(8 * u + j)], in.ext[size_t(0x2008 + 8 * u + j)]);
    }
  }
  EXPECT_EQ(o.result.perf.dma_busy, 24u);  // 26..49
}

// U = 64 (an rq word of 8 lanes) > D = 16: five units from 0x1F80 are 20 beats, cut at the 4 KiB
// boundary 0x2000: bursts of 8 (0x1F80) and 12 (0x2000), issued at 26 and 27 (one per cycle;
// credit 64 >= 8, then 56 >= 12). Beats 46..53, then max(27 + 20, 53 + 1) = 54..65. Steps one
// beat each, from the cycle after: 47..66 = e; quiet 67, PERF_CYCLES 68. The shift words keep
// bits [7:0], their other bytes 0.
TEST(ProgramTiming, LoadUnitAboveTheBeatCutAt4KiB) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 3);
  const ModelOutcome o = RunTwice(config, in, {Dma(Op::kLoad, 4, 5, 2, 0x1F80)}, 0x4000);
  EXPECT_EQ(o.result.perf.cycles, 68u);
  EXPECT_EQ(ArCycles(o.trace), (std::vector<uint64_t>{1, 26, 27}));
  EXPECT_EQ(o.trace[26].axi.ar_addr, 0x1F80u);
  EXPECT_EQ(o.trace[26].axi.ar_len, 7);
  EXPECT_EQ(o.trace[27].axi.ar_addr, 0x2000u);
  EXPECT_EQ(o.trace[27].axi.ar_len, 11);
  EXPECT_EQ(StepCycles(o.trace), Range(47, 66));
  EXPECT_EQ(o.trace[47].dma_sram.word, 2u);
  EXPECT_EQ(o.trace[47].dma_sram.offset, 0);
  EXPECT_EQ(o.trace[50].dma_sram.offset, 48);  // the fourth 16-byte slice of rq word 2
  EXPECT_EQ(o.trace[51].dma_sram.word, 3u);
  for (size_t byte = 0; byte < 5 * 64; ++byte) {
    const uint8_t ext = in.ext[0x1F80 + byte];
    const size_t in_lane = byte % 8;
    const uint8_t want = in_lane <= 4 ? ext : uint8_t(0);
    ASSERT_EQ(o.images.rq[2 * 64 + byte], want) << byte;
  }
}

// The read buffer's credit (16 * MaxOutstanding = 16 beats with MaxOutstanding 1): 80 B units
// (U = 8, D = 16) from 0x3000 are 40 beats, bursts of 16, 16, 8. Burst 1 at 26, beats 46..61;
// steps k = 0..79 (two per beat): 47..78; a beat's credit returns with its second step (end of
// 48, 50, .., 78). Burst 2 needs 16 credits: the end of 78, so at 79; beats 99..114, steps
// 100..131. Burst 3 (8 beats) needs 8 credits (end of 101 + 14 = 115) and no burst in flight
// (the last beat of burst 2 at 114): at 116; beats 136..143, steps 137..152 = e. PERF 154.
TEST(ProgramTiming, LoadWaitsForReadBufferCredit) {
  const arch::ArchConfig config = PortConfig(16, 1);
  const Images in = Filled(config, 4);
  const ModelOutcome o = RunTwice(config, in, {Dma(Op::kLoad, 2, 80, 100, 0x3000)});
  EXPECT_EQ(ArCycles(o.trace), (std::vector<uint64_t>{1, 26, 79, 116}));
  EXPECT_EQ(StepCycles(o.trace), Concat(Concat(Range(47, 78), Range(100, 131)), Range(137, 152)));
  EXPECT_EQ(o.result.perf.cycles, 154u);
  for (size_t byte = 0; byte < 640; ++byte) {
    ASSERT_EQ(o.images.b[100 * 8 + byte], in.ext[0x3000 + byte]) << byte;
  }
}

// ---- STORE -----------------------------------------------------------------------------------

// U = 64 (rq word) > D = 16: one unit is 4 beats, one burst. Start 26: reads (steps) at 26..29,
// the address with the first (26); each beat is complete a cycle after its read and enters the
// buffer at the end of that cycle: w_valid at 28..31, each accepted at once (Iv 1, address at 26);
// the response of the last beat at 31 + 20 = 51 = e. Quiet 52, PERF_CYCLES 53. The shift words
// go out sign-extended from bit 7.
TEST(ProgramTiming, StoreUnitAboveTheBeat) {
  const arch::ArchConfig config = PortConfig(16, 4);
  Images in = Filled(config, 5);
  for (size_t lane = 0; lane < size_t(config.rq_depth) * 8; ++lane) {
    in.rq[lane * 8 + 4] = uint8_t(lane * 37 % 256);  // 8-bit shifts, half of them negative
    for (int b = 5; b < 8; ++b) in.rq[lane * 8 + size_t(b)] = 0;
  }
  const ModelOutcome o = RunTwice(config, in, {Dma(Op::kStore, 4, 1, 3, 0x5000)});
  EXPECT_EQ(o.result.error, ProgramError::kNone);
  EXPECT_EQ(o.result.perf.cycles, 53u);
  EXPECT_EQ(StepCycles(o.trace), Range(26, 29));
  EXPECT_FALSE(o.trace[26].dma_sram.write);
  EXPECT_EQ(AwCycles(o.trace), (std::vector<uint64_t>{26}));
  EXPECT_EQ(o.trace[26].axi.aw_addr, 0x5000u);
  EXPECT_EQ(o.trace[26].axi.aw_len, 3);
  EXPECT_EQ(WCycles(o.trace), Range(28, 31));
  EXPECT_TRUE(o.trace[31].axi.w_last);
  EXPECT_FALSE(o.trace[30].axi.w_last);
  EXPECT_TRUE(o.trace[51].dma_retire.valid);
  EXPECT_EQ(o.result.perf.wr_beats, 4u);
  EXPECT_EQ(o.result.perf.dma_busy, 26u);  // 26..51
  for (size_t byte = 0; byte < 64; ++byte) {
    const size_t lane_byte = byte % 8;
    const uint8_t shift = in.rq[3 * 64 + byte - lane_byte + 4];
    uint8_t want = in.rq[3 * 64 + byte];
    if (lane_byte == 4) want = shift;
    if (lane_byte > 4) want = (shift & 0x80) ? 0xFF : 0x00;
    ASSERT_EQ(o.images.ext[0x5000 + byte], want) << byte;
  }
}

// U = 8 (out int8 entries, C = 8) < D = 16: entries 5..7 to 0x3008: beat 0x300 holds entry 5 in
// its upper half, beat 0x301 entries 6 and 7. Reads at 26 (the first step: address 0x3000 of 2
// beats), 27, 28; beat 0 complete (its last step) at 27 -> w_valid 28 with strb 0xFF00; beat 1 at
// 29 -> w_valid 30. Response 30 + 20 = 50 = e; PERF_CYCLES 52. Bytes 0x3000..7 keep their value.
TEST(ProgramTiming, StoreUnitBelowTheBeatSendsItsStrobes) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 6);
  const ModelOutcome o = RunTwice(config, in, {Dma(Op::kStore, 5, 3, 5, 0x3008)});
  EXPECT_EQ(o.result.perf.cycles, 52u);
  EXPECT_EQ(StepCycles(o.trace), Range(26, 28));
  EXPECT_EQ(AwCycles(o.trace), (std::vector<uint64_t>{26}));
  EXPECT_EQ(o.trace[26].axi.aw_addr, 0x3000u);
  EXPECT_EQ(o.trace[26].axi.aw_len, 1);
  EXPECT_EQ(WCycles(o.trace), (std::vector<uint64_t>{28, 30}));
  EXPECT_EQ(o.trace[28].axi.w_strb, 0xFF00u);
  EXPECT_EQ(o.trace[30].axi.w_strb, 0xFFFFu);
  EXPECT_EQ(o.trace[28].axi.w_data[0], 0);  // bytes outside the strobe are 0
  // Entry 5 is word 1, bytes 8..15 of its 32.
  EXPECT_EQ(o.trace[26].dma_sram.word, 1u);
  EXPECT_EQ(o.trace[26].dma_sram.offset, 8);
  for (size_t byte = 0; byte < 8; ++byte)
    EXPECT_EQ(o.images.ext[0x3000 + byte], in.ext[0x3000 + byte]);
  for (size_t byte = 0; byte < 24; ++byte) {
    EXPECT_EQ(o.images.ext[0x3008 + byte], in.out[5 * 8 + byte]) << byte;
  }
}

// ---- MOVE and GEMM ---------------------------------------------------------------------------

// MOVE into A, one tile of 8 words from entries 8..15 (output words 2, 3): start 26, reads 26, 27,
// writes of A words 20..27 at 29..36 (R/4 + 1 = 3 cycles after the tile's start) = e; quiet 37,
// PERF_CYCLES 38. A word 20 + j lane r = entry 8 + r lane j.
TEST(ProgramTiming, MoveIntoA) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 7);
  MoveFields f;
  f.dst = 1;
  f.count0 = 8;
  f.src_base = 8;
  f.dst_base = 20;
  const ModelOutcome o = RunTwice(config, in, {golden::EncodeMove(f, {})});
  EXPECT_EQ(o.result.perf.cycles, 38u);
  EXPECT_EQ(Cycles(o.trace, [](const ProgramCycle& c) { return c.move_read.valid; }),
            (std::vector<uint64_t>{26, 27}));
  EXPECT_EQ(o.trace[26].move_read.word, 2u);
  EXPECT_EQ(o.trace[27].move_read.word, 3u);
  EXPECT_EQ(Cycles(o.trace, [](const ProgramCycle& c) { return c.move_write.valid; }),
            Range(29, 36));
  for (int j = 0; j < 8; ++j) {
    const MoveWrite& w = o.trace[size_t(29 + j)].move_write;
    EXPECT_EQ(w.sram, 1);
    EXPECT_EQ(w.word, uint32_t(20 + j));
    for (int r = 0; r < 8; ++r) {
      EXPECT_EQ(w.data[size_t(r)], in.out[size_t((8 + r) * 8 + j)]);
      EXPECT_EQ(o.images.a[size_t((20 + j) * 8 + r)], in.out[size_t((8 + r) * 8 + j)]);
    }
  }
  EXPECT_EQ(o.result.perf.compute_busy, 11u);
}

// MOVE into B, COUNT0 3, two tiles (entries 0.. and 8..; B words 40.. and 43..): period
// 2 + 1 + 3 = 6. Tile 0: reads 26, 27, writes 29..31; tile 1 at 32: reads 32, 33, writes 35..37 =
// e. PERF_CYCLES 39. B word 40 + j = entry j; B word 43 + j = entry 8 + j.
TEST(ProgramTiming, MoveIntoB) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 8);
  MoveFields f;
  f.dst = 2;
  f.count0 = 3;
  f.count1 = 2;
  f.src_stride1 = 8;
  f.dst_base = 40;
  f.dst_stride1 = 3;
  const ModelOutcome o = RunTwice(config, in, {golden::EncodeMove(f, {})});
  EXPECT_EQ(o.result.perf.cycles, 39u);
  EXPECT_EQ(Cycles(o.trace, [](const ProgramCycle& c) { return c.move_read.valid; }),
            (std::vector<uint64_t>{26, 27, 32, 33}));
  EXPECT_EQ(Cycles(o.trace, [](const ProgramCycle& c) { return c.move_write.valid; }),
            (std::vector<uint64_t>{29, 30, 31, 35, 36, 37}));
  for (int j = 0; j < 3; ++j) {
    for (int c = 0; c < 8; ++c) {
      EXPECT_EQ(o.images.b[size_t((40 + j) * 8 + c)], in.out[size_t(j * 8 + c)]);
      EXPECT_EQ(o.images.b[size_t((43 + j) * 8 + c)], in.out[size_t((8 + j) * 8 + c)]);
    }
  }
}

// ---- ELTWISE (lut.md 10.5) ---------------------------------------------------------------------

// The bytes of source word `w` run through golden's code and lookup (the oracle), in the layout of
// 10.6: one out word of int8 results, or two of int16.
std::vector<uint8_t> EltwiseWords(const golden::EltwiseFields& f, const Images& in, int cols,
                                  uint32_t w) {
  const size_t word = 4 * size_t(cols);
  const golden::AddParams add = f.has_add() ? golden::EltwiseAddParams(f) : golden::AddParams{};
  const bool int16 = f.has_lookup() && f.lut.entry_bits == 16;
  std::vector<uint8_t> out(int16 ? 2 * word : word);
  for (size_t i = 0; i < word; ++i) {
    const int32_t code = golden::EltwiseCode(f, add, in.out[(f.src_a + w) * word + i],
                                             in.out[(f.src_b + w) * word + i]);
    const uint32_t v = f.has_lookup() ? golden::LutRead(in.lut, f.lut, code) : uint32_t(code);
    if (!int16) {
      out[i] = uint8_t(v);
      continue;
    }
    const size_t row = i / size_t(cols), lane = i % size_t(cols);
    const size_t at = (row / 2) * word + 2 * ((row % 2) * size_t(cols) + lane);
    out[at] = uint8_t(v), out[at + 1] = uint8_t(v >> 8);
  }
  return out;
}

Images WithTables(Images images, uint32_t seed) {
  for (uint8_t& byte : images.lut) {
    seed = seed * 1103515245u + 12345u;
    byte = uint8_t(seed >> 16);
  }
  return images;
}

// ADD_LUT of 2 words, 16-bit entries (int16 output: 4 words). Started at s = 26: a read at s, b at
// s + 1 for each word (26, 27, 30, 31); the result words at s + 9, s + 11 for word 0 and
// s + 13, s + 15 for word 1 (35, 37, 39, 41 = e = s + 4 COUNT + 7); PERF_CYCLES e + 2 = 43.
TEST(ProgramTiming, EltwiseAddLutInt16) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = WithTables(Filled(config, 9), 9);
  golden::EltwiseFields f;
  f.op = uint32_t(golden::EltwiseOp::kAddLut);
  f.count = 2;
  f.src_a = 10, f.src_b = 20, f.dst = 30;
  f.lut = {3, 7, 16};
  f.form = golden::kEltwiseFormSeed;
  f.mult_a = 90, f.mult_b = 45, f.rshift = 6, f.rounding = 1;
  const ModelOutcome o = RunTwice(config, in, {golden::EncodeEltwise(f, {})});
  EXPECT_EQ(o.result.perf.cycles, 43u);
  EXPECT_EQ(o.result.perf.compute_busy, 16u);
  EXPECT_EQ(Cycles(o.trace, [](const ProgramCycle& c) { return c.out_access.read; }),
            (std::vector<uint64_t>{26, 27, 30, 31}));
  EXPECT_EQ(o.trace[27].out_access.raddr, 20u);
  EXPECT_EQ(o.trace[30].out_access.raddr, 11u);
  EXPECT_EQ(Cycles(o.trace, [](const ProgramCycle& c) { return c.out_access.write; }),
            (std::vector<uint64_t>{35, 37, 39, 41}));
  const size_t word = 32;
  for (uint32_t w = 0; w < 2; ++w) {
    const std::vector<uint8_t> want = EltwiseWords(f, in, 8, w);
    for (uint32_t h = 0; h < 2; ++h) {
      const OutAccess& a = o.trace[size_t(35 + 4 * w + 2 * h)].out_access;
      EXPECT_EQ(a.waddr, 30 + 2 * w + h);
      for (size_t b = 0; b < word; ++b) {
        EXPECT_EQ(a.data[b], want[h * word + b]) << w << " " << h << " " << b;
        EXPECT_EQ(o.images.out[(30 + 2 * w + h) * word + b], want[h * word + b]);
      }
    }
  }
}

// LUT in place over 2 words (int8 output): reads 26 and 30 only, writes at s + 11 and s + 15 (37,
// 41 = e), each word read 11 cycles before it is written.
TEST(ProgramTiming, EltwiseLutInPlace) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = WithTables(Filled(config, 10), 10);
  golden::EltwiseFields f;
  f.op = uint32_t(golden::EltwiseOp::kLut);
  f.count = 2;
  f.src_a = f.dst = 5;
  f.src_b = 900;  // not read without an add
  f.lut = {0, 5, 8};
  const ModelOutcome o = RunTwice(config, in, {golden::EncodeEltwise(f, {})});
  EXPECT_EQ(o.result.perf.cycles, 43u);
  EXPECT_EQ(Cycles(o.trace, [](const ProgramCycle& c) { return c.out_access.read; }),
            (std::vector<uint64_t>{26, 30}));
  EXPECT_EQ(Cycles(o.trace, [](const ProgramCycle& c) { return c.out_access.write; }),
            (std::vector<uint64_t>{37, 41}));
  for (uint32_t w = 0; w < 2; ++w) {
    const std::vector<uint8_t> want = EltwiseWords(f, in, 8, w);
    for (size_t b = 0; b < 32; ++b) EXPECT_EQ(o.images.out[(5 + w) * 32 + b], want[b]);
  }
}

// GEMM 8 x 8 x 8 on 8 x 8: E = K + R + C + 8 = 32 (architecture.md 7); started at 26 it completes
// at 26 + 32 - 1 = 57; quiet 58, PERF_CYCLES 59. mon_cmd shows it from its start cycle.
TEST(ProgramTiming, GemmCompletesAtStartPlusEMinusOne) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 9);
  arch::Command initial;
  initial.m = 77;
  Images images = in;
  const Descriptor gemm = Gemm(5, 8, 8);
  PutProgram({gemm}, kQBase, images.ext);
  std::vector<ProgramCycle> trace;
  ExtMemory memory(kExtBytes, {16, 20, 1});
  memory.image() = images.ext;
  Srams srams(config);
  ProgramRunOptions options;
  options.initial_cmd = initial;
  options.observer = [&trace](const ProgramCycle& c) { trace.push_back(c); };
  const ProgramRunResult r = RunProgram(config, memory, srams, kQBase, 1, options);
  EXPECT_EQ(r.perf.cycles, 59u);
  EXPECT_EQ(r.perf.compute_busy, 32u);
  EXPECT_EQ(r.perf.Busy(arch::BeatUnit::kMac), 8u);
  EXPECT_EQ(r.perf.Busy(arch::BeatUnit::kRequant), 8u);
  EXPECT_EQ(r.perf.out_writes, 5u);  // NB * M
  EXPECT_EQ(r.perf.feed_stall, 0u);
  ASSERT_EQ(trace.size(), 59u);
  EXPECT_TRUE(trace[26].gemm_start.valid);
  EXPECT_EQ(trace[26].gemm_start.command.m, 5u);
  EXPECT_EQ(trace[25].mon_cmd.m, 77u);
  EXPECT_EQ(trace[26].mon_cmd.m, 5u);
  EXPECT_EQ(trace[58].mon_cmd.k, 8u);
  EXPECT_TRUE(trace[57].compute_retire.valid);
  EXPECT_EQ(Cycles(trace, [](const ProgramCycle& c) { return c.compute_retire.valid; }),
            (std::vector<uint64_t>{57}));
}

// ---- Tokens and the queue --------------------------------------------------------------------

// LOAD (SIGNAL) then GEMM (WAIT). Fetch 0: AR 1, push 25; the LOAD starts at 26, but the fetcher
// issues descriptor 1 at 26 and wins the read address channel: the LOAD's AR is at 27. Fetch 1:
// beats 46..49, push 50. The LOAD's beat: max(27 + 20, 49 + 1) = 50, its write 51 = e; d2c is 0
// < 15: it retires at 51 and gives its token (d2c 1 from 52). The GEMM waits at 51 (pushed before,
// WAIT at 0), starts at 52 and takes the token (d2c 0 from 53); e = 52 + 31 = 83; PERF_CYCLES 85.
TEST(ProgramTiming, WaitSignalHandoff) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 10);
  const ModelOutcome o = RunTwice(
      config, in, {Dma(Op::kLoad, 1, 1, 0, 0x2000, {0, false, true}), Gemm(8, 8, 8, {0, true})});
  EXPECT_EQ(o.result.error, ProgramError::kNone);
  EXPECT_EQ(o.result.perf.cycles, 85u);
  EXPECT_EQ(ArCycles(o.trace), (std::vector<uint64_t>{1, 26, 27}));
  EXPECT_EQ(o.trace[26].axi.ar_addr, kQBase + 64);
  EXPECT_EQ(StepCycles(o.trace), (std::vector<uint64_t>{51}));
  EXPECT_TRUE(o.trace[51].dma_retire.valid);
  EXPECT_EQ(o.trace[51].d2c, 0);
  EXPECT_EQ(o.trace[52].d2c, 1);
  EXPECT_TRUE(o.trace[52].compute_start.valid);
  EXPECT_EQ(o.trace[52].compute_start.index, 1u);
  EXPECT_EQ(o.trace[53].d2c, 0);
  EXPECT_EQ(o.result.perf.compute_wait, 1u);  // cycle 51
  EXPECT_EQ(o.result.perf.dma_busy, 26u);     // 26..51
  EXPECT_EQ(o.result.perf.compute_busy, 32u);
  EXPECT_EQ(o.result.perf.overlap, 0u);
}

// Five GEMMs of E = K + 24 = 1024 (K = 1000). Pushes at 25, 50, 75, 100 (each fetch: AR at the
// cycle after the previous push, 24 cycles to its push); descriptor 4: AR 101, beats 121..124,
// validated at 125 with the compute queue full (GEMM 0 running, 1..3 waiting): held. GEMM 0 runs
// 26..1049 and retires; the queue holds 3 at 1050: the push is at the end of 1050. GEMMs 1..4 start
// at 1050, 2074, 3098, 4122; the last completes at 5145; PERF_CYCLES 5147.
TEST(ProgramTiming, FullQueueStallsTheFetcher) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 11);
  std::vector<Descriptor> program(5, Gemm(8, 8, 1000));
  const ModelOutcome o = RunTwice(config, in, program);
  EXPECT_EQ(o.result.error, ProgramError::kNone);
  EXPECT_EQ(o.result.perf.cycles, 5147u);
  EXPECT_EQ(ArCycles(o.trace), (std::vector<uint64_t>{1, 26, 51, 76, 101}));
  EXPECT_EQ(Cycles(o.trace, [](const ProgramCycle& c) { return c.compute_start.valid; }),
            (std::vector<uint64_t>{26, 1050, 2074, 3098, 4122}));
  EXPECT_EQ(o.trace[101].compute_queue, 4);
  EXPECT_EQ(o.trace[1049].compute_queue, 4);
  EXPECT_EQ(o.trace[1050].compute_queue, 3);
  EXPECT_EQ(o.trace[1051].compute_queue, 4);
  EXPECT_EQ(o.result.perf.compute_busy, 5u * 1024);
}

// Sixteen one-unit LOADs with SIGNAL, a long GEMM, then a GEMM with WAIT. The sixteenth LOAD
// completes with d2c at 15: it waits (PERF_DMA_WAIT) until the WAIT GEMM starts at s and takes a
// token (d2c 14 at s + 1), retires at s + 1 and gives it back (15 at s + 2).
TEST(ProgramTiming, SignalBlockedAtFifteen) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 12);
  std::vector<Descriptor> program;
  for (uint32_t i = 0; i < 16; ++i) {
    program.push_back(Dma(Op::kLoad, 1, 1, i, 0x2000 + 16 * i, {0, false, true}));
  }
  program.push_back(Gemm(8, 8, 1000));
  program.push_back(Gemm(8, 8, 8, {0, true}, 64));
  const ModelOutcome o = RunTwice(config, in, program);
  EXPECT_EQ(o.result.error, ProgramError::kNone);
  EXPECT_EQ(o.result.retired, 18u);
  const std::vector<uint64_t> steps = StepCycles(o.trace);
  ASSERT_EQ(steps.size(), 16u);
  const uint64_t e15 = steps.back();  // the last LOAD's only step is its completion
  const std::vector<uint64_t> starts =
      Cycles(o.trace, [](const ProgramCycle& c) { return c.compute_start.valid; });
  ASSERT_EQ(starts.size(), 2u);
  const uint64_t s = starts[1];
  ASSERT_LT(e15, s);
  EXPECT_EQ(o.trace[e15].d2c, 15);
  EXPECT_FALSE(o.trace[e15].dma_retire.valid);
  EXPECT_EQ(o.trace[s].d2c, 15);
  EXPECT_EQ(o.trace[s + 1].d2c, 14);
  EXPECT_EQ(Cycles(o.trace, [](const ProgramCycle& c) { return c.dma_retire.valid; }).back(),
            s + 1);
  EXPECT_EQ(o.trace[s + 2].d2c, 15);
  EXPECT_EQ(o.result.perf.dma_wait, s + 1 - e15);  // e15 .. s
}

// ---- Errors ----------------------------------------------------------------------------------

// One GEMM with WAIT and nobody to signal: pushed at 25, it waits at 26, where nothing else can
// happen: quiet at 26, PERF_CYCLES 27, DEADLOCK at index 0.
TEST(ProgramTiming, DeadlockOfALoneWait) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const ModelOutcome o = RunTwice(config, Filled(config, 13), {Gemm(8, 8, 8, {0, true})});
  EXPECT_EQ(o.result.error, ProgramError::kDeadlock);
  EXPECT_EQ(o.result.error_index, 0);
  EXPECT_EQ(o.result.retired, 0u);
  EXPECT_EQ(o.result.perf.cycles, 27u);
  EXPECT_EQ(o.result.perf.compute_wait, 1u);
}

// LOAD (no SIGNAL), GEMM (WAIT): the LOAD runs as in WaitSignalHandoff and retires at 51; the GEMM
// waits from 51; at 52 nothing can progress: PERF_CYCLES 53, DEADLOCK at index 1 (the head).
TEST(ProgramTiming, DeadlockIndexIsTheLowestHead) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const ModelOutcome o = RunTwice(config, Filled(config, 14),
                                  {Dma(Op::kLoad, 1, 1, 0, 0x2000), Gemm(8, 8, 8, {0, true})});
  EXPECT_EQ(o.result.error, ProgramError::kDeadlock);
  EXPECT_EQ(o.result.error_index, 1);
  EXPECT_EQ(o.result.retired, 1u);
  EXPECT_EQ(o.result.perf.cycles, 53u);
  EXPECT_EQ(o.result.perf.compute_wait, 2u);  // 51, 52
}

// LOAD, a reserved opcode, GEMM. Descriptor 1 (AR 26, beats 46..49) fails at 50: BAD_OPCODE at
// index 1, the fetcher stops (no third fetch). The LOAD completes at 51 (as above); quiet at 52:
// PERF_CYCLES 53, retired 1.
TEST(ProgramTiming, ValidationErrorMidProgram) {
  const arch::ArchConfig config = PortConfig(16, 4);
  Descriptor bad{};
  bad[15] = 7;
  const ModelOutcome o =
      RunTwice(config, Filled(config, 15), {Dma(Op::kLoad, 1, 1, 0, 0x2000), bad, Gemm(8, 8, 8)});
  EXPECT_EQ(o.result.error, ProgramError::kBadOpcode);
  EXPECT_EQ(o.result.error_index, 1);
  EXPECT_EQ(o.result.retired, 1u);
  EXPECT_EQ(o.result.perf.cycles, 53u);
  EXPECT_EQ(ArCycles(o.trace), (std::vector<uint64_t>{1, 26, 27}));
}

// Q_COUNT = 0: BAD_SHAPE at index 0 in the launch cycle, PERF_CYCLES 1, no memory traffic.
TEST(ProgramTiming, EmptyProgramIsBadShape) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const ModelOutcome o = RunTwice(config, Filled(config, 16), {});
  EXPECT_EQ(o.result.error, ProgramError::kBadShape);
  EXPECT_EQ(o.result.error_index, 0);
  EXPECT_EQ(o.result.perf.cycles, 1u);
  EXPECT_EQ(o.result.perf.rd_beats, 0u);
}

// GEMM (K = 100: E = 124, runs 26..149), a LOAD from beyond the memory, a GEMM. Descriptor 1:
// AR 26, push 50, start 51; the fetcher issues descriptor 2 at 51 (it wins): the LOAD's AR at 52,
// its beat (SLVERR) at max(52 + 20, 74 + 1) = 75 after descriptor 2's beats 71..74; recorded at
// the end of 75. Descriptor 2 is pushed at the end of 75 (its validation cycle), but from 76
// nothing starts: GEMM 0 completes (149) and retires, GEMM 2 never starts. The LOAD runs up to
// and including 76, the first stopped cycle at whose start no burst of it is in flight (17.7).
// Quiet at 150: PERF_CYCLES 151, EXT_FAULT at index 1, retired 1.
TEST(ProgramTiming, ExtFaultOnALoad) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const ModelOutcome o =
      RunTwice(config, Filled(config, 17),
               {Gemm(8, 8, 100), Dma(Op::kLoad, 1, 1, 0, kExtBytes), Gemm(8, 8, 8)});
  EXPECT_EQ(o.result.error, ProgramError::kExtFault);
  EXPECT_EQ(o.result.error_index, 1);
  EXPECT_EQ(o.result.retired, 1u);
  EXPECT_EQ(o.result.perf.cycles, 151u);
  EXPECT_EQ(ArCycles(o.trace), (std::vector<uint64_t>{1, 26, 51, 52}));
  EXPECT_EQ(o.trace[76].compute_queue, 2);
  EXPECT_EQ(Cycles(o.trace, [](const ProgramCycle& c) { return c.compute_start.valid; }),
            (std::vector<uint64_t>{26}));
  EXPECT_EQ(o.result.perf.dma_busy, 26u);  // 51..76: its burst in flight, then the drained cycle
}

// A STORE of 3 rows of 32 B units (U = 8 < D = 16: 16 beats, one burst per row) beyond the memory.
// Reads two per beat: row 0 at 26..57 (address at 26), row 1 at 58..89 (address at 58). Row 0's
// beats go at 29, 31, .., 59, its response (SLVERR) at 79: recorded, stopped from 80. The reader
// is inside row 1's burst: it finishes it (to 89) and stops, no third address. Row 1's beats at
// 61, .., 91, its response at 111; the STORE runs in 112 too (the first stopped cycle at whose start
// nothing awaits a response, 17.7): quiet 113, PERF_CYCLES 114, EXT_FAULT at index 0.
TEST(ProgramTiming, ExtFaultOnAStoreDrainsItsOpenBurst) {
  const arch::ArchConfig config = PortConfig(16, 4);
  DmaFields f;
  f.sram = 2;
  f.count0 = 32;
  f.count1 = 3;
  f.sram_stride1 = 32;
  f.ext_addr = kExtBytes;
  f.ext_stride1 = 0x1000;
  const ModelOutcome o =
      RunTwice(config, Filled(config, 18), {golden::EncodeDma(Op::kStore, f, {})});
  EXPECT_EQ(o.result.error, ProgramError::kExtFault);
  EXPECT_EQ(o.result.error_index, 0);
  EXPECT_EQ(o.result.retired, 0u);
  EXPECT_EQ(o.result.perf.cycles, 114u);
  EXPECT_EQ(o.result.perf.dma_busy, 87u);  // 26..112
  EXPECT_EQ(AwCycles(o.trace), (std::vector<uint64_t>{26, 58}));
  EXPECT_EQ(StepCycles(o.trace), Range(26, 89));
  EXPECT_EQ(o.result.perf.wr_beats, 32u);
  EXPECT_EQ(WCycles(o.trace).back(), 91u);
}

// A descriptor beyond the memory: the program's last 64 bytes of memory hold a GEMM (descriptor
// 0), descriptor 1 is past the end. Fetch 1: AR 26, SLVERR beats 46..49, EXT_FAULT recorded at 50
// with index 1. The GEMM (26..57) completes and retires: quiet 58, PERF_CYCLES 59.
TEST(ProgramTiming, ExtFaultOnADescriptorFetch) {
  const arch::ArchConfig config = PortConfig(16, 4);
  Images images = Filled(config, 19);
  const uint32_t q_base = uint32_t(kExtBytes) - 64;
  PutProgram({Gemm(8, 8, 8)}, q_base, images.ext);
  const ModelOutcome o = RunModel(config, images, q_base, 2, 20, 1, false, true);
  const ModelOutcome fast = RunModel(config, images, q_base, 2, 20, 1, true);
  EXPECT_TRUE(o.result.perf == fast.result.perf);
  EXPECT_EQ(o.result.error, ProgramError::kExtFault);
  EXPECT_EQ(o.result.error_index, 1);
  EXPECT_EQ(o.result.retired, 1u);
  EXPECT_EQ(o.result.perf.cycles, 59u);
}

// ---- SRAM port priority (17.6) ---------------------------------------------------------------

// MOVE into B (8 tiles of period 2 + 1 + 8 = 11 from 26: out reads at 26 + 11j, 27 + 11j; e = 113)
// and a STORE of 8 out int32 units (U = 32: 16 steps, one burst at 0x6000) starting at 51 (fetch 1
// pushed at 50). Steps at 51..58; the MOVE reads the out SRAM at 59 and 60 (tile 3): the step
// waits (PERF_PORT_STALL 2); steps 8..15 at 61..68. Beats at 53..60 and 63..70; response at 90.
// The MOVE ends at 113: quiet 114, PERF_CYCLES 115.
TEST(ProgramTiming, StoreFromOutWaitsForTheMoveRead) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 20);
  MoveFields mv;
  mv.dst = 2;
  mv.count0 = 8;
  mv.count1 = 8;
  mv.src_stride1 = 8;
  mv.dst_stride1 = 8;
  const ModelOutcome o = RunTwice(
      config, in,
      {golden::EncodeMove(mv, {}), Dma(Op::kStore, 5, 8, 1000, 0x6000, {}, /*out_int32=*/true)});
  EXPECT_EQ(o.result.error, ProgramError::kNone);
  EXPECT_EQ(StepCycles(o.trace), Concat(Range(51, 58), Range(61, 68)));
  EXPECT_EQ(o.result.perf.port_stall, 2u);
  EXPECT_EQ(WCycles(o.trace), Concat(Range(53, 60), Range(63, 70)));
  EXPECT_TRUE(o.trace[90].dma_retire.valid);
  EXPECT_EQ(o.result.perf.cycles, 115u);
  EXPECT_EQ(o.result.perf.overlap, 40u);  // 51..90
  for (size_t byte = 0; byte < 256; ++byte) {
    ASSERT_EQ(o.images.ext[0x6000 + byte], in.out[1000 * 32 + byte]) << byte;
  }
}

// MOVE into A (8 tiles from 26, period 11: A writes at 29 + 11j .. 36 + 11j; e = 113) and a LOAD
// of 16 A units (U = 8, D = 16: 8 beats at 0x2000) into words 100..115, started at 51: AR 51,
// beats 71..78. Steps (two per beat, each after its beat) where the A write port is free:
// 72 (tile 4's gap), 73..80 taken -> 81, 82, 83; 84..91 taken -> 92, 93, 94; 95..102 taken -> 103,
// 104, 105; 106..113 taken -> 114..118... that is steps at 72, 81..83, 92..94, 103..105,
// 114..119: e = 119, PERF_PORT_STALL 4 x 8 = 32. Quiet 120, PERF_CYCLES 121.
TEST(ProgramTiming, LoadIntoAWaitsForTheMoveWrites) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 21);
  MoveFields mv;
  mv.dst = 1;
  mv.count0 = 8;
  mv.count1 = 8;
  mv.src_stride1 = 8;
  mv.dst_stride1 = 8;
  const ModelOutcome o =
      RunTwice(config, in, {golden::EncodeMove(mv, {}), Dma(Op::kLoad, 1, 16, 100, 0x2000)});
  EXPECT_EQ(o.result.error, ProgramError::kNone);
  std::vector<uint64_t> want = {72};
  for (uint64_t c : {81, 82, 83, 92, 93, 94, 103, 104, 105}) want.push_back(c);
  want = Concat(want, Range(114, 119));
  EXPECT_EQ(StepCycles(o.trace), want);
  EXPECT_EQ(o.result.perf.port_stall, 32u);
  EXPECT_EQ(o.result.perf.cycles, 121u);
  for (size_t byte = 0; byte < 128; ++byte) {
    ASSERT_EQ(o.images.a[100 * 8 + byte], in.ext[0x2000 + byte]) << byte;
  }
}

// A GEMM M = N = 64, K = 4 with BIAS_EN from 26 (P = 8, T = 64; E = 63 * 8 + 4 + 24 = 532, e =
// 557): A/B reads at 26 + 1 + 8t + k (k < 4), bias reads at 26 + O(t, 0) - 1 = 40 + 8t, out writes
// at 26 + W(t, i) = 46 + 8t + i: every cycle of 46..557. Three DMA commands meet its ports:
// * STORE of 4 B units (U = 8: 4 steps) from 51: B reads at 51..54 (rel 25..28 = 1 + 8*3 + k)
//   -> steps 55..58 (4 stalls); beats at 58, 60; response 80 = e.
// * STORE of 8 bias units (U = 32: 16 steps) from 81 (fetched at 51, pushed 75): bias reads at 88
//   and 96 -> steps 81..87, 89..95, 97, 98 (2 stalls); beats 83..89, 91..97, 99, 100; e = 120.
// * LOAD of one out int8 entry from 121 (pushed at 100): AR 121, beat 141, the out write port is
//   the GEMM's until 557: the step at 558 = e (416 stalls). Quiet 559, PERF_CYCLES 560.
TEST(ProgramTiming, DmaStepsWaitForTheGemmPorts) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 22);
  GemmFields g;
  g.m = g.n = 64;
  g.k = 4;
  g.mode = 8;  // BIAS_EN
  const ModelOutcome o =
      RunTwice(config, in,
               {golden::EncodeGemm(g, {}), Dma(Op::kStore, 2, 4, 0, 0x6000),
                Dma(Op::kStore, 3, 8, 0, 0x7000), Dma(Op::kLoad, 5, 1, 4000, 0x8000)});
  EXPECT_EQ(o.result.error, ProgramError::kNone);
  std::vector<uint64_t> want = Range(55, 58);
  want = Concat(Concat(Concat(want, Range(81, 87)), Range(89, 95)), {97, 98, 558});
  EXPECT_EQ(StepCycles(o.trace), want);
  EXPECT_EQ(WCycles(o.trace),
            Concat(Concat(Concat({58, 60}, Range(83, 89)), Range(91, 97)), {99, 100}));
  EXPECT_EQ(Cycles(o.trace, [](const ProgramCycle& c) { return c.dma_retire.valid; }),
            (std::vector<uint64_t>{80, 120, 558}));
  EXPECT_EQ(o.result.perf.port_stall, 4u + 2 + 416);
  EXPECT_EQ(o.result.perf.cycles, 560u);
  EXPECT_EQ(o.result.perf.compute_busy, 532u);
}

// LOAD (WAIT, from beyond the memory), GEMM (SIGNAL), a reserved opcode. Descriptor 2 (AR 51,
// beats 71..74) fails at 75: BAD_OPCODE at index 2 is recorded first. The GEMM runs 51..82 and
// gives its token (c2d 1 from 83); the LOAD starts at 83, its beat at 103 is an error response:
// EXT_FAULT at index 0, recorded later but of the lower index, is the error. The LOAD runs in 104,
// the first stopped cycle without its burst in flight (17.7): quiet 105, PERF_CYCLES 106, retired 1.
TEST(ProgramTiming, LowerIndexWinsOverAnEarlierError) {
  const arch::ArchConfig config = PortConfig(16, 4);
  Descriptor bad{};
  bad[15] = 9;
  const ModelOutcome o = RunTwice(
      config, Filled(config, 23),
      {Dma(Op::kLoad, 1, 1, 0, kExtBytes, {0, true, false}), Gemm(8, 8, 8, {0, false, true}), bad});
  EXPECT_EQ(o.result.error, ProgramError::kExtFault);
  EXPECT_EQ(o.result.error_index, 0);
  EXPECT_EQ(o.result.retired, 1u);
  EXPECT_EQ(o.result.perf.cycles, 106u);
  EXPECT_EQ(ArCycles(o.trace), (std::vector<uint64_t>{1, 26, 51, 83}));
  EXPECT_TRUE(o.trace[83].dma_start.valid);
  EXPECT_EQ(o.trace[83].c2d, 1);
  // 26..82, and 105: the stopped LOAD stays at the head, its WAIT finds c2d at 0 (17.8: whether or
  // not the engines are stopped).
  EXPECT_EQ(o.result.perf.dma_wait, 58u);
}

// The out write port is the GEMM's only for the rows it writes (i < m_valid). GEMM M = 4, N = 8,
// K = 40 from 26 (E = 64, e = 89): rows 0..3 written at 26 + W(0, i) = 26 + 56 + i = 82..85, the
// slots of rows 4..7 (86..89) free. LOAD of 20 out int8 entries from 51: AR 51, beats 71..80 (two
// units each); steps 72..81, 82..85 taken, steps 10..19 at 86..95 = e. Quiet 96, PERF_CYCLES 97.
TEST(ProgramTiming, LoadIntoOutWaitsOnlyForWrittenRows) {
  const arch::ArchConfig config = PortConfig(16, 4);
  const Images in = Filled(config, 24);
  const ModelOutcome o =
      RunTwice(config, in, {Gemm(4, 8, 40), Dma(Op::kLoad, 5, 20, 1000, 0x2000)});
  EXPECT_EQ(o.result.error, ProgramError::kNone);
  EXPECT_EQ(StepCycles(o.trace), Concat(Range(72, 81), Range(86, 95)));
  EXPECT_EQ(o.result.perf.port_stall, 4u);
  EXPECT_EQ(o.result.perf.cycles, 97u);
  for (size_t byte = 0; byte < 160; ++byte) {
    ASSERT_EQ(o.images.out[1000 * 8 + byte], in.ext[0x2000 + byte]) << byte;
  }
}

}  // namespace
}  // namespace qacc::model::testing
