// Test-only piece of the float32 emulations of seed 000's original Python classes
// (seed_compat_lut_test.cc, seed_compat_softmax_test.cc): utils.QuantConfig's integer range and the
// dtype its codes are stored in. Written from the Python, independent of golden/.
#ifndef QACC_TESTS_UNIT_SEED_EMULATION_H_
#define QACC_TESTS_UNIT_SEED_EMULATION_H_

#include <cstdint>

namespace qacc::testing {

// utils.QuantConfig's range, as plain integers: narrow applies to signed ranges only.
struct PyQuantConfig {
  int bit;
  bool narrow;
  bool unsign;
  int64_t quant_min() const {
    if (unsign) return 0;
    return narrow ? -(int64_t{1} << (bit - 1)) + 1 : -(int64_t{1} << (bit - 1));
  }
  int64_t quant_max() const {
    return unsign ? (int64_t{1} << bit) - 1 : (int64_t{1} << (bit - 1)) - 1;
  }
  // The torch integer dtype the codes are stored in.
  int dtype_bits() const { return bit <= 8 ? 8 : bit <= 16 ? 16 : bit <= 32 ? 32 : 64; }
};

}  // namespace qacc::testing

#endif  // QACC_TESTS_UNIT_SEED_EMULATION_H_
