// Quantized AvgPool (golden/pool.h) against an independent integer oracle written here (direct
// window loops, its own multiplier search, 128-bit products, explicit floor division) and against
// the float average, constrained-random with fixed seeds plus hand-checked cases.
#include "golden/pool.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "golden/quant.h"
#include "tests/unit/expect_invalid.h"
#include "tests/unit/sweep_oracle.h"

namespace qacc::golden {
namespace {

using testing::ErrorStats;
using testing::ExpectInvalidArgument;
using testing::MismatchLog;
using testing::RefRoundShift;

__extension__ typedef __int128 Int128;

// ---- Independent oracle -------------------------------------------------------------------------

// The largest rshift in 0..62 whose rounded multiplier fits `bits` signed bits, by search.
struct RefMultiplierRshift {
  int64_t multiplier = 0;
  int rshift = 0;
  bool ok = false;
};

RefMultiplierRshift RefQuantize(double scale, int bits) {
  const int64_t max = (int64_t{1} << (bits - 1)) - 1;
  for (int s = 62; s >= 0; --s) {
    const double m = std::round(std::ldexp(scale, s));  // in double: no int64 overflow
    if (m <= double(max)) return {static_cast<int64_t>(m), s, true};
  }
  return {};
}

struct Case {
  QuantSpec in, out;
  Pool2dGeometry g;
  int bits = 32;
  RoundingMode mode = RoundingMode::kHalfUp;
};

struct OracleResult {
  int32_t y;
  double bound;  // |y - float| <= bound (half-mode rounding; +1/2 for floor and toward zero)
  int32_t by_float;
};

OracleResult Oracle(const Tensor4<int32_t>& x, int n, int oh, int ow, int c, const Case& k) {
  int64_t acc = 0;  // sum of (q - Z_x) over the counted taps
  int count = 0;
  for (int kh = 0; kh < k.g.kernel_h; ++kh) {
    for (int kw = 0; kw < k.g.kernel_w; ++kw) {
      const int ih = oh * k.g.stride_h - k.g.pad_top + kh;
      const int iw = ow * k.g.stride_w - k.g.pad_left + kw;
      const bool inside = ih >= 0 && ih < x.dims[1] && iw >= 0 && iw < x.dims[2];
      if (inside) acc += x.at(n, ih, iw, c) - k.in.zero_point;
      if (inside || k.g.count_include_pad) ++count;  // a padded tap is real 0: adds nothing
    }
  }
  const double scale = k.in.scale / (k.out.scale * count);
  const RefMultiplierRshift m = RefQuantize(scale, k.bits);
  const Int128 shifted = RefRoundShift(Int128{acc} * m.multiplier, m.rshift, k.mode);
  const int64_t y = std::clamp<int64_t>(static_cast<int64_t>(shifted) + k.out.zero_point,
                                        k.out.qmin(), k.out.qmax());
  const double e =
      std::fabs(double(acc)) * std::fabs(std::ldexp(double(m.multiplier), -m.rshift) - scale);
  const bool half = k.mode != RoundingMode::kFloor && k.mode != RoundingMode::kTowardZero;
  const double real_mean = k.in.scale * double(acc) / count;
  return {static_cast<int32_t>(y), (half ? 1.0 : 1.5) + e + 1e-9,
          Quantize(real_mean, k.out, RoundingMode::kHalfAwayFromZero)};
}

Tensor4<int32_t> RandomInput(std::mt19937& rng, int n, int h, int w, int c, const QuantSpec& s) {
  Tensor4<int32_t> x(n, h, w, c);
  std::uniform_int_distribution<int64_t> code(s.qmin(), s.qmax());
  for (int32_t& v : x.data) v = static_cast<int32_t>(code(rng));
  return x;
}

// ---- Tests --------------------------------------------------------------------------------------

TEST(AvgPool, ConstrainedRandomAgainstIntegerOracleAndFloat) {
  std::mt19937 rng(20240611);
  MismatchLog exact_log, float_log;
  ErrorStats by_bits[3];
  int64_t outputs = 0, partial_windows = 0;
  const int bit_choices[] = {8, 16, 32};
  const QuantSpec in_specs[] = {
      QuantSpec{8, true, false, 0.05, 0},   QuantSpec{8, true, false, 0.031, -20},
      QuantSpec{8, false, false, 0.1, 128}, QuantSpec{8, false, false, 0.02, 3},
      QuantSpec{4, true, false, 0.5, -2},   QuantSpec{16, true, false, 1e-4, 1234},
      QuantSpec{8, true, true, 0.7, 5}};
  std::uniform_real_distribution<double> ratio(0.3, 3.0);
  for (int trial = 0; trial < 600; ++trial) {
    Case k;
    k.in = in_specs[rng() % std::size(in_specs)];
    const bool out_signed = rng() % 2 == 0;
    const int32_t out_zp = out_signed ? int32_t(rng() % 61) - 30 : int32_t(rng() % 61);
    k.out = QuantSpec{8, out_signed, false, k.in.scale * ratio(rng), out_zp};
    k.g.kernel_h = 1 + int(rng() % 4);
    k.g.kernel_w = 1 + int(rng() % 4);
    k.g.stride_h = 1 + int(rng() % 3);
    k.g.stride_w = 1 + int(rng() % 3);
    k.g.pad_top = int(rng() % k.g.kernel_h);
    k.g.pad_bottom = int(rng() % k.g.kernel_h);
    k.g.pad_left = int(rng() % k.g.kernel_w);
    k.g.pad_right = int(rng() % k.g.kernel_w);
    k.g.count_include_pad = rng() % 2 == 0;
    k.bits = bit_choices[rng() % 3];
    k.mode = kAllRoundingModes[rng() % std::size(kAllRoundingModes)];
    const int h = k.g.kernel_h + int(rng() % 6), w = k.g.kernel_w + int(rng() % 6);
    const Tensor4<int32_t> x = RandomInput(rng, 1 + int(rng() % 2), h, w, 1 + int(rng() % 3), k.in);

    AvgPoolParams params = MakeAvgPoolParams(k.in, k.out, k.g, k.bits);
    params.rounding = k.mode;
    const Tensor4<int32_t> y = AvgPool(x, params);
    const int out_h = (h + k.g.pad_top + k.g.pad_bottom - k.g.kernel_h) / k.g.stride_h + 1;
    const int out_w = (w + k.g.pad_left + k.g.pad_right - k.g.kernel_w) / k.g.stride_w + 1;
    ASSERT_EQ(y.dims, (std::array<int, 4>{x.dims[0], out_h, out_w, x.dims[3]}));
    for (int n = 0; n < x.dims[0]; ++n) {
      for (int oh = 0; oh < out_h; ++oh) {
        for (int ow = 0; ow < out_w; ++ow) {
          for (int c = 0; c < x.dims[3]; ++c) {
            const OracleResult ref = Oracle(x, n, oh, ow, c, k);
            const int32_t got = y.at(n, oh, ow, c);
            const std::string where = fmt::format(
                "trial {} k {}x{} s {}x{} pad {},{},{},{} incl {} bits {} {} "
                "[{}][{}][{}][{}]",
                trial, k.g.kernel_h, k.g.kernel_w, k.g.stride_h, k.g.stride_w, k.g.pad_top,
                k.g.pad_bottom, k.g.pad_left, k.g.pad_right, k.g.count_include_pad, k.bits,
                RoundingModeName(k.mode), n, oh, ow, c);
            if (got != ref.y)
              exact_log.Add(fmt::format("{}: oracle {}, got {}", where, ref.y, got));
            const int64_t error = std::abs(int64_t{got} - ref.by_float);
            if (k.mode == RoundingMode::kHalfUp || k.mode == RoundingMode::kHalfAwayFromZero) {
              by_bits[k.bits == 8 ? 0 : k.bits == 16 ? 1 : 2].Add(error);
            }
            if (double(error) > ref.bound) {
              float_log.Add(fmt::format("{}: float {}, got {}, bound {}", where, ref.by_float, got,
                                        ref.bound));
            }
            ++outputs;
          }
        }
      }
    }
    partial_windows += static_cast<int64_t>(params.partial.size());
  }
  EXPECT_EQ(exact_log.count, 0) << "of " << outputs << "; first: " << exact_log.first;
  EXPECT_EQ(float_log.count, 0) << "first: " << float_log.first;
  EXPECT_GT(partial_windows, 0);
  // With 32-bit multipliers the only error left is the rounding of the shift: within 1 LSB.
  EXPECT_LE(by_bits[2].max, 1);
  for (int b = 0; b < 3; ++b) {
    std::cout << "avgpool " << bit_choices[b] << "-bit multiplier (half modes) vs float: max "
              << by_bits[b].max << " LSB, mean " << by_bits[b].mean() << " LSB over "
              << by_bits[b].n << " outputs\n";
  }
}

TEST(AvgPool, OffsetIsAddedNotSubtracted) {
  // Seed 002 writes y = Scale * sum - Offset with Offset = Z_y - (S_x / S_y) Z_x. With S_x = S_y,
  // k = 1, Z_x = 10, Z_y = 0 the real value of code q is S (q - 10), whose output code is q - 10.
  const QuantSpec in{8, true, false, 0.1, 10};
  const QuantSpec out{8, true, false, 0.1, 0};
  const Pool2dGeometry g;  // 1 x 1, stride 1
  const AvgPoolParams params = MakeAvgPoolParams(in, out, g);
  EXPECT_EQ(params.offset, -10);  // -k Z_x
  Tensor4<int32_t> x(1, 1, 4, 1);
  x.data = {-128, 0, 10, 127};
  const Tensor4<int32_t> y = AvgPool(x, params);
  const double scale = in.scale / out.scale;
  const double offset = out.zero_point - in.scale / out.scale * in.zero_point;
  for (size_t i = 0; i < x.data.size(); ++i) {
    const int32_t q = x.data[i];
    const int32_t by_float = Quantize(Dequantize(q, in), out, RoundingMode::kHalfAwayFromZero);
    EXPECT_EQ(y.data[i], by_float) << q;
    EXPECT_EQ(y.data[i], std::clamp(q - 10, -128, 127)) << q;
    // Scale * sum + Offset matches; the seed's Scale * sum - Offset is 20 codes off.
    EXPECT_EQ(std::lround(scale * q + offset), q - 10);
    EXPECT_EQ(std::lround(scale * q - offset), q + 10);
  }
}

TEST(AvgPool, CountIncludePadDecidesTheDivisorAtTheBorder) {
  // 3 x 3 input of code 10 (int8, S = 1, Z = 0), 3 x 3 kernel, stride 1, pad 1: the corner window
  // holds 4 real taps. Excluding the padding: 40 / 4 = 10; including it: 40 / 9 = 4.44 -> 4.
  const QuantSpec s{8, true, false, 1.0, 0};
  Pool2dGeometry g{3, 3, 1, 1, 1, 1, 1, 1, false};
  Tensor4<int32_t> x(1, 3, 3, 1, 10);
  const Tensor4<int32_t> excl = AvgPool(x, MakeAvgPoolParams(s, s, g));
  g.count_include_pad = true;
  const Tensor4<int32_t> incl = AvgPool(x, MakeAvgPoolParams(s, s, g));
  EXPECT_EQ(excl.at(0, 0, 0, 0), 10);
  EXPECT_EQ(incl.at(0, 0, 0, 0), 4);
  EXPECT_EQ(incl.at(0, 0, 1, 0), 7);   // 60 / 9 = 6.67
  EXPECT_EQ(incl.at(0, 1, 1, 0), 10);  // the centre window is full
  // With an asymmetric input the padded taps are real 0, the code Z_x, not code 0.
  const QuantSpec asym{8, true, false, 1.0, -100};
  Tensor4<int32_t> z(1, 3, 3, 1, -90);  // real 10
  const Tensor4<int32_t> y = AvgPool(z, MakeAvgPoolParams(asym, s, g));
  EXPECT_EQ(y.at(0, 0, 0, 0), 4);
  EXPECT_EQ(y.at(0, 1, 1, 0), 10);
}

TEST(AvgPool, GlobalPoolOfAUint8Tensor) {
  // 7 x 7 global average (k = 49) of uint8 codes 0..48 with Z_x = 24: the mean of q - Z_x is 0, so
  // every channel lands on Z_y; shifting the input by +1 code moves the mean by S_x / S_y.
  const QuantSpec in{8, false, false, 0.02, 24};
  const QuantSpec out{8, false, false, 0.01, 100};
  const Pool2dGeometry g{7, 7, 1, 1, 0, 0, 0, 0, false};
  const AvgPoolParams params = MakeAvgPoolParams(in, out, g);
  EXPECT_TRUE(params.partial.empty());
  Tensor4<int32_t> x(1, 7, 7, 2);
  for (int i = 0; i < 49; ++i) {
    x.data[2 * i] = i;
    x.data[2 * i + 1] = i + 1;
  }
  const Tensor4<int32_t> y = AvgPool(x, params);
  EXPECT_EQ(y.dims, (std::array<int, 4>{1, 1, 1, 2}));
  EXPECT_EQ(y.at(0, 0, 0, 0), 100);
  EXPECT_EQ(y.at(0, 0, 0, 1), 102);
}

TEST(AvgPool, MultipliersAreThoseOfTheScalePerCount) {
  const QuantSpec in{8, true, false, 0.05, 3};
  const QuantSpec out{8, true, false, 0.04, -7};
  const Pool2dGeometry g{2, 3, 2, 2, 1, 0, 2, 1, false};
  for (int bits : {8, 16, 32}) {
    const AvgPoolParams p = MakeAvgPoolParams(in, out, g, bits);
    const RefMultiplierRshift full = RefQuantize(in.scale / (out.scale * 6), bits);
    EXPECT_EQ(p.multiplier, full.multiplier) << bits;
    EXPECT_EQ(p.rshift, full.rshift) << bits;
    EXPECT_EQ(p.offset, -6 * 3);
    ASSERT_EQ(p.partial.size(), 5u);
    for (int k = 1; k <= 5; ++k) {
      const RefMultiplierRshift m = RefQuantize(in.scale / (out.scale * k), bits);
      EXPECT_EQ(p.partial[k - 1].multiplier, m.multiplier) << bits << " " << k;
      EXPECT_EQ(p.partial[k - 1].rshift, m.rshift) << bits << " " << k;
      EXPECT_EQ(p.partial[k - 1].offset, -k * 3);
    }
  }
}

TEST(AvgPool, ValidatesArguments) {
  const QuantSpec s{8, true, false, 0.05, 0};
  Pool2dGeometry g{3, 3, 1, 1, 0, 0, 0, 0, false};
  ExpectInvalidArgument(
      [&] {
        MakeAvgPoolParams(QuantSpec{8, true, false, -1, 0}, s, g);
      },
      "in.scale");
  ExpectInvalidArgument([&] { MakeAvgPoolParams(s, s, g, 12); }, "multiplier_bits");
  ExpectInvalidArgument(
      [&] {
        MakeAvgPoolParams(s, s, Pool2dGeometry{3, 3, 0, 1, 0, 0, 0, 0, false});
      },
      "geometry.stride_h");
  ExpectInvalidArgument(
      [&] {
        MakeAvgPoolParams(s, s, Pool2dGeometry{0, 3, 1, 1, 0, 0, 0, 0, false});
      },
      "geometry.kernel_h");
  ExpectInvalidArgument(
      [&] {
        MakeAvgPoolParams(s, s, Pool2dGeometry{3, 3, 1, 1, 3, 0, 0, 0, false});
      },
      "geometry.pad_top");
  ExpectInvalidArgument(
      [&] {
        MakeAvgPoolParams(s, s, Pool2dGeometry{3, 3, 1, 1, 0, 0, 0, -1, false});
      },
      "geometry.pad_right");
  // S_x / S_y = 200 needs more than 8 bits even for a 1-tap window.
  ExpectInvalidArgument(
      [&] {
        MakeAvgPoolParams(QuantSpec{8, true, false, 10.0, 0}, s,
                          Pool2dGeometry{1, 1, 1, 1, 0, 0, 0, 0, false}, 8);
      },
      "in.scale / out.scale");
  // 16-bit codes: a 200 x 200 window could overflow the int32 sum (40000 * 65535 > 2^31).
  ExpectInvalidArgument(
      [&] {
        MakeAvgPoolParams(QuantSpec{16, true, false, 1.0, 0}, s,
                          Pool2dGeometry{200, 200, 1, 1, 0, 0, 0, 0, false});
      },
      "geometry.kernel_h");
  const AvgPoolParams params = MakeAvgPoolParams(s, s, g);
  ExpectInvalidArgument([&] { AvgPool(Tensor4<int32_t>(1, 2, 5, 1), params); },
                        "geometry.kernel_h");
  Tensor4<int32_t> x(1, 3, 3, 1);
  x.data[4] = 128;
  ExpectInvalidArgument([&] { AvgPool(x, params); }, "input.data[4]");
  ExpectInvalidArgument([&] { AvgPool(Tensor4<int32_t>(), params); }, "input.dims[0]");
}

}  // namespace
}  // namespace qacc::golden
