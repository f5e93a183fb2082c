#include "golden/activation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace qacc::golden {

namespace {

constexpr Activation kAllActivations[] = {Activation::kNone, Activation::kRelu, Activation::kRelu6};

// The real value ReLU6 saturates at.
constexpr double kRelu6Max = 6.0;

// One branch of the LeakyReLU: requant of the accumulator q - Z_x by `real_multiplier` onto the
// full output range. `what` names the ratio when QuantizeMultiplier rejects it (shift > 30).
RequantParams BranchParams(double real_multiplier, const QuantSpec& output,
                           RequantRounding rounding, std::string_view what) {
  QuantizedMultiplier qm;
  try {
    qm = QuantizeMultiplier(real_multiplier);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", what, e.what()));
  }
  RequantParams params;
  params.multiplier = qm.multiplier;
  params.shift = qm.shift;
  params.rounding = rounding;
  params.output_zero_point = output.zero_point;
  params.clamp_min = static_cast<int32_t>(output.qmin());
  params.clamp_max = static_cast<int32_t>(output.qmax());
  return params;
}

// 8 bits for the seed's slope multiplier (M_i8 in seed 002).
constexpr int kInt8SlopeBits = 8;

// The shared rshift and the per-channel multipliers of the seed's form; `names[c]` names alpha c.
Int8SlopeParams MakeInt8Slope(const QuantSpec& input, const QuantSpec& output,
                              const std::vector<double>& alphas,
                              const std::vector<std::string>& names) {
  ValidateQuantSpec(input, "input");
  ValidateQuantSpec(output, "output");
  if (output.scale != input.scale) {
    throw std::invalid_argument(fmt::format(
        "output.scale: {} must equal input.scale {} in the 8-bit slope form (its positive side "
        "passes q - Z_x through; use MakeLeakyReluParams for different scales)",
        output.scale, input.scale));
  }
  size_t largest = 0;
  for (size_t c = 0; c < alphas.size(); ++c) {
    if (!std::isfinite(alphas[c])) {
      throw std::invalid_argument(fmt::format("{}: {} must be finite", names[c], alphas[c]));
    }
    if (std::fabs(alphas[c]) > std::fabs(alphas[largest])) largest = c;
  }
  Int8SlopeParams params;
  params.input_zero_point = input.zero_point;
  params.output_zero_point = output.zero_point;
  params.clamp_min = static_cast<int32_t>(output.qmin());
  params.clamp_max = static_cast<int32_t>(output.qmax());
  params.multipliers.assign(alphas.size(), 0);
  const double max_abs = std::fabs(alphas[largest]);
  if (max_abs == 0.0) return params;  // every slope 0: ReLU, M = 0 and rshift 0
  try {
    params.rshift = QuantizeMultiplierRshift(max_abs, kInt8SlopeBits).rshift;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", names[largest], e.what()));
  }
  for (size_t c = 0; c < alphas.size(); ++c) {
    // |alpha_c| <= max |alpha|, so the rounded magnitude is at most the largest's, <= 127.
    params.multipliers[c] = static_cast<int32_t>(
        RoundReal(std::ldexp(alphas[c], params.rshift), RoundingMode::kHalfAwayFromZero));
  }
  return params;
}

void CheckTfliteUint8(const QuantSpec& spec, std::string_view what) {
  ValidateQuantSpec(spec, what);
  if (spec.bits != 8) {
    throw std::invalid_argument(fmt::format(
        "{}.bits: {} must be 8 (TFLite r1.15's LeakyReLU is uint8 only)", what, spec.bits));
  }
  if (spec.is_signed) {
    throw std::invalid_argument(
        fmt::format("{}.is_signed: must be false (TFLite r1.15's LeakyReLU is uint8 only)", what));
  }
}

}  // namespace

std::string_view ActivationName(Activation activation) {
  switch (activation) {
    case Activation::kNone:
      return "none";
    case Activation::kRelu:
      return "relu";
    case Activation::kRelu6:
      return "relu6";
  }
  return "?";
}

std::optional<Activation> ParseActivation(std::string_view name) {
  for (Activation activation : kAllActivations) {
    if (ActivationName(activation) == name) return activation;
  }
  return std::nullopt;
}

