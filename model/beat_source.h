// The beats of one command, as a lockstep scoreboard consumes them: every unit's stream in cycle
// order, and the done cycle. Two implementations, derived independently (docs/model.md "Two timing
// paths"):
//   * BeatPredictor (beat_predictor.h): the closed-form cycles of section 7, the fast path;
//   * UnitPipeline (unit_pipeline.h): the SystemC unit modules simulating the command, the path
//     co-simulation compares the RTL with.
// Per cycle `c`, a consumer calls Advance(c) first, then takes the beats due in c with the Peek/Pop
// pairs (a Peek's pointer is valid until the next Pop or Advance).
#ifndef QACC_MODEL_BEAT_SOURCE_H_
#define QACC_MODEL_BEAT_SOURCE_H_

#include <cstdint>

#include "model/beats.h"
#include "model/gemm_engine.h"

namespace qacc::model {

class BeatSource {
 public:
  virtual ~BeatSource() = default;

  // Command cycle 0 (the first BUSY cycle) of the command.
  virtual int64_t launch_cycle() const = 0;
  // The command's engine (fields, tiling), or null for a command rejected by validation.
  virtual const GemmEngine* engine() const = 0;

  // Makes every beat due in or before `cycle` available to the Peeks (a simulation runs that far).
  virtual void Advance(int64_t cycle) = 0;

  // The next beat of each stream, or nullptr when no beat is pending up to the last Advance: the
  // MAC array's input beats, the row beats of each beat unit (units.md 21.2) and the output SRAM
  // writes.
  virtual const MacInRun* PeekMacIn() = 0;
  virtual const RowBeat* PeekBeat(arch::BeatUnit unit) = 0;
  virtual const OutWriteBeat* PeekOutWrite() = 0;
  virtual void PopMacIn() = 0;
  virtual void PopBeat(arch::BeatUnit unit) = 0;
  virtual void PopOutWrite() = 0;

  // The cycle in which DONE rises (BUSY = 0): exact once known; until then a cycle later than the
  // last Advance.
  virtual int64_t done_cycle() = 0;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_BEAT_SOURCE_H_
