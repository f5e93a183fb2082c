// qacc_requant_lane (Verilated) against golden RequantizeAccumulator in both forms (TFLite's and
// TPU-MLIR's, docs/requant.md 6.1), bit-exact, one beat per cycle, and the latency of
// docs/architecture.md (configs/*.json "latency.requant").
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <iterator>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "Vqacc_requant_lane.h"
#include "golden/gemm.h"
#include "golden/requant.h"
#include "tests/rtl/rtl_test_util.h"
#include "verilated.h"

namespace qacc {
namespace {

using golden::RequantForm;
using golden::RequantParams;
using golden::RequantRounding;
namespace tpu_mlir = golden::tpu_mlir;
using rtl_test::MismatchLog;

constexpr int kLatency = QACC_CFG_REQUANT_LATENCY;
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kQ31Half = int32_t{1} << 30;  // smallest normalised multiplier
constexpr int kShiftBits = 8;

// CMD_MODE's codes of the TPU-MLIR form (docs/requant.md 6.1): the rounding is golden's
// tpu_mlir::kAllRoundings index, the width 8 << code.
uint8_t RshiftRoundCode(tpu_mlir::Rounding mode) {
  for (size_t i = 0; i < std::size(tpu_mlir::kAllRoundings); ++i) {
    if (tpu_mlir::kAllRoundings[i] == mode) return static_cast<uint8_t>(i);
  }
  throw std::logic_error("rounding mode without a code");
}
uint8_t MultWidthCode(int bits) { return bits == 8 ? 0 : (bits == 16 ? 1 : 2); }

// One input beat of the lane.
struct LaneInput {
  int32_t acc = 0;
  int32_t bias = 0;
  bool raw = false;
  RequantParams params;
};

std::string Describe(const LaneInput& in) {
  const bool tpu = in.params.form == RequantForm::kTpuMlir;
  return fmt::format(
      "acc={} bias={} raw={} form={} mult={} shift={} rounding={} zp={} clamp=[{}, {}]", in.acc,
      in.bias, in.raw, golden::RequantFormName(in.params.form), in.params.multiplier,
      in.params.shift,
      tpu ? fmt::format("{} (width {})", tpu_mlir::RoundingName(in.params.rshift_rounding),
                        in.params.mult_bits)
          : std::string(golden::RequantRoundingName(in.params.rounding)),
      in.params.output_zero_point, in.params.clamp_min, in.params.clamp_max);
}

// The golden result: bias added with the wrapping 32-bit adder of golden Gemm, then
// RequantizeAccumulator.
int32_t Expected(const LaneInput& in) {
  const int32_t x =
      golden::WrapToInt32(static_cast<uint32_t>(in.acc) + static_cast<uint32_t>(in.bias));
  return in.raw ? x : golden::RequantizeAccumulator(x, in.params);
}

// Drives the Verilated lane one cycle at a time and checks every output beat's value and cycle.
class LaneBench {
 public:
  LaneBench() : context_(std::make_unique<VerilatedContext>()) {
    lane_ = std::make_unique<Vqacc_requant_lane>(context_.get());
    lane_->rst_ni = 0;
    lane_->valid_i = 0;
    for (int i = 0; i < 2; ++i) Cycle();
    lane_->rst_ni = 1;
    Cycle();
  }
  ~LaneBench() { lane_->final(); }

  // Presents `in` (or a bubble when null) for one cycle.
  void Step(const LaneInput* in) {
    lane_->valid_i = in != nullptr;
    if (in != nullptr) {
      lane_->acc_i = static_cast<uint32_t>(in->acc);
      lane_->bias_i = static_cast<uint32_t>(in->bias);
      lane_->mult_i = static_cast<uint32_t>(in->params.multiplier);
      lane_->shift_i = static_cast<uint8_t>(in->params.shift & ((1 << kShiftBits) - 1));
      lane_->rounding_i = in->params.rounding == RequantRounding::kSingleRounding ? 1 : 0;
      lane_->form_i = in->params.form == RequantForm::kTpuMlir ? 1 : 0;
      lane_->rshift_round_i = RshiftRoundCode(in->params.rshift_rounding);
      lane_->mult_width_i = MultWidthCode(in->params.mult_bits);
      lane_->out_raw_i = in->raw;
      lane_->zp_out_i = static_cast<uint32_t>(in->params.output_zero_point);
      lane_->clamp_min_i = static_cast<uint32_t>(in->params.clamp_min);
      lane_->clamp_max_i = static_cast<uint32_t>(in->params.clamp_max);
      pending_.push_back({cycle_ + kLatency, Expected(*in), Describe(*in)});
    }
    Cycle();
  }

