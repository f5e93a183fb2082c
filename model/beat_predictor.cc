#include "model/beat_predictor.h"

#include <algorithm>

namespace qacc::model {

BeatPredictor::BeatPredictor(std::shared_ptr<const GemmEngine> engine, int64_t launch_cycle)
    : engine_(std::move(engine)),
      launch_cycle_(launch_cycle),
      done_cycle_(launch_cycle + (engine_ ? engine_->timing().E() : arch::kErrorCycles)),
      num_tiles_(engine_ ? engine_->num_tiles() : 0) {}

// Tiles are computed once and dropped when every stream has moved past them.
std::shared_ptr<const TileResult> BeatPredictor::Tile(int64_t t) {
  int64_t oldest_needed = std::min(out_.next_tile, t);
  for (const Stream<RowBeat>& stream : rows_)
    oldest_needed = std::min(oldest_needed, stream.next_tile);
  while (!tiles_.empty() && tiles_.front().first < oldest_needed) tiles_.pop_front();
  for (const auto& [index, tile] : tiles_) {
    if (index == t) return tile;
  }
  tiles_.emplace_back(t, std::make_shared<const TileResult>(engine_->ComputeTile(t)));
  return tiles_.back().second;
}

void BeatPredictor::Refill(Stream<MacInRun>& stream) {
  if (!stream.beats.empty() || stream.next_tile >= num_tiles_) return;
  stream.beats.push_back(MakeMacInRun(engine_->command(), stream.next_tile++, launch_cycle_));
}

void BeatPredictor::Refill(arch::BeatUnit unit) {
  Stream<RowBeat>& stream = rows_[size_t(unit)];
  if (!stream.beats.empty() || stream.next_tile >= num_tiles_) return;
  if (!engine_->timing().Beats(unit)) return;  // a unit this command does not use
  const auto tile = Tile(stream.next_tile++);
  for (int row = 0; row < engine_->rows(); ++row) {
    stream.beats.push_back(MakeRowBeat(unit, engine_->command(), *tile, row, launch_cycle_));
  }
}

void BeatPredictor::Refill(Stream<OutWriteBeat>& stream) {
  if (!stream.beats.empty() || stream.next_tile >= num_tiles_) return;
  const auto tile = Tile(stream.next_tile++);
  for (int row = 0; row < tile->m_valid; ++row) {
    stream.beats.push_back(MakeOutWriteBeat(engine_->command(), *tile, row, launch_cycle_));
  }
}

const MacInRun* BeatPredictor::PeekMacIn() {
  Refill(mac_in_);
  return mac_in_.beats.empty() ? nullptr : &mac_in_.beats.front();
}
const RowBeat* BeatPredictor::PeekBeat(arch::BeatUnit unit) {
  Refill(unit);
  const auto& beats = rows_[size_t(unit)].beats;
  return beats.empty() ? nullptr : &beats.front();
}
const OutWriteBeat* BeatPredictor::PeekOutWrite() {
  Refill(out_);
  return out_.beats.empty() ? nullptr : &out_.beats.front();
}
void BeatPredictor::PopMacIn() {
  if (PeekMacIn()) mac_in_.beats.pop_front();
}
void BeatPredictor::PopBeat(arch::BeatUnit unit) {
  if (PeekBeat(unit)) rows_[size_t(unit)].beats.pop_front();
}
void BeatPredictor::PopOutWrite() {
  if (PeekOutWrite()) out_.beats.pop_front();
}

}  // namespace qacc::model
