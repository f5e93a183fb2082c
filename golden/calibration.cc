#include "golden/calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "golden/kl_tengine.h"
#include "golden/mse_calibration.h"

namespace qacc::golden {

namespace {

constexpr CalibrationMethod kAllMethods[] = {CalibrationMethod::kMinMax, CalibrationMethod::kKl,
                                             CalibrationMethod::kPercentile,
                                             CalibrationMethod::kMse};

bool IsSymmetricOnly(CalibrationMethod method) {
  return method == CalibrationMethod::kKl || method == CalibrationMethod::kMse;
}

// Statistics of the raw samples, after the finiteness check.
struct SampleStats {
  double min = 0.0, max = 0.0, amax = 0.0;
  size_t first_negative = 0;
  bool has_negative = false;
};

SampleStats ScanSamples(const std::vector<double>& samples) {
  if (samples.empty())
    throw std::invalid_argument("no samples: calibration needs at least one value");
  size_t non_finite = 0;
  size_t first_bad = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i]) && non_finite++ == 0) first_bad = i;
  }
  if (non_finite > 0) {
    throw std::invalid_argument(fmt::format(
        "sample {} is {} ({} of {} samples are not finite): calibration needs finite values",
        first_bad, samples[first_bad], non_finite, samples.size()));
  }
  SampleStats stats;
  stats.min = stats.max = samples[0];
  for (size_t i = 0; i < samples.size(); ++i) {
    const double x = samples[i];
    stats.min = std::min(stats.min, x);
    stats.max = std::max(stats.max, x);
    stats.amax = std::max(stats.amax, std::abs(x));
    if (x < 0 && !stats.has_negative) {
      stats.has_negative = true;
      stats.first_negative = i;
    }
  }
  return stats;
}

std::vector<double> Magnitudes(const std::vector<double>& samples) {
  std::vector<double> out(samples.size());
  std::transform(samples.begin(), samples.end(), out.begin(), [](double x) { return std::abs(x); });
  return out;
}

// Runs the symmetric method and returns T; fills the method's diagnostics in `result`.
double SymmetricThreshold(const std::vector<double>& samples, const CalibrationOptions& options,
                          CalibrationResult* result) {
  switch (options.method) {
    case CalibrationMethod::kMinMax:
      return result->amax;
    case CalibrationMethod::kPercentile: {
      const double t = Percentile(Magnitudes(samples), options.percentile);
      if (!(t > 0.0)) {
        throw std::invalid_argument(fmt::format(
            "percentile: the {}th percentile of |x| is 0 (more than {}% of the samples are 0), so "
            "it cannot set a scale; raise the percentile",
            options.percentile, options.percentile));
      }
      return t;
    }
    case CalibrationMethod::kKl: {
      const int levels = static_cast<int>(KlLevels(options.bits, options.is_signed));
      const MagnitudeHistogram hist = options.kl_variant == KlVariant::kTengine
                                          ? BuildTengineHistogram(samples, options.num_bins)
                                          : BuildMagnitudeHistogram(samples, options.num_bins);
      const KlSearch kl =
          KlThresholdFromHistogram(hist.counts, hist.bin_width, levels, options.kl_variant);
      result->zero_count = hist.zero_count;
      result->num_bins = options.num_bins;
      result->bin_width = hist.bin_width;
      result->chosen_bin = kl.bins_kept;
      result->levels = kl.levels;
      result->kl_divergence = kl.kl;
      return kl.threshold;
    }
    case CalibrationMethod::kMse: {
      const MseSearch mse =
          MseThreshold(samples, options.bits, options.is_signed, options.narrow, options.num_bins);
      result->num_bins = options.num_bins;
      result->bin_width = result->amax / options.num_bins;
      result->chosen_bin = mse.candidate;
      result->mse = mse.mse;
      return mse.threshold;
    }
  }
  throw std::invalid_argument("method: unknown calibration method");
}

}  // namespace

std::string_view CalibrationMethodName(CalibrationMethod method) {
  switch (method) {
    case CalibrationMethod::kMinMax:
      return "minmax";
    case CalibrationMethod::kKl:
      return "kl";
    case CalibrationMethod::kPercentile:
      return "percentile";
    case CalibrationMethod::kMse:
      return "mse";
  }
  return "?";
}

std::optional<CalibrationMethod> ParseCalibrationMethod(std::string_view name) {
  for (CalibrationMethod method : kAllMethods) {
    if (CalibrationMethodName(method) == name) return method;
  }
  return std::nullopt;
}

