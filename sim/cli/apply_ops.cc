#include "sim/cli/apply_ops.h"

#include <fmt/format.h>

#include <algorithm>
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

ApplyResult ApplyLut(const CodeTensor& input, const golden::Lut& lut, const golden::Elementwise& f) {
  ApplyResult result;
  result.shape = input.shape;
  result.qmin = lut.out().qmin();
  result.qmax = lut.out().qmax();
  result.codes.reserve(input.codes.size());
  result.ref.reserve(input.codes.size());
  for (int64_t q : input.codes) {
    result.codes.push_back(lut.Lookup(q));
    result.ref.push_back(f(golden::Dequantize(q, lut.in())) / lut.out().scale +
                         lut.out().zero_point);
  }
  return result;
}

ApplyResult ApplySoftmax(const CodeTensor& input, const golden::SoftmaxTables& tables) {
  const golden::QuantSpec& in = tables.params.in;
  const golden::QuantSpec& out = tables.params.out;
  const size_t n = static_cast<size_t>(tables.params.n);
  ApplyResult result;
  result.shape = input.shape;
  result.qmin = out.qmin();
  result.qmax = out.qmax();
  result.codes.reserve(input.codes.size());
  result.ref.reserve(input.codes.size());
  std::vector<int32_t> row(n);
  std::vector<double> e(n);
  for (size_t start = 0; start < input.codes.size(); start += n) {
    double x_max = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
      row[i] = static_cast<int32_t>(input.codes[start + i]);
      x_max = std::max(x_max, golden::Dequantize(row[i], in));
    }
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += e[i] = std::exp(golden::Dequantize(row[i], in) - x_max);
    const std::vector<int32_t> y = golden::SoftmaxRow(tables, row);
    for (size_t i = 0; i < n; ++i) {
      result.codes.push_back(y[i]);
      result.ref.push_back(e[i] / sum / out.scale + out.zero_point);
    }
  }
  return result;
}

}  // namespace qacc::cli
