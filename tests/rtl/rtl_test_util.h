// Helpers shared by the Verilated RTL unit tests: packed-array field access and mismatch
// collection.
#ifndef QACC_TESTS_RTL_RTL_TEST_UTIL_H_
#define QACC_TESTS_RTL_RTL_TEST_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "verilated.h"

namespace qacc::rtl_test {

// Writes `width` (1..64) bits of `value` at bit `lsb` of a Verilated port of up to 64 bits.
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
void SetBits(T& port, int lsb, int width, uint64_t value) {
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  uint64_t word = static_cast<uint64_t>(port);
  word = (word & ~(mask << lsb)) | ((value & mask) << lsb);
  port = static_cast<T>(word);
}

// Same for a wide port (VlWide: 32-bit words, word 0 holds bits [31:0]). width <= 32.
template <std::size_t N>
void SetBits(VlWide<N>& port, int lsb, int width, uint64_t value) {
  for (int i = 0; i < width; ++i) {
    const int bit = lsb + i;
    const uint32_t mask = uint32_t{1} << (bit % 32);
    if ((value >> i) & 1) {
      port[bit / 32] |= mask;
    } else {
      port[bit / 32] &= ~mask;
    }
  }
}

template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
uint64_t GetBits(const T& port, int lsb, int width) {
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  return (static_cast<uint64_t>(port) >> lsb) & mask;
}

template <std::size_t N>
uint64_t GetBits(const VlWide<N>& port, int lsb, int width) {
  uint64_t value = 0;
  for (int i = 0; i < width; ++i) {
    const int bit = lsb + i;
    value |= static_cast<uint64_t>((port[bit / 32] >> (bit % 32)) & 1) << i;
  }
  return value;
}

// Two's complement value of the low `width` bits.
inline int64_t SignExtend(uint64_t value, int width) {
  const uint64_t sign = uint64_t{1} << (width - 1);
  value &= (sign << 1) - 1;
  return static_cast<int64_t>(value ^ sign) - static_cast<int64_t>(sign);
}

// Counts mismatches and keeps the first one's description, so a failing test reports precisely
// where it first went wrong and how many beats were wrong in total.
class MismatchLog {
 public:
  void Add(const std::string& description) {
    if (count_ == 0) first_ = description;
    ++count_;
  }
  uint64_t count() const { return count_; }
  const std::string& first() const { return first_; }

 private:
  uint64_t count_ = 0;
  std::string first_;
};

}  // namespace qacc::rtl_test

#endif  // QACC_TESTS_RTL_RTL_TEST_UTIL_H_
