// Error analysis of the two-table softmax (golden/softmax_error.h) and seed 000's test design: the
// quantized softmax is within 1 output LSB of the float softmax quantized to the same spec.
//
// The float oracle here is written independently of softmax_error.cc: exp of the dequantized codes
// without subtracting the maximum, long double sums, std::round. The seed grid (n x in/out bits x
// amax x signedness x narrow x out amax x out signedness) runs for sampled n here; the full n
// = 8..1024 sweep is SoftmaxErrorSlow.FullSeedGrid, which runs only with QACC_SLOW=1 in the
// environment (CTest runs it as slow.SoftmaxErrorSlow.FullSeedGrid, label slow).
#include "golden/softmax_error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "golden/softmax.h"

namespace qacc::golden {
namespace {

// ---- Independent float oracle -------------------------------------------------------------------

double QmaxOf(int bits, bool is_signed) {
  return is_signed ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
}

// round(softmax(s_x (X - zp_x)) / s_y) + zp_y, clamped, with long double sums and no max
// subtraction
// (|x| <= 8 here, so exp cannot overflow).
std::vector<int32_t> OracleSoftmax(const QuantSpec& in, const QuantSpec& out,
                                   const std::vector<int32_t>& row) {
  std::vector<long double> e;
  long double sum = 0;
  for (int32_t x : row) {
    e.push_back(std::exp(static_cast<long double>(in.scale) * (x - in.zero_point)));
    sum += e.back();
  }
  const double lo = out.is_signed ? -std::ldexp(1.0, out.bits - 1) + (out.narrow ? 1 : 0) : 0.0;
  const double hi = QmaxOf(out.bits, out.is_signed);
  std::vector<int32_t> y;
  for (long double ei : e) {
    const double q = std::round(static_cast<double>(ei / sum) / out.scale) + out.zero_point;
    y.push_back(static_cast<int32_t>(std::clamp(q, lo, hi)));
  }
  return y;
}

SoftmaxParams MakeParams(int n, int in_bits, bool in_signed, bool narrow, double in_amax,
                         int out_bits, bool out_signed, double out_amax, int acc_bits) {
  SoftmaxParams p;
  p.n = n;
  p.in = QuantSpec{in_bits, in_signed, narrow, in_amax / QmaxOf(in_bits, in_signed), 0};
  p.out = QuantSpec{out_bits, out_signed, narrow && out_signed,
                    out_amax / QmaxOf(out_bits, out_signed), 0};
  p.acc_bits = acc_bits;
  return p;
}

std::vector<int32_t> RandomRow(const QuantSpec& in, int n, std::mt19937_64& rng) {
  std::vector<int32_t> row(static_cast<size_t>(n));
  for (int32_t& x : row)
    x = static_cast<int32_t>(in.qmin() + static_cast<int64_t>(rng() % in.levels()));
  return row;
}

// softmax(s_x (X - zp_x)) with long double sums and no max subtraction, not quantized.
std::vector<double> OracleProbabilities(const QuantSpec& in, const std::vector<int32_t>& row) {
  std::vector<long double> e;
  long double sum = 0;
  for (int32_t x : row) {
    e.push_back(std::exp(static_cast<long double>(in.scale) * (x - in.zero_point)));
    sum += e.back();
  }
  std::vector<double> y;
  for (long double ei : e) y.push_back(static_cast<double>(ei / sum));
  return y;
}

// ---- The reference and the histogram evaluation -------------------------------------------------

TEST(SoftmaxReference, MatchesFloatOracle) {
  std::mt19937_64 rng(21);
  int64_t compared = 0;
  for (int bits : {4, 8}) {
    for (bool in_signed : {true, false}) {
      for (int n : {1, 7, 64, 1000}) {
        const SoftmaxParams p = MakeParams(n, bits, in_signed, false, 6.0, 8, false, 1.0, 32);
        for (int r = 0; r < 20; ++r) {
          const std::vector<int32_t> row = RandomRow(p.in, n, rng);
          ASSERT_EQ(ReferenceSoftmax(p.in, p.out, row), OracleSoftmax(p.in, p.out, row))
              << n << " " << r;
          compared += n;
        }
      }
    }
  }
  EXPECT_GT(compared, 80000);
}

TEST(SoftmaxReference, HandComputedValues) {
  // Two codes 0 and 127 of a signed 8-bit input with amax 8 (x = 0 and 8): y = 1/(1 + e^8) and
  // e^8/(1 + e^8) = 0.000335 and 0.999665; in LSBs of 1/255: 0.085 -> 0 and 254.91 -> 255.
  const SoftmaxParams p = MakeParams(2, 8, true, false, 8.0, 8, false, 1.0, 32);
  EXPECT_EQ(ReferenceSoftmax(p.in, p.out, {0, 127}), (std::vector<int32_t>{0, 255}));
  // All equal: exactly 1/n; 255/4 = 63.75 -> 64.
  EXPECT_EQ(ReferenceSoftmax(p.in, p.out, {5, 5, 5, 5}), (std::vector<int32_t>{64, 64, 64, 64}));
}

TEST(SoftmaxErrorRows, BinsEvaluateLikePlainRows) {
  struct Case {
    int n;
    int in_bits;
    bool in_signed;
    int acc_bits;
    int variant;  // 0 default, 1 seed compat, 2 nearest with offset qmax
  };
  const Case cases[] = {{1, 8, true, 8, 0},   {2, 8, true, 8, 1},   {3, 4, false, 8, 2},
                        {5, 8, true, 12, 1},  {64, 8, true, 16, 0}, {64, 8, false, 20, 2},
                        {300, 4, true, 12, 1}};
  for (const Case& c : cases) {
    SoftmaxParams p =
        MakeParams(c.n, c.in_bits, c.in_signed, false, 8.0, 8, false, 1.0, c.acc_bits);
    if (c.variant == 1) p = WithSeedCompat(p);
    if (c.variant == 2) p.offset = SoftmaxOffset::kQmax;
    const SoftmaxTables tables = BuildSoftmaxTables(p);
    for (const SoftmaxTestRow& row : SoftmaxTestRows(p.in, c.n, SoftmaxErrorOptions{8, 3, true})) {
      const std::vector<int32_t> plain = ExpandRow(row);
      const std::vector<int32_t> y = SoftmaxRow(tables, plain);
      const std::vector<int32_t> ref = ReferenceSoftmax(p.in, p.out, plain);
      const std::vector<int32_t> y_bins = SoftmaxRowBins(tables, row);
      const std::vector<int32_t> ref_bins = ReferenceSoftmaxBins(p.in, p.out, row);
      size_t i = 0;
      for (size_t b = 0; b < row.bins.size(); ++b) {
        for (int64_t k = 0; k < row.bins[b].second; ++k, ++i) {
          ASSERT_EQ(y[i], y_bins[b])
              << DescribeRow(row) << " n " << c.n << " variant " << c.variant;
          ASSERT_EQ(ref[i], ref_bins[b]) << DescribeRow(row) << " n " << c.n;
        }
      }
    }
  }
}

TEST(SoftmaxErrorRows, FamiliesAndSeeds) {
  const QuantSpec in{4, true, false, 0.5, 0};  // codes -8..7, 16 levels
  const int n = 10;
  const std::vector<SoftmaxTestRow> rows = SoftmaxTestRows(in, n, SoftmaxErrorOptions{5, 9, true});
  std::map<std::string, int> per_family;
  std::vector<std::string> order;
  for (const SoftmaxTestRow& row : rows) {
    if (order.empty() || order.back() != row.family) order.push_back(row.family);
    ++per_family[row.family];
    int64_t total = 0;
    for (const auto& [code, count] : row.bins) {
      EXPECT_GE(code, -8);
      EXPECT_LE(code, 7);
      EXPECT_GT(count, 0);
      total += count;
    }
    EXPECT_EQ(total, n) << DescribeRow(row);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"random", "all_equal", "skyscraper", "two_max",
                                             "bimodal", "low_peak"}));
  EXPECT_EQ(per_family["random"], 5);
  EXPECT_EQ(per_family["all_equal"], 16);
  EXPECT_EQ(per_family["skyscraper"], 15);
  EXPECT_EQ(per_family["two_max"], 15);
  EXPECT_EQ(per_family["bimodal"], 15);
  EXPECT_EQ(per_family["low_peak"], 14);
  // The classic skyscraper and the smallest-S row (all qmin) are there.
  auto has = [&](const std::string& label) {
    return std::any_of(rows.begin(), rows.end(),
                       [&](const SoftmaxTestRow& r) { return DescribeRow(r) == label; });
  };
  EXPECT_TRUE(has("skyscraper: 7 x1, -8 x9"));
  EXPECT_TRUE(has("all_equal: -8 x10"));
  EXPECT_TRUE(has("bimodal: 7 x5, -8 x5"));

