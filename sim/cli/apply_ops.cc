#include "sim/cli/apply_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
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

// The tensor as NHWC, or a UsageError: pooling and padding work on 4-D tensors.
golden::Tensor4<int32_t> ToNhwc(const CodeTensor& input) {
  if (input.shape.size() != 4) {
    throw UsageError(
        fmt::format("input: shape {} is not 4-D (N, H, W, C)", golden::ShapeString(input.shape)));
  }
  for (int64_t d : input.shape) {
    if (d < 1 || d > INT32_MAX) {
      throw UsageError(fmt::format("input: shape {} has an empty or too large dimension",
                                   golden::ShapeString(input.shape)));
    }
  }
  golden::Tensor4<int32_t> t(int(input.shape[0]), int(input.shape[1]), int(input.shape[2]),
                             int(input.shape[3]));
  for (size_t i = 0; i < input.codes.size(); ++i) t.data[i] = static_cast<int32_t>(input.codes[i]);
  return t;
}

std::vector<int64_t> ShapeOf(const golden::Tensor4<int32_t>& t) {
  return {t.dims[0], t.dims[1], t.dims[2], t.dims[3]};
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
  if (scales.empty() && multipliers.empty() && shifts.empty()) {
    throw UsageError(
        "--scale or --multiplier/--shift: required: the real multiplier(s) S_acc / S_y, or their "
        "Q31 multiplier and shift");
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
        throw UsageError(
            fmt::format("--multiplier/--shift: value {} ({}, {}) is out of range: multiplier 0 or "
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

RequantSetup MakeTpuMlirRequantSetup(const std::vector<double>& scales,
                                     const std::vector<int64_t>& multipliers,
                                     const std::vector<int64_t>& rshifts, int64_t max_multiplier,
                                     const std::string& rounding_name, const golden::QuantSpec& out) {
  namespace tpu = golden::tpu_mlir;
  const auto rounding = tpu::ParseRounding(rounding_name);
  if (!rounding) {
    throw UsageError(fmt::format("--tpu-rounding: '{}' is not one of {}", rounding_name,
                                 tpu::RoundingChoices()));
  }
  RequantSetup setup;
  setup.out = out;
  setup.tpu_mlir = true;
  setup.tpu_rounding = *rounding;
  if (scales.empty() && multipliers.empty() && rshifts.empty()) {
    throw UsageError(
        "--scale or --multiplier/--rshift: required: the real multiplier(s) S_acc / S_y, or their "
        "multiplier and right shift");
  }
  if (!scales.empty()) {
    if (!multipliers.empty() || !rshifts.empty()) {
      throw UsageError("--scale and --multiplier/--rshift: give one of them");
    }
    for (double scale : scales) {
      setup.tpu.push_back(tpu::RShiftAndMultiplierFromQScale(scale, max_multiplier));
      setup.real.push_back(scale);
    }
  } else {
    if (multipliers.empty() || multipliers.size() != rshifts.size()) {
      throw UsageError(fmt::format(
          "--multiplier and --rshift: give as many of each ({} and {}), or --scale instead",
          multipliers.size(), rshifts.size()));
    }
    for (size_t c = 0; c < multipliers.size(); ++c) {
      if (multipliers[c] < INT32_MIN || multipliers[c] > INT32_MAX || rshifts[c] < 0 ||
          rshifts[c] > 63) {
        throw UsageError(fmt::format(
            "--multiplier/--rshift: value {} ({}, {}) is out of range: multiplier {}..{}, rshift 0..63",
            c, multipliers[c], rshifts[c], INT32_MIN, INT32_MAX));
      }
      setup.tpu.push_back({multipliers[c], int(rshifts[c]), false});
      setup.real.push_back(std::ldexp(double(multipliers[c]), -int(rshifts[c])));
    }
  }
  setup.description = fmt::format(
      "TPU-MLIR multiplier/rshift, {} rounding, {}, output {}-bit {} zero point {}",
      tpu::RoundingName(*rounding),
      setup.tpu.size() == 1 ? std::string("per tensor")
                            : fmt::format("per channel ({} channels)", setup.tpu.size()),
      out.bits, out.is_signed ? "signed" : "unsigned", out.zero_point);
  return setup;
}

ApplyResult ApplyRequant(const CodeTensor& input, const RequantSetup& setup, int axis) {
  int64_t stride = 1, channels = 1;
  if (setup.real.size() > 1) {
    if (input.shape.empty()) {
      throw UsageError(
          fmt::format("--axis: the input is 0-d (shape ()); per-channel parameters "
                      "need an axis of {} channels",
                      setup.real.size()));
    }
    const size_t a = ResolveAxis(axis, input, "--axis", "the input");
    channels = input.shape[a];
    if (channels != static_cast<int64_t>(setup.real.size())) {
      throw UsageError(
          fmt::format("--axis: axis {} of the input (shape {}) has {} channels, but {} per-channel "
                      "parameters were given",
                      axis, golden::ShapeString(input.shape), channels, setup.real.size()));
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
    if (setup.tpu_mlir) {
      // TPU-MLIR: applyMultiplierAndRShift, + zero point, saturate to the output type.
      const int64_t v = golden::tpu_mlir::ApplyMultiplierAndRShift(
                            acc, setup.tpu[c].multiplier, setup.tpu[c].rshift, setup.tpu_rounding) +
                        setup.out.zero_point;
      result.codes.push_back(std::clamp<int64_t>(v, result.qmin, result.qmax));
    } else {
      result.codes.push_back(golden::RequantizeAccumulator(acc, setup.params[c]));
    }
    result.ref.push_back(double(acc) * setup.real[c] + setup.out.zero_point);
  }
  return result;
}

ApplyResult ApplyAdd(const CodeTensor& a, const CodeTensor& b, const golden::AddParams& params) {
  ApplyResult result;
  result.shape = a.shape;
  result.qmin = params.y.qmin();
  result.qmax = params.y.qmax();
  for (size_t i = 0; i < a.codes.size(); ++i) {
    const auto qa = static_cast<int32_t>(a.codes[i]), qb = static_cast<int32_t>(b.codes[i]);
    result.codes.push_back(golden::Add(qa, qb, params));
    const double real = golden::Dequantize(qa, params.a) + golden::Dequantize(qb, params.b);
    result.ref.push_back(real / params.y.scale + params.y.zero_point);
  }
  return result;
}

ApplyResult ApplyAvgPool(const CodeTensor& input, const golden::AvgPoolParams& params) {
  const golden::Tensor4<int32_t> x = ToNhwc(input);
  golden::Tensor4<int32_t> y;
  try {
    y = golden::AvgPool(x, params);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("avgpool: {}", e.what()));
  }
  const golden::Pool2dGeometry& g = params.geometry;
  ApplyResult result;
  result.shape = ShapeOf(y);
  result.qmin = params.out.qmin();
  result.qmax = params.out.qmax();
  result.codes.assign(y.data.begin(), y.data.end());
  for (int n = 0; n < y.dims[0]; ++n) {
    for (int oh = 0; oh < y.dims[1]; ++oh) {
      for (int ow = 0; ow < y.dims[2]; ++ow) {
        for (int c = 0; c < y.dims[3]; ++c) {
          double sum = 0;
          int taps = 0;
          for (int kh = 0; kh < g.kernel_h; ++kh) {
            for (int kw = 0; kw < g.kernel_w; ++kw) {
              const int h = oh * g.stride_h - g.pad_top + kh, w = ow * g.stride_w - g.pad_left + kw;
              const bool inside = h >= 0 && h < x.dims[1] && w >= 0 && w < x.dims[2];
              if (inside) sum += golden::Dequantize(x.at(n, h, w, c), params.in);
              taps += inside || g.count_include_pad;
            }
          }
          result.ref.push_back(sum / taps / params.out.scale + params.out.zero_point);
        }
      }
    }
  }
  return result;
}

ApplyResult ApplyPad(const CodeTensor& input, const golden::QuantSpec& spec,
                     const golden::PadAmounts& pads, double value) {
  const golden::Tensor4<int32_t> x = ToNhwc(input);
  // Each factor is below 2^33, the product is computed in double: no overflow.
  const double out_h = double(x.dims[1]) + pads.top + pads.bottom;
  const double out_w = double(x.dims[2]) + pads.left + pads.right;
  const double elements = double(x.dims[0]) * out_h * out_w * double(x.dims[3]);
  if (elements > double(kMaxPadOutputElements)) {
    throw UsageError(fmt::format(
        "--pad: {},{},{},{} makes the output of shape ({}, {:.0f}, {:.0f}, {}) {:.0f} codes; at "
        "most {} (2^26) are allowed",
        pads.top, pads.bottom, pads.left, pads.right, x.dims[0], out_h, out_w, x.dims[3], elements,
        kMaxPadOutputElements));
  }
  golden::Tensor4<int32_t> y;
  int32_t code = 0;
  try {
    code = golden::PadCode(value, spec);
    y = golden::Pad(x, pads, code);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("pad: {}", e.what()));
  }
  ApplyResult result;
  result.shape = ShapeOf(y);
  result.qmin = spec.qmin();
  result.qmax = spec.qmax();
  result.codes.assign(y.data.begin(), y.data.end());
  for (int n = 0; n < y.dims[0]; ++n) {
    for (int h = 0; h < y.dims[1]; ++h) {
      for (int w = 0; w < y.dims[2]; ++w) {
        for (int c = 0; c < y.dims[3]; ++c) {
          const int ih = h - pads.top, iw = w - pads.left;
          const bool inside = ih >= 0 && ih < x.dims[1] && iw >= 0 && iw < x.dims[2];
          result.ref.push_back(inside ? double(x.at(n, ih, iw, c))
                                      : value / spec.scale + spec.zero_point);
        }
      }
    }
  }
  return result;
}

ApplyResult ApplyLut(const CodeTensor& input, const golden::Lut& lut,
                     const golden::Elementwise& f) {
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
