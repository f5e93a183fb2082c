// Two-table quantized softmax (golden/softmax.h). The oracles here are written with plain libm
// arithmetic (std::exp, std::round, std::floor, shifts), not with quant.h or softmax.h helpers, so
// a wrong formula in the code under test cannot hide behind the same formula in the check.
#include "golden/softmax.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/table_memory.h"
#include "tests/unit/expect_invalid.h"

namespace qacc::golden {
namespace {

// ---- Independent oracle -------------------------------------------------------------------------

struct Config {
  const char* name;
  int n;
  int in_bits;
  bool in_signed;
  bool narrow;
  double in_amax;
  int out_bits;
  bool out_signed;
  double out_amax;
  int acc_bits;
  // The seed's settings in exact mode (double tables, integer division): trunc tables, floor
  // division, offset qmax; else nearest, nearest, rowmax. Compat mode's float32 arithmetic
  // (WithSeedCompat) is tested against its own emulation in seed_compat_softmax_test.cc.
  bool seed_compat;
};

int64_t OracleQmax(int bits, bool is_signed) {
  return is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
}
int64_t OracleQmin(int bits, bool is_signed, bool narrow) {
  if (!is_signed) return 0;
  return -(int64_t{1} << (bits - 1)) + (narrow ? 1 : 0);
}

SoftmaxParams ParamsOf(const Config& c) {
  SoftmaxParams p;
  p.n = c.n;
  p.in = QuantSpec{c.in_bits, c.in_signed, c.narrow, c.in_amax / OracleQmax(c.in_bits, c.in_signed),
                   0};
  p.out = QuantSpec{c.out_bits, c.out_signed, false,
                    c.out_amax / OracleQmax(c.out_bits, c.out_signed), 0};
  p.acc_bits = c.acc_bits;
  if (c.seed_compat) {
    p.table_rounding = RoundingMode::kTowardZero;
    p.div_rounding = DivRounding::kFloor;
    p.offset = SoftmaxOffset::kQmax;
  }
  return p;
}

// Seed 000's formulas: M = floor((2^(acc-1) - 1) / n), t = exp(s_x (X - Qmax)), T = Q(t M),
// P = Q(t M / s_y) clamped to 2^(acc + out - 1) - 1; Q is floor (seed) or round half away
// (default).
struct OracleTables {
  int64_t qmin = 0;
  int64_t qmax = 0;
  int64_t m = 0;
  std::vector<int64_t> t;  // index X - qmin
  std::vector<int64_t> p;
};

OracleTables OracleBuild(const Config& c) {
  OracleTables o;
  o.qmin = OracleQmin(c.in_bits, c.in_signed, c.narrow);
  o.qmax = OracleQmax(c.in_bits, c.in_signed);
  const double s_x = c.in_amax / static_cast<double>(o.qmax);
  const double s_y = c.out_amax / static_cast<double>(OracleQmax(c.out_bits, c.out_signed));
  o.m = ((int64_t{1} << (c.acc_bits - 1)) - 1) / c.n;
  const double p_limit = std::ldexp(1.0, c.acc_bits + c.out_bits - 1) - 1.0;
  for (int64_t x = o.qmin; x <= o.qmax; ++x) {
    const double t = std::exp(s_x * static_cast<double>(x - o.qmax));
    const double tm = t * static_cast<double>(o.m);
    const double pm = tm / s_y;
    o.t.push_back(static_cast<int64_t>(c.seed_compat ? std::floor(tm) : std::round(tm)));
    o.p.push_back(
        static_cast<int64_t>(std::min(c.seed_compat ? std::floor(pm) : std::round(pm), p_limit)));
  }
  return o;
}

// The integer evaluation from the seed's forward(), plus the documented choices: row-max offset as
// an address shift, nearest division (2P + S) / 2S, uniform output when S = 0, accumulator
// saturation.
std::vector<int32_t> OracleRow(const Config& c, const OracleTables& o,
                               const std::vector<int32_t>& row) {
  const double s_y = c.out_amax / static_cast<double>(OracleQmax(c.out_bits, c.out_signed));
  const int64_t out_min = OracleQmin(c.out_bits, c.out_signed, false);
  const int64_t out_max = OracleQmax(c.out_bits, c.out_signed);
  const int64_t shift = c.seed_compat ? 0 : o.qmax - *std::max_element(row.begin(), row.end());
  int64_t s = 0;
  for (int32_t x : row) s += o.t[static_cast<size_t>(x + shift - o.qmin)];
  s = std::min(s, (int64_t{1} << (c.acc_bits - 1)) - 1);
  std::vector<int32_t> y;
  for (int32_t x : row) {
    const int64_t p = o.p[static_cast<size_t>(x + shift - o.qmin)];
    int64_t q = 0;
    if (s == 0) {
      q = static_cast<int64_t>(std::round(1.0 / c.n / s_y));
    } else {
      q = c.seed_compat ? p / s
                        : static_cast<int64_t>(std::floor((static_cast<double>(p) + s / 2.0) / s));
    }
    y.push_back(static_cast<int32_t>(std::clamp(q, out_min, out_max)));
  }
  return y;
}

const Config kConfigs[] = {
    {"seed_row_8_16_8", 8, 8, true, false, 8.0, 8, false, 1.0, 16, false},
    {"seed_row_8_16_8_compat", 8, 8, true, false, 8.0, 8, false, 1.0, 16, true},
    {"n1000_narrow_acc32_compat", 1000, 8, true, true, 4.0, 8, true, 0.5, 32, true},
    {"n1000_narrow_acc32", 1000, 8, true, true, 4.0, 8, true, 0.5, 32, false},
    {"in4_unsigned_out4", 100, 4, false, false, 6.0, 4, false, 0.75, 16, false},
    {"in4_unsigned_out4_compat", 100, 4, false, false, 6.0, 4, false, 0.75, 16, true},
    {"n1_in2_out16", 1, 2, true, false, 1.0, 16, false, 1.0, 8, false},
    {"n64_out16_signed", 64, 8, false, false, 5.0, 16, true, 1.0, 32, false},
    {"n65536_acc32", 65536, 8, true, false, 8.0, 8, false, 1.0, 32, false},
    {"n200_acc9_compat", 200, 4, true, false, 7.0, 8, false, 1.0, 9, true},
};

// ---- Memory -------------------------------------------------------------------------------------

TEST(SoftmaxMemory, SeedTableExactly) {
  // Seed 000, "内存开销 / 映射表": (bit_input, bit_acc, bit_output) -> X->T, X->P, total bytes.
  struct Row {
    int in_bits, acc_bits, out_bits;
    int64_t t_bytes, p_bytes, total;
  };
  const Row seed_table[] = {
      {8, 16, 8, 512, 768, 1280}, {8, 32, 8, 1024, 1280, 2304}, {4, 16, 4, 32, 40, 72}};
  for (const Row& r : seed_table) {
    SoftmaxParams p;
    p.n = 8;
    p.in = QuantSpec{r.in_bits, true, false, 0.1, 0};
    p.out = QuantSpec{r.out_bits, false, false, 1.0 / 15, 0};
    p.acc_bits = r.acc_bits;
    const SoftmaxTableBytes bytes = SoftmaxMemory(p);
    EXPECT_EQ(bytes.exp_table, r.t_bytes) << r.in_bits << "," << r.acc_bits << "," << r.out_bits;
    EXPECT_EQ(bytes.numerator_table, r.p_bytes);
    EXPECT_EQ(bytes.total(), r.total);
    // The built tables really fit those widths: 2^in addresses, T < 2^(acc-1), P < 2^(acc+out-1).
    const SoftmaxTables tables = BuildSoftmaxTables(p);
    EXPECT_EQ(TableByAddress(tables.exp_table, p.in).size(), size_t{1} << r.in_bits);
    EXPECT_LT(tables.stats.max_t, int64_t{1} << (r.acc_bits - 1));
    EXPECT_LT(tables.stats.max_p, int64_t{1} << (r.acc_bits + r.out_bits - 1));
  }
}

// ---- Tables -------------------------------------------------------------------------------------

TEST(SoftmaxTables, EveryEntryEqualsScalarFormula) {
  for (const Config& c : kConfigs) {
    const SoftmaxTables tables = BuildSoftmaxTables(ParamsOf(c));
    const OracleTables o = OracleBuild(c);
    ASSERT_EQ(tables.exp_table.size(), o.t.size()) << c.name;
    ASSERT_EQ(tables.numerator_table.size(), o.p.size()) << c.name;
    EXPECT_EQ(tables.stats.m, o.m) << c.name;
    for (size_t i = 0; i < o.t.size(); ++i) {
      EXPECT_EQ(tables.exp_table[i], o.t[i]) << c.name << " T code " << o.qmin + int64_t(i);
      EXPECT_EQ(tables.numerator_table[i], o.p[i]) << c.name << " P code " << o.qmin + int64_t(i);
    }
    EXPECT_EQ(tables.T(o.qmax), o.m) << c.name << ": t = 1 at Qmax gives T = M";
  }
}

TEST(SoftmaxTables, AddressViewIsTwosComplementBits) {
  SoftmaxParams p =
      ParamsOf(kConfigs[2]);  // signed narrow 8-bit: address 128 (code -128) is unused
  const SoftmaxTables tables = BuildSoftmaxTables(p);
  const std::vector<int64_t> by_address = TableByAddress(tables.numerator_table, p.in);
  ASSERT_EQ(by_address.size(), 256u);
  for (int64_t x = -127; x <= 127; ++x) {
    const int64_t address = x < 0 ? x + 256 : x;
    EXPECT_EQ(by_address[static_cast<size_t>(address)], tables.P(x)) << x;
    EXPECT_EQ(TableAddress(x, 8), static_cast<uint32_t>(address));
  }
  EXPECT_EQ(by_address[128], 0);
  EXPECT_EQ(TableAddress(-8, 4), 8u);
  EXPECT_EQ(TableAddress(15, 4), 15u);  // unsigned codes are their own address
}

TEST(SoftmaxTables, StatsDescribeTheTables) {
  for (const Config& c : kConfigs) {
    const SoftmaxTables tables = BuildSoftmaxTables(ParamsOf(c));
    const OracleTables o = OracleBuild(c);
    const SoftmaxTableStats& s = tables.stats;
    EXPECT_EQ(s.max_t, *std::max_element(o.t.begin(), o.t.end())) << c.name;
    EXPECT_EQ(s.max_p, *std::max_element(o.p.begin(), o.p.end())) << c.name;
    EXPECT_EQ(s.zero_t_entries, std::count(o.t.begin(), o.t.end(), 0)) << c.name;
    EXPECT_EQ(s.t_entry_max, (int64_t{1} << (c.acc_bits - 1)) - 1);
    EXPECT_EQ(s.p_entry_max, (int64_t{1} << (c.acc_bits + c.out_bits - 1)) - 1);
    // M = floor(Qacc_max / n) makes n * max T <= Qacc_max, so S can never overflow with built
    // tables.
    EXPECT_LE(c.n * s.max_t, (int64_t{1} << (c.acc_bits - 1)) - 1) << c.name;
    EXPECT_FALSE(s.sum_can_overflow) << c.name;
    EXPECT_EQ(s.t_clamped, 0) << c.name;
    EXPECT_EQ(s.p_clamped, 0) << c.name << ": out amax >= 1/n never overflows acc + out bits";
    EXPECT_EQ(s.sum_can_be_zero, c.seed_compat && o.t.front() == 0) << c.name;
  }
}

// ---- Row evaluation -----------------------------------------------------------------------------

std::vector<int32_t> RandomRow(const Config& c, std::mt19937_64& rng, int64_t lo, int64_t hi) {
  std::vector<int32_t> row(static_cast<size_t>(c.n));
  for (int32_t& x : row) x = static_cast<int32_t>(lo + static_cast<int64_t>(rng() % (hi - lo + 1)));
  return row;
}

TEST(SoftmaxRow, MatchesIntegerOracle) {
  std::mt19937_64 rng(7);
  for (const Config& c : kConfigs) {
    const SoftmaxTables tables = BuildSoftmaxTables(ParamsOf(c));
    const OracleTables o = OracleBuild(c);
    const int rows = c.n > 10000 ? 4 : 200;
    for (int r = 0; r < rows; ++r) {
      // Half the rows use the lower part of the range only: small S, S = 0 with the seed's offset.
      const int64_t hi = r % 2 ? o.qmax : o.qmin + (o.qmax - o.qmin) / 4;
      const std::vector<int32_t> row = RandomRow(c, rng, o.qmin, hi);
      ASSERT_EQ(SoftmaxRow(tables, row), OracleRow(c, o, row)) << c.name << " row " << r;
    }
  }
}

TEST(SoftmaxRow, DivisionRounding) {
  // Nearest is half up (P, S >= 0): floor(P / S + 1/2) computed in double, exact at these
  // magnitudes.
  for (int64_t p = 0; p < 300; ++p) {
    for (int64_t s = 1; s < 40; ++s) {
      EXPECT_EQ(DivideRounded(p, s, DivRounding::kFloor),
                static_cast<int64_t>(std::floor(double(p) / s)));
      EXPECT_EQ(DivideRounded(p, s, DivRounding::kNearest),
                static_cast<int64_t>(std::floor(double(p) / s + 0.5)))
          << p << "/" << s;
    }
  }
  // Largest P (acc 32, out 16) without the double used above: (2^47 - 1) / 3 = 46912496118442.33
  // and (2^47 - 3) / 3 = 46912496118441.67.
  const int64_t big_p = (int64_t{1} << 47) - 1;
  EXPECT_EQ(DivideRounded(big_p, 3, DivRounding::kNearest), 46912496118442);
  EXPECT_EQ(DivideRounded(big_p - 2, 3, DivRounding::kNearest), 46912496118442);
  EXPECT_EQ(DivideRounded(big_p - 2, 3, DivRounding::kFloor), 46912496118441);
}

TEST(SoftmaxRow, ZeroSumGivesUniformOutput) {
  // Signed 8-bit input, amax 8: t(qmin) = exp(-8/127 * 255) = 1.07e-7, M = (2^31 - 1) / 1024 =
  // 2097151, so T(qmin) = round(0.22) = 0 and a row of qmin sums to S = 0 with the seed's Qmax
  // offset.
  Config c{"zero_sum", 1024, 8, true, false, 8.0, 8, false, 1.0, 32, false};
  SoftmaxParams p = ParamsOf(c);
  p.offset = SoftmaxOffset::kQmax;
  const SoftmaxTables tables = BuildSoftmaxTables(p);
  ASSERT_EQ(tables.T(-128), 0);
  EXPECT_TRUE(tables.stats.sum_can_be_zero);
  const std::vector<int32_t> row(1024, -128);
  EXPECT_EQ(SoftmaxRowSum(tables, SoftmaxTableCodes(tables, row)), 0);
  const int32_t uniform = static_cast<int32_t>(std::round(255.0 / 1024));  // 1/n in LSBs of 1/255
  EXPECT_EQ(tables.zero_sum_output, uniform);
  EXPECT_EQ(SoftmaxRow(tables, row), std::vector<int32_t>(1024, uniform));

  // Short rows: the uniform value is large, so it is clearly not "all zero".
  p.n = 8;
  p.acc_bits = 8;  // M = 15: T(qmin) = 0
  const SoftmaxTables small = BuildSoftmaxTables(p);
  EXPECT_EQ(SoftmaxRow(small, std::vector<int32_t>(8, -128)),
            std::vector<int32_t>(8, 32));  // 255/8

  // The row-max offset makes the same row S = n * M: never zero.
  p.offset = SoftmaxOffset::kRowMax;
  const SoftmaxTables rowmax = BuildSoftmaxTables(p);
  EXPECT_FALSE(rowmax.stats.sum_can_be_zero);
  EXPECT_EQ(SoftmaxRowSum(rowmax, SoftmaxTableCodes(rowmax, std::vector<int32_t>(8, -128))),
            8 * 15);
}

TEST(SoftmaxRow, OutputZeroPointIsAddedAfterDivision) {
  // Asymmetric int8 output for [0, 1]: scale 1/255, zero point -128. Same division, shifted by
  // -128.
  Config c = kConfigs[0];
  SoftmaxParams unsigned_out = ParamsOf(c);
  SoftmaxParams shifted = unsigned_out;
  shifted.out = QuantSpec{8, true, false, unsigned_out.out.scale, -128};
  const SoftmaxTables a = BuildSoftmaxTables(unsigned_out);
  const SoftmaxTables b = BuildSoftmaxTables(shifted);
  std::mt19937_64 rng(3);
  for (int r = 0; r < 50; ++r) {
    const std::vector<int32_t> row = RandomRow(c, rng, -128, 127);
    const std::vector<int32_t> ya = SoftmaxRow(a, row);
    const std::vector<int32_t> yb = SoftmaxRow(b, row);
    for (size_t i = 0; i < row.size(); ++i) EXPECT_EQ(yb[i], ya[i] - 128);
  }
}

TEST(SoftmaxRow, RowMaxOffsetIsShiftInvariant) {
  // With the row max, adding a constant to every code changes nothing (softmax is shift invariant).
  Config c{"shift", 16, 8, true, false, 6.0, 8, false, 1.0, 24, false};
  const SoftmaxTables tables = BuildSoftmaxTables(ParamsOf(c));
  std::mt19937_64 rng(5);
  for (int r = 0; r < 100; ++r) {
    std::vector<int32_t> row = RandomRow(c, rng, -128, 0);
    const std::vector<int32_t> y = SoftmaxRow(tables, row);
    const int32_t up = static_cast<int32_t>(rng() % 128);
    for (int32_t& x : row) x += up;
    EXPECT_EQ(SoftmaxRow(tables, row), y);
  }
  EXPECT_EQ(RowMaxTableCode(-100, -20, 127), 47);
}

// ---- Overflow -----------------------------------------------------------------------------------

TEST(SoftmaxOverflow, AccumulatorSaturates) {
  const int64_t max16 = 32767;
  EXPECT_EQ(SaturatingAccumulate(max16 - 5, 5, 16), max16);
  EXPECT_EQ(SaturatingAccumulate(max16 - 5, 6, 16), max16);
  EXPECT_EQ(SaturatingAccumulate(max16, 1000, 16), max16);
  EXPECT_EQ(SaturatingAccumulate(10, 20, 16), 30);
  EXPECT_EQ(SaturatingAccumulate(0, int64_t{1} << 40, 32), (int64_t{1} << 31) - 1);

  // Tables edited beyond what BuildSoftmaxTables can produce: the row sum saturates, it does not
  // wrap.
  SoftmaxTables tables = BuildSoftmaxTables(ParamsOf(kConfigs[0]));  // n = 8, acc 16
  for (int64_t& t : tables.exp_table) t = 10000;
  const std::vector<int32_t> row(8, 0);
  EXPECT_EQ(SoftmaxRowSum(tables, SoftmaxTableCodes(tables, row)), max16);  // 80000 saturates
}

TEST(SoftmaxOverflow, ClampedNumeratorStillSaturatesOutput) {
  // out amax = 1/(64 n) makes P(Qmax) = M * 255 * 64 n > 2^(16 + 8 - 1) - 1: clamped at build time.
  // Every clamped entry divides to >= 2^23 / 2^15 = 256 > 255, so the outputs equal an unclamped
  // evaluation.
  Config c{"tiny_out_amax", 8, 8, true, false, 4.0, 8, false, 1.0 / 512, 16, false};
  const SoftmaxTables tables = BuildSoftmaxTables(ParamsOf(c));
  EXPECT_GT(tables.stats.p_clamped, 0);
  EXPECT_TRUE(tables.stats.any_clamped());
  EXPECT_EQ(tables.stats.max_p, (int64_t{1} << 23) - 1);
  const OracleTables o = OracleBuild(c);  // clamps too; recompute unclamped P here
  const double s_x = 4.0 / 127;
  const double s_y = (1.0 / 512) / 255;
  std::mt19937_64 rng(11);
  for (int r = 0; r < 200; ++r) {
    const std::vector<int32_t> row = RandomRow(c, rng, -128, 127);
    const int32_t row_max = *std::max_element(row.begin(), row.end());
    int64_t s = 0;
    for (int32_t x : row) s += o.t[static_cast<size_t>(x - row_max + 127 + 128)];
    const std::vector<int32_t> y = SoftmaxRow(tables, row);
    for (size_t i = 0; i < row.size(); ++i) {
      const double p =
          std::round(std::exp(s_x * (row[i] - row_max)) * static_cast<double>(o.m) / s_y);
      const double q = std::floor((p + s / 2.0) / s);
      EXPECT_EQ(y[i], static_cast<int32_t>(std::min(q, 255.0))) << "row " << r << " element " << i;
    }
  }
}

// ---- Parameters ---------------------------------------------------------------------------------

void ExpectInvalid(const SoftmaxParams& p, const std::string& needle) {
  testing::ExpectInvalidArgumentMentioning([&] { BuildSoftmaxTables(p); }, needle);
}

TEST(SoftmaxParams, ValidationNamesFieldAndRange) {
  const SoftmaxParams good = ParamsOf(kConfigs[0]);
  SoftmaxParams p = good;
  p.n = 0;
  ExpectInvalid(p, "n: 0 is out of range, allowed 1..65536");
  p.n = 65537;
  ExpectInvalid(p, "n: 65537 is out of range, allowed 1..65536");
  p = good;
  p.in.bits = 9;
  ExpectInvalid(p, "in.bits: 9 is out of range, allowed 2..8");
  p = good;
  p.out.bits = 17;
  ExpectInvalid(p, "out.bits: 17 is out of range, allowed 2..16");
  p = good;
  p.acc_bits = 7;
  ExpectInvalid(p, "acc_bits: 7 is out of range, allowed 8..32");
  p.acc_bits = 33;
  ExpectInvalid(p, "acc_bits: 33 is out of range, allowed 8..32");
  p = good;
  p.n = 200;  // 2^7 - 1 = 127 < 200: M = 0; 2^8 - 1 = 255 >= 200 needs acc 9
  p.acc_bits = 8;
  ExpectInvalid(p, "acc_bits: 8 is too small for n = 200");
  ExpectInvalid(p, "allowed 9..32");
  p = good;
  p.out.scale = 0;
  ExpectInvalid(p, "out.scale");
  p = good;
  p.in.is_signed = false;
  p.in.narrow = true;
  ExpectInvalid(p, "in.narrow");
}

TEST(SoftmaxParams, SeedPresetAndNames) {
  const SoftmaxParams defaults;
  EXPECT_EQ(defaults.table_rounding, RoundingMode::kHalfAwayFromZero);
  EXPECT_EQ(defaults.div_rounding, DivRounding::kNearest);
  EXPECT_EQ(defaults.offset, SoftmaxOffset::kRowMax);
  EXPECT_FALSE(IsSeedCompat(defaults));
  const SoftmaxParams seed = WithSeedCompat(defaults);
  EXPECT_TRUE(IsSeedCompat(seed));
  EXPECT_EQ(seed.table_rounding, RoundingMode::kTowardZero);
  EXPECT_EQ(seed.div_rounding, DivRounding::kFloor);
  EXPECT_EQ(seed.offset, SoftmaxOffset::kQmax);
  EXPECT_EQ(seed.mode, SoftmaxMode::kSeedCompat);
  EXPECT_EQ(seed.n, defaults.n);
  // The seed's three settings alone stay in exact mode (double tables, integer division).
  EXPECT_FALSE(IsSeedCompat(ParamsOf(kConfigs[1])));
  EXPECT_EQ(SoftmaxModeName(SoftmaxMode::kExact), "exact");
  EXPECT_EQ(SoftmaxModeName(SoftmaxMode::kSeedCompat), "seed");
  EXPECT_EQ(ParseDivRounding("floor"), DivRounding::kFloor);
  EXPECT_EQ(ParseDivRounding(DivRoundingName(DivRounding::kNearest)), DivRounding::kNearest);
  EXPECT_FALSE(ParseDivRounding("trunc").has_value());
  EXPECT_EQ(ParseSoftmaxOffset("qmax"), SoftmaxOffset::kQmax);
  EXPECT_EQ(ParseSoftmaxOffset(SoftmaxOffsetName(SoftmaxOffset::kRowMax)), SoftmaxOffset::kRowMax);
  EXPECT_FALSE(ParseSoftmaxOffset("max").has_value());
}

TEST(SoftmaxRow, RejectsBadRows) {
  const SoftmaxTables tables = BuildSoftmaxTables(ParamsOf(kConfigs[4]));  // n = 100, codes 0..15
  EXPECT_THROW(SoftmaxRow(tables, std::vector<int32_t>(99, 0)), std::invalid_argument);
  std::vector<int32_t> row(100, 3);
  row[42] = 16;
  try {
    SoftmaxRow(tables, row);
    ADD_FAILURE() << "code 16 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("row[42]: 16 is out of range, allowed 0..15"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace qacc::golden