  // Fixed seeds: same seed, same rows; another seed, other random rows.
  const auto again = SoftmaxTestRows(in, n, SoftmaxErrorOptions{5, 9, false});
  const auto other = SoftmaxTestRows(in, n, SoftmaxErrorOptions{5, 10, false});
  ASSERT_EQ(again.size(), 5u);
  bool any_different = false;
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(again[i].bins, rows[i].bins);
    any_different |= other[i].bins != rows[i].bins;
  }
  EXPECT_TRUE(any_different);
}

TEST(SoftmaxErrorReport, EqualsDirectRecount) {
  // Recount max, sum and elements from plain rows with the float oracle; the report must agree.
  // Output amax 1 and 100 (every code 0 or 1: 0 LSB of error hides up to s_y / 2 in real units).
  for (const auto& [compat, out_amax] :
       {std::pair{false, 1.0}, std::pair{true, 1.0}, std::pair{false, 100.0}}) {
    SoftmaxParams p = MakeParams(24, 4, true, false, 8.0, 8, false, out_amax, 14);
    if (compat) p = WithSeedCompat(p);
    const SoftmaxErrorOptions options{16, 5, true};
    const SoftmaxErrorReport report = AnalyzeSoftmaxError(p, options);
    const SoftmaxTables tables = BuildSoftmaxTables(p);
    std::map<std::string, SoftmaxErrorStats> recount;
    for (const SoftmaxTestRow& row : SoftmaxTestRows(p.in, p.n, options)) {
      const std::vector<int32_t> plain = ExpandRow(row);
      const std::vector<int32_t> y = SoftmaxRow(tables, plain);
      const std::vector<int32_t> ref = OracleSoftmax(p.in, p.out, plain);
      const std::vector<double> probability = OracleProbabilities(p.in, plain);
      SoftmaxErrorStats& s = recount[row.family];
      ++s.rows;
      for (size_t i = 0; i < plain.size(); ++i) {
        const int64_t e = std::abs(int64_t{y[i]} - ref[i]);
        ++s.elements;
        s.sum_abs_lsb += e;
        s.max_abs_lsb = std::max(s.max_abs_lsb, e);
        s.elements_over_1 += e > 1;
        const double real = std::abs(p.out.scale * y[i] - probability[i]);  // zero point 0
        s.sum_abs_real += real;
        s.max_abs_real = std::max(s.max_abs_real, real);
      }
    }
    ASSERT_EQ(report.families.size(), recount.size());
    int64_t max_all = 0;
    double max_real = 0.0;
    for (const auto& [name, s] : report.families) {
      const SoftmaxErrorStats& r = recount[name];
      EXPECT_EQ(s.rows, r.rows) << name;
      EXPECT_EQ(s.elements, r.elements) << name;
      EXPECT_EQ(s.max_abs_lsb, r.max_abs_lsb) << name << (compat ? " compat" : "");
      EXPECT_EQ(s.sum_abs_lsb, r.sum_abs_lsb) << name;
      EXPECT_EQ(s.elements_over_1, r.elements_over_1) << name;
      EXPECT_NEAR(s.max_abs_real, r.max_abs_real, 1e-12) << name;
      EXPECT_NEAR(s.sum_abs_real, r.sum_abs_real, 1e-9) << name;
      max_all = std::max(max_all, r.max_abs_lsb);
      max_real = std::max(max_real, r.max_abs_real);
    }
    EXPECT_NEAR(report.total().max_abs_real, max_real, 1e-12);
    if (out_amax == 100.0) {
      // s_y = 100 / 255: an all_equal row has y = 1/24 and code 0: 0 LSB off, 1/24 in real units.
      EXPECT_LE(report.total().max_abs_lsb, 1);
      EXPECT_GE(report.total().max_abs_real, 1.0 / 24 - 1e-12);
    }
    EXPECT_EQ(report.total().max_abs_lsb, max_all);
    EXPECT_EQ(std::abs(report.worst.actual - report.worst.expected), max_all);
    EXPECT_EQ(report.random.rows, 16);
    EXPECT_NEAR(report.total().mean_abs_lsb(),
                double(report.total().sum_abs_lsb) / double(report.total().elements), 1e-12);
  }
}

