#include "sim/testgen/dma_rule_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/program.h"
#include "model/descriptor.h"
#include "model/ext_memory.h"
#include "model/program_engine.h"
#include "model/srams.h"
#include "sim/testgen/dma_context.h"
#include "sim/testgen/random_program.h"

namespace qacc::sim {

namespace {

using arch::ErrCode;
using dma_test::Context;
using dma_test::kPage;
using dma_test::LongGemm;
using dma_test::RangeCode;
using dma_test::RequireError;
using dma_test::SmallDma;
using golden::Descriptor;
using golden::Op;

using model::kSramA;
using model::kSramB;
using model::kSramBias;
using model::kSramOut;
using model::kSramRq;

// Whether `event` holds in some cycle of `p` run by the model alone. A program's timing depends on
// its descriptors only (14.2: not on SRAM or memory data), and the model is the RTL's cycle for
// cycle (the lockstep compares them), so what the model shows here the co-simulation runs. The
// program is at `base` (q_base by default) with Q_COUNT `count` (its size by default), as Emit's.
bool ModelShows(const Context& c, const std::vector<Descriptor>& p,
                const std::function<bool(const model::ProgramCycle&)>& event, int64_t count = -1,
                int64_t base = -1) {
  const uint32_t at = base < 0 ? c.q_base : uint32_t(base);
  model::ExtMemory memory(c.config.ext_mem_size_bytes, model::ExtMemoryTimingOf(c.config));
  const std::vector<uint8_t> bytes = DescriptorBytes(p);
  memory.Write(at, bytes.data(), bytes.size());
  model::Srams srams(c.config);
  bool seen = false;
  model::ProgramRunOptions options;
  options.observer = [&](const model::ProgramCycle& o) { seen = seen || event(o); };
  model::RunProgram(c.config, memory, srams, at, uint32_t(count < 0 ? int64_t(p.size()) : count),
                    options);
  return seen;
}

// Whether the descriptor of an engine's start or retire pulse has header flag `flag` (WAIT,
// SIGNAL).
bool Has(const std::vector<Descriptor>& p, const model::EnginePulse& pulse,
         arch::desc::Field flag) {
  return pulse.valid && pulse.index < p.size() && arch::desc::Get(p[pulse.index], flag) != 0;
}

// ---- dma_token_races

// A LOAD into the bias SRAM (no compute command of these tests touches it): `rows` rows of 1-4
// units.
Descriptor BiasLoad(Context& c, int rows) {
  Rng& rng = c.rng;
  golden::DmaFields f;
  f.sram = kSramBias;
  f.count0 = uint32_t(rng.Uniform(1, 4));
  f.count1 = uint32_t(rows);
  f.sram_stride1 = f.count0;
  f.sram_base = uint32_t(rng.Uniform(0, c.g.bias_depth - f.count0 * f.count1));
  const uint32_t unit = golden::UnitBytes(c.g, kSramBias, false);
  f.ext_stride1 = unit * uint32_t(rng.Uniform(f.count0, f.count0 + 8));
  f.ext_addr = unit * uint32_t(rng.Uniform(0, 256));
  return golden::EncodeDma(Op::kLoad, f, {});
}

// A MOVE into B of `tiles` tiles (R/4 + 1 + COUNT0 cycles each).
Descriptor BMove(Context& c, int tiles) {
  Rng& rng = c.rng;
  golden::MoveFields f;
  f.dst = kSramB;
  f.count0 = uint32_t(rng.Uniform(1, c.g.rows));
  f.count1 = uint32_t(tiles);
  f.dst_stride1 = f.count0;
  f.dst_base = uint32_t(rng.Uniform(0, 64));
  f.src_stride1 = uint32_t(4 * rng.Uniform(1, c.g.rows));
  return golden::EncodeMove(f, {});
}

// Counter d2c (`d2c`) or c2d: the giving engine's SIGNALs and the taking engine's WAITs. d2c: LOADs
// into bias give, MOVEs into B take; c2d the other way (the engines share no SRAM unit). A bank of
// 2-4 SIGNALs first; then the two alternate in program order, and the bank's WAITs close the
// program (every token taken). The givers are mostly short and the takers mostly long (longer than
// the two descriptor fetches between them), so that tokens pile up and the taker starts its WAITs
// back to back, right after its retirements, not right after a give: a give that lands on such a
// start is the coincidence. Sizes are random; the caller keeps the draws where it happens.
std::vector<Descriptor> TokenStream(Context& c, bool d2c) {
  Rng& rng = c.rng;
  auto make = [&](bool load, bool long_one) {
    return load ? BiasLoad(c, long_one ? int(rng.Uniform(4, 12)) : 1)
                : BMove(c, long_one ? int(rng.Uniform(6, 24)) : int(rng.Uniform(1, 2)));
  };
  auto giver = [&] {
    Descriptor d = make(d2c, rng.Chance(30));
    SetSignal(d);
    return d;
  };
  auto taker = [&] {
    Descriptor d = make(!d2c, rng.Chance(70));
    SetWait(d);
    return d;
  };
  std::vector<Descriptor> p;
  const int bank = int(rng.Uniform(2, 4)), n = int(rng.Uniform(6, 11));
  for (int i = 0; i < bank; ++i) p.push_back(giver());
  for (int i = 0; i < n; ++i) {
    p.push_back(taker());
    p.push_back(giver());
  }
  for (int i = 0; i < bank; ++i) p.push_back(taker());
  return p;
}

// ---- dma_deadlocks

// A command of `engine`'s kind that shares no SRAM unit with the other kind: a LOAD into bias
// (DMA) or a MOVE into B (compute).
Descriptor Plain(Context& c, golden::Engine engine) {
  return engine == golden::Engine::kDma ? SmallDma(c, Op::kLoad, kSramBias)
                                        : RandomMove(c.rng, c.g, kSramB);
}

// ---- dma_check_order

// One way to fail one check, applied to a legal descriptor's fields.
template <typename Fields>
struct Breaker {
  ErrCode code;
  std::function<void(Fields&)> apply;
};

// A field of 20 bits set one past an SRAM's end (every config's depths leave room).
uint32_t PastEnd(uint64_t depth, Rng& rng) {
  const uint64_t v = depth + uint64_t(rng.Uniform(1, 4));
  if (v >= (uint64_t{1} << 20)) throw std::logic_error("dma test generator: an SRAM of 2^20 words");
  return uint32_t(v);
}

// `zero` is the field BAD_SHAPE sets to 0: 0, 1, 2 for the first, second, third count (M, N, K;
// COUNT0, COUNT1, COUNT2).
std::vector<Breaker<golden::GemmFields>> GemmBreakers(Context& c, int zero) {
  Rng& rng = c.rng;
  const golden::AccelGeometry& g = c.g;
  using F = golden::GemmFields;
  return {
      {ErrCode::kBadShape, [zero](F& f) { (zero == 0   ? f.m
                                           : zero == 1 ? f.n
                                                       : f.k) = 0; }},
      {ErrCode::kARange, [&rng, &g](F& f) { f.a_base = PastEnd(g.a_depth, rng); }},
      {ErrCode::kBRange, [&rng, &g](F& f) { f.b_base = PastEnd(g.b_depth, rng); }},
      {ErrCode::kBiasRange, [&rng, &g](F& f) { f.bias_base = PastEnd(g.bias_depth, rng); }},
      {ErrCode::kRqRange, [&rng, &g](F& f) { f.rq_base = PastEnd(g.rq_depth, rng); }},
      {ErrCode::kOutRange, [&rng, &g](F& f) { f.out_base = PastEnd(g.out_depth, rng); }},
      {ErrCode::kBadRequant,
       [&rng](F& f) {
         if (rng.Chance(50)) {
           f.shift = uint32_t(arch::kMaxShift + 1) & ((1u << arch::kShiftBits) - 1);
         } else {
           f.clamp_min = 10;
           f.clamp_max = 9;
         }
       }},
      {ErrCode::kBadZp, [&rng](F& f) { f.zp_ab = rng.Chance(50) ? 0x100u : 0x100u << 16; }},
      {ErrCode::kUnitAbsent,
       [&rng](F& f) { f.mode |= uint32_t(rng.Uniform(2, 15)) << arch::kModeActLsb; }},
  };
}

// The TPU-MLIR form's checks (requant.md 6.1) from BAD_REQUANT to BAD_ZP, on a per-tensor base of
// that form whose multiplier and rshift are legal: BAD_REQUANT by the clamp or the mode's code 7
// (a width code of 3 would leave MULT_WIDTH without a width), MULT_WIDTH by a multiplier one past
// either end of an 8- or 16-bit width, RSHIFT_RANGE by 64..255.
std::vector<Breaker<golden::GemmFields>> TpuMlirBreakers(Context& c) {
  Rng& rng = c.rng;
  using F = golden::GemmFields;
  return {
      {ErrCode::kBadRequant,
       [&rng](F& f) {
         if (rng.Chance(50)) {
           f.mode |= arch::kModeRshiftRoundMask;
         } else {
           f.clamp_min = 10;
           f.clamp_max = 9;
         }
       }},
      {ErrCode::kMultWidth,
       [&rng](F& f) {
         const uint32_t code = uint32_t(rng.Uniform(0, 1));  // 8 or 16 bits
         f.mode = (f.mode & ~arch::kModeMultWidthMask) | code << arch::kModeMultWidthLsb;
         const int32_t half = int32_t{1} << (arch::MultWidthBits(code) - 1);
         f.mult = rng.Chance(50) ? half : -half - 1;
       }},
      {ErrCode::kRshiftRange,
       [&rng](F& f) {
         f.shift = uint32_t(rng.Pick<int64_t>({64, 65, 128, 255}));
       }},
      {ErrCode::kBadZp, [&rng](F& f) { f.zp_ab = rng.Chance(50) ? 0x100u : 0x100u << 16; }},
  };
}

// The checks after BAD_ZP of a GEMM with ACT = LUT (lut.md 10.4), on a base whose LUT fields are
// legal. LUT_SLOT only below 16 slots: with 16 every value of the field is a slot.
std::vector<Breaker<golden::GemmFields>> LutBreakers(Context& c) {
  Rng& rng = c.rng;
  using F = golden::GemmFields;
  auto set = [](F& f, uint32_t mask, int lsb, uint32_t value) {
    f.mode = (f.mode & ~mask) | value << lsb;
  };
  std::vector<Breaker<F>> breakers = {
      {ErrCode::kBadZp, [&rng](F& f) { f.zp_ab = rng.Chance(50) ? 0x100u : 0x100u << 16; }}};
  if (c.g.lut_slots < (1 << arch::kLutSlotBits)) {
    breakers.push_back({ErrCode::kLutSlot, [&rng, &c, set](F& f) {
                          set(f, arch::kModeLutSlotMask, arch::kModeLutSlotLsb,
                              uint32_t(rng.Uniform(c.g.lut_slots, (1 << arch::kLutSlotBits) - 1)));
                        }});
  }
  breakers.push_back({ErrCode::kLutInBits, [&rng, set](F& f) {
                        set(f, arch::kModeLutInBitsMask, arch::kModeLutInBitsLsb,
                            rng.Pick<uint32_t>({0, 1, 9, 15}));
                      }});
  breakers.push_back({ErrCode::kLutEntryBits, [&rng, set](F& f) {
                        set(f, arch::kModeLutEntryBitsMask, arch::kModeLutEntryBitsLsb,
                            rng.Pick<uint32_t>({0, 7, 9, 15, 17, 31}));
                      }});
  return breakers;
}

// A legal ELTWISE of OP `op` whose every check applies: a lookup's fields legal, an add's from
// RandomEltwiseAdd, the result apart from both sources; two words or more, so that a result one
// word into a source overlaps it.
golden::EltwiseFields EltwiseBase(Context& c, golden::EltwiseOp op) {
  golden::EltwiseFields f;
  f.op = uint32_t(op);
  f.count = uint32_t(c.rng.Uniform(2, 8));
  f.lut = {uint32_t(c.rng.Uniform(0, c.g.lut_slots - 1)),
           uint32_t(c.rng.Uniform(arch::kLutMinInBits, arch::kLutMaxInBits)),
           c.rng.Pick<uint32_t>({8, 16})};
  // Out words (DST names a word here, not an SRAM): a, b and the result 64 words apart.
  constexpr uint32_t kApart = 64;
  f.src_a = 0;
  f.src_b = kApart;
  f.dst = 2 * kApart;
  if (f.has_add()) RandomEltwiseAdd(c.rng, f);
  return f;
}

// ELTWISE's checks in their order (lut.md 10.5), each on its own field: BAD_SHAPE (COUNT 0 or
// OP 3), OUT_RANGE (SRC_B past the end), ELT_OVERLAP (DST one word into SRC_A), the lookup's
// fields, then BAD_ADD (the clamp reversed, or a field of the form one past its range).
std::vector<Breaker<golden::EltwiseFields>> EltwiseBreakers(Context& c, bool lookup) {
  Rng& rng = c.rng;
  using F = golden::EltwiseFields;
  std::vector<Breaker<F>> breakers = {
      {ErrCode::kBadShape, [](F& f) { f.count = 0; }},
      {ErrCode::kOutRange, [&c](F& f) { f.src_b = PastEnd(c.g.out_depth, c.rng); }},
      {ErrCode::kEltOverlap, [](F& f) { f.dst = f.src_a + 1; }},
  };
  if (lookup) {
    if (c.g.lut_slots < (1 << arch::kLutSlotBits)) {
      breakers.push_back({ErrCode::kLutSlot, [&rng, &c](F& f) {
                            f.lut.slot = uint32_t(rng.Uniform(c.g.lut_slots, 15));
                          }});
    }
    breakers.push_back({ErrCode::kLutInBits, [&rng](F& f) {
                          f.lut.in_bits = rng.Pick<uint32_t>({0, 1, 9, 15});
                        }});
    breakers.push_back({ErrCode::kLutEntryBits, [&rng](F& f) {
                          f.lut.entry_bits = rng.Pick<uint32_t>({0, 7, 9, 15, 17, 31});
                        }});
  }
  breakers.push_back({ErrCode::kBadAdd, [&rng](F& f) {
                        const bool seed = f.form == golden::kEltwiseFormSeed;
                        const int32_t lo = f.y_unsigned ? 0 : -128, hi = f.y_unsigned ? 255 : 127;
                        switch (rng.Uniform(0, 3)) {
                          case 0:  // reversed inside the type
                            f.clamp_min = lo + 1, f.clamp_max = lo;
                            break;
                          case 1:  // one past the type
                            if (rng.Chance(50)) {
                              f.clamp_max = hi + 1;
                            } else {
                              f.clamp_min = lo - 1;
                            }
                            break;
                          case 2:  // a multiplier one past its range
                            if (seed) {
                              (rng.Chance(50) ? f.mult_a : f.mult_b) = 128;
                            } else {
                              f.mult_y = (1u << 30) - 1;
                            }
                            break;
                          default:  // a shift one past its range
                            if (seed) {
                              f.rshift = 63;
                            } else if (rng.Chance(50)) {
                              f.left_shift = 21;
                            } else {
                              f.shift_y = 1;
                            }
                            break;
                        }
                      }});
  return breakers;
}

// BAD_SHAPE of a LOAD, STORE or MOVE: count `zero` (0, 1, 2: COUNT0, COUNT1, COUNT2) set to 0.
template <typename F>
Breaker<F> ZeroCount(int zero) {
  return {ErrCode::kBadShape, [zero](F& f) {
            (zero == 0 ? f.count0 : zero == 1 ? f.count1 : f.count2) = 0;
          }};
}

std::vector<Breaker<golden::DmaFields>> DmaBreakers(Context& c, uint32_t sram, int zero) {
  Rng& rng = c.rng;
  const golden::AccelGeometry& g = c.g;
  using F = golden::DmaFields;
  // BAD_SHAPE: a count of 0, or (zero = 3) OUT_INT32 with OUT_INT16 (lut.md 10.6).
  const Breaker<F> bad_shape =
      zero < 3 ? ZeroCount<F>(zero)
               : Breaker<F>{ErrCode::kBadShape, [](F& f) { f.out_int32 = f.out_int16 = true; }};
  return {
      bad_shape,
      {ErrCode::kBadSram, [&rng](F& f) { f.sram = BadSramId(rng); }},
      {RangeCode(sram),
       [&g](F& f) {
         f.sram_base =
             uint32_t(golden::SramUnits(g, f.sram, f.out_int32, f.out_int16) - f.count0 + 1);
       }},
      // EXT_STRIDE2 with COUNT2 = 1: misaligned, and out of every range sum.
      {ErrCode::kExtAlign,
       [&rng, &g](F& f) {
         f.count2 = 1;
         f.ext_stride2 =
             uint32_t(rng.Uniform(1, golden::UnitBytes(g, f.sram, f.out_int32, f.out_int16) - 1));
       }},
      // The last byte one unit past 2^32 - 1, every address aligned.
      {ErrCode::kExtRange,
       [&g](F& f) {
         const uint64_t unit = golden::UnitBytes(g, f.sram, f.out_int32, f.out_int16);
         f.count1 = 2;
         f.ext_stride1 = uint32_t(unit * 1024);
         f.ext_addr = uint32_t((uint64_t{1} << 32) - f.count0 * unit - f.ext_stride1 + unit);
       }},
  };
}

std::vector<Breaker<golden::MoveFields>> MoveBreakers(Context& c, uint32_t dst, int zero) {
  Rng& rng = c.rng;
  const golden::AccelGeometry& g = c.g;
  using F = golden::MoveFields;
  return {
      ZeroCount<F>(zero),
      {ErrCode::kBadSram,
       [&rng](F& f) {
         f.dst = rng.Pick<uint32_t>({0, 3, 4, 5, 6, 7, 9, 14});
       }},
      {ErrCode::kOutRange, [&rng](F& f) { f.src_base = 4 * uint32_t(rng.Uniform(0, 64)) + 2; }},
      {dst == kSramA ? ErrCode::kARange : ErrCode::kBRange,
       [&g, dst](F& f) { f.dst_base = dst == kSramA ? g.a_depth : g.b_depth; }},
  };
}

// The descriptor of `base` with breakers `first` and `second` applied, after checking with golden
// that each alone fails its own check and both together report the first.
template <typename Fields>
Descriptor BothBroken(const Context& c, const Fields& base, const Breaker<Fields>& first,
                      const Breaker<Fields>& second,
                      const std::function<Descriptor(const Fields&)>& encode) {
  Fields a = base, b = base, both = base;
  first.apply(a);
  second.apply(b);
  first.apply(both);
  second.apply(both);
  RequireError(c, encode(a), first.code);
  RequireError(c, encode(b), second.code);
  const Descriptor d = encode(both);
  RequireError(c, d, first.code);
  return d;
}

// ---- dma_port_stalls

// A STORE (`store`) or LOAD of `rows` rows of one unit each from SRAM unit `base` on, one unit
// apart on both sides: with U <= D every row is one burst of one beat, so the DMA waits for its
// port between bursts as often as within them.
Descriptor Rows(Context& c, Op op, uint32_t sram, bool out_int32, uint32_t base, int rows) {
  golden::DmaFields f;
  f.sram = sram;
  f.out_int32 = out_int32;
  const uint32_t unit = golden::UnitBytes(c.g, sram, out_int32);
  f.count1 = uint32_t(rows);
  f.sram_base = base;
  f.sram_stride1 = 1;
  f.ext_addr = unit * uint32_t(c.rng.Uniform(0, 64));
  // Rows in separate beats: a stride of one beat (or one unit when that is larger).
  f.ext_stride1 = std::max<uint32_t>(unit, uint32_t(c.config.mem_data_bytes));
  return golden::EncodeDma(op, f, {});
}

// A LOAD of `rows` rq SRAM words from word 0 on, written first at the top of the test's data:
// legal per-channel pairs (multiplier 0 or 2^30..2^31-1, shift -31..30, spec 4), random bits
// above each shift word's [5:0], which the unit ignores.
Descriptor LegalRqWords(Context& c, int rows) {
  const uint32_t unit = golden::UnitBytes(c.g, kSramRq, false);
  std::vector<uint8_t> bytes(size_t(unit) * size_t(rows));
  for (size_t at = 0; at < bytes.size(); at += 8) {
    const uint32_t mult =
        c.rng.Chance(10) ? 0 : uint32_t(c.rng.Uniform(int64_t{1} << 30, (int64_t{1} << 31) - 1));
    const uint32_t shift =
        (uint32_t(c.rng.Next()) & ~0xFFu) | (uint32_t(c.rng.Uniform(-31, 30)) & 0xFF);
    for (int i = 0; i < 4; ++i) {
      bytes[at + size_t(i)] = uint8_t(mult >> (8 * i));
      bytes[at + 4 + size_t(i)] = uint8_t(shift >> (8 * i));
    }
  }
  const uint32_t ext = uint32_t((c.data_end - bytes.size()) / kPage * kPage);
  c.b.WriteExt(ext, bytes);
  golden::DmaFields f;
  f.sram = kSramRq;
  f.count0 = uint32_t(rows);
  f.ext_addr = ext;
  return golden::EncodeDma(Op::kLoad, f, {});
}

// A MOVE of `tiles` tiles (COUNT1) of COUNT0 words into `dst` from word 0 on.
Descriptor LongMove(Context& c, uint32_t dst, int tiles) {
  golden::MoveFields f;
  f.dst = dst;
  f.count0 = uint32_t(dst == kSramA ? c.g.cols : c.g.rows);
  f.count1 = uint32_t(tiles);
  f.dst_stride1 = f.count0;
  f.src_stride1 = uint32_t(4 * c.rng.Uniform(1, c.g.rows));
  return golden::EncodeMove(f, {});
}

}  // namespace

Program GenTokenRaces(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.b.WriteExt(0, RandomBytes(rng, 1 << 16));
  for (const bool d2c : {true, false}) {
    // Drawn until the model shows a give and a take of this counter in one cycle.
    constexpr int kAttempts = 2000;  // rect_4x16 needed up to 203 in seeds 1-3
    bool found = false;
    for (int attempt = 0; attempt < kAttempts && !found; ++attempt) {
      const std::vector<Descriptor> p = TokenStream(c, d2c);
      found = ModelShows(c, p, [&](const model::ProgramCycle& o) {
        namespace h = arch::desc::header;
        return d2c ? Has(p, o.dma_retire, h::kSignal) && Has(p, o.compute_start, h::kWait)
                   : Has(p, o.compute_retire, h::kSignal) && Has(p, o.dma_start, h::kWait);
      });
      if (found) {
        c.Emit(p, fmt::format("{}: a give and a take in one cycle (draw {})", d2c ? "d2c" : "c2d",
                              attempt));
      }
    }
    if (!found) {
      throw std::logic_error(
          fmt::format("dma test generator: no program of {} draws gives and takes {} in one cycle",
                      kAttempts, d2c ? "d2c" : "c2d"));
    }
  }
  return c.b.Take();
}

Program GenDeadlocks(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.b.WriteExt(0, RandomBytes(rng, 1 << 16));
  for (const golden::Engine stuck : {golden::Engine::kDma, golden::Engine::kCompute}) {
    const golden::Engine other =
        stuck == golden::Engine::kDma ? golden::Engine::kCompute : golden::Engine::kDma;
    const char* name = stuck == golden::Engine::kDma ? "DMA" : "compute";
    {
      // The fetcher blocked on a full queue while both engines wait: the other engine's head
      // WAITs for a token nobody gives, then four WAITs fill this engine's queue and a fifth
      // descriptor is fetched, validated and held. DEADLOCK at index 0.
      std::vector<Descriptor> p = {Plain(c, other)};
      SetWait(p[0]);
      for (int i = 0; i < golden::kQueueDepth; ++i) {
        Descriptor d = Plain(c, stuck);
        SetWait(d);
        p.push_back(d);
      }
      p.push_back(Plain(c, stuck));
      c.Emit(p, fmt::format("DEADLOCK: the fetcher waits on the full {} queue", name),
             ErrCode::kDeadlock);
    }
    {
      // Every descriptor fetched; this engine's head (index 0) WAITs for nothing while the other
      // engine retires the higher indices: Q_ERR_INDEX 0, Q_RETIRED 2 or 3.
      std::vector<Descriptor> p = {Plain(c, stuck)};
      SetWait(p[0]);
      for (int i = int(rng.Uniform(2, 3)); i > 0; --i) p.push_back(Plain(c, other));
      c.Emit(p, fmt::format("DEADLOCK: the {} head below retired indices", name),
             ErrCode::kDeadlock);
    }
    {
      // The lowest head a completed SIGNAL held at 15: 16 SIGNALs of one engine and no WAIT.
      std::vector<Descriptor> p;
      for (int i = 0; i <= golden::kMaxTokens; ++i) {
        p.push_back(Plain(c, stuck));
        SetSignal(p.back());
      }
      c.Emit(p, fmt::format("DEADLOCK: the {} engine holds its 16th SIGNAL at 15", name),
             ErrCode::kDeadlock);
    }
  }
  return c.b.Take();
}

Program GenCheckOrder(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.b.WriteExt(0, RandomBytes(rng, 1 << 16));
  struct Bad {
    Descriptor d;
    ErrCode code;  // the first failing check: the error reported
    std::string what;
  };
  std::vector<Bad> bad;
  auto add_pairs = [&](const std::string& op, const auto& breakers, const auto& base,
                       const auto& encode, bool (*adjacent)(ErrCode, ErrCode)) {
    using Fields = std::decay_t<decltype(base)>;
    for (size_t i = 0; i + 1 < breakers.size(); ++i) {
      const ErrCode first = breakers[i].code, second = breakers[i + 1].code;
      if (!adjacent(first, second)) continue;
      bad.push_back({BothBroken<Fields>(c, base, breakers[i], breakers[i + 1], encode), first,
                     fmt::format("{} failing {} and {}", op, arch::ErrCodeName(first),
                                 arch::ErrCodeName(second))});
    }
  };
  auto any = [](ErrCode, ErrCode) { return true; };
  // An SRAM range check follows BAD_SRAM only with a valid SRAM: no pair of breakers fails both (the
  // bad ids past every SRAM's end are added below).
  auto dma_pair = [](ErrCode a, ErrCode) { return a != ErrCode::kBadSram; };
  // A legal GEMM with bias and per-channel words, so that every range check applies.
  golden::GemmFields gemm;
  gemm.m = uint32_t(rng.Uniform(1, 2 * c.g.rows));
  gemm.n = uint32_t(rng.Uniform(1, 2 * c.g.cols));
  gemm.k = uint32_t(rng.Uniform(1, 16));
  gemm.mode = arch::kModeBiasEn | arch::kModePerChannel;
  // Every pair once; the pair of BAD_SHAPE with the next check once per count set to 0.
  for (int zero = 0; zero < 3; ++zero) {
    auto breakers = GemmBreakers(c, zero);
    if (zero > 0) breakers.resize(2);
    add_pairs("GEMM", breakers, gemm,
              std::function<Descriptor(const golden::GemmFields&)>(
                  [](const golden::GemmFields& f) { return golden::EncodeGemm(f, {}); }),
              +any);
  }
  {
    golden::GemmFields lut = gemm;
    lut.mode |= uint32_t(arch::Act::kLut) << arch::kModeActLsb |
                uint32_t(rng.Uniform(0, c.g.lut_slots - 1)) << arch::kModeLutSlotLsb |
                uint32_t(rng.Uniform(arch::kLutMinInBits, arch::kLutMaxInBits))
                    << arch::kModeLutInBitsLsb |
                rng.Pick<uint32_t>({8, 16}) << arch::kModeLutEntryBitsLsb;
    add_pairs("GEMM", LutBreakers(c), lut,
              std::function<Descriptor(const golden::GemmFields&)>(
                  [](const golden::GemmFields& f) { return golden::EncodeGemm(f, {}); }),
              +any);
  }
  {
    // ACT = SLOPE (requant.md 6.2): BAD_ZP then BAD_SLOPE (ZP_OUT beyond -128..255); the registers
    // this test's programs find are the reset ones, a legal slope.
    golden::GemmFields slope = gemm;
    slope.mode |= uint32_t(arch::Act::kSlope) << arch::kModeActLsb;
    using F = golden::GemmFields;
    const std::vector<Breaker<F>> breakers = {
        {ErrCode::kBadZp, [&rng](F& f) { f.zp_ab = rng.Chance(50) ? 0x100u : 0x100u << 16; }},
        {ErrCode::kBadSlope, [&rng](F& f) {
           f.zp_out = int32_t(rng.Pick<int64_t>({-129, 256, INT32_MIN, INT32_MAX}));
         }}};
    add_pairs("GEMM", breakers, slope,
              std::function<Descriptor(const golden::GemmFields&)>(
                  [](const golden::GemmFields& f) { return golden::EncodeGemm(f, {}); }),
              +any);
  }
  {
    // The TPU-MLIR form, per tensor: a 32-bit multiplier and rshift 0..63 (legal at any width the
    // breaker leaves).
    golden::GemmFields tpu = gemm;
    tpu.mode = arch::kModeBiasEn | arch::kModeRqForm |
               uint32_t(rng.Uniform(0, 6)) << arch::kModeRshiftRoundLsb |
               uint32_t(arch::MultWidth::kW32) << arch::kModeMultWidthLsb;
    tpu.mult = int32_t(rng.Uniform(-100, 100));
    tpu.shift = uint32_t(rng.Uniform(0, arch::kMaxRqRshift));
    add_pairs("GEMM", TpuMlirBreakers(c), tpu,
              std::function<Descriptor(const golden::GemmFields&)>(
                  [](const golden::GemmFields& f) { return golden::EncodeGemm(f, {}); }),
              +any);
  }
  for (const Op op : {Op::kLoad, Op::kStore}) {
    for (int i = 0; i < kNumSrams; ++i) {
      const uint32_t sram = SramId(i);
      golden::DmaFields f;
      f.sram = sram;
      f.out_int32 = sram == kSramOut && rng.Chance(33);
      f.out_int16 = sram == kSramOut && !f.out_int32 && rng.Chance(50);
      f.count0 = uint32_t(rng.Uniform(1, 4));
      f.ext_addr =
          golden::UnitBytes(c.g, sram, f.out_int32, f.out_int16) * uint32_t(rng.Uniform(0, 64));
      // EXT_ALIGN / EXT_RANGE once per opcode, the range / EXT_ALIGN pair per SRAM, BAD_SHAPE /
      // BAD_SRAM once per count set to 0 and once with both layout bits.
      for (int zero = 0; zero < (sram == kSramA ? 4 : 1); ++zero) {
        auto breakers = DmaBreakers(c, sram, zero);
        if (zero > 0) {
          breakers.resize(2);
        } else if (sram != kSramA) {
          breakers = {breakers[2], breakers[3]};
        }
        add_pairs(op == Op::kLoad ? "LOAD" : "STORE", breakers, f,
                  std::function<Descriptor(const golden::DmaFields&)>(
                      [op](const golden::DmaFields& d) { return golden::EncodeDma(op, d, {}); }),
                  +dma_pair);
      }
    }
  }
  for (uint32_t dst : {kSramA, kSramB}) {
    golden::MoveFields f;
    f.dst = dst;
    f.count0 = uint32_t(rng.Uniform(1, dst == kSramA ? c.g.cols : c.g.rows));
    // BAD_SRAM / OUT_RANGE once, OUT_RANGE / A_RANGE or B_RANGE each, BAD_SHAPE / BAD_SRAM once per
    // count set to 0.
    for (int zero = 0; zero < (dst == kSramA ? 3 : 1); ++zero) {
      auto breakers = MoveBreakers(c, dst, zero);
      if (zero > 0) {
        breakers.resize(2);
      } else if (dst == kSramB) {
        breakers.erase(breakers.begin(), breakers.begin() + 2);
      }
      add_pairs("MOVE", breakers, f,
                std::function<Descriptor(const golden::MoveFields&)>(
                    [](const golden::MoveFields& m) { return golden::EncodeMove(m, {}); }),
                +any);
    }
  }
  // ELTWISE (lut.md 10.5): every adjacent pair on ADD_LUT (every check applies), and on ADD
  // (ELT_OVERLAP then BAD_ADD, no lookup between).
  for (const golden::EltwiseOp op : {golden::EltwiseOp::kAddLut, golden::EltwiseOp::kAdd}) {
    auto breakers = EltwiseBreakers(c, op == golden::EltwiseOp::kAddLut);
    if (op == golden::EltwiseOp::kAdd) breakers.erase(breakers.begin(), breakers.begin() + 2);
    add_pairs("ELTWISE", breakers, EltwiseBase(c, op),
              std::function<Descriptor(const golden::EltwiseFields&)>(
                  [](const golden::EltwiseFields& f) { return golden::EncodeEltwise(f, {}); }),
              +any);
  }
  // ELTWISE one check at a time where the rule has a corner: OP 3; a result of 16-bit entries one
  // word past the end (2 COUNT words) and in place (twice its source: never in place), each with a
  // field of the lookup also illegal or not (the size counts whatever the other fields); the
  // result in place on b; an ADD whose junk LUT_ENTRY_BITS = 16 must not double its size.
  {
    golden::EltwiseFields f = EltwiseBase(c, golden::EltwiseOp::kLut);
    f.op = 3;
    bad.push_back(
        {golden::EncodeEltwise(f, {}), ErrCode::kBadShape, "ELTWISE of OP 3 failing BAD_SHAPE"});
    f = EltwiseBase(c, golden::EltwiseOp::kLut);
    f.lut.entry_bits = 16;
    f.dst = c.g.out_depth - 2 * f.count + 1;
    bad.push_back({golden::EncodeEltwise(f, {}), ErrCode::kOutRange,
                   "ELTWISE of 16-bit entries one word past the end failing OUT_RANGE"});
    f.lut.in_bits = rng.Pick<uint32_t>({1, 9});
    bad.push_back({golden::EncodeEltwise(f, {}), ErrCode::kOutRange,
                   "ELTWISE of 16-bit entries and a bad LUT_IN_BITS one word past the end failing "
                   "OUT_RANGE"});
    f = EltwiseBase(c, golden::EltwiseOp::kAddLut);
    f.lut.entry_bits = 16;
    f.dst = rng.Chance(50) ? f.src_a : f.src_b;
    bad.push_back({golden::EncodeEltwise(f, {}), ErrCode::kEltOverlap,
                   "ELTWISE of 16-bit entries in place failing ELT_OVERLAP"});
    // A source that starts in the second half of a 16-bit result (COUNT words past DST): only a
    // result of 2 COUNT words overlaps it.
    f = EltwiseBase(c, golden::EltwiseOp::kLut);
    f.lut.entry_bits = 16;
    f.src_a = f.dst + f.count + uint32_t(rng.Uniform(0, f.count - 1));
    bad.push_back({golden::EncodeEltwise(f, {}), ErrCode::kEltOverlap,
                   "ELTWISE of 16-bit entries with SRC_A in the result's second half failing "
                   "ELT_OVERLAP"});
    f = EltwiseBase(c, golden::EltwiseOp::kAdd);
    f.count = std::max<uint32_t>(f.count, 2);
    f.dst = f.src_b - 1;  // its last COUNT - 1 words are b's first
    bad.push_back({golden::EncodeEltwise(f, {}), ErrCode::kEltOverlap,
                   "ELTWISE ADD with DST one word before SRC_B failing ELT_OVERLAP"});
    // BAD_ADD alone, each field of each form one past its range (lut.md 10.5), on an add whose
    // other fields are legal: the last check, reached only when every other passes.
    using F = golden::EltwiseFields;
    struct AddBound {
      uint32_t form;
      const char* what;
      std::function<void(F&)> apply;
    };
    const uint32_t tflite = golden::kEltwiseFormTflite, seed = golden::kEltwiseFormSeed;
    const AddBound bounds[] = {
        {seed, "MULT_A 128", [](F& e) { e.mult_a = 128; }},
        {seed, "MULT_B 128", [](F& e) { e.mult_b = 128; }},
        {seed, "RSHIFT 63", [](F& e) { e.rshift = 63; }},
        {seed, "ROUNDING 5", [](F& e) { e.rounding = 5; }},
        {tflite, "MULT_A 2^30 - 1", [](F& e) { e.mult_a = (1u << 30) - 1; }},
        {tflite, "MULT_B 2^31", [](F& e) { e.mult_b = 1u << 31; }},
        {tflite, "MULT_Y 2^30 - 1", [](F& e) { e.mult_y = (1u << 30) - 1; }},
        {tflite, "MULT_Y 2^32 - 1", [](F& e) { e.mult_y = ~0u; }},  // bits 31 and 30 both set
        {tflite, "SHIFT_A 1", [](F& e) { e.shift_a = 1; }},
        {tflite, "SHIFT_B -32", [](F& e) { e.shift_b = -32; }},
        {tflite, "SHIFT_Y 1", [](F& e) { e.shift_y = 1; }},
        {tflite, "SHIFT_Y -32", [](F& e) { e.shift_y = -32; }},
        {tflite, "LEFT_SHIFT 21", [](F& e) { e.left_shift = 21; }},
    };
    const auto add_base = [&](uint32_t form) {
      for (;;) {
        F e = EltwiseBase(c, rng.Chance(50) ? golden::EltwiseOp::kAdd : golden::EltwiseOp::kAddLut);
        if (e.form == form) return e;
      }
    };
    for (const AddBound& b : bounds) {
      f = add_base(b.form);
      b.apply(f);
      bad.push_back({golden::EncodeEltwise(f, {}), ErrCode::kBadAdd,
                     fmt::format("ELTWISE add with {} failing BAD_ADD", b.what)});
    }
    // The clamp in either form and type: one below the type, one above it, reversed by one.
    for (const bool y_unsigned : {false, true}) {
      const int32_t lo = y_unsigned ? 0 : -128, hi = y_unsigned ? 255 : 127;
      for (int which = 0; which < 3; ++which) {
        f = add_base(rng.Chance(50) ? tflite : seed);
        f.y_unsigned = y_unsigned;
        f.clamp_min = which == 0 ? lo - 1 : which == 1 ? lo : hi;
        f.clamp_max = which == 0 ? hi : which == 1 ? hi + 1 : hi - 1;
        bad.push_back({golden::EncodeEltwise(f, {}), ErrCode::kBadAdd,
                       fmt::format("ELTWISE add of {} with the clamp [{}, {}] failing BAD_ADD",
                                   y_unsigned ? "uint8" : "int8", f.clamp_min, f.clamp_max)});
      }
    }
    // SRC_A one word past the end, the other fields legal (the pairs move SRC_B).
    f = EltwiseBase(c, golden::EltwiseOp(rng.Uniform(0, 2)));
    f.src_a = c.g.out_depth - f.count + 1;
    bad.push_back({golden::EncodeEltwise(f, {}), ErrCode::kOutRange,
                   "ELTWISE with SRC_A one word past the end failing OUT_RANGE"});
    f = EltwiseBase(c, golden::EltwiseOp::kAdd);
    f.lut.entry_bits = 16;  // ignored without a lookup: the result is COUNT words
    f.dst = c.g.out_depth - f.count + 1;
    bad.push_back(
        {golden::EncodeEltwise(f, {}), ErrCode::kOutRange,
         "ELTWISE ADD one word past the end (LUT_ENTRY_BITS 16 ignored) failing OUT_RANGE"});
  }
  // BAD_SRAM comes before the range check whatever the other fields say (12): a bad id with an
  // SRAM_BASE past the end of every SRAM. A checker that took some SRAM's depth for a bad id would
  // report that SRAM's range code here.
  uint64_t past_every_sram = 0;
  for (int i = 0; i < kNumSrams; ++i) {
    past_every_sram = std::max(past_every_sram, golden::SramUnits(c.g, SramId(i), /*out_int32=*/false));
  }
  for (const Op op : {Op::kLoad, Op::kStore}) {
    golden::DmaFields f;
    f.sram = BadSramId(rng);
    f.sram_base = uint32_t(past_every_sram);
    bad.push_back({golden::EncodeDma(op, f, {}), ErrCode::kBadSram,
                   fmt::format("{} failing BAD_SRAM with SRAM_BASE past every SRAM's end",
                               op == Op::kLoad ? "LOAD" : "STORE")});
  }
  // MOVE's COUNT0 bound one past its last legal value (13), nothing else failing: C + 1 words into
  // A, R + 1 into B. The pairs above set COUNT0 only to 0.
  for (const uint32_t dst : {kSramA, kSramB}) {
    golden::MoveFields f;
    f.dst = dst;
    f.count0 = uint32_t(dst == kSramA ? c.g.cols : c.g.rows) + 1;
    bad.push_back({golden::EncodeMove(f, {}), ErrCode::kBadShape,
                   fmt::format("MOVE of COUNT0 {} into {} failing BAD_SHAPE", f.count0,
                               dst == kSramA ? "A" : "B")});
  }
  // MOVE's alignment rule (13) broken by one field alone: SRC_BASE, SRC_STRIDE1 or SRC_STRIDE2 not
  // a multiple of 4, the other two aligned and every range legal (the breaker above misaligns
  // SRC_BASE).
  for (int field = 0; field < 3; ++field) {
    golden::MoveFields f;
    f.dst = rng.Pick<uint32_t>({kSramA, kSramB});
    f.count1 = f.count2 = 2;
    f.src_stride1 = f.src_stride2 = 4 * uint32_t(c.g.rows);  // one tile of entries apart
    f.dst_stride1 = f.dst_stride2 = 1;
    const uint32_t off = uint32_t(rng.Uniform(1, 3));
    (field == 0 ? f.src_base : field == 1 ? f.src_stride1 : f.src_stride2) += off;
    bad.push_back({golden::EncodeMove(f, {}), ErrCode::kOutRange,
                   fmt::format("MOVE with {} off by {} from a multiple of 4 failing OUT_RANGE",
                               field == 0   ? "SRC_BASE"
                               : field == 1 ? "SRC_STRIDE1"
                                            : "SRC_STRIDE2",
                               off)});
  }
  // SET (units.md 19.4). No present unit has a register block in this version, so every SET fails:
  // BAD_SHAPE first when COUNT is 0 or above 14 (both checks fail), BAD_SET otherwise, with REG in
  // the frame's blocks 0 and 1 (CMD_M, a read-only ID), in a block of no present unit (2: free, 3:
  // softmax, absent), in a free block, at the last register, and across a block boundary.
  constexpr uint32_t kRegsPerBlock = arch::kUnitBlockBytes / 4;
  auto set = [&rng](uint32_t reg, uint32_t count) {
    golden::SetFields f;
    for (uint32_t& v : f.value) v = uint32_t(rng.Next());
    f.reg = reg, f.count = count;
    return golden::EncodeSet(f, {});
  };
  bad.push_back({set(uint32_t(rng.Uniform(0, 1023)), rng.Pick<uint32_t>({0, 15})),
                 ErrCode::kBadShape, "SET failing BAD_SHAPE (COUNT 0 or 15) and BAD_SET"});
  struct SetTarget {
    uint32_t reg, count;
  };
  const SetTarget set_targets[] = {
      {arch::reg::kCmdM / 4, uint32_t(rng.Uniform(1, arch::kMaxSetCount))},
      {arch::reg::kId / 4, 1},
      {2 * kRegsPerBlock, uint32_t(arch::kMaxSetCount)},
      {3 * kRegsPerBlock + uint32_t(rng.Uniform(0, kRegsPerBlock - 1)), 1},
      {uint32_t(rng.Uniform(4, 15)) * kRegsPerBlock + uint32_t(rng.Uniform(0, 40)),
       uint32_t(rng.Uniform(1, arch::kMaxSetCount))},
      {16 * kRegsPerBlock - 1, 1},
      {3 * kRegsPerBlock - 1, 2}};
  for (const auto& [reg, count] : set_targets) {
    bad.push_back(
        {set(reg, count), ErrCode::kBadSet,
         fmt::format("SET of {} registers from {:#05x} failing BAD_SET", count, 4 * reg)});
  }
  // BAD_OPCODE at both ends of OP's illegal values (11), on a legal GEMM's words: the first value
  // past the last opcode, the top of the field, and GEMM's code with the field's high bit set (a
  // decoder that dropped that bit would run the GEMM).
  for (const uint32_t op : {arch::kNumDescOpcodes, (1u << arch::kOpBits) - 1,
                            uint32_t(arch::Opcode::kGemm) | 1u << (arch::kOpBits - 1)}) {
    Descriptor d = golden::EncodeGemm(gemm, {});
    arch::desc::Put(d, arch::desc::header::kOp, op);
    bad.push_back({d, ErrCode::kBadOpcode, fmt::format("opcode {} failing BAD_OPCODE", op)});
  }
  // Each after a short legal prefix (so Q_ERR_INDEX varies) and before a tail never fetched.
  for (const Bad& b : bad) {
    std::vector<Descriptor> p;
    for (int i = int(rng.Uniform(0, 2)); i > 0; --i) p.push_back(SmallDma(c, Op::kLoad, kSramBias));
    const int prefix = int(p.size());
    p.push_back(b.d);
    p.push_back(RandomGemm(rng, c.g));
    c.Emit(p, b.what, b.code, prefix);
  }
  // Two errors recorded in one cycle (17.7): a LOAD's or STORE's first error response (its row
  // runs past the memory's end after `inside` units) in the cycle a later descriptor fails
  // validation (BAD_SHAPE after `fillers` GEMMs). The EXT_FAULT of the lower index is the one
  // reported. Drawn until the model shows the coincidence: the bias SRAM, or (finer steps where
  // its unit is several beats) the top of A, which the fillers (A from word 0) only read; a STORE's
  // write response where read beats every Iv > 1 cycles keep a LOAD's off the validation cycle.
  bool met = false;
  for (const auto& [op, sram] : {std::pair{Op::kLoad, kSramBias}, std::pair{Op::kLoad, kSramA},
                                 std::pair{Op::kStore, kSramBias}, std::pair{Op::kStore, kSramA}}) {
    const uint32_t unit = golden::UnitBytes(c.g, sram, false);
    const uint32_t depth = sram == kSramA ? c.g.a_depth : c.g.bias_depth;
    for (int fillers = 0; fillers < 4 && !met; ++fillers) {
      for (uint32_t inside = 0; inside < 48 && !met; ++inside) {
        golden::DmaFields f;
        f.sram = sram;
        // One beat past the end (a LOAD's error beats, a STORE's error burst, each fault once).
        const uint32_t past = std::max<uint32_t>(1, uint32_t(c.config.mem_data_bytes) / unit);
        f.count0 = std::min<uint32_t>(inside + past, depth);
        f.sram_base = depth - f.count0;
        f.ext_addr = uint32_t(c.ext_size - uint64_t(inside) * unit);
        std::vector<Descriptor> p = {golden::EncodeDma(op, f, {})};
        for (int i = 0; i < fillers; ++i) p.push_back(LongGemm(c, 1, 1, 4));
        golden::GemmFields shapeless = golden::DecodeGemm(LongGemm(c, 1, 1, 4));
        shapeless.m = 0;
        p.push_back(golden::EncodeGemm(shapeless, {}));
        // The coincidence must be the DMA's only error: a later error response of the same
        // transfer would record EXT_FAULT again, whichever error the first cycle kept.
        int dma_errors = 0;
        bool together = false;
        ModelShows(c, p, [&](const model::ProgramCycle& o) {
          dma_errors += o.dma_error;
          together = together || (o.dma_error && o.fetch_error);
          return false;
        });
        met = together && dma_errors == 1;
        if (met) {
          c.Emit(p,
                 fmt::format("a {}'s EXT_FAULT ({} units inside the memory) in the cycle "
                             "descriptor {} fails BAD_SHAPE",
                             op == Op::kLoad ? "LOAD" : "STORE", inside, fillers + 1),
                 ErrCode::kExtFault, fillers);  // the invalid GEMM never runs
        }
      }
    }
  }
  if (!met)
    throw std::logic_error("dma_check_order: no EXT_FAULT met a validation error in one cycle");
  return c.b.Take();
}

// ---- dma_stop_phases

// A program stopped by an EXT_FAULT while a STORE starts. It lies at the top of the external
// memory: a LOAD (rows into rq) and the STORE (one row from bias) on the DMA engine, five GEMMs of
// K that fill the compute queue and hold the fetcher, and Q_COUNT one more, whose fetch past the
// memory's end faults once the first GEMM retires and stops both engines at once (17.7). The
// fault's cycle grows with K; the STORE's start is fixed by the LOAD.
std::vector<Descriptor> StopProgram(const Descriptor& load, const Descriptor& store,
                                    golden::GemmFields gemm, int k) {
  gemm.k = uint32_t(k);
  std::vector<Descriptor> p = {load, store};
  for (int i = 0; i <= golden::kQueueDepth; ++i) p.push_back(golden::EncodeGemm(gemm, {}));
  return p;
}

Program GenStopPhases(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  // Random data, and the bias words the STOREs read loaded from it (not c.Setup(): filling every
  // SRAM costs more cycles than the test's programs on the larger configs).
  c.b.WriteExt(0, RandomBytes(rng, 1 << 16));
  golden::DmaFields fill;
  fill.sram = kSramBias;
  fill.count0 = 32;
  c.Emit({golden::EncodeDma(Op::kLoad, fill, {})}, "bias words 0..31");
  // The STORE begins its first burst at its first SRAM read, and a stop after that lets the burst
  // finish (17.7): at K*, the smallest K at which the model shows the STORE's write address, the
  // stop comes in the first cycles of that burst. K* - 1 .. K* + 2 run, so that the cycles around
  // it run on every config.
  for (int round = 0; round < 2; ++round) {
    Descriptor load;
    const golden::GemmFields gemm = golden::DecodeGemm(LongGemm(c, 1, 1, 1));
    golden::DmaFields f = golden::DecodeDma(Rows(c, Op::kStore, kSramBias, false, 0, 1));
    f.count0 = uint32_t(rng.Uniform(1, 3));
    f.sram_base = uint32_t(rng.Uniform(0, 16));
    f.ext_addr = uint32_t(c.data_end / 2 / kPage * kPage);
    const Descriptor store = golden::EncodeDma(Op::kStore, f, {});
    const int64_t count = 4 + golden::kQueueDepth;  // the descriptors and the one past the end
    const int64_t base = int64_t(c.ext_size) - (count - 1) * golden::kDescriptorBytes;
    const auto writes = [&](int k) {
      return ModelShows(
          c, StopProgram(load, store, gemm, k),
          [&](const model::ProgramCycle& o) {
            return o.axi.aw_valid && o.axi.aw_addr == f.ext_addr;
          },
          count, base);
    };
    constexpr int kFirstK = 16;
    // The shortest LOAD after which the STORE starts after the fault at the first K: its start is
    // then close to the fault's, whatever the config's beat and memory timing.
    int rows = 1;
    for (load = Rows(c, Op::kLoad, kSramRq, false, 0, rows); writes(kFirstK);
         load = Rows(c, Op::kLoad, kSramRq, false, 0, rows)) {
      if (++rows > int(c.g.rq_depth)) {
        throw std::logic_error("dma_stop_phases: the STORE writes at the first K");
      }
    }
    // K* by bisection: the fault's cycle grows with K. Were writes(K) not monotone, this still
    // ends on a boundary: no write at K* - 1, a write at K*.
    int lo = kFirstK, hi = int(std::min(c.g.a_depth, c.g.b_depth));
    if (!writes(hi)) throw std::logic_error("dma_stop_phases: no K lets the STORE write");
    while (hi - lo > 1) {
      const int mid = lo + (hi - lo) / 2;
      (writes(mid) ? hi : lo) = mid;
    }
    const int k = hi;
    for (int kk = k - 1; kk <= k + 2; ++kk) {
      c.Emit(StopProgram(load, store, gemm, kk),
             fmt::format("an EXT_FAULT stop {} the STORE's first burst began (K = {}, K* = {})",
                         kk < k ? "before" : "just after", kk, k),
             ErrCode::kExtFault, -1, count, base);
    }
  }
  // A LOAD's fault while the fetcher holds a GEMM for a full compute queue (17.7): the fetcher
  // stops with the DMA, the compute engine runs its queue to the end and retires it, and the held
  // GEMM is never pushed, though the queue then has room. The LOAD's last row faults; its length is
  // grown until the model shows the fault well after the queue filled (the held GEMM fetched by
  // then).
  {
    bool met = false;
    for (int rows = 4; rows <= int(c.g.bias_depth) && !met; rows *= 2) {
      golden::DmaFields f = golden::DecodeDma(Rows(c, Op::kLoad, kSramBias, false, 0, rows));
      f.ext_addr = uint32_t(c.ext_size - uint64_t(rows - 1) * f.ext_stride1);
      std::vector<Descriptor> p = {golden::EncodeDma(Op::kLoad, f, {})};
      for (int i = 0; i <= golden::kQueueDepth; ++i) p.push_back(LongGemm(c, 2, 2, 64));
      int64_t full_since = -1;
      ModelShows(c, p, [&](const model::ProgramCycle& o) {
        const bool full = o.compute_queue == golden::kQueueDepth;
        if (!full) full_since = -1;
        if (full && full_since < 0) full_since = int64_t(o.cycle);
        met = met || (o.dma_error && full && int64_t(o.cycle) >= full_since + 64);
        return false;
      });
      if (met) {
        c.Emit(p,
               fmt::format("a LOAD of {} rows faults while the fetcher holds a GEMM for a full "
                           "compute queue",
                           rows),
               ErrCode::kExtFault);
      }
    }
    if (!met) throw std::logic_error("dma_stop_phases: no LOAD faulted while the fetcher held");
  }
  return c.b.Take();
}

Program GenPortStalls(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();  // the STOREs and LOADs move data: random contents on both sides
  const golden::AccelGeometry& g = c.g;
  // A STORE from A or B that runs ahead of a long GEMM (K = 64 >= R, C: A and B are read in every
  // cycle of its tiles), then waits for the read port for hundreds of cycles: longer than the
  // memory latency, long enough for every response of its earlier bursts to return.
  for (const uint32_t sram : {kSramA, kSramB}) {
    const int rows = int(rng.Uniform(200, 400));
    const uint32_t depth = sram == kSramA ? g.a_depth : g.b_depth;
    c.Emit({Rows(c, Op::kStore, sram, false, uint32_t(rng.Uniform(0, depth - rows)), rows),
            LongGemm(c, 4, 4, 64)},
           fmt::format("a STORE from {} waits for a GEMM's reads", sram == kSramA ? "A" : "B"));
  }
  // STOREs from the bias and rq SRAMs while a GEMM of 64 short tiles reads a bias and an rq word
  // at each tile and uses them for R beats after (per channel, not OUT_RAW): a STORE's read in
  // between must not change the words the requant uses (the top's hold registers, 17.6).
  {
    constexpr int kRqRows = 100;
    c.Emit({LegalRqWords(c, kRqRows)}, "legal per-channel words in the rq SRAM");
    golden::GemmFields f = golden::DecodeGemm(LongGemm(c, 8, 8, 8));
    f.mode = (f.mode | arch::kModeBiasEn | arch::kModePerChannel) & ~arch::kModeOutRaw;
    c.Emit({Rows(c, Op::kStore, kSramBias, false, 0, int(rng.Uniform(100, 200))),
            Rows(c, Op::kStore, kSramRq, false, 0, int(rng.Uniform(50, kRqRows))),
            golden::EncodeGemm(f, {})},
           "STOREs from bias and rq wait for a GEMM's tile reads");
  }
  // A LOAD into out words past a GEMM's outputs while the GEMM writes: K <= R keeps the writes
  // back to back when R >= C.
  {
    const golden::Descriptor gemm = LongGemm(c, 8, 8, int(rng.Uniform(1, g.rows)));
    const uint32_t first_free = 8 * 8 * uint32_t(g.rows);  // int32 words of 64 tiles
    c.Emit({gemm, Rows(c, Op::kLoad, kSramOut, true, first_free, int(rng.Uniform(200, 400)))},
           "a LOAD into out waits for a GEMM's writes");
  }
  // MOVEs: a LOAD into the SRAM a MOVE writes (past its words), a STORE from out while a MOVE
  // reads.
  for (const uint32_t dst : {kSramA, kSramB}) {
    const int tiles = int(rng.Uniform(30, 60));
    const uint32_t moved = uint32_t(tiles) * (dst == kSramA ? g.cols : g.rows);
    c.Emit({LongMove(c, dst, tiles),
            Rows(c, Op::kLoad, dst, false, moved, int(rng.Uniform(100, 200)))},
           fmt::format("a LOAD into {} waits for a MOVE's writes", dst == kSramA ? "A" : "B"));
  }
  c.Emit({LongMove(c, uint32_t(rng.Uniform(1, 2)), int(rng.Uniform(30, 60))),
          Rows(c, Op::kStore, kSramOut, rng.Chance(50), 0, int(rng.Uniform(100, 200)))},
         "a STORE from out waits for a MOVE's reads");
  // The LUT table: a fused GEMM's lanes read both ports of every copy in the cycle after each
  // requant beat (lut.md 10.2, 10.4), back to back with K <= R; a LOAD into another slot and a
  // STORE from another slot wait in those cycles (17.6).
  if (g.lut_slots > 1) {
    const uint32_t lut = uint32_t(arch::Region::kLut), slot_words = arch::kLutSlotWords;
    golden::GemmFields f = golden::DecodeGemm(LongGemm(c, 8, 8, int(rng.Uniform(1, g.rows))));
    const uint32_t slot = uint32_t(rng.Uniform(0, g.lut_slots - 1));
    f.mode = (f.mode & ~(arch::kModeOutRaw | arch::kModeLutSlotMask | arch::kModeLutInBitsMask |
                         arch::kModeLutEntryBitsMask)) |
             uint32_t(arch::Act::kLut) << arch::kModeActLsb | slot << arch::kModeLutSlotLsb |
             uint32_t(rng.Uniform(arch::kLutMinInBits, arch::kLutMaxInBits))
                 << arch::kModeLutInBitsLsb |
             rng.Pick<uint32_t>({8, 16}) << arch::kModeLutEntryBitsLsb;
    const uint32_t other =
        (slot + uint32_t(rng.Uniform(1, g.lut_slots - 1))) % uint32_t(g.lut_slots);
    c.Emit({golden::EncodeGemm(f, {}), Rows(c, rng.Chance(50) ? Op::kLoad : Op::kStore, lut, false,
                                            other * slot_words, int(slot_words))},
           "a LOAD into or a STORE from the LUT table waits for a fused GEMM's lookups");
  }
  // ELTWISE (lut.md 10.5) over 100 words (400 cycles), each OP: a STORE from its sources' words
  // waits for its reads, a LOAD into words past its result for its writes, and a LOAD into and a
  // STORE from another table slot for its lookups (ADD_LUT). The DMA command comes first, so that
  // it runs from the ELTWISE's first cycle on. Without an add the read port is free in the cycle
  // after each read: the STORE's reads there change what the port returns, and each operand word
  // must come from its own read.
  const uint32_t lut = uint32_t(arch::Region::kLut), slot_words = arch::kLutSlotWords;
  for (int use = 0; use < 4; ++use) {
    if (use >= 2 && g.lut_slots < 2) break;
    for (uint32_t op = use < 2 ? 0 : 2; op <= 2; ++op) {
      golden::EltwiseFields f = EltwiseBase(c, golden::EltwiseOp(op));
      f.count = 100;
      f.src_a = 0, f.src_b = f.count, f.dst = 2 * f.count;
      f.lut.entry_bits = 8;
      const uint32_t other = (f.lut.slot + uint32_t(rng.Uniform(1, std::max(1, g.lut_slots - 1)))) %
                             uint32_t(g.lut_slots);
      const int rows = int(rng.Uniform(100, 300));
      const golden::Descriptor dma =
          use == 0 ? Rows(c, Op::kStore, kSramOut, false, 0, rows)  // entries of words 0..199
          : use == 1
              ? Rows(c, Op::kLoad, kSramOut, false, 4 * 400, rows)  // entries past the result
              : Rows(c, use == 2 ? Op::kLoad : Op::kStore, lut, false, other * slot_words,
                     int(slot_words));
      c.Emit({dma, golden::EncodeEltwise(f, {})},
             use == 0 ? "a STORE from out waits for an ELTWISE's reads"
             : use == 1
                 ? "a LOAD into out waits for an ELTWISE's writes"
                 : "a LOAD into or a STORE from the LUT table waits for an ELTWISE's lookups");
    }
  }
  return c.b.Take();
}

}  // namespace qacc::sim
