// Conv2d lowered to the MAC array's GEMM through im2col.
//
// Layouts (all row-major, last index fastest):
//   input   [N][H][W][C_in]        NHWC, int8 or uint8 codes
//   filter  [KH][KW][C_in][C_out]  HWIO: flattened, already the K x N GEMM operand B with
//                                  K = KH * KW * C_in, so weights stream to the array untransposed
//   output  [N][OH][OW][C_out]     NHWC int32 accumulators: flattened, the (N*OH*OW) x C_out GEMM
//                                  result, so per-channel requant applies per column
//   OH = (H + pad_top + pad_bottom - KH) / stride_h + 1, OW likewise (floor division).
//
//   out[n][oh][ow][co] = bias[co] + sum_{kh,kw,ci} (x[n][ih][iw][ci] - x_zp) * (w[kh][kw][ci][co]
//                        - w_zp)   (mod 2^32),  ih = oh*stride_h - pad_top + kh,  iw likewise
// where taps outside the input read x_zp, the code of real 0 (TPU-MLIR: asymmetric padding stores
// Zx, not 0), so they contribute (x_zp - x_zp) * (w - w_zp) = 0 exactly as a zero-padded real conv.
#ifndef QACC_GOLDEN_CONV_H_
#define QACC_GOLDEN_CONV_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "golden/gemm.h"

namespace qacc::golden {

// A dense row-major 4-D array; the meaning of each dimension is the caller's (see the layouts
// above).
template <typename T>
struct Tensor4 {
  std::array<int, 4> dims = {0, 0, 0, 0};
  std::vector<T> data;

  Tensor4() = default;
  Tensor4(int d0, int d1, int d2, int d3, T fill = T{})
      : dims{d0, d1, d2, d3}, data(NumElements(dims), fill) {}

  T& at(int i0, int i1, int i2, int i3) { return data[Index(i0, i1, i2, i3)]; }
  const T& at(int i0, int i1, int i2, int i3) const { return data[Index(i0, i1, i2, i3)]; }

  static size_t NumElements(const std::array<int, 4>& d) {
    size_t n = 1;
    for (int v : d) n *= v > 0 ? size_t(v) : 0;
    return n;
  }

 private:
  size_t Index(int i0, int i1, int i2, int i3) const {
    return ((size_t(i0) * size_t(dims[1]) + size_t(i1)) * size_t(dims[2]) + size_t(i2)) *
               size_t(dims[3]) +
           size_t(i3);
  }
};

// Throws std::invalid_argument naming `what` when a dimension is < 1 or data.size() is not their
// product.
template <typename T>
void ValidateTensor4(const Tensor4<T>& tensor, std::string_view what);

// The last dimension becomes the columns: [d0][d1][d2][d3] -> (d0*d1*d2) x d3, same data order.
// Turns an HWIO filter into GEMM operand B and an NHWC output back into the GEMM result, without
// reordering.
template <typename T>
Matrix<T> FlattenToMatrix(Tensor4<T> tensor);

struct Conv2dParams {
  int stride_h = 1;  // >= 1
  int stride_w = 1;  // >= 1
  int pad_top = 0;   // >= 0 each; asymmetric padding (TF "SAME" with an even kernel) is allowed
  int pad_bottom = 0;
  int pad_left = 0;
  int pad_right = 0;
  int32_t input_zero_point = 0;   // fills the padding, so it must be a code of the input type
  int32_t filter_zero_point = 0;  // -128..255 (kMinOperandZeroPoint..kMaxOperandZeroPoint)
};

// (in + pad_before + pad_after - kernel) / stride + 1. Throws std::invalid_argument prefixed with
// `what` (the kernel's field, "kernel_h") when the kernel is larger than the padded input or an
// argument is out of range (in, kernel, stride >= 1, pads >= 0).
int ConvOutputSize(int in, int kernel, int stride, int pad_before, int pad_after,
                   std::string_view what);

// im2col: row r = (n * OH + oh) * OW + ow, column k = (kh * KW + kw) * C_in + ci holds
// input[n][oh*stride_h - pad_top + kh][ow*stride_w - pad_left + kw][ci], or input_zero_point for a
// tap in the padding. Shape (N*OH*OW) x (KH*KW*C_in). Throws std::invalid_argument naming the field
// ("stride_h", "pad_left", "kernel_h" when the kernel exceeds the padded input, "input_zero_point",
// "input.dims[1]").
template <typename T>
Matrix<T> Im2Col(const Tensor4<T>& input, int kernel_h, int kernel_w, const Conv2dParams& params);

// Conv2d accumulators: Gemm(Im2Col(input), FlattenToMatrix(filter), bias, zero points), reshaped to
// [N][OH][OW][C_out]. `bias` is empty or has C_out entries. Throws std::invalid_argument naming the
// field: "filter.dims[2]" when C_in differs, "input_zero_point" when it is not a code of TI, ...
template <typename TI, typename TW>
Tensor4<int32_t> Conv2d(const Tensor4<TI>& input, const Tensor4<TW>& filter,
                        const std::vector<int32_t>& bias, const Conv2dParams& params);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_CONV_H_
