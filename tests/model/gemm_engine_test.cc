// A command's results against the golden reference: output SRAM contents (model-only run and
// AccelState launch) and the values of every MAC array and requant beat, over random shapes
// (non-multiples of the array included), signedness, zero points, bias, rounding, per-tensor /
// per-channel / raw modes and clamps.
#include "model/gemm_engine.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "model/beat_predictor.h"
#include "model/command.h"
#include "model/model_only.h"
#include "tests/model/model_test_util.h"

namespace qacc::model {
namespace {

using testing::Config;

void Load(Srams& srams, const std::vector<BusWrite>& writes) {
  for (const BusWrite& write : writes) {
    const auto region = static_cast<arch::Region>(arch::RegionBits(write.addr));
    srams.HostWrite(region, arch::WindowOffset(write.addr), write.data, write.strobe);
  }
}

std::string Describe(const GemmJob& job) {
  return "M=" + std::to_string(job.m) + " N=" + std::to_string(job.n) +
         " K=" + std::to_string(job.k) + " raw=" + std::to_string(job.out_raw) +
         " per_channel=" + std::to_string(job.per_channel) +
         " bias=" + std::to_string(!job.bias.empty()) + " a_zp=" + std::to_string(job.a_zp) +
         " b_zp=" + std::to_string(job.b_zp);
}

class GemmEngineTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GemmEngineTest, ModelOnlyOutputEqualsGolden) {
  const arch::ArchConfig config = Config(GetParam());
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 300; ++trial) {
    GemmJob job = testing::RandomJob(rng, trial < 200 ? 20 : 70);
    job.a_base = static_cast<uint32_t>(trial % 5);
    job.out_base = static_cast<uint32_t>(trial % 3);
    job.bias_base = job.rq_base = static_cast<uint32_t>(trial % 2);
    Srams srams(config);
    Load(srams, PackOperands(config, job));
    const RunResult result = RunCommand(config, ToCommand(job), srams);
    ASSERT_EQ(result.error, arch::ErrCode::kNone) << Describe(job);
    const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k);
    EXPECT_EQ(result.cycles, timing.E());
    ASSERT_EQ(UnpackOutput(config, job, srams.image(arch::Region::kOut)).data,
              GoldenOutput(job).data)
        << "trial " << trial << ": " << Describe(job);
  }
}

// Every MAC beat holds the bias-free accumulators of its row (padding exactly 0); every requant
// beat the requantized (or raw) value of the same elements, padded rows and lanes computed from acc
// = 0.
TEST_P(GemmEngineTest, BeatValuesEqualGolden) {
  const arch::ArchConfig config = Config(GetParam());
  std::mt19937 rng(99);
  for (int trial = 0; trial < 60; ++trial) {
    GemmJob job = testing::RandomJob(rng, 40);
    job.pad_byte = 0x80;
    GemmJob no_bias = job;
    no_bias.bias.clear();
    no_bias.out_raw = true;
    const golden::Matrix<int32_t> acc = GoldenOutput(no_bias);
    const golden::Matrix<int32_t> expected = GoldenOutput(job);
    Srams srams(config);
    Load(srams, PackOperands(config, job));
    const LaunchDecision decision = DecodeCommand(config, ToCommand(job));
    ASSERT_EQ(decision.error, arch::ErrCode::kNone);
    BeatPredictor predictor(std::make_shared<GemmEngine>(config, decision.command, srams), 0);
    const arch::Timing& timing = decision.command.timing;
    for (int64_t t = 0; t < timing.T(); ++t) {
      const int64_t mb = timing.TileMb(t), nb = timing.TileNb(t);
      for (int i = 0; i < config.rows; ++i) {
        const RowBeat mac = *predictor.PeekBeat(arch::BeatUnit::kMac);
        predictor.PopBeat(arch::BeatUnit::kMac);
        const RowBeat rq = *predictor.PeekBeat(arch::BeatUnit::kRequant);
        predictor.PopBeat(arch::BeatUnit::kRequant);
        ASSERT_EQ(mac.tile, t);
        ASSERT_EQ(mac.row, i);
        ASSERT_EQ(rq.known_lanes, (uint64_t{1} << config.cols) - 1);
        for (int c = 0; c < config.cols; ++c) {
          const int64_t m = mb * config.rows + i, n = nb * config.cols + c;
          const bool valid = m < job.m && n < job.n;
          ASSERT_EQ(mac.lanes[c], valid ? acc.at(int(m), int(n)) : 0)
              << Describe(job) << " t=" << t;
          if (valid) {
            ASSERT_EQ(rq.lanes[c], expected.at(int(m), int(n))) << Describe(job) << " t=" << t;
          }
        }
      }
    }
    EXPECT_EQ(predictor.PeekBeat(arch::BeatUnit::kMac), nullptr);
  }
}

