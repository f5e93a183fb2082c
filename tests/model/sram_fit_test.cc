// model::FindSramOverflow and MaxFittingDim against the spec's validation (arch::ValidateCommand)
// as the oracle: constrained-random shapes, bases and modes on several configs, every answer
// checked at its boundary (the limit fits, one more does not).
#include "model/sram_fit.h"

#include <gtest/gtest.h>

#include <random>

namespace qacc::model {
namespace {

bool RangeError(arch::ErrCode code) {
  return code == arch::ErrCode::kARange || code == arch::ErrCode::kBRange ||
         code == arch::ErrCode::kBiasRange || code == arch::ErrCode::kRqRange ||
         code == arch::ErrCode::kOutRange;
}

// The oracle: the range error the command would get (kNone when it gets none, or another error).
arch::ErrCode SpecRangeError(const arch::ArchConfig& config, const GemmJob& job) {
  const arch::ErrCode code = arch::ValidateCommand(config, ToCommand(job));
  return RangeError(code) ? code : arch::ErrCode::kNone;
}

std::vector<arch::ArchConfig> Configs() {
  arch::ArchConfig small;
  small.rows = 4, small.cols = 16, small.a_depth = 256, small.b_depth = 64, small.bias_depth = 4,
  small.rq_depth = 2, small.out_depth = 32;
  arch::ArchConfig tall;
  tall.rows = 32, tall.cols = 4, tall.a_depth = 1024, tall.b_depth = 4096, tall.out_depth = 512;
  return {arch::ArchConfig{}, small, tall};
}

TEST(SramFit, AgreesWithValidateCommandAndLimitsAreTight) {
  std::mt19937 rng(20);
  for (const arch::ArchConfig& config : Configs()) {
    for (int i = 0; i < 3000; ++i) {
      GemmJob job;
      // Mostly small shapes (near the limits of the small configs), sometimes huge ones.
      const int top = i % 5 == 0 ? 65535 : 600;
      job.m = std::uniform_int_distribution<int>(1, top)(rng);
      job.n = std::uniform_int_distribution<int>(1, top)(rng);
      job.k = std::uniform_int_distribution<int>(1, top)(rng);
      job.out_raw = rng() % 3 == 0;
      job.per_channel = !job.out_raw && rng() % 2 == 0;
      if (rng() % 2) job.bias.assign(1, 0);  // BIAS_EN (the contents do not matter here)
      if (rng() % 4 == 0) {
        job.a_base = rng() % config.a_depth;
        job.b_base = rng() % config.b_depth;
        job.bias_base = rng() % config.bias_depth;
        job.rq_base = rng() % config.rq_depth;
        job.out_base = rng() % config.out_depth;
      }
      const auto overflow = FindSramOverflow(config, job);
      const arch::ErrCode want = SpecRangeError(config, job);
      ASSERT_EQ(overflow ? overflow->code : arch::ErrCode::kNone, want)
          << "M=" << job.m << " N=" << job.n << " K=" << job.k;
      if (overflow) {
        EXPECT_GT(overflow->words, overflow->available);
      }
      for (Dim dim : {Dim::kM, Dim::kN, Dim::kK}) {
        const int64_t limit = MaxFittingDim(config, job, dim);
        GemmJob probe = job;
        int& value = dim == Dim::kM ? probe.m : dim == Dim::kN ? probe.n : probe.k;
        if (limit > 0) {
          value = static_cast<int>(limit);
          EXPECT_EQ(SpecRangeError(config, probe), arch::ErrCode::kNone) << int(dim);
        }
        if (limit < 65535) {
          value = static_cast<int>(limit + 1);
          EXPECT_NE(SpecRangeError(config, probe), arch::ErrCode::kNone) << int(dim);
        }
      }
    }
  }
}

TEST(SramFit, NamesTheSramAndItsWords) {
  GemmJob job;
  job.m = 300, job.n = 8, job.k = 300;
  job.bias.assign(8, 0);
  const auto overflow = FindSramOverflow(arch::ArchConfig{}, job);
  ASSERT_TRUE(overflow);
  EXPECT_EQ(overflow->sram, "A");
  EXPECT_EQ(overflow->words, 38 * 300);
  EXPECT_EQ(overflow->available, 8192);
  EXPECT_EQ(overflow->formula, "ceil(M/8) x K = 38 x 300 = 11400");
  // Only A overflows: 8192 / 300 = 27 panels of 8 rows; 8192 / 38 = 215 beats; N is not limited
  // by A (B holds 8192 / 300 = 27 panels of 8 columns).
  EXPECT_EQ(MaxFittingDim(arch::ArchConfig{}, job, Dim::kM), 27 * 8);
  EXPECT_EQ(MaxFittingDim(arch::ArchConfig{}, job, Dim::kK), 215);
  EXPECT_EQ(MaxFittingDim(arch::ArchConfig{}, job, Dim::kN), 0);  // A overflows whatever N is
}

}  // namespace
}  // namespace qacc::model
