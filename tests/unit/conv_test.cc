// Conv2d (im2col + GEMM) against a direct nested-loop convolution written here, plus the im2col
// padding rule and an end-to-end check against a float convolution.
#include "golden/conv.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/quant.h"
#include "golden/requant_tensor.h"
#include "tests/unit/expect_invalid.h"
#include "tests/unit/sweep_oracle.h"

namespace qacc::golden {
namespace {

using testing::MismatchLog;

// The test oracle: a direct convolution in int64. Taps that fall in the padding are skipped, which
// is what a real zero-padded conv does; the accelerator instead stores the input zero point there,
// and the two agree only if the padding code is exactly x_zp (then (x_zp - x_zp) * w = 0).
template <typename TI, typename TW>
std::vector<int64_t> DirectConv(const Tensor4<TI>& x, const Tensor4<TW>& w,
                                const std::vector<int32_t>& bias, const Conv2dParams& p, int out_h,
                                int out_w) {
  const int N = x.dims[0], H = x.dims[1], W = x.dims[2], C = x.dims[3];
  const int KH = w.dims[0], KW = w.dims[1], CO = w.dims[3];
  std::vector<int64_t> out;
  for (int n = 0; n < N; ++n) {
    for (int oh = 0; oh < out_h; ++oh) {
      for (int ow = 0; ow < out_w; ++ow) {
        for (int co = 0; co < CO; ++co) {
          int64_t sum = bias.empty() ? 0 : bias[co];
          for (int kh = 0; kh < KH; ++kh) {
            for (int kw = 0; kw < KW; ++kw) {
              const int ih = oh * p.stride_h + kh - p.pad_top;
              const int iw = ow * p.stride_w + kw - p.pad_left;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              for (int c = 0; c < C; ++c) {
                const int64_t xv = x.data[((size_t(n) * H + ih) * W + iw) * C + c];
                const int64_t wv = w.data[((size_t(kh) * KW + kw) * C + c) * CO + co];
                sum += (xv - p.input_zero_point) * (wv - p.filter_zero_point);
              }
            }
          }
          out.push_back(sum);
        }
      }
    }
  }
  return out;
}

template <typename T>
Tensor4<T> RandomTensor(int d0, int d1, int d2, int d3, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> code(std::numeric_limits<T>::min(),
                                          std::numeric_limits<T>::max());
  Tensor4<T> t(d0, d1, d2, d3);
  for (T& v : t.data) v = static_cast<T>(code(rng));
  return t;
}

template <typename TI, typename TW>
void RandomConvSweep(uint64_t seed, int iterations) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  for (int i = 0; i < iterations; ++i) {
    const int N = uniform(1, 2), H = uniform(1, 11), W = uniform(1, 11), C = uniform(1, 6);
    const int KH = uniform(1, 5), KW = uniform(1, 5), CO = uniform(1, 6);
    Conv2dParams p;
    p.stride_h = uniform(1, 3);
    p.stride_w = uniform(1, 3);
    p.pad_top = uniform(0, 3);
    p.pad_bottom = uniform(0, 3);
    p.pad_left = uniform(0, 3);
    p.pad_right = uniform(0, 3);
    // Nonzero zero points, so zero padding would be caught; the input one must be a code of TI.
    p.input_zero_point =
        uniform(std::numeric_limits<TI>::min(), std::numeric_limits<TI>::max()) | 1;
    p.filter_zero_point = uniform(kMinOperandZeroPoint, kMaxOperandZeroPoint);
    if (H + p.pad_top + p.pad_bottom < KH || W + p.pad_left + p.pad_right < KW) continue;
    const int out_h = (H + p.pad_top + p.pad_bottom - KH) / p.stride_h + 1;
    const int out_w = (W + p.pad_left + p.pad_right - KW) / p.stride_w + 1;

    const Tensor4<TI> x = RandomTensor<TI>(N, H, W, C, rng);
    const Tensor4<TW> w = RandomTensor<TW>(KH, KW, C, CO, rng);
    std::vector<int32_t> bias;
    for (int co = 0; i % 2 == 0 && co < CO; ++co) bias.push_back(uniform(-5000, 5000));

    const Tensor4<int32_t> y = Conv2d(x, w, bias, p);
    const std::vector<int64_t> expected = DirectConv(x, w, bias, p, out_h, out_w);
    const std::string shape = fmt::format(
        "seed {} it {}: x {}x{}x{}x{} w {}x{}x{}x{} stride {},{} pad t{} b{} l{} r{} zp {},{}",
        seed, i, N, H, W, C, KH, KW, C, CO, p.stride_h, p.stride_w, p.pad_top, p.pad_bottom,
        p.pad_left, p.pad_right, p.input_zero_point, p.filter_zero_point);
    ASSERT_EQ(y.dims, (std::array<int, 4>{N, out_h, out_w, CO})) << shape;
    MismatchLog log;
    for (size_t j = 0; j < expected.size(); ++j) {
      // |sum| <= 5000 + 5*5*6 * 255*383 < 2^31: no wrap, the exact value is the register value.
      if (y.data[j] != expected[j]) {
        log.Add(
            fmt::format("{} flat index {}: expected {}, got {}", shape, j, expected[j], y.data[j]));
      }
    }
    EXPECT_EQ(log.count, 0) << "first: " << log.first;
    ++checked;
  }
  EXPECT_GT(checked, iterations / 2);  // the skip above must not hollow out the sweep
}

TEST(Conv2d, Im2ColGemmMatchesDirectConvolution) {
  RandomConvSweep<int8_t, int8_t>(21, 2000);
  RandomConvSweep<uint8_t, int8_t>(22, 1000);
  RandomConvSweep<int8_t, uint8_t>(23, 300);
  RandomConvSweep<uint8_t, uint8_t>(24, 300);
}

TEST(Conv2d, HandComputedExample) {
  // 3x3 input 1..9, 2x2 filter [[1, 0], [0, -1]], zero points 0, no padding, stride 1:
  // out[oh][ow] = x[oh][ow] - x[oh+1][ow+1] = -4 everywhere; bias 1 -> -3.
  Tensor4<int8_t> x(1, 3, 3, 1);
  for (int i = 0; i < 9; ++i) x.data[i] = static_cast<int8_t>(i + 1);
  Tensor4<int8_t> w(2, 2, 1, 1);
  w.data = {1, 0, 0, -1};
  const Tensor4<int32_t> y = Conv2d(x, w, {1}, Conv2dParams{});
  EXPECT_EQ(y.dims, (std::array<int, 4>{1, 2, 2, 1}));
  EXPECT_EQ(y.data, (std::vector<int32_t>{-3, -3, -3, -3}));

  // Same with one pixel of padding on every side and x_zp = 5: a tap in the padding reads 5, i.e.
  // real 0. out[0][0] = (pad - 5) * 1 - (x[0][0] - 5) * 1 = 0 - (1 - 5) = 4.
  Conv2dParams padded;
  padded.pad_top = padded.pad_bottom = padded.pad_left = padded.pad_right = 1;
  padded.input_zero_point = 5;
  const Tensor4<int32_t> yp = Conv2d(x, w, {}, padded);
  EXPECT_EQ(yp.dims, (std::array<int, 4>{1, 4, 4, 1}));
  EXPECT_EQ(yp.at(0, 0, 0, 0), 4);
  EXPECT_EQ(yp.at(0, 3, 3, 0), 9 - 5);  // (x[2][2] - 5) * 1 - (pad - 5)
}

TEST(Im2Col, PaddingHoldsTheInputZeroPointAndNothingElse) {
  // Input all 42, x_zp = -7: every im2col entry is 42 or -7, and the number of -7 entries is the
  // number of (output pixel, tap) pairs outside the input, counted here independently.
  const int H = 5, W = 4, C = 3, KH = 3, KW = 4;
  Conv2dParams p;
  p.stride_h = 2;
  p.pad_top = 2;
  p.pad_bottom = 1;
  p.pad_left = 1;
  p.pad_right = 3;
  p.input_zero_point = -7;
  const Tensor4<int8_t> x(2, H, W, C, int8_t{42});
  const Matrix<int8_t> cols = Im2Col(x, KH, KW, p);
  const int out_h = (H + 3 - KH) / 2 + 1, out_w = (W + 4 - KW) + 1;
  ASSERT_EQ(cols.rows, 2 * out_h * out_w);
  ASSERT_EQ(cols.cols, KH * KW * C);
  int64_t expected_pad = 0;
  for (int oh = 0; oh < out_h; ++oh) {
    for (int ow = 0; ow < out_w; ++ow) {
      for (int kh = 0; kh < KH; ++kh) {
        for (int kw = 0; kw < KW; ++kw) {
          const int ih = oh * 2 + kh - 2, iw = ow + kw - 1;
          if (ih < 0 || ih >= H || iw < 0 || iw >= W) expected_pad += 2 * C;  // two images
        }
      }
    }
  }
  const int64_t pads = std::count(cols.data.begin(), cols.data.end(), int8_t{-7});
  const int64_t inside = std::count(cols.data.begin(), cols.data.end(), int8_t{42});
  EXPECT_EQ(pads, expected_pad);
  EXPECT_EQ(pads + inside, int64_t(cols.data.size()));
  // Row 0 is output pixel (0, 0): taps (kh, kw) with kh < 2 or kw < 1 are padding.
  for (int kh = 0; kh < KH; ++kh) {
    for (int kw = 0; kw < KW; ++kw) {
      const bool in_pad = kh < 2 || kw < 1;
      EXPECT_EQ(cols.at(0, (kh * KW + kw) * C + 1), in_pad ? -7 : 42) << kh << " " << kw;
    }
  }
}

TEST(Im2Col, ColumnOrderIsKernelRowKernelColumnChannel) {
  // No padding; the input encodes its own coordinates: value = 16 * h + 4 * w + c.
  Tensor4<int8_t> x(1, 3, 3, 2);
  for (int h = 0; h < 3; ++h) {
    for (int w = 0; w < 3; ++w) {
      for (int c = 0; c < 2; ++c) x.at(0, h, w, c) = static_cast<int8_t>(16 * h + 4 * w + c);
    }
  }
  const Matrix<int8_t> cols = Im2Col(x, 2, 2, Conv2dParams{});
  ASSERT_EQ(cols.rows, 4);
  ASSERT_EQ(cols.cols, 8);
  // Row 3 = output (1, 1); column (kh * 2 + kw) * 2 + c reads x[1 + kh][1 + kw][c].
  EXPECT_EQ(cols.data[3 * 8 + 0], 16 + 4);
  EXPECT_EQ(cols.data[3 * 8 + 1], 16 + 4 + 1);
  EXPECT_EQ(cols.data[3 * 8 + 2], 16 + 8);
  EXPECT_EQ(cols.data[3 * 8 + 5], 32 + 4 + 1);
  EXPECT_EQ(cols.data[3 * 8 + 7], 32 + 8 + 1);
}

TEST(Conv2d, PointwiseConvIsTheGemmOfTheFlattenedInput) {
  std::mt19937_64 rng(25);
  const Tensor4<int8_t> x = RandomTensor<int8_t>(2, 4, 3, 7, rng);
  const Tensor4<int8_t> w = RandomTensor<int8_t>(1, 1, 7, 5, rng);
  Conv2dParams p;
  p.input_zero_point = -3;
  p.filter_zero_point = 2;
  const Tensor4<int32_t> y = Conv2d(x, w, {}, p);
  const Matrix<int32_t> g = Gemm(FlattenToMatrix(x), FlattenToMatrix(w), {}, -3, 2);
  EXPECT_EQ(y.data, g.data);
}

TEST(ConvOutputSize, FloorFormulaAndErrors) {
  EXPECT_EQ(ConvOutputSize(7, 3, 1, 0, 0, "h"), 5);
  EXPECT_EQ(ConvOutputSize(7, 3, 2, 1, 1, "h"), 4);  // (7 + 2 - 3) / 2 + 1
  EXPECT_EQ(ConvOutputSize(8, 3, 2, 0, 1, "h"), 4);  // TF SAME, asymmetric: (8 + 1 - 3) / 2 + 1
  EXPECT_EQ(ConvOutputSize(1, 3, 5, 1, 1, "h"), 1);
  EXPECT_EQ(ConvOutputSize(2, 3, 1, 1, 0, "h"), 1);  // kernel equal to the padded input
  EXPECT_THROW(ConvOutputSize(2, 3, 1, 0, 0, "h"), std::invalid_argument);
  EXPECT_THROW(ConvOutputSize(4, 3, 0, 0, 0, "h"), std::invalid_argument);
  EXPECT_THROW(ConvOutputSize(4, 3, 1, -1, 0, "h"), std::invalid_argument);
}

using testing::ExpectInvalidArgument;

TEST(Conv2d, ValidatesShapesAndZeroPoints) {
  const Tensor4<int8_t> x(1, 4, 4, 3);
  const Tensor4<int8_t> w(3, 3, 3, 2);
  ExpectInvalidArgument([&] { Conv2d(x, Tensor4<int8_t>(3, 3, 2, 2), {}, Conv2dParams{}); },
                        "filter.dims[2]");
  ExpectInvalidArgument([&] { Conv2d(x, w, {1, 2, 3}, Conv2dParams{}); }, "bias.size");
  ExpectInvalidArgument([&] { Conv2d(x, Tensor4<int8_t>(5, 3, 3, 2), {}, Conv2dParams{}); },
                        "kernel_h");
  Conv2dParams p;
  p.input_zero_point = 128;  // not an int8 code: the padding could not hold it
  ExpectInvalidArgument([&] { Conv2d(x, w, {}, p); }, "input_zero_point");
  EXPECT_NO_THROW(Conv2d(Tensor4<uint8_t>(1, 4, 4, 3), w, {}, p));
  p.input_zero_point = 0;
  p.filter_zero_point = 256;
  ExpectInvalidArgument([&] { Conv2d(x, w, {}, p); }, "filter_zero_point");
  p.filter_zero_point = 0;
  p.stride_w = 0;
  ExpectInvalidArgument([&] { Conv2d(x, w, {}, p); }, "stride_w");
  p.stride_w = 1;
  p.pad_left = -1;
  ExpectInvalidArgument([&] { Conv2d(x, w, {}, p); }, "pad_left");
  ExpectInvalidArgument([&] { Conv2d(Tensor4<int8_t>(1, 0, 4, 3), w, {}, Conv2dParams{}); },
                        "input.dims[1]");
}

TEST(Conv2d, PerChannelRequantWithRelu6MatchesFloatConvWithin1Lsb) {
  // Real conv in double on dequantized codes, ReLU6, quantized half away from zero; the integer
  // path is Conv2d -> per-channel requant with the ReLU6 clamp. Bound: 1 LSB (multiplier
  // quantization and double rounding).
  std::mt19937_64 rng(26);
  const QuantSpec in{8, false, false, 0.02, 120};
  const QuantSpec out{8, true, false, 6.0 / 200, -100};  // ReLU6 range [0, 6] on codes -100..100
  const int N = 2, H = 9, W = 7, C = 5, KH = 3, KW = 3, CO = 6;
  std::vector<double> filter_scales;
  for (int co = 0; co < CO; ++co) filter_scales.push_back(0.002 * (co + 1));
  const Tensor4<uint8_t> x = RandomTensor<uint8_t>(N, H, W, C, rng);
  const Tensor4<int8_t> w = RandomTensor<int8_t>(KH, KW, C, CO, rng);
  Conv2dParams p;
  p.stride_h = 2;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  p.input_zero_point = in.zero_point;
  const std::vector<int32_t> bias = {100, -200, 300, 0, 50, -5000};

  const Tensor4<int32_t> acc = Conv2d(x, w, bias, p);
  const Matrix<int32_t> y = RequantizePerChannel(
      FlattenToMatrix(acc),
      MakePerChannelRequantParams(in.scale, filter_scales, out, Activation::kRelu6,
                                  RequantRounding::kDoubleRounding));
  const int out_h = acc.dims[1], out_w = acc.dims[2];
  MismatchLog log;
  int64_t max_error = 0, row = 0, clamped_high = 0, clamped_low = 0;
  for (int n = 0; n < N; ++n) {
    for (int oh = 0; oh < out_h; ++oh) {
      for (int ow = 0; ow < out_w; ++ow, ++row) {
        for (int co = 0; co < CO; ++co) {
          double real = bias[co] * in.scale * filter_scales[co];  // bias scale S_x * S_w
          for (int kh = 0; kh < KH; ++kh) {
            for (int kw = 0; kw < KW; ++kw) {
              const int ih = oh * 2 + kh - 1, iw = ow + kw - 1;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                continue;  // zero padding in the real domain
              for (int c = 0; c < C; ++c) {
                real +=
                    Dequantize(x.at(n, ih, iw, c), in) * (w.at(kh, kw, c, co) * filter_scales[co]);
              }
            }
          }
          const double activated = std::min(std::max(real, 0.0), 6.0);
          const int32_t expected = Quantize(activated, out, RoundingMode::kHalfAwayFromZero);
          const int32_t got = y.at(int(row), co);
          clamped_high += got == 100;
          clamped_low += got == -100;
          const int64_t error = std::abs(int64_t{got} - expected);
          max_error = std::max(max_error, error);
          if (error > 1) {
            log.Add(fmt::format("n={} oh={} ow={} co={}: float {} (real {}), got {}", n, oh, ow, co,
                                expected, real, got));
          }
        }
      }
    }
  }
  EXPECT_EQ(log.count, 0) << "first: " << log.first;
  EXPECT_GT(clamped_high, 0);  // both ReLU6 bounds were exercised
  EXPECT_GT(clamped_low, 0);
  std::cout << "conv + per-channel requant + relu6 vs float: max error " << max_error << " LSB\n";
}

}  // namespace
}  // namespace qacc::golden
