// The model's fast GEMM against golden::Gemm, bit for bit: the int16 kernel (GemmInt16Wrapping) on
// factor matrices over constrained-random shapes (1, non-multiples of the 4-column block and of
// the array, both signednesses, every zero-point extreme), inputs that provably wrap the 32-bit
// accumulator, and the SRAM-panel paths built on it: PanelGemm, the whole-command
// GemmEngine::ForEachTile (model-only) against the per-tile ComputeTile (lockstep beats) and
// golden, up to the largest K the SRAMs hold.
#include "model/panel_gemm.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "golden/gemm.h"
#include "model/command.h"
#include "model/gemm_engine.h"
#include "model/gemm_job.h"
#include "model/int16_gemm.h"
#include "model/sram_fit.h"
#include "tests/model/model_test_util.h"

namespace qacc::model {
namespace {

using testing::Config;

constexpr int32_t kMaxFactor = 383;  // 255 - (-128): |a' - zp| <= 383 (5.1)
constexpr int64_t kTwo32 = int64_t{1} << 32;

// x mod 2^32 as a two's complement value, from the definition.
int32_t Mod32(int64_t x) {
  int64_t r = ((x % kTwo32) + kTwo32) % kTwo32;
  if (r >= kTwo32 / 2) r -= kTwo32;
  return static_cast<int32_t>(r);
}

// ---- The kernel on factor matrices --------------------------------------------------------------

// Codes as int8 or uint8 matrices (golden's view) and the same codes as bytes (the SRAM's).
template <typename T>
golden::Matrix<T> FromCodes(int rows, int cols, const std::vector<uint8_t>& codes) {
  golden::Matrix<T> matrix(rows, cols);
  for (size_t i = 0; i < codes.size(); ++i) {
    matrix.data[i] = static_cast<T>(std::is_signed_v<T> && codes[i] >= 128 ? int{codes[i]} - 256
                                                                           : int{codes[i]});
  }
  return matrix;
}

// C = A x B through the kernel: A's factors row-major, B's transposed, both by MakeFactorTable.
std::vector<int32_t> KernelGemm(int m, int n, int k, const std::vector<uint8_t>& a,
                                const std::vector<uint8_t>& b, bool a_unsigned, bool b_unsigned,
                                int32_t a_zp, int32_t b_zp) {
  const FactorTable a_factor = MakeFactorTable(a_unsigned, a_zp);
  const FactorTable b_factor = MakeFactorTable(b_unsigned, b_zp);
  std::vector<int16_t> af(a.size()), bt(b.size());
  for (size_t i = 0; i < a.size(); ++i) af[i] = a_factor[a[i]];
  for (int kk = 0; kk < k; ++kk) {
    for (int j = 0; j < n; ++j) bt[size_t(j) * k + kk] = b_factor[b[size_t(kk) * n + j]];
  }
  std::vector<int32_t> c(size_t(m) * n, 0x5A5A5A5A);  // every element must be written
  GemmInt16Wrapping(af.data(), bt.data(), m, n, k, c.data(), size_t(n));
  return c;
}

std::vector<int32_t> GoldenGemm(int m, int n, int k, const std::vector<uint8_t>& a,
                                const std::vector<uint8_t>& b, bool a_unsigned, bool b_unsigned,
                                int32_t a_zp, int32_t b_zp) {
  if (a_unsigned) {
    const auto ga = FromCodes<uint8_t>(m, k, a);
    return b_unsigned ? golden::Gemm(ga, FromCodes<uint8_t>(k, n, b), {}, a_zp, b_zp).data
                      : golden::Gemm(ga, FromCodes<int8_t>(k, n, b), {}, a_zp, b_zp).data;
  }
  const auto ga = FromCodes<int8_t>(m, k, a);
  return b_unsigned ? golden::Gemm(ga, FromCodes<uint8_t>(k, n, b), {}, a_zp, b_zp).data
                    : golden::Gemm(ga, FromCodes<int8_t>(k, n, b), {}, a_zp, b_zp).data;
}

std::string Shape(int m, int n, int k, bool a_unsigned, bool b_unsigned, int a_zp, int b_zp) {
  return "M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k) +
         " a_unsigned=" + std::to_string(a_unsigned) + " b_unsigned=" + std::to_string(b_unsigned) +
         " a_zp=" + std::to_string(a_zp) + " b_zp=" + std::to_string(b_zp);
}

TEST(MakeFactorTable, EveryCodeBothSignednessesZeroPointExtremes) {
  for (bool is_unsigned : {false, true}) {
    for (int32_t zp : {-128, -1, 0, 127, 255}) {
      const FactorTable table = MakeFactorTable(is_unsigned, zp);
      for (int code = 0; code < 256; ++code) {
        const int value = is_unsigned ? code : static_cast<int8_t>(code);
        EXPECT_EQ(table[size_t(code)], value - zp) << code << " zp " << zp;
      }
    }
  }
  EXPECT_EQ(MakeFactorTable(true, -128)[255], kMaxFactor);
  EXPECT_EQ(MakeFactorTable(false, 255)[128], -kMaxFactor);  // int8 -128 - 255
}

// Dimensions that hit the kernel's edges: 1, around its 4-column block and the array sizes (4..32),
// and random ones up to 100.
int RandomDim(std::mt19937& rng) {
  static constexpr int kEdges[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33};
  std::uniform_int_distribution<int> pick(0, 2 * int(std::size(kEdges)) - 1);
  const int i = pick(rng);
  return i < int(std::size(kEdges)) ? kEdges[i] : std::uniform_int_distribution<int>(1, 100)(rng);
}

int32_t RandomZeroPoint(std::mt19937& rng) {
  static constexpr int32_t kExtremes[] = {-128, 255, 0, -1, 127, 128};
  std::uniform_int_distribution<int> pick(0, 9);
  const int i = pick(rng);
  return i < 6 ? kExtremes[i]
               : std::uniform_int_distribution<int32_t>(golden::kMinOperandZeroPoint,
                                                        golden::kMaxOperandZeroPoint)(rng);
}

TEST(GemmInt16Wrapping, EqualsGoldenGemmOnRandomShapes) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int trial = 0; trial < 300; ++trial) {
      const int m = RandomDim(rng), n = RandomDim(rng), k = RandomDim(rng);
      const bool a_unsigned = trial % 2, b_unsigned = (trial / 2) % 2;
      const int32_t a_zp = RandomZeroPoint(rng), b_zp = RandomZeroPoint(rng);
      std::vector<uint8_t> a(size_t(m) * k), b(size_t(k) * n);
      // Every 5th trial all codes at one end of the range (the largest factors).
      const int fill = trial % 5 == 0 ? (trial % 3 == 0 ? 0 : 255) : -1;
      for (uint8_t& x : a) x = static_cast<uint8_t>(fill < 0 ? byte(rng) : fill);
      for (uint8_t& x : b) x = static_cast<uint8_t>(fill < 0 ? byte(rng) : 255 - fill);
      ASSERT_EQ(KernelGemm(m, n, k, a, b, a_unsigned, b_unsigned, a_zp, b_zp),
                GoldenGemm(m, n, k, a, b, a_unsigned, b_unsigned, a_zp, b_zp))
          << "seed " << seed << " trial " << trial << ": "
          << Shape(m, n, k, a_unsigned, b_unsigned, a_zp, b_zp);
    }
  }
}

