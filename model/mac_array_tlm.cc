#include "model/mac_array_tlm.h"

#include <algorithm>

namespace qacc::model {

namespace {
constexpr int64_t kResultRegister = 1;  // a PE's result register: written at the end of a cycle
constexpr int64_t kOutputRegister = 1;  // the drain's output register
}  // namespace

MacArrayTlm::MacArrayTlm(sc_core::sc_module_name name, int rows, int cols,
                         const UnitLatencies& latencies)
    : sc_core::sc_module(name),
      feed_in("feed_in"),
      beat_out("beat_out"),
      monitor("monitor"),
      rows_(rows),
      cols_(cols),
      edge_latency_(latencies.mac_edge),
      row_read_(size_t(rows), INT64_MIN / 2) {
  feed_in.bind(*this);
}

int64_t MacArrayTlm::FirstLaneVisible(int64_t first_beat, int64_t beats, int row) const {
  return first_beat + (beats - 1) + edge_latency_ + row + kResultRegister;
}

int64_t MacArrayTlm::RowComplete(int64_t first_beat, int64_t beats, int row) const {
  return FirstLaneVisible(first_beat, beats, row) + (cols_ - 1);
}

void MacArrayTlm::Feed(TileFeed& feed) {
  const int64_t k = feed.beats;
  // The earliest first beat free of hazards. Each bound is linear in the first beat x, so it is
  // found from the hazard at x = 0.
  int64_t x = std::max(feed.first_cycle, port_free_);
  // The drain reads this tile's row 0 only after the previous tile's last row.
  x = std::max(x, row_read_[size_t(rows_ - 1)] + 1 - RowComplete(0, k, 0));
  // PE(i, 0) is the first of row i to capture this tile: not before row i of the last was read.
  for (int i = 0; i < rows_; ++i) {
    x = std::max(x, row_read_[size_t(i)] + 1 - FirstLaneVisible(0, k, i));
  }
  feed.first_cycle = x;
  port_free_ = x + k;

  RowTile out;
  out.command = feed.command;
  out.tile = feed.tile;
  out.last_tile = feed.last_tile;
  out.rows.resize(size_t(rows_));
  feed.command->mac_array().ComputeTile(feed.tile, acc_);
  int64_t read = INT64_MIN / 2;
  for (int i = 0; i < rows_; ++i) {
    read = std::max(RowComplete(x, k, i), read + 1);
    row_read_[size_t(i)] = read;
    RowBeat& beat = out.rows[size_t(i)];
    beat.cycle = read + kOutputRegister;
    beat.tile = feed.tile;
    beat.row = i;
    beat.last = i == rows_ - 1;
    beat.lanes.assign(acc_.begin() + ptrdiff_t(i) * cols_, acc_.begin() + ptrdiff_t(i + 1) * cols_);
  }
  monitor.write(out);
  beat_out->put(out);
}

}  // namespace qacc::model
