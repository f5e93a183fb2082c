// GEMM and whole-matrix requantization against independent oracles: an exact int64 GEMM reduced mod
// 2^32, a float requant (within 1 LSB) and a gemmlowp-composed requant (bit exact).
#include "golden/gemm.h"

#include <fixedpoint/fixedpoint.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/requant_tensor.h"
#include "tests/unit/requant_oracle.h"
#include "tests/unit/expect_invalid.h"
#include "tests/unit/sweep_oracle.h"

namespace qacc::golden {
namespace {

using testing::MismatchLog;

// ---- Oracles ------------------------------------------------------------------------------------

// x mod 2^32 as a two's complement int32, by the mathematical definition (not by a cast).
int32_t ReduceToInt32(int64_t x) {
  constexpr int64_t kTwo32 = int64_t{1} << 32;
  int64_t r = ((x % kTwo32) + kTwo32) % kTwo32;  // in [0, 2^32)
  if (r >= kTwo32 / 2) r -= kTwo32;
  return static_cast<int32_t>(r);
}

// Exact C[m][n] in int64, straight from the formula; element (m, k) of A is a[m * K + k], (k, n) of
// B is b[k * N + n].
template <typename TA, typename TB>
std::vector<int64_t> ExactGemm(const Matrix<TA>& a, const Matrix<TB>& b,
                               const std::vector<int32_t>& bias, int32_t a_zp, int32_t b_zp) {
  const int M = a.rows, K = a.cols, N = b.cols;
  std::vector<int64_t> c(size_t(M) * N);
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      int64_t sum = bias.empty() ? 0 : bias[n];
      for (int k = 0; k < K; ++k) {
        sum += (int64_t{a.data[size_t(m) * K + k]} - a_zp) *
               (int64_t{b.data[size_t(k) * N + n]} - b_zp);
      }
      c[size_t(m) * N + n] = sum;
    }
  }
  return c;
}

enum class Dist { kUniform, kAllMin, kAllMax, kSparse, kBimodal };
constexpr Dist kAllDists[] = {Dist::kUniform, Dist::kAllMin, Dist::kAllMax, Dist::kSparse,
                              Dist::kBimodal};

template <typename T>
Matrix<T> RandomMatrix(int rows, int cols, Dist dist, std::mt19937_64& rng) {
  constexpr int kMin = std::numeric_limits<T>::min();
  constexpr int kMax = std::numeric_limits<T>::max();
  std::uniform_int_distribution<int> code(kMin, kMax);
  std::uniform_int_distribution<int> percent(0, 99);
  std::uniform_int_distribution<int> near_edge(0, 3);
  Matrix<T> m(rows, cols);
  for (T& v : m.data) {
    switch (dist) {
      case Dist::kUniform:
        v = static_cast<T>(code(rng));
        break;
      case Dist::kAllMin:
        v = static_cast<T>(kMin);
        break;
      case Dist::kAllMax:
        v = static_cast<T>(kMax);
        break;
      case Dist::kSparse:
        v = static_cast<T>(percent(rng) < 90 ? 0 : code(rng));
        break;
      case Dist::kBimodal:  // "skyscraper": two clusters at the ends of the range
        v = static_cast<T>(percent(rng) < 50 ? kMin + near_edge(rng) : kMax - near_edge(rng));
        break;
    }
  }
  return m;
}

template <typename TA, typename TB>
void ExpectGemmMatchesOracle(const Matrix<TA>& a, const Matrix<TB>& b,
                             const std::vector<int32_t>& bias, int32_t a_zp, int32_t b_zp,
                             const std::string& label) {
  const Matrix<int32_t> c = Gemm(a, b, bias, a_zp, b_zp);
  const std::vector<int64_t> exact = ExactGemm(a, b, bias, a_zp, b_zp);
  ASSERT_EQ(c.rows, a.rows);
  ASSERT_EQ(c.cols, b.cols);
  MismatchLog log;
  for (int m = 0; m < c.rows; ++m) {
    for (int n = 0; n < c.cols; ++n) {
      const int32_t expected = ReduceToInt32(exact[size_t(m) * c.cols + n]);
      if (c.at(m, n) != expected) {
        log.Add(
            fmt::format("{} (m={}, n={}): expected {}, got {}", label, m, n, expected, c.at(m, n)));
      }
    }
  }
  EXPECT_EQ(log.count, 0) << "first: " << log.first;
}

// ---- GEMM ---------------------------------------------------------------------------------------

