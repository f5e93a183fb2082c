// Lookup-table activations. The central check is seed 000's own test design: for every input code,
// the table read through its hardware address equals the scalar float path
// quantize(f(dequantize(q))). The scalar path here is written with plain arithmetic (no quant.h
// Quantize/Dequantize/QMin/QMax), so it is independent of the code under test; only f itself comes
// from the registry (its values are checked in elementwise_test).
#include "golden/lut.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace qacc::golden {
namespace {

// ---- Independent oracle -------------------------------------------------------------------------

struct CodeRange {
  int64_t qmin;
  int64_t qmax;
};

CodeRange RangeOf(int bits, bool is_signed, bool narrow) {
  if (!is_signed) return {0, (int64_t{1} << bits) - 1};
  const int64_t half = int64_t{1} << (bits - 1);
  return {narrow ? -half + 1 : -half, half - 1};
}

// Rounding from each mode's definition with libm primitives. Half up is "half away from zero,
// except that a negative tie goes up": a different formulation from quant.h's floor-based one.
double OracleRound(double v, RoundingMode mode) {
  switch (mode) {
    case RoundingMode::kHalfAwayFromZero:
      return std::round(v);
    case RoundingMode::kHalfToEven:
      return std::nearbyint(v);  // default FE_TONEAREST: ties to even
    case RoundingMode::kHalfUp:
      return std::round(v) + (v - std::trunc(v) == -0.5 ? 1.0 : 0.0);
    case RoundingMode::kTowardZero:
      return std::trunc(v);
    case RoundingMode::kFloor:
      return std::floor(v);
  }
  return NAN;
}

// clamp(round(y / scale) + zp, qmin, qmax); NaN to the zero point.
int64_t OracleQuantize(double y, double scale, int64_t zp, CodeRange range, RoundingMode mode) {
  if (std::isnan(y)) return std::clamp(zp, range.qmin, range.qmax);
  const double v = OracleRound(y / scale, mode) + static_cast<double>(zp);
  if (v <= static_cast<double>(range.qmin)) return range.qmin;
  if (v >= static_cast<double>(range.qmax)) return range.qmax;
  return static_cast<int64_t>(v);
}

double OracleDequantize(int64_t q, double scale, int64_t zp) {
  return scale * static_cast<double>(q - zp);
}

// The SRAM address: the code's two's complement pattern of `bits` bits, read as unsigned.
int64_t OracleAddress(int64_t q, int bits) { return q < 0 ? q + (int64_t{1} << bits) : q; }

// Collects mismatches and remembers the first one, so a failure reports one precise case and a
// count.
class Checker {
 public:
  template <typename A, typename B>
  void Expect(const A& actual, const B& expected, const std::string& where) {
    ++checks_;
    if (actual == expected) return;
    if (mismatches_++ == 0) {
      std::ostringstream out;
      out << std::setprecision(17) << where << ": got " << actual << ", expected " << expected;
      first_ = out.str();
    }
  }
  void Report() const {
    EXPECT_EQ(mismatches_, 0) << "of " << checks_ << " checks; first: " << first_;
    EXPECT_GT(checks_, 0);
  }
  int64_t checks() const { return checks_; }

 private:
  int64_t checks_ = 0;
  int64_t mismatches_ = 0;
  std::string first_;
};

// ---- Exhaustive: every function x input format x rounding x output spec -------------------------

struct InputKind {
  bool is_signed;
  bool narrow;
  bool mid_zero_point;  // unsigned only: zp = 2^(bits-1), so the grid covers negative values too
};
constexpr InputKind kInputKinds[] = {
    {true, false, false}, {true, true, false}, {false, false, false}, {false, false, true}};

// Input ranges: amax maps to qmax. The last is a power-of-two scale (1/16), which makes y / scale
// exact for piecewise-linear functions, so the rounding modes meet real ties.
constexpr double kInAmaxes[] = {1.0, 4.0, 8.0, 0.3, 0.0};  // 0.0: scale 1/16

enum class OutKind {
  kDerivedSigned,
  kDerivedUnsigned,
  kSymmetricSaturating,
  kAsymmetric,
  kTieRich
};
constexpr OutKind kOutKinds[] = {OutKind::kDerivedSigned, OutKind::kDerivedUnsigned,
                                 OutKind::kSymmetricSaturating, OutKind::kAsymmetric,
                                 OutKind::kTieRich};

struct Case {
  std::string function;
  double alpha;
  int in_bits;
  InputKind input;
  double in_amax;
  RoundingMode rounding;
  OutKind out_kind;
  int out_bits;

