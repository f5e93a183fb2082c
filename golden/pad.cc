#include "golden/pad.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace qacc::golden {

int32_t PadCode(double value, const QuantSpec& spec, RoundingMode mode) {
  ValidateQuantSpec(spec, "spec");
  if (!std::isfinite(value)) {
    throw std::invalid_argument(fmt::format("value: {} must be finite", value));
  }
  return Quantize(value, spec, mode);
}

Tensor4<int32_t> Pad(const Tensor4<int32_t>& input, const PadAmounts& pads, int32_t pad_code) {
  ValidateTensor4(input, "input");
  const std::pair<const char*, int> amounts[] = {{"pads.top", pads.top},
                                                 {"pads.bottom", pads.bottom},
                                                 {"pads.left", pads.left},
                                                 {"pads.right", pads.right}};
  for (const auto& [field, value] : amounts) {
    if (value < 0) throw std::invalid_argument(fmt::format("{}: {} must be >= 0", field, value));
  }
  const int64_t out_h = int64_t{input.dims[1]} + pads.top + pads.bottom;
  const int64_t out_w = int64_t{input.dims[2]} + pads.left + pads.right;
  if (out_h > std::numeric_limits<int>::max() || out_w > std::numeric_limits<int>::max()) {
    throw std::invalid_argument(
        fmt::format("pads.top: the padded size {} x {} does not fit an int", out_h, out_w));
  }
  Tensor4<int32_t> output(input.dims[0], static_cast<int>(out_h), static_cast<int>(out_w),
                          input.dims[3], pad_code);
  for (int n = 0; n < input.dims[0]; ++n) {
    for (int h = 0; h < input.dims[1]; ++h) {
      for (int w = 0; w < input.dims[2]; ++w) {
        for (int c = 0; c < input.dims[3]; ++c) {
          output.at(n, pads.top + h, pads.left + w, c) = input.at(n, h, w, c);
        }
      }
    }
  }
  return output;
}

}  // namespace qacc::golden
