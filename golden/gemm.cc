#include "golden/gemm.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace qacc::golden {

template <typename T>
void ValidateMatrix(const Matrix<T>& matrix, std::string_view what) {
  if (matrix.rows < 0) {
    throw std::invalid_argument(fmt::format("{}.rows: {} must be >= 0", what, matrix.rows));
  }
  if (matrix.cols < 0) {
    throw std::invalid_argument(fmt::format("{}.cols: {} must be >= 0", what, matrix.cols));
  }
  const size_t expected = size_t(matrix.rows) * size_t(matrix.cols);
  if (matrix.data.size() != expected) {
    throw std::invalid_argument(fmt::format("{}.data.size: {} does not match rows * cols = {}",
                                            what, matrix.data.size(), expected));
  }
}

namespace {

void CheckZeroPoint(int32_t zero_point, std::string_view field) {
  if (zero_point < kMinOperandZeroPoint || zero_point > kMaxOperandZeroPoint) {
    throw std::invalid_argument(fmt::format("{}: {} is out of range, allowed {}..{}", field,
                                            zero_point, kMinOperandZeroPoint,
                                            kMaxOperandZeroPoint));
  }
}

template <typename TA, typename TB>
void ValidateGemmArgs(const Matrix<TA>& a, const Matrix<TB>& b, const std::vector<int32_t>& bias,
                      int32_t a_zero_point, int32_t b_zero_point) {
  ValidateMatrix(a, "a");
  ValidateMatrix(b, "b");
  if (b.rows != a.cols) {
    throw std::invalid_argument(fmt::format("b.rows: {} does not match a.cols {}", b.rows, a.cols));
  }
  if (!bias.empty() && bias.size() != size_t(b.cols)) {
    throw std::invalid_argument(
        fmt::format("bias.size: {} must be 0 (no bias) or b.cols {}", bias.size(), b.cols));
  }
  CheckZeroPoint(a_zero_point, "a_zero_point");
  CheckZeroPoint(b_zero_point, "b_zero_point");
}

// One MAC product (A - a_zp) * (B - b_zp): both factors in -383..383, so the product fits int32.
inline int32_t Product(int32_t a, int32_t a_zero_point, int32_t b, int32_t b_zero_point) {
  return (a - a_zero_point) * (b - b_zero_point);
}

bool FitsInt32(int64_t x) {
  return x >= std::numeric_limits<int32_t>::min() && x <= std::numeric_limits<int32_t>::max();
}

}  // namespace

template <typename TA, typename TB>
Matrix<int32_t> Gemm(const Matrix<TA>& a, const Matrix<TB>& b, const std::vector<int32_t>& bias,
                     int32_t a_zero_point, int32_t b_zero_point) {
  ValidateGemmArgs(a, b, bias, a_zero_point, b_zero_point);
  // The factors A - a_zp and B - b_zp are in -383..383, so they are formed once as int16 (as the
  // RTL's edge registers do), B's transposed: each output is then one dot product of two contiguous
  // rows, a loop the compiler vectorises. A product fits int32; the sum is taken in uint32, which
  // wraps by definition like the hardware's 32-bit adder (no signed-overflow UB). Addition mod 2^32
  // is order-independent, so this is the same value as the k-ordered sum.
  const int m_dim = a.rows, n_dim = b.cols, k_dim = a.cols;
  std::vector<int16_t> a_factor(a.data.size());
  for (size_t i = 0; i < a.data.size(); ++i) {
    a_factor[i] = static_cast<int16_t>(static_cast<int32_t>(a.data[i]) - a_zero_point);
  }
  std::vector<int16_t> b_factor_t(b.data.size());  // b_factor_t[n * K + k] = B[k][n] - b_zp
  for (int n = 0; n < n_dim; ++n) {
    for (int k = 0; k < k_dim; ++k) {
      b_factor_t[size_t(n) * k_dim + k] =
          static_cast<int16_t>(static_cast<int32_t>(b.at(k, n)) - b_zero_point);
    }
  }
  Matrix<int32_t> c(m_dim, n_dim);
  for (int m = 0; m < m_dim; ++m) {
    const int16_t* a_row = a_factor.data() + size_t(m) * k_dim;
    for (int n = 0; n < n_dim; ++n) {
      const int16_t* b_col = b_factor_t.data() + size_t(n) * k_dim;
      uint32_t acc = bias.empty() ? 0u : static_cast<uint32_t>(bias[n]);
      for (int k = 0; k < k_dim; ++k) {
        acc += static_cast<uint32_t>(int32_t{a_row[k]} * int32_t{b_col[k]});
      }
      c.at(m, n) = WrapToInt32(acc);
    }
  }
  return c;
}

template <typename TA, typename TB>
std::optional<GemmOverflow> CheckGemmOverflow(const Matrix<TA>& a, const Matrix<TB>& b,
                                              const std::vector<int32_t>& bias,
                                              int32_t a_zero_point, int32_t b_zero_point,
                                              OverflowCheck check) {
  ValidateGemmArgs(a, b, bias, a_zero_point, b_zero_point);
  std::optional<GemmOverflow> first;
  int64_t num_overflowing = 0;
  for (int m = 0; m < a.rows; ++m) {
    for (int n = 0; n < b.cols; ++n) {
      int64_t sum = bias.empty() ? 0 : bias[n];  // a bias is int32, so the empty prefix always fits
      std::optional<GemmOverflow> here;
      for (int k = 0; k < a.cols; ++k) {
        sum += Product(a.at(m, k), a_zero_point, b.at(k, n), b_zero_point);
        if (check == OverflowCheck::kRunningSum && !here && !FitsInt32(sum)) {
          here = GemmOverflow{m, n, k, sum, 0};
        }
      }
      if (check == OverflowCheck::kFinalValue && !FitsInt32(sum)) {
        here = GemmOverflow{m, n, a.cols, sum, 0};
      }
      if (here) {
        ++num_overflowing;
        if (!first) first = here;
      }
    }
  }
  if (first) first->num_overflowing = num_overflowing;
  return first;
}

#define QACC_INSTANTIATE_GEMM(TA, TB)                                                              \
  template Matrix<int32_t> Gemm(const Matrix<TA>&, const Matrix<TB>&, const std::vector<int32_t>&, \
                                int32_t, int32_t);                                                 \
  template std::optional<GemmOverflow> CheckGemmOverflow(const Matrix<TA>&, const Matrix<TB>&,     \
                                                         const std::vector<int32_t>&, int32_t,     \
                                                         int32_t, OverflowCheck);
QACC_INSTANTIATE_GEMM(int8_t, int8_t)
QACC_INSTANTIATE_GEMM(int8_t, uint8_t)
QACC_INSTANTIATE_GEMM(uint8_t, int8_t)
QACC_INSTANTIATE_GEMM(uint8_t, uint8_t)
#undef QACC_INSTANTIATE_GEMM

template void ValidateMatrix(const Matrix<int8_t>&, std::string_view);
template void ValidateMatrix(const Matrix<uint8_t>&, std::string_view);
template void ValidateMatrix(const Matrix<int32_t>&, std::string_view);

}  // namespace qacc::golden
