// The MAC array's arithmetic (docs/architecture.md 5.1) as one fast kernel over int16 factors, for
// the model's tile and whole-command paths (panel_gemm.h). The zero points are already subtracted:
// a factor is a' - a_zp or b' - b_zp, in -383..383.
#ifndef QACC_MODEL_INT16_GEMM_H_
#define QACC_MODEL_INT16_GEMM_H_

#include <cstddef>
#include <cstdint>

namespace qacc::model {

// c[i * ldc + j] = sum_{k < depth} a[i * depth + k] * bt[j * depth + k]   mod 2^32
// for i < rows, j < cols. `a` is rows x depth row-major; `bt` is B transposed, cols x depth: the
// factors of output column j are contiguous, so every output is a dot product of two contiguous
// rows, a loop the compiler vectorises (pmaddwd on x86). Any int16 factors are allowed (one
// product is at most 2^30 in magnitude and fits int32); the sums wrap like the RTL's 32-bit adder,
// computed in uint32 (no signed overflow). depth may be 0 (all sums 0).
void GemmInt16Wrapping(const int16_t* a, const int16_t* bt, int rows, int cols, int depth,
                       int32_t* c, size_t ldc);

}  // namespace qacc::model

#endif  // QACC_MODEL_INT16_GEMM_H_
