// Activations in the integer domain: ReLU / ReLU6 fused into the requant clamp, LeakyReLU, PReLU.
//
// Any activation f maps codes through S_y (q_y - Z_y) = f(S_x (q_x - Z_x)).
//  * ReLU and ReLU6 only cut the real range, and the requant stage already clamps to [qmin, qmax],
//    so they cost nothing: narrow the clamp to the codes of [0, inf) or [0, 6] (ActivationClamp).
//  * LeakyReLU / PReLU have a different slope per side of the input zero point, so they need two
//    multipliers and cannot be fused into a single requant:
//      y = clamp(Z_y + MBQM(q - Z_x, M_pos), qmin, qmax)  if q >= Z_x,  M_pos ~= S_x / S_y
//      y = clamp(Z_y + MBQM(q - Z_x, M_neg), qmin, qmax)  if q < Z_x,   M_neg ~= alpha S_x / S_y
//    where MBQM is MultiplyByQuantizedMultiplier with the chosen RequantRounding. Each branch is
//    one RequantizeAccumulator of the accumulator q - Z_x, so the RTL reuses its requant lane.
//  * Two more forms of LeakyReLU / PReLU, further below: seed 002's 8-bit slope multiplier with a
//    shared rshift (Int8Slope*), and TFLite r1.15's uint8 kernel quoted by seed 004 (TfliteR115*).
#ifndef QACC_GOLDEN_ACTIVATION_H_
#define QACC_GOLDEN_ACTIVATION_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "golden/quant.h"
#include "golden/requant.h"

