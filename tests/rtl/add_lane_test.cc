// qacc_add_lane (Verilated) against golden: each parameter set runs every one of the 65,536 operand
// byte pairs, one per cycle, and each result is checked ADD_LANE_LATENCY cycles later against
// golden's EltwiseCode (golden Add on the descriptor's fields, then the clamp; golden/lut_unit.h).
// Parameter sets: golden's MakeAddParams for scale triples of both forms, and random legal fields
// with each one's extremes (multipliers 0, 2^30 and 2^31 - 1, shifts -31 and 0, left shifts 0 and
// 20, rshifts 0, 15..18 and 62, every rounding, both overflow modes, zero points and clamps at
// their ends).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vqacc_add_lane.h"
#include "golden/add.h"
#include "golden/lut_unit.h"
#include "golden/quant.h"
#include "spec/arch_spec.h"
#include "tests/rtl/rtl_test_util.h"
#include "verilated.h"

namespace qacc {
namespace {

using golden::EltwiseFields;
using rtl_test::MismatchLog;

constexpr int kLatency = arch::kAddLaneLatency;

std::string Describe(const EltwiseFields& f) {
  if (f.form == golden::kEltwiseFormSeed) {
    return fmt::format(
        "seed M=({}, {}) rshift {} rounding {} wrap {} unsigned a{} b{} y{} clamp [{}, {}]",
        f.mult_a, f.mult_b, f.rshift, f.rounding, f.wrap, f.a_unsigned, f.b_unsigned, f.y_unsigned,
        f.clamp_min, f.clamp_max);
  }
  return fmt::format(
      "tflite Z=({}, {}, {}) ls {} M=({:#x}, {:#x}, {:#x}) shift=({}, {}, {}) unsigned a{} b{} y{} "
      "clamp [{}, {}]",
      f.zp_a, f.zp_b, f.zp_y, f.left_shift, f.mult_a, f.mult_b, f.mult_y, f.shift_a, f.shift_b,
      f.shift_y, f.a_unsigned, f.b_unsigned, f.y_unsigned, f.clamp_min, f.clamp_max);
}

// Runs every operand pair through the lane under `f`; returns the mismatches.
class AddLaneBench {
 public:
  AddLaneBench() {
    lane_->clk_i = 0;
    lane_->eval();
  }
  ~AddLaneBench() { lane_->final(); }

  void RunAllPairs(const EltwiseFields& f) {
    ASSERT_EQ(golden::ValidateEltwise(f, 64, 4), golden::EltwiseCheck::kNone) << Describe(f);
    const golden::AddParams params = golden::EltwiseAddParams(f);
    Configure(f);
    std::deque<int32_t> due;
    // After the edge of iteration p, y_o holds the result of pair p - (kLatency - 1).
    for (int pair = 0; pair < 65536 + kLatency - 1; ++pair) {
      if (pair < 65536) {
        const auto a = static_cast<uint8_t>(pair >> 8);
        const auto b = static_cast<uint8_t>(pair);
        lane_->a_i = a;
        lane_->b_i = b;
        due.push_back(golden::EltwiseCode(f, params, a, b));
      }
      lane_->clk_i = 1;
      lane_->eval();
      lane_->clk_i = 0;
      lane_->eval();
      if (pair + 1 >= kLatency) {
        const int pair_out = pair + 1 - kLatency;
        const auto got = static_cast<int32_t>(rtl_test::SignExtend(lane_->y_o, 9));
        if (got != due.front()) {
          mismatches_.Add(fmt::format("a {:#04x} b {:#04x}: {} expected {} under {}", pair_out >> 8,
                                      pair_out & 0xFF, got, due.front(), Describe(f)));
        }
        due.pop_front();
        ++checked_;
      }
    }
  }

  uint64_t checked() const { return checked_; }
  const MismatchLog& mismatches() const { return mismatches_; }

