#include "sim/testgen/random_program.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "model/arch.h"

namespace qacc::sim {

namespace {

using golden::Descriptor;
using golden::Op;

constexpr uint64_t kPage = 4096;  // no burst crosses a 4 KiB boundary (15.1)

uint64_t Span(uint32_t count0, uint32_t count1, uint32_t count2, uint64_t stride1,
              uint64_t stride2) {
  return (count0 - 1) + uint64_t(count1 - 1) * stride1 + uint64_t(count2 - 1) * stride2;
}

// Places a shape (counts and strides already in `f`) in the knobs' windows: a random SRAM base and
// a random unit-aligned external address (`cross`: one whose first row crosses a 4 KiB boundary,
// when the row is long enough). False when it does not fit.
bool Place(Rng& rng, golden::DmaFields& f, uint64_t unit, uint64_t sram_begin, uint64_t sram_end,
           const DmaKnobs& knobs, bool cross) {
  const uint64_t span = Span(f.count0, f.count1, f.count2, f.sram_stride1, f.sram_stride2);
  if (sram_begin + span >= sram_end) return false;
  f.sram_base = uint32_t(rng.Uniform(int64_t(sram_begin), int64_t(sram_end - 1 - span)));
  const uint64_t ext_span = f.count0 * unit + uint64_t(f.count1 - 1) * f.ext_stride1 +
                            uint64_t(f.count2 - 1) * f.ext_stride2;
  const uint64_t lo = (knobs.ext_begin + unit - 1) / unit * unit;
  if (lo + ext_span > knobs.ext_end) return false;
  const uint64_t hi = knobs.ext_end - ext_span;  // the highest start
  if (cross && f.count0 >= 2) {
    // The first row starts j units below a page boundary, j in 1 .. count0 - 1.
    for (int attempt = 0; attempt < 8; ++attempt) {
      const uint64_t j = uint64_t(rng.Uniform(1, f.count0 - 1));
      const uint64_t first = (lo + j * unit + kPage - 1) / kPage, last = (hi + j * unit) / kPage;
      if (first > last) continue;
      const uint64_t page = uint64_t(rng.Uniform(int64_t(first), int64_t(last)));
      const uint64_t addr = page * kPage - j * unit;
      if (page * kPage >= j * unit && addr >= lo && addr <= hi && addr % unit == 0) {
        f.ext_addr = uint32_t(addr);
        return true;
      }
    }
  }
  f.ext_addr = uint32_t(unit * uint64_t(rng.Uniform(int64_t(lo / unit), int64_t(hi / unit))));
  return true;
}

// The shapes of RandomDma without edges (the RTL tests' distribution).
void PlainShape(Rng& rng, golden::DmaFields& f, uint64_t unit, uint64_t units, uint64_t ext_len) {
  const int64_t shape = rng.Uniform(0, 9);
  f.count0 = uint32_t(shape == 0 ? 1 : shape == 1 ? rng.Uniform(1, 4) : rng.Uniform(1, 40));
  f.count1 = uint32_t(shape < 4 ? 1 : rng.Uniform(1, 5));
  f.count2 = uint32_t(shape < 7 ? 1 : rng.Uniform(1, 3));
  auto sram_stride = [&]() -> uint32_t {
    switch (rng.Uniform(0, 3)) {
      case 0:
        return 0;
      case 1:
        return f.count0;
      case 2:
        return f.count0 + uint32_t(rng.Uniform(0, 9));
      default:
        return uint32_t(rng.Uniform(0, int64_t(units / 8)));
    }
  };
  f.sram_stride1 = sram_stride();
  f.sram_stride2 = sram_stride();
  auto ext_stride = [&]() -> uint32_t {
    switch (rng.Uniform(0, 4)) {
      case 0:
        return 0;
      case 1:
        return uint32_t(f.count0 * unit);
      case 2:
        return uint32_t((f.count0 + rng.Uniform(0, 5)) * unit);
      case 3:
        return uint32_t(unit * rng.Uniform(0, 3));
      default:
        return uint32_t(unit * rng.Uniform(0, int64_t(ext_len / unit / 16)));
    }
  };
  f.ext_stride1 = ext_stride();
  f.ext_stride2 = ext_stride();
}

// The edge shapes (DmaKnobs::edges). Returns whether the first row should cross a page.
bool EdgeShape(Rng& rng, golden::DmaFields& f, uint64_t unit, uint64_t units,
               const DmaKnobs& knobs) {
  const uint64_t beat = knobs.beat_bytes;
  const uint64_t max_units = std::max<uint64_t>(1, std::min(knobs.max_units, units));
  auto clamp0 = [&](uint64_t c) { return uint32_t(std::clamp<uint64_t>(c, 1, max_units)); };
  f.count0 = f.count1 = f.count2 = 1;
  f.sram_stride1 = f.sram_stride2 = 0;
  f.ext_stride1 = f.ext_stride2 = 0;
  bool cross = false;
  switch (rng.Uniform(0, 9)) {
    case 0:  // one unit
      break;
    case 1:  // one row of exactly 16 beats (one whole burst), or 16 beats and one unit more
    case 2: {
      const uint64_t c = std::max<uint64_t>(1, 16 * beat / unit);
      f.count0 = clamp0(c + (rng.Chance(50) ? 1 : 0));
      break;
    }
    case 3:  // a whole 4 KiB page (aligned by Place's chance, or crossing)
      f.count0 = clamp0(std::max<uint64_t>(1, kPage / unit));
      cross = rng.Chance(50);
      break;
    case 4: {  // many rows of one unit, both strides 0: a broadcast load, a repeated store
      f.count1 = uint32_t(rng.Uniform(100, int64_t(std::max<uint64_t>(100, max_units / 2))));
      break;
    }
    case 5: {  // planes of one unit, contiguous or zero strides on either side
      f.count2 = uint32_t(rng.Uniform(2, int64_t(std::min<uint64_t>(300, max_units))));
      f.sram_stride2 = rng.Chance(50) ? 1 : 0;
      f.ext_stride2 = rng.Chance(50) ? uint32_t(unit) : 0;
      break;
    }
    case 6:  // a row that crosses a 4 KiB boundary
      f.count0 = clamp0(uint64_t(rng.Uniform(2, int64_t(std::max<uint64_t>(2, 40 * beat / unit)))));
      cross = true;
      break;
    case 7:  // the largest row the knobs allow
      f.count0 = clamp0(max_units);
      break;
    case 8: {  // strided rows, one 4 KiB page apart (each row in its own page) or packed
      f.count0 =
          clamp0(uint64_t(rng.Uniform(1, int64_t(std::max<uint64_t>(1, 2 * beat / unit) + 3))));
      f.count1 = uint32_t(rng.Uniform(2, 8));
      f.sram_stride1 = f.count0 + uint32_t(rng.Uniform(0, 3));
      f.ext_stride1 = rng.Chance(50) ? uint32_t(std::max<uint64_t>(kPage, f.count0 * unit))
                                     : uint32_t(f.count0 * unit);
      break;
    }
    default: {  // 2-D: rows and planes, strides that overlap on the SRAM side (a later unit wins)
      f.count0 = clamp0(uint64_t(rng.Uniform(1, 4)));
      f.count1 = uint32_t(rng.Uniform(1, 4));
      f.count2 = uint32_t(rng.Uniform(1, 4));
      f.sram_stride1 = uint32_t(rng.Uniform(0, f.count0));
      f.sram_stride2 = uint32_t(rng.Uniform(0, 2 * f.count0));
      f.ext_stride1 = uint32_t(unit * uint64_t(rng.Uniform(0, 2 * f.count0)));
      f.ext_stride2 = uint32_t(unit * uint64_t(rng.Uniform(0, 8 * f.count0)));
      break;
    }
  }
  return cross;
}

bool Overlap(const std::vector<golden::Interval>& x, const std::vector<golden::Interval>& y) {
  for (const auto& a : x) {
    for (const auto& b : y) {
      if (a.memory == b.memory && a.begin < b.end && b.begin < a.end) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<uint8_t> RandomBytes(Rng& rng, size_t n) {
  std::vector<uint8_t> bytes(n);
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t v = rng.Next();
    for (size_t j = 0; j < 8 && i + j < n; ++j) bytes[i + j] = uint8_t(v >> (8 * j));
  }
  return bytes;
}

golden::MachineState RandomState(Rng& rng, const golden::AccelGeometry& geometry,
                                 uint64_t ext_bytes, uint64_t data_bytes) {
  golden::MachineState s(geometry, ext_bytes);
  s.a = RandomBytes(rng, s.a.size());
  s.b = RandomBytes(rng, s.b.size());
  s.bias = RandomBytes(rng, s.bias.size());
  s.rq = RandomBytes(rng, s.rq.size());
  for (size_t lane = 0; lane < s.rq.size(); lane += 8) {
    s.rq[lane + 5] = s.rq[lane + 6] = s.rq[lane + 7] = 0;  // a shift word keeps bits [7:0]
  }
  s.out = RandomBytes(rng, s.out.size());
  const std::vector<uint8_t> data = RandomBytes(rng, size_t(data_bytes));
  s.ext.Write(0, data);
  return s;
}

Descriptor RandomDma(Rng& rng, const golden::AccelGeometry& g, Op op, const DmaKnobs& knobs) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    golden::DmaFields f;
    f.sram = knobs.sram != 0 ? knobs.sram : RandomSram(rng);
    // The out SRAM's unit: int8, int32 or int16 (lut.md 10.6). OUT_INT32 and OUT_INT16 are ignored
    // by the other SRAMs (12): drawn for them too, never both (BAD_SHAPE).
    if (f.sram == kSramOut) {
      const int out_unit = knobs.out_unit >= 0 ? knobs.out_unit : int(rng.Uniform(0, 2));
      f.out_int32 = out_unit == 1;
      f.out_int16 = out_unit == 2;
    } else {
      f.out_int32 = rng.Chance(25);
      f.out_int16 = !f.out_int32 && rng.Chance(25);
    }
    const uint64_t unit = golden::UnitBytes(g, f.sram, f.out_int32, f.out_int16);
    const uint64_t units = golden::SramUnits(g, f.sram, f.out_int32, f.out_int16);
    const uint64_t sram_end = knobs.sram_end != 0 ? std::min(knobs.sram_end, units) : units;
    const uint64_t sram_begin = std::min(knobs.sram_begin, sram_end);
    // Edge shapes fall back to the plain ones when the windows are too small for them.
    const bool edges = knobs.edges && attempt < 500;
    bool cross = false;
    if (edges) {
      cross = EdgeShape(rng, f, unit, sram_end - sram_begin, knobs);
    } else {
      PlainShape(rng, f, unit, sram_end - sram_begin, knobs.ext_end - knobs.ext_begin);
    }
    if (Place(rng, f, unit, sram_begin, sram_end, knobs, cross)) {
      return golden::EncodeDma(op, f, golden::Header{});
    }
  }
  throw std::logic_error(fmt::format("RandomDma: no transfer of SRAM {} fits ext [{:#x}, {:#x})",
                                     knobs.sram, knobs.ext_begin, knobs.ext_end));
}

Descriptor RandomDma(Rng& rng, const golden::AccelGeometry& geometry, Op op, uint64_t ext_limit,
                     uint32_t sram) {
  DmaKnobs knobs;
  knobs.sram = sram;
  knobs.ext_end = ext_limit;
  return RandomDma(rng, geometry, op, knobs);
}

Descriptor RandomMove(Rng& rng, const golden::AccelGeometry& g, uint32_t dst) {
  for (;;) {
    golden::MoveFields f;
    f.dst = dst != 0 ? dst : uint32_t(rng.Uniform(1, 2));
    const uint32_t max0 = f.dst == kSramA ? uint32_t(g.cols) : uint32_t(g.rows);
    f.count0 = rng.Uniform(0, 2) == 0 ? max0 : uint32_t(rng.Uniform(1, max0));
    f.count1 = uint32_t(rng.Uniform(1, 3));
    f.count2 = uint32_t(rng.Uniform(1, 2));
    const uint64_t entries = 4 * uint64_t(g.out_depth);
    f.src_stride1 = uint32_t(4 * rng.Uniform(0, 2 * g.rows / 4 + 2));
    f.src_stride2 = uint32_t(4 * rng.Uniform(0, 64));
    const uint64_t src_span =
        uint64_t(f.count1 - 1) * f.src_stride1 + uint64_t(f.count2 - 1) * f.src_stride2 + g.rows;
    const uint64_t depth = f.dst == kSramA ? g.a_depth : g.b_depth;
    f.dst_stride1 = uint32_t(rng.Uniform(0, 2 * max0));
    f.dst_stride2 = uint32_t(rng.Uniform(0, 100));
    const uint64_t dst_span =
        uint64_t(f.count1 - 1) * f.dst_stride1 + uint64_t(f.count2 - 1) * f.dst_stride2 + f.count0;
    if (src_span > entries || dst_span > depth) continue;
    f.src_base = uint32_t(4 * rng.Uniform(0, int64_t((entries - src_span) / 4)));
    f.dst_base = uint32_t(rng.Uniform(0, int64_t(depth - dst_span)));
    return golden::EncodeMove(f, golden::Header{});
  }
}

void RandomEltwiseAdd(Rng& rng, golden::EltwiseFields& f) {
  f.form = rng.Chance(50) ? golden::kEltwiseFormSeed : golden::kEltwiseFormTflite;
  const bool seed = f.form == golden::kEltwiseFormSeed;
  if (rng.Chance(50)) {  // golden's derivation from specs of random scales and zero points
    const auto spec = [&] {
      golden::QuantSpec s;
      s.is_signed = seed || rng.Chance(60);
      s.scale = double(rng.Uniform(1, 400)) / 1000.0;
      if (!seed) s.zero_point = int32_t(rng.Uniform(s.qmin(), s.qmax()));
      return s;
    };
    const golden::QuantSpec a = spec(), b = spec(), y = spec();
    try {
      golden::AddParams params = golden::MakeAddParams(
          a, b, y, seed ? golden::AddForm::kSeedSymmetric : golden::AddForm::kTfliteAsymmetric);
      params.seed.rounding = golden::kAllRoundingModes[rng.Uniform(0, 4)];
      params.seed.overflow = rng.Chance(50) ? golden::IntermediateOverflow::kWrap
                                            : golden::IntermediateOverflow::kSaturate;
      const golden::EltwiseFields d = golden::EltwiseAddFields(params, golden::EltwiseOp(f.op));
      const uint32_t count = f.count, src_a = f.src_a, src_b = f.src_b, dst = f.dst;
      const golden::LutFields lut = f.lut;
      f = d;
      f.count = count, f.src_a = src_a, f.src_b = src_b, f.dst = dst, f.lut = lut;
      return;
    } catch (const std::invalid_argument&) {
      // A scale ratio the form cannot hold: the fields below instead.
    }
  }
  f.a_unsigned = rng.Chance(50);
  f.b_unsigned = rng.Chance(50);
  f.y_unsigned = rng.Chance(50);
  const auto q31 = [&] {
    return rng.Pick<uint32_t>(
        {0u, 1u << 30, 0x7FFFFFFFu, uint32_t(rng.Uniform(1 << 30, 0x7FFFFFFF))});
  };
  const auto shift = [&] { return int32_t(rng.Pick<int64_t>({0, -31, rng.Uniform(-31, 0)})); };
  if (seed) {
    f.mult_a = uint32_t(rng.Pick<int64_t>({0, 127, rng.Uniform(0, 127)}));
    f.mult_b = uint32_t(rng.Pick<int64_t>({0, 127, rng.Uniform(0, 127)}));
    f.rshift = uint32_t(rng.Pick<int64_t>({0, 62, rng.Uniform(0, 20)}));
    f.rounding = uint32_t(rng.Uniform(0, 4));
    f.wrap = rng.Chance(50);
  } else {
    f.zp_a = int32_t(rng.Uniform(-256, 255));
    f.zp_b = int32_t(rng.Uniform(-256, 255));
    f.zp_y = int32_t(rng.Uniform(-256, 255));
    f.left_shift = uint32_t(rng.Pick<int64_t>({0, 20, rng.Uniform(0, 20)}));
    f.mult_a = q31(), f.mult_b = q31(), f.mult_y = q31();
    f.shift_a = shift(), f.shift_b = shift(), f.shift_y = shift();
  }
  const int32_t lo = f.y_unsigned ? 0 : -128, hi = f.y_unsigned ? 255 : 127;
  f.clamp_min = lo, f.clamp_max = hi;
  if (rng.Chance(40)) {
    f.clamp_min = int32_t(rng.Uniform(lo, hi));
    f.clamp_max = rng.Chance(25) ? f.clamp_min : int32_t(rng.Uniform(f.clamp_min, hi));
  }
}

namespace {

// The add's fields of an ELTWISE without an add: any bits, legal or not (they are ignored).
void JunkAddFields(Rng& rng, golden::EltwiseFields& f) {
  f.form = uint32_t(rng.Uniform(0, 1));
  f.a_unsigned = rng.Chance(50), f.b_unsigned = rng.Chance(50), f.y_unsigned = rng.Chance(50);
  f.rounding = uint32_t(rng.Uniform(0, 7));
  f.wrap = rng.Chance(50);
  f.zp_a = int32_t(rng.Uniform(-256, 255)), f.zp_b = int32_t(rng.Uniform(-256, 255));
  f.zp_y = int32_t(rng.Uniform(-256, 255));
  f.left_shift = uint32_t(rng.Uniform(0, 31));
  f.clamp_min = int32_t(rng.Uniform(-256, 255)), f.clamp_max = int32_t(rng.Uniform(-256, 255));
  f.mult_a = uint32_t(rng.Next()), f.mult_b = uint32_t(rng.Next()), f.mult_y = uint32_t(rng.Next());
  f.shift_a = int32_t(rng.Uniform(-32, 31)), f.shift_b = int32_t(rng.Uniform(-32, 31));
  f.shift_y = int32_t(rng.Uniform(-32, 31));
  f.rshift = uint32_t(rng.Uniform(0, 63));
}

}  // namespace

Descriptor RandomEltwise(Rng& rng, const golden::AccelGeometry& g, int op, uint32_t max_count) {
  golden::EltwiseFields f;
  f.op = uint32_t(op >= 0 ? op : rng.Uniform(0, 2));
  // At most a quarter of the out SRAM: a result and its disjoint sources always fit.
  max_count = std::min<uint32_t>(max_count, g.out_depth / 4);
  f.count = uint32_t(rng.Chance(20) ? 1 : rng.Uniform(1, max_count));
  if (f.has_lookup()) {
    f.lut.slot = uint32_t(rng.Uniform(0, g.lut_slots - 1));
    f.lut.in_bits = uint32_t(rng.Uniform(arch::kLutMinInBits, arch::kLutMaxInBits));
    f.lut.entry_bits = rng.Chance(50) ? 8 : 16;
  } else {  // ignored without a lookup: any bits, 16-bit entries often (the size must not double)
    f.lut.slot = uint32_t(rng.Uniform(0, 15));
    f.lut.in_bits = uint32_t(rng.Uniform(0, 15));
    f.lut.entry_bits = uint32_t(rng.Chance(50) ? 16 : rng.Uniform(0, 31));
  }
  const uint64_t depth = g.out_depth, count = f.count, result = f.result_words();
  // The result anywhere, at times at either end of the SRAM; each source in place (int8 output),
  // right before or right after it (the overlap rule's edges), or anywhere outside it. The sources
  // may share words with each other.
  const int64_t last_dst = int64_t(depth - result);
  f.dst = uint32_t(rng.Chance(15) ? last_dst : rng.Chance(10) ? 0 : rng.Uniform(0, last_dst));
  const auto outside = [&] {
    if (rng.Chance(40)) {
      if (rng.Chance(50) && f.dst + result + count <= depth) return uint32_t(f.dst + result);
      if (f.dst >= count) return uint32_t(f.dst - count);
    }
    if (rng.Chance(15) && f.dst + result <= depth - count) return uint32_t(depth - count);
    for (;;) {
      const uint64_t s = uint64_t(rng.Uniform(0, int64_t(depth - count)));
      if (s + count <= f.dst || s >= f.dst + result) return uint32_t(s);
    }
  };
  const auto source = [&] { return result == count && rng.Chance(25) ? f.dst : outside(); };
  f.src_a = source();
  f.src_b = f.has_add() && rng.Chance(20) ? f.src_a : source();
  if (f.has_add()) {
    RandomEltwiseAdd(rng, f);
  } else {
    JunkAddFields(rng, f);
    // SRC_B is not read: any word, past the end or inside the result at times.
    if (rng.Chance(30)) f.src_b = uint32_t(rng.Uniform(0, (1 << arch::kBaseBits) - 1));
    if (rng.Chance(20)) f.src_b = f.dst + uint32_t(rng.Uniform(0, int64_t(result) - 1));
  }
  const Descriptor d = golden::EncodeEltwise(f, golden::Header{});
  const golden::ProgramError error = golden::Validate(g, d);
  if (error != golden::ProgramError::kNone) {
    throw std::logic_error(fmt::format("RandomEltwise drew an illegal ELTWISE ({}): {}",
                                       golden::ProgramErrorName(error),
                                       golden::DescribeDescriptor(g, d)));
  }
  return d;
}

Descriptor RandomGemm(Rng& rng, const golden::AccelGeometry& g) {
  golden::GemmFields f;
  f.m = uint32_t(rng.Uniform(1, 20));
  f.n = uint32_t(rng.Uniform(1, 20));
  f.k = uint32_t(rng.Uniform(1, 24));
  const uint64_t mb = (f.m + g.rows - 1) / g.rows, nb = (f.n + g.cols - 1) / g.cols;
  f.mode = uint32_t(rng.Uniform(0, 63)) & ~arch::kModePerChannel;
  const bool out_raw = f.mode & arch::kModeOutRaw;
  if (out_raw && rng.Chance(50)) f.mode |= arch::kModePerChannel;
  f.a_base = uint32_t(rng.Uniform(0, int64_t(g.a_depth - mb * f.k)));
  f.b_base = uint32_t(rng.Uniform(0, int64_t(g.b_depth - nb * f.k)));
  f.bias_base = uint32_t(rng.Uniform(0, int64_t(g.bias_depth - nb)));
  f.rq_base = uint32_t(rng.Uniform(0, int64_t(g.rq_depth - nb)));
  const uint64_t out_words = out_raw ? mb * nb * g.rows : mb * nb * g.rows / 4;
  f.out_base = uint32_t(rng.Uniform(0, int64_t(g.out_depth - out_words)));
  f.zp_ab = uint32_t(rng.Uniform(-128, 255) & 0x1FF) | uint32_t(rng.Uniform(-128, 255) & 0x1FF)
                                                           << 16;
  f.zp_out = int32_t(rng.Uniform(-10, 10));
  f.clamp_min = rng.Chance(50) ? -128 : 0;
  f.clamp_max = f.clamp_min == 0 ? 255 : 127;
  f.mult = int32_t(rng.Uniform(int64_t{1} << 30, (int64_t{1} << 31) - 1));
  f.shift = uint32_t(rng.Uniform(-16, 0)) & ((1u << arch::kShiftBits) - 1);
  MaybeTpuMlirRequant(f);
  return golden::EncodeGemm(f, golden::Header{});
}

void MaybeTpuMlirRequant(golden::GemmFields& f) {
  Rng rng(uint64_t{f.m} << 40 ^ uint64_t{f.n} << 20 ^ f.k ^ uint64_t{f.out_base} << 44 ^
          uint64_t{f.a_base} * 0x9E3779B97F4A7C15ull);
  if (!rng.Chance(33)) return;
  const uint32_t width = uint32_t(rng.Uniform(0, 2));
  f.mode |= arch::kModeRqForm | uint32_t(rng.Uniform(0, 6)) << arch::kModeRshiftRoundLsb |
            width << arch::kModeMultWidthLsb;
  const int64_t half = int64_t{1} << (arch::MultWidthBits(width) - 1);
  f.mult = int32_t(rng.Uniform(-half, half - 1));
  f.shift = uint32_t(rng.Uniform(8, 30));
}

void AddTokens(std::vector<Descriptor>& program, Rng& rng, const golden::AccelGeometry& g,
               int extra) {
  const int n = int(program.size());
  std::vector<golden::Footprint> fp(static_cast<size_t>(n));
  std::vector<std::array<int, 2>> clock(
      static_cast<size_t>(n));  // per engine: descriptors known done before
  std::vector<int> seq[2];
  for (int j = 0; j < n; ++j) {
    fp[size_t(j)] = golden::FootprintOf(g, program[size_t(j)]);
    const auto op = golden::Op(golden::DecodeHeader(program[size_t(j)]).op);
    const int x = golden::EngineOf(op) == golden::Engine::kDma ? 0 : 1, y = 1 - x;
    std::array<int, 2> c = seq[x].empty() ? std::array<int, 2>{0, 0} : clock[size_t(seq[x].back())];
    c[size_t(x)] = int(seq[x].size()) + 1;
    bool need = rng.Chance(extra) && !seq[y].empty();
    for (size_t p = size_t(c[size_t(y)]); p < seq[y].size() && !need; ++p) {
      const golden::Footprint& k = fp[size_t(seq[y][p])];
      need = Overlap(k.writes, fp[size_t(j)].reads) || Overlap(k.writes, fp[size_t(j)].writes) ||
             Overlap(k.reads, fp[size_t(j)].writes);
    }
    if (need && c[size_t(y)] < int(seq[y].size())) {
      const int latest = seq[y].back();
      SetSignal(program[size_t(latest)]);
      SetWait(program[size_t(j)]);  // its matching SIGNAL is the latest one
      for (size_t e = 0; e < 2; ++e) c[e] = std::max(c[e], clock[size_t(latest)][e]);
    }
    clock[size_t(j)] = c;
    seq[x].push_back(j);
  }
}

std::vector<Descriptor> RandomProgram(Rng& rng, const golden::AccelGeometry& geometry, int n,
                                      const ProgramKnobs& knobs) {
  const int total = knobs.load + knobs.store + knobs.move + knobs.gemm + knobs.eltwise;
  std::vector<Descriptor> p;
  for (int i = 0; i < n; ++i) {
    int r = int(rng.Uniform(0, total - 1));
    if ((r -= knobs.load) < 0) {
      p.push_back(RandomDma(rng, geometry, Op::kLoad, knobs.dma));
    } else if ((r -= knobs.store) < 0) {
      p.push_back(RandomDma(rng, geometry, Op::kStore, knobs.dma));
    } else if ((r -= knobs.move) < 0) {
      p.push_back(RandomMove(rng, geometry));
    } else if ((r -= knobs.eltwise) < 0) {
      p.push_back(RandomEltwise(rng, geometry));
    } else {
      p.push_back(RandomGemm(rng, geometry));
    }
  }
  AddTokens(p, rng, geometry, knobs.extra_tokens);
  return p;
}

std::vector<Descriptor> RandomProgram(Rng& rng, const golden::AccelGeometry& geometry, int n,
                                      uint64_t data_limit, int extra) {
  ProgramKnobs knobs;
  knobs.extra_tokens = extra;
  knobs.dma.ext_end = data_limit;
  return RandomProgram(rng, geometry, n, knobs);
}

std::vector<uint8_t> DescriptorBytes(const std::vector<Descriptor>& program) {
  std::vector<uint8_t> bytes(program.size() * golden::kDescriptorBytes);
  for (size_t i = 0; i < program.size(); ++i) {
    for (int w = 0; w < golden::kDescriptorWords; ++w) {
      for (int b = 0; b < 4; ++b) {
        bytes[i * golden::kDescriptorBytes + size_t(4 * w + b)] =
            uint8_t(program[i][size_t(w)] >> (8 * b));
      }
    }
  }
  return bytes;
}

}  // namespace qacc::sim
