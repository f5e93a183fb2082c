#include "sim/cosim/rtl_runahead.h"

#include <stdexcept>
#include <thread>

namespace qacc::cosim {

namespace {

// Waits with a short spin, then by yielding the core: the other thread is usually a few hundred
// nanoseconds from ready, but on a busy machine it may need this one's core to get there.
class Backoff {
 public:
  void Pause() {
    if (++spins_ < 1024) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      std::this_thread::yield();
    }
  }

 private:
  int spins_ = 0;
};

}  // namespace

RtlRunahead::RtlRunahead(Dut& dut, const ApbPins& pins, int64_t first, int64_t limit)
    : dut_(dut),
      pins_(pins),
      first_(first),
      slots_(std::make_unique<RtlSample[]>(size_t(kSlots))),
      limit_(limit) {
  worker_ = std::thread([this] { Run(); });
}

RtlRunahead::~RtlRunahead() {
  stop_.store(true, std::memory_order_release);
  worker_.join();
  dut_.BindThread();  // the engine's thread runs the RTL again
}

void RtlRunahead::Run() {
  dut_.BindThread();
  dut_.SetApb(pins_);
  int64_t consumed = 0;  // the worker's last copy of consumed_
  for (int64_t n = 0;; ++n) {
    Backoff backoff;
    while (n - consumed >= kSlots) {  // full, as far as the worker knows
      consumed = consumed_.load(std::memory_order_acquire);
      if (n - consumed < kSlots || stop_.load(std::memory_order_acquire)) break;
      backoff.Pause();
    }
    if (stop_.load(std::memory_order_acquire) ||
        first_ + n >= limit_.load(std::memory_order_acquire)) {
      break;
    }
    RtlSample& sample = slots_[size_t(n % kSlots)];
    try {
      dut_.Cycle(first_ + n, sample);
    } catch (...) {  // thrown to the engine when it takes this cycle, as with one thread
      error_ = std::current_exception();
      break;
    }
    const bool done = sample.done;
    produced_.store(n + 1, std::memory_order_release);
    if (done) break;
  }
  finished_.store(true, std::memory_order_release);
}

bool RtlRunahead::Take(int64_t cycle, RtlSample& sample) {
  const int64_t n = cycle - first_;
  if (n != consumed_.load(std::memory_order_relaxed)) {
    throw std::logic_error("RtlRunahead::Take: cycles out of order");
  }
  Backoff backoff;
  while (produced_.load(std::memory_order_acquire) <= n) {
    // The worker sets finished_ after its last produced_: read them in that order.
    if (finished_.load(std::memory_order_acquire) &&
        produced_.load(std::memory_order_acquire) <= n) {
      if (error_) std::rethrow_exception(error_);
      return false;
    }
    backoff.Pause();
  }
  sample = slots_[size_t(n % kSlots)];
  consumed_.store(n + 1, std::memory_order_release);
  return true;
}

}  // namespace qacc::cosim
