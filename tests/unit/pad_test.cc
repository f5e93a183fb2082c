// Quantized Pad (golden/pad.h): PadCode against the float definition and hand-checked ties, Pad
// against direct index arithmetic (constrained-random, fixed seed), and padding a conv input with
// the input zero point against Conv2d's own padding.
#include "golden/pad.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "golden/conv.h"
#include "golden/quant.h"
#include "tests/unit/expect_invalid.h"

namespace qacc::golden {
namespace {

using testing::ExpectInvalidArgument;

TEST(PadCode, RoundsHalfAwayFromZeroThenAddsTheZeroPoint) {
  // Scales that are powers of two make value / S exact, so the ties are real ties.
  const QuantSpec sym{8, true, false, 0.5, 0};
  EXPECT_EQ(PadCode(0.0, sym), 0);
  EXPECT_EQ(PadCode(1.25, sym), 3);    // 2.5 -> 3
  EXPECT_EQ(PadCode(-1.25, sym), -3);  // -2.5 -> -3
  EXPECT_EQ(PadCode(1.2, sym), 2);
  EXPECT_EQ(PadCode(1.25, sym, RoundingMode::kHalfToEven), 2);
  // Asymmetric: round(value / S) + Z, which equals the seed's round(value / S + Z) as Z is an
  // integer. Real 0 is the zero point itself.
  const QuantSpec asym{8, false, false, 0.25, 37};
  EXPECT_EQ(PadCode(0.0, asym), 37);
  EXPECT_EQ(PadCode(0.625, asym), 40);   // 2.5 -> 3, + 37
  EXPECT_EQ(PadCode(-0.625, asym), 34);  // -2.5 -> -3, + 37
  // Saturation at the code range.
  EXPECT_EQ(PadCode(1e9, asym), 255);
  EXPECT_EQ(PadCode(-1e9, asym), 0);
  EXPECT_EQ(PadCode(-1e9, sym), -128);
}

TEST(PadCode, WithinHalfAStepOfTheFloatValue) {
  // Float reference: dequantize(PadCode(v)) is within S / 2 of v for every v inside the range,
  // and PadCode equals the float formula clamp(round(v / S) + Z) computed here directly.
  std::mt19937 rng(7);
  const QuantSpec specs[] = {QuantSpec{8, true, false, 0.0371, -9},
                             QuantSpec{8, false, false, 0.1, 128}, QuantSpec{4, true, true, 0.3, 0},
                             QuantSpec{16, true, false, 1e-3, 500}};
  for (const QuantSpec& s : specs) {
    const double lo = s.scale * double(s.qmin() - s.zero_point);
    const double hi = s.scale * double(s.qmax() - s.zero_point);
    std::uniform_real_distribution<double> value(lo - 1.0, hi + 1.0);
    for (int i = 0; i < 20000; ++i) {
      const double v = value(rng);
      const int32_t q = PadCode(v, s);
      const double direct =
          std::clamp(std::round(v / s.scale) + s.zero_point, double(s.qmin()), double(s.qmax()));
      ASSERT_EQ(q, static_cast<int32_t>(direct)) << v;
      if (v >= lo && v <= hi) {
        ASSERT_LE(std::fabs(Dequantize(q, s) - v), s.scale / 2 + 1e-12) << v;
      }
    }
  }
}

TEST(Pad, ConstrainedRandomAgainstIndexArithmetic) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    Tensor4<int32_t> x(1 + int(rng() % 2), 1 + int(rng() % 5), 1 + int(rng() % 5),
                       1 + int(rng() % 3));
    for (int32_t& v : x.data) v = int32_t(rng() % 256) - 128;
    const PadAmounts pads{int(rng() % 4), int(rng() % 4), int(rng() % 4), int(rng() % 4)};
    const int32_t code = int32_t(rng() % 256) - 128;
    const Tensor4<int32_t> y = Pad(x, pads, code);
    ASSERT_EQ(y.dims, (std::array<int, 4>{x.dims[0], x.dims[1] + pads.top + pads.bottom,
                                          x.dims[2] + pads.left + pads.right, x.dims[3]}));
    for (size_t i = 0; i < y.data.size(); ++i) {
      // Decompose the flat index by hand.
      const int c = int(i % size_t(y.dims[3]));
      const int w = int(i / size_t(y.dims[3]) % size_t(y.dims[2]));
      const int h = int(i / size_t(y.dims[3] * y.dims[2]) % size_t(y.dims[1]));
      const int n = int(i / size_t(y.dims[3] * y.dims[2] * y.dims[1]));
      const int ih = h - pads.top, iw = w - pads.left;
      const bool inside = ih >= 0 && ih < x.dims[1] && iw >= 0 && iw < x.dims[2];
      const int32_t expected =
          inside ? x.data[((size_t(n) * x.dims[1] + ih) * x.dims[2] + iw) * x.dims[3] + c] : code;
      ASSERT_EQ(y.data[i], expected) << "trial " << trial << " i " << i;
    }
  }
}

