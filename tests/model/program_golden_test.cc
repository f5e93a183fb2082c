// The cycle-level program engine against the untimed golden executor (golden/program.h), on random
// race-free programs of LOAD, STORE, GEMM and MOVE descriptors with tokens: every SRAM as source
// and destination, strides 0, small and large, units below and above the beat, counts at their
// edges, on every config's memory port and several (latency, interval) pairs. Every memory image,
// the error, its index and the retired count must equal golden's (after EXT_FAULT only the error
// and its index), the memory port must see no protocol violation, and skipping idle cycles must not
// change a cycle. The same program under other latencies leaves the same memories (the Kahn
// property, 14.2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "golden/program.h"
#include "model/program_engine.h"
#include "tests/model/program_test_util.h"

namespace qacc::model::testing {
namespace {

using golden::Descriptor;
using golden::Op;

// External memory of the random programs: a read-write data region, a region of legal rq words
// (LOADs into the rq SRAM read only there, and no STORE writes it: a GEMM's per-channel
// multipliers must stay legal), the program.
constexpr uint32_t kExtBytes = 0x100000;
constexpr uint32_t kDataEnd = 0x40000;
constexpr uint32_t kRqBegin = 0x40000, kRqEnd = 0x48000;
constexpr uint32_t kQBase = 0x80000;

class Generator {
 public:
  Generator(const arch::ArchConfig& config, uint64_t seed) : c_(config), rng_(seed) {}

  int Pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  uint64_t Pick64(uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_);
  }
  bool Chance(int percent) { return Pick(0, 99) < percent; }

  // Random SRAM contents and external memory: every byte random, except the rq lanes (SRAM and
  // the ext rq region): a multiplier in 2^30..2^31-1 and a shift in -31..30 (6 bits, upper bytes
  // 0), as a window write leaves them.
  Images MakeImages() {
    Images im(c_, kExtBytes);
    for (uint64_t i = 0; i < im.ext.size(); ++i) im.ext[i] = uint8_t(rng_());
    for (auto* image : {&im.a, &im.b, &im.bias, &im.out, &im.lut}) {
      for (uint8_t& byte : *image) byte = uint8_t(rng_());
    }
    auto rq_lane = [&](uint8_t* lane) {
      const uint32_t mult = uint32_t(Pick64(uint64_t{1} << 30, (uint64_t{1} << 31) - 1));
      for (int b = 0; b < 4; ++b) lane[b] = uint8_t(mult >> (8 * b));
      lane[4] = uint8_t(Pick(-31, 30) & 0xFF);
      lane[5] = lane[6] = lane[7] = 0;
    };
    for (size_t i = 0; i < im.rq.size(); i += 8) rq_lane(&im.rq[i]);
    for (size_t i = kRqBegin; i < kRqEnd; i += 8) rq_lane(im.ext.Span(i, 8));
    return im;
  }