// int8 codes with both zero points 255: 0x80 (-128) is factor -383, 0x7F (127) is -128 and 0xFF
// (-1) is -256. Rows of A: -383, -128; columns of B: -383, -128, -256. Every product is positive
// and
// (-383)^2 = 146689 is the largest: element (0, 0) = K * 383^2 leaves int32 from K = 14640 on and
// leaves 2^32 from K = 29280 on.
TEST(GemmInt16Wrapping, AccumulatorsWrapModulo2To32) {
  constexpr int kM = 2, kN = 3;
  constexpr int64_t kRowFactor[kM] = {-383, -128};
  constexpr int64_t kColFactor[kN] = {-383, -128, -256};
  for (int k : {1, 14639, 14640, 16384, 29279, 29280, 40000}) {
    std::vector<uint8_t> a(size_t(kM) * k), b(size_t(k) * kN);
    for (int kk = 0; kk < k; ++kk) {
      a[size_t(kk)] = 0x80;
      a[size_t(k) + kk] = 0x7F;
      b[size_t(kk) * kN + 0] = 0x80;
      b[size_t(kk) * kN + 1] = 0x7F;
      b[size_t(kk) * kN + 2] = 0xFF;
    }
    const std::vector<int32_t> kernel = KernelGemm(kM, kN, k, a, b, false, false, 255, 255);
    ASSERT_EQ(kernel, GoldenGemm(kM, kN, k, a, b, false, false, 255, 255)) << "K " << k;
    for (int i = 0; i < kM; ++i) {
      for (int j = 0; j < kN; ++j) {
        const int64_t exact = int64_t{k} * kRowFactor[i] * kColFactor[j];
        EXPECT_EQ(kernel[size_t(i) * kN + j], Mod32(exact)) << "K " << k << " (" << i << ", " << j;
      }
    }
    // The wrap really happened: the register differs from the exact sum.
    const int64_t exact00 = int64_t{k} * 146689;
    EXPECT_EQ(exact00 > std::numeric_limits<int32_t>::max(), k >= 14640);
    if (k >= 14640) {
      EXPECT_NE(int64_t{kernel[0]}, exact00) << "K " << k;
    }
    if (k >= 14640 && k < 29280) {
      EXPECT_LT(kernel[0], 0) << "K " << k;
    }
  }
}

