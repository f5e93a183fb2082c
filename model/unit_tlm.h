// What the SystemC unit modules share (docs/model.md "Simulated units"): their latencies, the
// transactions that pass between them and the interfaces they are passed through.
//
// The units are loosely timed: a transaction carries one tile's beats, each stamped with its exact
// cycle, and a unit derives the cycles of its own beats from the cycles of its input beats and its
// own pipeline. No unit waits on the SystemC clock, and none uses the closed-form formulas of
// section 7 (the library qacc_units does not link qacc_closed_form; see model/CMakeLists.txt).
//
//   feed_controller --Feed(TileFeed&)--> mac_array --put(RowTile)--> requant --put(RowTile)-->
//   lut --put(RowTile)--> out_writer --CommandComplete(last row's cycle)--> feed_controller
//
// Feed is a blocking transport with timing annotation (as b_transport's delay): the controller asks
// for the cycle it can deliver the tile's first beat in, the array moves it later until the tile is
// free of structural hazards. Every unit also writes its output transaction to its `monitor`
// analysis port.
#ifndef QACC_MODEL_UNIT_TLM_H_
#define QACC_MODEL_UNIT_TLM_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/arch.h"
#include "model/beats.h"
#include "model/gemm_engine.h"

namespace qacc::model {

// The latency of each pipeline stage, in cycles (docs/architecture.md 7, 8). The defaults are the
// spec's; a test builds a unit with a wrong one to show that the comparison notices.
struct UnitLatencies {
  int64_t setup = arch::kCmdSetupLatency;    // Ls: command decode before the first SRAM read
  int64_t sram_read = arch::kSramReadLatency;  // Lr: SRAM address -> data on the array input
  int64_t mac_edge = arch::kMacEdgeLatency;  // Le: the array's input (edge) register
  int64_t requant = arch::kRequantLatency;   // Lq: requant pipeline stages
  int64_t lut = arch::kLutLatency;           // L_lut: LUT stage (lut.md 10.4)
  int64_t slope = arch::kSlopeLatency;       // L_slope: slope stage (requant.md 6.2)
  int64_t out_write = arch::kOutWriteLatency;  // Lw: requant (or LUT) output -> SRAM write port
  int64_t status = 1;  // the last row's write slot (rising edge ending its cycle) -> DONE visible
};

// One tile's K input beats, controller -> MAC array. first_cycle: beat 0 on the array's input port;
// the controller asks for a cycle, the array answers with the cycle it accepts (never earlier).
struct TileFeed {
  std::shared_ptr<const GemmEngine> command;
  int64_t tile = 0;
  bool last_tile = false;
  int64_t first_cycle = 0;
  int64_t beats = 0;  // K
};

// One tile's R row beats, from a unit with a row-beat monitor to the next stage: the MAC array's to
// requant, requant's to the LUT unit, the LUT unit's (or requant's, bypassed) to the out writer.
struct RowTile {
  std::shared_ptr<const GemmEngine> command;
  int64_t tile = 0;
  bool last_tile = false;
  std::vector<RowBeat> rows;
};

// One tile's SRAM writes (rows i < m_valid), from the out writer.
struct OutWriteTile {
  int64_t tile = 0;
  bool last_tile = false;
  std::vector<OutWriteBeat> writes;
};

class FeedIf : public virtual sc_core::sc_interface {
 public:
  virtual void Feed(TileFeed& feed) = 0;
};

class CompletionIf : public virtual sc_core::sc_interface {
 public:
  // The command's last row left the out writer in `last_row_cycle` (its write, if the row is not
  // padding, presented then).
  virtual void CommandComplete(int64_t last_row_cycle) = 0;
};

// Analysis ports print what they carry when SystemC dumps a channel.
std::ostream& operator<<(std::ostream& os, const RowTile& tile);

// A beat stream entering a pipeline that takes one beat per cycle: each beat must come later than
// the one before it; otherwise the unit is over-run, reported with SC_REPORT_ERROR naming `unit`.
class IssueRateCheck {
 public:
  void Accept(int64_t cycle, const char* unit);

 private:
  int64_t last_ = INT64_MIN;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_UNIT_TLM_H_
