// The closed-form beat streams of one command (section 7 formulas, the fast timing path of
// beat_source.h), generated lazily a tile at a time so that a consumer can pop the expected beat of
// each unit cycle by cycle without materialising a large command's beats (a 256x256x256 GEMM on 8x8
// has 3 x 8192 beats; only the tiles in flight are held, at most two).
//
// Per unit the beats come in strictly increasing cycle order (P >= R, so the beats of tile t+1
// follow those of tile t).
#ifndef QACC_MODEL_BEAT_PREDICTOR_H_
#define QACC_MODEL_BEAT_PREDICTOR_H_

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>

#include "model/beat_source.h"
#include "model/beats.h"
#include "model/gemm_engine.h"

namespace qacc::model {

class BeatPredictor : public BeatSource {
 public:
  // `engine` is null for a command rejected by validation: no beats, done at launch_cycle +
  // kErrorCycles.
  BeatPredictor(std::shared_ptr<const GemmEngine> engine, int64_t launch_cycle);

  int64_t launch_cycle() const override { return launch_cycle_; }
  const GemmEngine* engine() const override { return engine_.get(); }
  // Every beat is known from the start.
  void Advance(int64_t /*cycle*/) override {}
  // The cycle in which BUSY = 0 and DONE = 1 are first visible: launch + E (section 7).
  int64_t done_cycle() override { return done_cycle_; }

  // Next beat of each unit (nullptr once the unit has emitted all its beats). Valid until the next
  // Pop/Take.
  const MacInRun* PeekMacIn() override;
  const RowBeat* PeekBeat(arch::BeatUnit unit) override;
  const OutWriteBeat* PeekOutWrite() override;
  void PopMacIn() override;
  void PopBeat(arch::BeatUnit unit) override;
  void PopOutWrite() override;

 private:
  template <typename Beat>
  struct Stream {
    std::deque<Beat> beats;
    int64_t next_tile = 0;
  };

  std::shared_ptr<const TileResult> Tile(int64_t t);
  void Refill(Stream<MacInRun>& stream);
  void Refill(arch::BeatUnit unit);
  void Refill(Stream<OutWriteBeat>& stream);

  std::shared_ptr<const GemmEngine> engine_;
  int64_t launch_cycle_;
  int64_t done_cycle_;
  int64_t num_tiles_;
  std::deque<std::pair<int64_t, std::shared_ptr<const TileResult>>>
      tiles_;  // computed, still needed
  Stream<MacInRun> mac_in_;
  std::array<Stream<RowBeat>, arch::kNumBeatUnits> rows_;  // by BeatUnit
  Stream<OutWriteBeat> out_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_BEAT_PREDICTOR_H_
