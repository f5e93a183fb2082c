// Quantized Pad (seed 002, TPU-MLIR's quantization chapter, "Pad").
//
// Real domain: y = x at the original locations, `value` at the padded ones. With r = S (q - Z):
//   original: q_y = S_x / S_y (q_x - Z_x) + Z_y, which is q_x itself once the calibration gives the
//             output the input's spec (the seed's ForwardCalibration: S_y = S_x, Z_y = Z_x), the
//             case Pad handles; with another output spec, requantize before or after padding;
//   padded:   q_y = round(value / S_y) + Z_y, PadCode (symmetric: Z_y = 0, round(value / S_y)).
// Padding a conv input with real 0 therefore stores the input zero point, PadCode(0, in) = Z_x,
// never the code 0 (see Conv2dParams::input_zero_point in golden/conv.h, which pads the same way).
#ifndef QACC_GOLDEN_PAD_H_
#define QACC_GOLDEN_PAD_H_

#include <cstdint>

#include "golden/conv.h"
#include "golden/quant.h"

namespace qacc::golden {

// clamp(round(value / S) + Z, qmin, qmax): Quantize() with `mode`, by default half away from zero
// (the seed's round(), C's std::round, TPU-MLIR and TFLite). The zero point is added after the
// rounding, so the seed's asymmetric round(value / S_y + Z_y) is the same code. A value beyond the
// range saturates. Throws std::invalid_argument for an invalid spec ("spec.scale") or a value that
// is not finite ("value").
int32_t PadCode(double value, const QuantSpec& spec,
                RoundingMode mode = RoundingMode::kHalfAwayFromZero);

// Rows and columns added on each side of the H and W dimensions of an NHWC tensor, each >= 0.
struct PadAmounts {
  int top = 0, bottom = 0, left = 0, right = 0;
};

// NHWC [N][H][W][C] -> [N][top + H + bottom][left + W + right][C]: the input at
// [n][top + h][left + w][c], `pad_code` everywhere else (any int32; PadCode gives the code of a
// real value). Throws std::invalid_argument for an invalid tensor ("input.dims[0]") or a negative
// or too large amount ("pads.top").
Tensor4<int32_t> Pad(const Tensor4<int32_t>& input, const PadAmounts& pads, int32_t pad_code);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_PAD_H_