ClampBounds ActivationClamp(Activation activation, const QuantSpec& output,
                            RoundingMode six_rounding) {
  ValidateQuantSpec(output, "output");
  ClampBounds bounds{static_cast<int32_t>(output.qmin()), static_cast<int32_t>(output.qmax())};
  if (activation == Activation::kNone) return bounds;
  // Quantized real 0 is Z itself (no rounding); a valid spec has qmin <= Z, so the max is Z.
  bounds.clamp_min = std::max(bounds.clamp_min, output.zero_point);
  if (activation == Activation::kRelu6) {
    // clamp(Z + round(6 / S), qmin, qmax) = min(qmax, Z + round(6 / S)) since round(6 / S) >= 0.
    // QuantizeToRange saturates a tiny scale's 6 / S instead of overflowing an int.
    bounds.clamp_max = static_cast<int32_t>(QuantizeToRange(
        kRelu6Max, output.scale, output.zero_point, output.qmin(), output.qmax(), six_rounding));
  }
  return bounds;
}

LeakyReluParams MakeLeakyReluParams(const QuantSpec& input, const QuantSpec& output, double alpha,
                                    RequantRounding rounding) {
  ValidateQuantSpec(input, "input");
  ValidateQuantSpec(output, "output");
  if (!std::isfinite(alpha)) {
    throw std::invalid_argument(fmt::format("alpha: {} must be finite", alpha));
  }
  const double ratio = input.scale / output.scale;
  LeakyReluParams params;
  params.input_zero_point = input.zero_point;
  params.positive = BranchParams(ratio, output, rounding, "input.scale / output.scale");
  params.negative = BranchParams(std::fabs(alpha) * ratio, output, rounding,
                                 "alpha * input.scale / output.scale");
  params.negate_negative = alpha < 0;
  return params;
}

int32_t LeakyRelu(int32_t q, const LeakyReluParams& params) {
  // q and Z_x are codes of at most 16 bits, so the difference and its negation fit int32.
  const int32_t x = q - params.input_zero_point;
  if (x >= 0) return RequantizeAccumulator(x, params.positive);
  return RequantizeAccumulator(params.negate_negative ? -x : x, params.negative);
}

std::vector<LeakyReluParams> MakePreluParams(const QuantSpec& input, const QuantSpec& output,
                                             const std::vector<double>& alphas,
                                             RequantRounding rounding) {
  if (alphas.empty()) throw std::invalid_argument("alphas.size: 0, need one alpha per channel");
  std::vector<LeakyReluParams> per_channel;
  per_channel.reserve(alphas.size());
  for (size_t c = 0; c < alphas.size(); ++c) {
    try {
      per_channel.push_back(MakeLeakyReluParams(input, output, alphas[c], rounding));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("alphas[{}]: {}", c, e.what()));
    }
  }
  return per_channel;
}

std::vector<int32_t> Prelu(const std::vector<int32_t>& input,
                           const std::vector<LeakyReluParams>& per_channel) {
  if (per_channel.empty()) {
    throw std::invalid_argument("per_channel.size: 0, need one entry per channel");
  }
  const size_t channels = per_channel.size();
  if (input.size() % channels != 0) {
    throw std::invalid_argument(fmt::format(
        "input.size: {} is not a multiple of the channel count {}", input.size(), channels));
  }
  std::vector<int32_t> output(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    output[i] = LeakyRelu(input[i], per_channel[i % channels]);
  }
  return output;
}

// ---- Seed 002's 8-bit slope form -----------------------------------------------------------

Int8SlopeParams MakeInt8SlopeLeakyReluParams(const QuantSpec& input, const QuantSpec& output,
                                             double alpha) {
  return MakeInt8Slope(input, output, {alpha}, {"alpha"});
}

Int8SlopeParams MakeInt8SlopePreluParams(const QuantSpec& input, const QuantSpec& output,
                                         const std::vector<double>& alphas) {
  if (alphas.empty()) throw std::invalid_argument("alphas.size: 0, need one alpha per channel");
  std::vector<std::string> names;
  names.reserve(alphas.size());
  for (size_t c = 0; c < alphas.size(); ++c) names.push_back(fmt::format("alphas[{}]", c));
  return MakeInt8Slope(input, output, alphas, names);
}