// ---- Seed 000's grid ----------------------------------------------------------------------------

struct GridPoint {
  int n, in_bits, out_bits;
  double in_amax;
  bool in_signed, narrow;
  double out_amax;
  bool out_signed;
};

// Seed 000's softmax test grid (its test_softmax): input/output bits 8 and 4, input amax 4..8,
// input signed or not, output amax 0.5, 0.75, 1, output signed or not, narrow or not (narrow
// applies to signed specs only).
template <typename F>
void ForEachGridPoint(const std::vector<int>& ns, F f) {
  for (int n : ns)
    for (int in_bits : {8, 4})
      for (int out_bits : {8, 4})
        for (double in_amax : {4.0, 5.0, 6.0, 7.0, 8.0})
          for (bool in_signed : {true, false})
            for (bool narrow : {false, true})
              for (double out_amax : {0.5, 0.75, 1.0})
                for (bool out_signed : {false, true}) {
                  if (narrow && !in_signed && !out_signed) continue;
                  f(GridPoint{n, in_bits, out_bits, in_amax, in_signed, narrow, out_amax,
                              out_signed});
                }
}

SoftmaxParams ParamsAt(const GridPoint& g, bool compat) {
  SoftmaxParams p = MakeParams(g.n, g.in_bits, g.in_signed, g.narrow && g.in_signed, g.in_amax,
                               g.out_bits, g.out_signed, g.out_amax, 32);
  p.out.narrow = g.narrow && g.out_signed;
  return compat ? WithSeedCompat(p) : p;
}

