#include "golden/kl_calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "golden/kl_tengine.h"
#include "golden/quant.h"

namespace qacc::golden {

namespace {

constexpr KlVariant kAllKlVariants[] = {KlVariant::kDefault, KlVariant::kTengine};

void CheckHistogram(const std::vector<double>& counts, double bin_width, int levels,
                    KlVariant variant) {
  if (counts.empty()) throw std::invalid_argument("kl: the histogram has no bins");
  if (!(bin_width > 0.0) || !std::isfinite(bin_width)) {
    throw std::invalid_argument(
        fmt::format("kl: bin width {} is not allowed, must be finite and > 0", bin_width));
  }
  for (size_t k = 0; k < counts.size(); ++k) {
    if (!(counts[k] >= 0.0) || !std::isfinite(counts[k])) {
      throw std::invalid_argument(fmt::format(
          "kl: histogram bin {} holds {}, counts must be finite and >= 0", k, counts[k]));
    }
  }
  if (levels < 2) {
    throw std::invalid_argument(fmt::format("kl: {} quantization levels, need at least 2", levels));
  }
  // The default variant's candidates run up to n inclusive; Tengine's stop at n - 1.
  const size_t min_bins = static_cast<size_t>(levels) + (variant == KlVariant::kTengine ? 1 : 0);
  if (counts.size() < min_bins) {
    throw std::invalid_argument(fmt::format(
        "kl: {} histogram bins are too few for {} quantization levels, need at least {} (fewer "
        "bits or more bins)",
        counts.size(), levels, min_bins));
  }
}

// The default variant on a validated histogram; see kl_calibration.h for the definition.
KlSearch DefaultKlSearch(const std::vector<double>& counts, double bin_width, int levels) {
  const int n = static_cast<int>(counts.size());
  // outliers[i] = sum(counts[i..n-1]), kept[i] = sum(counts[0..i-1]); two running sums instead of
  // total - kept so that an empty tail is exactly 0.
  std::vector<double> kept(n + 1, 0.0);
  std::vector<double> outliers(n + 1, 0.0);
  for (int k = 0; k < n; ++k) kept[k + 1] = kept[k] + counts[k];
  for (int k = n - 1; k >= 0; --k) outliers[k] = outliers[k + 1] + counts[k];
  const double total = kept[n];
  if (!(total > 0.0)) throw std::invalid_argument("kl: the histogram is empty (all counts are 0)");

  KlSearch best;
  best.levels = levels;
  best.kl = std::numeric_limits<double>::infinity();
  best.candidates = n - levels + 1;
  for (int i = levels; i <= n; ++i) {
    // Q has no mass when every sample lies beyond bin i - 1: KL(P || Q) is undefined, skip.
    if (!(kept[i] > 0.0)) continue;
    double kl = 0.0;
    for (int64_t group = 0; group < levels; ++group) {
      const int begin = static_cast<int>(group * i / levels);
      const int end = static_cast<int>((group + 1) * i / levels);
      // p of bin k before normalisation: its count, plus the folded outliers in the last kept bin.
      auto p_count = [&](int k) { return counts[k] + (k == i - 1 ? outliers[i] : 0.0); };
      double mass = 0.0;
      int nonempty = 0;
      for (int k = begin; k < end; ++k) {
        mass += counts[k];
        if (p_count(k) > 0.0) ++nonempty;
      }
      const double q_each = nonempty > 0 ? mass / nonempty / kept[i] : 0.0;
      const double q = q_each > 0.0 ? q_each : kKlEmptyBinFloor;
      for (int k = begin; k < end; ++k) {
        const double p = p_count(k) / total;
        if (p > 0.0) kl += p * std::log(p / q);
      }
    }
    if (kl < best.kl) {
      best.kl = kl;
      best.bins_kept = i;
    }
  }
  best.threshold = best.bins_kept * bin_width;
  return best;
}

}  // namespace

std::string_view KlVariantName(KlVariant variant) {
  switch (variant) {
    case KlVariant::kDefault:
      return "default";
    case KlVariant::kTengine:
      return "tengine";
  }
  return "?";
}

std::optional<KlVariant> ParseKlVariant(std::string_view name) {
  for (KlVariant variant : kAllKlVariants) {
    if (KlVariantName(variant) == name) return variant;
  }
  return std::nullopt;
}

std::string KlVariantChoices() {
  std::string out;
  for (KlVariant variant : kAllKlVariants) {
    if (!out.empty()) out += '|';
    out += KlVariantName(variant);
  }
  return out;
}

int64_t KlLevels(int bits, bool is_signed) { return QMax(bits, is_signed) + 1; }

MagnitudeHistogram BuildMagnitudeHistogram(const std::vector<double>& samples, int num_bins) {
  if (num_bins < 1) {
    throw std::invalid_argument(fmt::format("bins: {} is not allowed, must be >= 1", num_bins));
  }
  MagnitudeHistogram hist;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i])) {
      throw std::invalid_argument(
          fmt::format("sample {} is {}, samples must be finite", i, samples[i]));
    }
    hist.amax = std::max(hist.amax, std::abs(samples[i]));
  }
  if (!(hist.amax > 0.0)) {
    throw std::invalid_argument(
        fmt::format("all {} samples are 0: a symmetric range needs max|x| > 0", samples.size()));
  }
  hist.bin_width = hist.amax / num_bins;
  hist.counts.assign(num_bins, 0.0);
  for (double x : samples) {
    if (x == 0.0) {
      ++hist.zero_count;
      continue;
    }
    // floor(|x| / w) is num_bins exactly for |x| = amax (and may round to it just below): clamp.
    const double k = std::floor(std::abs(x) / hist.bin_width);
    hist.counts[static_cast<size_t>(std::min(k, static_cast<double>(num_bins - 1)))] += 1.0;
  }
  return hist;
}

KlSearch KlThresholdFromHistogram(const std::vector<double>& counts, double bin_width, int levels,
                                  KlVariant variant) {
  CheckHistogram(counts, bin_width, levels, variant);
  if (variant == KlVariant::kTengine) return TengineKlSearch(counts, bin_width, levels);
  return DefaultKlSearch(counts, bin_width, levels);
}

KlSearch KlThreshold(const std::vector<double>& samples, int levels, KlVariant variant,
                     int num_bins) {
  if (variant == KlVariant::kTengine) {
    const MagnitudeHistogram hist = BuildTengineHistogram(samples, num_bins);
    return KlThresholdFromHistogram(hist.counts, hist.bin_width, levels, variant);
  }
  const MagnitudeHistogram hist = BuildMagnitudeHistogram(samples, num_bins);
  return KlThresholdFromHistogram(hist.counts, hist.bin_width, levels, variant);
}

}  // namespace qacc::golden