  std::string Describe() const {
    std::ostringstream out;
    out << function << "(alpha " << alpha << ") in " << in_bits << (input.is_signed ? "s" : "u")
        << (input.narrow ? " narrow" : "") << (input.mid_zero_point ? " zp-mid" : "") << " amax "
        << in_amax << " " << RoundingModeName(rounding) << " out kind "
        << static_cast<int>(out_kind) << " bits " << out_bits;
    return out.str();
  }
};

// Builds the case's table and checks every entry and every address against the oracle.
void CheckCase(const Case& c, Checker* checker) {
  const Elementwise f = GetElementwise(c.function, c.alpha);
  const CodeRange in_range = RangeOf(c.in_bits, c.input.is_signed, c.input.narrow);
  const int64_t in_zp = c.input.mid_zero_point ? int64_t{1} << (c.in_bits - 1) : 0;
  const double in_scale =
      c.in_amax > 0 ? c.in_amax / static_cast<double>(in_range.qmax - in_zp) : 1.0 / 16.0;

  // The scalar path's real values, then the output spec the case asks for.
  std::vector<double> y;
  for (int64_t q = in_range.qmin; q <= in_range.qmax; ++q)
    y.push_back(f(OracleDequantize(q, in_scale, in_zp)));
  double y_amax = 0.0, y_min = y.front(), y_max = y.front();
  for (double v : y) {
    y_amax = std::max(y_amax, std::abs(v));
    y_min = std::min(y_min, v);
    y_max = std::max(y_max, v);
  }

  LutSpec spec;
  spec.in = QuantSpec{c.in_bits, c.input.is_signed, c.input.narrow, in_scale,
                      static_cast<int32_t>(in_zp)};
  spec.rounding = c.rounding;
  bool out_signed = true;
  bool out_narrow = false;
  double out_scale = 1.0;
  int64_t out_zp = 0;
  switch (c.out_kind) {
    case OutKind::kDerivedSigned:
    case OutKind::kDerivedUnsigned:
      spec.derive_out = true;
      out_signed = c.out_kind == OutKind::kDerivedSigned;
      out_narrow = out_signed && c.input.narrow;
      out_scale = y_amax / static_cast<double>(RangeOf(c.out_bits, out_signed, out_narrow).qmax);
      break;
    case OutKind::kSymmetricSaturating:  // 3/4 of the range: the extremes saturate
      out_narrow = c.input.narrow;
      out_scale = 0.75 * y_amax / static_cast<double>(RangeOf(c.out_bits, true, out_narrow).qmax);
      break;
    case OutKind::kAsymmetric: {  // [min, max] widened to 0, over all codes; signedness alternates
      out_signed = c.out_bits % 2 == 0;
      const CodeRange r = RangeOf(c.out_bits, out_signed, false);
      const double lo = std::min(y_min, 0.0), hi = std::max(y_max, 0.0);
      out_scale = hi > lo ? (hi - lo) / static_cast<double>(r.qmax - r.qmin) : 1.0;
      out_zp =
          std::clamp(static_cast<int64_t>(std::round(static_cast<double>(r.qmin) - lo / out_scale)),
                     r.qmin, r.qmax);
      break;
    }
    case OutKind::kTieRich:  // twice the input step, zero point 1
      out_scale = 2.0 * in_scale;
      out_zp = 1;
      break;
  }
  const CodeRange out_range = RangeOf(c.out_bits, out_signed, out_narrow);
  spec.out = QuantSpec{c.out_bits, out_signed, out_narrow, spec.derive_out ? 1.0 : out_scale,
                       static_cast<int32_t>(out_zp)};

  const Lut lut = BuildLut(f, spec);
  const std::string where = c.Describe();
  checker->Expect(lut.entries_by_value().size(),
                  static_cast<size_t>(in_range.qmax - in_range.qmin + 1), where + " size");
  checker->Expect(lut.entries_by_address().size(), size_t{1} << c.in_bits, where + " sram size");
  checker->Expect(lut.out().scale, out_scale, where + " out scale");
  checker->Expect(lut.out().zero_point, out_zp, where + " out zero point");
  if (spec.derive_out)
    checker->Expect(lut.derived_out_amax().value_or(-1.0), y_amax, where + " amax");

  for (int64_t q = in_range.qmin; q <= in_range.qmax; ++q) {
    const int64_t expected = OracleQuantize(y[static_cast<size_t>(q - in_range.qmin)], out_scale,
                                            out_zp, out_range, c.rounding);
    const std::string at = where + " q " + std::to_string(q);
    checker->Expect(int64_t{lut.Lookup(q)}, expected, at);
    checker->Expect(int64_t{lut.entries_by_address()[OracleAddress(q, c.in_bits)]}, expected,
                    at + " sram");
    checker->Expect(int64_t{lut.entries_by_value()[q - in_range.qmin]}, expected, at + " by value");
  }
}

TEST(LutExhaustive, EveryEntryEqualsQuantizeOfFOfDequantize) {
  Checker checker;
  int counter = 0;
  std::vector<std::pair<std::string, double>> functions;
  for (const std::string& name : ElementwiseNames()) {
    functions.emplace_back(name, name == "leaky_relu" ? 0.01 : 0.0);  // PyTorch's default slope
  }
  functions.emplace_back("leaky_relu", 0.25);  // a power of two: exact products, so ties happen
  for (const auto& [function, alpha] : functions) {
    for (int in_bits = kMinLutInBits; in_bits <= kMaxLutInBits; ++in_bits) {
      for (const InputKind& input : kInputKinds) {
        for (double in_amax : kInAmaxes) {
          for (RoundingMode rounding : kAllRoundingModes) {
            for (OutKind out_kind : kOutKinds) {
              // Output widths 2..16 in rotation, so every width meets every function and output
              // kind.
              const int out_bits = kMinQuantBits + counter++ % (kMaxQuantBits - kMinQuantBits + 1);
              CheckCase({function, alpha, in_bits, input, in_amax, rounding, out_kind, out_bits},
                        &checker);
            }
          }
        }
      }
    }
  }
  checker.Report();
  EXPECT_GT(checker.checks(), 1000000);
}

TEST(LutExhaustive, RoundingModesReallyDiffer) {
  // Guards the exhaustive test against a grid without ties: relu on the 1/16 input grid with output
  // scale 1/8 puts every odd code exactly on a tie, where the five modes give four different
  // tables.
  LutSpec spec;
  spec.in = QuantSpec{4, true, false, 1.0 / 16, 0};
  spec.out = QuantSpec{8, true, false, 1.0 / 8, 0};
  std::vector<std::vector<int32_t>> tables;
  for (RoundingMode mode : kAllRoundingModes) {
    spec.rounding = mode;
    tables.push_back(BuildLut(GetElementwise("leaky_relu", 1.0), spec).entries_by_value());
  }
  // q = -3, -1, 1, 3: y / scale = -1.5, -0.5, 0.5, 1.5. Entries start at q = -8.
  const std::vector<int32_t> away = {-2, -1, 1, 2}, even = {-2, 0, 0, 2}, up = {-1, 0, 1, 2},
                             zero = {-1, 0, 0, 1}, floor = {-2, -1, 0, 1};
  const std::vector<int32_t>* expected[] = {&away, &even, &up, &zero, &floor};
  for (size_t m = 0; m < tables.size(); ++m) {
    const std::vector<int32_t> at_ties = {tables[m][5], tables[m][7], tables[m][9], tables[m][11]};
    EXPECT_EQ(at_ties, *expected[m]) << RoundingModeName(kAllRoundingModes[m]);
  }
}

// ---- Addressing ---------------------------------------------------------------------------------

TEST(LutAddressing, AddressIsTheRawBitPattern) {
  for (int q = -128; q <= 127; ++q) {
    ASSERT_EQ(LutAddress(q, 8), static_cast<uint8_t>(q)) << q;  // int8 -> uint8 reinterpretation
  }
  for (int bits = kMinLutInBits; bits <= kMaxLutInBits; ++bits) {
    for (int64_t q = -(int64_t{1} << (bits - 1)); q < (int64_t{1} << bits); ++q) {
      ASSERT_EQ(LutAddress(q, bits), OracleAddress(q, bits) % (int64_t{1} << bits))
          << bits << " " << q;
    }
  }
  EXPECT_EQ(LutAddress(-1, 4), 15u);
  EXPECT_EQ(LutAddress(-8, 4), 8u);
  EXPECT_EQ(LutAddress(7, 4), 7u);
}

TEST(LutAddressing, NarrowLeavesPatternOfMinusHalfUnusedHoldingQminEntry) {
  const Elementwise tanh = GetElementwise("tanh");
  for (int bits = kMinLutInBits; bits <= kMaxLutInBits; ++bits) {
    LutSpec spec;
    spec.in = QuantSpec{bits, true, true, 3.0 / static_cast<double>((1 << (bits - 1)) - 1), 0};
    spec.out = QuantSpec{8, true, true, 1.0 / 127, 0};
    const Lut lut = BuildLut(tanh, spec);
    const uint32_t unused = 1u << (bits - 1);
    ASSERT_EQ(lut.unused_address(), unused) << bits;
    EXPECT_EQ(lut.entries_by_address()[unused], lut.entries_by_value().front()) << bits;  // T(qmin)
    EXPECT_EQ(lut.Lookup(-(int64_t{1} << (bits - 1))), lut.Lookup(-(int64_t{1} << (bits - 1)) + 1))
        << bits;
    EXPECT_NE(lut.entries_by_value().front(), 0)
        << bits;  // so the check above can tell T(qmin) from 0
  }
  // Full-range signed and unsigned inputs use every address.
  LutSpec spec;
  spec.in = QuantSpec{8, true, false, 0.05, 0};
  spec.out = QuantSpec{8, true, false, 0.01, 0};
  EXPECT_FALSE(BuildLut(tanh, spec).unused_address().has_value());
  spec.in = QuantSpec{8, false, false, 0.05, 128};
  EXPECT_FALSE(BuildLut(tanh, spec).unused_address().has_value());
}

TEST(LutAddressing, ByAddressRoundTripsByValue) {
  for (bool is_signed : {true, false}) {
    for (bool narrow : {false, true}) {
      if (narrow && !is_signed) continue;
      for (int bits = kMinLutInBits; bits <= kMaxLutInBits; ++bits) {
        LutSpec spec;
        spec.in = QuantSpec{bits, is_signed, narrow, 0.1, 0};
        spec.out = QuantSpec{12, true, false, 0.001, 0};
        const Lut lut = BuildLut(GetElementwise("gelu"), spec);
        const CodeRange r = RangeOf(bits, is_signed, narrow);
        std::vector<int> hits(size_t{1} << bits, 0);
        for (int64_t q = r.qmin; q <= r.qmax; ++q) {
          const int64_t address = OracleAddress(q, bits);
          ++hits[address];
          ASSERT_EQ(lut.entries_by_address()[address], lut.entries_by_value()[q - r.qmin])
              << bits << " " << q;
        }
        // A bijection onto all addresses but the unused one.
        for (size_t address = 0; address < hits.size(); ++address) {
          const bool is_unused = lut.unused_address() == address;
          EXPECT_EQ(hits[address], is_unused ? 0 : 1) << bits << " address " << address;
        }
      }
    }
  }
}

TEST(LutAddressing, LookupRejectsCodesOutsideTheInputWidth) {
  LutSpec spec;
  spec.in = QuantSpec{8, true, true, 0.05, 0};
  spec.out = QuantSpec{8, true, false, 0.01, 0};
  const Lut narrow = BuildLut(GetElementwise("tanh"), spec);
  EXPECT_NO_THROW(narrow.Lookup(-128));  // the narrow-excluded pattern still addresses the SRAM
  EXPECT_THROW(narrow.Lookup(-129), std::out_of_range);
  EXPECT_THROW(narrow.Lookup(128), std::out_of_range);
  spec.in = QuantSpec{4, false, false, 0.05, 0};
  const Lut unsigned_lut = BuildLut(GetElementwise("tanh"), spec);
  EXPECT_NO_THROW(unsigned_lut.Lookup(15));
  EXPECT_THROW(unsigned_lut.Lookup(-1), std::out_of_range);
  EXPECT_THROW(unsigned_lut.Lookup(16), std::out_of_range);
}

TEST(LutAddressing, SramWordsAreTwosComplementOfEntryWidth) {
  for (int out_bits : {3, 8, 16}) {
    LutSpec spec;
    spec.in = QuantSpec{4, true, false, 0.5, 0};
    spec.out =
        QuantSpec{out_bits, true, false, 4.0 / static_cast<double>((1 << (out_bits - 1)) - 1), 0};
    const Lut lut = BuildLut(GetElementwise("tanh"), spec);
    const std::vector<uint32_t> words = lut.SramWords();
    ASSERT_EQ(words.size(), 16u);
    for (size_t a = 0; a < words.size(); ++a) {
      const int64_t code = lut.entries_by_address()[a];
      EXPECT_EQ(words[a], static_cast<uint32_t>(code < 0 ? code + (int64_t{1} << out_bits) : code))
          << out_bits << " " << a;
    }
    // tanh(-4) is negative in every width: its word has the sign bit of the entry width set.
    ASSERT_LT(lut.Lookup(-8), 0);
    EXPECT_GE(words[LutAddress(-8, 4)], 1u << (out_bits - 1)) << out_bits;
  }
}

// ---- Memory -------------------------------------------------------------------------------------

TEST(LutMemory, SizeIsAllAddressesTimesEntryBits) {
  struct Size {
    int in_bits, out_bits;
    int64_t bits, bytes;
  };
  // 2^in * out bits, rounded up to bytes; narrow range still pays for the unused address.
  const Size cases[] = {
      {8, 8, 2048, 256}, {8, 16, 4096, 512}, {4, 12, 192, 24}, {3, 3, 24, 3}, {2, 3, 12, 2}};
  for (const Size& c : cases) {
    for (bool narrow : {false, true}) {
      LutSpec spec;
      spec.in = QuantSpec{c.in_bits, true, narrow, 0.1, 0};
      spec.out = QuantSpec{c.out_bits, true, false, 0.01, 0};
      const Lut lut = BuildLut(GetElementwise("sigmoid"), spec);
      EXPECT_EQ(lut.size_bits(), c.bits) << c.in_bits << "x" << c.out_bits;
      EXPECT_EQ(lut.size_bytes(), c.bytes) << c.in_bits << "x" << c.out_bits;
    }
  }
}

// ---- Sharing ------------------------------------------------------------------------------------

TEST(LutBank, ThirtySigmoidsWithThreeScalePairsStoreThreeTables) {
  // Seed 000's example: 30 sigmoids; requests with equal input and output scales share one table.
  const Elementwise sigmoid = GetElementwise("sigmoid");
  const double in_amax[] = {8.0, 4.0, 8.0};
  const std::optional<double> out_amax[] = {std::nullopt, std::nullopt,
                                            0.5};  // derived, derived, saturating
  LutBank bank;
  for (int i = 0; i < 30; ++i) {
    LutSpec spec;
    spec.in = QuantSpec{8, true, false, in_amax[i % 3] / 127, 0};
    spec.out = QuantSpec{8, true, false, out_amax[i % 3].value_or(1.0) / 127, 0};
    spec.derive_out = !out_amax[i % 3].has_value();
    EXPECT_EQ(bank.Add("sigmoid_" + std::to_string(i), sigmoid, spec), static_cast<size_t>(i % 3))
        << i;
  }
  EXPECT_EQ(bank.request_count(), 30u);
  ASSERT_EQ(bank.unique_tables().size(), 3u);
  EXPECT_EQ(bank.shared_bytes(), 3 * 256);
  EXPECT_EQ(bank.unshared_bytes(), 30 * 256);
  EXPECT_EQ(bank.TableIndex("sigmoid_29"), 2u);
  EXPECT_EQ(bank.TableFor("sigmoid_4").in().scale, 4.0 / 127);
  EXPECT_NE(bank.unique_tables()[0].entries_by_address(),
            bank.unique_tables()[1].entries_by_address());
  EXPECT_THROW(bank.TableIndex("sigmoid_30"), std::out_of_range);
  EXPECT_THROW(bank.Add("sigmoid_0", BuildLut(sigmoid, SeedCompatSpec(8.0, 8, false))),
               std::invalid_argument);
}

TEST(LutBank, EqualContentsShareAcrossFunctions) {
  // relu and relu6 agree on [-4, 4]: with the same output spec their tables are identical and
  // share. On
  // [-8, 8] relu6 saturates at 6 and they do not.
  LutSpec spec;
  spec.out = QuantSpec{8, true, false, 8.0 / 127, 0};
  LutBank bank;
  spec.in = QuantSpec{8, true, false, 4.0 / 127, 0};
  bank.Add("relu_a", GetElementwise("relu"), spec);
  bank.Add("relu6_a", GetElementwise("relu6"), spec);
  EXPECT_EQ(bank.unique_tables().size(), 1u);
  EXPECT_EQ(bank.TableIndex("relu_a"), bank.TableIndex("relu6_a"));
  spec.in = QuantSpec{8, true, false, 8.0 / 127, 0};
  bank.Add("relu_b", GetElementwise("relu"), spec);
  bank.Add("relu6_b", GetElementwise("relu6"), spec);
  EXPECT_EQ(bank.unique_tables().size(), 3u);
  EXPECT_EQ(bank.shared_bytes(), 3 * 256);
  EXPECT_EQ(bank.unshared_bytes(), 4 * 256);
}

TEST(LutBank, EntryWidthAndUnusedAddressAreComparedToo) {
  LutBank bank;
  LutSpec spec;
  spec.in = QuantSpec{8, true, false, 4.0 / 127, 0};
  spec.out = QuantSpec{8, true, false, 8.0 / 127, 0};
  const Elementwise relu = GetElementwise("relu");
  bank.Add("relu_8", relu, spec);
  // The same codes (0..64) in 16-bit entries: a different SRAM, not shared.
  spec.out.bits = 16;
  bank.Add("relu_16", relu, spec);
  EXPECT_EQ(bank.unique_tables().size(), 2u);
  EXPECT_EQ(bank.TableFor("relu_8").entries_by_address(),
            bank.TableFor("relu_16").entries_by_address());
  // Unsigned 8-bit output with the same scale: the same words (relu is never negative), shared.
  spec.out = QuantSpec{8, false, false, 8.0 / 127, 0};
  EXPECT_EQ(bank.Add("relu_u8", relu, spec), 0u);

  // leaky_relu (alpha 1: the identity) with and without narrow input: equal scales (qmax is the
  // same), equal entries except at the address 0x80, which holds T(-128) = -128 without narrow and
  // T(-127) = -127 with it.
  const Elementwise leaky = GetElementwise("leaky_relu", 1.0);
  spec.out = QuantSpec{8, true, false, 4.0 / 127, 0};
  bank.Add("leaky_full", leaky, spec);
  spec.in.narrow = true;
  bank.Add("leaky_narrow", leaky, spec);
  EXPECT_EQ(bank.unique_tables().size(), 4u);
  const Lut& full = bank.TableFor("leaky_full");
  const Lut& narrow = bank.TableFor("leaky_narrow");
  for (uint32_t a = 0; a < 256; ++a) {
    if (a == 0x80) continue;
    EXPECT_EQ(full.entries_by_address()[a], narrow.entries_by_address()[a]) << a;
  }
  EXPECT_EQ(full.entries_by_address()[0x80], -128);
  EXPECT_EQ(narrow.entries_by_address()[0x80], -127);
}

// ---- Output range -------------------------------------------------------------------------------

TEST(LutOutputRange, DerivedAmaxIsMaxAbsOverTheGrid) {
  // sigmoid on the 8-bit grid of amax 8: the largest |f| is sigmoid(8) (127 * 8/127), not 1.
  LutSpec spec;
  spec.in = QuantSpec{8, true, false, 8.0 / 127, 0};
  spec.out = QuantSpec{8, true, false, 123.0, 0};  // scale and zero point are ignored when derived
  spec.derive_out = true;
  const Lut lut = BuildLut(GetElementwise("sigmoid"), spec);
  const double amax = 1.0 / (1.0 + std::exp(-127 * (8.0 / 127)));
  EXPECT_EQ(lut.derived_out_amax(), amax);
  EXPECT_EQ(lut.out().scale, amax / 127);
  EXPECT_EQ(lut.out().zero_point, 0);
  EXPECT_EQ(lut.Lookup(127), 127);
  EXPECT_EQ(lut.Lookup(0), 64);  // round_half_even(0.5 / (amax / 127)) = round(63.52)
}

TEST(LutOutputRange, DerivedAmaxOfZeroOrInfinityIsAnError) {
  // relu on an unsigned grid whose zero point is qmax: every x <= 0, f = 0 everywhere, no scale to
  // derive.
  LutSpec spec;
  spec.in = QuantSpec{8, false, false, 0.1, 255};
  spec.out = QuantSpec{8, false, false, 1.0, 0};
  spec.derive_out = true;
  try {
    BuildLut(GetElementwise("relu"), spec);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("out.amax"), std::string::npos) << e.what();
  }
  // exp overflows on [-1000, 1000].
  spec.in = QuantSpec{8, true, false, 1000.0 / 127, 0};
  EXPECT_THROW(BuildLut(GetElementwise("exp"), spec), std::invalid_argument);
  // With an explicit output the overflow simply saturates.
  spec.derive_out = false;
  spec.out = QuantSpec{8, true, false, 1.0, 0};
  EXPECT_EQ(BuildLut(GetElementwise("exp"), spec).Lookup(127), 127);
}

