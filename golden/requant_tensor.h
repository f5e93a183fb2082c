// Requantization of a whole GEMM / conv accumulator matrix: per tensor, per channel, or none.
//
//   y[m][n] = clamp(Z_y + MBQM(acc[m][n], M_n), clamp_min_n, clamp_max_n),  M_n ~= S_x S_w[n] / S_y
//
// Column n is output channel n (gemm.h, conv.h). Per tensor uses one RequantParams for every
// column; per channel uses params[n] for column n (weights quantized per output channel, TPU-MLIR
// "PerAxis": C_out multipliers). Outputs are codes of the output spec in int32 storage.
#ifndef QACC_GOLDEN_REQUANT_TENSOR_H_
#define QACC_GOLDEN_REQUANT_TENSOR_H_

#include <cstdint>
#include <vector>

#include "golden/activation.h"
#include "golden/gemm.h"
#include "golden/quant.h"
#include "golden/requant.h"

namespace qacc::golden {

// RequantParams for the real multiplier S_x S_w / S_y (QuantizeMultiplier), the output zero point
// and the clamp of the fused activation (ActivationClamp, 6 / S rounded half away from zero).
// Throws std::invalid_argument for an invalid output spec or a multiplier whose shift is outside
// -31..30.
RequantParams MakeRequantParams(double real_multiplier, const QuantSpec& output,
                                Activation activation, RequantRounding rounding);

// One RequantParams per output channel n: real multiplier input_scale * filter_scales[n] / S_y.
// Errors name the channel ("filter_scales[3]: ...").
std::vector<RequantParams> MakePerChannelRequantParams(double input_scale,
                                                       const std::vector<double>& filter_scales,
                                                       const QuantSpec& output,
                                                       Activation activation,
                                                       RequantRounding rounding);

// RequantizeAccumulator on every element with the same params. Validates params and acc.
Matrix<int32_t> RequantizePerTensor(const Matrix<int32_t>& acc, const RequantParams& params);

// RequantizeAccumulator(acc[m][n], per_column[n]). Throws std::invalid_argument ("per_column.size")
// when per_column.size() != acc.cols, or naming the first invalid entry ("per_column[3]: ...").
Matrix<int32_t> RequantizePerChannel(const Matrix<int32_t>& acc,
                                     const std::vector<RequantParams>& per_column);

// What the output stage of the array writes back.
enum class OutputMode {
  kRawAccumulator,     // the int32 accumulators unchanged (debug, or a following int32 op)
  kRequantPerTensor,   // params has exactly 1 entry
  kRequantPerChannel,  // params has one entry per column
};

struct OutputStage {
  OutputMode mode = OutputMode::kRawAccumulator;
  std::vector<RequantParams> params;
};

// Dispatches on stage.mode. Throws std::invalid_argument ("params.size") when the parameter count
// does not fit the mode (raw mode ignores params).
Matrix<int32_t> ApplyOutputStage(const Matrix<int32_t>& acc, const OutputStage& stage);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_REQUANT_TENSOR_H_