  Descriptor Dma(bool load, bool fault) {
    golden::DmaFields f;
    f.sram = uint32_t(Pick(1, 5));
    f.out_int32 = f.sram == 5 && Chance(50);
    const uint32_t unit = golden::UnitBytes(GeometryOf(c_), f.sram, f.out_int32);
    const uint64_t units = golden::SramUnits(GeometryOf(c_), f.sram, f.out_int32);
    // Counts: mostly small, sometimes a whole SRAM row of units or a long run of rows.
    const int shape = Pick(0, 9);
    f.count0 = shape == 0 ? uint32_t(std::min<uint64_t>(units, Pick(16, 200)))
                          : uint32_t(Pick(1, shape < 5 ? 3 : 12));
    f.count1 = shape == 1 ? uint32_t(Pick(20, 60)) : uint32_t(Pick(1, 4));
    f.count2 = uint32_t(Pick(1, 3));
    // SRAM strides: 0 (the same units again), contiguous, random, or large.
    auto sram_stride = [&](uint64_t inner) {
      switch (Pick(0, 3)) {
        case 0:
          return uint64_t{0};
        case 1:
          return inner;
        case 2:
          return uint64_t(Pick(1, 40));
        default:
          return units / 8 + uint64_t(Pick(0, 7));
      }
    };
    uint64_t s1 = sram_stride(f.count0), s2 = sram_stride(f.count0 * f.count1);
    uint64_t span = f.count0 - 1 + (f.count1 - 1) * s1 + (f.count2 - 1) * s2;
    while (span >= units) {  // shrink until it fits
      s1 /= 2, s2 /= 2;
      if (f.count1 > 1 && s1 == 0) f.count1 = 1;
      span = f.count0 - 1 + (f.count1 - 1) * s1 + (f.count2 - 1) * s2;
    }
    f.sram_stride1 = uint32_t(s1);
    f.sram_stride2 = uint32_t(s2);
    f.sram_base = uint32_t(Pick64(0, units - 1 - span));
    // External strides: multiples of U; 0, contiguous, random, or large.
    const uint64_t row = uint64_t{f.count0} * unit;
    auto ext_stride = [&](uint64_t inner) {
      switch (Pick(0, 3)) {
        case 0:
          return uint64_t{0};
        case 1:
          return inner;
        case 2:
          return uint64_t(Pick(1, 64)) * unit;
        default:
          return uint64_t(Pick(8, 12)) * 0x1000;  // pages apart
      }
    };
    const bool rq = f.sram == uint32_t(golden::Sram::kRq);
    const uint64_t region_begin = load && rq ? kRqBegin : 0;
    const uint64_t region_end = load && rq ? kRqEnd : load && Chance(20) ? kRqEnd : kDataEnd;
    uint64_t e1 = ext_stride(row), e2 = ext_stride(row * f.count1);
    uint64_t ext_span = row + (f.count1 - 1) * e1 + (f.count2 - 1) * e2;
    while (ext_span > region_end - region_begin) {
      e1 = e1 / 2 / unit * unit, e2 = e2 / 2 / unit * unit;
      if (e1 == 0 && e2 == 0 && ext_span > region_end - region_begin) f.count0 = 1;
      ext_span = uint64_t{f.count0} * unit + (f.count1 - 1) * e1 + (f.count2 - 1) * e2;
    }
    f.ext_stride1 = uint32_t(e1);
    f.ext_stride2 = uint32_t(e2);
    f.ext_addr =
        uint32_t(region_begin + Pick64(0, (region_end - region_begin - ext_span) / unit) * unit);
    if (fault) f.ext_addr = kExtBytes + uint32_t(Pick(0, 64)) * unit;
    return golden::EncodeDma(load ? Op::kLoad : Op::kStore, f, {});
  }

  Descriptor Move() {
    golden::MoveFields f;
    f.dst = uint32_t(Pick(1, 2));
    const bool into_a = f.dst == 1;
    f.count0 = uint32_t(Pick(1, into_a ? c_.cols : c_.rows));
    f.count1 = uint32_t(Pick(1, 4));
    f.count2 = uint32_t(Pick(1, 3));
    f.src_stride1 = uint32_t(Pick(0, 3) == 0 ? 0 : 4 * Pick(1, 2 * c_.rows));
    f.src_stride2 = uint32_t(4 * Pick(0, 40));
    const uint64_t src_span = (f.count1 - 1) * uint64_t{f.src_stride1} +
                              (f.count2 - 1) * uint64_t{f.src_stride2} + uint64_t(c_.rows);
    f.src_base = uint32_t(4 * Pick64(0, (4 * uint64_t{c_.out_depth} - src_span) / 4));
    f.dst_stride1 = uint32_t(Pick(0, 2) == 0 ? 0 : Pick(1, 3 * c_.cols));
    f.dst_stride2 = uint32_t(Pick(0, 200));
    const uint64_t depth = into_a ? c_.a_depth : c_.b_depth;
    const uint64_t dst_span = (f.count1 - 1) * uint64_t{f.dst_stride1} +
                              (f.count2 - 1) * uint64_t{f.dst_stride2} + f.count0;
    f.dst_base = uint32_t(Pick64(0, depth - dst_span));
    return golden::EncodeMove(f, {});
  }

