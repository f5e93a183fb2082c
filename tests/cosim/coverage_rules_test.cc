// The rule bins' classifier of validation checks (sim/cosim/coverage_rules.h) against an
// independent oracle: golden::Validate, which reports the first failing check of a descriptor. On
// random descriptors drawn near every check's boundary, for every opcode and every shipped config,
// the classifier's first failing check must be golden's verdict, and no check must fail on a legal
// descriptor. The `order.*` bins then count exactly the descriptors whose second failing check is
// the next one in the spec's order.
#include "sim/cosim/coverage_rules.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "golden/program.h"
#include "model/arch.h"
#include "sim/build_paths.h"
#include "sim/testgen/rng.h"

namespace qacc::cosim {
namespace {

using golden::Descriptor;

// A value at or next to `edge`, or anywhere below `limit`.
uint32_t Near(sim::Rng& rng, uint64_t edge, uint64_t limit) {
  if (rng.Chance(30)) return uint32_t(rng.Uniform(0, int64_t(limit - 1)));
  return uint32_t(std::min<uint64_t>(
      limit - 1, edge + uint64_t(rng.Uniform(0, 2)) - std::min<uint64_t>(edge, 1)));
}

Descriptor RandomGemmNearEdges(sim::Rng& rng, const arch::ArchConfig& c) {
  golden::GemmFields f;
  auto dim = [&] {
    return rng.Chance(15) ? 0u : uint32_t(rng.Pick<int64_t>({1, 2, rng.Uniform(1, 300)}));
  };
  f.m = dim();
  f.n = dim();
  f.k = dim();
  const uint64_t mb = (f.m + c.rows - 1) / c.rows, nb = (f.n + c.cols - 1) / c.cols;
  constexpr uint64_t kBase = uint64_t{1} << 20;
  auto base = [&](uint64_t depth, uint64_t used) {
    return Near(rng, depth > used ? depth - used : 0, kBase);
  };
  f.a_base = base(c.a_depth, mb * f.k);
  f.b_base = base(c.b_depth, nb * f.k);
  f.bias_base = base(c.bias_depth, nb);
  f.rq_base = base(c.rq_depth, nb);
  f.out_base = base(c.out_depth, mb * nb * uint64_t(c.rows) / (rng.Chance(50) ? 1 : 4));
  f.mode = uint32_t(rng.Uniform(0, 127)) |
           (rng.Chance(15) ? uint32_t(rng.Uniform(1, 15)) << 8 : 0) |
           uint32_t(rng.Uniform(0, 31)) << 25;  // RQ_FORM (bit 6), RSHIFT_ROUND, MULT_WIDTH
  auto zp = [&] {
    return uint32_t(rng.Pick<int64_t>({-129, -128, 255, 256, rng.Uniform(-256, 255)})) & 0x1FF;
  };
  f.zp_ab = zp() | zp() << 16;
  f.shift = uint32_t(rng.Pick<int64_t>({-32, -31, 30, 31, 63, 64, rng.Uniform(-128, 127)})) & 0xFF;
  f.mult = int32_t(rng.Pick<int64_t>(
      {0, 1, (int64_t{1} << 30) - 1, int64_t{1} << 30, -1, rng.Uniform(INT32_MIN, INT32_MAX)}));
  f.clamp_min = int32_t(rng.Pick<int64_t>({-129, -128, 0, 255, 256}));
  f.clamp_max = int32_t(rng.Pick<int64_t>({-129, -128, 0, 255, 256}));
  return golden::EncodeGemm(f, {});
}

Descriptor RandomDmaNearEdges(sim::Rng& rng, const golden::AccelGeometry& g, golden::Op op) {
  golden::DmaFields f;
  auto count = [&] { return uint32_t(rng.Pick<int64_t>({0, 1, 2, 65535, rng.Uniform(1, 70)})); };
  f.count0 = count();
  f.count1 = count();
  f.count2 = count();
  f.sram = uint32_t(rng.Pick<int64_t>({0, 1, 2, 3, 4, 5, 6, 7, rng.Uniform(1, 5)}));
  f.out_int32 = rng.Chance(50);
  const uint64_t unit = std::max<uint32_t>(1, golden::UnitBytes(g, f.sram, f.out_int32));
  const uint64_t units =
      f.sram >= 1 && f.sram <= 5 ? golden::SramUnits(g, f.sram, f.out_int32) : 1024;
  f.sram_stride1 = uint32_t(rng.Pick<int64_t>({0, 1, rng.Uniform(0, 64)}));
  f.sram_stride2 = uint32_t(rng.Pick<int64_t>({0, 1, rng.Uniform(0, 64)}));
  const uint64_t span = (f.count0 ? f.count0 - 1 : 0) +
                        uint64_t(f.count1 ? f.count1 - 1 : 0) * f.sram_stride1 +
                        uint64_t(f.count2 ? f.count2 - 1 : 0) * f.sram_stride2;
  f.sram_base = Near(rng, units > span ? units - span - 1 : 0, uint64_t{1} << 20);
  auto aligned = [&](uint64_t v) { return rng.Chance(80) ? v / unit * unit : v; };
  f.ext_stride1 = uint32_t(aligned(uint64_t(rng.Uniform(0, 1 << 14))));
  f.ext_stride2 = uint32_t(aligned(uint64_t(rng.Uniform(0, 1 << 14))));
  const uint64_t bytes = uint64_t(f.count0) * unit +
                         uint64_t(f.count1 ? f.count1 - 1 : 0) * f.ext_stride1 +
                         uint64_t(f.count2 ? f.count2 - 1 : 0) * f.ext_stride2;
  const uint64_t top = uint64_t{1} << 32;
  f.ext_addr = uint32_t(aligned(rng.Chance(50) && bytes < top
                                    ? top - bytes + uint64_t(rng.Uniform(0, 1)) * unit - unit
                                    : uint64_t(rng.Uniform(0, 1 << 20))));
  return golden::EncodeDma(op, f, {});
}

Descriptor RandomMoveNearEdges(sim::Rng& rng, const golden::AccelGeometry& g) {
  golden::MoveFields f;
  f.dst = uint32_t(rng.Pick<int64_t>({0, 1, 2, 3, 7, rng.Uniform(1, 2)}));
  const uint32_t max0 = f.dst == 1 ? uint32_t(g.cols) : uint32_t(g.rows);
  f.count0 = uint32_t(rng.Pick<int64_t>({0, 1, max0, max0 + 1, rng.Uniform(1, max0)}));
  f.count1 = uint32_t(rng.Pick<int64_t>({0, 1, 2, rng.Uniform(1, 40)}));
  f.count2 = uint32_t(rng.Pick<int64_t>({0, 1, 2, rng.Uniform(1, 40)}));
  auto stride = [&] { return uint32_t(rng.Uniform(0, 300)) & (rng.Chance(85) ? ~3u : ~0u); };
  f.src_stride1 = stride();
  f.src_stride2 = stride();
  f.dst_stride1 = uint32_t(rng.Uniform(0, 300));
  f.dst_stride2 = uint32_t(rng.Uniform(0, 300));
  const uint64_t src_span = uint64_t(f.count1 ? f.count1 - 1 : 0) * f.src_stride1 +
                            uint64_t(f.count2 ? f.count2 - 1 : 0) * f.src_stride2 +
                            uint64_t(g.rows);
  const uint64_t entries = 4 * uint64_t(g.out_depth);
  f.src_base = Near(rng, entries > src_span ? entries - src_span : 0, uint64_t{1} << 20) &
               (rng.Chance(85) ? ~3u : ~0u);
  const uint64_t dst_span = uint64_t(f.count1 ? f.count1 - 1 : 0) * f.dst_stride1 +
                            uint64_t(f.count2 ? f.count2 - 1 : 0) * f.dst_stride2 + f.count0;
  const uint64_t depth = f.dst == 2 ? g.b_depth : g.a_depth;
  f.dst_base = Near(rng, depth > dst_span ? depth - dst_span : 0, uint64_t{1} << 20);
  return golden::EncodeMove(f, {});
}

TEST(RuleCoverage, FirstFailingCheckIsGoldensVerdict) {
  for (const char* name : {"default", "rect_4x16", "tall_16x4"}) {
    const arch::ArchConfig config =
        arch::LoadArchConfig(std::string(QACC_SOURCE_DIR) + "/configs/" + name + ".json");
    const golden::AccelGeometry g = compiler::GeometryOf(config);
    sim::Rng rng(0x5eed0000u + uint64_t(config.rows));
    int legal = 0, two_or_more = 0;
    for (int i = 0; i < 40000; ++i) {
      Descriptor d;
      switch (i % 4) {
        case 0:
          d = RandomGemmNearEdges(rng, config);
          break;
        case 1:
          d = RandomDmaNearEdges(rng, g, golden::Op::kLoad);
          break;
        case 2:
          d = RandomDmaNearEdges(rng, g, golden::Op::kStore);
          break;
        default:
          d = RandomMoveNearEdges(rng, g);
          break;
      }
      const std::vector<arch::ErrCode> failing = RuleCoverage::FailingChecks(config, d);
      const auto verdict = static_cast<arch::ErrCode>(golden::Validate(g, d));
      if (verdict == arch::ErrCode::kNone) {
        ++legal;
        ASSERT_TRUE(failing.empty())
            << name << " descriptor " << i << ": " << golden::DescribeDescriptor(g, d)
            << " is legal, yet fails " << arch::ErrCodeName(failing.front());
        continue;
      }
      ASSERT_FALSE(failing.empty())
          << name << " descriptor " << i << ": golden says " << arch::ErrCodeName(verdict);
      ASSERT_EQ(failing.front(), verdict)
          << name << " descriptor " << i << ": " << golden::DescribeDescriptor(g, d);
      two_or_more += failing.size() >= 2;
    }
    // The draws reach both sides: legal descriptors and descriptors failing several checks.
    EXPECT_GT(legal, 1000) << name;
    EXPECT_GT(two_or_more, 2000) << name;
  }
}

}  // namespace
}  // namespace qacc::cosim
