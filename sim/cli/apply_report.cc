#include "sim/cli/apply_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace qacc::cli {

namespace {

std::string BinName(size_t i) {
  const auto& edges = ApplyErrorReport::kBinEdges;
  return i < edges.size() ? fmt::format("<= {}", edges[i]) : fmt::format("> {}", edges.back());
}

}  // namespace

void ApplyErrorReport::Add(int64_t y, double ref) {
  const double ideal = std::clamp(ref, double(qmin_), double(qmax_));
  saturated_ += ideal != ref;
  const double error = std::abs(double(y) - ideal);
  ++elements_;
  sum_abs_ += error;
  max_abs_ = std::max(max_abs_, error);
  size_t bin = 0;
  while (bin < kBinEdges.size() && error > kBinEdges[bin]) ++bin;
  ++bins_[bin];
}

std::string ApplyErrorReport::Text() const {
  std::string text = fmt::format(
      "error     max {:.6g} LSB, mean {:.6g} LSB over {} elements (|y - clamp(f(x) / S_y + Z_y)|, "
      "f in double)\n",
      max_abs_, mean_abs(), elements_);
  text += fmt::format("saturated {} elements (f(x) outside the output codes)\n", saturated_);
  text += "histogram |error| in LSBs\n";
  for (size_t i = 0; i < bins_.size(); ++i) {
    text += fmt::format("  {:<6} {:>12}  {:6.2f} %\n", BinName(i), bins_[i],
                        elements_ == 0 ? 0.0 : 100.0 * double(bins_[i]) / double(elements_));
  }
  return text;
}

nlohmann::json ApplyErrorReport::Json() const {
  nlohmann::json histogram = nlohmann::json::array();
  for (size_t i = 0; i < bins_.size(); ++i) {
    histogram.push_back({{"bin", BinName(i)}, {"count", bins_[i]}});
  }
  return {{"elements", elements_},
          {"max_abs_lsb", max_abs_},
          {"mean_abs_lsb", mean_abs()},
          {"saturated", saturated_},
          {"histogram", histogram}};
}

}  // namespace qacc::cli
