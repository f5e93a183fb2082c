// Tensors of integer codes for `qacc apply`: read from a .npy file of an integer dtype (int8,
// uint8, int16, uint16, int32) in C order, every code checked against the range the operator
// expects, and written back as the smallest dtype that holds the output codes. Errors name the
// file, the element (as a multi-index) and the allowed range.
#ifndef QACC_SIM_CLI_APPLY_TENSOR_H_
#define QACC_SIM_CLI_APPLY_TENSOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "golden/npy.h"

namespace qacc::cli {

struct CodeTensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> codes;  // C order
  golden::NpyDtype dtype = golden::NpyDtype::kInt32;

  int64_t size() const { return static_cast<int64_t>(codes.size()); }
};

// "[2, 0, 5]": the multi-index of flat element `index` of `shape` (C order).
std::string MultiIndex(const std::vector<int64_t>& shape, int64_t index);

// Reads `path` (named by `option` in errors). Throws UsageError for a float dtype, Fortran order,
// or a code outside [lo, hi] (`range` says what the range is, e.g. "the 8-bit signed input codes").
CodeTensor ReadCodes(const std::string& path, const std::string& option, int64_t lo, int64_t hi,
                     const std::string& range);

// The smallest integer dtype holding [lo, hi].
golden::NpyDtype DtypeFor(int64_t lo, int64_t hi);

// The .npy bytes of `codes` with `shape` as DtypeFor(lo, hi).
std::string SerializeCodes(const std::vector<int64_t>& shape, const std::vector<int64_t>& codes,
                           int64_t lo, int64_t hi);

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_APPLY_TENSOR_H_
