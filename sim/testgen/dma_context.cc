#include "sim/testgen/dma_context.h"

#include <utility>

namespace qacc::sim::dma_test {

void Shuffle(Rng& rng, std::vector<Descriptor>& p) {
  for (size_t i = p.size(); i > 1; --i)
    std::swap(p[i - 1], p[size_t(rng.Uniform(0, int64_t(i) - 1))]);
}

Descriptor SmallDma(Context& c, Op op, uint32_t sram, uint64_t begin, uint64_t end) {
  golden::DmaFields f;
  f.sram = sram;
  f.out_int32 = sram == kSramOut && c.rng.Chance(50);
  const uint64_t unit = golden::UnitBytes(c.g, sram, f.out_int32);
  const uint64_t units = golden::SramUnits(c.g, sram, f.out_int32);
  if (end == 0 || end > units) end = units;
  f.count0 = uint32_t(c.rng.Uniform(1, 4));
  f.sram_base = uint32_t(c.rng.Uniform(int64_t(begin), int64_t(end - f.count0)));
  f.ext_addr = uint32_t(unit * uint64_t(c.rng.Uniform(0, int64_t((c.data_end - 4 * unit) / unit))));
  return golden::EncodeDma(op, f, golden::Header{});
}

Descriptor LongGemm(Context& c, int mb, int nb, int k) {
  golden::GemmFields f;
  f.m = uint32_t(mb * c.g.rows);
  f.n = uint32_t(nb * c.g.cols);
  f.k = uint32_t(k);
  f.mode = uint32_t(c.rng.Uniform(0, 63)) &
           (arch::kModeRounding | arch::kModeOutRaw | arch::kModeAUnsigned | arch::kModeBUnsigned);
  // The LUT fields without ACT = LUT: ignored (lut.md 10.4).
  if (c.rng.Chance(50)) {
    f.mode |= uint32_t(c.rng.Next()) &
              (arch::kModeLutSlotMask | arch::kModeLutInBitsMask | arch::kModeLutEntryBitsMask);
  }
  f.zp_ab = uint32_t(c.rng.Uniform(-128, 255) & 0x1FF);
  f.mult = int32_t(c.rng.Uniform(int64_t{1} << 30, (int64_t{1} << 31) - 1));
  f.shift = uint32_t(c.rng.Uniform(-16, -4)) & ((1u << arch::kShiftBits) - 1);
  return golden::EncodeGemm(f, golden::Header{});
}

ErrCode RangeCode(uint32_t sram) { return arch::FindSram(sram)->range_error; }

void RequireError(const Context& c, const Descriptor& bad, ErrCode want) {
  const golden::ProgramError got = golden::Validate(c.g, bad);
  if (uint32_t(got) != uint32_t(want)) {
    throw std::logic_error(fmt::format("dma test generator bug: {} descriptor gives {}",
                                       arch::ErrCodeName(want), golden::ProgramErrorName(got)));
  }
}

}  // namespace qacc::sim::dma_test