  void Drain() {
    for (int i = 0; i <= kLatency; ++i) Step(nullptr);
    if (!pending_.empty()) {
      mismatches_.Add(fmt::format("beat due at cycle {} never appeared: {}", pending_.front().cycle,
                                  pending_.front().input));
    }
  }

  uint64_t beats() const { return beats_; }
  const MismatchLog& mismatches() const { return mismatches_; }

 private:
  struct Pending {
    uint64_t cycle;
    int32_t value;
    std::string input;
  };

  // Outputs are sampled after the inputs of cycle_ settle and before the rising edge that ends
  // cycle_.
  void Cycle() {
    lane_->clk_i = 0;
    lane_->eval();
    Check();
    lane_->clk_i = 1;
    lane_->eval();
    ++cycle_;
  }

  // The lane has no valid output (the unit carries one valid pipeline for all lanes): data_o is
  // checked in the cycle each beat is due, kLatency cycles after it entered.
  void Check() {
    if (pending_.empty() || pending_.front().cycle != cycle_) return;
    const Pending& want = pending_.front();
    const auto got = static_cast<int32_t>(lane_->data_o);
    if (got != want.value) {
      mismatches_.Add(
          fmt::format("cycle {}: expected {} got {} for {}", cycle_, want.value, got, want.input));
    }
    ++beats_;
    pending_.pop_front();
  }

  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Vqacc_requant_lane> lane_;
  std::deque<Pending> pending_;
  uint64_t cycle_ = 0;
  uint64_t beats_ = 0;
  MismatchLog mismatches_;
};

void ExpectClean(const LaneBench& bench, uint64_t expected_beats) {
  EXPECT_EQ(bench.mismatches().count(), 0u) << "first mismatch: " << bench.mismatches().first();
  EXPECT_EQ(bench.beats(), expected_beats);
}

// ---- Input generators ---------------------------------------------------------------------------

const std::vector<int32_t> kEdgeAccumulators = {kInt32Min,
                                                kInt32Min + 1,
                                                kInt32Min + 2,
                                                -(1 << 30) - 1,
                                                -(1 << 30),
                                                -(1 << 30) + 1,
                                                -65536,
                                                -32768,
                                                -257,
                                                -256,
                                                -255,
                                                -129,
                                                -128,
                                                -127,
                                                -3,
                                                -2,
                                                -1,
                                                0,
                                                1,
                                                2,
                                                3,
                                                127,
                                                128,
                                                255,
                                                256,
                                                32767,
                                                65536,
                                                (1 << 30) - 1,
                                                1 << 30,
                                                (1 << 30) + 1,
                                                kInt32Max - 2,
                                                kInt32Max - 1,
                                                kInt32Max};

const std::vector<int32_t> kEdgeMultipliers = {
    0, kQ31Half, kQ31Half + 1, 1518500250 /* round(2^30.5) */, kInt32Max - 1, kInt32Max};

class InputGenerator {
 public:
  explicit InputGenerator(uint64_t seed) : rng_(seed) {}