// Padding lanes of A and B are don't-care: any pad byte gives the same output.
TEST_P(GemmEngineTest, PaddingLanesDoNotMatter) {
  const arch::ArchConfig config = Config(GetParam());
  std::mt19937 rng(5);
  GemmJob job = testing::RandomJob(rng, 1);
  job.m = config.rows + 1, job.n = config.cols + 3, job.k = 9;
  job.a.assign(size_t(job.m) * job.k, 0x7F);
  job.b.assign(size_t(job.k) * job.n, 0x81);
  job.bias.clear();
  job.per_channel = false;
  job.out_raw = true;
  std::vector<uint8_t> first;
  for (int pad : {0, 0x55, 0x80, 0xFF}) {
    job.pad_byte = static_cast<uint8_t>(pad);
    Srams srams(config);
    Load(srams, PackOperands(config, job));
    ASSERT_EQ(RunCommand(config, ToCommand(job), srams).error, arch::ErrCode::kNone);
    if (first.empty()) first = srams.image(arch::Region::kOut);
    EXPECT_EQ(srams.image(arch::Region::kOut), first) << "pad " << pad;
  }
  EXPECT_EQ(UnpackOutput(config, job, first).data, GoldenOutput(job).data);
}

// Extreme accumulators wrap modulo 2^32 exactly like golden::Gemm (K large, all operands at the
// extremes).
TEST_P(GemmEngineTest, AccumulatorWrapsLikeGolden) {
  const arch::ArchConfig config = Config(GetParam());
  GemmJob job;
  job.m = 5, job.n = 6, job.k = 4000;
  job.a_unsigned = job.b_unsigned = true;
  job.a.assign(size_t(job.m) * job.k, 255);
  job.b.assign(size_t(job.k) * job.n, 255);
  job.a_zp = job.b_zp = -128;  // factors 383: sum 4000 * 383^2 > 2^31
  job.bias.assign(job.n, 0x7FFFFFFF);
  job.out_raw = true;
  Srams srams(config);
  Load(srams, PackOperands(config, job));
  ASSERT_EQ(RunCommand(config, ToCommand(job), srams).error, arch::ErrCode::kNone);
  EXPECT_EQ(UnpackOutput(config, job, srams.image(arch::Region::kOut)).data,
            GoldenOutput(job).data);
}

// A per-channel lane with a shift of -32 or 31 (the 6-bit field allows them) has no defined result:
// the lane is flagged unknown in its beats; an illegal multiplier with a legal shift follows the
// formula of 5.2.
TEST_P(GemmEngineTest, IllegalPerChannelParameters) {
  const arch::ArchConfig config = Config(GetParam());
  GemmJob job;
  job.m = 2, job.n = 3, job.k = 2;
  job.a.assign(4, 10);
  job.b.assign(6, 20);
  job.per_channel = true;
  job.channel_mult = {1 << 30, 12345, -(1 << 30)};
  job.channel_shift = {31, -3, -3};
  job.requant.clamp_min = -128, job.requant.clamp_max = 127;
  Srams srams(config);
  Load(srams, PackOperands(config, job));
  const LaunchDecision decision = DecodeCommand(config, ToCommand(job));
  ASSERT_EQ(decision.error, arch::ErrCode::kNone);
  const TileResult tile = GemmEngine(config, decision.command, srams).ComputeTile(0);
  EXPECT_EQ(tile.known_lanes & 0x7u, 0x6u);
  // 2 * 10 * 20 = 400; 400 * 12345 * 2^-34 rounds to 0; 400 * -2^30 * 2^-34 = -25.
  EXPECT_EQ(tile.out[1], 0);
  EXPECT_EQ(tile.out[2], -25);
  const OutWriteBeat write = MakeOutWriteBeat(decision.command, tile, 0, 0);
  EXPECT_EQ(write.known[0], 0);
  EXPECT_EQ(write.known[1], 1);
  EXPECT_EQ(write.be[0], 1);
}

INSTANTIATE_TEST_SUITE_P(Configs, GemmEngineTest, ::testing::Values("default", "rect_4x16"));

}  // namespace
}  // namespace qacc::model
