#include "golden/activation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

}  // namespace qacc::golden
