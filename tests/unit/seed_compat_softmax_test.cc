// `--compat seed` softmax (SoftmaxMode::kSeedCompat) against an independent float32 emulation of
// the original Python, over a grid of every option the original accepts.
//
// The emulation below is written from seed 000's Softmax class and its utils.QuantConfig, not from
// golden/:
//
//   QuantConfig(bit, narrow, unsign, amax=None, scale=None):
//     assert unsign is False when bit > 8;  assert any((amax, scale))
//     quant_min = 0 if unsign else (-(1 << (bit-1)) + 1 if narrow else -(1 << (bit-1)))
//     quant_max = (1 << bit) - 1 if unsign else (1 << (bit-1)) - 1
//     scale = scale if scale else amax / quant_max
//     dtype = (uint8 if unsign else int8) if bit <= 8 else int16 / int32 / int64 for <= 16 / 32 /
//     more quantize(x) = torch.clamp(x / scale, quant_min, quant_max).to(dtype)
//   Softmax(dim_len, input_bit, input_amax, input_unsign, output_bit, output_amax, output_unsign,
//           acc_bit, narrow):
//     input_quant = input_qconfig.range.to(int32)
//     exp_float = torch.exp((input_quant - input_qconfig.quant_max) * input_qconfig.scale)
//     acc_quant_max = (1 << (acc_bit - 1)) - 1
//     denominator_scale = 1 / (acc_quant_max // dim_len)
//     T = QuantConfig(acc_bit, False, False, scale=denominator_scale).quantize(exp_float)
//     numerator_scale = denominator_scale * output_qconfig.scale
//     P = QuantConfig(acc_bit + output_bit, False, False,
//     scale=numerator_scale).quantize(exp_float) forward(x): y = P[x] / torch.sum(T[x], dim)
//                 torch.clamp(y, out quant_min, out quant_max).to(out dtype)
//
// PyTorch's rules give each step in float32: int32 tensor * Python float is float32(q) *
// float32(scale), torch.exp is expf, a float32 tensor / Python float divides by float32(scale),
// clamp bounds are float32 (2^(b-1) - 1 rounds up to 2^(b-1) for b >= 26), .to(int) truncates, and
// a float32 2^31 cast to int32 gives -2^31 (x86's cvttss2si: PyTorch's CPU result); torch.sum of an
// int tensor is an exact int64; int / int is a float32 true division of the two converted to
// float32. NaN (0 / 0) cast to an 8- or 16-bit int is 0 on x86 (cvttss2si's 0x80000000, low bits).
// Only the API under test (golden/softmax.h) is called; the emulation uses nothing of golden/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/softmax.h"
#include "tests/unit/expect_invalid.h"
#include "tests/unit/seed_emulation.h"

namespace qacc::golden {
namespace {

using testing::PyQuantConfig;

// ---- The emulation ------------------------------------------------------------------------------

// .to(dtype) of a clamped, finite float32 value: truncation, then x86's conversion (an int32 out
// of range becomes INT32_MIN; 8- and 16-bit values are in range after the clamp).
int64_t PyToDtype(float clamped, const PyQuantConfig& config) {
  if (std::isnan(clamped)) return 0;
  const auto t = static_cast<int64_t>(std::trunc(static_cast<double>(clamped)));
  if (config.dtype_bits() == 32 && (t > INT32_MAX || t < INT32_MIN)) return INT32_MIN;
  return t;
}

// QuantConfig.quantize of one float32 value with a Python-float scale.
int64_t PyQuantize(float x, double scale, const PyQuantConfig& config) {
  const float v = x / static_cast<float>(scale);
  const float clamped = std::min(std::max(v, static_cast<float>(config.quant_min())),
                                 static_cast<float>(config.quant_max()));
  return PyToDtype(clamped, config);
}

struct PySoftmax {
  PyQuantConfig in{8, false, false};
  PyQuantConfig out{8, false, true};
  std::vector<int64_t> t;  // by input code, index q - in.quant_min()
  std::vector<int64_t> p;