TEST(Gemm, HandComputedExample) {
  // A = [[1, 2, 3], [4, 5, 6]] (2 x 3), B = [[1, 0], [0, 1], [2, -1]] (3 x 2), a_zp = 1, b_zp = -1:
  // A - 1 = [[0, 1, 2], [3, 4, 5]], B + 1 = [[2, 1], [1, 2], [3, 0]], bias = [10, -20].
  // C = [[0+1+6 + 10, 0+2+0 - 20], [6+4+15 + 10, 3+8+0 - 20]] = [[17, -18], [35, -9]].
  Matrix<int8_t> a(2, 3);
  a.data = {1, 2, 3, 4, 5, 6};
  Matrix<int8_t> b(3, 2);
  b.data = {1, 0, 0, 1, 2, -1};
  const Matrix<int32_t> c = Gemm(a, b, {10, -20}, 1, -1);
  EXPECT_EQ(c.data, (std::vector<int32_t>{17, -18, 35, -9}));
}

template <typename TA, typename TB>
void RandomGemmSweep(uint64_t seed, int iterations) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dim(1, 64);
  std::uniform_int_distribution<int> dist_index(0, 4);
  std::uniform_int_distribution<int32_t> zp(kMinOperandZeroPoint, kMaxOperandZeroPoint);
  std::uniform_int_distribution<int32_t> small_bias(-100000, 100000);
  std::uniform_int_distribution<int32_t> any_bias(std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int32_t>::max());
  for (int i = 0; i < iterations; ++i) {
    const int M = dim(rng), K = dim(rng), N = dim(rng);
    const Dist da = kAllDists[dist_index(rng)], db = kAllDists[dist_index(rng)];
    const Matrix<TA> a = RandomMatrix<TA>(M, K, da, rng);
    const Matrix<TB> b = RandomMatrix<TB>(K, N, db, rng);
    std::vector<int32_t> bias;
    const int bias_kind = i % 3;  // none, small, full int32 range (wraps for most K)
    for (int n = 0; bias_kind != 0 && n < N; ++n) {
      bias.push_back(bias_kind == 1 ? small_bias(rng) : any_bias(rng));
    }
    ExpectGemmMatchesOracle(a, b, bias, zp(rng), zp(rng),
                            fmt::format("seed {} iteration {} ({}x{}x{})", seed, i, M, K, N));
  }
}

TEST(Gemm, MatchesExactOracleModulo2To32RandomShapes) {
  RandomGemmSweep<int8_t, int8_t>(1, 600);
  RandomGemmSweep<uint8_t, int8_t>(2, 200);
  RandomGemmSweep<int8_t, uint8_t>(3, 200);
  RandomGemmSweep<uint8_t, uint8_t>(4, 200);
}

TEST(Gemm, EdgeShapesEveryDistribution) {
  // K = 1 (one product), M = 1 (matrix-vector), N = 1 (one output channel), and all three at once.
  const int shapes[][3] = {{1, 1, 1},  {1, 64, 1},  {64, 1, 64}, {1, 1, 64},
                           {64, 1, 1}, {1, 64, 64}, {64, 64, 1}, {7, 1, 5}};
  std::mt19937_64 rng(5);
  for (const auto& s : shapes) {
    for (Dist da : kAllDists) {
      for (Dist db : kAllDists) {
        const Matrix<int8_t> a = RandomMatrix<int8_t>(s[0], s[1], da, rng);
        const Matrix<int8_t> b = RandomMatrix<int8_t>(s[1], s[2], db, rng);
        std::vector<int32_t> bias(size_t(s[2]), -7);
        for (int32_t a_zp : {-128, 0, 37, 255}) {
          ExpectGemmMatchesOracle(a, b, bias, a_zp, -a_zp / 2,
                                  fmt::format("shape {}x{}x{} zp {}", s[0], s[1], s[2], a_zp));
        }
      }
    }
  }
}

TEST(Gemm, ZeroPointEqualToEveryCodeGivesBiasOnly) {
  // A - a_zp = 0 everywhere: C = bias whatever B is (catches a zero point on the wrong operand).
  Matrix<int8_t> a(3, 5, int8_t{-77});
  std::mt19937_64 rng(6);
  const Matrix<int8_t> b = RandomMatrix<int8_t>(5, 4, Dist::kUniform, rng);
  const Matrix<int32_t> c = Gemm(a, b, {1, -2, 3, std::numeric_limits<int32_t>::max()}, -77, 100);
  for (int m = 0; m < 3; ++m) {
    EXPECT_EQ(c.at(m, 0), 1);
    EXPECT_EQ(c.at(m, 1), -2);
    EXPECT_EQ(c.at(m, 2), 3);
    EXPECT_EQ(c.at(m, 3), std::numeric_limits<int32_t>::max());
  }
}

