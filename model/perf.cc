#include "model/perf.h"

#include <algorithm>

namespace qacc::model {

namespace {

// Events in `runs` runs of `length` consecutive cycles, run j starting at first + j * period
// (length <= period), that happened before `cycle`.
int64_t CountBefore(int64_t cycle, int64_t first, int64_t period, int64_t length, int64_t runs) {
  const int64_t elapsed = cycle - first;
  if (elapsed <= 0 || runs <= 0 || length <= 0) return 0;
  const int64_t full = std::min(elapsed / period, runs);
  const int64_t partial = full < runs ? std::min(elapsed % period, length) : 0;
  return full * length + partial;
}

uint32_t Wrap(int64_t value) { return static_cast<uint32_t>(static_cast<uint64_t>(value)); }

}  // namespace

bool PerfCounters::operator==(const PerfCounters& other) const {
  return cycles == other.cycles && busy == other.busy && out_writes == other.out_writes &&
         feed_stall == other.feed_stall;
}

PerfCounters PerfAt(const arch::Timing& timing, int64_t cycle) {
  const int64_t e = timing.E();
  cycle = std::clamp<int64_t>(cycle, 0, e);
  const int64_t tiles = timing.T(), period = timing.P(), k = timing.k, rows = timing.rows;
  PerfCounters perf;
  perf.cycles = Wrap(cycle);
  for (const arch::BeatUnitInfo& unit : arch::kBeatUnits) {
    const arch::Timing::InputBeats in = timing.In(unit.beat);
    perf.busy[static_cast<size_t>(unit.beat)] =
        Wrap(CountBefore(cycle, in.first, period, in.per_tile, tiles));
  }
  perf.feed_stall = Wrap(CountBefore(cycle, timing.F(0, k - 1) + 1, period, period - k, tiles - 1));
  // Writes: R per tile except the last tile row (mb = MB-1), which writes m_valid rows per tile.
  const int64_t nb_count = timing.NB();
  const int64_t last_row_first_tile = (timing.MB() - 1) * nb_count;
  const int64_t m_valid_last = timing.MValid(timing.MB() - 1);
  const int64_t before_last = CountBefore(cycle, timing.W(0, 0), period, rows, last_row_first_tile);
  const int64_t in_last =
      CountBefore(cycle, timing.W(last_row_first_tile, 0), period, m_valid_last, nb_count);
  perf.out_writes = Wrap(before_last + in_last);
  return perf;
}

PerfCounters ErrorPerf() {
  PerfCounters perf;
  perf.cycles = static_cast<uint32_t>(arch::kErrorCycles);
  return perf;
}

}  // namespace qacc::model