// Negative sums wrap to positive values: (+383) * (-383) over K = 16384 is -2403352576, which the
// 32-bit register holds as +1891614720. A uint8 255 with zero point -128 is +383, an int8 0x80 with
// zero point 255 is -383; uint8 0 with zero point 255 (-255) keeps the sum inside int32.
TEST(GemmInt16Wrapping, NegativeSumsWrapToPositive) {
  constexpr int kK = 16384;
  const std::vector<uint8_t> a(kK, 255);
  const std::vector<uint8_t> b_wraps(kK, 0x80);
  const std::vector<int32_t> wraps = KernelGemm(1, 1, kK, a, b_wraps, true, false, -128, 255);
  EXPECT_EQ(wraps, GoldenGemm(1, 1, kK, a, b_wraps, true, false, -128, 255));
  EXPECT_EQ(wraps[0], 1891614720);
  EXPECT_EQ(int64_t{wraps[0]}, int64_t{kK} * -146689 + kTwo32);
  const std::vector<uint8_t> b_fits(kK, 0);
  const std::vector<int32_t> fits = KernelGemm(1, 1, kK, a, b_fits, true, true, -128, 255);
  EXPECT_EQ(fits, GoldenGemm(1, 1, kK, a, b_fits, true, true, -128, 255));
  EXPECT_EQ(int64_t{fits[0]}, int64_t{kK} * 383 * -255);
}

// The kernel takes any int16 factors: 2^30 per product, four of them are 2^32 = 0 mod 2^32.
TEST(GemmInt16Wrapping, AnyInt16FactorsWithoutOverflow) {
  constexpr int16_t kMin = std::numeric_limits<int16_t>::min();
  const std::vector<int16_t> a(5, kMin);
  const std::vector<int16_t> bt = {kMin, kMin, kMin, kMin, kMin,  // column 0: 5 * 2^30
                                   1,    1,    1,    1,    1,     // column 1: 5 * -2^15
                                   kMin, kMin, kMin, kMin, 0};    // column 2: 4 * 2^30 = 2^32
  std::vector<int32_t> c(3);
  GemmInt16Wrapping(a.data(), bt.data(), 1, 3, 5, c.data(), 3);
  EXPECT_EQ(c[0], Mod32(5LL << 30));
  EXPECT_EQ(c[1], -5 * 32768);
  EXPECT_EQ(c[2], 0);
  // depth 0: every sum is empty.
  GemmInt16Wrapping(a.data(), bt.data(), 1, 3, 0, c.data(), 3);
  EXPECT_EQ(c, (std::vector<int32_t>{0, 0, 0}));
}

// ---- The SRAM-panel paths -----------------------------------------------------------------------

void Load(const arch::ArchConfig& config, const GemmJob& job, Srams& srams) {
  for (const BusWrite& write : PackOperands(config, job)) {
    srams.HostWrite(static_cast<arch::Region>(arch::RegionBits(write.addr)),
                    arch::WindowOffset(write.addr), write.data, write.strobe);
  }
}

