// The operators of `qacc apply` over whole tensors of codes, each with its float reference: for
// every output element, the float operator on the dequantized input, in output codes (f(x) / S_y +
// Z_y), for the error report. Arguments are checked here and refused with UsageError naming the
// option; the tensors come checked from apply_tensor.h.
#ifndef QACC_SIM_CLI_APPLY_OPS_H_
#define QACC_SIM_CLI_APPLY_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "golden/add.h"
#include "golden/elementwise.h"
#include "golden/lut.h"
#include "golden/pad.h"
#include "golden/pool.h"
#include "golden/quant.h"
#include "golden/requant.h"
#include "golden/softmax.h"
#include "golden/tpu_mlir.h"
#include "sim/cli/apply_tensor.h"
#include "sim/cli/spec_options.h"

namespace qacc::cli {

struct ApplyResult {
  std::vector<int64_t> shape;
  std::vector<int64_t> codes;
  std::vector<double> ref;     // the float reference of each code, in output codes (unclamped)
  int64_t qmin = 0, qmax = 0;  // the output codes' range
};

// Requantization of int32 accumulators, per tensor (one parameter) or per channel.
struct RequantSetup {
  std::vector<golden::RequantParams> params;  // one per tensor, or one per channel (TFLite convention)
  std::vector<double> real;                   // the real multiplier each stands for (one per channel)
  golden::QuantSpec out;
  std::string description;
  // --compat tpu-mlir: (multiplier, rshift) per channel, applied as TPU-MLIR's applyMultiplierAndRShift,
  // then + zero point and saturation to the output range; `params` is empty.
  bool tpu_mlir = false;
  std::vector<golden::tpu_mlir::RShiftMultiplier> tpu;
  golden::tpu_mlir::Rounding tpu_rounding = golden::tpu_mlir::Rounding::kHalfUp;
};
RequantSetup MakeRequantSetup(const std::vector<double>& scales,
                              const std::vector<int64_t>& multipliers,
                              const std::vector<int64_t>& shifts, const std::string& rounding,
                              const golden::QuantSpec& out);
// --compat tpu-mlir: `scales` derived as TPU-MLIR's getRShiftAndMultiplierFromQScale with `max_multiplier`,
// or explicit `multipliers` (int32) and `rshifts` (0..63); `rounding` one of TPU-MLIR's modes.
RequantSetup MakeTpuMlirRequantSetup(const std::vector<double>& scales,
                                     const std::vector<int64_t>& multipliers,
                                     const std::vector<int64_t>& rshifts, int64_t max_multiplier,
                                     const std::string& rounding, const golden::QuantSpec& out);
// `axis` (negative: from the end) selects the channel of each element when there are several
// parameters; its dimension must equal their number.
ApplyResult ApplyRequant(const CodeTensor& input, const RequantSetup& setup, int axis);

// The table lookup of every code; the reference is f(x) on the dequantized code, f in double.
ApplyResult ApplyLut(const CodeTensor& input, const golden::Lut& lut, const golden::Elementwise& f);

// The two-table softmax of every row along the last axis (n = its length, as the tables were
// built for); the reference is the float softmax of the dequantized row.
ApplyResult ApplySoftmax(const CodeTensor& input, const golden::SoftmaxTables& tables);

// Elementwise Add of two tensors of one shape; the reference is S_a (q_a - Z_a) + S_b (q_b - Z_b).
ApplyResult ApplyAdd(const CodeTensor& a, const CodeTensor& b, const golden::AddParams& params);

// Average pooling of a 4-D NHWC tensor; the reference is the mean of the window's real values
// (padded taps, when counted, are real 0).
ApplyResult ApplyAvgPool(const CodeTensor& input, const golden::AvgPoolParams& params);

// The largest output of pad: 2^26 codes (a 1x1024x1024x64 activation). Each output code is held
// about five times over (the golden tensor, the codes, the float reference, the .npy values and
// bytes: some 32 bytes), so this bounds the memory at about 2 GB; a larger --pad is a usage error
// naming it, not a std::bad_alloc.
inline constexpr int64_t kMaxPadOutputElements = int64_t{1} << 26;

// Pad of a 4-D NHWC tensor with `value` (real); output spec = input spec. The reference is the
// input code itself, or value / S + Z for a padded element.
ApplyResult ApplyPad(const CodeTensor& input, const golden::QuantSpec& spec,
                     const golden::PadAmounts& pads, double value);

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_APPLY_OPS_H_
