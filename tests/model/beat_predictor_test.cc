// Predicted beat cycles (docs/architecture.md 7): the spec's worked examples, the formulas for
// random shapes, ordering and counts per unit, the lockstep Take*At protocol, and the perf counters
// over time.
#include "model/beat_predictor.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "model/command.h"
#include "model/model_only.h"
#include "model/perf.h"
#include "tests/model/model_test_util.h"

namespace qacc::model {
namespace {

using testing::Config;

// Owns the SRAMs an engine reads.
struct Prepared {
  explicit Prepared(const arch::ArchConfig& config) : srams(config) {}
  Srams srams;
  std::shared_ptr<GemmEngine> engine;
};

std::unique_ptr<Prepared> Prepare(const arch::ArchConfig& config, const GemmJob& job) {
  auto prepared = std::make_unique<Prepared>(config);
  for (const BusWrite& write : PackOperands(config, job)) {
    prepared->srams.HostWrite(static_cast<arch::Region>(arch::RegionBits(write.addr)),
                              arch::WindowOffset(write.addr), write.data, write.strobe);
  }
  const LaunchDecision decision = DecodeCommand(config, ToCommand(job));
  if (decision.error != arch::ErrCode::kNone) throw std::logic_error("illegal job");
  prepared->engine = std::make_shared<GemmEngine>(config, decision.command, prepared->srams);
  return prepared;
}

GemmJob Job(int m, int n, int k) {
  GemmJob job;
  job.m = m, job.n = n, job.k = k;
  for (int i = 0; i < m * k; ++i) job.a.push_back(static_cast<uint8_t>(i * 7));
  for (int i = 0; i < k * n; ++i) job.b.push_back(static_cast<uint8_t>(i * 13 + 1));
  job.requant.shift = -8;
  return job;
}

// Section 7 example: default 8x8, M = N = K = 8, one tile: array inputs at 2..9, MAC beats at
// 19..26, requant beats at 23..30, writes at 24..31, done at 32.
TEST(BeatPredictorSpecExample, EightByEightOneTile) {
  const arch::ArchConfig config = Config("default");
  const GemmJob job = Job(8, 8, 8);
  const auto prepared = Prepare(config, job);
  for (int64_t launch : {0, 1000}) {
    BeatPredictor predictor(prepared->engine, launch);
    EXPECT_EQ(predictor.done_cycle(), launch + 32);
    for (int i = 0; i < 8; ++i) {
      const RowBeat* mac = predictor.PeekBeat(arch::BeatUnit::kMac);
      ASSERT_NE(mac, nullptr);
      EXPECT_EQ(mac->cycle, launch + 19 + i);
      EXPECT_EQ(mac->last, i == 7);
      predictor.PopBeat(arch::BeatUnit::kMac);
      const RowBeat* rq = predictor.PeekBeat(arch::BeatUnit::kRequant);
      EXPECT_EQ(rq->cycle, launch + 23 + i);
      predictor.PopBeat(arch::BeatUnit::kRequant);
      const OutWriteBeat* write = predictor.PeekOutWrite();
      EXPECT_EQ(write->cycle, launch + 24 + i);
      EXPECT_EQ(write->addr, uint32_t(i / 4));  // int8 mode: four rows per word
      predictor.PopOutWrite();
    }
    EXPECT_EQ(predictor.PeekBeat(arch::BeatUnit::kMac), nullptr);
    EXPECT_EQ(predictor.PeekBeat(arch::BeatUnit::kRequant), nullptr);
    EXPECT_EQ(predictor.PeekOutWrite(), nullptr);
    const MacInRun* run = predictor.PeekMacIn();  // array inputs at 2..9
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(run->first_cycle, launch + 2);
    EXPECT_EQ(run->beats, 8);
    predictor.PopMacIn();
    EXPECT_EQ(predictor.PeekMacIn(), nullptr);
  }
}

// Section 7 example: M = N = K = 256 on 8x8: T = 1024, P = 256, E = 262168. Only the first and last
// beats are inspected; the stream is generated lazily.
TEST(BeatPredictorSpecExample, Gemm256OnEightByEight) {
  const arch::ArchConfig config = Config("default");
  const auto prepared = Prepare(config, Job(256, 256, 256));
  BeatPredictor predictor(prepared->engine, 0);
  EXPECT_EQ(predictor.done_cycle(), 262168);
  EXPECT_EQ(predictor.PeekBeat(arch::BeatUnit::kMac)->cycle, 3 + 256 + 8);
  const PerfCounters perf = PerfAt(prepared->engine->timing(), 262168);
  EXPECT_EQ(perf.cycles, 262168u);
  EXPECT_EQ(perf.Busy(arch::BeatUnit::kMac), 1024u * 256);
  EXPECT_EQ(perf.feed_stall, 0u);
}

// For random shapes on both configurations: every beat at its section 7 cycle, strictly increasing
// per unit, R beats per tile for MAC and requant, m_valid writes per tile, the last write one cycle
// before done, and the writes reproduce the model-only output SRAM.
class BeatPredictorTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BeatPredictorTest, CyclesFollowTheFormulas) {
  const arch::ArchConfig config = Config(GetParam());
  std::mt19937 rng(11);
  for (int trial = 0; trial < 80; ++trial) {
    const GemmJob job = testing::RandomJob(rng, trial < 60 ? 24 : 80);
    const auto prepared = Prepare(config, job);
    const arch::Timing& timing = prepared->engine->timing();
    const int64_t launch = trial * 3;
    BeatPredictor predictor(prepared->engine, launch);
    Srams replay(config);
    int64_t last_mac = -1, last_rq = -1, last_write = -1, macs = 0, rqs = 0, writes = 0;
    while (const RowBeat* beat = predictor.PeekBeat(arch::BeatUnit::kMac)) {
      ASSERT_GT(beat->cycle, last_mac);
      ASSERT_EQ(beat->cycle, launch + timing.O(beat->tile, beat->row));
      last_mac = beat->cycle;
      ++macs;
      predictor.PopBeat(arch::BeatUnit::kMac);
    }
    while (const RowBeat* beat = predictor.PeekBeat(arch::BeatUnit::kRequant)) {
      ASSERT_GT(beat->cycle, last_rq);
      ASSERT_EQ(beat->cycle, launch + timing.Q(beat->tile, beat->row));
      last_rq = beat->cycle;
      ++rqs;
      predictor.PopBeat(arch::BeatUnit::kRequant);
    }
    while (const OutWriteBeat* beat = predictor.PeekOutWrite()) {
      ASSERT_GT(beat->cycle, last_write);
      ASSERT_EQ(beat->cycle, launch + timing.W(beat->tile, beat->row));
      ASSERT_LT(beat->row, timing.MValid(timing.TileMb(beat->tile)));
      last_write = beat->cycle;
      ++writes;
      replay.WriteOutWord(beat->addr, beat->data, beat->be);
      predictor.PopOutWrite();
    }
    EXPECT_EQ(macs, timing.T() * config.rows);
    EXPECT_EQ(rqs, timing.T() * config.rows);
    EXPECT_EQ(writes, timing.OutWrites());
    EXPECT_EQ(last_rq, predictor.done_cycle() - 2);
    if (timing.MValid(timing.MB() - 1) == config.rows) {
      EXPECT_EQ(last_write, predictor.done_cycle() - 1);
    }
    Srams model_only(config);
    model_only.image(arch::Region::kA) = prepared->srams.image(arch::Region::kA);
    model_only.image(arch::Region::kB) = prepared->srams.image(arch::Region::kB);
    model_only.image(arch::Region::kBias) = prepared->srams.image(arch::Region::kBias);
    model_only.image(arch::Region::kRq) = prepared->srams.image(arch::Region::kRq);
    ASSERT_EQ(RunCommand(config, ToCommand(job), model_only).error, arch::ErrCode::kNone);
    EXPECT_EQ(replay.image(arch::Region::kOut), model_only.image(arch::Region::kOut));
  }
}

TEST(BeatPredictorErrors, RejectedCommandHasOnlyDone) {
  BeatPredictor predictor(nullptr, 40);
  EXPECT_EQ(predictor.done_cycle(), 41);
  EXPECT_EQ(predictor.PeekBeat(arch::BeatUnit::kMac), nullptr);
  EXPECT_EQ(predictor.PeekOutWrite(), nullptr);
  EXPECT_EQ(predictor.PeekMacIn(), nullptr);
}

// PerfAt against a cycle-by-cycle count of the events of section 7 (counted from the next cycle
// on).
TEST_P(BeatPredictorTest, PerfCountersOverTime) {
  const arch::ArchConfig config = Config(GetParam());
  std::mt19937 rng(3);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t m = std::uniform_int_distribution<int>(1, 40)(rng);
    const int64_t n = std::uniform_int_distribution<int>(1, 40)(rng);
    const int64_t k = std::uniform_int_distribution<int>(1, 24)(rng);
    const arch::Timing timing(config.rows, config.cols, m, n, k);
    std::vector<int> mac(timing.E() + 1), rq(timing.E() + 1), out(timing.E() + 1),
        stall(timing.E() + 1);
    for (int64_t t = 0; t < timing.T(); ++t) {
      for (int64_t b = 0; b < k; ++b) ++mac[timing.I(t, b)];
      for (int64_t i = 0; i < config.rows; ++i) ++rq[timing.O(t, i)];
      for (int64_t i = 0; i < timing.MValid(timing.TileMb(t)); ++i) ++out[timing.W(t, i)];
      if (t + 1 < timing.T()) {
        for (int64_t c = timing.F(t, k - 1) + 1; c < timing.F(t + 1, 0); ++c) ++stall[c];
      }
    }
    PerfCounters expected;
    for (int64_t cycle = 0; cycle <= timing.E() + 2; ++cycle) {
      ASSERT_EQ(PerfAt(timing, cycle), expected)
          << "cycle " << cycle << " M=" << m << " N=" << n << " K=" << k;
      if (cycle < timing.E()) {
        ++expected.cycles;
        expected.busy[size_t(arch::BeatUnit::kMac)] += mac[cycle];
        expected.busy[size_t(arch::BeatUnit::kRequant)] += rq[cycle];
        expected.out_writes += out[cycle];
        expected.feed_stall += stall[cycle];
      }
    }
    EXPECT_EQ(expected.Busy(arch::BeatUnit::kMac), timing.Busy(arch::BeatUnit::kMac));
    EXPECT_EQ(expected.Busy(arch::BeatUnit::kRequant), timing.Busy(arch::BeatUnit::kRequant));
    EXPECT_EQ(expected.out_writes, timing.OutWrites());
    EXPECT_EQ(expected.feed_stall, timing.FeedStall());
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, BeatPredictorTest, ::testing::Values("default", "rect_4x16"));

}  // namespace
}  // namespace qacc::model
