#include "sim/testgen/dma_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "golden/program.h"
#include "sim/compiler/compiler.h"
#include "sim/testgen/random_program.h"
#include "sim/testgen/rng.h"

namespace qacc::sim {

namespace {

using arch::ErrCode;
using golden::Descriptor;
using golden::Op;

constexpr uint64_t kPage = 4096;

// The external memory of a dma test: random data in [0, data_end) that LOADs read and STOREs
// overwrite, programs from q_base (64 KiB, 1024 descriptors) up; the rest zero. The memory's
// top (config ext_mem.size_bytes) is where dma_ext_fault's accesses fault.
struct Context {
  Context(Rng& rng_in, const arch::ArchConfig& config_in)
      : rng(rng_in), config(config_in), g(compiler::GeometryOf(config_in)), b(config_in) {
    ext_size = config.ext_mem_size_bytes;
    data_end = std::min<uint64_t>(uint64_t{1} << 20, ext_size / 2) / kPage * kPage;
    q_base = uint32_t(data_end);
    if (q_base + 0x20000 > ext_size) {
      throw std::logic_error(fmt::format("dma tests: ext_mem.size_bytes {} of {} is below 2 MiB",
                                         ext_size, config.name));
    }
  }

  DmaKnobs Knobs(uint32_t sram = 0) const {
    DmaKnobs k;
    k.sram = sram;
    k.ext_end = data_end;
    k.beat_bytes = uint32_t(config.mem_data_bytes);
    k.max_units = 2048;
    return k;
  }

  // Random data, then every SRAM loaded whole (the out SRAM as int32 words) from it, so that
  // STOREs and GEMMs see random contents on both sides.
  void Setup() {
    b.WriteExt(0, RandomBytes(rng, size_t(data_end)));
    std::vector<Descriptor> fill;
    for (uint32_t sram = 1; sram <= 5; ++sram) {
      golden::DmaFields f;
      f.sram = sram;
      f.out_int32 = sram == 5;
      const uint64_t unit = golden::UnitBytes(g, sram, f.out_int32);
      const uint64_t units = std::min<uint64_t>(
          {golden::SramUnits(g, sram, f.out_int32), data_end / unit, uint64_t{65535}});
      f.count0 = uint32_t(units);
      f.ext_addr =
          uint32_t(unit * uint64_t(rng.Uniform(0, int64_t((data_end - units * unit) / unit))));
      fill.push_back(golden::EncodeDma(Op::kLoad, f, golden::Header{}));
    }
    Emit(fill, "fill every SRAM");
  }

  // Fails the generator when the first `checked` descriptors (all: -1) race (14.2).
  void RequireRaceFree(const std::vector<Descriptor>& p, int checked, uint32_t base,
                       const std::string& what) const {
    std::vector<Descriptor> prefix(p.begin(), checked < 0 ? p.end() : p.begin() + checked);
    const std::vector<golden::Race> races = golden::RaceCheck(g, prefix, base);
    if (!races.empty()) {
      throw std::logic_error(fmt::format("dma test generator bug: {}: descriptors {} and {} race",
                                         what, races[0].first, races[0].second));
    }
  }

  std::string Describe(const std::vector<Descriptor>& p, uint32_t count,
                       const std::string& what) const {
    int ops[4] = {};
    for (uint32_t i = 0; i < count && i < p.size(); ++i) {
      const uint32_t op = p[i][15] & 0xF;
      if (op < 4) ++ops[op];
    }
    return fmt::format("{}: {} descriptors ({} LOAD, {} STORE, {} GEMM, {} MOVE)", what, count,
                       ops[1], ops[2], ops[0], ops[3]);
  }