// Every tile of ForEachTile equals ComputeTile(t) (the beats' source) in all fields, and its
// accumulators are golden::Gemm's (no bias) with 0 in padded rows and lanes. Returns the tiles
// seen.
int64_t ExpectWholeCommandEqualsTilesAndGolden(const arch::ArchConfig& config, const GemmJob& job,
                                               const std::string& where) {
  Srams srams(config);
  Load(config, job, srams);
  const LaunchDecision decision = DecodeCommand(config, ToCommand(job));
  if (decision.error != arch::ErrCode::kNone) {
    ADD_FAILURE() << where << ": rejected with " << arch::ErrCodeName(decision.error);
    return 0;
  }
  GemmJob no_bias = job;
  no_bias.bias.clear();
  no_bias.out_raw = true;
  const golden::Matrix<int32_t> golden_acc = GoldenOutput(no_bias);
  const GemmEngine engine(config, decision.command, srams);
  const arch::Timing& timing = decision.command.timing;
  int64_t next = 0;
  engine.ForEachTile([&](const TileResult& tile) {
    ASSERT_EQ(tile.tile, next) << where;
    const TileResult single = engine.ComputeTile(next++);
    ASSERT_EQ(tile.mb, single.mb) << where;
    ASSERT_EQ(tile.nb, single.nb) << where;
    ASSERT_EQ(tile.m_valid, single.m_valid) << where;
    ASSERT_EQ(tile.n_valid, single.n_valid) << where;
    ASSERT_EQ(tile.acc, single.acc) << where << " tile " << tile.tile;
    ASSERT_EQ(tile.out, single.out) << where << " tile " << tile.tile;
    ASSERT_EQ(tile.known_lanes, single.known_lanes) << where << " tile " << tile.tile;
    for (int i = 0; i < config.rows; ++i) {
      for (int c = 0; c < config.cols; ++c) {
        const int64_t m = tile.mb * config.rows + i, n = tile.nb * config.cols + c;
        const int32_t want = m < job.m && n < job.n ? golden_acc.at(int(m), int(n)) : 0;
        ASSERT_EQ(tile.acc[size_t(i) * config.cols + c], want)
            << where << " tile " << tile.tile << " row " << i << " lane " << c;
      }
    }
  });
  EXPECT_EQ(next, timing.T()) << where;
  return next;
}

class PanelGemmTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PanelGemmTest, WholeCommandEqualsPerTileAndGoldenOnRandomJobs) {
  const arch::ArchConfig config = Config(GetParam());
  std::mt19937 rng(41);
  int64_t tiles = 0;
  for (int trial = 0; trial < 80; ++trial) {
    GemmJob job = testing::RandomJob(rng, trial < 60 ? 40 : 90);
    if (trial % 4 == 0) job.a_zp = trial % 8 == 0 ? -128 : 255;
    if (trial % 4 == 1) job.b_zp = trial % 8 == 1 ? 255 : -128;
    job.a_base = static_cast<uint32_t>(trial % 5);
    job.b_base = static_cast<uint32_t>(trial % 3);
    tiles += ExpectWholeCommandEqualsTilesAndGolden(config, job, "trial " + std::to_string(trial));
  }
  EXPECT_GT(tiles, 1000);
}

// K as large as the A and B SRAMs allow for the shape, with the largest factors of each sign.
TEST_P(PanelGemmTest, LargestKThatFits) {
  const arch::ArchConfig config = Config(GetParam());
  const int shapes[][2] = {
      {1, 1}, {config.rows, config.cols}, {2 * config.rows + 3, config.cols + 1}};
  for (const auto& shape : shapes) {
    for (int32_t a_zp : {-128, 255}) {
      GemmJob job;
      job.m = shape[0], job.n = shape[1];
      job.k = static_cast<int>(MaxFittingDim(config, job, Dim::kK));
      ASSERT_GT(job.k, 0);
      job.a_unsigned = a_zp < 0, job.b_unsigned = true;
      job.a.assign(size_t(job.m) * job.k, a_zp < 0 ? 255 : 0x80);  // factor +383 or -383
      job.b.assign(size_t(job.k) * job.n, 255);
      job.a_zp = a_zp, job.b_zp = -128;  // factor +383
      job.out_raw = true;
      ExpectWholeCommandEqualsTilesAndGolden(
          config, job,
          "M=" + std::to_string(job.m) + " N=" + std::to_string(job.n) +
              " K=" + std::to_string(job.k) + " a_zp=" + std::to_string(a_zp));
    }
  }
}

