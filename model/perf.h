// Performance counters of section 3.2 (PERF_*) as a function of the command cycle: the final values
// hold from cycle E on, and while a command runs each counter shows the events of the cycles before
// the current one.
#ifndef QACC_MODEL_PERF_H_
#define QACC_MODEL_PERF_H_

#include <array>
#include <cstdint>

#include "model/arch.h"

namespace qacc::model {

struct PerfCounters {
  uint32_t cycles = 0;  // PERF_CYCLES: E
  // PERF_<x>_BUSY of each beat unit (arch::kBeatUnits[u].busy_reg): cycles with an input beat of
  // the unit, Timing::Busy(u) (PERF_MAC_BUSY T * K, PERF_RQ_BUSY T * Rows).
  std::array<uint32_t, arch::kNumBeatUnits> busy{};
  uint32_t out_writes = 0;  // PERF_OUT_WRITES: output SRAM writes, NB * M
  uint32_t feed_stall = 0;  // PERF_FEED_STALL: (T - 1) * (P - K)

  uint32_t Busy(arch::BeatUnit unit) const { return busy[static_cast<size_t>(unit)]; }
  bool operator==(const PerfCounters& other) const;
};

// Counter values visible in command cycle `cycle` (0 = launch) of a valid command. A counter counts
// an event of cycle x from cycle x + 1 on, so at cycle 0 all are 0 and from E on all are final.
// Event cycles:
//   cycles      every cycle 0 .. E-1
//   busy[u]     Timing::In(u): the unit's input beats (MAC array: I(t,k) = 2 + t*P + k;
//               requant: O(t,i), the MAC array's output beats)
//   out_writes  W(t,i), i < m_valid(mb)
//   feed_stall  F(t,K-1) + 1 .. F(t+1,0) - 1, t < T-1     (the feeder waits between two tiles'
//   reads)
// Counters wrap modulo 2^32.
PerfCounters PerfAt(const arch::Timing& timing, int64_t cycle);

// Final values of a command rejected by validation (PERF_CYCLES = 1, nothing else counted).
PerfCounters ErrorPerf();

}  // namespace qacc::model

#endif  // QACC_MODEL_PERF_H_