  Descriptor Gemm() {
    golden::GemmFields f;
    f.m = uint32_t(Pick(1, 3 * c_.rows));
    f.n = uint32_t(Pick(1, 3 * c_.cols));
    f.k = uint32_t(Pick(1, 40));
    const uint64_t mb = (f.m + c_.rows - 1) / c_.rows, nb = (f.n + c_.cols - 1) / c_.cols;
    f.mode = uint32_t(Pick(0, 63));
    const bool out_raw = f.mode & 4;
    f.a_base = uint32_t(Pick64(0, c_.a_depth - mb * f.k));
    f.b_base = uint32_t(Pick64(0, c_.b_depth - nb * f.k));
    f.bias_base = uint32_t(Pick64(0, c_.bias_depth - nb));
    f.rq_base = uint32_t(Pick64(0, c_.rq_depth - nb));
    const uint64_t out_words = out_raw ? mb * nb * c_.rows : mb * nb * c_.rows / 4;
    f.out_base = uint32_t(Pick64(0, c_.out_depth - out_words));
    f.zp_ab = uint32_t(Pick(-128, 255) & 0x1FF) | uint32_t(Pick(-128, 255) & 0x1FF) << 16;
    f.zp_out = Pick(-20, 20);
    f.clamp_min = Pick(-128, 0);
    f.clamp_max = Pick(0, 127);
    f.mult = Chance(10) ? 0 : int32_t(Pick64(uint64_t{1} << 30, (uint64_t{1} << 31) - 1));
    f.shift = uint32_t(Pick(-20, 4) & 0xFF);
    return golden::EncodeGemm(f, {});
  }

  // An ELTWISE of random fields, drawn until golden calls it legal: any OP, both add forms with
  // their fields anywhere in range (the values are golden's and the model's shared arithmetic; the
  // placement, the table read and the timing are what this compares), in place or apart.
  Descriptor Eltwise() {
    const golden::AccelGeometry g = GeometryOf(c_);
    for (;;) {
      golden::EltwiseFields f;
      f.op = uint32_t(Pick(0, 2));
      f.count = uint32_t(Pick(1, 20));
      f.lut = {uint32_t(Pick(0, c_.lut_slots - 1)), uint32_t(Pick(2, 8)), Chance(50) ? 8u : 16u};
      f.dst = uint32_t(Pick64(0, c_.out_depth - 2 * f.count));
      f.src_a = Chance(30) ? f.dst : uint32_t(Pick64(0, c_.out_depth - f.count));
      f.src_b = Chance(30) ? f.dst : uint32_t(Pick64(0, c_.out_depth - f.count));
      f.form = uint32_t(Pick(0, 1));
      f.a_unsigned = Chance(50), f.b_unsigned = Chance(50), f.y_unsigned = Chance(50);
      f.zp_a = Pick(-256, 255), f.zp_b = Pick(-256, 255), f.zp_y = Pick(-256, 255);
      f.left_shift = uint32_t(Pick(0, 20));
      const auto q31 = [&] { return uint32_t(Pick64(uint64_t{1} << 30, (uint64_t{1} << 31) - 1)); };
      f.mult_a = f.form ? uint32_t(Pick(0, 127)) : q31();
      f.mult_b = f.form ? uint32_t(Pick(0, 127)) : q31();
      f.mult_y = q31();
      f.shift_a = Pick(-31, 0), f.shift_b = Pick(-31, 0), f.shift_y = Pick(-31, 0);
      f.rshift = uint32_t(Pick(0, 62));
      f.rounding = uint32_t(Pick(0, 4));
      f.wrap = Chance(50);
      f.clamp_min = f.y_unsigned ? Pick(0, 100) : Pick(-128, 0);
      f.clamp_max = f.y_unsigned ? Pick(100, 255) : Pick(0, 127);
      const Descriptor d = golden::EncodeEltwise(f, {});
      if (golden::Validate(g, d) == ProgramError::kNone) return d;
    }
  }