// RTL: a subtractor for q - Z_x, the sign selects between an adder (+ Z_y) and an 8-bit multiply
// followed by the rounding shifter; the output clamp is shared.
int32_t Int8SlopeLeakyRelu(int32_t q, const Int8SlopeParams& params, size_t channel) {
  if (channel >= params.multipliers.size()) {
    throw std::invalid_argument(fmt::format("channel: {} is out of range, the params have {}",
                                            channel, params.multipliers.size()));
  }
  const int64_t x = int64_t{q} - params.input_zero_point;
  const int64_t scaled =
      x >= 0 ? x
             : RoundingRightShift(x * params.multipliers[channel], params.rshift, params.rounding);
  return static_cast<int32_t>(
      std::clamp<int64_t>(scaled + params.output_zero_point, params.clamp_min, params.clamp_max));
}

std::vector<int32_t> Int8SlopePrelu(const std::vector<int32_t>& input,
                                    const Int8SlopeParams& params) {
  const size_t channels = params.multipliers.size();
  if (channels == 0) {
    throw std::invalid_argument("input.size: the params have no channel (multipliers is empty)");
  }
  if (input.size() % channels != 0) {
    throw std::invalid_argument(fmt::format(
        "input.size: {} is not a multiple of the channel count {}", input.size(), channels));
  }
  std::vector<int32_t> output(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    output[i] = Int8SlopeLeakyRelu(input[i], params, i % channels);
  }
  return output;
}

// ---- TFLite r1.15 uint8 LeakyReLU ----------------------------------------------------------

TfliteR115LeakyReluParams MakeTfliteR115LeakyReluParams(const QuantSpec& input,
                                                        const QuantSpec& output, double alpha) {
  CheckTfliteUint8(input, "input");
  CheckTfliteUint8(output, "output");
  if (!std::isfinite(alpha)) {
    throw std::invalid_argument(fmt::format("alpha: {} must be finite", alpha));
  }
  // TfLiteLeakyReluParams::alpha and TfLiteQuantizationParams::scale are float, so Prepare's
  // arithmetic is float: zero_point + alpha / scale, std::round(float), clamp, then the
  // multiplier S_1 * S_1 / S_2 evaluated in float and widened to double.
  const auto alpha_f = static_cast<float>(alpha);
  const auto scale_1 = static_cast<float>(input.scale);
  const auto scale_2 = static_cast<float>(output.scale);
  if (!(scale_1 > 0.0f) || !std::isfinite(scale_1) || !(scale_2 > 0.0f) ||
      !std::isfinite(scale_2)) {
    throw std::invalid_argument(fmt::format(
        "output.scale: input.scale {} and output.scale {} must be positive finite float32",
        input.scale, output.scale));
  }
  const float alpha_code = std::round(static_cast<float>(input.zero_point) + (alpha_f / scale_1));
  TfliteR115LeakyReluParams params;
  params.input_offset = input.zero_point;
  params.alpha_offset = input.zero_point;
  params.output_offset = output.zero_point;
  params.q_alpha = static_cast<int32_t>(std::max(0.0f, std::min(255.0f, alpha_code)));
  const float square = scale_1 * scale_1;
  const double real_multiplier = square / scale_2;
  if (!(real_multiplier < 1.0) || !std::isfinite(real_multiplier)) {
    throw std::invalid_argument(
        fmt::format("output.scale: input.scale^2 / output.scale = {} must be < 1 "
                    "(TFLite's QuantizeMultiplierSmallerThanOneExp)",
                    real_multiplier));
  }
  const QuantizedMultiplier qm = QuantizeMultiplier(real_multiplier);
  if (qm.multiplier == 0 || qm.shift > 0) {
    throw std::invalid_argument(fmt::format(
        "output.scale: input.scale^2 / output.scale = {} is out of TFLite's range (2^-32, 1)",
        real_multiplier));
  }
  params.output_multiplier = qm.multiplier;
  params.output_shift = qm.shift;
  return params;
}

int32_t TfliteR115LeakyRelu(int32_t q, const TfliteR115LeakyReluParams& params) {
  if (q < 0 || q > 255) {
    throw std::invalid_argument(fmt::format("q: {} is out of range, allowed 0..255", q));
  }
  const int32_t input_value = q - params.input_offset;
  if (input_value >= 0) return q;
  const int32_t alpha_value = params.q_alpha - params.alpha_offset;
  // MultiplyByQuantizedMultiplierSmallerThanOneExp; |input_value * alpha_value| <= 255^2.
  const int32_t scaled = RoundingDivideByPOT(
      SaturatingRoundingDoublingHighMul(input_value * alpha_value, params.output_multiplier),
      -params.output_shift);
  return std::clamp(params.output_offset + scaled, 0, 255);
}

}  // namespace qacc::golden
