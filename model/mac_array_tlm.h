// SystemC model of the MAC array (unit 1, docs/architecture.md 2.1, 5.1): an output-stationary
// array of R x C PEs behind an input (edge) register, with a row-by-row drain through an output
// register. Values come from the plain C++ MacArrayModel; the timing is this module's own, derived
// from that structure and the cycles of the input beats:
//   * beat k of a tile enters the input port in cycle x + k and the edge register Le cycles later;
//     PE(r, c) multiply-accumulates it in cycle x + k + Le + r + c (A skewed by rows, B by columns);
//   * the last beat writes PE(r, c)'s result register, visible from the next cycle, and clears the
//     accumulator (double buffering);
//   * the drain reads one row per cycle, row i as soon as all its C result registers hold the tile
//     and row i-1 was read; the row goes through the output register (+1) to the requant unit.
// A new tile's first beat is accepted at the earliest cycle without a structural hazard: the input
// port is free, the drain has finished reading the previous tile before it reads this one, and no
// PE overwrites a result register its row has not yet been read from.
#ifndef QACC_MODEL_MAC_ARRAY_TLM_H_
#define QACC_MODEL_MAC_ARRAY_TLM_H_

#include <cstdint>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/unit_tlm.h"

namespace qacc::model {

class MacArrayTlm : public sc_core::sc_module, public FeedIf {
 public:
  sc_core::sc_export<FeedIf> feed_in;                          // from the feed controller
  sc_core::sc_port<tlm::tlm_blocking_put_if<RowTile>> beat_out;  // to the requant unit
  tlm::tlm_analysis_port<RowTile> monitor;  // every output tile, with the cycle of each row

  MacArrayTlm(sc_core::sc_module_name name, int rows, int cols, const UnitLatencies& latencies);

  void Feed(TileFeed& feed) override;

 private:
  // The first cycle in which every result register of row `row` holds the tile whose K beats
  // started entering the port in cycle `first_beat` (lane C-1 is the last of the row).
  int64_t RowComplete(int64_t first_beat, int64_t beats, int row) const;
  // The first cycle in which PE(row, 0)'s result register holds that tile.
  int64_t FirstLaneVisible(int64_t first_beat, int64_t beats, int row) const;

  int rows_, cols_;
  int64_t edge_latency_;
  // Hazard state left by the last tile: the first cycle the input port is free, and the cycle in
  // which the drain read each of its rows.
  int64_t port_free_ = INT64_MIN / 2;
  std::vector<int64_t> row_read_;
  std::vector<int32_t> acc_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_MAC_ARRAY_TLM_H_
