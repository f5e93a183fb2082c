// TensorFlow's own unit-test vectors for QuantizeMultiplier, as a table: qacc's QuantizeMultiplier
// (golden/requant.h) must give TFLite's (multiplier, shift) on every one. Sources (tensorflow/tensorflow):
//   QUT tensorflow/lite/kernels/internal/quantization_util_test.cc (06f91ea8): QuantizeMultiplierSmallerThanOneExp,
//       QuantizeMultiplierGreaterThanOne, QuantizeMultiplierUnderflow
//   MUT tensorflow/core/kernels/uniform_quant_ops/math_utils_test.cc (057091db): QuantizeMultiplierComputesCorrectly,
//       QuantizeMultiplierInvalidArgument
//   KUT tensorflow/lite/kernels/kernel_util_test.cc: per-channel PopulateConvolutionQuantizationParams
// The range-restricted variants (SmallerThanOneExp: 0 < d < 1, shift <= 0; GreaterThanOne: d > 1) compute
// the same pair as QuantizeMultiplier inside their range; their death tests are range checks of those
// variants, listed here with the general function's answer where TFLite's lite QuantizeMultiplier has one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "golden/requant.h"

namespace qacc::golden {
namespace {

struct Vector {
  const char* source;
  double scale;
  int32_t multiplier;
  int shift;
};

const Vector kVectors[] = {
    {"QUT SmallerThanOneExp 0.25", 0.25, 1073741824, -1},
    {"QUT SmallerThanOneExp 0.50 - 5e-9", 0.50 - 5e-9, 2147483627, -1},
    {"QUT SmallerThanOneExp 0.50 - 1e-10 (carry)", 0.50 - 1e-10, 1073741824, 0},
    {"QUT SmallerThanOneExp 0.50", 0.50, 1073741824, 0},
    {"QUT SmallerThanOneExp 0.75", 0.75, 1610612736, 0},
    {"QUT SmallerThanOneExp 1 - 1e-9", 1 - 1e-9, 2147483646, 0},
    // The variant dies (its shift must be <= 0); the general function carries to (2^30, +1).
    {"QUT SmallerThanOneExp 1 - 1e-15 (carry past 1)", 1 - 1e-15, 1073741824, 1},
    {"QUT GreaterThanOne 1 + 1e-11", 1 + 1e-11, 1073741824, 1},
    {"QUT GreaterThanOne 1.25", 1.25, 1342177280, 1},
    {"QUT GreaterThanOne 1.50", 1.50, 1610612736, 1},
    {"QUT GreaterThanOne 1.75", 1.75, 1879048192, 1},
    {"QUT GreaterThanOne 2 - 1e-9", 2 - 1e-9, 2147483647, 1},
    {"QUT GreaterThanOne 2 - 1e-11 (carry)", 2 - 1e-11, 1073741824, 2},
    {"QUT GreaterThanOne 2", 2, 1073741824, 2},
    {"QUT Underflow ldexp(1.0f, -31)", std::ldexp(1.0f, -31), 1073741824, -30},
    {"QUT Underflow ldexp(1.0f, -32)", std::ldexp(1.0f, -32), 1073741824, -31},
    {"QUT Underflow ldexp(0.99f, -32) (flush)", std::ldexp(0.99f, -32), 0, 0},
    {"QUT Underflow ldexp(1.0f, -33) (flush)", std::ldexp(1.0f, -33), 0, 0},
    {"MUT ComputesCorrectly 1.2", 1.2, 1288490189, 1},
    {"MUT ComputesCorrectly 15.5", 15.5, 2080374784, 4},
    {"KUT PerChannel filter 0.25", 0.5 * 0.25 / 0.5, 1073741824, -1},
    {"KUT PerChannel filter 0.125", 0.5 * 0.125 / 0.5, 1073741824, -2},
    {"KUT ZeroValue 2^-33 (flush)", std::ldexp(1.0f, -33), 0, 0},
    // TFLite's lite QuantizeMultiplier returns (0, 0) for 0 (QuantizeMultiplierArray); a dead channel.
    {"QUT QuantizeMultiplierArray 0", 0.0, 0, 0},
};

TEST(TfliteVectors, QuantizeMultiplierGivesTflitesPair) {
  for (const Vector& v : kVectors) {
    const QuantizedMultiplier q = QuantizeMultiplier(v.scale);
    EXPECT_EQ(q.multiplier, v.multiplier) << v.source;
    EXPECT_EQ(q.shift, v.shift) << v.source;
  }
}

// MUT QuantizeMultiplierInvalidArgument: -1, inf and NaN are refused (math_utils refuses 0 too; the lite
// function, which qacc follows, gives (0, 0) for it, above).
TEST(TfliteVectors, InvalidScalesAreRefusedNamingTheScale) {
  for (double bad : {-1.0, std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN()}) {
    try {
      QuantizeMultiplier(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("scale:", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace qacc::golden
