// The SystemC unit modules of the accelerator, connected (docs/model.md "Simulated units"), and the
// beat streams they produce, as a BeatSource:
//
//   feed_controller --Feed--> mac_array --put--> requant --put--> lut --put--> slope --put-->
//   out_writer
//         ^                                                                       |
//         +---------------------------- CommandComplete -------------------------+
//   each unit's monitor port --> the streams of this BeatSource
//
// Advance(c) runs the units as far as cycle c needs (the controller's thread feeds the tiles, the
// calling SC_THREAD waits for it), a lookahead of kLookaheadCycles at a time so that a consumer
// stepping one cycle at a time switches threads about once per kLookaheadCycles cycles.
#ifndef QACC_MODEL_UNIT_PIPELINE_H_
#define QACC_MODEL_UNIT_PIPELINE_H_

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <systemc>
#include <tlm>
#include <utility>

#include "model/beat_source.h"
#include "model/feed_controller_tlm.h"
#include "model/mac_array_tlm.h"
#include "model/out_writer_tlm.h"
#include "model/requant_tlm.h"
#include "model/stage_tlm.h"
#include "model/unit_tlm.h"

namespace qacc::model {

// What the units counted for the current command (the PERF_* events of section 3.2).
struct UnitCounts {
  int64_t cycles = 0;  // launch .. done
  std::array<int64_t, arch::kNumBeatUnits> busy{};  // input beats of each beat unit (PERF_<x>_BUSY)
  int64_t out_writes = 0, feed_stall = 0;
};

class UnitPipeline : public sc_core::sc_module, public BeatSource {
 public:
  static constexpr int64_t kLookaheadCycles = 256;

  UnitPipeline(sc_core::sc_module_name name, int rows, int cols,
               const UnitLatencies& latencies = {});

  // Starts the command launched in `launch_cycle` (`command` null: rejected by validation). The
  // streams of the previous command are dropped.
  void Start(std::shared_ptr<const GemmEngine> command, int64_t launch_cycle);

  // BeatSource, for the command last started. Advance must be called from an SC_THREAD.
  int64_t launch_cycle() const override { return launch_cycle_; }
  const GemmEngine* engine() const override { return command_.get(); }
  void Advance(int64_t cycle) override;
  const MacInRun* PeekMacIn() override;
  const RowBeat* PeekBeat(arch::BeatUnit unit) override;
  const OutWriteBeat* PeekOutWrite() override;
  void PopMacIn() override;
  void PopBeat(arch::BeatUnit unit) override;
  void PopOutWrite() override;
  int64_t done_cycle() override;

  // Counts of the command so far (final once done_cycle() is known).
  UnitCounts counts() const;
  // The input beats beat unit `unit` has taken for the current command (its PERF_<x>_BUSY events).
  int64_t InputBeats(arch::BeatUnit unit) const;

 private:
  // The beats of one unit: its tiles in order and the next beat's index in the front tile.
  template <typename Tile, typename Beat>
  class Stream : public tlm::tlm_analysis_if<Tile> {
   public:
    explicit Stream(std::vector<Beat> Tile::*beats) : beats_(beats) {}
    void write(const Tile& tile) override {
      count_ += int64_t((tile.*beats_).size());
      if (!(tile.*beats_).empty()) tiles_.push_back(tile);
    }
    const Beat* Peek() const { return tiles_.empty() ? nullptr : &(tiles_.front().*beats_)[next_]; }
    void Pop() {
      if (tiles_.empty()) return;
      if (++next_ == (tiles_.front().*beats_).size()) {
        tiles_.pop_front();
        next_ = 0;
      }
    }
    void Clear() {
      tiles_.clear();
      next_ = 0;
      count_ = 0;
    }
    int64_t count() const { return count_; }  // beats written since the last Clear

   private:
    std::vector<Beat> Tile::*beats_;
    std::deque<Tile> tiles_;
    size_t next_ = 0;
    int64_t count_ = 0;
  };
  template <size_t... I>
  static std::array<Stream<RowTile, RowBeat>, sizeof...(I)> RowStreams(std::index_sequence<I...>) {
    return {((void)I, Stream<RowTile, RowBeat>(&RowTile::rows))...};
  }
  class MacInStream : public tlm::tlm_analysis_if<MacInRun> {
   public:
    void write(const MacInRun& run) override { runs.push_back(run); }
    std::deque<MacInRun> runs;
  };

  FeedControllerTlm feed_controller_;
  MacArrayTlm mac_array_;
  RequantTlm requant_;
  StageTlm lut_;
  StageTlm slope_;
  OutWriterTlm out_writer_;
  std::shared_ptr<const GemmEngine> command_;
  int64_t launch_cycle_ = 0;
  MacInStream mac_in_beats_;
  // The row beats of each beat unit, by BeatUnit: each unit's monitor port writes its stream.
  std::array<Stream<RowTile, RowBeat>, arch::kNumBeatUnits> beats_ =
      RowStreams(std::make_index_sequence<arch::kNumBeatUnits>());
  Stream<OutWriteTile, OutWriteBeat> out_writes_{&OutWriteTile::writes};
};

}  // namespace qacc::model

#endif  // QACC_MODEL_UNIT_PIPELINE_H_
