// The test generators' random numbers: a fixed, platform-independent generator, so that the same
// (test, seed, config) gives the same program everywhere.
#ifndef QACC_SIM_TESTGEN_RNG_H_
#define QACC_SIM_TESTGEN_RNG_H_

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace qacc::sim {

// splitmix64: a fixed, platform-independent generator (std:: distributions differ between standard
// libraries, which would break "same seed, same job").
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E37'79B9'7F4A'7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58'476D'1CE4'E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D0'49BB'1331'11EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi] (inclusive). The modulo bias is below 2^-40 for our spans.
  int64_t Uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Uniform(0, 99) < percent; }
  template <typename T>
  T Pick(std::initializer_list<T> values) {
    return *(values.begin() + Uniform(0, int64_t(values.size()) - 1));
  }

 private:
  uint64_t state_;
};

// FNV-1a of the test name, so that different tests with the same seed draw different streams.
inline uint64_t HashName(std::string_view name) {
  uint64_t h = 0xCBF2'9CE4'8422'2325ull;
  for (char c : name) h = (h ^ uint8_t(c)) * 0x0000'0100'0000'01B3ull;
  return h;
}

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_RNG_H_
