#include "sim/testgen/dma_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "compiler/compiler.h"
#include "golden/program.h"
#include "sim/testgen/dma_context.h"
#include "sim/testgen/dma_rule_tests.h"
#include "sim/testgen/random_program.h"
#include "sim/testgen/rng.h"
#include "sim/testgen/slope_programs.h"

namespace qacc::sim {

namespace {

using arch::ErrCode;
using dma_test::Context;
using dma_test::kPage;
using dma_test::LongGemm;
using dma_test::RangeCode;
using dma_test::RequireError;
using dma_test::Shuffle;
using dma_test::SmallDma;
using golden::Descriptor;
using golden::Op;

// ---- the tests

Program GenLoadStore(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  // A STORE as the DMA's first command after reset: the burst state that a start clears holds its
  // power-on value until then (the co-simulation powers every flop on with random bits).
  {
    const uint32_t sram = SramId(int(rng.Uniform(0, kNumSrams - 1)));
    DmaKnobs k = c.Knobs(sram);
    c.Emit({RandomDma(rng, c.g, Op::kStore, k)}, "a STORE first after reset");
  }
  c.Setup();
  for (int run = 0; run < 2; ++run) {
    std::vector<Descriptor> p;
    for (int i = 0; i < kNumSrams; ++i) {
      const uint32_t sram = SramId(i);
      for (int layout = 0; layout < (sram == kSramOut ? 3 : 1); ++layout) {
        DmaKnobs k = c.Knobs(sram);
        k.out_unit = layout;
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
  for (uint32_t sram : {RandomSram(rng), RandomSram(rng)}) {
    const bool out32 = sram == kSramOut && rng.Chance(50);
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
  // Q_TOKENS read back to back over each whole program: every cycle in which a counter changes is
  // read in one seed or another, so a count shown a cycle early or late is seen.
  c.poll_reads = 1500;
  c.poll_register = arch::reg::kQTokens;
  constexpr int kSignals = golden::kMaxTokens + 1;  // one more than a counter holds
  {
    // d2c up to 15: a long GEMM keeps the compute engine busy while 16 LOADs into the bias SRAM
    // (which that GEMM does not read) each SIGNAL; the 16th waits at 15 until a MOVE (into B,
    // from the GEMM's output) takes one. The compute queue fills behind the GEMM. Before the 16th,
    // a LOAD without SIGNAL completes with the counter at 15 and retires at once (17.3: only a
    // SIGNAL waits for room).
    std::vector<Descriptor> p = {LongGemm(c, 8, 8, 48)};
    for (int i = 0; i < kSignals; ++i) {
      if (i + 1 == kSignals) p.push_back(SmallDma(c, Op::kLoad, 3));
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
    // MOVEs into B each SIGNAL (before the 16th, a MOVE without SIGNAL retires at 15); 16 LOADs
    // with WAIT fill the DMA queue behind it. Then a GEMM that WAITs for the last LOAD (the compute
    // engine idle with its head waiting at 0) and a STORE of its output that WAITs for it (the DMA
    // engine waiting).
    std::vector<Descriptor> p;
    golden::DmaFields broadcast;
    broadcast.sram = kSramBias;
    broadcast.count1 = uint32_t(rng.Uniform(600, 900));
    broadcast.sram_base = uint32_t(rng.Uniform(0, c.g.bias_depth - 1));
    broadcast.ext_addr = 4 * uint32_t(c.g.cols) * uint32_t(rng.Uniform(0, 64));
    p.push_back(golden::EncodeDma(Op::kLoad, broadcast, {}));
    for (int i = 0; i < kSignals; ++i) {
      if (i + 1 == kSignals) p.push_back(RandomMove(rng, c.g, 2));
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
    store.sram = kSramOut;
    store.out_int32 = true;
    store.count0 = uint32_t(rng.Uniform(1, 32));
    store.ext_addr = 4 * uint32_t(c.g.cols) * uint32_t(rng.Uniform(0, 64));
    Descriptor s = golden::EncodeDma(Op::kStore, store, {});
    SetWait(s);
    p.push_back(s);
    c.b.run_with_start = true;  // launched by CTRL = RUN | START: a RUN (14.1)
    c.Emit(p, "c2d counter at 15, waits on both engines (CTRL = RUN | START)");
  }
  return c.b.Take();
}

// One illegal descriptor of `code`'s kind (a DMA's or a MOVE's; BAD_OPCODE: any opcode 4..15).
Descriptor IllegalDescriptor(Context& c, ErrCode code) {
  Rng& rng = c.rng;
  golden::DmaFields f;
  f.sram = RandomSram(rng);
  f.out_int32 = rng.Chance(50);  // ignored by the SRAMs other than out (12)
  const uint32_t unit = golden::UnitBytes(c.g, f.sram, f.out_int32);
  const uint64_t units = golden::SramUnits(c.g, f.sram, f.out_int32);
  f.count0 = uint32_t(rng.Uniform(1, 4));
  const Op op = rng.Chance(50) ? Op::kLoad : Op::kStore;
  switch (code) {
    case ErrCode::kBadSram: {
      if (rng.Chance(30)) {
        golden::MoveFields m;
        m.dst = rng.Pick<uint32_t>({0, 3, 4, 5, 7, 10});
        return golden::EncodeMove(m, {});
      }
      f.sram = BadSramId(rng);
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
      // The last byte one past 2^32 - 1 (aligned to the unit), through the plane stride (the legal
      // boundary below goes through the row stride).
      f.count2 = 2;
      f.ext_stride2 = unit * 1024;
      f.ext_addr = uint32_t((uint64_t{1} << 32) - uint64_t(f.count0) * unit - f.ext_stride2 + unit);
      return golden::EncodeDma(op, f, {});
    }
    case ErrCode::kBadShape:
      (rng.Chance(50) ? f.count0 : rng.Chance(50) ? f.count1 : f.count2) = 0;
      return golden::EncodeDma(op, f, {});
    case ErrCode::kBadOpcode: {
      Descriptor d = RandomGemm(rng, c.g);
      arch::desc::Put(d, arch::desc::header::kOp,
                      uint32_t(rng.Uniform(int(arch::kNumDescOpcodes),
                                           (1 << arch::kOpBits) - 1)));  // above the last opcode
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
  const uint32_t max0 = dst == kSramA ? uint32_t(c.g.cols) : uint32_t(c.g.rows);
  f.count0 = uint32_t(rng.Uniform(1, max0));
  f.count1 = uint32_t(rng.Uniform(2, 3));
  f.count2 = uint32_t(rng.Uniform(2, 3));
  f.dst_stride1 = uint32_t(rng.Uniform(1, 2 * max0));
  f.dst_stride2 = uint32_t(rng.Uniform(1, 100));
  f.src_stride1 = uint32_t(4 * rng.Uniform(1, c.g.rows));
  f.src_stride2 = uint32_t(4 * rng.Uniform(1, 64));
  const uint64_t depth = dst == kSramA ? c.g.a_depth : c.g.b_depth;
  const uint64_t dst_span =
      uint64_t(f.count1 - 1) * f.dst_stride1 + uint64_t(f.count2 - 1) * f.dst_stride2 + f.count0;
  f.dst_base = uint32_t(depth - dst_span + (dst_over ? 1 : 0));
  const uint64_t entries = 4 * uint64_t(c.g.out_depth);
  const uint64_t src_span = uint64_t(f.count1 - 1) * f.src_stride1 +
                            uint64_t(f.count2 - 1) * f.src_stride2 + uint64_t(c.g.rows);
  f.src_base = uint32_t((entries - src_span) / 4 * 4 + (src_over ? 4 : 0));
  return golden::EncodeMove(f, {});
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
                       move_dst == kSramA ? ErrCode::kARange : ErrCode::kBRange);
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
      Descriptor d = to_dma ? SmallDma(c, rng.Chance(50) ? Op::kLoad : Op::kStore, RandomSram(rng))
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
    // EXT_RANGE), reaching it through the row stride and through the plane stride; one that ends at
    // the last unit of its SRAM runs.
    for (const bool plane : {false, true}) {
      golden::DmaFields f;
      f.sram = RandomSram(rng);
      f.out_int32 = f.sram == kSramOut && rng.Chance(50);
      const uint64_t unit = golden::UnitBytes(c.g, f.sram, f.out_int32);
      f.count0 = uint32_t(rng.Uniform(1, 4));
      (plane ? f.count2 : f.count1) = 2;
      const uint32_t stride = uint32_t(unit * 1024);
      (plane ? f.ext_stride2 : f.ext_stride1) = stride;
      f.ext_addr = uint32_t((uint64_t{1} << 32) - f.count0 * unit - stride);
      const Op op = rng.Chance(50) ? Op::kLoad : Op::kStore;
      c.Emit({golden::EncodeDma(op, f, {})},
             fmt::format("a transfer whose last byte is 2^32 - 1 (through the {} stride)",
                         plane ? "plane" : "row"),
             ErrCode::kExtFault);
    }
    golden::DmaFields g;
    g.sram = RandomSram(rng);
    g.out_int32 = g.sram == kSramOut && rng.Chance(50);
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

// A LOAD or STORE whose rows reach the top of the external memory, where its accesses fault.
Descriptor FaultingTransfer(Context& c, Op op) {
  Rng& rng = c.rng;
  golden::DmaFields f;
  f.sram = RandomSram(rng);
  f.out_int32 = f.sram == kSramOut && rng.Chance(50);
  const uint32_t unit = golden::UnitBytes(c.g, f.sram, f.out_int32);
  f.count0 = uint32_t(rng.Uniform(1, 8));
  // Enough rows that the engine still issues bursts when the first error response comes back
  // (17.7: it stops issuing then; a STORE finishes only the burst it began).
  f.count1 = uint32_t(rng.Uniform(12, 40));
  f.ext_stride1 = uint32_t(kPage);
  // Rows at the top of the memory: the first row inside, a later one at or above the size; or
  // the first byte of the transfer exactly at the size.
  const uint64_t start =
      rng.Chance(70) ? c.ext_size - (uint64_t(rng.Uniform(1, 2)) * kPage) : c.ext_size;
  f.ext_addr = uint32_t(start / unit * unit);
  return golden::EncodeDma(op, f, {});
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
      p.push_back(FaultingTransfer(c, op));
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
  for (Op op : {Op::kLoad, Op::kStore}) {
    // The transfer's successor fails validation at its fetch, long before the transfer's first
    // error response: that error is recorded first, and the EXT_FAULT of the lower index replaces
    // it (17.7: Q_ERR_INDEX is the lowest index that failed).
    golden::GemmFields bad = golden::DecodeGemm(LongGemm(c, 1, 1, 16));
    bad.m = 0;
    const Descriptor invalid = golden::EncodeGemm(bad, {});
    RequireError(c, invalid, ErrCode::kBadShape);
    c.Emit({FaultingTransfer(c, op), invalid},
           fmt::format("{} beyond the external memory, then a BAD_SHAPE GEMM",
                       op == Op::kLoad ? "LOAD" : "STORE"),
           ErrCode::kExtFault, 1);  // the invalid GEMM never runs: no race with it
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

// A memory that stalls (15.2, ext_mem.ready_gaps): ar_ready, aw_ready and w_ready low in 10..60 %
// of the cycles, so that addresses wait on their channels (the fetcher's and the DMA's share the
// read one, 15.1), the STORE reader waits for its held write address and write beats wait for
// w_ready; random programs, or (30 %) the EXT_FAULT programs, a fault arriving with an address
// held.
Program GenStallingMemory(Rng& rng, const arch::ArchConfig& config) {
  const int gaps = int(rng.Uniform(10, 60));
  const int64_t gap_seed = int64_t(rng.Uniform(1, 0x7FFFFFFF));
  Program p = rng.Chance(70) ? GenRandom(rng, config) : GenExtFault(rng, config);
  p.ext_mem_ready_gaps = gaps;
  p.ext_mem_gap_seed = gap_seed;
  return p;
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
        "each token counter up to 15, a SIGNAL held at 15 and one without SIGNAL retiring at 15; "
        "WAITs that wait on both engines; "
        "both queues full and empty while the program runs"},
       GenQueueTokens},
      {{"dma_errors",
        "validation errors after a prefix that completes (BAD_SRAM, EXT_ALIGN, EXT_RANGE, and "
        "BAD_SHAPE, BAD_OPCODE or an SRAM range): Q_ERR_INDEX, Q_RETIRED > 0; DEADLOCK after a "
        "prefix; Q_COUNT = 0 (BAD_SHAPE at launch)"},
       GenErrors},
      {{"dma_ext_fault",
        "EXT_FAULT: a LOAD and a STORE whose rows reach the external memory's size "
        "(ext_mem.size_bytes) after a prefix, the same followed by an invalid descriptor whose "
        "error the fault replaces (a lower index), and a descriptor fetched at the memory's end"},
       GenExtFault},
      {{"dma_random",
        "three random race-free programs of LOAD, STORE, MOVE and GEMM with random opcode "
        "weights, token traffic and (30%) edge shapes"},
       GenRandom},
      // The program engine's rules, aimed at (dma_rule_tests.h).
      {{"dma_token_races",
        "a SIGNAL's give and a WAIT's take on one token counter in the same cycle, d2c and c2d "
        "(programs drawn until the model shows the coincidence)"},
       GenTokenRaces},
      {{"dma_deadlocks",
        "every form of DEADLOCK on both engines: the fetcher blocked on a full queue with both "
        "engines waiting; every descriptor fetched with higher indices retired; the lowest head a "
        "completed SIGNAL held at 15"},
       GenDeadlocks},
      {{"dma_check_order",
        "one descriptor failing two adjacent validation checks, for every such pair of GEMM, LOAD, "
        "STORE, MOVE and SET, and every SET (none is legal yet): the first in the spec's order is "
        "reported; an EXT_FAULT and a validation error recorded in one cycle"},
       GenCheckOrder},
      {{"dma_port_stalls",
        "LOAD / STORE steps waiting for the SRAM port of every use of 17.6 (GEMM A, B, bias, rq "
        "reads and out writes; MOVE reads and writes), longer than the memory latency, and a STORE "
        "whose write responses return while its reads wait"},
       GenPortStalls},
      {{"dma_stop_phases",
        "a descriptor fetch's EXT_FAULT that stops the program in the cycles around a STORE's "
        "first SRAM read (its first burst not begun, then just begun)"},
       GenStopPhases},
      {{"dma_slope",
        "the slope stage in programs (requant.md 6.2): SETs of its registers between GEMMs with "
        "ACT = SLOPE; a slope GEMM on illegal registers of the launch with a SET before it (runs) "
        "and without (BAD_SLOPE); a SET of an illegal slope (BAD_SLOPE); the registers read back"},
       GenSlopePrograms},
      {{"dma_stalling_memory",
        "a memory whose ar_ready, aw_ready and w_ready are low in 10..60 % of the cycles: "
        "addresses held on their channels, the STORE reader waiting for its held address, write "
        "beats waiting; random programs and EXT_FAULTs"},
       GenStallingMemory},
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
