// Error of the two-table integer softmax (golden/softmax.h) against the float softmax, in output
// LSBs and in output units.
//
// Reference: the dequantized row x_i = s_x (X_i - zp_x), y_i = exp(x_i - max x) / sum_j exp(x_j -
// max x) in double, quantized to the same output spec with round half away from zero and clamping.
// Both results are codes, so the error |Y_int - Y_ref| is a whole number of LSBs.
//
// Softmax depends only on how many times each code occurs in a row, not on the order (and the
// saturating sum of non-negative T is min(sum, Qacc_max) in any order), so test rows are stored as
// histograms: a row of length 1024 with two distinct codes costs two table lookups, not 1024.
// ExpandRow() gives the plain row; the unit tests check that the histogram evaluation equals
// SoftmaxRow() on expanded rows.
#ifndef QACC_GOLDEN_SOFTMAX_ERROR_H_
#define QACC_GOLDEN_SOFTMAX_ERROR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "golden/quant.h"
#include "golden/softmax.h"

namespace qacc::golden {

// One test row as (code, count) bins, in the order ExpandRow writes them; counts sum to n.
struct SoftmaxTestRow {
  std::string family;  // "random", "all_equal", "skyscraper", "two_max", "bimodal", "low_peak"
  int index = 0;       // random rows: the row number within the seed's stream
  uint64_t seed = 0;   // random rows: SoftmaxErrorOptions::seed
  std::vector<std::pair<int32_t, int64_t>> bins;
};

// "skyscraper: 127 x1, -128 x1023", "random #3 of seed 1". Built on demand: formatting a label for
// each of the ~10^7 rows of a grid sweep would cost more than evaluating them.
std::string DescribeRow(const SoftmaxTestRow& row);

// The plain row: bins[0].count copies of bins[0].code, then bins[1], ...
std::vector<int32_t> ExpandRow(const SoftmaxTestRow& row);

struct SoftmaxErrorOptions {
  int random_rows = 64;  // rows of n codes drawn uniformly from [qmin, qmax]
  uint64_t seed = 1;     // std::mt19937_64 seed; codes are qmin + rng() % levels (portable)
  bool adversarial = true;
};

// Random rows, then for every code c of the input spec (Q = qmax, q = qmin):
//   all_equal   n x c                      (c = q: the smallest S with offset qmax)
//   skyscraper  1 x Q, (n-1) x c            (c = q: the classic skyscraper)
//   two_max     2 x Q, (n-2) x c            (n >= 3)
//   bimodal     ceil(n/2) x Q, floor(n/2) x c (n >= 4)
//   low_peak    1 x c, (n-1) x q            (a peak below Qmax: small S with offset qmax)
// skipping values of c that repeat another row: c < Q for skyscraper (n >= 2), two_max and bimodal
// (c = Q is all_equal(Q)); q < c < Q for low_peak (n >= 2; c = Q is skyscraper(q)).
std::vector<SoftmaxTestRow> SoftmaxTestRows(const QuantSpec& in, int n,
                                            const SoftmaxErrorOptions& options);

// The reference output codes of a plain row (see the file comment).
std::vector<int32_t> ReferenceSoftmax(const QuantSpec& in, const QuantSpec& out,
                                      const std::vector<int32_t>& row);

// Output code per bin of `row`: the integer path (equal to SoftmaxRow on ExpandRow(row), in either
// mode: compat mode's exact sum and float32 division depend on the counts only) and the
// reference (equal to ReferenceSoftmax up to the order of the double sum).
std::vector<int32_t> SoftmaxRowBins(const SoftmaxTables& tables, const SoftmaxTestRow& row);
std::vector<int32_t> ReferenceSoftmaxBins(const QuantSpec& in, const QuantSpec& out,
                                          const SoftmaxTestRow& row);
// The float softmax per bin, before quantization: what ReferenceSoftmaxBins quantizes.
std::vector<double> SoftmaxProbabilityBins(const QuantSpec& in, const SoftmaxTestRow& row);

struct SoftmaxErrorStats {
  int64_t rows = 0;
  int64_t elements = 0;
  int64_t max_abs_lsb = 0;
  int64_t sum_abs_lsb = 0;      // over elements
  int64_t elements_over_1 = 0;  // elements with |error| > 1 LSB
  // |s_y (Y - zp_y) - y| against the unquantized float softmax y, in output units. LSBs compare
  // two quantized results and hide a coarse output scale (--out-amax 100: every code 0 or 1, 0 LSB
  // of error, but up to s_y / 2 = 0.39 off every probability).
  double max_abs_real = 0.0;
  double sum_abs_real = 0.0;  // over elements
  double mean_abs_lsb() const {
    return elements == 0 ? 0.0 : static_cast<double>(sum_abs_lsb) / static_cast<double>(elements);
  }
  double mean_abs_real() const {
    return elements == 0 ? 0.0 : sum_abs_real / static_cast<double>(elements);
  }
  void Merge(const SoftmaxErrorStats& other);
};

// The first element that reached the overall maximum error.
struct SoftmaxWorstCase {
  std::string row;       // DescribeRow
  int32_t code = 0;      // input code of the element
  int32_t actual = 0;    // integer softmax output
  int32_t expected = 0;  // reference output
};

struct SoftmaxErrorReport {
  SoftmaxErrorStats random;
  SoftmaxErrorStats adversarial;
  std::vector<std::pair<std::string, SoftmaxErrorStats>> families;  // in SoftmaxTestRows order
  SoftmaxWorstCase worst;
  SoftmaxErrorStats total() const;
};

// Builds the tables for `params` and measures every row of SoftmaxTestRows.
SoftmaxErrorReport AnalyzeSoftmaxError(const SoftmaxParams& params,
                                       const SoftmaxErrorOptions& options = {});
SoftmaxErrorReport AnalyzeSoftmaxError(const SoftmaxTables& tables,
                                       const SoftmaxErrorOptions& options = {});

// Smallest acc_bits in 8..32 (skipping widths where floor(Qacc_max / n) = 0) whose max error over
// SoftmaxTestRows is <= bound_lsb, params.acc_bits ignored; nullopt when none is. The error is not
// monotonic in acc_bits in general, so every width is tried from the bottom.
std::optional<int> MinAccBits(const SoftmaxParams& params, int64_t bound_lsb,
                              const SoftmaxErrorOptions& options = {});

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_SOFTMAX_ERROR_H_
