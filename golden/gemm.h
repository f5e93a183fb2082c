// Integer GEMM of the MAC array: 8-bit operands, zero points, 32-bit wrapping accumulators.
//
//   C[m][n] = bias[n] + sum_{k=0}^{K-1} (A[m][k] - a_zp) * (B[k][n] - b_zp)      (mod 2^32)
//
// A is M x K row-major (activations: one row per output pixel, streamed row by row into the array),
// B is K x N row-major (weights: column n is output channel n, streamed column by column), C and
// the optional bias are int32. Each operand is int8 or uint8 (the four combinations are
// instantiated).
//
// The accumulator is a 32-bit two's complement register that wraps, like the RTL adder: bias first,
// then the products in k order. Addition mod 2^32 is associative and commutative, so the order (and
// any overflow of an intermediate sum) cannot change the final value; only the exact final value
// matters, and it comes out right whenever it fits int32. CheckGemmOverflow reports when it does
// not.
#ifndef QACC_GOLDEN_GEMM_H_
#define QACC_GOLDEN_GEMM_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace qacc::golden {

// A dense row-major matrix: element (r, c) is data[r * cols + c]. Dimensions may be 0.
template <typename T>
struct Matrix {
  int rows = 0;
  int cols = 0;
  std::vector<T> data;

  Matrix() = default;
  Matrix(int num_rows, int num_cols, T fill = T{})
      : rows(num_rows), cols(num_cols), data(Size(num_rows, num_cols), fill) {}

  T& at(int r, int c) { return data[Index(r, c)]; }
  const T& at(int r, int c) const { return data[Index(r, c)]; }

 private:
  static size_t Size(int r, int c) { return r > 0 && c > 0 ? size_t(r) * size_t(c) : 0; }
  size_t Index(int r, int c) const { return size_t(r) * size_t(cols) + size_t(c); }
};

// Throws std::invalid_argument naming `what` ("a.rows", "b.data.size") when a dimension is negative
// or data.size() != rows * cols.
template <typename T>
void ValidateMatrix(const Matrix<T>& matrix, std::string_view what);

// Zero points accepted for an 8-bit operand: the union of the int8 and uint8 code ranges,
// -128..255. (A - zp) then lies in -383..383, so one product is below 2^18 in magnitude and never
// overflows int32.
inline constexpr int32_t kMinOperandZeroPoint = -128;  // QMin(8, /*is_signed=*/true)
inline constexpr int32_t kMaxOperandZeroPoint = 255;   // QMax(8, /*is_signed=*/false)

// Returns the M x N int32 accumulators defined above. `bias` is empty (no bias) or has N entries.
// Throws std::invalid_argument naming the field on a shape mismatch ("b.rows: 3 does not match
// a.cols 4"), a bias of the wrong size or a zero point outside -128..255.
template <typename TA, typename TB>
Matrix<int32_t> Gemm(const Matrix<TA>& a, const Matrix<TB>& b, const std::vector<int32_t>& bias,
                     int32_t a_zero_point, int32_t b_zero_point);

// Which accumulator values count as an overflow of the 32-bit register.
enum class OverflowCheck {
  // The exact final value bias[n] + sum_k (...) is outside int32, so the wrapped result is wrong.
  // This is the rule that matters: under mod-2^32 arithmetic intermediate overflows cancel out.
  kFinalValue,
  // Some running sum bias[n], bias[n] + p_0, bias[n] + p_0 + p_1, ... (products in k order) is
  // outside int32. Relevant to a saturating accumulator or a narrower partial-sum buffer, never to
  // the result of the wrapping one.
  kRunningSum,
};

// The first accumulator, in row-major (m, n) order, that overflows under the chosen rule.
struct GemmOverflow {
  int m = 0;
  int n = 0;
  // kRunningSum: index of the product whose addition first took the sum outside int32. kFinalValue:
  // K.
  int k = 0;
  int64_t exact_value = 0;  // the exact sum at that point (final value or offending running sum)
  int64_t num_overflowing = 0;  // how many of the M * N accumulators overflow under the rule
};

// Recomputes every accumulator exactly in int64 (|sum| < 2^31 + K * 383^2, far below 2^63) and
// returns the first overflow, or nullopt when every value fits int32. Same validation as Gemm.
template <typename TA, typename TB>
std::optional<GemmOverflow> CheckGemmOverflow(const Matrix<TA>& a, const Matrix<TB>& b,
                                              const std::vector<int32_t>& bias,
                                              int32_t a_zero_point, int32_t b_zero_point,
                                              OverflowCheck check);

// Two's complement reinterpretation of the low 32 bits: the value of a 32-bit register holding x
// mod 2^32. Written without the implementation-defined narrowing conversion of C++17.
inline constexpr int32_t WrapToInt32(uint32_t x) {
  constexpr uint32_t kSignBit = uint32_t{1} << 31;
  return x < kSignBit ? static_cast<int32_t>(x)
                      : static_cast<int32_t>(x - kSignBit) - static_cast<int32_t>(kSignBit - 1) - 1;
}

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_GEMM_H_
