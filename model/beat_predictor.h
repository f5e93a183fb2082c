// The predicted beat streams of one command, generated lazily a tile at a time so that a lockstep
// scoreboard can pop the expected beat of each unit cycle by cycle without materialising a large
// command's beats (a 256x256x256 GEMM on 8x8 has 3 x 8192 beats; only the tiles in flight are held,
// at most two).
//
// Per unit the beats come in strictly increasing cycle order (P >= R, so the beats of tile t+1
// follow those of tile t). Typical lockstep use, once per clock cycle `c`:
//   std::optional<MacBeat> expected = predictor.TakeMacAt(c);  // vs the RTL monitor's beat
//   ... TakeRequantAt(c), TakeOutWriteAt(c), c == predictor.done_cycle()
#ifndef QACC_MODEL_BEAT_PREDICTOR_H_
#define QACC_MODEL_BEAT_PREDICTOR_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <utility>

#include "model/beats.h"
#include "model/gemm_engine.h"

namespace qacc::model {

class BeatPredictor {
 public:
  // `engine` is null for a command rejected by validation: no beats, done at launch_cycle +
  // kErrorCycles.
  BeatPredictor(std::shared_ptr<const GemmEngine> engine, int64_t launch_cycle);

  int64_t launch_cycle() const { return launch_cycle_; }
  // The command's engine (its timing and fields); null for a rejected command.
  const GemmEngine* engine() const { return engine_.get(); }
  // The cycle in which BUSY = 0 and DONE = 1 are first visible: launch + E (section 7).
  int64_t done_cycle() const { return done_cycle_; }

  // Next beat of each unit (nullptr once the unit has emitted all its beats). Valid until the next
  // Pop/Take.
  const MacBeat* PeekMac();
  const RequantBeat* PeekRequant();
  const OutWriteBeat* PeekOutWrite();
  void PopMac();
  void PopRequant();
  void PopOutWrite();

  // The unit's beat predicted for exactly `cycle` (popped), or nullopt when the unit is idle then.
  // Throws std::logic_error when a beat predicted for an earlier cycle was never taken (the caller
  // skipped a cycle).
  std::optional<MacBeat> TakeMacAt(int64_t cycle);
  std::optional<RequantBeat> TakeRequantAt(int64_t cycle);
  std::optional<OutWriteBeat> TakeOutWriteAt(int64_t cycle);

  // The earliest cycle with a pending beat of any unit, or done_cycle() when every beat has been
  // taken.
  int64_t NextEventCycle();

 private:
  template <typename Beat>
  struct Stream {
    std::deque<Beat> beats;
    int64_t next_tile = 0;
  };

  std::shared_ptr<const TileResult> Tile(int64_t t);
  void Refill(Stream<MacBeat>& stream);
  void Refill(Stream<RequantBeat>& stream);
  void Refill(Stream<OutWriteBeat>& stream);
  template <typename Beat>
  std::optional<Beat> TakeAt(Stream<Beat>& stream, int64_t cycle, const char* unit);

  std::shared_ptr<const GemmEngine> engine_;
  int64_t launch_cycle_;
  int64_t done_cycle_;
  int64_t num_tiles_;
  std::deque<std::pair<int64_t, std::shared_ptr<const TileResult>>>
      tiles_;  // computed, still needed
  Stream<MacBeat> mac_;
  Stream<RequantBeat> requant_;
  Stream<OutWriteBeat> out_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_BEAT_PREDICTOR_H_
