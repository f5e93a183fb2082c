#include "golden/mse_calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "golden/progress.h"
#include "golden/quant.h"

namespace qacc::golden {

namespace {

// Weighted magnitudes of one sign, ascending, with prefix sums for O(log n) range errors.
class Side {
 public:
  Side(std::vector<std::pair<double, double>> points, int64_t max_code) : max_code_(max_code) {
    std::sort(points.begin(), points.end());
    values_.reserve(points.size());
    w_.assign(points.size() + 1, 0.0);
    v_.assign(points.size() + 1, 0.0);
    v2_.assign(points.size() + 1, 0.0);
    for (size_t i = 0; i < points.size(); ++i) {
      const auto [value, weight] = points[i];
      values_.push_back(value);
      w_[i + 1] = w_[i] + weight;
      v_[i + 1] = v_[i] + weight * value;
      v2_[i + 1] = v2_[i] + weight * value * value;
    }
  }

  // sum w (v - s * code(v))^2 with code(v) = min(round(v / s), max_code).
  double SquaredError(double s) const {
    double error = 0.0;
    const size_t n = values_.size();
    size_t begin = 0;
    while (begin < n) {
      const double q =
          std::min(std::floor(values_[begin] / s + 0.5), static_cast<double>(max_code_));
      size_t end = n;
      if (q < max_code_) {
        const double upper = (q + 0.5) * s;  // first magnitude of code q + 1
        end = std::lower_bound(values_.begin() + begin, values_.end(), upper) - values_.begin();
        end = std::max(end, begin + 1);  // a value on the edge rounds either way at equal error
      }
      const double qs = q * s;
      const double range = (v2_[end] - v2_[begin]) - 2.0 * qs * (v_[end] - v_[begin]) +
                           qs * qs * (w_[end] - w_[begin]);
      error += std::max(range, 0.0);  // the expansion can round a zero error slightly negative
      begin = end;
    }
    return error;
  }

  double total_weight() const { return w_.back(); }

 private:
  int64_t max_code_;
  std::vector<double> values_;
  std::vector<double> w_, v_, v2_;  // prefix sums of w, w v, w v^2
};

MseSearch GridSearch(const std::vector<Side>& sides, double step, int num_candidates,
                     int64_t qmax) {
  double total_weight = 0.0;
  for (const Side& side : sides) total_weight += side.total_weight();
  MseSearch best;
  best.candidates = num_candidates;
  double best_error = std::numeric_limits<double>::infinity();
  for (int c = 1; c <= num_candidates; ++c) {
    const double threshold = c * step;
    const double s = threshold / static_cast<double>(qmax);
    double error = 0.0;
    for (const Side& side : sides) error += side.SquaredError(s);
    ReportProgress("MSE search", "thresholds", uint64_t(c), uint64_t(num_candidates));
    if (error < best_error) {
      best_error = error;
      best.candidate = c;
      best.threshold = threshold;
    }
  }
  best.mse = best_error / total_weight;
  return best;
}

}  // namespace

MseSearch MseThreshold(const std::vector<double>& samples, int bits, bool is_signed, bool narrow,
                       int num_candidates) {
  if (num_candidates < 1) {
    throw std::invalid_argument(
        fmt::format("bins: {} is not allowed, must be >= 1", num_candidates));
  }
  std::vector<std::pair<double, double>> positive, negative;
  double amax = 0.0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const double x = samples[i];
    if (!std::isfinite(x)) {
      throw std::invalid_argument(fmt::format("sample {} is {}, samples must be finite", i, x));
    }
    amax = std::max(amax, std::abs(x));
    (x < 0 ? negative : positive).emplace_back(std::abs(x), 1.0);
  }
  if (!(amax > 0.0)) {
    throw std::invalid_argument(
        fmt::format("all {} samples are 0: a symmetric range needs max|x| > 0", samples.size()));
  }
  const int64_t qmax = QMax(bits, is_signed);
  const int64_t negative_codes = -QMin(bits, is_signed, narrow);  // 0 for unsigned: negatives -> 0
  std::vector<Side> sides;
  sides.emplace_back(std::move(positive), qmax);
  sides.emplace_back(std::move(negative), negative_codes);
  return GridSearch(sides, amax / num_candidates, num_candidates, qmax);
}

MseSearch MseThresholdFromHistogram(const std::vector<double>& counts, double bin_width, int bits,
                                    bool is_signed) {
  if (counts.empty()) throw std::invalid_argument("mse: the histogram has no bins");
  if (!(bin_width > 0.0) || !std::isfinite(bin_width)) {
    throw std::invalid_argument(
        fmt::format("mse: bin width {} is not allowed, must be finite and > 0", bin_width));
  }
  std::vector<std::pair<double, double>> points;
  double total = 0.0;
  for (size_t k = 0; k < counts.size(); ++k) {
    if (!(counts[k] >= 0.0) || !std::isfinite(counts[k])) {
      throw std::invalid_argument(fmt::format(
          "mse: histogram bin {} holds {}, counts must be finite and >= 0", k, counts[k]));
    }
    if (counts[k] > 0.0) points.emplace_back((static_cast<double>(k) + 0.5) * bin_width, counts[k]);
    total += counts[k];
  }
  if (!(total > 0.0)) throw std::invalid_argument("mse: the histogram is empty (all counts are 0)");
  const int64_t qmax = QMax(bits, is_signed);
  std::vector<Side> sides;
  sides.emplace_back(std::move(points), qmax);
  return GridSearch(sides, bin_width, static_cast<int>(counts.size()), qmax);
}

}  // namespace qacc::golden
