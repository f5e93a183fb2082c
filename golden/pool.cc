#include "golden/pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "golden/requant.h"

namespace qacc::golden {

namespace {

AvgPoolScale ScaleForCount(const QuantSpec& in, const QuantSpec& out, int count, int bits) {
  const double real = in.scale / (out.scale * count);
  AvgPoolScale scale;
  try {
    const MultiplierRshift m = QuantizeMultiplierRshift(real, bits);
    scale.multiplier = m.multiplier;
    scale.rshift = m.rshift;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(
        fmt::format("in.scale / out.scale: {} (window of {} taps)", e.what(), count));
  }
  // |k Z_x| <= K * 2^16, bounded by the window-sum check in MakeAvgPoolParams.
  scale.offset = -count * in.zero_point;
  return scale;
}

}  // namespace

void ValidatePool2dGeometry(const Pool2dGeometry& g, std::string_view what) {
  const std::pair<const char*, int> positive[] = {{"kernel_h", g.kernel_h},
                                                  {"kernel_w", g.kernel_w},
                                                  {"stride_h", g.stride_h},
                                                  {"stride_w", g.stride_w}};
  for (const auto& [field, value] : positive) {
    if (value < 1) {
      throw std::invalid_argument(fmt::format("{}.{}: {} must be >= 1", what, field, value));
    }
  }
  const struct {
    const char* field;
    int value;
    const char* kernel_field;
    int kernel;
  } pads[] = {{"pad_top", g.pad_top, "kernel_h", g.kernel_h},
              {"pad_bottom", g.pad_bottom, "kernel_h", g.kernel_h},
              {"pad_left", g.pad_left, "kernel_w", g.kernel_w},
              {"pad_right", g.pad_right, "kernel_w", g.kernel_w}};
  for (const auto& pad : pads) {
    if (pad.value < 0 || pad.value >= pad.kernel) {
      throw std::invalid_argument(
          fmt::format("{}.{}: {} is out of range, allowed 0..{} (below {} {}, so that every "
                      "window has a tap inside the input)",
                      what, pad.field, pad.value, pad.kernel - 1, pad.kernel_field, pad.kernel));
    }
  }
}

AvgPoolParams MakeAvgPoolParams(const QuantSpec& in, const QuantSpec& out,
                                const Pool2dGeometry& geometry, int multiplier_bits) {
  ValidateQuantSpec(in, "in");
  ValidateQuantSpec(out, "out");
  ValidatePool2dGeometry(geometry);
  if (std::find(std::begin(kMultiplierRshiftBits), std::end(kMultiplierRshiftBits),
                multiplier_bits) == std::end(kMultiplierRshiftBits)) {
    throw std::invalid_argument(
        fmt::format("multiplier_bits: {} is not allowed, must be 8, 16 or 32", multiplier_bits));
  }
  // The window sum sum_j q_j and the offset -K Z_x are int32 registers; both are bounded by
  // K * max(|qmin|, |qmax|) and their sum by K * (qmax - qmin).
  const int64_t area = int64_t{geometry.kernel_h} * geometry.kernel_w;
  const int64_t magnitude = std::max({-in.qmin(), in.qmax(), in.levels() - 1});
  if (area * magnitude > std::numeric_limits<int32_t>::max()) {
    throw std::invalid_argument(fmt::format(
        "geometry.kernel_h: a {} x {} window of {}-bit codes can overflow the int32 window sum",
        geometry.kernel_h, geometry.kernel_w, in.bits));
  }
  AvgPoolParams params;
  params.geometry = geometry;
  params.in = in;
  params.out = out;
  params.multiplier_bits = multiplier_bits;
  const int full = static_cast<int>(area);
  const AvgPoolScale full_scale = ScaleForCount(in, out, full, multiplier_bits);
  params.multiplier = full_scale.multiplier;
  params.rshift = full_scale.rshift;
  params.offset = full_scale.offset;
  const bool padded = geometry.pad_top > 0 || geometry.pad_bottom > 0 || geometry.pad_left > 0 ||
                      geometry.pad_right > 0;
  if (padded && !geometry.count_include_pad) {
    params.partial.reserve(full - 1);
    for (int count = 1; count < full; ++count) {
      params.partial.push_back(ScaleForCount(in, out, count, multiplier_bits));
    }
  }
  return params;
}

// The RTL view: a window adder (taps in any order, int32) feeding the requant lane in its
// TPU-MLIR mode: + offset (the lane's bias), multiply, rounding shift, + Z_y, clamp.
Tensor4<int32_t> AvgPool(const Tensor4<int32_t>& input, const AvgPoolParams& params) {
  ValidateTensor4(input, "input");
  ValidatePool2dGeometry(params.geometry);
  const Pool2dGeometry& g = params.geometry;
  for (size_t i = 0; i < input.data.size(); ++i) {
    if (input.data[i] < params.in.qmin() || input.data[i] > params.in.qmax()) {
      throw std::invalid_argument(fmt::format("input.data[{}]: {} is out of range, allowed {}..{}",
                                              i, input.data[i], params.in.qmin(),
                                              params.in.qmax()));
    }
  }
  const int batch = input.dims[0], in_h = input.dims[1], in_w = input.dims[2],
            channels = input.dims[3];
  const int out_h =
      ConvOutputSize(in_h, g.kernel_h, g.stride_h, g.pad_top, g.pad_bottom, "geometry.kernel_h");
  const int out_w =
      ConvOutputSize(in_w, g.kernel_w, g.stride_w, g.pad_left, g.pad_right, "geometry.kernel_w");
  const int full = g.kernel_h * g.kernel_w;
  const AvgPoolScale full_scale{params.multiplier, params.rshift, params.offset};
  Tensor4<int32_t> output(batch, out_h, out_w, channels);
  for (int n = 0; n < batch; ++n) {
    for (int oh = 0; oh < out_h; ++oh) {
      const int h0 = oh * g.stride_h - g.pad_top;
      const int h_lo = std::max(h0, 0), h_hi = std::min(h0 + g.kernel_h, in_h);
      for (int ow = 0; ow < out_w; ++ow) {
        const int w0 = ow * g.stride_w - g.pad_left;
        const int w_lo = std::max(w0, 0), w_hi = std::min(w0 + g.kernel_w, in_w);
        const int inside = (h_hi - h_lo) * (w_hi - w_lo);  // >= 1: pads < kernel
        const int count = g.count_include_pad ? full : inside;
        const AvgPoolScale* scale = &full_scale;
        if (count < full) {
          if (params.partial.size() < static_cast<size_t>(full - 1)) {
            throw std::invalid_argument(
                fmt::format("partial.size: {}, need {} entries for windows cut by the padding",
                            params.partial.size(), full - 1));
          }
          scale = &params.partial[count - 1];
        }
        for (int c = 0; c < channels; ++c) {
          int64_t sum = 0;
          for (int ih = h_lo; ih < h_hi; ++ih) {
            for (int iw = w_lo; iw < w_hi; ++iw) sum += input.at(n, ih, iw, c);
          }
          if (g.count_include_pad) sum += int64_t{full - inside} * params.in.zero_point;
          const int64_t acc = sum + scale->offset;  // = sum_j (q_j - Z_x), |acc| < 2^31
          const int64_t shifted = MultiplyRshift(static_cast<int32_t>(acc), scale->multiplier,
                                                 scale->rshift, params.rounding);
          output.at(n, oh, ow, c) = static_cast<int32_t>(std::clamp<int64_t>(
              shifted + params.out.zero_point, params.out.qmin(), params.out.qmax()));
        }
      }
    }
  }
  return output;
}

}  // namespace qacc::golden
