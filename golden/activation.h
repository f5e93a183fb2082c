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
#ifndef QACC_GOLDEN_ACTIVATION_H_
#define QACC_GOLDEN_ACTIVATION_H_

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

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_ACTIVATION_H_
