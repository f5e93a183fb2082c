// The sanitizers' own check: a heap overflow and a signed overflow that the debug preset must report
// (with ASAN_OPTIONS/UBSAN_OPTIONS exitcode=86), so that a green debug run means they were on.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "ubsan") == 0) {
    volatile int big = std::numeric_limits<int>::max();
    std::printf("%d\n", big + argc);  // signed overflow
    return 0;
  }
  auto bytes = std::make_unique<char[]>(8);
  volatile int index = 8 + argc - 1;
  bytes[index] = 1;  // one past the end
  std::printf("%d\n", bytes[0]);
  return 0;
}
