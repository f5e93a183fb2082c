#include "model/unit_pipeline.h"

#include <limits>
#include <stdexcept>
#include <utility>

namespace qacc::model {

UnitPipeline::UnitPipeline(sc_core::sc_module_name name, int rows, int cols,
                           const UnitLatencies& latencies)
    : sc_core::sc_module(name),
      feed_controller_("feed_controller", latencies),
      mac_array_("mac_array", rows, cols, latencies),
      requant_("requant", latencies),
      lut_("lut", latencies.lut,
           [](const GemmEngine& c) -> const BeatStageModel* { return c.lut_unit(); }),
      slope_("slope", latencies.slope,
             [](const GemmEngine& c) -> const BeatStageModel* { return c.slope_unit(); }),
      out_writer_("out_writer", latencies) {
  feed_controller_.feed_out.bind(mac_array_.feed_in);
  mac_array_.beat_out.bind(requant_.beat_in);
  requant_.beat_out.bind(lut_.beat_in);
  lut_.beat_out.bind(slope_.beat_in);
  slope_.beat_out.bind(out_writer_.beat_in);
  out_writer_.complete_out.bind(feed_controller_.complete_in);
  feed_controller_.monitor.bind(mac_in_beats_);
  mac_array_.monitor.bind(beats_[size_t(arch::BeatUnit::kMac)]);
  requant_.monitor.bind(beats_[size_t(arch::BeatUnit::kRequant)]);
  lut_.monitor.bind(beats_[size_t(arch::BeatUnit::kLut)]);
  slope_.monitor.bind(beats_[size_t(arch::BeatUnit::kSlope)]);
  out_writer_.monitor.bind(out_writes_);
}

void UnitPipeline::Start(std::shared_ptr<const GemmEngine> command, int64_t launch_cycle) {
  command_ = command;
  launch_cycle_ = launch_cycle;
  mac_in_beats_.runs.clear();
  for (auto& stream : beats_) stream.Clear();
  lut_.Clear();
  slope_.Clear();
  out_writes_.Clear();
  feed_controller_.Start(std::move(command), launch_cycle);
}

void UnitPipeline::Advance(int64_t cycle) {
  if (feed_controller_.finished() || feed_controller_.covered_until() >= cycle) return;
  const int64_t horizon = cycle > std::numeric_limits<int64_t>::max() - kLookaheadCycles
                              ? std::numeric_limits<int64_t>::max()
                              : cycle + kLookaheadCycles;
  feed_controller_.Request(horizon);
  while (!feed_controller_.finished() && feed_controller_.covered_until() < cycle) {
    sc_core::wait(feed_controller_.progress_event());
  }
}

const MacInRun* UnitPipeline::PeekMacIn() {
  return mac_in_beats_.runs.empty() ? nullptr : &mac_in_beats_.runs.front();
}
const RowBeat* UnitPipeline::PeekBeat(arch::BeatUnit unit) { return beats_[size_t(unit)].Peek(); }
const OutWriteBeat* UnitPipeline::PeekOutWrite() { return out_writes_.Peek(); }
void UnitPipeline::PopMacIn() {
  if (!mac_in_beats_.runs.empty()) mac_in_beats_.runs.pop_front();
}
void UnitPipeline::PopBeat(arch::BeatUnit unit) { beats_[size_t(unit)].Pop(); }
void UnitPipeline::PopOutWrite() { out_writes_.Pop(); }

int64_t UnitPipeline::done_cycle() {
  return feed_controller_.finished() ? feed_controller_.done_cycle() : std::numeric_limits<int64_t>::max();
}

int64_t UnitPipeline::InputBeats(arch::BeatUnit unit) const {
  switch (unit) {
    case arch::BeatUnit::kMac:
      return feed_controller_.mac_busy();
    case arch::BeatUnit::kRequant:  // the requant unit takes every MAC output row
      return beats_[size_t(arch::BeatUnit::kMac)].count();
    case arch::BeatUnit::kLut:  // requant's output beats, with ACT = LUT only
      return lut_.input_beats();
    case arch::BeatUnit::kSlope:  // requant's output beats, with ACT = SLOPE only
      return slope_.input_beats();
  }
  throw std::logic_error("UnitPipeline::InputBeats: a beat unit without a count");
}

UnitCounts UnitPipeline::counts() const {
  UnitCounts counts;
  if (feed_controller_.finished()) counts.cycles = feed_controller_.done_cycle() - launch_cycle_;
  for (const arch::BeatUnitInfo& unit : arch::kBeatUnits) {
    counts.busy[size_t(unit.beat)] = InputBeats(unit.beat);
  }
  counts.out_writes = out_writes_.count();
  counts.feed_stall = feed_controller_.feed_stall();
  return counts;
}

}  // namespace qacc::model
