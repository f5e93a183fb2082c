#include "golden/kl_tengine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>

namespace qacc::golden {

namespace {

// Tengine's normalize_histogram: the sum and the quotients skip bin 0, which stays 0.
std::vector<float> NormalizeFromBinOne(const std::vector<double>& counts) {
  float sum = 0.0f;
  for (size_t k = 1; k < counts.size(); ++k) sum += static_cast<float>(counts[k]);
  if (!(sum > 0.0f)) {
    throw std::invalid_argument(
        "kl (tengine): the histogram has no mass outside bin 0, which Tengine's normalisation "
        "drops");
  }
  std::vector<float> out(counts.size(), 0.0f);
  for (size_t k = 1; k < counts.size(); ++k) out[k] = static_cast<float>(counts[k]) / sum;
  return out;
}

// One group's bin span with Tengine's fractional edges: start = g * i / levels, end = start + i /
// levels. Bin left - 1 is partly inside (weight left_scale) when start is not an integer, bin right
// partly (weight right_scale) when end is not; bins left..right-1 are wholly inside.
struct GroupSpan {
  float start, end;
  int left, right;
  bool has_left, has_right;
  float left_scale, right_scale;
};

GroupSpan SpanOfGroup(int group, float group_width) {
  GroupSpan s;
  s.start = static_cast<float>(group) * group_width;
  s.end = s.start + group_width;
  s.left = static_cast<int>(std::ceil(s.start));
  s.has_left = static_cast<float>(s.left) > s.start;
  s.left_scale = s.has_left ? static_cast<float>(s.left) - s.start : 0.0f;
  s.right = static_cast<int>(std::floor(s.end));
  s.has_right = static_cast<float>(s.right) < s.end;
  s.right_scale = s.has_right ? s.end - static_cast<float>(s.right) : 0.0f;
  return s;
}

// compute_kl_divergence: p * ln(p / q) in float over bins with p != 0; q == 0 costs a flat 1.
float TengineKl(const std::vector<float>& p, const std::vector<float>& q, int length) {
  float result = 0.0f;
  for (int k = 0; k < length; ++k) {
    if (p[k] == 0.0f) continue;
    if (q[k] == 0.0f) {
      result += 1.0f;
    } else {
      result += p[k] * std::log(p[k] / q[k]);
    }
  }
  return result;
}

}  // namespace

MagnitudeHistogram BuildTengineHistogram(const std::vector<double>& samples, int num_bins) {
  if (num_bins < 2) {
    throw std::invalid_argument(fmt::format("bins: {} is not allowed, must be >= 2", num_bins));
  }
  MagnitudeHistogram hist;
  float amax = 0.0f;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i])) {
      throw std::invalid_argument(
          fmt::format("sample {} is {}, samples must be finite", i, samples[i]));
    }
    if (std::abs(samples[i]) > FLT_MAX) {
      throw std::invalid_argument(
          fmt::format("sample {} is {}: the tengine variant works in float32, which cannot hold it",
                      i, samples[i]));
    }
    amax = std::max(amax, std::abs(static_cast<float>(samples[i])));
  }
  if (!(amax > 0.0f)) {
    throw std::invalid_argument(
        fmt::format("all {} samples are 0: a symmetric range needs max|x| > 0", samples.size()));
  }
  hist.amax = amax;
  const float index_scale = amax / static_cast<float>(num_bins - 1);  // Tengine: abs_max / 2047.f
  hist.bin_width = amax / static_cast<float>(num_bins);               // Tengine: step_max / 2048.0f
  hist.counts.assign(num_bins, 0.0);
  for (double x : samples) {
    const float value = static_cast<float>(x);
    if (value == 0.0f) {
      ++hist.zero_count;
      continue;
    }
    const float index = std::round(std::abs(value) / index_scale);
    // |x| <= amax keeps index <= n - 1 in practice; the clamp only guards the array.
    hist.counts[static_cast<size_t>(std::min(index, static_cast<float>(num_bins - 1)))] += 1.0;
  }
  return hist;
}

KlSearch TengineKlSearch(const std::vector<double>& counts, double bin_width, int levels) {
  const int length = static_cast<int>(counts.size());
  const std::vector<float> distribution = NormalizeFromBinOne(counts);

  KlSearch best;
  best.levels = levels;
  best.bins_kept = levels;  // Tengine's initial target_threshold
  best.candidates = length - levels;
  float min_kl = FLT_MAX;

  float tail = 0.0f;  // threshold_sum: mass of bins i..n-1, decremented as i grows
  for (int i = levels; i < length; ++i) tail += distribution[i];

  std::vector<float> quantized(levels);
  for (int i = levels; i < length; ++i) {
    // P: the first i normalised bins with the tail folded into bin i - 1.
    std::vector<float> reference(distribution.begin(), distribution.begin() + i);
    reference[i - 1] += tail;
    tail -= distribution[i];

    // Group masses, taken from the unclipped `distribution` as Tengine does (not from P).
    std::fill(quantized.begin(), quantized.end(), 0.0f);
    const float group_width = static_cast<float>(i) / static_cast<float>(levels);
    for (int g = 0; g < levels; ++g) {
      const GroupSpan s = SpanOfGroup(g, group_width);
      if (s.has_left) quantized[g] += s.left_scale * distribution[s.left - 1];
      if (s.has_right) quantized[g] += s.right_scale * distribution[s.right];
      for (int j = s.left; j < s.right; ++j) quantized[g] += distribution[j];
    }

    // Q: each group's mass spread over its non-empty bins, partial bins by their fraction. One
    // spare element: with power-of-two levels the edges are exact and `right` never reaches i, but
    // a rounding edge would make Tengine write one past its array.
    std::vector<float> expanded(i + 1, 0.0f);
    for (int g = 0; g < levels; ++g) {
      const GroupSpan s = SpanOfGroup(g, group_width);
      float count = 0.0f;
      if (s.has_left && distribution[s.left - 1] != 0.0f) count += s.left_scale;
      if (s.has_right && distribution[s.right] != 0.0f) count += s.right_scale;
      for (int j = s.left; j < s.right; ++j) {
        if (distribution[j] != 0.0f) count += 1.0f;
      }
      const float each = quantized[g] / count;
      if (s.has_left && distribution[s.left - 1] != 0.0f)
        expanded[s.left - 1] += each * s.left_scale;
      if (s.has_right && distribution[s.right] != 0.0f) expanded[s.right] += each * s.right_scale;
      for (int j = s.left; j < s.right; ++j) {
        if (distribution[j] != 0.0f) expanded[j] += each;
      }
    }

    const float kl = TengineKl(reference, expanded, i);
    if (kl < min_kl) {
      min_kl = kl;
      best.bins_kept = i;
    }
  }
  best.kl = min_kl;
  // hist_edge[i] = step_bin * (i + 0.5f): the centre of bin i, in float.
  best.threshold = static_cast<float>(bin_width) * (static_cast<float>(best.bins_kept) + 0.5f);
  return best;
}

}  // namespace qacc::golden
