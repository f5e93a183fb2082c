// The RTL's clock cycles on a second thread, ahead of the checks (qacc cosim --threads 2,
// docs/cosim.md "Two threads"). While the engine waits for a command to end, the RTL's inputs do
// not change: the APB pins are idle and the memory port is bridged inside Dut::Cycle. So the
// Verilated model can run those cycles on its own thread into a ring of samples, and the engine
// takes them in cycle order and does everything else of its cycle (model, scoreboard, coverage)
// as it would with one thread. The worker stops after the first sample with DONE, or before the
// limit cycle: the only cycles after which the engine's wait can end. Until then every cycle it
// ran is one the engine would have run with the same inputs, so both modes give the same results.
#ifndef QACC_SIM_COSIM_RTL_RUNAHEAD_H_
#define QACC_SIM_COSIM_RTL_RUNAHEAD_H_

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <thread>

#include "sim/cosim/dut.h"

namespace qacc::cosim {

class RtlRunahead {
 public:
  // Starts the worker at cycle `first` with `pins` held on the APB inputs. It runs cycles below
  // `limit` and stops after the first sample with done = 1.
  RtlRunahead(Dut& dut, const ApbPins& pins, int64_t first, int64_t limit);
  // Stops the worker (after the cycle it is in) and joins it.
  ~RtlRunahead();
  RtlRunahead(const RtlRunahead&) = delete;
  RtlRunahead& operator=(const RtlRunahead&) = delete;

  // The sample of `cycle`, the next one in order, copied into `sample`; waits for the worker.
  // False when the worker has stopped before running `cycle`: the caller runs the RTL itself
  // from there (its state is that after cycle - 1). Throws what Dut::Cycle threw in `cycle`.
  bool Take(int64_t cycle, RtlSample& sample);
  // Lowers the limit (the engine learns a watchdog cycle later); cycles already run stay valid.
  void SetLimit(int64_t limit) { limit_.store(limit, std::memory_order_release); }
  // Cycles the worker has run so far.
  int64_t produced() const { return produced_.load(std::memory_order_acquire); }

  // The ring: how far the worker runs ahead of the engine (about 84 KB of samples).
  static constexpr int64_t kSlots = 64;

 private:
  void Run();

  Dut& dut_;
  const ApbPins pins_;
  const int64_t first_;
  std::unique_ptr<RtlSample[]> slots_;
  std::exception_ptr error_;  // what the cycle after the last produced threw; read after finished_
  std::thread worker_;
  // Each counter on its own cache line: the worker writes produced_ and the engine consumed_ every
  // cycle, and a line both write would move between the cores twice a cycle. The worker reads
  // consumed_ only when its last copy says the ring is full.
  alignas(64) std::atomic<int64_t> produced_{0};  // cycles first_ .. first_ + produced_ - 1 ran
  alignas(64) std::atomic<int64_t> consumed_{0};  // of which the first consumed_ are taken
  // Written rarely, read by the worker every cycle: a line of their own stays in both caches.
  alignas(64) std::atomic<int64_t> limit_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> finished_{false};
};

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_RTL_RUNAHEAD_H_