std::string CalibrationMethodChoices() {
  std::string out;
  for (CalibrationMethod method : kAllMethods) {
    if (!out.empty()) out += '|';
    out += CalibrationMethodName(method);
  }
  return out;
}

void ValidateCalibrationOptions(const CalibrationOptions& options) {
  if (options.bits < kMinQuantBits || options.bits > kMaxQuantBits) {
    throw std::invalid_argument(fmt::format("bits: {} is out of range, allowed {}..{}",
                                            options.bits, kMinQuantBits, kMaxQuantBits));
  }
  if (options.narrow && !options.is_signed) {
    throw std::invalid_argument(
        "narrow: narrow range applies to signed types only (qmin = -2^(bits-1) + 1)");
  }
  if (!(options.percentile > 0.0 && options.percentile <= 100.0)) {
    throw std::invalid_argument(
        fmt::format("percentile: {} is out of range, allowed (0, 100]", options.percentile));
  }
  if (options.asymmetric && IsSymmetricOnly(options.method)) {
    throw std::invalid_argument(
        fmt::format("asymmetric: method {} is symmetric only; use minmax or percentile",
                    CalibrationMethodName(options.method)));
  }
  if (options.num_bins < 1 || options.num_bins > kMaxHistogramBins) {
    throw std::invalid_argument(fmt::format("bins: {} is out of range, allowed 1..{}",
                                            options.num_bins, kMaxHistogramBins));
  }
  if (options.method == CalibrationMethod::kKl) {
    const int64_t levels = KlLevels(options.bits, options.is_signed);
    const int64_t need = levels + (options.kl_variant == KlVariant::kTengine ? 1 : 0);
    if (options.num_bins < need) {
      throw std::invalid_argument(fmt::format(
          "bins: {} histogram bins are too few for KL with {} levels ({}-bit {}), need at least {}",
          options.num_bins, levels, options.bits, options.is_signed ? "signed" : "unsigned", need));
    }
  }
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) throw std::invalid_argument("percentile: no values");
  if (!(p >= 0.0 && p <= 100.0)) {
    throw std::invalid_argument(fmt::format("percentile: {} is out of range, allowed [0, 100]", p));
  }
  const double h = static_cast<double>(values.size() - 1) * p / 100.0;
  const auto lo = static_cast<size_t>(std::floor(h));
  const double frac = h - static_cast<double>(lo);
  std::nth_element(values.begin(), values.begin() + lo, values.end());
  const double below = values[lo];
  if (frac == 0.0 || lo + 1 >= values.size()) return below;
  // The next order statistic is the smallest value of the upper part nth_element left behind.
  const double above = *std::min_element(values.begin() + lo + 1, values.end());
  return below + frac * (above - below);
}

CalibrationResult Calibrate(const std::vector<double>& samples, const CalibrationOptions& options) {
  ValidateCalibrationOptions(options);
  const SampleStats stats = ScanSamples(samples);

  CalibrationResult result;
  result.method = options.method;
  result.symmetric = !options.asymmetric;
  result.sample_count = static_cast<int64_t>(samples.size());
  result.data_min = stats.min;
  result.data_max = stats.max;
  result.amax = stats.amax;

  if (options.asymmetric) {
    double lo = stats.min;
    double hi = stats.max;
    if (options.method == CalibrationMethod::kPercentile) {
      lo = Percentile(samples, 100.0 - options.percentile);
      hi = Percentile(samples, options.percentile);
    }
    result.range_min = lo;
    result.range_max = hi;
    result.spec = AsymmetricFromMinMax(lo, hi, options.bits, options.is_signed, options.narrow);
    return result;
  }

  if (!options.is_signed && stats.has_negative) {
    throw std::invalid_argument(fmt::format(
        "sample {} is {}: a symmetric unsigned range [0, T] needs samples >= 0 (negative values "
        "would all clamp to 0); calibrate signed or asymmetric",
        stats.first_negative, samples[stats.first_negative]));
  }
  if (!(stats.amax > 0.0)) {
    throw std::invalid_argument(
        fmt::format("all {} samples are 0: a symmetric range needs max|x| > 0", samples.size()));
  }
  const double threshold = SymmetricThreshold(samples, options, &result);
  result.threshold = threshold;
  result.range_min = options.is_signed ? -threshold : 0.0;
  result.range_max = threshold;
  result.spec = SymmetricFromAmax(threshold, options.bits, options.is_signed, options.narrow);
  return result;
}

}  // namespace qacc::golden
