#include "model/beat_predictor.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace qacc::model {

BeatPredictor::BeatPredictor(std::shared_ptr<const GemmEngine> engine, int64_t launch_cycle)
    : engine_(std::move(engine)),
      launch_cycle_(launch_cycle),
      done_cycle_(launch_cycle + (engine_ ? engine_->timing().E() : arch::kErrorCycles)),
      num_tiles_(engine_ ? engine_->num_tiles() : 0) {}

// Tiles are computed once and dropped when every stream has moved past them.
std::shared_ptr<const TileResult> BeatPredictor::Tile(int64_t t) {
  const int64_t oldest_needed = std::min({mac_.next_tile, requant_.next_tile, out_.next_tile, t});
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

void BeatPredictor::Refill(Stream<MacBeat>& stream) {
  if (!stream.beats.empty() || stream.next_tile >= num_tiles_) return;
  const auto tile = Tile(stream.next_tile++);
  for (int row = 0; row < engine_->rows(); ++row) {
    stream.beats.push_back(MakeMacBeat(engine_->command(), *tile, row, launch_cycle_));
  }
}

void BeatPredictor::Refill(Stream<RequantBeat>& stream) {
  if (!stream.beats.empty() || stream.next_tile >= num_tiles_) return;
  const auto tile = Tile(stream.next_tile++);
  for (int row = 0; row < engine_->rows(); ++row) {
    stream.beats.push_back(MakeRequantBeat(engine_->command(), *tile, row, launch_cycle_));
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
const MacBeat* BeatPredictor::PeekMac() {
  Refill(mac_);
  return mac_.beats.empty() ? nullptr : &mac_.beats.front();
}
const RequantBeat* BeatPredictor::PeekRequant() {
  Refill(requant_);
  return requant_.beats.empty() ? nullptr : &requant_.beats.front();
}
const OutWriteBeat* BeatPredictor::PeekOutWrite() {
  Refill(out_);
  return out_.beats.empty() ? nullptr : &out_.beats.front();
}
void BeatPredictor::PopMacIn() {
  if (PeekMacIn()) mac_in_.beats.pop_front();
}
void BeatPredictor::PopMac() {
  if (PeekMac()) mac_.beats.pop_front();
}
void BeatPredictor::PopRequant() {
  if (PeekRequant()) requant_.beats.pop_front();
}
void BeatPredictor::PopOutWrite() {
  if (PeekOutWrite()) out_.beats.pop_front();
}

template <typename Beat>
std::optional<Beat> BeatPredictor::TakeAt(Stream<Beat>& stream, int64_t cycle, const char* unit) {
  Refill(stream);
  if (stream.beats.empty() || stream.beats.front().cycle > cycle) return std::nullopt;
  if (stream.beats.front().cycle < cycle) {
    throw std::logic_error(std::string("BeatPredictor: the ") + unit +
                           " beat predicted for cycle " +
                           std::to_string(stream.beats.front().cycle) +
                           " was never taken (now at cycle " + std::to_string(cycle) + ")");
  }
  std::optional<Beat> beat(std::move(stream.beats.front()));
  stream.beats.pop_front();
  return beat;
}

std::optional<MacBeat> BeatPredictor::TakeMacAt(int64_t cycle) {
  return TakeAt(mac_, cycle, "mac");
}
std::optional<RequantBeat> BeatPredictor::TakeRequantAt(int64_t cycle) {
  return TakeAt(requant_, cycle, "requant");
}
std::optional<OutWriteBeat> BeatPredictor::TakeOutWriteAt(int64_t cycle) {
  return TakeAt(out_, cycle, "out");
}

int64_t BeatPredictor::NextEventCycle() {
  int64_t next = done_cycle_;
  if (const MacBeat* beat = PeekMac()) next = std::min(next, beat->cycle);
  if (const RequantBeat* beat = PeekRequant()) next = std::min(next, beat->cycle);
  if (const OutWriteBeat* beat = PeekOutWrite()) next = std::min(next, beat->cycle);
  return next;
}

}  // namespace qacc::model
