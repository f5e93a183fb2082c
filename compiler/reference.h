// The oracle of compiled programs: a network computed directly on whole matrices (golden::Gemm,
// RequantizeAccumulator per element, int8 codes between layers), with no tiling, no SRAMs and no
// descriptors; and random layer values for checks and estimates.
#ifndef QACC_COMPILER_REFERENCE_H_
#define QACC_COMPILER_REFERENCE_H_

#include <cstdint>
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

}  // namespace qacc::compiler

#endif  // QACC_COMPILER_REFERENCE_H_
