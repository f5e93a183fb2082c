// A data race on purpose: ThreadSanitizer must report it (the tsan preset's canary, tests/threads).
#include <cstdio>
#include <thread>

int shared_counter = 0;

int main() {
  std::thread other([] { ++shared_counter; });
  ++shared_counter;
  other.join();
  std::printf("%d\n", shared_counter);
  return 0;
}
