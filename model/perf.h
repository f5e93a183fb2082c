// Performance counters of section 3.2 (PERF_*) as a function of the command cycle: the final values
// hold from cycle E on, and while a command runs each counter shows the events of the cycles before
// the current one.
#ifndef QACC_MODEL_PERF_H_
#define QACC_MODEL_PERF_H_

#include <cstdint>

#include "model/arch.h"

namespace qacc::model {

struct PerfCounters {
  uint32_t cycles = 0;      // PERF_CYCLES: E
  uint32_t mac_busy = 0;    // PERF_MAC_BUSY: cycles with a MAC array input beat, T * K
  uint32_t rq_busy = 0;     // PERF_RQ_BUSY: cycles with a requant input beat, T * Rows
  uint32_t out_writes = 0;  // PERF_OUT_WRITES: output SRAM writes, NB * M
  uint32_t feed_stall = 0;  // PERF_FEED_STALL: (T - 1) * (P - K)

  bool operator==(const PerfCounters& other) const;
};

// Counter values visible in command cycle `cycle` (0 = launch) of a valid command. A counter counts
// an event of cycle x from cycle x + 1 on, so at cycle 0 all are 0 and from E on all are final.
// Event cycles:
//   cycles      every cycle 0 .. E-1
//   mac_busy    I(t,k) = 2 + t*P + k                     (MAC array input beats)
//   rq_busy     O(t,i)                                   (requant input = MAC output beats)
//   out_writes  W(t,i), i < m_valid(mb)
//   feed_stall  F(t,K-1) + 1 .. F(t+1,0) - 1, t < T-1     (the feeder waits between two tiles'
//   reads)
// Counters wrap modulo 2^32.
PerfCounters PerfAt(const arch::Timing& timing, int64_t cycle);

// Final values of a command rejected by validation (PERF_CYCLES = 1, nothing else counted).
PerfCounters ErrorPerf();

}  // namespace qacc::model

#endif  // QACC_MODEL_PERF_H_