  LaneInput Next() {
    LaneInput in;
    in.acc = Accumulator();
    in.bias = Pick(50) ? 0 : (Pick(60) ? Uniform(kInt32Min, kInt32Max) : Uniform(-100000, 100000));
    in.raw = Pick(5);
    in.params.multiplier = Multiplier();
    in.params.shift = Shift();
    in.params.rounding =
        Pick(50) ? RequantRounding::kDoubleRounding : RequantRounding::kSingleRounding;
    in.params.output_zero_point =
        Pick(60) ? Uniform(-128, 127) : (Pick(50) ? 0 : Uniform(kInt32Min, kInt32Max));
    // The other form's fields hold anything: each form ignores them.
    in.params.mult_bits = 8 << Uniform(0, 2);
    in.params.rshift_rounding = tpu_mlir::kAllRoundings[Uniform(0, 6)];
    if (Pick(40)) TpuMlir(in);
    Clamp(in.params);
    return in;
  }

 private:
  bool Pick(int percent) { return Uniform(0, 99) < percent; }
  int32_t Uniform(int32_t lo, int32_t hi) {
    return std::uniform_int_distribution<int32_t>(lo, hi)(rng_);
  }

  int32_t Accumulator() {
    const int kind = Uniform(0, 99);
    if (kind < 30) return Uniform(kInt32Min, kInt32Max);
    if (kind < 45) return kEdgeAccumulators[Uniform(0, int32_t(kEdgeAccumulators.size()) - 1)];
    if (kind < 65) return Uniform(-70000, 70000);
    // Multiples of a power of two, +-1: with power-of-two-like multipliers these land on and next
    // to the rounding ties of both shifts.
    const int64_t base = int64_t{Uniform(-1024, 1024)} * (int64_t{1} << Uniform(0, 21));
    return static_cast<int32_t>(base + Uniform(-1, 1));
  }

  int32_t Multiplier() {
    const int kind = Uniform(0, 99);
    if (kind < 25) return kEdgeMultipliers[Uniform(0, int32_t(kEdgeMultipliers.size()) - 1)];
    if (kind < 35) return kQ31Half + (Uniform(0, 15) << Uniform(0, 26));
    return Uniform(kQ31Half, kInt32Max);
  }

  // The TPU-MLIR form: a width, a multiplier of it, an rshift 0..63 and a mode. A third of the
  // beats sit on a rounding tie or next to one: x = +-a 2^t and m = +-b 2^u with a, b odd give a
  // product whose lowest set bit is t + u, a tie for rshift t + u + 1.
  void TpuMlir(LaneInput& in) {
    RequantParams& p = in.params;
    p.form = RequantForm::kTpuMlir;
    const int64_t half = int64_t{1} << (p.mult_bits - 1);
    if (Pick(33)) {
      const int u = Uniform(0, p.mult_bits - 1), t = Uniform(0, 31);
      const int shift = t + u + 1;  // 1..63
      p.multiplier = static_cast<int32_t>(OddTimesPowerOfTwo(u, half));
      const int64_t x = OddTimesPowerOfTwo(t, int64_t{1} << 31) + Uniform(-1, 1);
      in.acc = static_cast<int32_t>(std::clamp<int64_t>(x, kInt32Min, kInt32Max));
      in.bias = 0;
      p.shift = shift;
      return;
    }
    static const int kEdgeShifts[] = {0, 1, 2, 30, 31, 32, 33, 61, 62, 63};
    p.shift = Pick(40) ? kEdgeShifts[Uniform(0, 9)] : Uniform(0, golden::kMaxRequantRshift);
    const int kind = Uniform(0, 99);
    if (kind < 30) {
      const int64_t edges[] = {-half, -half + 1, -1, 0, 1, half - 1};
      p.multiplier = static_cast<int32_t>(edges[Uniform(0, 5)]);
    } else {
      p.multiplier =
          static_cast<int32_t>(std::uniform_int_distribution<int64_t>(-half, half - 1)(rng_));
    }
  }

  // +-a 2^k with a odd, in -limit..limit-1 (limit a power of two, 2^k <= limit).
  int64_t OddTimesPowerOfTwo(int k, int64_t limit) {
    const int64_t room = limit >> k;  // a < room keeps a 2^k below limit
    const int64_t a = room > 1 ? ((int64_t{Uniform(0, 1 << 20)} * 2 + 1) % room) | 1 : 1;
    // a 2^k = limit fits only negative.
    const bool negative = room == 1 || Pick(50);
    return (negative ? -1 : 1) * (a << k);
  }

