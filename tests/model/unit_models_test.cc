// The plain C++ unit models against the golden reference: MacArrayModel (one tile's accumulators vs
// golden::Gemm without bias, padding exactly 0), RequantUnitModel (one beat vs
// golden::RequantizeAccumulator or the raw select, per lane, over random and extreme accumulators,
// both roundings, per-tensor and per-channel, illegal per-channel lanes) and OutWriterModel (vs
// MakeOutWriteBeat), on both configurations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/gemm.h"
#include "golden/requant.h"
#include "model/beats.h"
#include "model/command.h"
#include "model/gemm_engine.h"
#include "model/mac_array_model.h"
#include "model/out_writer_model.h"
#include "model/requant_unit_model.h"
#include "tests/model/model_test_util.h"

namespace qacc::model {
namespace {

using testing::Config;

// The SRAMs loaded with a job and its decoded command.
struct Loaded {
  Loaded(const arch::ArchConfig& config, const GemmJob& job) : srams(config) {
    for (const BusWrite& write : PackOperands(config, job)) {
      srams.HostWrite(static_cast<arch::Region>(arch::RegionBits(write.addr)),
                      arch::WindowOffset(write.addr), write.data, write.strobe);
    }
    const LaunchDecision decision = DecodeCommand(config, ToCommand(job));
    if (decision.error != arch::ErrCode::kNone) throw std::logic_error("illegal job");
    command = decision.command;
  }
  Srams srams;
  DecodedCommand command;
};

std::string Describe(const GemmJob& job) {
  return "M=" + std::to_string(job.m) + " N=" + std::to_string(job.n) +
         " K=" + std::to_string(job.k) + " a_unsigned=" + std::to_string(job.a_unsigned) +
         " b_unsigned=" + std::to_string(job.b_unsigned) + " a_zp=" + std::to_string(job.a_zp) +
         " b_zp=" + std::to_string(job.b_zp) + " raw=" + std::to_string(job.out_raw) +
         " per_channel=" + std::to_string(job.per_channel) +
         " rounding=" + std::string(golden::RequantRoundingName(job.requant.rounding));
}

class UnitModelsTest : public ::testing::TestWithParam<std::string> {};

// Every tile of random commands: row i, lane c is golden::Gemm's (no bias) element (mb*R + i,
// nb*C + c) when valid, exactly 0 in padded rows and lanes.
TEST_P(UnitModelsTest, MacArrayTilesEqualGoldenGemm) {
  const arch::ArchConfig config = Config(GetParam());
  std::mt19937 rng(31);
  int64_t tiles = 0;
  for (int trial = 0; trial < 120; ++trial) {
    GemmJob job = testing::RandomJob(rng, trial < 90 ? 24 : 70);
    job.bias.clear();
    job.out_raw = true;
    job.a_base = static_cast<uint32_t>(trial % 7);
    job.b_base = static_cast<uint32_t>(trial % 4);
    const golden::Matrix<int32_t> expected = GoldenOutput(job);
    const Loaded loaded(config, job);
    const MacArrayModel mac(config, loaded.command, loaded.srams);
    const arch::Timing& timing = loaded.command.timing;
    for (int64_t t = 0; t < timing.T(); ++t, ++tiles) {
      const std::vector<int32_t> acc = mac.ComputeTile(t);
      ASSERT_EQ(acc.size(), size_t(config.rows) * config.cols);
      for (int i = 0; i < config.rows; ++i) {
        for (int c = 0; c < config.cols; ++c) {
          const int64_t m = timing.TileMb(t) * config.rows + i;
          const int64_t n = timing.TileNb(t) * config.cols + c;
          const int32_t want = m < job.m && n < job.n ? expected.at(int(m), int(n)) : 0;
          ASSERT_EQ(acc[size_t(i) * config.cols + c], want)
              << Describe(job) << " tile " << t << " row " << i << " lane " << c;
        }
      }
    }
  }
  EXPECT_GT(tiles, 500);
}

// The largest accumulators one command can build: extreme factors (+-383 each) over the longest K
// the A and B SRAMs hold, both signs. (|acc| <= K * 383^2 < 2^31 here: the 32-bit wrap is reached
// only with the bias, in the requant lane.)
TEST_P(UnitModelsTest, MacArrayExtremeAccumulators) {
  const arch::ArchConfig config = Config(GetParam());
  for (int a_zp : {-128, 255}) {
    GemmJob job;
    job.m = config.rows, job.n = config.cols;
    job.k = static_cast<int>(std::min(config.a_depth, config.b_depth));
    job.a_unsigned = a_zp < 0, job.b_unsigned = true;
    job.a.assign(size_t(job.m) * job.k, a_zp < 0 ? 255 : 0x80);  // factor 383 or -383
    job.b.assign(size_t(job.k) * job.n, 255);
    job.a_zp = a_zp, job.b_zp = -128;
    job.out_raw = true;
    const Loaded loaded(config, job);
    const std::vector<int32_t> acc =
        MacArrayModel(config, loaded.command, loaded.srams).ComputeTile(0);
    EXPECT_EQ(acc, GoldenOutput(job).data) << "a_zp " << a_zp;
  }
}

// Accumulators a requant lane must get right: extremes, values around 0 (rounding ties with
// multipliers of 2^30), and the full int32 range.
int32_t RandomAcc(std::mt19937& rng) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  switch (uniform(0, 5)) {
    case 0:
      return uniform(0, 1) ? kMin : kMax;
    case 1:
      return static_cast<int32_t>(uniform(-64, 64));
    case 2:
      return static_cast<int32_t>(uniform(kMin, kMin + 1000));
    case 3:
      return static_cast<int32_t>(uniform(kMax - 1000, kMax));
    default:
      return static_cast<int32_t>(uniform(kMin, kMax));
  }
}

// Every lane of random beats: x = acc + bias mod 2^32, then golden::RequantizeAccumulator with the
// lane's parameters (per-tensor CMD_*, or the rq word's with PER_CHANNEL), or x with OUT_RAW.
// Padded lanes (n >= N) hold bias 0 and rq (0, 0) as PackOperands writes them.
TEST_P(UnitModelsTest, RequantBeatsEqualGolden) {
  const arch::ArchConfig config = Config(GetParam());
  std::mt19937 rng(47);
  auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int64_t lanes = 0;
  for (int trial = 0; trial < 400; ++trial) {
    GemmJob job = testing::RandomJob(rng, 1);
    job.n = uniform(1, 3 * config.cols);
    job.b.assign(size_t(job.k) * job.n, 0);
    if (!job.bias.empty()) {
      job.bias.clear();
      for (int n = 0; n < job.n; ++n)
        job.bias.push_back(uniform(0, 3) == 0 ? std::numeric_limits<int32_t>::max() - uniform(0, 9)
                                              : uniform(-(1 << 30), 1 << 30));
    }
    // Multipliers and shifts over their whole legal range (shift 0 and the extremes, 2^30 and
    // near 2^31 included).
    const int32_t mults[] = {0, 1 << 30, std::numeric_limits<int32_t>::max(),
                             (1 << 30) + uniform(0, (1 << 30) - 1)};
    job.requant.multiplier = mults[uniform(trial % 5 == 0 ? 0 : 1, 3)];
    job.requant.shift = uniform(arch::kMinShift, arch::kMaxShift);
    job.channel_mult.clear();
    job.channel_shift.clear();
    for (int n = 0; n < job.n && job.per_channel; ++n) {
      job.channel_mult.push_back(mults[uniform(1, 3)]);
      job.channel_shift.push_back(uniform(0, 3) == 0 ? uniform(-1, 0)
                                                     : uniform(arch::kMinShift, arch::kMaxShift));
    }
    const Loaded loaded(config, job);
    const RequantUnitModel requant(config, loaded.command, loaded.srams);
    ASSERT_EQ(requant.cols(), config.cols);
    const arch::Timing& timing = loaded.command.timing;
    for (int64_t nb = 0; nb < timing.NB(); ++nb) {
      const RequantLaneInputs inputs = requant.ReadLaneInputs(nb);
      ASSERT_EQ(inputs.known_lanes, (uint64_t{1} << config.cols) - 1);
      for (int beat = 0; beat < 32; ++beat) {
        std::vector<int32_t> acc(config.cols), out(config.cols, 0x5A5A5A5A);
        for (int32_t& value : acc) value = RandomAcc(rng);
        EXPECT_EQ(requant.ComputeBeat(inputs, acc.data(), out.data()), inputs.known_lanes);
        for (int c = 0; c < config.cols; ++c, ++lanes) {
          const int64_t n = nb * config.cols + c;
          const bool valid = n < job.n;
          const int32_t bias = valid && !job.bias.empty() ? job.bias[n] : 0;
          const int32_t x = golden::WrapToInt32(uint32_t(acc[c]) + uint32_t(bias));
          golden::RequantParams params = job.requant;
          if (job.per_channel) {
            params.multiplier = valid ? job.channel_mult[n] : 0;
            params.shift = valid ? job.channel_shift[n] : 0;
          }
          const int32_t want = job.out_raw ? x : golden::RequantizeAccumulator(x, params);
          ASSERT_EQ(out[c], want) << Describe(job) << " nb " << nb << " lane " << c << " acc "
                                  << acc[c] << " bias " << bias << " mult " << params.multiplier
                                  << " shift " << params.shift;
        }
      }
    }
  }
  EXPECT_GT(lanes, 100000);
}

// Per-channel rq words are not validated at launch: a shift of -32 or 31 leaves its lane unknown
// (out 0); an illegal multiplier (negative, or nonzero below 2^30) with a legal shift follows the
// formula of 5.2 (golden's MultiplyByQuantizedMultiplier*, zero point, clamp). OUT_RAW ignores the
// rq words.
TEST_P(UnitModelsTest, RequantIllegalPerChannelLanes) {
  const arch::ArchConfig config = Config(GetParam());
  for (const auto rounding :
       {golden::RequantRounding::kDoubleRounding, golden::RequantRounding::kSingleRounding}) {
    for (const bool raw : {false, true}) {
      GemmJob job;
      job.n = 4;
      job.a.assign(1, 0);
      job.b.assign(4, 0);
      job.per_channel = true;
      job.out_raw = raw;
      job.requant.rounding = rounding;
      job.requant.output_zero_point = 3;
      job.channel_mult = {1 << 30, 12345, -(1 << 30), 1 << 30};
      job.channel_shift = {31, -3, -3, -32};
      const Loaded loaded(config, job);
      const RequantUnitModel requant(config, loaded.command, loaded.srams);
      const RequantLaneInputs inputs = requant.ReadLaneInputs(0);
      const uint64_t all = (uint64_t{1} << config.cols) - 1;
      EXPECT_EQ(inputs.known_lanes, raw ? all : all & ~uint64_t{0b1001});
      std::vector<int32_t> acc(config.cols, 400), out(config.cols, 7);
      requant.ComputeBeat(inputs, acc.data(), out.data());
      if (raw) {
        EXPECT_EQ(out[0], 400);
        EXPECT_EQ(out[3], 400);
        continue;
      }
      EXPECT_EQ(out[0], 0);
      EXPECT_EQ(out[3], 0);
      // 400 * 12345 * 2^-34 rounds to 0; 400 * -2^30 * 2^-34 = -25 exactly; then + zp 3.
      EXPECT_EQ(out[1], 3);
      EXPECT_EQ(out[2], -22);
      EXPECT_EQ(RequantLane(400, inputs.params[2], false), -22);
    }
  }
}

// The out writer packs every requant beat of a tile like MakeOutWriteBeat (the predictor's writes)
// and drops padded rows.
TEST_P(UnitModelsTest, OutWriterPacksLikeThePredictor) {
  const arch::ArchConfig config = Config(GetParam());
  std::mt19937 rng(5);
  for (int trial = 0; trial < 60; ++trial) {
    GemmJob job = testing::RandomJob(rng, 40);
    job.out_base = static_cast<uint32_t>(trial % 3);
    const Loaded loaded(config, job);
    const GemmEngine engine(config, loaded.command, loaded.srams);
    const OutWriterModel writer(loaded.command);
    for (int64_t t = 0; t < engine.num_tiles(); ++t) {
      const TileResult tile = engine.ComputeTile(t);
      for (int row = 0; row < config.rows; ++row) {
        const RowBeat beat = MakeRowBeat(arch::BeatUnit::kRequant, loaded.command, tile, row, 0);
        ASSERT_EQ(writer.Writes(t, row), row < tile.m_valid);
        if (!writer.Writes(t, row)) {
          EXPECT_THROW(writer.Write(beat), std::invalid_argument);
          continue;
        }
        const OutWriteBeat got = writer.Write(beat);
        const OutWriteBeat want = MakeOutWriteBeat(loaded.command, tile, row, 0);
        ASSERT_EQ(got.addr, want.addr) << Describe(job);
        ASSERT_EQ(got.be, want.be);
        ASSERT_EQ(got.data, want.data);
        ASSERT_EQ(got.known, want.known);
        ASSERT_EQ(got.tile, t);
        ASSERT_EQ(got.row, row);
      }
    }
  }
}

// GemmEngine is exactly the MAC array followed by the requant unit.
TEST_P(UnitModelsTest, EngineComposesTheUnits) {
  const arch::ArchConfig config = Config(GetParam());
  std::mt19937 rng(8);
  for (int trial = 0; trial < 40; ++trial) {
    const GemmJob job = testing::RandomJob(rng, 30);
    const Loaded loaded(config, job);
    const GemmEngine engine(config, loaded.command, loaded.srams);
    for (int64_t t = 0; t < engine.num_tiles(); ++t) {
      const TileResult tile = engine.ComputeTile(t);
      const std::vector<int32_t> acc = engine.mac_array().ComputeTile(t);
      ASSERT_EQ(tile.acc, acc);
      const RequantLaneInputs inputs = engine.requant_unit().ReadLaneInputs(tile.nb);
      std::vector<int32_t> out(acc.size());
      for (int row = 0; row < config.rows; ++row) {
        const size_t first = size_t(row) * config.cols;
        ASSERT_EQ(engine.requant_unit().ComputeBeat(inputs, &acc[first], &out[first]),
                  tile.known_lanes);
      }
      ASSERT_EQ(tile.out, out) << Describe(job) << " tile " << t;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, UnitModelsTest, ::testing::Values("default", "rect_4x16"));

}  // namespace
}  // namespace qacc::model
