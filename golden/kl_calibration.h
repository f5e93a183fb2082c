// KL-divergence (entropy) calibration of a symmetric activation range, TensorRT style.
//
// The magnitudes |x| are binned into a histogram over [0, amax]. For every candidate number of kept
// bins i (a threshold T = i * bin_width), the clipped reference distribution P is compared with Q,
// the distribution the quantizer can represent with `levels` magnitudes, and the i with the
// smallest KL(P || Q) wins. Two variants:
//
// kDefault (this project's definition; every choice is listed in docs/calibration.md):
//   histogram  w = amax / n, index k = min(floor(|x| / w), n - 1); exact zeros are skipped (they
//   are
//              exact under every threshold, so they carry no information about T, and the zero
//              spike of a ReLU output would otherwise dominate bin 0).
//   candidates i = levels, levels + 1, ..., n (i = n, no clipping, is included).
//   P          counts[0..i-1] with the outlier mass sum(counts[i..n-1]) added to bin i-1,
//   normalised. Q          counts[0..i-1] without the outliers, merged into `levels` groups: group
//   j holds bins
//              [floor(j*i/levels), floor((j+1)*i/levels)), an even split whose sizes differ by at
//              most one; each group's mass is spread uniformly over its bins with P > 0;
//              normalised.
//   KL         sum over bins with p > 0 of p * ln(p / q); a bin with p > 0 but q = 0 (the whole
//   last
//              group is empty except for folded outliers) uses q = kKlEmptyBinFloor, a finite
//              penalty p * ln(p / 1e-10) that grows with the clipped mass.
//   choice     the smallest i with the minimal KL (strict <, scanning upwards); T = i * w, the
//   upper
//              edge of the last kept bin.
//
// kTengine (OAID Tengine tools/quantize, the walk-through in shared seed 001), reproduced operation
// by operation in float32: histogram index round(|x| / (amax / (n - 1))) with zeros skipped;
// normalisation over bins 1..n-1 (bin 0 is dropped); candidates i = levels .. n - 1; P's groups use
// fractional bin edges (start = g * i / levels) and are built from the *unclipped* normalised
// histogram; Q spreads each group over its non-empty bins, weighting partial edge bins by their
// fraction; a bin with p > 0 and q = 0 adds 1; neither P nor Q is renormalised; T = (i + 0.5) *
// (amax / n), the centre of bin i.
#ifndef QACC_GOLDEN_KL_CALIBRATION_H_
#define QACC_GOLDEN_KL_CALIBRATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qacc::golden {

enum class KlVariant {
  kDefault,  // this project's TensorRT-style definition (see above)
  kTengine,  // bit-exact reproduction of Tengine's float32 code
};

// "default" and "tengine", for the command line and JSON.
std::string_view KlVariantName(KlVariant variant);
std::optional<KlVariant> ParseKlVariant(std::string_view name);
std::string KlVariantChoices();  // "default|tengine"

// TensorRT's histogram size: 2048 bins, 16 per int8 magnitude level.
inline constexpr int kDefaultHistogramBins = 2048;

// q used for a bin with p > 0 and q = 0 in the default variant: far below the mass 1/N of one
// sample for any realistic sample count, so the penalty p * ln(p / 1e-10) dominates shape errors of
// the same mass but stays finite, and a clipped tail of few samples can still be the better choice.
inline constexpr double kKlEmptyBinFloor = 1e-10;

// Number of non-negative magnitudes a symmetric `bits`-wide code can represent: qmax + 1
// (128 for int8: codes 0..127; 256 for uint8). This is TensorRT's 128 "target bins" for int8.
int64_t KlLevels(int bits, bool is_signed);

// A histogram of |x|: bin k covers [k * bin_width, (k + 1) * bin_width).
struct MagnitudeHistogram {
  std::vector<double> counts;
  double bin_width = 0.0;
  double amax = 0.0;       // max |x| over all samples
  int64_t zero_count = 0;  // exact zeros, not counted in any bin
};

// The default variant's histogram: w = amax / num_bins, k = min(floor(|x| / w), num_bins - 1),
// zeros skipped. Samples must be finite with amax > 0 (throws std::invalid_argument otherwise).
MagnitudeHistogram BuildMagnitudeHistogram(const std::vector<double>& samples, int num_bins);

struct KlSearch {
  int bins_kept = 0;       // i, the chosen candidate
  double threshold = 0.0;  // T, from i as the variant defines
  double kl = 0.0;         // KL(P || Q) at i (for kTengine: the float32 value Tengine computes)
  int levels = 0;
  int candidates = 0;  // number of thresholds compared
};

// KL search on a given histogram: counts[k] is the mass of bin k = [k * bin_width, (k + 1) *
// bin_width). `levels` is the number of quantized magnitudes (KlLevels). Throws
// std::invalid_argument when the histogram is empty, a count is negative or not finite, bin_width
// is not positive, levels < 2, there are fewer bins than levels (kTengine: fewer than levels + 1),
// or there is no mass to compare.
KlSearch KlThresholdFromHistogram(const std::vector<double>& counts, double bin_width, int levels,
                                  KlVariant variant);

// KL search on raw samples: builds the variant's histogram with `num_bins` bins, then searches it.
// Samples must be finite and not all zero.
KlSearch KlThreshold(const std::vector<double>& samples, int levels, KlVariant variant,
                     int num_bins = kDefaultHistogramBins);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_KL_CALIBRATION_H_