TEST(Gemm, WrapsLikeA32BitRegister) {
  // K = 200000 products of (-128) * (-128) = 16384: exact 3276800000 = 2^32 - 1018167296.
  constexpr int kK = 200000;
  const Matrix<int8_t> a(1, kK, int8_t{-128});
  const Matrix<int8_t> b(kK, 1, int8_t{-128});
  const Matrix<int32_t> c = Gemm(a, b, {}, 0, 0);
  EXPECT_EQ(c.at(0, 0), -1018167296);
  EXPECT_EQ(c.at(0, 0), ReduceToInt32(ExactGemm(a, b, {}, 0, 0)[0]));

  const auto overflow = CheckGemmOverflow(a, b, {}, 0, 0, OverflowCheck::kFinalValue);
  ASSERT_TRUE(overflow.has_value());
  EXPECT_EQ(overflow->m, 0);
  EXPECT_EQ(overflow->n, 0);
  EXPECT_EQ(overflow->k, kK);
  EXPECT_EQ(overflow->exact_value, int64_t{3276800000});
  EXPECT_EQ(overflow->num_overflowing, 1);
}

TEST(Gemm, OverflowReportFindsTheFirstOffendingOutput) {
  // K = 140000: a row of -128 times a column of -128 is 140000 * 16384 = 2293760000 > 2^31 - 1.
  // Rows 1 and 2 of A are -128, row 0 is 0; columns 2 and 3 of B are -128, column 1 is 1, column 0
  // is 0. bias[3] = -2^31 brings column 3 back to 146276352, so exactly (1, 2) and (2, 2) overflow.
  constexpr int kK = 140000;
  Matrix<int8_t> a(3, kK, int8_t{0});
  for (int k = 0; k < kK; ++k) a.at(1, k) = a.at(2, k) = -128;
  Matrix<int8_t> b(kK, 4, int8_t{0});
  for (int k = 0; k < kK; ++k) {
    b.at(k, 1) = 1;
    b.at(k, 2) = b.at(k, 3) = -128;
  }
  const std::vector<int32_t> bias = {5, 0, 0, std::numeric_limits<int32_t>::min()};

  const auto overflow = CheckGemmOverflow(a, b, bias, 0, 0, OverflowCheck::kFinalValue);
  ASSERT_TRUE(overflow.has_value());
  EXPECT_EQ(overflow->m, 1);
  EXPECT_EQ(overflow->n, 2);
  EXPECT_EQ(overflow->exact_value, int64_t{2293760000});
  EXPECT_EQ(overflow->num_overflowing, 2);

  // Column 3 starts at -2^31 and rises to 146276352, never leaving int32, so the running-sum rule
  // flags the same two outputs; in (1, 2) the sum first exceeds 2^31 - 1 after 2^31 / 16384 =
  // 131072 products.
  const auto running = CheckGemmOverflow(a, b, bias, 0, 0, OverflowCheck::kRunningSum);
  ASSERT_TRUE(running.has_value());
  EXPECT_EQ(running->m, 1);
  EXPECT_EQ(running->n, 2);
  EXPECT_EQ(running->k, 131071);
  EXPECT_EQ(running->exact_value, int64_t{1} << 31);
  EXPECT_EQ(running->num_overflowing, 2);

  ExpectGemmMatchesOracle(a, b, bias, 0, 0, "overflow matrix");
  EXPECT_EQ(Gemm(a, b, bias, 0, 0).at(1, 3), 146276352);
}

