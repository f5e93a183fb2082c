// Quantized average pooling (seed 002, TPU-MLIR's quantization chapter, "AvgPool").
//
// Real domain: y = (1/k) sum_j x_j over the k taps of a window. With r = S (q - Z):
//   q_y = S_x / (S_y k) * sum_j (q_j - Z_x) + Z_y
//       = Scale * sum_j q_j + Offset,   Scale = S_x / (S_y k),  Offset = Z_y - (S_x / S_y) Z_x.
// The seed writes the last line as "Scale * sum - Offset" with the same Offset: a sign slip (with
// Z_x = 10, Z_y = 0, S_x = S_y, k = 1 it gives q + 10 instead of q - 10); TPU-MLIR's code adds the
// offset (Pool2D inference: sum * scale + offset). Tested in pool_test.cc.
//
// Integer form (what AvgPool computes), one requant-lane pass per output:
//   acc = sum_j q_j + offset_k,        offset_k = -k Z_x, an exact integer
//       = sum_j (q_j - Z_x)
//   q_y = clamp(Z_y + RoundingRightShift(acc * M_k, rshift_k, rounding), qmin_y, qmax_y)
//   M_k / 2^rshift_k ~= S_x / (S_y k)   (QuantizeMultiplierRshift, `multiplier_bits` wide)
// Folding (S_x / S_y) Z_x into the integer k Z_x on the sum side leaves one rounding, the shift.
//
// Windows and padding (NHWC, per channel):
//   OH = (H + pad_top + pad_bottom - kernel_h) / stride_h + 1 (floor), OW likewise;
//   window (oh, ow) covers rows oh * stride_h - pad_top + [0, kernel_h), columns likewise.
//   count_include_pad: padded taps read Z_x (the code of real 0) and k = kernel_h * kernel_w for
//   every window; otherwise padded taps are skipped and k is the number of taps inside the input.
//   Each pad must be smaller than its kernel size, so every window has a tap inside the input.
#ifndef QACC_GOLDEN_POOL_H_
#define QACC_GOLDEN_POOL_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "golden/conv.h"
#include "golden/quant.h"

namespace qacc::golden {

struct Pool2dGeometry {
  int kernel_h = 1, kernel_w = 1;  // >= 1
  int stride_h = 1, stride_w = 1;  // >= 1
  // >= 0 each and smaller than the kernel size of their dimension (pad_top < kernel_h, ...).
  int pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  bool count_include_pad = false;  // see the top of this file
};

// Throws std::invalid_argument naming the field prefixed with `what` ("geometry.pad_top").
void ValidatePool2dGeometry(const Pool2dGeometry& geometry, std::string_view what = "geometry");

// The scale of windows with k counted taps.
struct AvgPoolScale {
  int64_t multiplier = 0;  // M_k >= 0, fits `multiplier_bits` signed bits
  int rshift = 0;          // 0..kMaxRshift; M_k / 2^rshift ~= S_x / (S_y k)
  int32_t offset = 0;      // -k Z_x, added to the window sum before the multiply
};

struct AvgPoolParams {
  Pool2dGeometry geometry;
  QuantSpec in;              // input codes are checked against it; Z_x fills counted padding
  QuantSpec out;             // Z_y is added after the shift; the result is clamped to its range
  int multiplier_bits = 32;  // 8, 16 or 32, as QuantizeMultiplierRshift
  RoundingMode rounding = RoundingMode::kHalfUp;  // of the right shift
  // Full windows, k = kernel_h * kernel_w (every window when count_include_pad).
  int64_t multiplier = 0;
  int rshift = 0;
  int32_t offset = 0;
  // Windows cut by the padding when !count_include_pad: entry k - 1 for k = 1 .. K - 1 counted
  // taps. Empty when count_include_pad or when there is no padding.
  std::vector<AvgPoolScale> partial;
};

// Derives the multipliers (QuantizeMultiplierRshift(S_x / (S_y k), multiplier_bits), rounding half
// away from zero) and offsets. Throws std::invalid_argument naming the field: an invalid spec
// ("in.scale") or geometry ("geometry.stride_h"), multiplier_bits not 8/16/32
// ("multiplier_bits"), a ratio the multiplier cannot hold ("in.scale / out.scale"), or a kernel so
// large that K * (qmax_x - qmin_x) could overflow the int32 window sum ("geometry.kernel_h").
AvgPoolParams MakeAvgPoolParams(const QuantSpec& in, const QuantSpec& out,
                                const Pool2dGeometry& geometry, int multiplier_bits = 32);

// NHWC input [N][H][W][C] -> output [N][OH][OW][C] (formula at the top). Throws
// std::invalid_argument for an invalid tensor ("input.dims[1]"), a kernel larger than the padded
// input ("geometry.kernel_h"), or a code outside `in` ("input.data[i]").
Tensor4<int32_t> AvgPool(const Tensor4<int32_t>& input, const AvgPoolParams& params);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_POOL_H_