  int Shift() {
    static const int kEdges[] = {
        golden::kMinQuantizedShift,     golden::kMinQuantizedShift + 1, -1, 0, 1,
        golden::kMaxQuantizedShift - 1, golden::kMaxQuantizedShift};
    if (Pick(30)) return kEdges[Uniform(0, 6)];
    return Uniform(golden::kMinQuantizedShift, golden::kMaxQuantizedShift);
  }

  void Clamp(RequantParams& p) {
    const int kind = Uniform(0, 99);
    const int32_t zp = p.output_zero_point;
    if (kind < 40) {
      p.clamp_min = -128, p.clamp_max = 127;  // int8
    } else if (kind < 50 && zp >= -128 && zp <= 127) {
      p.clamp_min = zp, p.clamp_max = 127;  // ReLU
    } else if (kind < 60 && zp >= -128 && zp <= 100) {
      p.clamp_min = zp, p.clamp_max = zp + Uniform(0, 27);  // ReLU6-like
    } else if (kind < 70) {
      p.clamp_min = 0, p.clamp_max = 255;  // uint8
    } else if (kind < 75) {
      p.clamp_min = p.clamp_max = Uniform(-200, 200);  // degenerate
    } else {
      int32_t a = Uniform(kInt32Min, kInt32Max), b = Uniform(kInt32Min, kInt32Max);
      if (a > b) std::swap(a, b);
      p.clamp_min = a, p.clamp_max = b;  // any int32 range
    }
  }

