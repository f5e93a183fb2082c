// The beats the RTL emits at the unit boundaries (docs/architecture.md 8) with the cycle the spec
// predicts for each (section 7). Cycles are absolute: the command's launch cycle (its cycle 0) plus
// the section 7 formula.
#ifndef QACC_MODEL_BEATS_H_
#define QACC_MODEL_BEATS_H_

#include <cstdint>
#include <vector>

#include "model/command.h"
#include "model/gemm_engine.h"

namespace qacc::model {

// MAC array input beats of one tile: beat k (k = 0..beats-1, last = beats-1) on the array's input
// port in cycle first_cycle + k, I(t,k).
struct MacInRun {
  int64_t tile = 0;
  int64_t first_cycle = 0;
  int64_t beats = 0;  // K
};

// A row beat (units.md 21.2) of unit `BeatUnit`: row i of tile t, all C lanes, in its cycle: the
// MAC array's output at O(t,i) (lanes: the accumulators), requant's at Q(t,i) (lanes: y
// sign-extended, or x with OUT_RAW). One type for every unit with a row-beat monitor.
struct RowBeat {
  int64_t cycle = 0;
  int64_t tile = 0;
  int row = 0;
  bool last = false;                    // i = R-1
  std::vector<int32_t> lanes;           // C lanes
  uint64_t known_lanes = ~uint64_t{0};  // bit c: lane c is predicted (see TileResult::known_lanes)
};

// Output SRAM write at W(t,i), only for rows i < m_valid.
struct OutWriteBeat {
  int64_t cycle = 0;
  int64_t tile = 0;
  int row = 0;
  uint32_t addr = 0;        // output SRAM word
  std::vector<uint8_t> be;  // 4C byte enables (0/1)
  std::vector<uint8_t>
      data;  // 4C bytes; bytes with be = 0 are predicted as 0 and must not be compared
  std::vector<uint8_t> known;  // 4C: 1 where the byte is predicted (be = 1 and its lane is known)
};

// The MAC input beats of tile t at their section 7 cycles.
MacInRun MakeMacInRun(const DecodedCommand& cmd, int64_t tile, int64_t launch_cycle);
// Row beat i of unit `unit` of a computed tile, for a command launched at `launch_cycle`.
RowBeat MakeRowBeat(arch::BeatUnit unit, const DecodedCommand& cmd, const TileResult& tile, int row,
                    int64_t launch_cycle);
// Precondition: row < tile.m_valid.
OutWriteBeat MakeOutWriteBeat(const DecodedCommand& cmd, const TileResult& tile, int row,
                              int64_t launch_cycle);

}  // namespace qacc::model

#endif  // QACC_MODEL_BEATS_H_
