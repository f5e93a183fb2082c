#include "golden/requant_tensor.h"

#include <fmt/format.h>

#include <stdexcept>

namespace qacc::golden {

RequantParams MakeRequantParams(double real_multiplier, const QuantSpec& output,
                                Activation activation, RequantRounding rounding) {
  const ClampBounds bounds = ActivationClamp(activation, output);
  RequantParams params;
  params.rounding = rounding;
  params.output_zero_point = output.zero_point;
  params.clamp_min = bounds.clamp_min;
  params.clamp_max = bounds.clamp_max;
  try {
    const QuantizedMultiplier qm = QuantizeMultiplier(real_multiplier);
    params.multiplier = qm.multiplier;
    params.shift = qm.shift;
    ValidateRequantParams(params);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(
        fmt::format("real_multiplier: {} is not representable ({})", real_multiplier, e.what()));
  }
  return params;
}

std::vector<RequantParams> MakePerChannelRequantParams(double input_scale,
                                                       const std::vector<double>& filter_scales,
                                                       const QuantSpec& output,
                                                       Activation activation,
                                                       RequantRounding rounding) {
  std::vector<RequantParams> per_channel;
  per_channel.reserve(filter_scales.size());
  for (size_t n = 0; n < filter_scales.size(); ++n) {
    try {
      per_channel.push_back(MakeRequantParams(input_scale * filter_scales[n] / output.scale, output,
                                              activation, rounding));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("filter_scales[{}]: {}", n, e.what()));
    }
  }
  return per_channel;
}

Matrix<int32_t> RequantizePerTensor(const Matrix<int32_t>& acc, const RequantParams& params) {
  ValidateMatrix(acc, "acc");
  ValidateRequantParams(params);
  Matrix<int32_t> out(acc.rows, acc.cols);
  for (size_t i = 0; i < acc.data.size(); ++i) {
    out.data[i] = RequantizeAccumulator(acc.data[i], params);
  }
  return out;
}

Matrix<int32_t> RequantizePerChannel(const Matrix<int32_t>& acc,
                                     const std::vector<RequantParams>& per_column) {
  ValidateMatrix(acc, "acc");
  if (per_column.size() != size_t(acc.cols)) {
    throw std::invalid_argument(
        fmt::format("per_column.size: {} does not match acc.cols {}", per_column.size(), acc.cols));
  }
  for (size_t n = 0; n < per_column.size(); ++n) {
    try {
      ValidateRequantParams(per_column[n]);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("per_column[{}]: {}", n, e.what()));
    }
  }
  Matrix<int32_t> out(acc.rows, acc.cols);
  for (int m = 0; m < acc.rows; ++m) {
    for (int n = 0; n < acc.cols; ++n) {
      out.at(m, n) = RequantizeAccumulator(acc.at(m, n), per_column[n]);
    }
  }
  return out;
}

Matrix<int32_t> ApplyOutputStage(const Matrix<int32_t>& acc, const OutputStage& stage) {
  switch (stage.mode) {
    case OutputMode::kRawAccumulator:
      ValidateMatrix(acc, "acc");
      return acc;
    case OutputMode::kRequantPerTensor:
      if (stage.params.size() != 1) {
        throw std::invalid_argument(
            fmt::format("params.size: {} must be 1 for per-tensor requant", stage.params.size()));
      }
      return RequantizePerTensor(acc, stage.params[0]);
    case OutputMode::kRequantPerChannel:
      if (stage.params.size() != size_t(acc.cols)) {
        throw std::invalid_argument(
            fmt::format("params.size: {} must match acc.cols {} for per-channel requant",
                        stage.params.size(), acc.cols));
      }
      return RequantizePerChannel(acc, stage.params);
  }
  throw std::invalid_argument("mode: unknown OutputMode");
}

}  // namespace qacc::golden
