#include "sim/testgen/eltwise_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/lut_unit.h"
#include "golden/program.h"
#include "sim/testgen/dma_context.h"
#include "sim/testgen/lut_tests.h"
#include "sim/testgen/random_program.h"

namespace qacc::sim {

namespace {

using dma_test::Context;
using golden::Descriptor;

// A generator's own consistency: every descriptor it builds is legal.
Descriptor Legal(const Context& c, const Descriptor& d) {
  const golden::ProgramError error = golden::Validate(c.g, d);
  if (error != golden::ProgramError::kNone) {
    throw std::logic_error(fmt::format("eltwise test generator bug: {} fails with {}",
                                       golden::DescribeDescriptor(c.g, d),
                                       golden::ProgramErrorName(error)));
  }
  return d;
}

// A GEMM of RandomGemm's fields with the shape and bases given, int8 output (OUT_RAW and
// PER_CHANNEL off, so its requant fields are RandomGemm's legal ones).
golden::GemmFields Gemm(Rng& rng, const Context& c, uint32_t m, uint32_t n, uint32_t k) {
  golden::GemmFields f = golden::DecodeGemm(RandomGemm(rng, c.g));
  f.m = m, f.n = n, f.k = k;
  f.mode &= ~(arch::kModeOutRaw | arch::kModePerChannel);
  const uint64_t mb = (m + c.g.rows - 1) / c.g.rows, nb = (n + c.g.cols - 1) / c.g.cols;
  f.a_base = uint32_t(rng.Uniform(0, int64_t(c.g.a_depth - mb * k)));
  f.b_base = uint32_t(rng.Uniform(0, int64_t(c.g.b_depth - nb * k)));
  f.bias_base = uint32_t(rng.Uniform(0, int64_t(c.g.bias_depth - nb)));
  return f;
}

// `words` out words at a random base that shares none with [other, other + other_words).
uint32_t Apart(Rng& rng, const Context& c, uint64_t words, uint64_t other, uint64_t other_words) {
  for (;;) {
    const uint64_t base = uint64_t(rng.Uniform(0, int64_t(c.g.out_depth - words)));
    if (base + words <= other || base >= other + other_words) return uint32_t(base);
  }
}

// Golden's tables of random functions, input widths and 8-bit entries in every slot: written into
// the external memory after the data and loaded by the program's first descriptor.
std::vector<golden::Lut> LoadTables(Context& c, std::vector<Descriptor>& p) {
  std::vector<golden::Lut> luts;
  std::vector<uint8_t> image;
  for (int s = 0; s < c.g.lut_slots; ++s) {
    luts.push_back(
        RandomLut(c.rng, int(c.rng.Uniform(arch::kLutMinInBits, arch::kLutMaxInBits)), 8));
    const std::vector<uint8_t> slot = golden::LutSlotImage(luts.back());
    image.insert(image.end(), slot.begin(), slot.end());
  }
  const uint32_t at = uint32_t(c.data_end - image.size());
  c.b.WriteExt(at, image);
  golden::DmaFields f;
  f.sram = uint32_t(arch::Region::kLut);
  f.count0 = uint32_t(image.size() / golden::UnitBytes(c.g, f.sram, false));
  f.ext_addr = at;
  p.push_back(Legal(c, golden::EncodeDma(golden::Op::kLoad, f, golden::Header{})));
  return luts;
}

// GEMM -> ELTWISE (a lookup) -> MOVE into A -> GEMM: the second GEMM's A is the activation of
// the first one's output. M = R (one row of tiles), N = NB C, so the MOVE carries NB tiles of C
// columns into K = NB C words of A.
void LookupChain(Rng& rng, Context& c, const std::vector<golden::Lut>& luts,
                 std::vector<Descriptor>& p) {
  const uint32_t rows = uint32_t(c.g.rows), cols = uint32_t(c.g.cols);
  const uint32_t nb = uint32_t(rng.Uniform(1, 3)), words = nb * rows / 4;
  golden::GemmFields g1 = Gemm(rng, c, rows, nb * cols, uint32_t(rng.Uniform(1, 2 * rows)));
  g1.out_base = uint32_t(rng.Uniform(0, int64_t(c.g.out_depth - words)));
  p.push_back(Legal(c, golden::EncodeGemm(g1, golden::Header{})));

  golden::EltwiseFields e;
  e.op = uint32_t(golden::EltwiseOp::kLut);
  e.count = words;
  e.src_a = e.src_b = g1.out_base;
  e.lut.slot = uint32_t(rng.Uniform(0, c.g.lut_slots - 1));
  e.lut.in_bits = uint32_t(luts[e.lut.slot].in().bits);
  e.lut.entry_bits = 8;
  e.dst = rng.Chance(30) ? e.src_a : Apart(rng, c, words, e.src_a, words);
  p.push_back(Legal(c, golden::EncodeEltwise(e, golden::Header{})));

  golden::MoveFields mv;
  mv.dst = uint32_t(arch::Region::kA);
  mv.count0 = cols;
  mv.count1 = nb;
  mv.src_base = 4 * e.dst;  // an entry index: four entries a word
  mv.src_stride1 = rows;
  mv.dst_stride1 = cols;
  mv.dst_base = uint32_t(rng.Uniform(0, int64_t(c.g.a_depth - nb * cols)));
  p.push_back(Legal(c, golden::EncodeMove(mv, golden::Header{})));

  golden::GemmFields g2 = Gemm(rng, c, rows, uint32_t(rng.Uniform(1, 2 * cols)), nb * cols);
  g2.a_base = mv.dst_base;
  const uint64_t out2 = ((g2.n + cols - 1) / cols) * rows / 4;
  g2.out_base = uint32_t(rng.Uniform(0, int64_t(c.g.out_depth - out2)));
  p.push_back(Legal(c, golden::EncodeGemm(g2, golden::Header{})));
}

// Two GEMMs of one shape -> ELTWISE (ADD or ADD_LUT): a residual connection, in place on either
// operand or into other words.
void ResidualAdd(Rng& rng, Context& c, const std::vector<golden::Lut>& luts,
                 std::vector<Descriptor>& p) {
  const uint32_t rows = uint32_t(c.g.rows), cols = uint32_t(c.g.cols);
  const uint32_t m = uint32_t(rng.Uniform(1, 2 * rows)), n = uint32_t(rng.Uniform(1, 2 * cols));
  const uint64_t words = ((m + rows - 1) / rows) * ((n + cols - 1) / cols) * rows / 4;
  golden::GemmFields g1 = Gemm(rng, c, m, n, uint32_t(rng.Uniform(1, 2 * rows)));
  golden::GemmFields g2 = Gemm(rng, c, m, n, uint32_t(rng.Uniform(1, 2 * rows)));
  g1.out_base = uint32_t(rng.Uniform(0, int64_t(c.g.out_depth - words)));
  g2.out_base = Apart(rng, c, words, g1.out_base, words);
  p.push_back(Legal(c, golden::EncodeGemm(g1, golden::Header{})));
  p.push_back(Legal(c, golden::EncodeGemm(g2, golden::Header{})));

  golden::EltwiseFields e;
  e.op = uint32_t(rng.Chance(50) ? golden::EltwiseOp::kAdd : golden::EltwiseOp::kAddLut);
  e.count = uint32_t(words);
  e.src_a = g1.out_base;
  e.src_b = g2.out_base;
  if (e.op == uint32_t(golden::EltwiseOp::kAddLut)) {
    e.lut.slot = uint32_t(rng.Uniform(0, c.g.lut_slots - 1));
    e.lut.in_bits = uint32_t(luts[e.lut.slot].in().bits);
    e.lut.entry_bits = 8;
  }
  RandomEltwiseAdd(rng, e);
  const int where = int(rng.Uniform(0, 2));  // in place on a, on b, or outside both
  if (where < 2) {
    e.dst = where == 0 ? e.src_a : e.src_b;
  } else {
    const auto apart = [&](uint32_t s) { return e.dst + words <= s || e.dst >= s + words; };
    do {
      e.dst = uint32_t(rng.Uniform(0, int64_t(c.g.out_depth - words)));
    } while (!apart(e.src_a) || !apart(e.src_b));
  }
  p.push_back(Legal(c, golden::EncodeEltwise(e, golden::Header{})));
}

}  // namespace

Program GenEltwise(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();
  ProgramKnobs k;
  k.load = 2, k.store = 2, k.move = 1, k.gemm = 2, k.eltwise = 6;
  k.dma = c.Knobs();
  for (int i = int(rng.Uniform(1, 2)); i > 0; --i) {
    c.Emit(RandomProgram(rng, c.g, int(rng.Uniform(4, 12)), k), "ELTWISE among other commands");
  }
  return c.b.Take();
}

Program GenEltwiseWhole(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();
  const uint32_t depth = std::min<uint32_t>(c.g.out_depth, (1u << arch::kDimBits) - 1);
  const auto lookup = [&](golden::EltwiseFields& f, uint32_t entry_bits) {
    f.lut = {uint32_t(rng.Uniform(0, c.g.lut_slots - 1)),
             uint32_t(rng.Uniform(arch::kLutMinInBits, arch::kLutMaxInBits)), entry_bits};
  };
  std::vector<Descriptor> p;
  golden::EltwiseFields whole;  // a lookup over every word, in place
  whole.op = uint32_t(golden::EltwiseOp::kLut);
  whole.count = depth;
  lookup(whole, 8);
  p.push_back(Legal(c, golden::EncodeEltwise(whole, {})));
  golden::EltwiseFields halves;  // the first half plus the second, into the first
  halves.op = uint32_t(golden::EltwiseOp::kAdd);
  halves.count = depth / 2;
  halves.src_b = depth / 2;
  RandomEltwiseAdd(rng, halves);
  p.push_back(Legal(c, golden::EncodeEltwise(halves, {})));
  golden::EltwiseFields wide;  // 16-bit entries of the top third into the two thirds below it
  wide.op = uint32_t(golden::EltwiseOp::kLut);
  wide.count = depth / 3;
  wide.src_a = depth - wide.count;
  lookup(wide, 16);
  p.push_back(Legal(c, golden::EncodeEltwise(wide, {})));
  golden::EltwiseFields edge;  // an add of 16-bit entries whose b ends at the last word
  edge.op = uint32_t(golden::EltwiseOp::kAddLut);
  edge.count = depth / 4;
  edge.src_b = depth - edge.count;
  edge.dst = edge.count;
  lookup(edge, 16);
  RandomEltwiseAdd(rng, edge);
  p.push_back(Legal(c, golden::EncodeEltwise(edge, {})));
  c.Emit(p, "ELTWISE over the whole out SRAM, its halves, its thirds and its last quarter");
  return c.b.Take();
}

Program GenEltwiseChain(Rng& rng, const arch::ArchConfig& config) {
  Context c(rng, config);
  c.Setup();
  std::vector<Descriptor> p;
  const std::vector<golden::Lut> luts = LoadTables(c, p);
  for (int i = int(rng.Uniform(2, 4)); i > 0; --i) {
    if (rng.Chance(50)) {
      LookupChain(rng, c, luts, p);
    } else {
      ResidualAdd(rng, c, luts, p);
    }
  }
  AddTokens(p, rng, c.g, 10);
  c.Emit(p, "chains through ELTWISE");
  return c.b.Take();
}

}  // namespace qacc::sim
