#include "golden/conv.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>
#include <utility>

namespace qacc::golden {

template <typename T>
void ValidateTensor4(const Tensor4<T>& tensor, std::string_view what) {
  for (int i = 0; i < 4; ++i) {
    if (tensor.dims[i] < 1) {
      throw std::invalid_argument(
          fmt::format("{}.dims[{}]: {} must be >= 1", what, i, tensor.dims[i]));
    }
  }
  const size_t expected = Tensor4<T>::NumElements(tensor.dims);
  if (tensor.data.size() != expected) {
    throw std::invalid_argument(
        fmt::format("{}.data.size: {} does not match the product of dims {}", what,
                    tensor.data.size(), expected));
  }
}

template <typename T>
Matrix<T> FlattenToMatrix(Tensor4<T> tensor) {
  Matrix<T> matrix;
  matrix.rows = tensor.dims[0] * tensor.dims[1] * tensor.dims[2];
  matrix.cols = tensor.dims[3];
  matrix.data = std::move(tensor.data);
  return matrix;
}

int ConvOutputSize(int in, int kernel, int stride, int pad_before, int pad_after,
                   std::string_view what) {
  if (in < 1 || kernel < 1) {
    throw std::invalid_argument(
        fmt::format("{}: input {} and kernel {} must be >= 1", what, in, kernel));
  }
  if (stride < 1)
    throw std::invalid_argument(fmt::format("{}: stride {} must be >= 1", what, stride));
  if (pad_before < 0 || pad_after < 0) {
    throw std::invalid_argument(
        fmt::format("{}: padding {}, {} must be >= 0", what, pad_before, pad_after));
  }
  const int64_t padded = int64_t{in} + pad_before + pad_after;
  if (kernel > padded) {
    throw std::invalid_argument(
        fmt::format("{}: kernel {} is larger than the padded input {}", what, kernel, padded));
  }
  return static_cast<int>((padded - kernel) / stride + 1);
}

namespace {

// The im2col geometry, validated once.
struct ConvGeometry {
  int batch, in_h, in_w, in_c, kernel_h, kernel_w, out_h, out_w;
};

template <typename T>
ConvGeometry MakeGeometry(const Tensor4<T>& input, int kernel_h, int kernel_w,
                          const Conv2dParams& params) {
  ValidateTensor4(input, "input");
  constexpr int32_t kMin = std::numeric_limits<T>::min();
  constexpr int32_t kMax = std::numeric_limits<T>::max();
  if (params.input_zero_point < kMin || params.input_zero_point > kMax) {
    throw std::invalid_argument(
        fmt::format("input_zero_point: {} is out of range, allowed {}..{} (the padding stores it "
                    "as an input code)",
                    params.input_zero_point, kMin, kMax));
  }
  const std::pair<const char*, int> positive[] = {{"stride_h", params.stride_h},
                                                  {"stride_w", params.stride_w}};
  for (const auto& [field, value] : positive) {
    if (value < 1) throw std::invalid_argument(fmt::format("{}: {} must be >= 1", field, value));
  }
  const std::pair<const char*, int> non_negative[] = {{"pad_top", params.pad_top},
                                                      {"pad_bottom", params.pad_bottom},
                                                      {"pad_left", params.pad_left},
                                                      {"pad_right", params.pad_right}};
  for (const auto& [field, value] : non_negative) {
    if (value < 0) throw std::invalid_argument(fmt::format("{}: {} must be >= 0", field, value));
  }
  ConvGeometry g{};
  g.batch = input.dims[0];
  g.in_h = input.dims[1];
  g.in_w = input.dims[2];
  g.in_c = input.dims[3];
  g.kernel_h = kernel_h;
  g.kernel_w = kernel_w;
  g.out_h = ConvOutputSize(g.in_h, kernel_h, params.stride_h, params.pad_top, params.pad_bottom,
                           "kernel_h");
  g.out_w = ConvOutputSize(g.in_w, kernel_w, params.stride_w, params.pad_left, params.pad_right,
                           "kernel_w");
  // The im2col matrix must be addressable with int rows and columns.
  const int64_t rows = int64_t{g.batch} * g.out_h * g.out_w;
  const int64_t cols = int64_t{kernel_h} * kernel_w * g.in_c;
  if (rows > std::numeric_limits<int>::max() || cols > std::numeric_limits<int>::max()) {
    throw std::invalid_argument(
        fmt::format("input.dims: im2col matrix {} x {} is too large", rows, cols));
  }
  return g;
}

template <typename T>
Matrix<T> Im2ColChecked(const Tensor4<T>& input, const ConvGeometry& g,
                        const Conv2dParams& params) {
  const T pad = static_cast<T>(params.input_zero_point);  // in range: checked by MakeGeometry
  Matrix<T> cols(g.batch * g.out_h * g.out_w, g.kernel_h * g.kernel_w * g.in_c, pad);
  for (int n = 0; n < g.batch; ++n) {
    for (int oh = 0; oh < g.out_h; ++oh) {
      for (int ow = 0; ow < g.out_w; ++ow) {
        const int row = (n * g.out_h + oh) * g.out_w + ow;
        for (int kh = 0; kh < g.kernel_h; ++kh) {
          const int ih = oh * params.stride_h - params.pad_top + kh;
          if (ih < 0 || ih >= g.in_h) continue;  // the whole kernel row is padding: stays `pad`
          for (int kw = 0; kw < g.kernel_w; ++kw) {
            const int iw = ow * params.stride_w - params.pad_left + kw;
            if (iw < 0 || iw >= g.in_w) continue;
            for (int ci = 0; ci < g.in_c; ++ci) {
              cols.at(row, (kh * g.kernel_w + kw) * g.in_c + ci) = input.at(n, ih, iw, ci);
            }
          }
        }
      }
    }
  }
  return cols;
}

}  // namespace

template <typename T>
Matrix<T> Im2Col(const Tensor4<T>& input, int kernel_h, int kernel_w, const Conv2dParams& params) {
  return Im2ColChecked(input, MakeGeometry(input, kernel_h, kernel_w, params), params);
}

template <typename TI, typename TW>
Tensor4<int32_t> Conv2d(const Tensor4<TI>& input, const Tensor4<TW>& filter,
                        const std::vector<int32_t>& bias, const Conv2dParams& params) {
  ValidateTensor4(filter, "filter");
  const ConvGeometry g = MakeGeometry(input, filter.dims[0], filter.dims[1], params);
  if (filter.dims[2] != g.in_c) {
    throw std::invalid_argument(fmt::format(
        "filter.dims[2]: C_in {} does not match input.dims[3] {}", filter.dims[2], g.in_c));
  }
  if (params.filter_zero_point < kMinOperandZeroPoint ||
      params.filter_zero_point > kMaxOperandZeroPoint) {
    throw std::invalid_argument(fmt::format("filter_zero_point: {} is out of range, allowed {}..{}",
                                            params.filter_zero_point, kMinOperandZeroPoint,
                                            kMaxOperandZeroPoint));
  }
  if (!bias.empty() && bias.size() != size_t(filter.dims[3])) {
    throw std::invalid_argument(
        fmt::format("bias.size: {} must be 0 (no bias) or C_out {}", bias.size(), filter.dims[3]));
  }
  Matrix<int32_t> acc = Gemm(Im2ColChecked(input, g, params), FlattenToMatrix(filter), bias,
                             params.input_zero_point, params.filter_zero_point);
  Tensor4<int32_t> out;
  out.dims = {g.batch, g.out_h, g.out_w, filter.dims[3]};
  out.data = std::move(acc.data);
  return out;
}

template void ValidateTensor4(const Tensor4<int8_t>&, std::string_view);
template void ValidateTensor4(const Tensor4<uint8_t>&, std::string_view);
template void ValidateTensor4(const Tensor4<int32_t>&, std::string_view);
template Matrix<int8_t> FlattenToMatrix(Tensor4<int8_t>);
template Matrix<uint8_t> FlattenToMatrix(Tensor4<uint8_t>);
template Matrix<int32_t> FlattenToMatrix(Tensor4<int32_t>);
template Matrix<int8_t> Im2Col(const Tensor4<int8_t>&, int, int, const Conv2dParams&);
template Matrix<uint8_t> Im2Col(const Tensor4<uint8_t>&, int, int, const Conv2dParams&);
template Tensor4<int32_t> Conv2d(const Tensor4<int8_t>&, const Tensor4<int8_t>&,
                                 const std::vector<int32_t>&, const Conv2dParams&);
template Tensor4<int32_t> Conv2d(const Tensor4<int8_t>&, const Tensor4<uint8_t>&,
                                 const std::vector<int32_t>&, const Conv2dParams&);
template Tensor4<int32_t> Conv2d(const Tensor4<uint8_t>&, const Tensor4<int8_t>&,
                                 const std::vector<int32_t>&, const Conv2dParams&);
template Tensor4<int32_t> Conv2d(const Tensor4<uint8_t>&, const Tensor4<uint8_t>&,
                                 const std::vector<int32_t>&, const Conv2dParams&);

}  // namespace qacc::golden