TEST(Gemm, IntermediateOverflowIsHarmlessUnderWrap) {
  // Products +16384 for k < 140000, then -16256 = -128 * 127: the running sum passes 2^31 but the
  // final value 140000 * 128 = 17920000 fits, and the wrapping accumulator returns it exactly.
  constexpr int kHalf = 140000;
  const Matrix<int8_t> a(1, 2 * kHalf, int8_t{-128});
  Matrix<int8_t> b(2 * kHalf, 1, int8_t{-128});
  for (int k = kHalf; k < 2 * kHalf; ++k) b.at(k, 0) = 127;

  for (int32_t bias : {0, -1000}) {
    EXPECT_EQ(Gemm(a, b, {bias}, 0, 0).at(0, 0), 17920000 + bias);
    EXPECT_FALSE(CheckGemmOverflow(a, b, {bias}, 0, 0, OverflowCheck::kFinalValue).has_value());
    const auto running = CheckGemmOverflow(a, b, {bias}, 0, 0, OverflowCheck::kRunningSum);
    ASSERT_TRUE(running.has_value());
    // The bias is the first term: bias + (k + 1) * 16384 > 2^31 - 1 first at k + 1 = 131072 (bias
    // 0) or 131073 (bias -1000, since 131072 * 16384 - 1000 < 2^31).
    EXPECT_EQ(running->k, bias == 0 ? 131071 : 131072) << bias;
    EXPECT_EQ(running->exact_value, bias + int64_t{running->k + 1} * 16384);
  }

  // Downward: products -16256 first; 2^31 / 16256 = 132104.06, so the sum leaves int32 at
  // k + 1 = 132105.
  Matrix<int8_t> b_down(2 * kHalf, 1, int8_t{127});
  for (int k = kHalf; k < 2 * kHalf; ++k) b_down.at(k, 0) = -128;
  const auto down = CheckGemmOverflow(a, b_down, {}, 0, 0, OverflowCheck::kRunningSum);
  ASSERT_TRUE(down.has_value());
  EXPECT_EQ(down->k, 132104);
  EXPECT_EQ(down->exact_value, -int64_t{132105} * 16256);
  EXPECT_EQ(Gemm(a, b_down, {}, 0, 0).at(0, 0), 17920000);
}

TEST(Gemm, NoOverflowReportForSmallProblems) {
  std::mt19937_64 rng(7);
  const Matrix<int8_t> a = RandomMatrix<int8_t>(16, 64, Dist::kBimodal, rng);
  const Matrix<int8_t> b = RandomMatrix<int8_t>(64, 16, Dist::kBimodal, rng);
  EXPECT_FALSE(CheckGemmOverflow(a, b, {}, 255, -128, OverflowCheck::kFinalValue).has_value());
  EXPECT_FALSE(CheckGemmOverflow(a, b, {}, 255, -128, OverflowCheck::kRunningSum).has_value());
}

TEST(Gemm, BiasNearTheLimitOverflowsOnlyUnderItsRule) {
  // bias INT32_MAX plus one product of +1: exact 2^31 does not fit; the register shows INT32_MIN.
  const Matrix<int8_t> a(1, 1, int8_t{1});
  const Matrix<int8_t> b(1, 1, int8_t{1});
  const int32_t max = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(Gemm(a, b, {max}, 0, 0).at(0, 0), std::numeric_limits<int32_t>::min());
  const auto final_value = CheckGemmOverflow(a, b, {max}, 0, 0, OverflowCheck::kFinalValue);
  ASSERT_TRUE(final_value.has_value());
  EXPECT_EQ(final_value->exact_value, int64_t{1} << 31);
  const auto running = CheckGemmOverflow(a, b, {max}, 0, 0, OverflowCheck::kRunningSum);
  ASSERT_TRUE(running.has_value());
  EXPECT_EQ(running->k, 0);
}

using testing::ExpectInvalidArgument;

TEST(Gemm, ValidatesShapesAndZeroPoints) {
  const Matrix<int8_t> a(2, 3);
  const Matrix<int8_t> b(3, 4);
  const Matrix<int8_t> b_wrong(4, 4);
  ExpectInvalidArgument([&] { Gemm(a, b_wrong, {}, 0, 0); }, "b.rows");
  ExpectInvalidArgument([&] { Gemm(a, b, {1, 2}, 0, 0); }, "bias.size");
  ExpectInvalidArgument([&] { Gemm(a, b, {}, 256, 0); }, "a_zero_point");
  ExpectInvalidArgument([&] { Gemm(a, b, {}, 0, -129); }, "b_zero_point");
  Matrix<int8_t> torn(2, 3);
  torn.data.pop_back();
  ExpectInvalidArgument([&] { Gemm(torn, b, {}, 0, 0); }, "a.data.size");
  ExpectInvalidArgument(
      [&] { CheckGemmOverflow(a, b_wrong, {}, 0, 0, OverflowCheck::kFinalValue); }, "b.rows");
  EXPECT_NO_THROW(Gemm(a, b, {}, -128, 255));
}

// ---- Requantization of an accumulator matrix ----------------------------------------------------