  // `count` random descriptors, tokens derived so that no two descriptors of different engines
  // that touch the same bytes (one writing) are unordered, plus random extra tokens when they keep
  // the program race free. `faults`: a few LOADs/STOREs reach past the memory.
  std::vector<Descriptor> Program(int count, bool faults) {
    std::vector<Descriptor> p;
    for (int i = 0; i < count; ++i) {
      const int kind = Pick(0, 99);
      if (kind < 35) {
        p.push_back(Dma(true, faults && Chance(8)));
      } else if (kind < 60) {
        p.push_back(Dma(false, faults && Chance(8)));
      } else if (kind < 75) {
        p.push_back(Gemm());
      } else if (kind < 88) {
        p.push_back(Move());
      } else {
        p.push_back(Eltwise());
      }
    }
    AddTokens(p);
    std::vector<Descriptor> extra = p;
    for (Descriptor& d : extra) {
      if (Chance(10)) d[15] |= 1u << 9;  // an extra SIGNAL
      if (Chance(4)) d[15] |= 1u << 8;   // an extra WAIT
    }
    if (golden::RaceCheck(GeometryOf(c_), extra, kQBase).empty()) return extra;
    return p;
  }

 private:
  bool IsDma(const Descriptor& d) const {
    const uint32_t op = d[15] & 0xF;
    return op == uint32_t(Op::kLoad) || op == uint32_t(Op::kStore);
  }
  static bool Overlap(const std::vector<golden::Interval>& x,
                      const std::vector<golden::Interval>& y) {
    for (const auto& p : x) {
      for (const auto& q : y) {
        if (p.memory == q.memory && p.begin < q.end && q.begin < p.end) return true;
      }
    }
    return false;
  }
  // As the compiler does: a descriptor that conflicts with one of the other engine not yet
  // ordered WAITs, and the latest such one SIGNALs.
  void AddTokens(std::vector<Descriptor>& p) {
    const golden::AccelGeometry g = GeometryOf(c_);
    std::vector<golden::Footprint> fp;
    for (const Descriptor& d : p) fp.push_back(golden::FootprintOf(g, d));
    int last_signal[2] = {-1, -1};
    for (int i = 0; i < int(p.size()); ++i) {
      const int engine = IsDma(p[size_t(i)]) ? 0 : 1, other = 1 - engine;
      for (int j = i - 1; j > last_signal[other]; --j) {
        if ((IsDma(p[size_t(j)]) ? 0 : 1) == engine) continue;
        const auto& a = fp[size_t(j)];
        const auto& b = fp[size_t(i)];
        if (Overlap(a.writes, b.reads) || Overlap(a.writes, b.writes) ||
            Overlap(a.reads, b.writes)) {
          p[size_t(j)][15] |= 1u << 9;
          p[size_t(i)][15] |= 1u << 8;
          last_signal[other] = j;
          break;
        }
      }
    }
  }

