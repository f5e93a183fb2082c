// The oracle of compiled programs: a network computed directly on whole matrices (golden::Gemm,
// RequantizeAccumulator per element, int8 codes between layers), with no tiling, no SRAMs and no
// descriptors; and random layer values for checks and estimates.
#ifndef QACC_COMPILER_REFERENCE_H_
#define QACC_COMPILER_REFERENCE_H_

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "compiler/ext_image.h"
#include "compiler/network.h"

namespace qacc::compiler {

// The last layer's M x N output (row-major) for input `x` (M x K codes): int32 accumulators with
// out_int32, else the codes read back as ReadOutput does.
std::vector<int32_t> ReferenceOutput(const Network& network, const std::vector<uint8_t>& x,
                                     const std::vector<LayerData>& data);

// Random input codes and layer values from `seed`: weights and inputs uniform over all bytes, bias
// in -10000..10000, per-channel multipliers in 2^30..2^31-1 with shifts -14..-6.
struct RandomValues {
  std::vector<uint8_t> x;
  std::vector<LayerData> layers;
};
RandomValues MakeRandomValues(const Network& network, uint64_t seed);

// A random layer of the given shape for tests: legal, non-degenerate quantization (zero points,
// bias, per-channel, rounding, ReLU clamps drawn from `rng`); int32 output only when `last`.
GemmLayer RandomLayer(std::mt19937& rng, const std::string& name, int m, int n, int k, bool last);

// A legal random residual on `layer`, adding the output of `from` (an earlier layer of the same
// M x N with int8 output), drawn by `pick(lo, hi)` (inclusive): tflite, or seed-symmetric where
// `from`'s output zero point is 0 (then `layer`'s own is made 0 too); scales that keep the sums
// neither all 0 nor all saturated; a table after the add on a third of them. A uint8 requant code's
// zero point below 0 (a ReLU layer's zp_out, legal for the requant) is raised to 0 in either layer:
// the add reads it as a uint8 code.
void RandomResidual(const std::function<int(int, int)>& pick, GemmLayer& from, GemmLayer& layer);

}  // namespace qacc::compiler

#endif  // QACC_COMPILER_REFERENCE_H_
