// Tengine's KL calibration (OAID Tengine tools/quantize: histCount, normalize_histogram,
// threshold_distribution, compute_kl_divergence), reproduced operation by operation in float32 so
// that KlVariant::kTengine selects exactly the bin Tengine selects. Used through kl_calibration.h.
#ifndef QACC_GOLDEN_KL_TENGINE_H_
#define QACC_GOLDEN_KL_TENGINE_H_

#include <vector>

#include "golden/kl_calibration.h"

namespace qacc::golden {

// Tengine's histCount on |x|: amax = float(max |x|), index = round(|x| / (amax / (n - 1))) in
// float, exact zeros skipped. The returned bin_width is Tengine's hist_edge spacing amax / n
// (float), which is what its threshold uses, although the samples were binned with amax / (n - 1).
// Samples must be finite, not all zero, and max |x| must fit in float.
MagnitudeHistogram BuildTengineHistogram(const std::vector<double>& samples, int num_bins);

// Tengine's threshold_distribution with target_bin = levels on a validated histogram (each count is
// converted to float as Tengine's uint32 counts are), then T = float(bin_width) * (i + 0.5f).
KlSearch TengineKlSearch(const std::vector<double>& counts, double bin_width, int levels);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_KL_TENGINE_H_
