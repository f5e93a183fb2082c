#include "model/panel_gemm.h"

#include <stdexcept>
#include <string>

#include "model/int16_gemm.h"

namespace qacc::model {

FactorTable MakeFactorTable(bool is_unsigned, int32_t zero_point) {
  FactorTable table{};
  for (int code = 0; code < 256; ++code) {
    const int value = is_unsigned || code < 128 ? code : code - 256;
    table[size_t(code)] = static_cast<int16_t>(value - zero_point);  // -383..383
  }
  return table;
}

// B word b_base + nb*K + k, lane c = B[k][nb*C + c] (6.1), stored transposed; lanes c >= n_valid
// keep factor 0.
PanelGemm::PanelGemm(const DecodedCommand& command, const Srams& srams, int rows, int cols,
                     int64_t nb_first, int64_t nb_count)
    : srams_(srams),
      timing_(command.timing),
      a_base_(command.a_base),
      rows_(rows),
      cols_(cols),
      num_cols_(static_cast<int>(nb_count * cols)),
      depth_(static_cast<int>(command.timing.k)),
      a_factor_(MakeFactorTable(command.a_unsigned, command.a_zp)) {
  if (nb_first < 0 || nb_count < 0 || nb_first + nb_count > timing_.NB()) {
    throw std::out_of_range("PanelGemm: column blocks " + std::to_string(nb_first) + " + " +
                            std::to_string(nb_count) + " outside 0.." +
                            std::to_string(timing_.NB()));
  }
  b_factors_.assign(size_t(num_cols_) * size_t(depth_), 0);
  const FactorTable b_factor = MakeFactorTable(command.b_unsigned, command.b_zp);
  for (int64_t i = 0; i < nb_count; ++i) {
    const int64_t nb = nb_first + i;
    const int n_valid = static_cast<int>(timing_.NValid(nb));
    const uint32_t first_word = command.b_base + static_cast<uint32_t>(nb * depth_);
    int16_t* panel = b_factors_.data() + size_t(i) * size_t(cols_) * size_t(depth_);
    for (int k = 0; k < depth_; ++k) {
      for (int c = 0; c < n_valid; ++c) {
        panel[size_t(c) * depth_ + k] = b_factor[srams.b(first_word + uint32_t(k), c)];
      }
    }
  }
}

// A word a_base + mb*K + k, lane r = A[mb*R + r][k] (6.1), transposed into rows of K factors; only
// the m_valid rows are computed, the padded ones stay 0.
void PanelGemm::ComputeRowBlock(int64_t mb, std::vector<int32_t>& acc) const {
  if (mb < 0 || mb >= timing_.MB()) {
    throw std::out_of_range("PanelGemm: row block " + std::to_string(mb) + " outside 0.." +
                            std::to_string(timing_.MB() - 1));
  }
  const int m_valid = static_cast<int>(timing_.MValid(mb));
  const uint32_t first_word = a_base_ + static_cast<uint32_t>(mb * depth_);
  std::vector<int16_t> a_factors(size_t(m_valid) * size_t(depth_));
  for (int k = 0; k < depth_; ++k) {
    for (int r = 0; r < m_valid; ++r) {
      a_factors[size_t(r) * depth_ + k] = a_factor_[srams_.a(first_word + uint32_t(k), r)];
    }
  }
  acc.assign(size_t(rows_) * size_t(num_cols_), 0);
  GemmInt16Wrapping(a_factors.data(), b_factors_.data(), m_valid, num_cols_, depth_, acc.data(),
                    size_t(num_cols_));
}

}  // namespace qacc::model