TEST(LutValidation, NamesTheField) {
  const Elementwise f = GetElementwise("tanh");
  auto message = [&](const LutSpec& spec) -> std::string {
    try {
      BuildLut(f, spec);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no exception";
  };
  LutSpec spec;
  spec.in = QuantSpec{9, true, false, 0.1, 0};
  EXPECT_EQ(message(spec), "in.bits: 9 is out of range, allowed 2..8");
  spec.in.bits = 1;
  EXPECT_EQ(message(spec),
            "in.bits: 1 is out of range, allowed 2..16");  // quant.h's general check first
  spec.in.bits = 8;
  spec.out.bits = 17;
  EXPECT_EQ(message(spec), "out.bits: 17 is out of range, allowed 2..16");
  spec.out = QuantSpec{8, false, true, 0.1, 0};
  EXPECT_NE(message(spec).find("out.narrow"), std::string::npos);
  spec.out = QuantSpec{8, true, false, 0.0, 0};
  EXPECT_NE(message(spec).find("out.scale"), std::string::npos);
  spec.derive_out = true;  // the scale no longer matters
  EXPECT_EQ(message(spec), "no exception");
  spec.in.scale = NAN;
  EXPECT_NE(message(spec).find("in.scale"), std::string::npos);
}

// ---- Seed 000 compatibility mode ----------------------------------------------------------------

struct SeedTable {
  float in_scale;
  float out_scale;
  std::vector<int32_t> entries;  // ascending input code
};

// Seed 000's _SymmetryQuant.__init__ written out in float32 (what PyTorch computes):
//   input_scale  = input_amax / quant_max(bit)        Python double division; used as float32 by
//   the tensors input_float  = arange(qmin, qmax + 1) * scale     float32 output_float = sigmoid /
//   tanh                     float32: 1 / (1 + expf(-x)), tanhf output_scale = output_amax /
//   quant_max(bit)       given: double division, then float32;
//                  absolute(output_float).max() / qmax  derived: float32 max, float32 division
//   quantize     = clamp(y / output_scale, qmin, qmax).to(int)   float32 division, truncation
SeedTable EmulateSeed(bool is_tanh, double in_amax, int bits, bool narrow,
                      std::optional<double> out_amax) {
  const int64_t qmax = (int64_t{1} << (bits - 1)) - 1;
  const int64_t qmin = narrow ? -qmax : -qmax - 1;
  SeedTable table;
  table.in_scale = static_cast<float>(in_amax / static_cast<double>(qmax));
  std::vector<float> y;
  for (int64_t q = qmin; q <= qmax; ++q) {
    const float x = static_cast<float>(q) * table.in_scale;
    y.push_back(is_tanh ? std::tanh(x)
                        : 1.0f / (1.0f + std::exp(-x)));  // float overloads: tanhf, expf
  }
  if (out_amax) {
    table.out_scale = static_cast<float>(*out_amax / static_cast<double>(qmax));
  } else {
    float amax = 0.0f;
    for (float v : y) amax = std::max(amax, std::fabs(v));
    table.out_scale = amax / static_cast<float>(qmax);
  }
  for (float v : y) {
    const float scaled =
        std::clamp(v / table.out_scale, static_cast<float>(qmin), static_cast<float>(qmax));
    table.entries.push_back(static_cast<int32_t>(std::trunc(scaled)));
  }
  return table;
}

TEST(LutSeedCompat, MatchesFloat32EmulationBitForBit) {
  Checker checker;
  for (bool is_tanh : {false, true}) {
    const Elementwise f = GetElementwise(is_tanh ? "tanh" : "sigmoid");
    for (int bits = kMinLutInBits; bits <= kMaxLutInBits; ++bits) {
      for (bool narrow : {false, true}) {
        for (double in_amax : {1.0, 4.0, 8.0, 0.3, 2.5, 0.05, 12.0}) {
          for (std::optional<double> out_amax :
               {std::optional<double>(), std::optional<double>(1.0), std::optional<double>(0.5),
                std::optional<double>(0.9), std::optional<double>(2.0)}) {
            const SeedTable expected = EmulateSeed(is_tanh, in_amax, bits, narrow, out_amax);
            const Lut lut = BuildLut(f, SeedCompatSpec(in_amax, bits, narrow, out_amax));
            std::ostringstream where;
            where << f.name() << " bits " << bits << (narrow ? " narrow" : "") << " in_amax "
                  << in_amax << " out_amax " << (out_amax ? std::to_string(*out_amax) : "derived");
            checker.Expect(lut.in().scale, static_cast<double>(expected.in_scale),
                           where.str() + " in scale");
            checker.Expect(lut.out().scale, static_cast<double>(expected.out_scale),
                           where.str() + " out scale");
            checker.Expect(lut.out().bits, bits, where.str() + " out bits");
            checker.Expect(lut.out().narrow, narrow, where.str() + " out narrow");
            checker.Expect(RoundingModeName(lut.rounding()), "toward_zero",
                           where.str() + " rounding");
            checker.Expect(lut.entries_by_value().size(), expected.entries.size(),
                           where.str() + " size");
            const int64_t qmin =
                narrow ? -(int64_t{1} << (bits - 1)) + 1 : -(int64_t{1} << (bits - 1));
            for (size_t i = 0; i < expected.entries.size(); ++i) {
              const int64_t q = qmin + static_cast<int64_t>(i);
              checker.Expect(lut.Lookup(q), expected.entries[i],
                             where.str() + " q " + std::to_string(q));
            }
          }
        }
      }
    }
  }
  checker.Report();
}

TEST(LutSeedCompat, HandDerivedEntries) {
  // Derived with /usr/bin/python3 and numpy float32, emulating seed 000 operation by operation:
  //   in_scale = np.float32(8 / 127); x = np.arange(-128, 128, dtype=np.int8).astype(np.float32) *
  //   in_scale y = np.float32(1) / (np.float32(1) + np.exp(-x)); out_scale = np.abs(y).max() /
  //   np.float32(127) q = np.clip(y / out_scale, np.float32(-128),
  //   np.float32(127)).astype(np.int32)   (truncation)
  // Scales as float32 bit patterns: in 0x3d810204, out 0x3c00f6f1.
  const Lut sigmoid = BuildLut(GetElementwise("sigmoid"), SeedCompatSpec(8.0, 8, false));
  EXPECT_EQ(static_cast<float>(sigmoid.in().scale), 0x1.020408p-4f);   // 0x3d810204
  EXPECT_EQ(static_cast<float>(sigmoid.out().scale), 0x1.01ede2p-7f);  // 0x3c00f6f1
  const std::pair<int, int> sigmoid_entries[] = {{-128, 0},  {-77, 0},  {-76, 1},  {-1, 61},
                                                 {0, 63},    {1, 65},   {76, 125}, {77, 126},
                                                 {126, 126}, {127, 127}};
  for (const auto& [q, y] : sigmoid_entries) EXPECT_EQ(sigmoid.Lookup(q), y) << q;
  // Exact mode rounds where the seed truncates: sigmoid(0) = 0.5 -> 63.52 -> 64 instead of 63.
  LutSpec exact;
  exact.in = QuantSpec{8, true, false, 8.0 / 127, 0};
  exact.out = QuantSpec{8, true, false, 1.0, 0};
  exact.derive_out = true;
  EXPECT_EQ(BuildLut(GetElementwise("sigmoid"), exact).Lookup(0), 64);

  // tanh, 4 bits, narrow, amax 2.5 (same numpy recipe with np.tanh and codes -7..7):
  //   derived output amax:  -7 -6 -6 -6 -5 -4 -2 0 2 4 5 6 6 6 7
  //   output amax 0.9:      -7 -7 -7 -6 -6 -4 -2 0 2 4 6 6 7 7 7
  const std::vector<int32_t> tanh_derived = {-7, -6, -6, -6, -5, -4, -2, 0, 2, 4, 5, 6, 6, 6, 7};
  const std::vector<int32_t> tanh_given = {-7, -7, -7, -6, -6, -4, -2, 0, 2, 4, 6, 6, 7, 7, 7};
  const Elementwise tanh = GetElementwise("tanh");
  EXPECT_EQ(BuildLut(tanh, SeedCompatSpec(2.5, 4, true)).entries_by_value(), tanh_derived);
  EXPECT_EQ(BuildLut(tanh, SeedCompatSpec(2.5, 4, true, 0.9)).entries_by_value(), tanh_given);
  EXPECT_EQ(static_cast<float>(BuildLut(tanh, SeedCompatSpec(2.5, 4, true)).out().scale),
            0.14094489812850952f);
}

TEST(LutSeedCompat, OtherFunctionsUseTheirFloat32Forms) {
  // Beyond the seed's sigmoid and tanh, compat mode runs every function's float32 form through the
  // same float32 dequantize / divide / truncate path.
  for (const std::string& name : ElementwiseNames()) {
    const Elementwise f = GetElementwise(name);
    const Lut lut = BuildLut(f, SeedCompatSpec(4.0, 6, false, 3.0));
    const float in_scale = static_cast<float>(4.0 / 31), out_scale = static_cast<float>(3.0 / 31);
    for (int64_t q = -32; q <= 31; ++q) {
      const float scaled =
          std::clamp(f.EvalFloat32(static_cast<float>(q) * in_scale) / out_scale, -32.0f, 31.0f);
      ASSERT_EQ(lut.Lookup(q), static_cast<int32_t>(scaled)) << name << " " << q;
    }
  }
}

TEST(LutSeedCompat, RejectsWhatTheSeedCannotExpress) {
  EXPECT_THROW(SeedCompatSpec(8.0, 9, false), std::invalid_argument);
  EXPECT_THROW(SeedCompatSpec(0.0, 8, false), std::invalid_argument);
  EXPECT_THROW(SeedCompatSpec(8.0, 8, false, -1.0), std::invalid_argument);
  const Elementwise f = GetElementwise("sigmoid");
  LutSpec spec = SeedCompatSpec(8.0, 8, false);
  spec.rounding = RoundingMode::kHalfToEven;
  EXPECT_THROW(BuildLut(f, spec), std::invalid_argument);
  spec = SeedCompatSpec(8.0, 8, false, 1.0);
  spec.out.zero_point = 3;
  EXPECT_THROW(BuildLut(f, spec), std::invalid_argument);
  spec = SeedCompatSpec(8.0, 8, false, 1.0);
  spec.out.scale = 1e-60;  // 0 in float32
  EXPECT_THROW(BuildLut(f, spec), std::invalid_argument);
  EXPECT_EQ(LutModeName(LutMode::kSeedCompat), "seed");
  EXPECT_EQ(LutModeName(LutMode::kExact), "exact");
}

}  // namespace
}  // namespace qacc::golden