 private:
  void Configure(const EltwiseFields& f) {
    const auto bits = [](int32_t v, int width) {
      return static_cast<uint32_t>(v) & ((1u << width) - 1);
    };
    lane_->seed_i = f.form == golden::kEltwiseFormSeed;
    lane_->a_unsigned_i = f.a_unsigned;
    lane_->b_unsigned_i = f.b_unsigned;
    lane_->zp_a_i = bits(f.zp_a, 9);
    lane_->zp_b_i = bits(f.zp_b, 9);
    lane_->zp_y_i = bits(f.zp_y, 9);
    lane_->left_shift_i = f.left_shift;
    lane_->mult_a_i = f.mult_a;
    lane_->mult_b_i = f.mult_b;
    lane_->mult_y_i = f.mult_y;
    lane_->shift_a_i = bits(f.shift_a, 6);
    lane_->shift_b_i = bits(f.shift_b, 6);
    lane_->shift_y_i = bits(f.shift_y, 6);
    lane_->rshift_i = f.rshift;
    lane_->rounding_i = f.rounding;
    lane_->wrap_i = f.wrap;
    lane_->clamp_min_i = bits(f.clamp_min, 9);
    lane_->clamp_max_i = bits(f.clamp_max, 9);
  }

  std::unique_ptr<VerilatedContext> context_ = std::make_unique<VerilatedContext>();
  std::unique_ptr<Vqacc_add_lane> lane_ = std::make_unique<Vqacc_add_lane>(context_.get());
  uint64_t checked_ = 0;
  MismatchLog mismatches_;
};

void ExpectClean(const AddLaneBench& bench, uint64_t sets) {
  EXPECT_EQ(bench.mismatches().count(), 0u) << "first mismatch: " << bench.mismatches().first();
  EXPECT_EQ(bench.checked(), sets * 65536);
}

// The clamp of a result type: its whole range, or a random sub-range.
void RandomClamp(EltwiseFields& f, std::mt19937& rng) {
  const int lo = f.y_unsigned ? 0 : -128;
  const int hi = f.y_unsigned ? 255 : 127;
  if (rng() % 2) {
    f.clamp_min = lo;
    f.clamp_max = hi;
    return;
  }
  const int a = lo + static_cast<int>(rng() % (hi - lo + 1));
  const int b = lo + static_cast<int>(rng() % (hi - lo + 1));
  f.clamp_min = std::min(a, b);
  f.clamp_max = std::max(a, b);
}

EltwiseFields FromGolden(const golden::AddParams& p) {
  return golden::EltwiseAddFields(p, golden::EltwiseOp::kAdd);
}

TEST(AddLaneRtl, GoldensParamsForScaleTriples) {
  using golden::QuantSpec;
  const auto spec = [](bool is_signed, double scale, int32_t zp) {
    return QuantSpec{8, is_signed, false, scale, zp};
  };
  struct Triple {
    QuantSpec a, b, y;
  };
  const Triple triples[] = {{spec(true, 0.05, 0), spec(true, 0.03, 0), spec(true, 0.07, 0)},
                            {spec(false, 0.02, 0), spec(false, 0.02, 0), spec(false, 0.03, 0)},
                            {spec(true, 0.5, 0), spec(false, 0.004, 0), spec(true, 0.01, 0)}};
  const Triple asymmetric[] = {
      {spec(true, 0.05, -3), spec(true, 0.03, 7), spec(true, 0.07, 1)},
      {spec(false, 0.02, 128), spec(false, 0.05, 3), spec(false, 0.06, 200)},
      {spec(true, 0.1, -128), spec(false, 0.001, 255), spec(true, 0.0005, 127)}};
  AddLaneBench bench;
  uint64_t sets = 0;
  for (const Triple& t : triples) {
    bench.RunAllPairs(
        FromGolden(golden::MakeAddParams(t.a, t.b, t.y, golden::AddForm::kSeedSymmetric)));
    bench.RunAllPairs(
        FromGolden(golden::MakeAddParams(t.a, t.b, t.y, golden::AddForm::kTfliteAsymmetric)));
    sets += 2;
  }
  for (const Triple& t : asymmetric) {
    bench.RunAllPairs(
        FromGolden(golden::MakeAddParams(t.a, t.b, t.y, golden::AddForm::kTfliteAsymmetric)));
    ++sets;
  }
  ExpectClean(bench, sets);
}

TEST(AddLaneRtl, RandomSeedFieldsWithTheirExtremes) {
  std::mt19937 rng(1);
  AddLaneBench bench;
  const uint32_t rshifts[] = {0, 1, 7, 15, 16, 17, 18, 40, 62};
  uint64_t sets = 0;
  for (uint32_t rounding = 0; rounding < 5; ++rounding) {
    for (int wrap = 0; wrap < 2; ++wrap) {
      for (int k = 0; k < 3; ++k) {
        EltwiseFields f;
        f.op = uint32_t(golden::EltwiseOp::kAdd);
        f.form = golden::kEltwiseFormSeed;
        f.rounding = rounding;
        f.wrap = wrap != 0;
        f.a_unsigned = rng() % 2;
        f.b_unsigned = rng() % 2;
        f.y_unsigned = rng() % 2;
        const uint32_t extremes[] = {0, 1, 127};
        f.mult_a = k == 0 ? extremes[rng() % 3] : rng() % 128;
        f.mult_b = k == 0 ? extremes[rng() % 3] : rng() % 128;
        f.rshift = k == 2 ? static_cast<uint32_t>(rng() % 63) : rshifts[rng() % std::size(rshifts)];
        RandomClamp(f, rng);
        bench.RunAllPairs(f);
        ++sets;
      }
    }
  }
  ExpectClean(bench, sets);
}

TEST(AddLaneRtl, RandomTfliteFieldsWithTheirExtremes) {
  std::mt19937 rng(2);
  AddLaneBench bench;
  const auto q31 = [&rng](int k) {
    const uint32_t extremes[] = {0, 1u << 30, (1u << 31) - 1};
    return k == 0 ? extremes[rng() % 3] : (1u << 30) + (rng() & ((1u << 30) - 1));
  };
  const auto shift = [&rng](int k) {
    const int32_t extremes[] = {-31, 0};
    return k == 0 ? extremes[rng() % 2] : -static_cast<int32_t>(rng() % 32);
  };
  const auto zp = [&rng](int k) {
    const int32_t extremes[] = {-256, -128, 0, 127, 255};
    return k == 0 ? extremes[rng() % 5] : static_cast<int32_t>(rng() % 512) - 256;
  };
  uint64_t sets = 0;
  for (int k = 0; k < 24; ++k) {
    EltwiseFields f;
    f.op = uint32_t(golden::EltwiseOp::kAdd);
    f.form = golden::kEltwiseFormTflite;
    const int edge = k % 3;
    f.a_unsigned = rng() % 2;
    f.b_unsigned = rng() % 2;
    f.y_unsigned = rng() % 2;
    f.zp_a = zp(edge);
    f.zp_b = zp(edge);
    f.zp_y = zp(edge);
    f.left_shift = edge == 0 ? (rng() % 2 ? 20 : 0) : static_cast<uint32_t>(rng() % 21);
    f.mult_a = q31(edge);
    f.mult_b = q31(edge);
    f.mult_y = q31(edge);
    f.shift_a = shift(edge);
    f.shift_b = shift(edge);
    // A realistic output shift keeps results inside the clamp often enough to test the rounding,
    // not just it.
    f.shift_y = edge == 2 ? -static_cast<int32_t>(10 + f.left_shift / 2 + rng() % 8) : shift(edge);
    RandomClamp(f, rng);
    bench.RunAllPairs(f);
    ++sets;
  }
  ExpectClean(bench, sets);
}

}  // namespace
}  // namespace qacc