  std::mt19937_64 rng_;
};

// ---- Tests --------------------------------------------------------------------------------------

// Every legal shift x edge multipliers x edge accumulators x both roundings, each with and without
// a bias and a zero point, with the full int32 clamp so the rounding result itself is visible.
TEST(RequantLaneTest, EdgeGrid) {
  LaneBench bench;
  uint64_t count = 0;
  for (int shift = golden::kMinQuantizedShift; shift <= golden::kMaxQuantizedShift; ++shift) {
    for (int32_t mult : kEdgeMultipliers) {
      for (int32_t acc : kEdgeAccumulators) {
        for (RequantRounding rounding : golden::kAllRequantRoundings) {
          for (int variant = 0; variant < 3; ++variant) {
            LaneInput in;
            in.acc = acc;
            // -acc wraps for INT32_MIN, as the 32-bit bias adder does.
            in.bias = variant == 1 ? static_cast<int32_t>(0u - static_cast<uint32_t>(acc))
                                   : (variant == 2 ? 1 : 0);
            in.params.multiplier = mult;
            in.params.shift = shift;
            in.params.rounding = rounding;
            in.params.output_zero_point = variant == 2 ? -7 : 0;
            in.params.clamp_min = kInt32Min;
            in.params.clamp_max = kInt32Max;
            bench.Step(&in);
            ++count;
          }
        }
      }
    }
  }
  bench.Drain();
  ExpectClean(bench, count);
}

// Zero point and clamp at the int32 extremes: the 33-bit sum must not wrap.
TEST(RequantLaneTest, ZeroPointAndClampExtremes) {
  LaneBench bench;
  uint64_t count = 0;
  const int32_t zps[] = {kInt32Min, -1, 0, 1, kInt32Max};
  const int32_t accs[] = {kInt32Min, -1, 0, 1, kInt32Max};
  for (int32_t zp : zps) {
    for (int32_t acc : accs) {
      for (int shift : {golden::kMinQuantizedShift, -1, 0, golden::kMaxQuantizedShift}) {
        for (RequantRounding rounding : golden::kAllRequantRoundings) {
          LaneInput in;
          in.acc = acc;
          in.params.multiplier = kInt32Max;
          in.params.shift = shift;
          in.params.rounding = rounding;
          in.params.output_zero_point = zp;
          in.params.clamp_min = kInt32Min;
          in.params.clamp_max = kInt32Max;
          bench.Step(&in);
          in.params.clamp_min = -128;
          in.params.clamp_max = 127;
          bench.Step(&in);
          count += 2;
        }
      }
    }
  }
  bench.Drain();
  ExpectClean(bench, count);
}

// The TPU-MLIR form: every width x every rshift 0..63 x every mode x the width's edge multipliers
// x edge accumulators, with the full int32 clamp. x = m = -2^31 gives the largest product, 2^62,
// and at rshift 63 its quotient 1/2 is a tie of every mode.
TEST(RequantLaneTest, TpuMlirEdgeGrid) {
  LaneBench bench;
  uint64_t count = 0;
  for (int bits : golden::kMultiplierRshiftBits) {
    const int64_t half = int64_t{1} << (bits - 1);
    const int64_t mults[] = {-half, -half + 1, -3, -1, 0, 1, 3, half - 1};
    for (int shift = 0; shift <= golden::kMaxRequantRshift; ++shift) {
      for (tpu_mlir::Rounding mode : tpu_mlir::kAllRoundings) {
        for (int64_t mult : mults) {
          for (int32_t acc : kEdgeAccumulators) {
            LaneInput in;
            in.acc = acc;
            in.params.form = RequantForm::kTpuMlir;
            in.params.mult_bits = bits;
            in.params.multiplier = static_cast<int32_t>(mult);
            in.params.shift = shift;
            in.params.rshift_rounding = mode;
            in.params.clamp_min = kInt32Min;
            in.params.clamp_max = kInt32Max;
            bench.Step(&in);
            ++count;
          }
        }
      }
    }
  }
  bench.Drain();
  ExpectClean(bench, count);
}

// The TPU-MLIR form adds the zero point to the unsaturated quotient: 2^31 + 5 with the zero point
// -2^31 is 5, and every quotient near the 33-bit saturation bounds 2^32 - 1 and -2^32 with the
// extreme zero points and clamps.
TEST(RequantLaneTest, TpuMlirUnsaturatedZeroPoint) {
  LaneBench bench;
  uint64_t count = 0;
  const int64_t quotients[] = {
      int64_t{1} << 31,       (int64_t{1} << 31) + 5,  (int64_t{1} << 32) - 2,
      (int64_t{1} << 32) - 1, int64_t{1} << 32,        (int64_t{1} << 32) + 1,
      int64_t{1} << 40,       -(int64_t{1} << 31) - 7, -(int64_t{1} << 32) + 1,
      -(int64_t{1} << 32),    -(int64_t{1} << 32) - 1, -(int64_t{1} << 40)};
  for (int64_t quotient : quotients) {
    // quotient = x * m with m = 2^k: x = quotient / 2^k within int32, rshift 0.
    int k = 0;
    while (quotient / (int64_t{1} << k) > kInt32Max || quotient / (int64_t{1} << k) < kInt32Min)
      ++k;
    for (int32_t zp : {kInt32Min, kInt32Min + 5, -1, 0, 1, kInt32Max}) {
      for (bool int8_clamp : {false, true}) {
        LaneInput in;
        in.acc = static_cast<int32_t>(quotient / (int64_t{1} << k));
        in.params.form = RequantForm::kTpuMlir;
        in.params.mult_bits = 32;
        in.params.multiplier = 1 << k;
        in.params.shift = 0;
        in.params.output_zero_point = zp;
        in.params.clamp_min = int8_clamp ? -128 : kInt32Min;
        in.params.clamp_max = int8_clamp ? 255 : kInt32Max;
        bench.Step(&in);
        ++count;
      }
    }
  }
  bench.Drain();
  ExpectClean(bench, count);
}

// Millions of random beats with random bubbles (the valid gating of every stage), fixed seed.
TEST(RequantLaneTest, RandomMillions) {
  constexpr uint64_t kBeats = 4'000'000;
  LaneBench bench;
  InputGenerator gen(0x5141434301);
  std::mt19937 bubbles(7);
  for (uint64_t i = 0; i < kBeats; ++i) {
    if (bubbles() % 16 == 0) bench.Step(nullptr);
    const LaneInput in = gen.Next();
    bench.Step(&in);
  }
  bench.Drain();
  ExpectClean(bench, kBeats);
}

}  // namespace
}  // namespace qacc