// In the shipped configs K <= 8192 keeps |acc| <= 8192 * 383^2 < 2^31. An A and B SRAM of 32768
// words hold K = 32768, where the MAC accumulators themselves wrap (32768 * 383^2 > 2^32).
TEST_P(PanelGemmTest, AccumulatorsWrapWithDeepSrams) {
  arch::ArchConfig config = Config(GetParam());
  config.a_depth = config.b_depth = 32768;
  arch::ValidateArchConfig(config);
  GemmJob job;
  job.m = config.rows, job.n = config.cols, job.k = 32768;
  job.a_unsigned = true, job.b_unsigned = false;
  job.a_zp = -128, job.b_zp = 255;
  job.a.assign(size_t(job.m) * job.k, 255);   // uint8 255 - (-128) = +383
  job.b.assign(size_t(job.k) * job.n, 0x80);  // int8 -128 - 255 = -383
  // Column 1: its second half is 0x7F, int8 127 - 255 = -128.
  for (int kk = job.k / 2; kk < job.k; ++kk) job.b[size_t(kk) * job.n + 1] = 0x7F;
  job.out_raw = true;
  ExpectWholeCommandEqualsTilesAndGolden(config, job, "deep SRAMs");

  Srams srams(config);
  Load(config, job, srams);
  const LaunchDecision decision = DecodeCommand(config, ToCommand(job));
  ASSERT_EQ(decision.error, arch::ErrCode::kNone);
  const TileResult tile = GemmEngine(config, decision.command, srams).ComputeTile(0);
  const int64_t exact0 = int64_t{job.k} * 383 * -383;
  const int64_t exact1 = int64_t{job.k / 2} * 383 * -383 + int64_t{job.k / 2} * 383 * -128;
  EXPECT_LT(exact0, -kTwo32);  // wraps more than once around
  EXPECT_LT(exact1, std::numeric_limits<int32_t>::min());
  EXPECT_EQ(tile.acc[0], Mod32(exact0));
  EXPECT_EQ(tile.acc[1], Mod32(exact1));
  EXPECT_NE(int64_t{tile.acc[1]}, exact1);
}

TEST_P(PanelGemmTest, RejectsBlocksOutsideTheCommand) {
  const arch::ArchConfig config = Config(GetParam());
  GemmJob job;
  job.m = config.rows + 1, job.n = config.cols + 1, job.k = 3;
  job.a.assign(size_t(job.m) * job.k, 1);
  job.b.assign(size_t(job.k) * job.n, 1);
  Srams srams(config);
  Load(config, job, srams);
  const DecodedCommand command = DecodeCommand(config, ToCommand(job)).command;
  EXPECT_THROW(PanelGemm(command, srams, config.rows, config.cols, 1, 2), std::out_of_range);
  const PanelGemm gemm(command, srams, config.rows, config.cols, 0, 2);
  EXPECT_EQ(gemm.num_cols(), 2 * config.cols);
  std::vector<int32_t> acc;
  EXPECT_THROW(gemm.ComputeRowBlock(2, acc), std::out_of_range);
  gemm.ComputeRowBlock(1, acc);  // row block 1: one valid row of 3 * 1 * 1
  ASSERT_EQ(acc.size(), size_t(config.rows) * 2 * config.cols);
  EXPECT_EQ(acc[0], 3);
  EXPECT_EQ(acc[size_t(config.cols)], 3);      // column C: block 1, lane 0
  EXPECT_EQ(acc[size_t(config.cols) + 1], 0);  // padded lane
  EXPECT_EQ(acc[size_t(2) * config.cols], 0);  // padded row 1
}

INSTANTIATE_TEST_SUITE_P(Configs, PanelGemmTest, ::testing::Values("default", "rect_4x16"));

}  // namespace
}  // namespace qacc::model