TEST(Pad, ConvInputPaddedWithTheZeroPointEqualsConvPadding) {
  // Conv2d pads with input_zero_point (golden/conv.h). Padding explicitly with PadCode(0, in) = Z_x
  // and convolving without padding gives the same accumulators; padding with code 0 does not.
  std::mt19937 rng(3);
  const QuantSpec in{8, true, false, 0.05, -7};
  Tensor4<int8_t> x(1, 5, 4, 3);
  for (int8_t& v : x.data) v = static_cast<int8_t>(int(rng() % 256) - 128);
  Tensor4<int8_t> w(3, 3, 3, 2);
  for (int8_t& v : w.data) v = static_cast<int8_t>(int(rng() % 255) - 127);
  Conv2dParams padded;
  padded.pad_top = 1;
  padded.pad_bottom = 2;
  padded.pad_left = 1;
  padded.pad_right = 1;
  padded.input_zero_point = in.zero_point;
  const Tensor4<int32_t> reference = Conv2d(x, w, {}, padded);

  const auto pad_and_conv = [&](int32_t code) {
    Tensor4<int32_t> wide;
    wide.dims = x.dims;
    wide.data.assign(x.data.begin(), x.data.end());
    const Tensor4<int32_t> p = Pad(wide, PadAmounts{1, 2, 1, 1}, code);
    Tensor4<int8_t> narrow;
    narrow.dims = p.dims;
    for (int32_t v : p.data) narrow.data.push_back(static_cast<int8_t>(v));
    Conv2dParams none;
    none.input_zero_point = in.zero_point;
    return Conv2d(narrow, w, {}, none);
  };
  const int32_t zero_code = PadCode(0.0, in);
  EXPECT_EQ(zero_code, in.zero_point);
  const Tensor4<int32_t> explicit_pad = pad_and_conv(zero_code);
  EXPECT_EQ(explicit_pad.dims, reference.dims);
  EXPECT_EQ(explicit_pad.data, reference.data);
  // Code 0 is real 0.35 here: every output touching the border is off.
  EXPECT_NE(pad_and_conv(0).data, reference.data);
}

TEST(Pad, ValidatesArguments) {
  const Tensor4<int32_t> x(1, 2, 2, 1);
  ExpectInvalidArgument([&] { Pad(x, PadAmounts{-1, 0, 0, 0}, 0); }, "pads.top");
  ExpectInvalidArgument([&] { Pad(x, PadAmounts{0, 0, 0, -2}, 0); }, "pads.right");
  ExpectInvalidArgument([&] { Pad(Tensor4<int32_t>(), PadAmounts{}, 0); }, "input.dims[0]");
  ExpectInvalidArgument(
      [&] {
        Pad(x, PadAmounts{std::numeric_limits<int>::max(), 0, 0, 0}, 0);
      },
      "pads.top");
  const QuantSpec s{8, true, false, 0.1, 0};
  ExpectInvalidArgument([&] { PadCode(std::nan(""), s); }, "value");
  ExpectInvalidArgument([&] { PadCode(1.0, QuantSpec{8, true, false, 0.0, 0}); }, "spec.scale");
}

}  // namespace
}  // namespace qacc::golden
