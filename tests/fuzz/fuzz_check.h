// Shared by the libFuzzer harnesses (docs/fuzzing.md): a failed contract check prints what was
// expected and aborts, so that libFuzzer reports it as a finding and saves the input. A harness
// asserts its reader's contract (the value it returns is right, or it throws the documented
// exception with a message naming the field), not only that the reader does not crash.
#ifndef QACC_TESTS_FUZZ_FUZZ_CHECK_H_
#define QACC_TESTS_FUZZ_FUZZ_CHECK_H_

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace qacc::fuzz {

[[noreturn]] inline void ContractViolated(const char* file, int line, const char* condition,
                                          const std::string& what) {
  std::fprintf(stderr, "\n==== contract violated: %s:%d: %s\n==== %s\n", file, line, condition,
               what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace qacc::fuzz

// FUZZ_CHECK(condition, "format", args...): the contract; the message says what was seen.
#define FUZZ_CHECK(condition, ...)                                                            \
  do {                                                                                        \
    if (!(condition)) {                                                                       \
      ::qacc::fuzz::ContractViolated(__FILE__, __LINE__, #condition, fmt::format(__VA_ARGS__)); \
    }                                                                                         \
  } while (false)

#endif  // QACC_TESTS_FUZZ_FUZZ_CHECK_H_