  const arch::ArchConfig& c_;
  std::mt19937_64 rng_;
};

struct Timing {
  int latency, interval;
};

arch::ArchConfig Named(const std::string& name) {
  if (name == "port64") return PortConfig(64, 1);  // D = 64 and a single read burst in flight
  return LoadConfig(name);
}

// Runs one random program on the model (skipping and not) and golden; returns the model's
// outcome.
ModelOutcome CheckProgram(const arch::ArchConfig& config, const Images& in,
                          const std::vector<Descriptor>& program, Timing t,
                          const std::string& what) {
  EXPECT_TRUE(golden::RaceCheck(GeometryOf(config), program, kQBase).empty()) << what;
  Images images = in;
  PutProgram(program, kQBase, images.ext);
  const uint32_t count = uint32_t(program.size());
  const ModelOutcome fast = RunModel(config, images, kQBase, count, t.latency, t.interval, true);
  const ModelOutcome slow = RunModel(config, images, kQBase, count, t.latency, t.interval, false);
  EXPECT_TRUE(fast.result.perf == slow.result.perf)
      << what << ": skipping changed the counters (cycles " << fast.result.perf.cycles << " vs "
      << slow.result.perf.cycles << ")";
  EXPECT_TRUE(fast.images == slow.images) << what << ": skipping changed the memories";
  EXPECT_EQ(fast.result.error_index, slow.result.error_index) << what;
  ExpectMatchesGolden(fast, RunGolden(config, images, kQBase, count), what);
  ExpectPerfConsistent(fast.result.perf, what);
  return fast;
}

TEST(ProgramGolden, RandomProgramsOnEveryPort) {
  int errors = 0, deadlocks = 0, clean = 0;
  for (const char* name : {"default", "rect_4x16", "tall_16x4", "port64"}) {
    const arch::ArchConfig config = Named(name);
    for (const Timing t :
         {Timing{config.ext_mem_latency, config.ext_mem_interval}, Timing{1, 1}, Timing{7, 3}}) {
      Generator gen(config, 1000 + uint64_t(t.latency) * 64 + uint64_t(t.interval));
      for (int trial = 0; trial < 12; ++trial) {
        const Images in = gen.MakeImages();
        const std::vector<Descriptor> program = gen.Program(gen.Pick(1, 24), false);
        const std::string what = std::string(name) + " Lm " + std::to_string(t.latency) + " Iv " +
                                 std::to_string(t.interval) + " trial " + std::to_string(trial);
        const ModelOutcome o = CheckProgram(config, in, program, t, what);
        if (::testing::Test::HasFatalFailure()) return;
        clean += o.result.error == ProgramError::kNone;
        deadlocks += o.result.error == ProgramError::kDeadlock;
        errors += o.result.error != ProgramError::kNone;
      }
    }
  }
  // The mix must include clean programs and, through the random tokens, deadlocks.
  EXPECT_GT(clean, 40);
  EXPECT_GT(deadlocks, 0);
  RecordProperty("clean", clean);
  RecordProperty("errors", errors);
}

// Programs with LOADs and STOREs past the memory: EXT_FAULT at golden's index.
TEST(ProgramGolden, RandomFaults) {
  int faults = 0;
  for (const char* name : {"default", "rect_4x16", "tall_16x4"}) {
    const arch::ArchConfig config = Named(name);
    Generator gen(config, 77);
    for (int trial = 0; trial < 25; ++trial) {
      const Images in = gen.MakeImages();
      const std::vector<Descriptor> program = gen.Program(gen.Pick(2, 20), true);
      const ModelOutcome o =
          CheckProgram(config, in, program, {config.ext_mem_latency, config.ext_mem_interval},
                       std::string(name) + " fault trial " + std::to_string(trial));
      if (::testing::Test::HasFatalFailure()) return;
      faults += o.result.error == ProgramError::kExtFault;
    }
  }
  EXPECT_GT(faults, 10);
}

// Invalid descriptors in random places: the first one is the error, the descriptors before it
// complete as far as their tokens allow, the memories as golden's.
TEST(ProgramGolden, RandomValidationErrors) {
  const arch::ArchConfig config = Named("default");
  Generator gen(config, 99);
  for (int trial = 0; trial < 30; ++trial) {
    const Images in = gen.MakeImages();
    std::vector<Descriptor> program = gen.Program(gen.Pick(2, 16), false);
    Descriptor& bad = program[size_t(gen.Pick(0, int(program.size()) - 1))];
    switch (gen.Pick(0, 3)) {
      case 0:
        bad[15] = (bad[15] & ~0xFu) |
                  uint32_t(gen.Pick(int(arch::kNumDescOpcodes), 15));  // a reserved opcode
        break;
      case 1:
        bad[0] = 0;  // a count (or M) of 0
        break;
      case 2:
        if ((bad[15] & 0xF) == 1 || (bad[15] & 0xF) == 2) bad[6] |= 1;  // EXT_ALIGN
        bad[9] = (bad[9] & ~7u) | 6u;                                   // BAD_SRAM / mode bits
        break;
      default:
        bad[3] = 0xFFFFF;  // a base past every depth
        break;
    }
    if (!golden::RaceCheck(GeometryOf(config), program, kQBase).empty()) continue;
    const ModelOutcome o =
        CheckProgram(config, in, program, {20, 1}, "validation trial " + std::to_string(trial));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Counts at their edges: 65535 rows of one unit with strides 0 on both sides (a broadcast LOAD
// and a repeated STORE), and a whole SRAM in one row.
TEST(ProgramGolden, CountEdges) {
  const arch::ArchConfig config = Named("default");
  Generator gen(config, 5);
  const Images in = gen.MakeImages();
  golden::DmaFields broadcast;
  broadcast.sram = 3;
  broadcast.count1 = 65535;
  broadcast.sram_base = 7;
  broadcast.ext_addr = 0x1000;
  golden::DmaFields repeat;
  repeat.sram = 1;
  repeat.count2 = 65535;
  repeat.sram_base = 3;
  repeat.ext_addr = 0x2000;
  golden::DmaFields whole;
  whole.sram = 5;
  whole.count0 = 4 * config.out_depth;  // every int8 entry: 32768 units
  whole.ext_addr = 0x10000;
  const std::vector<Descriptor> program = {golden::EncodeDma(Op::kLoad, broadcast, {}),
                                           golden::EncodeDma(Op::kStore, repeat, {}),
                                           golden::EncodeDma(Op::kStore, whole, {})};
  const ModelOutcome o = CheckProgram(config, in, program, {20, 1}, "count edges");
  EXPECT_EQ(o.result.error, ProgramError::kNone);
  EXPECT_EQ(o.result.perf.wr_beats, 65535u + 4 * 8192 * 8 / 16);
}

// Sixteen SIGNALs before their WAITs: the counter reaches 15 and the sixteenth LOAD waits on it
// until the first WAIT GEMM, behind a long one, takes a token.
TEST(ProgramGolden, TokensUpToFifteen) {
  for (const char* name : {"default", "tall_16x4"}) {
    const arch::ArchConfig config = Named(name);
    Generator gen(config, 15);
    const Images in = gen.MakeImages();
    std::vector<Descriptor> program;
    for (int i = 0; i < 16; ++i) {
      golden::DmaFields f;
      f.sram = 2;
      f.count0 = 2;
      f.sram_base = uint32_t(2 * i);
      f.ext_addr = uint32_t(0x100 * i);
      program.push_back(golden::EncodeDma(Op::kLoad, f, {0, false, true}));
    }
    golden::GemmFields slow;  // keeps the WAITs back until every LOAD has completed
    slow.m = slow.n = 4;
    slow.k = 2000;
    slow.b_base = 4000;
    slow.out_base = 200;
    program.push_back(golden::EncodeGemm(slow, {}));
    for (int i = 0; i < 16; ++i) {
      golden::GemmFields g;
      g.m = g.n = 4;
      g.k = 2;
      g.b_base = uint32_t(2 * i);
      g.out_base = uint32_t(4 * i);
      program.push_back(golden::EncodeGemm(g, {0, true, false}));
    }
    const ModelOutcome o = CheckProgram(config, in, program, {20, 1}, name);
    EXPECT_EQ(o.result.error, ProgramError::kNone);
    EXPECT_GT(o.result.perf.dma_wait, 0u);
  }
}

// The Kahn property (14.2): one program under different latencies and intervals leaves the same
// memories and the same error; only the cycles change.
TEST(ProgramGolden, KahnPropertyAcrossLatencies) {
  const arch::ArchConfig config = Named("default");
  Generator gen(config, 4242);
  for (int trial = 0; trial < 10; ++trial) {
    Images in = gen.MakeImages();
    const std::vector<Descriptor> program = gen.Program(gen.Pick(8, 24), false);
    PutProgram(program, kQBase, in.ext);
    const uint32_t count = uint32_t(program.size());
    const ModelOutcome base = RunModel(config, in, kQBase, count, 20, 1);
    std::vector<uint64_t> cycles = {base.result.perf.cycles};
    for (const Timing t : {Timing{1, 1}, Timing{100, 1}, Timing{3, 8}, Timing{60, 5}}) {
      const ModelOutcome o = RunModel(config, in, kQBase, count, t.latency, t.interval);
      EXPECT_TRUE(o.images == base.images) << "trial " << trial << " Lm " << t.latency;
      EXPECT_EQ(int(o.result.error), int(base.result.error));
      EXPECT_EQ(o.result.error_index, base.result.error_index);
      EXPECT_EQ(o.result.retired, base.result.retired);
      cycles.push_back(o.result.perf.cycles);
    }
    std::sort(cycles.begin(), cycles.end());
    if (base.result.error == ProgramError::kNone && base.result.perf.rd_beats > 4) {
      EXPECT_LT(cycles.front(), cycles.back()) << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace qacc::model::testing