// Max |error| per n and per (in bits, out bits, in amax), default vs seed-compatible, both at
// acc_bits 32.
struct GridTable {
  struct Cell {
    int64_t def = 0;
    int64_t compat = 0;
    int64_t points = 0;
    int64_t compat_over_1 = 0;  // grid points where the seed-compatible max error exceeds 1 LSB
  };
  std::map<int, Cell> by_n;
  std::map<std::tuple<int, int, double>, Cell> by_bits_amax;
  Cell all;

  void Add(const GridPoint& g, int64_t def, int64_t compat) {
    for (Cell* c : {&by_n[g.n], &by_bits_amax[{g.in_bits, g.out_bits, g.in_amax}], &all}) {
      c->def = std::max(c->def, def);
      c->compat = std::max(c->compat, compat);
      ++c->points;
      c->compat_over_1 += compat > 1;
    }
  }

  void Print() const {
    std::printf(
        "| n | default max LSB | seed-compat max LSB | seed-compat points > 1 LSB "
        "|\n|---|---|---|---|\n");
    for (const auto& [n, c] : by_n) {
      std::printf("| %d | %lld | %lld | %lld / %lld |\n", n, (long long)c.def, (long long)c.compat,
                  (long long)c.compat_over_1, (long long)c.points);
    }
    std::printf(
        "\n| in bits | out bits | in amax | default max LSB | seed-compat max LSB | seed-compat "
        "points > 1 LSB |\n"
        "|---|---|---|---|---|---|\n");
    for (const auto& [key, c] : by_bits_amax) {
      std::printf("| %d | %d | %g | %lld | %lld | %lld / %lld |\n", std::get<0>(key),
                  std::get<1>(key), std::get<2>(key), (long long)c.def, (long long)c.compat,
                  (long long)c.compat_over_1, (long long)c.points);
    }
    std::printf("\nall: default %lld, seed-compat %lld (%lld / %lld points > 1 LSB)\n",
                (long long)all.def, (long long)all.compat, (long long)all.compat_over_1,
                (long long)all.points);
  }
};

GridTable MeasureGrid(const std::vector<int>& ns, const SoftmaxErrorOptions& options) {
  GridTable table;
  ForEachGridPoint(ns, [&](const GridPoint& g) {
    const int64_t def = AnalyzeSoftmaxError(ParamsAt(g, false), options).total().max_abs_lsb;
    const int64_t compat = AnalyzeSoftmaxError(ParamsAt(g, true), options).total().max_abs_lsb;
    table.Add(g, def, compat);
  });
  return table;
}

const std::vector<int> kSampledN = {8, 9, 16, 31, 64, 100, 128, 255, 256, 500, 1000, 1024};