using testing::GemmlowpMultiply;
using testing::RefMultiplier;
using testing::RefQuantizeMultiplier;
using testing::SingleRoundingMultiply;

int32_t ClampI(int64_t v, int64_t lo, int64_t hi) {
  return static_cast<int32_t>(v < lo ? lo : v > hi ? hi : v);
}

TEST(RequantizePerChannel, MatchesFloatWithin1LsbAndGemmlowpExactly) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> log_scale(std::log(1e-5), std::log(0.05));
  // Accumulators of every magnitude up to 2^20: uniform(-2^20, 2^20) / 2^(20 - e), e in 0..20.
  std::uniform_int_distribution<int> exponent(0, 20);
  std::uniform_int_distribution<int32_t> unit(-(1 << 20), 1 << 20);
  auto acc_dist = [&](std::mt19937_64& g) { return unit(g) / (1 << (20 - exponent(g))); };
  constexpr int kRows = 200;
  constexpr int kChannels = 24;
  for (const QuantSpec& out :
       {QuantSpec{8, true, false, 0.07, -3}, QuantSpec{8, false, false, 0.02, 131},
        QuantSpec{8, true, true, 0.5, 0}}) {
    const double input_scale = 0.031;
    std::vector<double> filter_scales;
    for (int n = 0; n < kChannels; ++n) filter_scales.push_back(std::exp(log_scale(rng)));
    filter_scales[0] = 2.0;  // a real multiplier > 1 (positive shift): 0.031 * 2 / out.scale
    Matrix<int32_t> acc(kRows, kChannels);
    for (int32_t& v : acc.data) v = acc_dist(rng);
    for (int n = 0; n < kChannels; ++n) acc.at(0, n) = 0;
    acc.at(1, 0) = 1000;  // keep x * 2^shift inside int32 for the positive-shift channel
    for (int m = 2; m < kRows; ++m) acc.at(m, 0) = acc_dist(rng) / 4096;

    for (RequantRounding rounding :
         {RequantRounding::kDoubleRounding, RequantRounding::kSingleRounding}) {
      const std::vector<RequantParams> params =
          MakePerChannelRequantParams(input_scale, filter_scales, out, Activation::kNone, rounding);
      const Matrix<int32_t> y = RequantizePerChannel(acc, params);
      MismatchLog exact_log, float_log;
      double sum_error = 0;
      int64_t max_error = 0;
      for (int m = 0; m < kRows; ++m) {
        for (int n = 0; n < kChannels; ++n) {
          const double real = input_scale * filter_scales[n] / out.scale;
          const int32_t x = acc.at(m, n);
          const RefMultiplier rm = RefQuantizeMultiplier(real);
          const int32_t scaled = rounding == RequantRounding::kDoubleRounding
                                     ? GemmlowpMultiply(x, rm)
                                     : SingleRoundingMultiply(x, rm);
          const int32_t exact = ClampI(int64_t{scaled} + out.zero_point, out.qmin(), out.qmax());
          const int32_t by_float = ClampI(
              static_cast<int64_t>(std::round(x * real)) + out.zero_point, out.qmin(), out.qmax());
          const std::string where =
              fmt::format("{} m={} n={} acc={}", RequantRoundingName(rounding), m, n, x);
          if (y.at(m, n) != exact) {
            exact_log.Add(fmt::format("{}: integer oracle {}, got {}", where, exact, y.at(m, n)));
          }
          const int64_t error = std::abs(int64_t{y.at(m, n)} - by_float);
          sum_error += double(error);
          max_error = std::max(max_error, error);
          if (error > 1)
            float_log.Add(fmt::format("{}: float {}, got {}", where, by_float, y.at(m, n)));
        }
      }
      EXPECT_EQ(exact_log.count, 0) << "first: " << exact_log.first;
      EXPECT_EQ(float_log.count, 0) << "first: " << float_log.first;
      std::cout << "per-channel requant " << RequantRoundingName(rounding) << " zp "
                << out.zero_point << ": max error " << max_error << " LSB, mean "
                << sum_error / (kRows * kChannels) << " LSB vs float\n";
    }
  }
}