  // forward() of a one-row input: the row's exact sum, a float32 division per element.
  std::vector<int64_t> Forward(const std::vector<int32_t>& row) const {
    int64_t denominator = 0;
    for (int32_t x : row) denominator += t[static_cast<size_t>(x - in.quant_min())];
    std::vector<int64_t> y;
    for (int32_t x : row) {
      const auto numerator = static_cast<float>(p[static_cast<size_t>(x - in.quant_min())]);
      const float quotient = numerator / static_cast<float>(denominator);
      // torch.clamp keeps NaN; the min/max below would not, so NaN is kept explicitly.
      const float clamped = std::isnan(quotient)
                                ? quotient
                                : std::min(std::max(quotient, static_cast<float>(out.quant_min())),
                                           static_cast<float>(out.quant_max()));
      y.push_back(PyToDtype(clamped, out));
    }
    return y;
  }
};

// Softmax.__init__; nullopt where the original raises (QuantConfig's assert, or
// acc_quant_max // dim_len = 0: ZeroDivisionError).
std::optional<PySoftmax> PySoftmaxInit(int dim_len, int input_bit, double input_amax,
                                       bool input_unsign, int output_bit, double output_amax,
                                       bool output_unsign, int acc_bit, bool narrow) {
  if (input_bit > 8 || (output_bit > 8 && output_unsign)) return std::nullopt;
  PySoftmax s;
  s.in = PyQuantConfig{input_bit, narrow, input_unsign};
  s.out = PyQuantConfig{output_bit, narrow, output_unsign};
  const double input_scale = input_amax / static_cast<double>(s.in.quant_max());
  const double output_scale = output_amax / static_cast<double>(s.out.quant_max());
  const int64_t acc_quant_max = (int64_t{1} << (acc_bit - 1)) - 1;
  if (acc_quant_max / dim_len == 0) return std::nullopt;
  const double denominator_scale = 1.0 / static_cast<double>(acc_quant_max / dim_len);
  const double numerator_scale = denominator_scale * output_scale;
  const PyQuantConfig t_config{acc_bit, false, false};
  const PyQuantConfig p_config{acc_bit + output_bit, false, false};
  for (int64_t q = s.in.quant_min(); q <= s.in.quant_max(); ++q) {
    const float x = static_cast<float>(static_cast<int32_t>(q - s.in.quant_max())) *
                    static_cast<float>(input_scale);
    const float exp_float = std::exp(x);  // expf
    s.t.push_back(PyQuantize(exp_float, denominator_scale, t_config));
    s.p.push_back(PyQuantize(exp_float, numerator_scale, p_config));
  }
  return s;
}

// ---- The grid -----------------------------------------------------------------------------------

struct Config {
  int n, in_bits;
  double in_amax;
  bool in_unsigned;
  int out_bits;
  double out_amax;
  bool out_unsigned;
  int acc_bits;
  bool narrow;
};

std::string Describe(const Config& c) {
  char text[200];
  std::snprintf(text, sizeof text, "n %d in %s%d amax %g out %s%d amax %g acc %d%s", c.n,
                c.in_unsigned ? "u" : "s", c.in_bits, c.in_amax, c.out_unsigned ? "u" : "s",
                c.out_bits, c.out_amax, c.acc_bits, c.narrow ? " narrow" : "");
  return text;
}

// What qacc softmax-tables --compat seed builds: symmetric specs, scale = amax / qmax in double,
// narrow on the signed specs (given on an unsigned one too: compat mode accepts and drops it).
SoftmaxParams ParamsOf(const Config& c) {
  SoftmaxParams p;
  p.n = c.n;
  p.in = QuantSpec{c.in_bits, !c.in_unsigned, c.narrow, 1.0, 0};
  p.in.scale =
      c.in_amax / static_cast<double>(PyQuantConfig{c.in_bits, false, c.in_unsigned}.quant_max());
  p.out = QuantSpec{c.out_bits, !c.out_unsigned, c.narrow, 1.0, 0};
  p.out.scale = c.out_amax /
                static_cast<double>(PyQuantConfig{c.out_bits, false, c.out_unsigned}.quant_max());
  p.acc_bits = c.acc_bits;
  return WithSeedCompat(p);
}

// Rows of one configuration: the all-qmin row (the smallest S, often 0), the skyscraper, the
// all-qmax row, a low random row and a random row.
std::vector<std::vector<int32_t>> RowsOf(const PySoftmax& s, int n, std::mt19937_64& rng) {
  const auto lo = static_cast<int32_t>(s.in.quant_min());
  const auto hi = static_cast<int32_t>(s.in.quant_max());
  std::vector<std::vector<int32_t>> rows;
  rows.emplace_back(static_cast<size_t>(n), lo);
  std::vector<int32_t> skyscraper(static_cast<size_t>(n), lo);
  skyscraper[0] = hi;
  rows.push_back(skyscraper);
  rows.emplace_back(static_cast<size_t>(n), hi);
  for (int32_t top : {lo + (hi - lo) / 4, hi}) {
    std::vector<int32_t> row(static_cast<size_t>(n));
    for (int32_t& x : row)
      x = lo + static_cast<int32_t>(rng() % static_cast<uint64_t>(top - lo + 1));
    rows.push_back(row);
  }
  return rows;
}

const int kN[] = {1, 2, 3, 100, 1000};
const double kInAmax[] = {1.0, 8.0};
const double kOutAmax[] = {1.0, 0.3, 0.004};  // 0.004: P saturates, clamps and wraps
// in bits 2..8 x in signed/unsigned x (out signed 2..16 + unsigned 2..8) x narrow x acc 8..32.
constexpr int kFormats = 7 * 2 * (15 + 7) * 2 * 25;    // 15400
constexpr int kConfigurations = kFormats * 5 * 2 * 3;  // 462000, some rejected (M = 0)

TEST(SeedCompatSoftmax, GridMatchesTheFloat32Emulation) {
  std::mt19937_64 rng(2024);
  int compared = 0, rejected = 0, failures = 0;
  int64_t rows = 0, elements = 0, float_vs_floor = 0, wrapped_t = 0, wrapped_p = 0, over_width = 0,
          zero_sums = 0;
  for (int in_bits = 2; in_bits <= 8; ++in_bits)
    for (bool in_unsigned : {false, true})
      for (int out_bits = 2; out_bits <= 16; ++out_bits)
        for (bool out_unsigned : {false, true}) {
          if (out_unsigned && out_bits > 8) continue;  // rejected: SeedCompatSoftmax.Rejects...
          for (bool narrow : {false, true})
            for (int acc_bits = 8; acc_bits <= 32; ++acc_bits)
              for (int n : kN)
                for (double in_amax : kInAmax)
                  for (double out_amax : kOutAmax) {
                    const Config c{n,        in_bits,      in_amax,  in_unsigned, out_bits,
                                   out_amax, out_unsigned, acc_bits, narrow};
                    const std::optional<PySoftmax> want =
                        PySoftmaxInit(n, in_bits, in_amax, in_unsigned, out_bits, out_amax,
                                      out_unsigned, acc_bits, narrow);
                    if (!want) {  // M = 0: the original divides by zero, qacc names acc_bits
                      ++rejected;
                      EXPECT_THROW(BuildSoftmaxTables(ParamsOf(c)), std::invalid_argument)
                          << Describe(c);
                      continue;
                    }
                    ++compared;
                    const SoftmaxTables tables = BuildSoftmaxTables(ParamsOf(c));
                    if (tables.exp_table != want->t || tables.numerator_table != want->p) {
                      if (++failures <= 10) ADD_FAILURE() << Describe(c) << ": tables differ";
                      continue;
                    }
                    wrapped_t += tables.stats.t_wrapped;
                    wrapped_p += tables.stats.p_wrapped;
                    over_width += tables.stats.t_over_width + tables.stats.p_over_width;
                    // Rows: all five for n <= 100; for n = 1000 (the row cost dominates) one,
                    // taking turns.
                    std::vector<std::vector<int32_t>> test_rows = RowsOf(*want, n, rng);
                    if (n > 100) test_rows = {test_rows[static_cast<size_t>(compared) % 5]};
                    for (const std::vector<int32_t>& row : test_rows) {
                      ++rows;
                      const std::vector<int32_t> y = SoftmaxRow(tables, row);
                      const std::vector<int64_t> y_want = want->Forward(row);
                      int64_t sum = 0;
                      for (int32_t x : row)
                        sum += want->t[static_cast<size_t>(x - want->in.quant_min())];
                      zero_sums += sum == 0;
                      for (size_t i = 0; i < row.size(); ++i, ++elements) {
                        if (y[i] != y_want[i] && ++failures <= 10) {
                          ADD_FAILURE() << Describe(c) << " row " << rows << " [" << i << "] code "
                                        << row[i] << ": " << y[i] << ", the original " << y_want[i];
                        }
                        // How often an integer division would have given another output.
                        const int64_t p =
                            want->p[static_cast<size_t>(row[i] - want->in.quant_min())];
                        if (sum > 0 && p >= 0) {
                          const int64_t floor = std::min<int64_t>(p / sum, want->out.quant_max());
                          float_vs_floor += floor != y_want[i];
                        }
                      }
                    }
                  }
        }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(compared + rejected, kConfigurations);
  // The corners the issue names are on the grid: wrapped T (acc 32, n 1), P above its word or
  // wrapped, S = 0 rows, and float32 divisions that differ from integer ones.
  EXPECT_GT(wrapped_t, 0);
  EXPECT_GT(wrapped_p, 0);
  EXPECT_GT(over_width, 0);
  EXPECT_GT(zero_sums, 0);
  EXPECT_GT(float_vs_floor, 0);
  std::printf(
      "softmax-tables --compat seed: %d configurations compared (%d formats x %zu n x %zu in amax "
      "x %zu out amax, %d rejected by both: M = 0), %lld rows, %lld elements; %lld wrapped T, "
      "%lld wrapped P, %lld entries at 2^(w-1), %lld rows with S = 0, %lld elements where "
      "floor(P / S) would differ\n",
      compared, kFormats, std::size(kN), std::size(kInAmax), std::size(kOutAmax), rejected,
      static_cast<long long>(rows), static_cast<long long>(elements),
      static_cast<long long>(wrapped_t), static_cast<long long>(wrapped_p),
      static_cast<long long>(over_width), static_cast<long long>(zero_sums),
      static_cast<long long>(float_vs_floor));
}

TEST(SeedCompatSoftmax, TheIssueExamples) {
  // n = 1, 4-bit signed input amax 1, 8-bit unsigned output amax 1, acc 16: P(7) = 8355584, where
  // the double tables give round-free 32767 * 255 = 8355585.
  Config c{1, 4, 1.0, false, 8, 1.0, true, 16, false};
  SoftmaxTables tables = BuildSoftmaxTables(ParamsOf(c));
  EXPECT_EQ(tables.P(7), 8355584);
  EXPECT_EQ(tables.T(7), 32767);
  SoftmaxParams exact = ParamsOf(c);
  exact.mode = SoftmaxMode::kExact;
  EXPECT_EQ(BuildSoftmaxTables(exact).P(7), 8355585);

  // acc 32, n = 1: float32(2^31 - 1) = 2^31, so T(qmax) = trunc(1 / float32(1 / (2^31 - 1))) =
  // 2^31, which the int32 cast wraps to -2^31. The one-element row then has S < 0 and Y = 0
  // (clamped) where the softmax is 1.
  c.acc_bits = 32;
  tables = BuildSoftmaxTables(ParamsOf(c));
  EXPECT_EQ(tables.T(7), INT32_MIN);
  EXPECT_EQ(tables.stats.t_wrapped, 1);
  EXPECT_EQ(tables.stats.t_over_width, 0);
  EXPECT_TRUE(tables.stats.any_wrapped());
  EXPECT_EQ(SoftmaxRow(tables, {7}), std::vector<int32_t>{0});
  // T(6) = 1861606144, P(6) = 474709524480: the quotient 254.99998 truncates to 254 (checked with
  // PyTorch 1.13, as the other values of this test).
  EXPECT_EQ(SoftmaxRow(tables, {6}), std::vector<int32_t>{254});
  exact.acc_bits = 32;
  EXPECT_EQ(BuildSoftmaxTables(exact).T(7), 2147483647);  // the exact mode never wraps
  EXPECT_EQ(BuildSoftmaxTables(exact).stats.t_wrapped, 0);

  // acc 26, n = 1: the bound 2^25 - 1 rounds up to 2^25, one above the 26-bit word.
  c.acc_bits = 26;
  tables = BuildSoftmaxTables(ParamsOf(c));
  EXPECT_EQ(tables.T(7), int64_t{1} << 25);
  EXPECT_EQ(tables.stats.t_over_width, 1);
  EXPECT_EQ(tables.stats.t_wrapped, 0);
}

TEST(SoftmaxRowInCompatMode, UsesTheFloat32Division) {
  // A row where float32(P) / float32(S) and the integer floor(P / S) differ: at acc 32 the
  // quotient of two numbers near 2^30 rounds up to the next integer in float32. Found on the grid
  // above; SoftmaxRow (the API other commands use) returns the float32 result.
  std::mt19937_64 rng(5);
  int differing = 0;
  for (int n : {2, 3, 5}) {
    const Config c{n, 8, 8.0, false, 16, 1.0, false, 32, false};
    const SoftmaxTables tables = BuildSoftmaxTables(ParamsOf(c));
    const std::optional<PySoftmax> want =
        PySoftmaxInit(n, 8, 8.0, false, 16, 1.0, false, 32, false);
    ASSERT_TRUE(want.has_value());
    for (int r = 0; r < 2000; ++r) {
      std::vector<int32_t> row(static_cast<size_t>(n));
      for (int32_t& x : row) x = 127 - static_cast<int32_t>(rng() % 8);
      const std::vector<int32_t> y = SoftmaxRow(tables, row);
      const std::vector<int64_t> y_want = want->Forward(row);
      int64_t sum = 0;
      for (int32_t x : row) sum += tables.T(x);
      for (size_t i = 0; i < row.size(); ++i) {
        ASSERT_EQ(y[i], y_want[i]);
        differing += y[i] != std::min<int64_t>(tables.P(row[i]) / sum, 32767);
      }
    }
  }
  EXPECT_GT(differing, 0);
  std::printf("float32 division differs from floor(P / S) in %d elements\n", differing);
}

TEST(SoftmaxRowInCompatMode, DividesByAZeroSumAsTheOriginal) {
  // 4-bit signed input amax 8, acc 8, n = 100: M = 1, so T = 0 but for T(7) = 1, and
  // P = trunc(e * 127) is 0 up to code 2 and 1, 4, 12, 40, 127 for codes 3..7. The all -8 row has
  // S = 0 and P = 0: 0 / 0 = NaN -> 0; with one 3 in it, 1 / 0 = +inf -> qmax. Exact mode answers
  // zero_sum_output instead.
  const Config c{100, 4, 8.0, false, 8, 1.0, false, 8, false};
  const SoftmaxTables tables = BuildSoftmaxTables(ParamsOf(c));
  ASSERT_EQ(tables.T(-8), 0);
  ASSERT_EQ(tables.P(-8), 0);
  EXPECT_EQ(SoftmaxRow(tables, std::vector<int32_t>(100, -8)), std::vector<int32_t>(100, 0));
  std::vector<int32_t> row(100, -8);
  row[0] = 3;
  ASSERT_EQ(tables.T(3), 0);
  ASSERT_EQ(tables.P(3), 1);
  const std::vector<int32_t> y = SoftmaxRow(tables, row);
  EXPECT_EQ(y[0], 127);
  EXPECT_EQ(y[1], 0);
  EXPECT_EQ(SeedCompatDivide(5, 0, 0, 255), 255);
  EXPECT_EQ(SeedCompatDivide(0, 0, 0, 255), 0);
  EXPECT_EQ(SeedCompatDivide(-5, 1, -127, 127), -5);
  EXPECT_EQ(SeedCompatDivide(7, -2, -127, 127), -3);  // -3.5 truncates toward zero
  EXPECT_EQ(SeedCompatDivide(7, -2, 0, 255), 0);
}

TEST(SeedCompatSoftmax, TableEntryPrimitive) {
  // bits 16: the bounds are exact; 32: 2^31 - 1 rounds to 2^31 and wraps; 40: 2^39 in an int64.
  SeedCompatEntry e = SeedCompatTableEntry(40000.0f, 16);
  EXPECT_EQ(e.value, 32767);
  EXPECT_TRUE(e.clamped);
  EXPECT_FALSE(e.over_width);
  e = SeedCompatTableEntry(12.9f, 16);
  EXPECT_EQ(e.value, 12);
  EXPECT_FALSE(e.clamped);
  e = SeedCompatTableEntry(3e9f, 32);
  EXPECT_EQ(e.value, INT32_MIN);
  EXPECT_TRUE(e.clamped);
  EXPECT_TRUE(e.wrapped);
  e = SeedCompatTableEntry(1e13f, 40);
  EXPECT_EQ(e.value, int64_t{1} << 39);
  EXPECT_TRUE(e.over_width);
  EXPECT_FALSE(e.wrapped);
  e = SeedCompatTableEntry(INFINITY, 24);
  EXPECT_EQ(e.value, (1 << 23) - 1);
}

void ExpectInvalid(const SoftmaxParams& p, const std::string& needle) {
  testing::ExpectInvalidArgumentMentioning([&] { BuildSoftmaxTables(p); }, needle);
}

TEST(SeedCompatSoftmax, RejectsWhatTheOriginalRejects) {
  SoftmaxParams good = ParamsOf(Config{8, 8, 8.0, false, 8, 1.0, true, 16, false});
  EXPECT_NO_THROW(ValidateSoftmaxParams(good));
  for (int out_bits = 9; out_bits <= 16; ++out_bits) {
    ASSERT_FALSE(PySoftmaxInit(8, 8, 8.0, false, out_bits, 1.0, true, 16, false).has_value());
    SoftmaxParams p = good;
    p.out.bits = out_bits;
    p.out.scale = 1.0 / static_cast<double>((1 << out_bits) - 1);
    ExpectInvalid(p, "out.bits: " + std::to_string(out_bits) +
                         " is out of range for an unsigned output in compat mode, allowed 2..8");
  }
  SoftmaxParams p = good;
  p.table_rounding = RoundingMode::kHalfAwayFromZero;
  ExpectInvalid(p, "table_rounding");
  p = good;
  p.div_rounding = DivRounding::kNearest;
  ExpectInvalid(p, "div_rounding");
  p = good;
  p.offset = SoftmaxOffset::kRowMax;
  ExpectInvalid(p, "offset");
  p = good;
  p.out.zero_point = 3;
  ExpectInvalid(p, "out.zero_point");
  p = good;
  p.in.scale = 1e-60;  // 0 in float32
  ExpectInvalid(p, "in.scale");
  p = good;
  p.out.scale = 1e-42;  // > 0 in float32 (subnormal), but s_y / M = 1e-42 / 4095 is 0
  ExpectInvalid(p, "out.scale");
  // Narrow on unsigned specs is accepted (and dropped), as the original ignores it; the exact mode
  // keeps rejecting it.
  p = good;
  p.in.is_signed = false;
  p.in.narrow = true;
  p.out.narrow = true;
  EXPECT_NO_THROW(ValidateSoftmaxParams(p));
  const SoftmaxTables tables = BuildSoftmaxTables(p);
  EXPECT_FALSE(tables.params.in.narrow);
  EXPECT_FALSE(tables.params.out.narrow);
  EXPECT_EQ(tables.exp_table.size(), 256u);
  p.mode = SoftmaxMode::kExact;
  ExpectInvalid(p, "in.narrow");
}

}  // namespace
}  // namespace qacc::golden
