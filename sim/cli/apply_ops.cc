#include "sim/cli/apply_ops.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "golden/activation.h"
#include "golden/requant_tensor.h"
#include "sim/cli/common.h"

namespace qacc::cli {

namespace {

// The axis index in 0..rank-1, or a UsageError naming `option`.
size_t ResolveAxis(int axis, const CodeTensor& input, const std::string& option,
                   const std::string& path) {
  const int rank = static_cast<int>(input.shape.size());
  if (axis < -rank || axis >= rank) {
    throw UsageError(fmt::format("{}: {} is outside the axes of {} (shape {}): {}..{}", option,
                                 axis, path, golden::ShapeString(input.shape), -rank, rank - 1));
  }
  return static_cast<size_t>(axis < 0 ? axis + rank : axis);
}

}  // namespace

RequantSetup MakeRequantSetup(const std::vector<double>& scales,
                              const std::vector<int64_t>& multipliers,
                              const std::vector<int64_t>& shifts, const std::string& rounding_name,
                              const golden::QuantSpec& out) {
  const auto rounding = golden::ParseRequantRounding(rounding_name);
  if (!rounding) {
    throw UsageError(fmt::format("--rounding: '{}' is not one of {}", rounding_name,
                                 golden::RequantRoundingChoices()));
  }
  RequantSetup setup;
  setup.out = out;
  if (!scales.empty()) {
    if (!multipliers.empty() || !shifts.empty()) {
      throw UsageError("--scale and --multiplier/--shift: give one of them");
    }
    for (size_t c = 0; c < scales.size(); ++c) {
      try {
        setup.params.push_back(
            golden::MakeRequantParams(scales[c], out, golden::Activation::kNone, *rounding));
      } catch (const std::invalid_argument& e) {
        throw UsageError(fmt::format("--scale: value {} ({}): {}", c, scales[c], e.what()));
      }
      setup.real.push_back(scales[c]);
    }
  } else {
    if (multipliers.empty() || multipliers.size() != shifts.size()) {
      throw UsageError(fmt::format(
          "--multiplier and --shift: give as many of each ({} and {}), or --scale instead",
          multipliers.size(), shifts.size()));
    }
    for (size_t c = 0; c < multipliers.size(); ++c) {
      golden::RequantParams p;
      if (multipliers[c] < INT32_MIN || multipliers[c] > INT32_MAX || shifts[c] < -31 ||
          shifts[c] > 30) {
        throw UsageError(fmt::format(
            "--multiplier/--shift: value {} ({}, {}) is out of range: multiplier 0 or "
            "2^30..2^31-1, shift -31..30",
            c, multipliers[c], shifts[c]));
      }
      p.multiplier = static_cast<int32_t>(multipliers[c]);
      p.shift = static_cast<int>(shifts[c]);
      p.rounding = *rounding;
      p.output_zero_point = out.zero_point;
      p.clamp_min = static_cast<int32_t>(out.qmin());
      p.clamp_max = static_cast<int32_t>(out.qmax());
      try {
        golden::ValidateRequantParams(p);
      } catch (const std::invalid_argument& e) {
        throw UsageError(fmt::format("--multiplier/--shift: value {}: {}", c, e.what()));
      }
      setup.params.push_back(p);
      setup.real.push_back(std::ldexp(double(p.multiplier), p.shift - 31));
    }
  }
  setup.description = fmt::format(
      "{} rounding, {}, output {}-bit {} zero point {}", golden::RequantRoundingName(*rounding),
      setup.params.size() == 1 ? std::string("per tensor")
                               : fmt::format("per channel ({} channels)", setup.params.size()),
      out.bits, out.is_signed ? "signed" : "unsigned", out.zero_point);
  return setup;
}

ApplyResult ApplyRequant(const CodeTensor& input, const RequantSetup& setup, int axis) {
  int64_t stride = 1, channels = 1;
  if (setup.params.size() > 1) {
    if (input.shape.empty()) {
      throw UsageError(fmt::format("--axis: the input is 0-d (shape ()); per-channel parameters "
                                   "need an axis of {} channels",
                                   setup.params.size()));
    }
    const size_t a = ResolveAxis(axis, input, "--axis", "the input");
    channels = input.shape[a];
    if (channels != static_cast<int64_t>(setup.params.size())) {
      throw UsageError(fmt::format(
          "--axis: axis {} of the input (shape {}) has {} channels, but {} per-channel "
          "parameters were given",
          axis, golden::ShapeString(input.shape), channels, setup.params.size()));
    }
    for (size_t d = a + 1; d < input.shape.size(); ++d) stride *= input.shape[d];
  }
  ApplyResult result;
  result.shape = input.shape;
  result.qmin = setup.out.qmin();
  result.qmax = setup.out.qmax();
  result.codes.reserve(input.codes.size());
  result.ref.reserve(input.codes.size());
  for (size_t i = 0; i < input.codes.size(); ++i) {
    const size_t c = channels == 1 ? 0 : size_t((int64_t(i) / stride) % channels);
    const auto acc = static_cast<int32_t>(input.codes[i]);
    result.codes.push_back(golden::RequantizeAccumulator(acc, setup.params[c]));
    result.ref.push_back(double(acc) * setup.real[c] + setup.out.zero_point);
  }
  return result;
}

}  // namespace qacc::cli
