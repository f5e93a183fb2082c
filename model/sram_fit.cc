#include "model/sram_fit.h"

#include <fmt/format.h>

namespace qacc::model {

namespace {

bool Fits(const arch::ArchConfig& config, const GemmJob& job) {
  return !FindSramOverflow(config, job).has_value();
}

}  // namespace

std::optional<SramOverflow> FindSramOverflow(const arch::ArchConfig& config, const GemmJob& job) {
  if (job.m <= 0 || job.n <= 0 || job.k <= 0) return std::nullopt;
  const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k);
  const int64_t mb = timing.MB(), nb = timing.NB(), k = job.k;
  auto over = [](arch::ErrCode code, const char* sram, std::string formula, int64_t words,
                 int64_t depth, uint32_t base) -> std::optional<SramOverflow> {
    const int64_t available = depth - int64_t{base};
    if (words <= available) return std::nullopt;
    return SramOverflow{code, sram, std::move(formula), words, available};
  };
  if (auto o = over(arch::ErrCode::kARange, "A",
                    fmt::format("ceil(M/{}) x K = {} x {} = {}", config.rows, mb, k, mb * k),
                    mb * k, config.a_depth, job.a_base)) {
    return o;
  }
  if (auto o = over(arch::ErrCode::kBRange, "B",
                    fmt::format("ceil(N/{}) x K = {} x {} = {}", config.cols, nb, k, nb * k),
                    nb * k, config.b_depth, job.b_base)) {
    return o;
  }
  const std::string nb_formula = fmt::format("ceil(N/{}) = {}", config.cols, nb);
  if (!job.bias.empty()) {
    if (auto o = over(arch::ErrCode::kBiasRange, "bias", nb_formula, nb, config.bias_depth,
                      job.bias_base)) {
      return o;
    }
  }
  if (const int64_t rq_words = RqWordsPerTile(job); rq_words > 0) {
    const std::string rq_formula =
        rq_words == 1 ? nb_formula
                      : fmt::format("2 words x ceil(N/{}) = 2 x {} = {}", config.cols, nb, 2 * nb);
    if (auto o = over(arch::ErrCode::kRqRange, "rq", rq_formula, rq_words * nb, config.rq_depth,
                      job.rq_base)) {
      return o;
    }
  }
  const arch::OutLayout layout = arch::OutLayoutOf(ToCommand(job));
  const int64_t tile_words = arch::OutWords(1, config.rows, layout);
  const int64_t out_words = arch::OutWords(timing.T(), config.rows, layout);
  return over(arch::ErrCode::kOutRange, "out",
              fmt::format("ceil(M/{}) x ceil(N/{}) tiles x {} words = {} x {} x {} = {}",
                          config.rows, config.cols, tile_words, mb, nb, tile_words, out_words),
              out_words, config.out_depth, job.out_base);
}

int64_t MaxFittingDim(const arch::ArchConfig& config, const GemmJob& job, Dim dim) {
  // Every rule needs words that never decrease with M, N or K: binary search the largest value.
  GemmJob probe = job;
  int& value = dim == Dim::kM ? probe.m : dim == Dim::kN ? probe.n : probe.k;
  int64_t lo = 0, hi = arch::kMaxDim;  // lo fits (or is 0), hi + 1 does not
  value = static_cast<int>(hi);
  if (Fits(config, probe)) return hi;
  while (lo + 1 < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    value = static_cast<int>(mid);
    if (Fits(config, probe)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace qacc::model