namespace qacc::golden {

enum class Activation {
  kNone,   // clamp to [qmin, qmax] only
  kRelu,   // max(x, 0)
  kRelu6,  // min(max(x, 0), 6)
};
std::string_view ActivationName(Activation activation);  // "none", "relu", "relu6"
std::optional<Activation> ParseActivation(std::string_view name);

struct ClampBounds {
  int32_t clamp_min = 0;
  int32_t clamp_max = 0;
};

// The output codes the fused activation keeps, for the output spec (scale S, zero point Z):
//   none:  [qmin, qmax]
//   relu:  [max(qmin, Z), qmax]                             Z is the code of real 0
//   relu6: [max(qmin, Z), min(qmax, Z + round(6 / S))]      round() under `six_rounding`
// Clamping the requantized value to these bounds equals dequantize -> float activation -> quantize
// with the same rounding, for every code, because the activations are clips of the real line. Since
// qmin <= Z <= qmax and 6 / S > 0, clamp_min <= clamp_max always. Validates `output`
// (ValidateQuantSpec).
ClampBounds ActivationClamp(Activation activation, const QuantSpec& output,
                            RoundingMode six_rounding = RoundingMode::kHalfAwayFromZero);

// LeakyReLU with slope alpha, or one channel of a PReLU.
struct LeakyReluParams {
  int32_t input_zero_point = 0;  // Z_x
  // Identity branch, q - Z_x >= 0: multiplier of S_x / S_y, zero point Z_y, clamp [qmin, qmax].
  RequantParams positive;
  // Alpha branch, q - Z_x < 0: multiplier of |alpha| S_x / S_y, same zero point and clamp.
  RequantParams negative;
  // alpha < 0: the branch feeds -(q - Z_x) > 0 to the non-negative Q31 multiplier. The real
  // product (q - Z_x) * alpha S_x / S_y is unchanged, and so is its rounding.
  bool negate_negative = false;
};

// Derives both multipliers with QuantizeMultiplier. alpha is any finite real (0 gives ReLU,
// negative slopes are allowed, as PReLU learns them). Throws std::invalid_argument naming the field
// for an invalid spec ("input.scale"), a non-finite alpha ("alpha"), or a ratio whose shift would
// exceed 30 ("input.scale / output.scale", "alpha * input.scale / output.scale").
LeakyReluParams MakeLeakyReluParams(const QuantSpec& input, const QuantSpec& output, double alpha,
                                    RequantRounding rounding);

// One output code from one input code q of the input spec (see the formula at the top).
int32_t LeakyRelu(int32_t q, const LeakyReluParams& params);

// PReLU parameters: one LeakyReluParams per channel, channel c using alphas[c] (not empty).
std::vector<LeakyReluParams> MakePreluParams(const QuantSpec& input, const QuantSpec& output,
                                             const std::vector<double>& alphas,
                                             RequantRounding rounding);

// PReLU over a channels-last tensor (NHWC or any layout whose last dimension is the channel):
// element i belongs to channel i % C with C = per_channel.size(). Throws std::invalid_argument
// ("input.size") when the size is not a multiple of C, or when per_channel is empty.
std::vector<int32_t> Prelu(const std::vector<int32_t>& input,
                           const std::vector<LeakyReluParams>& per_channel);

// ---- Seed 002's form: an 8-bit slope multiplier with a shared rshift --------------------------
//
// TPU-MLIR's quantization chapter (seed 002, LeakyReLU and PReLU, step 3) assumes the calibration
// gave the output the input's scale (S_y = S_x, "BackwardCalibration"), so only the slope is left:
//   y = clamp(q - Z_x + Z_y, qmin, qmax)                                             q >= Z_x
//   y = clamp(Z_y + RoundingRightShift((q - Z_x) * M_c, rshift, rounding), qmin, qmax)   q <  Z_x
// M_c is a signed 8-bit multiplier per channel c (one for LeakyReLU) and rshift is shared:
// rshift = QuantizeMultiplierRshift(max_c |alpha_c|, 8).rshift, M_c = round_half_away(alpha_c
// 2^rshift), so |M_c| <= 127 and M_c / 2^rshift ~= alpha_c. The positive side is exact; the
// negative side is off by at most |q - Z_x| |M_c 2^-rshift - alpha_c| + 1/2 (half modes) before
// the clamp. Rounding defaults to half up, TPU-MLIR's applyMultiplierAndRShift default.
struct Int8SlopeParams {
  int32_t input_zero_point = 0;      // Z_x
  int32_t output_zero_point = 0;     // Z_y
  int32_t clamp_min = -128;          // output qmin
  int32_t clamp_max = 127;           // output qmax
  std::vector<int32_t> multipliers;  // M_c in -127..127, one per channel (LeakyReLU: one)
  int rshift = 0;                    // shared by every channel, 0..kMaxRshift
  RoundingMode rounding = RoundingMode::kHalfUp;  // of the negative side's shift
};

// Throws std::invalid_argument naming the field: an invalid spec ("input.scale"), an output scale
// different from the input's ("output.scale": the form has no multiplier for the positive side;
// use MakeLeakyReluParams), a non-finite alpha ("alpha", "alphas[1]") or |alpha| >= 127.5, which
// no 8-bit multiplier holds ("alpha", "alphas[1]").
Int8SlopeParams MakeInt8SlopeLeakyReluParams(const QuantSpec& input, const QuantSpec& output,
                                             double alpha);
// One multiplier per channel, the rshift fitted to the largest |alpha|. alphas must not be empty
// ("alphas.size").
Int8SlopeParams MakeInt8SlopePreluParams(const QuantSpec& input, const QuantSpec& output,
                                         const std::vector<double>& alphas);

// One output code from input code q in `channel` (formula above). Throws std::invalid_argument
// ("channel") when there is no multiplier for the channel.
int32_t Int8SlopeLeakyRelu(int32_t q, const Int8SlopeParams& params, size_t channel = 0);

// Channels-last, as Prelu: element i uses multiplier i % C, C = multipliers.size(). Throws
// std::invalid_argument ("input.size") when the size is not a multiple of C, or C is 0.
std::vector<int32_t> Int8SlopePrelu(const std::vector<int32_t>& input,
                                    const Int8SlopeParams& params);

// ---- TFLite r1.15's uint8 LeakyReLU (quoted by seed 004) ---------------------------------------
//
// kernels/activations.cc LeakyReluPrepare and reference_ops.h QuantizeLeakyRelu of TensorFlow
// r1.15, uint8 only:
//   q_alpha = clamp(round(Z_1 + alpha / S_1), 0, 255)    alpha on the input's grid (float32 math)
//   y = q                                                 q >= Z_1: the input code, unchanged
//   y = clamp(Z_2 + RDivPOT(SRDHM((q - Z_1)(q_alpha - Z_1), M), -shift), 0, 255)      q < Z_1
//   M * 2^(shift - 31) ~= S_1 S_1 / S_2 (QuantizeMultiplierSmallerThanOneExp: < 1, shift <= 0)
// The pass-through is right only when S_2 = S_1 and Z_2 = Z_1; otherwise the correct code is
// round(Z_2 + S_1 / S_2 (q - Z_1)) and the error grows with q - Z_1 (docs/seed002_operators.md
// measures it). The alpha on the input grid has an error up to S_1 / 2: alpha < S_1 / 2 becomes 0.
// TFLite r1.15 also holds alpha_value in a function-local static, so every LeakyReLU of a process
// uses the first one's q_alpha; this model computes each op with its own (the evident intent).
struct TfliteR115LeakyReluParams {
  int32_t input_offset = 0;       // Z_1, subtracted from the input (op_params.input_offset)
  int32_t alpha_offset = 0;       // Z_1 again, subtracted from q_alpha (op_params.alpha_offset)
  int32_t output_offset = 0;      // Z_2 (op_params.output_offset)
  int32_t q_alpha = 0;            // 0..255, see above
  int32_t output_multiplier = 0;  // Q31 of S_1 S_1 / S_2
  int output_shift = 0;           // <= 0
};

// input and output must be 8-bit unsigned, not narrow ("input.bits", "output.is_signed", ...);
// scales are rounded to float32 as TFLite stores them. Throws std::invalid_argument naming the
// field for a non-finite alpha ("alpha") or S_1 S_1 / S_2 outside (2^-32, 1) ("output.scale").
TfliteR115LeakyReluParams MakeTfliteR115LeakyReluParams(const QuantSpec& input,
                                                        const QuantSpec& output, double alpha);

// One output code from uint8 input code q (0..255, else std::invalid_argument "q").
int32_t TfliteR115LeakyRelu(int32_t q, const TfliteR115LeakyReluParams& params);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_ACTIVATION_H_