TEST(RequantizePerChannel, EachColumnUsesItsOwnParams) {
  // Column n scales by 2^-n: a transposed or shared parameter lookup changes most outputs.
  Matrix<int32_t> acc(3, 6);
  for (int m = 0; m < 3; ++m) {
    for (int n = 0; n < 6; ++n) acc.at(m, n) = (m + 1) * 64;
  }
  std::vector<RequantParams> params(6);
  for (int n = 0; n < 6; ++n) {
    params[n].multiplier = 1 << 30;  // 0.5 * 2^(1 - n) = 2^-n
    params[n].shift = 1 - n;
    params[n].output_zero_point = n;
  }
  const Matrix<int32_t> y = RequantizePerChannel(acc, params);
  for (int m = 0; m < 3; ++m) {
    for (int n = 0; n < 6; ++n) {
      const int32_t expected = std::min(127, ((m + 1) * 64 >> n) + n);  // exact: (m + 1) * 64 / 2^n
      EXPECT_EQ(y.at(m, n), expected) << m << " " << n;
    }
  }
}

TEST(RequantizePerTensor, HalfTiesFollowTheRoundingVariant) {
  // real 0.25 = 2^30 * 2^(-1 - 31), i.e. (2^30, shift -1).
  // acc 2 -> 0.5, -2 -> -0.5, 6 -> 1.5, 1 -> 0.25, -6 -> -1.5.
  // Double: SRDHM rounds acc / 2 half up, then RoundingDivideByPOT(., 1) rounds half away from zero.
  // Single: one half-up rounding of acc / 4.
  Matrix<int32_t> acc(1, 5);
  acc.data = {2, -2, 6, 1, -6};
  RequantParams params;
  params.multiplier = 1 << 30;
  params.shift = -1;
  params.rounding = RequantRounding::kDoubleRounding;
  const Matrix<int32_t> dbl = RequantizePerTensor(acc, params);
  std::vector<int32_t> gemmlowp_expected;
  for (int32_t x : acc.data) {
    gemmlowp_expected.push_back(GemmlowpMultiply(x, {1 << 30, -1}));
  }
  EXPECT_EQ(dbl.data, gemmlowp_expected);
  EXPECT_EQ(dbl.data,
            (std::vector<int32_t>{1, -1, 2, 1, -2}));  // 0.25 -> 1: the double-rounding error
  params.rounding = RequantRounding::kSingleRounding;
  EXPECT_EQ(RequantizePerTensor(acc, params).data, (std::vector<int32_t>{1, 0, 2, 0, -1}));
}

TEST(OutputStage, RawPerTensorAndPerChannel) {
  std::mt19937_64 rng(12);
  const Matrix<int8_t> a = RandomMatrix<int8_t>(9, 20, Dist::kUniform, rng);
  const Matrix<int8_t> b = RandomMatrix<int8_t>(20, 5, Dist::kUniform, rng);
  const Matrix<int32_t> acc = Gemm(a, b, {100, 200, 300, 400, 500}, 3, 0);

  OutputStage raw;
  EXPECT_EQ(ApplyOutputStage(acc, raw).data, acc.data);

  const QuantSpec out{8, true, false, 0.1, 5};
  OutputStage per_tensor{
      OutputMode::kRequantPerTensor,
      {MakeRequantParams(0.0004, out, Activation::kRelu, RequantRounding::kDoubleRounding)}};
  const Matrix<int32_t> y = ApplyOutputStage(acc, per_tensor);
  EXPECT_EQ(y.data, RequantizePerTensor(acc, per_tensor.params[0]).data);
  for (int32_t v : y.data) EXPECT_GE(v, out.zero_point);  // ReLU fused: never below the code of 0

  OutputStage per_channel{OutputMode::kRequantPerChannel,
                          std::vector<RequantParams>(5, per_tensor.params[0])};
  EXPECT_EQ(ApplyOutputStage(acc, per_channel).data, y.data);  // equal params: same as per tensor

  per_channel.params.pop_back();
  ExpectInvalidArgument([&] { ApplyOutputStage(acc, per_channel); }, "params.size");
  ExpectInvalidArgument([&] { RequantizePerChannel(acc, per_channel.params); }, "per_column.size");
  per_tensor.params.push_back(per_tensor.params[0]);
  ExpectInvalidArgument([&] { ApplyOutputStage(acc, per_tensor); }, "params.size");
  std::vector<RequantParams> bad(5);
  bad[2].clamp_min = 10;
  bad[2].clamp_max = 0;
  ExpectInvalidArgument([&] { RequantizePerChannel(acc, bad); }, "per_column[2]");
  ExpectInvalidArgument(
      [&] {
        MakePerChannelRequantParams(1.0, {0.5, -1.0}, out, Activation::kNone,
                                    RequantRounding::kSingleRounding);
      },
      "filter_scales[1]");
}

}  // namespace
}  // namespace qacc::golden
