// Activation calibration: from float samples to a QuantSpec (scale, zero point) for a target code
// shape (bits, signed/unsigned, narrow). docs/calibration.md gives every definition and choice.
//
// Methods (symmetric: real range [-T, T], or [0, T] for unsigned, scale = T / qmax, zero point 0;
// asymmetric: range [lo, hi] through AsymmetricFromMinMax):
//   minmax      symmetric T = max |x|; asymmetric [min x, max x].
//   percentile  symmetric T = the P-th percentile of |x|; asymmetric [pct(100 - P), pct(P)] of x.
//               Percentiles interpolate linearly between order statistics (NumPy's default):
//               h = (n - 1) * P / 100, pct = v[floor h] + (h - floor h) * (v[floor h + 1] - v[floor
//               h]).
//   kl          symmetric only: KL-divergence search on a 2048-bin |x| histogram
//   (kl_calibration.h). mse         symmetric only: exact squared-error search over a 2048-point
//   grid (mse_calibration.h).
//
// Input rules: at least one sample; every sample finite (a NaN or infinity throws, naming its
// index: NaNs in activations are an upstream bug that skipping would hide); a symmetric unsigned
// target needs every sample >= 0 (negative values would all clamp to 0; calibrate them with
// --asymmetric); a symmetric range needs max |x| > 0.
#ifndef QACC_GOLDEN_CALIBRATION_H_
#define QACC_GOLDEN_CALIBRATION_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "golden/kl_calibration.h"
#include "golden/quant.h"

namespace qacc::golden {

enum class CalibrationMethod { kMinMax, kKl, kPercentile, kMse };

// "minmax", "kl", "percentile", "mse".
std::string_view CalibrationMethodName(CalibrationMethod method);
std::optional<CalibrationMethod> ParseCalibrationMethod(std::string_view name);
std::string CalibrationMethodChoices();  // "minmax|kl|percentile|mse"

inline constexpr double kDefaultPercentile = 99.99;
// Upper bound of CalibrationOptions::num_bins: the KL search is O(bins^2).
inline constexpr int kMaxHistogramBins = 1 << 16;

struct CalibrationOptions {
  CalibrationMethod method = CalibrationMethod::kMinMax;
  int bits = 8;  // kMinQuantBits..kMaxQuantBits
  bool is_signed = true;
  bool narrow = false;                     // signed only
  bool asymmetric = false;                 // minmax and percentile only
  double percentile = kDefaultPercentile;  // (0, 100], percentile method only
  KlVariant kl_variant = KlVariant::kDefault;
  int num_bins = kDefaultHistogramBins;  // kl histogram bins / mse grid points, >= 1
};

// Throws std::invalid_argument naming the field and its allowed range ("percentile: 0 is out of
// range, allowed (0, 100]"), or the combination that is not supported ("asymmetric: kl is symmetric
// only").
void ValidateCalibrationOptions(const CalibrationOptions& options);

struct CalibrationResult {
  CalibrationMethod method = CalibrationMethod::kMinMax;
  bool symmetric = true;
  // Symmetric: T, the real value mapped to qmax. NaN for asymmetric results.
  double threshold = std::numeric_limits<double>::quiet_NaN();
  // The calibrated real range: [-T, T] (signed) or [0, T] (unsigned) when symmetric; [lo, hi] as
  // measured when asymmetric (AsymmetricFromMinMax then widens it to include 0).
  double range_min = 0.0;
  double range_max = 0.0;
  QuantSpec spec;  // bits, signedness, narrow, scale, zero point

  // Diagnostics.
  int64_t sample_count = 0;
  double data_min = 0.0;
  double data_max = 0.0;
  double amax = 0.0;       // max |x|
  int64_t zero_count = 0;  // kl: exact zeros left out of the histogram
  int num_bins = 0;        // kl: histogram bins; mse: grid points
  double bin_width = std::numeric_limits<double>::quiet_NaN();  // kl: w; mse: grid step
  int chosen_bin = -1;  // kl: bins kept i; mse: grid index c (T = c * step)
  int levels = 0;       // kl: quantized magnitudes compared (qmax + 1)
  double kl_divergence = std::numeric_limits<double>::quiet_NaN();  // kl: KL at the chosen i
  double mse = std::numeric_limits<double>::quiet_NaN();            // mse: mean squared error at T
};

// The `p`-th percentile (0 <= p <= 100) of `values` with linear interpolation (see above). Throws
// std::invalid_argument when values is empty or p is outside [0, 100]. Takes a copy: it reorders.
double Percentile(std::vector<double> values, double p);

// Calibrates `samples` (flattened, any order) with `options`. Throws std::invalid_argument for bad
// options or samples (see the input rules above).
CalibrationResult Calibrate(const std::vector<double>& samples, const CalibrationOptions& options);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_CALIBRATION_H_