TEST(SoftmaxSeedGrid, DefaultWithinOneLsbAndSeedCompatReported) {
  // Default settings (nearest tables, nearest division, row-max offset) at acc_bits 32.
  const GridTable table = MeasureGrid(kSampledN, SoftmaxErrorOptions{32, 1, true});
  table.Print();
  // n x in bits x out bits x in amax x out amax x 7 sign/narrow combinations (narrow needs a signed
  // spec).
  EXPECT_EQ(table.all.points, 12 * 2 * 2 * 5 * 3 * 7);
  EXPECT_LE(table.all.def, 1) << "seed 000's bound: |error| <= 1 output LSB";
  // Seed-compatible arithmetic is reported, not hidden: per n it is never better than the default,
  // and it does exceed 1 LSB (rows far below Qmax make S tiny; the analysis found up to 255 LSB).
  for (const auto& [n, c] : table.by_n) EXPECT_GE(c.compat, c.def) << "n " << n;
  EXPECT_GT(table.all.compat, 1);
  EXPECT_GT(table.all.compat_over_1, 0);
}

TEST(SoftmaxSeedGrid, DefaultWithinOneLsbOnPlainRandomRows) {
  // The same claim checked without the histogram path or the library reference: plain rows,
  // SoftmaxRow and the float oracle of this file.
  std::mt19937_64 rng(99);
  int64_t worst = 0;
  ForEachGridPoint({8, 31, 100, 256, 1000}, [&](const GridPoint& g) {
    const SoftmaxParams p = ParamsAt(g, false);
    const SoftmaxTables tables = BuildSoftmaxTables(p);
    for (int r = 0; r < 2; ++r) {
      const std::vector<int32_t> row = RandomRow(p.in, p.n, rng);
      const std::vector<int32_t> y = SoftmaxRow(tables, row);
      const std::vector<int32_t> ref = OracleSoftmax(p.in, p.out, row);
      for (size_t i = 0; i < row.size(); ++i)
        worst = std::max(worst, std::abs(int64_t{y[i]} - ref[i]));
    }
  });
  EXPECT_LE(worst, 1);
}

TEST(SoftmaxSeedGrid, SeedCompatWorstRowByHand) {
  // n = 100, 4-bit signed input with amax 8 (s_x = 8/7), output 8-bit unsigned amax 1, acc 32, seed
  // settings. Row: one -7, ninety-nine -8. M = floor((2^31 - 1) / 100) = 21474836.
  //   T(-7) = floor(exp(-16) M) = floor(2.42) = 2,  T(-8) = floor(exp(-120/7) M) = floor(0.77) = 0.
  //   S = 2, so Y(-7) = floor(P(-7) / 2) with P(-7) = floor(2.42 * 255) = 616: 308, clamped to 255.
  // Float: y(-7) = e^(8/7) / (e^(8/7) + 99) = 0.0307 -> 7.83 LSB -> 8. Error 247 LSB.
  const double s_x = 8.0 / 7;
  const int64_t m = ((int64_t{1} << 31) - 1) / 100;
  const double t7 = std::exp(s_x * -14);
  const double t8 = std::exp(s_x * -15);
  const int64_t s =
      static_cast<int64_t>(std::floor(t7 * m)) + 99 * static_cast<int64_t>(std::floor(t8 * m));
  ASSERT_EQ(s, 2);
  const int64_t p7 = static_cast<int64_t>(std::floor(t7 * m * 255));
  const int64_t y7 = std::min<int64_t>(p7 / s, 255);
  const double ref = std::round(std::exp(s_x) / (std::exp(s_x) + 99) * 255);
  ASSERT_EQ(y7, 255);
  ASSERT_EQ(ref, 8);

  const SoftmaxParams p = WithSeedCompat(MakeParams(100, 4, true, false, 8.0, 8, false, 1.0, 32));
  const SoftmaxErrorReport report = AnalyzeSoftmaxError(p, SoftmaxErrorOptions{0, 1, true});
  EXPECT_GE(report.total().max_abs_lsb, 247);
  // The default settings on the same grid point stay within 1 LSB.
  SoftmaxParams def = p;
  def.mode = SoftmaxMode::kExact;
  def.table_rounding = RoundingMode::kHalfAwayFromZero;
  def.div_rounding = DivRounding::kNearest;
  def.offset = SoftmaxOffset::kRowMax;
  EXPECT_LE(AnalyzeSoftmaxError(def).total().max_abs_lsb, 1);
}