  // Writes the program at `base` (q_base by default) and runs it with every end-of-program check.
  int Emit(const std::vector<Descriptor>& p, const std::string& what, ErrCode want = ErrCode::kNone,
           int race_checked = -1, int64_t count = -1, int64_t base = -1) {
    const uint32_t at = base < 0 ? q_base : uint32_t(base);
    const uint32_t n = count < 0 ? uint32_t(p.size()) : uint32_t(count);
    RequireRaceFree(p, race_checked, at, what);
    if (!p.empty()) b.WriteExt(at, DescriptorBytes(p));
    if (!rng.Chance(50)) return b.RunAndCheck(at, n, want, Describe(p, n, what));
    // Half the programs are read while they run: STATUS, Q_* and the counters at random cycles
    // (each read's value at its cycle is compared with the model's, 17.8).
    const int index = b.Run(at, n, want, Describe(p, n, what));
    for (int i = int(rng.Uniform(1, 3)); i > 0; --i) {
      b.Idle(rng.Uniform(0, 120));
      for (uint32_t offset :
           {arch::reg::kStatus, arch::reg::kQRetired, arch::reg::kQErrIndex, arch::reg::kQTokens,
            arch::reg::kPerfCycles, arch::reg::kPerfMacBusy, arch::reg::kPerfDmaBusy,
            arch::reg::kPerfComputeWait, arch::reg::kPerfRdBeats, arch::reg::kPerfWrBeats}) {
        b.Read(arch::kRegsBase + offset);
      }
    }
    b.WaitDone();
    b.ReadRegisters();
    b.CheckProgram(index);
    b.CheckSrams();
    return index;
  }

