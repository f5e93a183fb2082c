#include "golden/softmax_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <stdexcept>

#include "golden/progress.h"

namespace qacc::golden {

namespace {

SoftmaxTestRow MakeRow(const char* family, std::vector<std::pair<int32_t, int64_t>> bins) {
  SoftmaxTestRow row;
  row.family = family;
  for (const auto& bin : bins) {
    if (bin.second > 0) row.bins.push_back(bin);
  }
  return row;
}

SoftmaxTestRow RandomRow(const QuantSpec& in, int n, std::mt19937_64& rng, int index,
                         uint64_t seed) {
  const auto levels = static_cast<uint64_t>(in.levels());
  std::vector<int64_t> counts(levels, 0);
  // Modulo, not std::uniform_int_distribution: identical on every standard library (bias < 2^-55).
  for (int i = 0; i < n; ++i) ++counts[rng() % levels];
  SoftmaxTestRow row{"random", index, seed, {}};
  for (uint64_t k = 0; k < levels; ++k) {
    if (counts[k] > 0) row.bins.emplace_back(static_cast<int32_t>(in.qmin() + k), counts[k]);
  }
  return row;
}

// Throws unless every code is within the input range and the counts sum to n.
void CheckRow(const QuantSpec& in, int n, const SoftmaxTestRow& row) {
  int64_t total = 0;
  for (const auto& [code, count] : row.bins) {
    if (code < in.qmin() || code > in.qmax() || count < 0) {
      throw std::invalid_argument(fmt::format("row: bin ({}, {}) is out of range, codes {}..{}",
                                              code, count, in.qmin(), in.qmax()));
    }
    total += count;
  }
  if (total != n) {
    throw std::invalid_argument(fmt::format("row: length {} differs from n = {}", total, n));
  }
}

int32_t MaxCode(const SoftmaxTestRow& row) {
  int32_t max_code = row.bins.front().first;
  for (const auto& bin : row.bins) {
    if (bin.second > 0) max_code = std::max(max_code, bin.first);
  }
  return max_code;
}

int32_t QuantizeReference(double y, const QuantSpec& out) {
  return static_cast<int32_t>(QuantizeToRange(y, out.scale, out.zero_point, out.qmin(), out.qmax(),
                                              RoundingMode::kHalfAwayFromZero));
}

void AddError(int64_t error, double real_error, int64_t count, SoftmaxErrorStats* stats) {
  stats->elements += count;
  stats->sum_abs_lsb += error * count;
  stats->max_abs_lsb = std::max(stats->max_abs_lsb, error);
  if (error > 1) stats->elements_over_1 += count;
  stats->sum_abs_real += real_error * static_cast<double>(count);
  stats->max_abs_real = std::max(stats->max_abs_real, real_error);
}

}  // namespace

std::string DescribeRow(const SoftmaxTestRow& row) {
  if (row.family == "random") return fmt::format("random #{} of seed {}", row.index, row.seed);
  std::string label = row.family;
  const char* sep = ": ";
  for (const auto& [code, count] : row.bins) {
    label += fmt::format("{}{} x{}", sep, code, count);
    sep = ", ";
  }
  return label;
}

std::vector<int32_t> ExpandRow(const SoftmaxTestRow& row) {
  std::vector<int32_t> out;
  for (const auto& [code, count] : row.bins)
    out.insert(out.end(), static_cast<size_t>(count), code);
  return out;
}

std::vector<SoftmaxTestRow> SoftmaxTestRows(const QuantSpec& in, int n,
                                            const SoftmaxErrorOptions& options) {
  std::vector<SoftmaxTestRow> rows;
  std::mt19937_64 rng(options.seed);
  for (int i = 0; i < options.random_rows; ++i)
    rows.push_back(RandomRow(in, n, rng, i, options.seed));
  if (!options.adversarial) return rows;
  const auto lo = static_cast<int32_t>(in.qmin());
  const auto hi = static_cast<int32_t>(in.qmax());
  const int64_t half_up = (n + 1) / 2;
  for (int32_t c = lo; c <= hi; ++c) rows.push_back(MakeRow("all_equal", {{c, n}}));
  // c < Q only: with c = Q these rows equal all_equal(Q).
  if (n >= 2) {
    for (int32_t c = lo; c < hi; ++c) rows.push_back(MakeRow("skyscraper", {{hi, 1}, {c, n - 1}}));
  }
  if (n >= 3) {
    for (int32_t c = lo; c < hi; ++c) rows.push_back(MakeRow("two_max", {{hi, 2}, {c, n - 2}}));
  }
  if (n >= 4) {
    for (int32_t c = lo; c < hi; ++c) {
      rows.push_back(MakeRow("bimodal", {{hi, half_up}, {c, n - half_up}}));
    }
  }
  if (n >= 2) {
    for (int32_t c = lo + 1; c < hi; ++c)
      rows.push_back(MakeRow("low_peak", {{c, 1}, {lo, n - 1}}));
  }
  return rows;
}

std::vector<int32_t> ReferenceSoftmax(const QuantSpec& in, const QuantSpec& out,
                                      const std::vector<int32_t>& row) {
  double x_max = -INFINITY;
  for (int32_t code : row) x_max = std::max(x_max, Dequantize(code, in));
  std::vector<double> e;
  e.reserve(row.size());
  double sum = 0.0;
  for (int32_t code : row) {
    e.push_back(std::exp(Dequantize(code, in) - x_max));
    sum += e.back();
  }
  std::vector<int32_t> y;
  y.reserve(row.size());
  for (double ei : e) y.push_back(QuantizeReference(ei / sum, out));
  return y;
}

std::vector<int32_t> SoftmaxRowBins(const SoftmaxTables& tables, const SoftmaxTestRow& row) {
  const SoftmaxParams& params = tables.params;
  CheckRow(params.in, params.n, row);
  const int32_t row_max = MaxCode(row);
  auto table_code = [&](int32_t code) -> int64_t {
    return params.offset == SoftmaxOffset::kRowMax
               ? RowMaxTableCode(code, row_max, params.in.qmax())
               : code;
  };
  // Saturating accumulation of non-negative terms equals min(plain sum, Qacc_max) in any order.
  // Compat mode sums exactly (the seed's int64 torch.sum; a wrapped T is negative).
  int64_t sum = 0;
  for (const auto& [code, count] : row.bins) sum += count * tables.T(table_code(code));
  std::vector<int32_t> y;
  if (params.mode == SoftmaxMode::kSeedCompat) {
    for (const auto& bin : row.bins) {
      y.push_back(SeedCompatDivide(tables.P(bin.first), sum, params.out.qmin(), params.out.qmax()));
    }
    return y;
  }
  sum = std::min(sum, SoftmaxAccMax(params.acc_bits));
  for (const auto& bin : row.bins) {
    const int64_t q =
        sum == 0 ? tables.zero_sum_output
                 : DivideRounded(tables.P(table_code(bin.first)), sum, params.div_rounding) +
                       params.out.zero_point;
    y.push_back(static_cast<int32_t>(std::clamp(q, params.out.qmin(), params.out.qmax())));
  }
  return y;
}

std::vector<double> SoftmaxProbabilityBins(const QuantSpec& in, const SoftmaxTestRow& row) {
  const double x_max = Dequantize(MaxCode(row), in);
  std::vector<double> e;
  double sum = 0.0;
  for (const auto& [code, count] : row.bins) {
    e.push_back(std::exp(Dequantize(code, in) - x_max));
    sum += static_cast<double>(count) * e.back();
  }
  for (double& ei : e) ei /= sum;
  return e;
}

std::vector<int32_t> ReferenceSoftmaxBins(const QuantSpec& in, const QuantSpec& out,
                                          const SoftmaxTestRow& row) {
  std::vector<int32_t> y;
  for (double p : SoftmaxProbabilityBins(in, row)) y.push_back(QuantizeReference(p, out));
  return y;
}

void SoftmaxErrorStats::Merge(const SoftmaxErrorStats& other) {
  rows += other.rows;
  elements += other.elements;
  max_abs_lsb = std::max(max_abs_lsb, other.max_abs_lsb);
  sum_abs_lsb += other.sum_abs_lsb;
  elements_over_1 += other.elements_over_1;
  max_abs_real = std::max(max_abs_real, other.max_abs_real);
  sum_abs_real += other.sum_abs_real;
}

SoftmaxErrorStats SoftmaxErrorReport::total() const {
  SoftmaxErrorStats all = random;
  all.Merge(adversarial);
  return all;
}

SoftmaxErrorReport AnalyzeSoftmaxError(const SoftmaxParams& params,
                                       const SoftmaxErrorOptions& options) {
  return AnalyzeSoftmaxError(BuildSoftmaxTables(params), options);
}

SoftmaxErrorReport AnalyzeSoftmaxError(const SoftmaxTables& tables,
                                       const SoftmaxErrorOptions& options) {
  const SoftmaxParams& params = tables.params;
  SoftmaxErrorReport report;
  int64_t worst = -1;
  auto add_row = [&](const SoftmaxTestRow& row) {
    const std::vector<int32_t> actual = SoftmaxRowBins(tables, row);
    const std::vector<double> probability = SoftmaxProbabilityBins(params.in, row);
    if (report.families.empty() || report.families.back().first != row.family) {
      report.families.emplace_back(row.family, SoftmaxErrorStats{});
    }
    SoftmaxErrorStats& family = report.families.back().second;
    ++family.rows;
    for (size_t b = 0; b < row.bins.size(); ++b) {
      const int32_t expected = QuantizeReference(probability[b], params.out);
      const int64_t error = std::abs(int64_t{actual[b]} - expected);
      const double real_error = std::abs(Dequantize(actual[b], params.out) - probability[b]);
      AddError(error, real_error, row.bins[b].second, &family);
      if (error > worst) {
        worst = error;
        report.worst = {DescribeRow(row), row.bins[b].first, actual[b], expected};
      }
    }
  };
  // The rows of SoftmaxTestRows in its order, the random ones drawn one at a time from the same
  // stream: a row of n codes holds up to 2^bits bins, and 10^5 rows kept at once took 420 MB.
  SoftmaxErrorOptions fixed_rows = options;
  fixed_rows.random_rows = 0;
  const std::vector<SoftmaxTestRow> adversarial = SoftmaxTestRows(params.in, params.n, fixed_rows);
  const uint64_t total = uint64_t(std::max(options.random_rows, 0)) + adversarial.size();
  std::mt19937_64 rng(options.seed);
  for (int i = 0; i < options.random_rows; ++i) {
    add_row(RandomRow(params.in, params.n, rng, i, options.seed));
    ReportProgress("error rows", "rows", uint64_t(i) + 1, total);
  }
  for (size_t i = 0; i < adversarial.size(); ++i) {
    add_row(adversarial[i]);
    ReportProgress("error rows", "rows", uint64_t(options.random_rows) + i + 1, total);
  }
  for (const auto& [name, stats] : report.families) {
    (name == "random" ? report.random : report.adversarial).Merge(stats);
  }
  return report;
}

std::optional<int> MinAccBits(const SoftmaxParams& params, int64_t bound_lsb,
                              const SoftmaxErrorOptions& options) {
  for (int acc_bits = kSoftmaxMinAccBits; acc_bits <= kSoftmaxMaxAccBits; ++acc_bits) {
    if (SoftmaxTableScale(params.n, acc_bits) < 1) continue;
    SoftmaxParams trial = params;
    trial.acc_bits = acc_bits;
    if (AnalyzeSoftmaxError(trial, options).total().max_abs_lsb <= bound_lsb) return acc_bits;
  }
  return std::nullopt;
}

}  // namespace qacc::golden
