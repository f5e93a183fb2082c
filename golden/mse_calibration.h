// MSE calibration of a symmetric range: the threshold T that minimises the total squared error
// sum (x - dq(x))^2 of quantize-then-dequantize over the samples, clipping and rounding together.
//
//   s = T / qmax,  dq(x) = s * clamp(round(x / s), qmin, qmax), rounding half away from zero
//   (a tie is equidistant from both codes, so the rounding rule does not change the error).
//
// Search: an exhaustive grid T_c = c * amax / N, c = 1..N (N = kDefaultHistogramBins by default),
// the smallest T with the minimal error wins. The error of one T is exact, not sampled: the
// magnitudes of each sign are sorted once with prefix sums of w, w*v and w*v^2, and the samples
// rounding to code q (those in [(q - 1/2) s, (q + 1/2) s), the top code taking everything above)
// contribute S2 - 2 q s S1 + q^2 s^2 W. Negative samples clip at |qmin| (128 for int8, 127 when
// narrow), positive ones at qmax. Cost: O(N * occupied codes * log samples).
#ifndef QACC_GOLDEN_MSE_CALIBRATION_H_
#define QACC_GOLDEN_MSE_CALIBRATION_H_

#include <vector>

namespace qacc::golden {

struct MseSearch {
  int candidate = 0;       // c of the chosen T = c * step
  int candidates = 0;      // N
  double threshold = 0.0;  // T
  double mse = 0.0;        // mean squared error per sample (per unit of count) at T
};

// Exact search over samples. Samples must be finite and not all zero; bits/is_signed/narrow
// describe the target code (validated by the caller). Unsigned codes map every negative sample to
// 0.
MseSearch MseThreshold(const std::vector<double>& samples, int bits, bool is_signed, bool narrow,
                       int num_candidates);

// Search over a magnitude histogram (bin k = [k w, (k + 1) w)): each bin's count sits at its centre
// (k + 1/2) w, clipping at qmax; candidates T_c = c * w for c = 1..counts.size(). Throws
// std::invalid_argument for an empty or all-zero histogram, negative or non-finite counts, or a bin
// width that is not positive and finite.
MseSearch MseThresholdFromHistogram(const std::vector<double>& counts, double bin_width, int bits,
                                    bool is_signed);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_MSE_CALIBRATION_H_