// ---- MinAccBits ---------------------------------------------------------------------------------

TEST(SoftmaxMinAccBits, SmallestWidthWithinBound) {
  const SoftmaxErrorOptions options{16, 1, true};
  for (int n : {8, 100, 1000}) {
    const SoftmaxParams p = MakeParams(n, 8, true, false, 8.0, 8, false, 1.0, 32);
    const std::optional<int> bits = MinAccBits(p, 1, options);
    ASSERT_TRUE(bits.has_value()) << n;
    SoftmaxParams q = p;
    q.acc_bits = *bits;
    EXPECT_LE(AnalyzeSoftmaxError(q, options).total().max_abs_lsb, 1) << n;
    for (int a = kSoftmaxMinAccBits; a < *bits; ++a) {
      if (SoftmaxTableScale(n, a) < 1) continue;  // floor(Qacc_max / n) = 0: not a valid width
      q.acc_bits = a;
      EXPECT_GT(AnalyzeSoftmaxError(q, options).total().max_abs_lsb, 1) << n << " acc " << a;
    }
  }
}

TEST(SoftmaxMinAccBits, NoneWhenNoWidthReachesTheBound) {
  // The seed-compatible low_peak rows of SeedCompatWorstRowByHand exceed 1 LSB at every width.
  const SoftmaxErrorOptions options{0, 1, true};
  const SoftmaxParams p = WithSeedCompat(MakeParams(100, 4, true, false, 8.0, 8, false, 1.0, 32));
  EXPECT_FALSE(MinAccBits(p, 1, options).has_value());
  for (int a = 8; a <= 32; ++a) {
    SoftmaxParams q = p;
    q.acc_bits = a;
    if (SoftmaxTableScale(100, a) < 1) continue;
    EXPECT_GT(AnalyzeSoftmaxError(q, options).total().max_abs_lsb, 1) << a;
  }
  // A loose enough bound is always met at the smallest valid width (n = 100 needs acc_bits >= 8).
  EXPECT_EQ(MinAccBits(p, 255, options), 8);
}

// ---- Full sweep (QACC_SLOW=1) -------------------------------------------------------------------

TEST(SoftmaxErrorSlow, FullSeedGrid) {
  if (std::getenv("QACC_SLOW") == nullptr)
    GTEST_SKIP() << "set QACC_SLOW=1 for the n = 8..1024 sweep";
  std::vector<int> ns;
  for (int n = 8; n <= 1024; ++n) ns.push_back(n);
  const GridTable table = MeasureGrid(ns, SoftmaxErrorOptions{32, 1, true});
  GridTable::Cell buckets[4];
  const int edges[] = {8, 64, 256, 1024};
  for (const auto& [n, c] : table.by_n) {
    int b = 0;
    while (b < 3 && n > edges[b + 1]) ++b;
    buckets[b].def = std::max(buckets[b].def, c.def);
    buckets[b].compat = std::max(buckets[b].compat, c.compat);
    buckets[b].points += c.points;
    buckets[b].compat_over_1 += c.compat_over_1;
  }
  std::printf(
      "| n range | default max LSB | seed-compat max LSB | seed-compat points > 1 LSB "
      "|\n|---|---|---|---|\n");
  const char* names[] = {"8..64", "65..256", "257..1024", ""};
  for (int b = 0; b < 3; ++b) {
    std::printf("| %s | %lld | %lld | %lld / %lld |\n", names[b], (long long)buckets[b].def,
                (long long)buckets[b].compat, (long long)buckets[b].compat_over_1,
                (long long)buckets[b].points);
  }
  table.Print();
  EXPECT_LE(table.all.def, 1);

  // Smallest acc_bits for the 1-LSB bound with the default settings, worst case over the grid per
  // n.
  std::printf("\n| n | MinAccBits(bound 1), max over the grid |\n|---|---|\n");
  for (int n : kSampledN) {
    int worst = 0;
    ForEachGridPoint({n}, [&](const GridPoint& g) {
      const std::optional<int> bits =
          MinAccBits(ParamsAt(g, false), 1, SoftmaxErrorOptions{32, 1, true});
      worst = std::max(worst, bits.value_or(99));
    });
    std::printf("| %d | %d |\n", n, worst);
    EXPECT_LE(worst, 32);
  }
}

}  // namespace
}  // namespace qacc::golden