  Rng& rng;
  const arch::ArchConfig& config;
  golden::AccelGeometry g;
  ProgramBuilder b;
  uint64_t ext_size = 0, data_end = 0;
  uint32_t q_base = 0;
};

void Shuffle(Rng& rng, std::vector<Descriptor>& p) {
  for (size_t i = p.size(); i > 1; --i)
    std::swap(p[i - 1], p[size_t(rng.Uniform(0, int64_t(i) - 1))]);
}

// A short transfer: COUNT0 1..4 of `sram`, one row, in the SRAM units [begin, end).
Descriptor SmallDma(Context& c, Op op, uint32_t sram, uint64_t begin = 0, uint64_t end = 0) {
  golden::DmaFields f;
  f.sram = sram;
  f.out_int32 = sram == 5 && c.rng.Chance(50);
  const uint64_t unit = golden::UnitBytes(c.g, sram, f.out_int32);
  const uint64_t units = golden::SramUnits(c.g, sram, f.out_int32);
  if (end == 0 || end > units) end = units;
  f.count0 = uint32_t(c.rng.Uniform(1, 4));
  f.sram_base = uint32_t(c.rng.Uniform(int64_t(begin), int64_t(end - f.count0)));
  f.ext_addr = uint32_t(unit * uint64_t(c.rng.Uniform(0, int64_t((c.data_end - 4 * unit) / unit))));
  return golden::EncodeDma(op, f, golden::Header{});
}

// A GEMM of about `tiles` x K cycles that reads A and B from word 0, no bias and no rq (so that
// LOADs into those SRAMs need no token), int8 or int32 out from word 0.
Descriptor LongGemm(Context& c, int mb, int nb, int k) {
  golden::GemmFields f;
  f.m = uint32_t(mb * c.g.rows);
  f.n = uint32_t(nb * c.g.cols);
  f.k = uint32_t(k);
  f.mode = uint32_t(c.rng.Uniform(0, 63)) &
           (arch::kModeRounding | arch::kModeOutRaw | arch::kModeAUnsigned | arch::kModeBUnsigned);
  f.zp_ab = uint32_t(c.rng.Uniform(-128, 255) & 0x1FF);
  f.mult = int32_t(c.rng.Uniform(int64_t{1} << 30, (int64_t{1} << 31) - 1));
  f.shift = uint32_t(c.rng.Uniform(-16, -4)) & 0x3F;
  return golden::EncodeGemm(f, golden::Header{});
}

// ---- the tests

Program GenLoadStore(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();
  for (int run = 0; run < 2; ++run) {
    std::vector<Descriptor> p;
    for (uint32_t sram = 1; sram <= 5; ++sram) {
      for (int layout = 0; layout < (sram == 5 ? 2 : 1); ++layout) {
        DmaKnobs k = c.Knobs(sram);
        k.out_int32 = layout;
        for (Op op : {Op::kLoad, Op::kLoad, Op::kStore, Op::kStore}) {
          p.push_back(RandomDma(rng, c.g, op, k));
        }
      }
    }
    Shuffle(rng, p);
    for (int i = 0; i < 3; ++i) {
      const size_t at = size_t(rng.Uniform(0, int64_t(p.size())));
      p.insert(p.begin() + int64_t(at),
               rng.Chance(50) ? RandomGemm(rng, c.g) : RandomMove(rng, c.g));
    }
    AddTokens(p, rng, c.g, 10);
    c.Emit(p, fmt::format("every SRAM both ways, run {}", run));
  }
  return c.b.Take();
}

Program GenEdges(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();
  const uint32_t beat = uint32_t(config.mem_data_bytes);
  std::vector<Descriptor> p;
  // Directed: one unit; a row of exactly 16 beats from a page start (one whole burst); a row
  // that crosses a 4 KiB boundary mid-burst; a unit stored 65535 times (COUNT1 or COUNT2 at the
  // top, both strides 0: one write burst per unit).
  for (uint32_t sram : {uint32_t(rng.Uniform(1, 5)), uint32_t(rng.Uniform(1, 5))}) {
    const bool out32 = sram == 5 && rng.Chance(50);
    const uint32_t unit = golden::UnitBytes(c.g, sram, out32);
    golden::DmaFields one;
    one.sram = sram;
    one.out_int32 = out32;
    one.sram_base = uint32_t(rng.Uniform(0, int64_t(golden::SramUnits(c.g, sram, out32)) - 1));
    one.ext_addr = unit * uint32_t(rng.Uniform(0, int64_t(c.data_end / unit) - 1));
    p.push_back(golden::EncodeDma(rng.Chance(50) ? Op::kLoad : Op::kStore, one, {}));
    golden::DmaFields burst = one;
    burst.count0 = std::max<uint32_t>(1, 16 * beat / unit);
    burst.sram_base = 0;
    burst.ext_addr = uint32_t(kPage * uint64_t(rng.Uniform(0, int64_t(c.data_end / kPage) - 2)));
    p.push_back(golden::EncodeDma(rng.Chance(50) ? Op::kLoad : Op::kStore, burst, {}));
    golden::DmaFields cross = burst;
    cross.count0 = std::max<uint32_t>(2, 40 * beat / unit);
    cross.ext_addr = uint32_t(kPage * uint64_t(rng.Uniform(1, int64_t(c.data_end / kPage) - 2)) -
                              unit * uint32_t(rng.Uniform(1, cross.count0 - 1)));
    p.push_back(golden::EncodeDma(rng.Chance(50) ? Op::kLoad : Op::kStore, cross, {}));
  }
  {
    // A, B or int8 out: one or two SRAM steps per unit on the shipped configs (65-131 k cycles).
    golden::DmaFields repeat;
    repeat.sram = rng.Pick<uint32_t>({1, 2, 5});
    const uint32_t unit = golden::UnitBytes(c.g, repeat.sram, false);
    (rng.Chance(50) ? repeat.count1 : repeat.count2) = 65535;
    repeat.sram_base =
        uint32_t(rng.Uniform(0, int64_t(golden::SramUnits(c.g, repeat.sram, false)) - 1));
    repeat.ext_addr = unit * uint32_t(rng.Uniform(0, int64_t(c.data_end / unit) - 1));
    p.push_back(golden::EncodeDma(Op::kStore, repeat, {}));
  }
  DmaKnobs k = c.Knobs();
  k.edges = true;
  for (int i = 0; i < 12; ++i)
    p.push_back(RandomDma(rng, c.g, rng.Chance(50) ? Op::kLoad : Op::kStore, k));
  Shuffle(rng, p);
  c.Emit(p, "edge counts and strides");
  return c.b.Take();
}

Program GenBackToBack(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();
  // DMA descriptors only: the fetcher fills the DMA queue while the transfers run.
  auto dma_only = [&](int n) {
    std::vector<Descriptor> p;
    DmaKnobs k = c.Knobs();
    for (int i = 0; i < n; ++i) {
      k.edges = rng.Chance(40);
      p.push_back(RandomDma(rng, c.g, rng.Chance(50) ? Op::kLoad : Op::kStore, k));
    }
    return p;
  };
  const std::vector<Descriptor> first = dma_only(int(rng.Uniform(12, 20)));
  const std::vector<Descriptor> second = dma_only(int(rng.Uniform(6, 12)));
  c.RequireRaceFree(first, -1, c.q_base, "back to back");
  const uint32_t second_base = c.q_base + 0x8000;
  c.RequireRaceFree(second, -1, second_base, "back to back");
  c.b.WriteExt(c.q_base, DescriptorBytes(first));
  c.b.WriteExt(second_base, DescriptorBytes(second));
  // RUN, DONE, the golden check (no bus cycles), RUN again at once.
  const int index = c.b.Run(c.q_base, uint32_t(first.size()), ErrCode::kNone,
                            c.Describe(first, uint32_t(first.size()), "back to back, first"));
  c.b.WaitDone();
  c.b.CheckProgram(index);
  c.b.RunAndCheck(second_base, uint32_t(second.size()), ErrCode::kNone,
                  c.Describe(second, uint32_t(second.size()), "back to back, second"));
  // The first program once more, relaunched after the checks.
  c.b.RunAndCheck(c.q_base, uint32_t(first.size()), ErrCode::kNone,
                  c.Describe(first, uint32_t(first.size()), "back to back, first again"));
  return c.b.Take();
}

Program GenOverlap(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();
  for (int run = 0; run < 2; ++run) {
    ProgramKnobs k;
    k.load = 3;
    k.store = 3;
    k.move = 2;
    k.gemm = 3;
    k.extra_tokens = int(rng.Uniform(10, 40));
    k.dma = c.Knobs();
    std::vector<Descriptor> p = RandomProgram(rng, c.g, int(rng.Uniform(16, 28)), k);
    c.Emit(p, fmt::format("DMA overlapped with compute, run {}", run));
  }
  return c.b.Take();
}

Program GenQueueTokens(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();
  constexpr int kSignals = golden::kMaxTokens + 1;  // one more than a counter holds
  {
    // d2c up to 15: a long GEMM keeps the compute engine busy while 16 LOADs into the bias SRAM
    // (which that GEMM does not read) each SIGNAL; the 16th waits at 15 until a MOVE (into B,
    // from the GEMM's output) takes one. The compute queue fills behind the GEMM.
    std::vector<Descriptor> p = {LongGemm(c, 8, 8, 48)};
    for (int i = 0; i < kSignals; ++i) {
      Descriptor d = SmallDma(c, Op::kLoad, 3);
      SetSignal(d);
      p.push_back(d);
    }
    for (int i = 0; i < kSignals; ++i) {
      Descriptor d = RandomMove(rng, c.g, 2);
      SetWait(d);
      p.push_back(d);
    }
    c.Emit(p, "d2c counter at 15");
  }
  {
    // c2d up to 15: a long broadcast LOAD into the bias SRAM keeps the DMA engine busy while 16
    // MOVEs into B each SIGNAL; 16 LOADs with WAIT fill the DMA queue behind it. Then a GEMM that
    // WAITs for the last LOAD (the compute engine idle with its head waiting at 0) and a STORE of
    // its output that WAITs for it (the DMA engine waiting).
    std::vector<Descriptor> p;
    golden::DmaFields broadcast;
    broadcast.sram = 3;
    broadcast.count1 = uint32_t(rng.Uniform(600, 900));
    broadcast.sram_base = uint32_t(rng.Uniform(0, c.g.bias_depth - 1));
    broadcast.ext_addr = 4 * uint32_t(c.g.cols) * uint32_t(rng.Uniform(0, 64));
    p.push_back(golden::EncodeDma(Op::kLoad, broadcast, {}));
    for (int i = 0; i < kSignals; ++i) {
      Descriptor d = RandomMove(rng, c.g, 2);
      SetSignal(d);
      p.push_back(d);
    }
    for (int i = 0; i < kSignals; ++i) {
      Descriptor d = SmallDma(c, Op::kLoad, 3);
      SetWait(d);
      if (i + 1 == kSignals) SetSignal(d);
      p.push_back(d);
    }
    Descriptor gemm = LongGemm(c, 2, 2, int(rng.Uniform(16, 40)));
    SetWait(gemm);
    SetSignal(gemm);
    p.push_back(gemm);
    golden::DmaFields store;
    store.sram = 5;
    store.out_int32 = true;
    store.count0 = uint32_t(rng.Uniform(1, 32));
    store.ext_addr = 4 * uint32_t(c.g.cols) * uint32_t(rng.Uniform(0, 64));
    Descriptor s = golden::EncodeDma(Op::kStore, store, {});
    SetWait(s);
    p.push_back(s);
    c.Emit(p, "c2d counter at 15, waits on both engines");
  }
  return c.b.Take();
}

// One illegal descriptor of `code`'s kind (a DMA's or a MOVE's; BAD_OPCODE: any opcode 4..15).
Descriptor IllegalDescriptor(Context& c, ErrCode code) {
  Rng& rng = c.rng;
  golden::DmaFields f;
  f.sram = uint32_t(rng.Uniform(1, 5));
  f.out_int32 = f.sram == 5 && rng.Chance(50);
  const uint32_t unit = golden::UnitBytes(c.g, f.sram, f.out_int32);
  const uint64_t units = golden::SramUnits(c.g, f.sram, f.out_int32);
  f.count0 = uint32_t(rng.Uniform(1, 4));
  const Op op = rng.Chance(50) ? Op::kLoad : Op::kStore;
  switch (code) {
    case ErrCode::kBadSram: {
      if (rng.Chance(30)) {
        golden::MoveFields m;
        m.dst = rng.Pick<uint32_t>({0, 3, 4, 5, 7});
        return golden::EncodeMove(m, {});
      }
      f.sram = rng.Pick<uint32_t>({0, 6, 7});
      return golden::EncodeDma(op, f, {});
    }
    case ErrCode::kExtAlign: {
      if (unit == 1) break;
      const uint32_t off = uint32_t(rng.Uniform(1, unit - 1));
      switch (rng.Uniform(0, 2)) {
        case 0:
          f.ext_addr = unit * 7 + off;
          break;
        case 1:
          f.count1 = 2;
          f.ext_stride1 = unit + off;
          break;
        default:
          f.count2 = 2;
          f.ext_stride2 = off;
          break;
      }
      return golden::EncodeDma(op, f, {});
    }
    case ErrCode::kExtRange: {
      // The last byte one past 2^32 - 1 (aligned to the unit).
      f.count1 = 2;
      f.ext_stride1 = unit * 1024;
      f.ext_addr = uint32_t((uint64_t{1} << 32) - uint64_t(f.count0) * unit - f.ext_stride1 + unit);
      return golden::EncodeDma(op, f, {});
    }
    case ErrCode::kBadShape:
      (rng.Chance(50) ? f.count0 : rng.Chance(50) ? f.count1 : f.count2) = 0;
      return golden::EncodeDma(op, f, {});
    case ErrCode::kBadOpcode: {
      Descriptor d = RandomGemm(rng, c.g);
      d[15] = (d[15] & ~0xFu) | uint32_t(rng.Uniform(4, 15));
      return d;
    }
    default:
      break;
  }
  // An SRAM range error: the last unit one past the end.
  f.sram_base = uint32_t(units - f.count0 + 1);
  return golden::EncodeDma(op, f, {});
}

// A MOVE at its range rules' boundaries (13): the destination's last word is the last of its SRAM
// or, with `dst_over`, one past it; the source's last entry is at most the out SRAM's last or,
// with `src_over`, one aligned step past that. COUNT1, COUNT2 and every stride above their
// neutral values, so that each term of both sums counts.
Descriptor BoundaryMove(Context& c, uint32_t dst, bool dst_over, bool src_over) {
  Rng& rng = c.rng;
  golden::MoveFields f;
  f.dst = dst;
  const uint32_t max0 = dst == 1 ? uint32_t(c.g.cols) : uint32_t(c.g.rows);
  f.count0 = uint32_t(rng.Uniform(1, max0));
  f.count1 = uint32_t(rng.Uniform(2, 3));
  f.count2 = uint32_t(rng.Uniform(2, 3));
  f.dst_stride1 = uint32_t(rng.Uniform(1, 2 * max0));
  f.dst_stride2 = uint32_t(rng.Uniform(1, 100));
  f.src_stride1 = uint32_t(4 * rng.Uniform(1, c.g.rows));
  f.src_stride2 = uint32_t(4 * rng.Uniform(1, 64));
  const uint64_t depth = dst == 1 ? c.g.a_depth : c.g.b_depth;
  const uint64_t dst_span =
      uint64_t(f.count1 - 1) * f.dst_stride1 + uint64_t(f.count2 - 1) * f.dst_stride2 + f.count0;
  f.dst_base = uint32_t(depth - dst_span + (dst_over ? 1 : 0));
  const uint64_t entries = 4 * uint64_t(c.g.out_depth);
  const uint64_t src_span = uint64_t(f.count1 - 1) * f.src_stride1 +
                            uint64_t(f.count2 - 1) * f.src_stride2 + uint64_t(c.g.rows);
  f.src_base = uint32_t((entries - src_span) / 4 * 4 + (src_over ? 4 : 0));
  return golden::EncodeMove(f, {});
}

ErrCode RangeCode(uint32_t sram) {
  static constexpr ErrCode kCodes[] = {ErrCode::kARange, ErrCode::kBRange, ErrCode::kBiasRange,
                                       ErrCode::kRqRange, ErrCode::kOutRange};
  return kCodes[sram - 1];
}

// Fails the generator when golden's validation of `bad` is not `want`.
void RequireError(const Context& c, const Descriptor& bad, ErrCode want) {
  const golden::ProgramError got = golden::Validate(c.g, bad);
  if (uint32_t(got) != uint32_t(want)) {
    throw std::logic_error(fmt::format("dma test generator bug: {} descriptor gives {}",
                                       arch::ErrCodeName(want), golden::ProgramErrorName(got)));
  }
}

Program GenErrors(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();
  // Validation errors in the middle: a race-free prefix that completes, the illegal descriptor,
  // and a tail that is never fetched. Every seed has the program codes 11..13; one more of the
  // other DMA rules at random.
  std::vector<std::pair<Descriptor, ErrCode>> illegal;
  for (ErrCode code :
       {ErrCode::kBadSram, ErrCode::kExtAlign, ErrCode::kExtRange,
        rng.Pick<ErrCode>({ErrCode::kBadShape, ErrCode::kBadOpcode, ErrCode::kARange})}) {
    const Descriptor bad = IllegalDescriptor(c, code);
    illegal.emplace_back(bad,
                         code == ErrCode::kARange ? RangeCode(golden::DecodeDma(bad).sram) : code);
  }
  // MOVE's range rules one past their last legal value: the destination's last word, then the
  // source's last entry.
  const uint32_t move_dst = uint32_t(rng.Uniform(1, 2));
  illegal.emplace_back(BoundaryMove(c, move_dst, true, false),
                       move_dst == 1 ? ErrCode::kARange : ErrCode::kBRange);
  illegal.emplace_back(BoundaryMove(c, uint32_t(rng.Uniform(1, 2)), rng.Chance(50), true),
                       ErrCode::kOutRange);
  for (const auto& [bad, want] : illegal) {
    ProgramKnobs k;
    k.dma = c.Knobs();
    std::vector<Descriptor> p = RandomProgram(rng, c.g, int(rng.Uniform(1, 8)), k);
    const int prefix = int(p.size());
    RequireError(c, bad, want);
    p.push_back(bad);
    const std::vector<Descriptor> tail = RandomProgram(rng, c.g, 3, k);
    p.insert(p.end(), tail.begin(), tail.end());
    c.Emit(p, fmt::format("{} at descriptor {}", arch::ErrCodeName(want), prefix), want, prefix);
  }
  for (const bool to_dma : {false, true}) {
    // An illegal descriptor fetched while its queue is full: four descriptors that WAIT for a
    // token no descriptor gives fill the queue, so the engines are stuck when the fifth is
    // validated; the validation error still wins over DEADLOCK (14.3), at the fifth's index.
    std::vector<Descriptor> p;
    for (int i = 0; i < golden::kQueueDepth; ++i) {
      Descriptor d =
          to_dma ? SmallDma(c, rng.Chance(50) ? Op::kLoad : Op::kStore, uint32_t(rng.Uniform(1, 5)))
          : rng.Chance(50) ? RandomGemm(rng, c.g)
                           : RandomMove(rng, c.g);
      SetWait(d);
      p.push_back(d);
    }
    const ErrCode code =
        to_dma ? rng.Pick<ErrCode>({ErrCode::kExtRange, ErrCode::kARange}) : ErrCode::kBadShape;
    Descriptor bad;
    if (to_dma) {
      bad = IllegalDescriptor(c, code);
    } else {
      golden::GemmFields gemm = golden::DecodeGemm(RandomGemm(rng, c.g));
      gemm.m = 0;
      bad = golden::EncodeGemm(gemm, {});
    }
    const ErrCode want = code == ErrCode::kARange ? RangeCode(golden::DecodeDma(bad).sram) : code;
    RequireError(c, bad, want);
    p.push_back(bad);
    p.push_back(RandomGemm(rng, c.g));
    c.Emit(p,
           fmt::format("{} behind a full {} queue", arch::ErrCodeName(want),
                       to_dma ? "DMA" : "compute"),
           want, golden::kQueueDepth);
  }
  {
    // DEADLOCK: a GEMM that WAITs for a SIGNAL no descriptor gives, after a prefix that completes;
    // two MOVEs queued behind it. Every descriptor is fetched, so the whole program is drawn race
    // free (as golden's replay checks it), also the three that never run.
    ProgramKnobs k;
    k.dma = c.Knobs();
    std::vector<Descriptor> p;
    int prefix = 0;
    do {
      p = RandomProgram(rng, c.g, int(rng.Uniform(1, 6)), k);
      prefix = int(p.size());
      // The prefix's SIGNALs are all matched: one more WAIT has none.
      Descriptor stuck = RandomGemm(rng, c.g);
      SetWait(stuck);
      p.push_back(stuck);
      p.push_back(RandomMove(rng, c.g));
      p.push_back(RandomMove(rng, c.g));
    } while (!golden::RaceCheck(c.g, p, c.q_base).empty());
    c.Emit(p, fmt::format("DEADLOCK at descriptor {}", prefix), ErrCode::kDeadlock);
  }
  {
    // The range rules at their last legal value (the first illegal one is above): a LOAD or STORE
    // whose last byte is 2^32 - 1 passes validation and then faults on the memory (EXT_FAULT, not
    // EXT_RANGE); one that ends at the last unit of its SRAM runs.
    golden::DmaFields f;
    f.sram = uint32_t(rng.Uniform(1, 5));
    f.out_int32 = f.sram == 5 && rng.Chance(50);
    const uint64_t unit = golden::UnitBytes(c.g, f.sram, f.out_int32);
    f.count0 = uint32_t(rng.Uniform(1, 4));
    f.count1 = 2;
    f.ext_stride1 = uint32_t(unit * 1024);
    f.ext_addr = uint32_t((uint64_t{1} << 32) - f.count0 * unit - f.ext_stride1);
    const Op op = rng.Chance(50) ? Op::kLoad : Op::kStore;
    c.Emit({golden::EncodeDma(op, f, {})}, "a transfer whose last byte is 2^32 - 1",
           ErrCode::kExtFault);
    golden::DmaFields g;
    g.sram = uint32_t(rng.Uniform(1, 5));
    g.out_int32 = g.sram == 5 && rng.Chance(50);
    g.count0 = uint32_t(rng.Uniform(1, 4));
    g.sram_base = uint32_t(golden::SramUnits(c.g, g.sram, g.out_int32) - g.count0);
    g.ext_addr = uint32_t(golden::UnitBytes(c.g, g.sram, g.out_int32) * 3);
    c.Emit({golden::EncodeDma(rng.Chance(50) ? Op::kLoad : Op::kStore, g, {})},
           "a transfer that ends at the last unit of its SRAM");
    c.Emit({BoundaryMove(c, uint32_t(rng.Uniform(1, 2)), false, false)},
           "a MOVE that ends at the last word of A or B and the last entries of out");
  }
  // Q_COUNT = 0: BAD_SHAPE at launch.
  c.Emit({}, "Q_COUNT 0", ErrCode::kBadShape, -1, 0);
  return c.b.Take();
}

Program GenExtFault(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();
  for (Op op : {Op::kLoad, Op::kStore}) {
    ProgramKnobs k;
    k.dma = c.Knobs();
    // The faulting descriptor runs up to its fault, and the tail's compute descriptors may start
    // before the fault is recorded: the whole program must be race free. Prefix, fault and tail
    // are drawn until it is (after 50 draws, the faulting descriptor alone).
    std::vector<Descriptor> p;
    int prefix = 0;
    for (int attempt = 0;; ++attempt) {
      p = attempt < 50 ? RandomProgram(rng, c.g, int(rng.Uniform(1, 6)), k)
                       : std::vector<Descriptor>{};
      prefix = int(p.size());
      golden::DmaFields f;
      f.sram = uint32_t(rng.Uniform(1, 5));
      f.out_int32 = f.sram == 5 && rng.Chance(50);
      const uint32_t unit = golden::UnitBytes(c.g, f.sram, f.out_int32);
      f.count0 = uint32_t(rng.Uniform(1, 8));
      f.count1 = 3;
      f.ext_stride1 = uint32_t(kPage);
      // Rows at the top of the memory: the first row inside, a later one at or above the size; or
      // the first byte of the transfer exactly at the size.
      const uint64_t start =
          rng.Chance(70) ? c.ext_size - (uint64_t(rng.Uniform(1, 2)) * kPage) : c.ext_size;
      f.ext_addr = uint32_t(start / unit * unit);
      p.push_back(golden::EncodeDma(op, f, {}));
      if (attempt < 50) {
        const std::vector<Descriptor> tail = RandomProgram(rng, c.g, 3, k);
        p.insert(p.end(), tail.begin(), tail.end());
      }
      if (golden::RaceCheck(c.g, p, c.q_base).empty()) break;
    }
    c.Emit(p,
           fmt::format("{} beyond the external memory at descriptor {}",
                       op == Op::kLoad ? "LOAD" : "STORE", prefix),
           ErrCode::kExtFault);
  }
  {
    // Descriptors fetched from the top of the memory: `inside` of them in it, the next at its end.
    ProgramKnobs k;
    k.dma = c.Knobs();
    const int inside = int(rng.Uniform(1, 3));
    const std::vector<Descriptor> p = RandomProgram(rng, c.g, inside, k);
    const uint32_t base = uint32_t(c.ext_size - uint64_t(inside) * golden::kDescriptorBytes);
    c.Emit(p, fmt::format("descriptor {} fetched at the end of the external memory", inside),
           ErrCode::kExtFault, -1, inside + int(rng.Uniform(1, 3)), base);
  }
  return c.b.Take();
}

Program GenRandom(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();
  for (int run = 0; run < 3; ++run) {
    ProgramKnobs k;
    k.load = int(rng.Uniform(1, 4));
    k.store = int(rng.Uniform(1, 4));
    k.move = int(rng.Uniform(0, 3));
    k.gemm = int(rng.Uniform(0, 3));
    k.extra_tokens = int(rng.Uniform(0, 50));
    k.dma = c.Knobs();
    k.dma.edges = rng.Chance(30);
    std::vector<Descriptor> p = RandomProgram(rng, c.g, int(rng.Uniform(4, 30)), k);
    c.Emit(p, fmt::format("random program {}{}", run, k.dma.edges ? " (edge shapes)" : ""));
  }
  return c.b.Take();
}

struct DmaTestDef {
  TestInfo info;
  std::function<Program(Rng&, const arch::ArchConfig&)> generate;
};

const std::vector<DmaTestDef>& Defs() {
  static const std::vector<DmaTestDef> defs = {
      {{"dma_load_store",
        "every SRAM and out layout (int8 entries, int32 words) as LOAD destination and STORE "
        "source, two each per program in random order with a few GEMMs and MOVEs, two programs"},
       GenLoadStore},
      {{"dma_edges",
        "counts and strides at their edges: one unit, a row of exactly 16 beats from a page "
        "start, rows crossing a 4 KiB boundary, one unit stored 65535 times (strides 0), "
        "broadcast loads, whole pages, the largest rows, strided and overlapping 2-D shapes"},
       GenEdges},
      {{"dma_back_to_back",
        "DMA descriptors only (the DMA queue full while transfers run); a second RUN right after "
        "DONE; the first program relaunched"},
       GenBackToBack},
      {{"dma_overlap",
        "LOAD / STORE overlapped with GEMM and MOVE on the other engine, ordered by WAIT/SIGNAL "
        "where they share bytes, extra tokens without a conflict"},
       GenOverlap},
      {{"dma_queue_tokens",
        "each token counter up to 15 and a SIGNAL held at 15; WAITs that wait on both engines; "
        "both queues full and empty while the program runs"},
       GenQueueTokens},
      {{"dma_errors",
        "validation errors after a prefix that completes (BAD_SRAM, EXT_ALIGN, EXT_RANGE, and "
        "BAD_SHAPE, BAD_OPCODE or an SRAM range): Q_ERR_INDEX, Q_RETIRED > 0; DEADLOCK after a "
        "prefix; Q_COUNT = 0 (BAD_SHAPE at launch)"},
       GenErrors},
      {{"dma_ext_fault",
        "EXT_FAULT: a LOAD and a STORE whose rows reach the external memory's size "
        "(ext_mem.size_bytes) after a prefix, and a descriptor fetched at the memory's end"},
       GenExtFault},
      {{"dma_random",
        "three random race-free programs of LOAD, STORE, MOVE and GEMM with random opcode "
        "weights, token traffic and (30%) edge shapes"},
       GenRandom},
  };
  return defs;
}

}  // namespace

std::vector<TestInfo> DmaTests() {
  std::vector<TestInfo> tests;
  for (const DmaTestDef& def : Defs()) tests.push_back(def.info);
  return tests;
}

Program MakeDmaTest(std::string_view name, uint64_t seed, const arch::ArchConfig& config) {
  for (const DmaTestDef& def : Defs()) {
    if (def.info.name != name) continue;
    Rng rng(HashName(name) ^ seed);
    return def.generate(rng, config);
  }
  throw std::invalid_argument(fmt::format("unknown test '{}' in suite dma", name));
}

}  // namespace qacc::sim
