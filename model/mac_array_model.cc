#include "model/mac_array_model.h"

#include <algorithm>
#include <type_traits>

#include "golden/gemm.h"

namespace qacc::model {

namespace {

// An SRAM byte as the operand type of the command (two's complement for int8).
template <typename T>
T OperandFromByte(uint8_t byte) {
  if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(byte < 128 ? int{byte} : int{byte} - 256);
  } else {
    return byte;
  }
}

}  // namespace

MacArrayModel::MacArrayModel(const arch::ArchConfig& config, const DecodedCommand& command,
                             const Srams& srams)
    : rows_(config.rows), cols_(config.cols), command_(command), srams_(srams) {}

void MacArrayModel::ComputeTile(int64_t t, std::vector<int32_t>& acc) const {
  if (command_.a_unsigned) {
    command_.b_unsigned ? Compute<uint8_t, uint8_t>(t, acc) : Compute<uint8_t, int8_t>(t, acc);
  } else {
    command_.b_unsigned ? Compute<int8_t, uint8_t>(t, acc) : Compute<int8_t, int8_t>(t, acc);
  }
}

std::vector<int32_t> MacArrayModel::ComputeTile(int64_t t) const {
  std::vector<int32_t> acc;
  ComputeTile(t, acc);
  return acc;
}

// Beat k of tile t is A word a_base + mb*K + k (lane r = row r of the panel) and B word
// b_base + nb*K + k (lane c = column c), section 6.1. The valid m_valid x K and K x n_valid panels
// go through golden::Gemm; the padded lanes stay 0.
template <typename TA, typename TB>
void MacArrayModel::Compute(int64_t t, std::vector<int32_t>& acc) const {
  const arch::Timing& timing = command_.timing;
  const int64_t mb = timing.TileMb(t), nb = timing.TileNb(t);
  const int m_valid = static_cast<int>(timing.MValid(mb));
  const int n_valid = static_cast<int>(timing.NValid(nb));
  const int k_dim = static_cast<int>(timing.k);
  const uint32_t a_word = command_.a_base + static_cast<uint32_t>(mb * k_dim);
  const uint32_t b_word = command_.b_base + static_cast<uint32_t>(nb * k_dim);
  golden::Matrix<TA> a(m_valid, k_dim);
  golden::Matrix<TB> b(k_dim, n_valid);
  for (int k = 0; k < k_dim; ++k) {
    for (int r = 0; r < m_valid; ++r) a.at(r, k) = OperandFromByte<TA>(srams_.a(a_word + k, r));
    for (int c = 0; c < n_valid; ++c) b.at(k, c) = OperandFromByte<TB>(srams_.b(b_word + k, c));
  }
  const golden::Matrix<int32_t> product = golden::Gemm(a, b, {}, command_.a_zp, command_.b_zp);
  acc.assign(size_t(rows_) * cols_, 0);
  for (int r = 0; r < m_valid; ++r) {
    std::copy_n(&product.at(r, 0), n_valid, &acc[size_t(r) * cols_]);
  }
}

}  // namespace qacc::model
