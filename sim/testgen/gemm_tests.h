// Constrained-random GEMM tests (the "gemm" suite of docs/testplan.md): each test is a named
// generator that turns (seed, config) into one legal GemmJob. The co-simulation (`qacc cosim --test
// NAME --seed N`) and the regression runner (`qacc regress`) pick tests by name; the test plan is
// the GemmTests() table.
#ifndef QACC_SIM_TESTGEN_GEMM_TESTS_H_
#define QACC_SIM_TESTGEN_GEMM_TESTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "golden/conv.h"
#include "golden/tpu_mlir.h"
#include "model/arch.h"
#include "model/gemm_job.h"

namespace qacc::sim {

struct GemmTestInfo {
  std::string name;
  std::string description;
};

// The "gemm" suite, in a fixed order (the regression schedule depends on it).
const std::vector<GemmTestInfo>& GemmTests();

// Deterministic: the same (name, seed, config) gives the same job on every platform (own PRNG, no
// std:: distributions). Every job passes arch::ValidateCommand for `config`. Throws
// std::invalid_argument naming the test and listing the valid names when `name` is unknown.
model::GemmJob MakeGemmTest(std::string_view name, uint64_t seed, const arch::ArchConfig& config);

// A random job of exactly this shape (operands, zero points, bias, scales, clamp, rounding, as the
// gemm_random test draws them), every SRAM base 0; legal when the shape fits the SRAMs.
model::GemmJob RandomJobOfShape(uint64_t seed, const arch::ArchConfig& config, int m, int n, int k);

// The TPU-MLIR requant form (requant.md 6.1) on a job whose operands and bias are set: a width, a
// mode and the multipliers and rshifts scaled to its data, per tensor or per channel as the job is.
void DrawTpuMlirForm(uint64_t seed, model::GemmJob& job);

// The job of gemm_tpu_mlir_ties (ties = true) or gemm_tpu_mlir_extremes, with the given mode.
model::GemmJob TpuMlirCornerJob(uint64_t seed, const arch::ArchConfig& config, bool ties,
                                golden::tpu_mlir::Rounding mode);

// The convolution behind the `conv_im2col` test, kept so that tests can check the lowering against
// a direct convolution: input NHWC uint8 codes (zero point params.input_zero_point), filter HWIO
// int8 (zero point params.filter_zero_point), bias per output channel. job.a = Im2Col(input) (M =
// N*OH*OW, K = KH*KW*C_in), job.b = the flattened filter (N = C_out); MakeGemmTest("conv_im2col",
// ...) == job.
struct ConvTestCase {
  golden::Tensor4<uint8_t> input;
  golden::Tensor4<int8_t> filter;
  golden::Conv2dParams params;
  model::GemmJob job;
};
ConvTestCase MakeConvTestCase(uint64_t seed, const arch::ArchConfig& config);

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_GEMM_TESTS_H_
