// The error report of `qacc apply --report`: each output code y against the float operator on the
// dequantized input, expressed in output codes (ref = f(x) / S_y + Z_y, a real number). The error
// of an element is |y - clamp(ref, qmin, qmax)| in LSBs: elements whose ideal result lies outside
// the output range are counted as saturated, and measured against the range's end.
#ifndef QACC_SIM_CLI_APPLY_REPORT_H_
#define QACC_SIM_CLI_APPLY_REPORT_H_

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace qacc::cli {

class ApplyErrorReport {
 public:
  // Histogram bins by |error| in LSBs: <= 0.5 (correctly rounded), <= 1, <= 2, <= 4, <= 8, > 8.
  static constexpr std::array<double, 5> kBinEdges = {0.5, 1, 2, 4, 8};

  ApplyErrorReport(int64_t qmin, int64_t qmax) : qmin_(qmin), qmax_(qmax) {}

  void Add(int64_t y, double ref);

  int64_t elements() const { return elements_; }
  double max_abs() const { return max_abs_; }
  double mean_abs() const { return elements_ == 0 ? 0.0 : sum_abs_ / double(elements_); }
  int64_t saturated() const { return saturated_; }
  const std::array<int64_t, kBinEdges.size() + 1>& histogram() const { return bins_; }

  std::string Text() const;
  nlohmann::json Json() const;

 private:
  int64_t qmin_, qmax_;
  int64_t elements_ = 0, saturated_ = 0;
  double max_abs_ = 0, sum_abs_ = 0;
  std::array<int64_t, kBinEdges.size() + 1> bins_{};
};

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_APPLY_REPORT_H_
