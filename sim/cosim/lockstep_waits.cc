// The lockstep engine's waits for DONE, each with its watchdog: a command waits for the model's
// predicted done cycle and the RTL's DONE; a program for the model's end (known once it has run
// that far) and the RTL's DONE.
#include <fmt/format.h>

#include "sim/cosim/lockstep_engine.h"

namespace qacc::cosim {

void LockstepEngine::WaitCommandDone() {
  if (launch_cycle_ < 0) return;
  if (program_launched_) return WaitProgramDone();
  const int64_t predicted = PredictedDone();
  const int64_t watchdog_cycle = predicted + options_.watchdog_cycles;
  RunaheadScope runahead(*this, watchdog_cycle);
  for (;;) {
    if (rtl_done() && cycle_ > predicted) return;
    if (cycle_ >= watchdog_cycle) throw EngineStop{WatchdogMessage(predicted)};
    Tick();
  }
}

void LockstepEngine::RecordProgramEnd() {
  if (model_ == nullptr || !program_launched_ || model_launch_cycle_ != launch_cycle_) return;
  if (!programs_.empty() && programs_.back().launch_cycle == launch_cycle_) return;
  const auto& program = model_->state().last_program();
  if (program && program->ended) programs_.push_back({program->launch_cycle, program->result});
}

void LockstepEngine::WaitProgramDone() {
  constexpr int64_t kRtlProgramWatchdog = int64_t{1} << 28;
  RunaheadScope runahead(*this, launch_cycle_ + kRtlProgramWatchdog);
  bool limited = false;  // the runahead's limit is the model's watchdog cycle
  for (;;) {
    int64_t predicted = -1;
    const bool model_runs_it = model_ != nullptr && model_launch_cycle_ == launch_cycle_;
    if (model_runs_it) {
      const auto& program = model_->state().last_program();
      if (program->ended) predicted = program->done_cycle;
    }
    // Without the model's program (the RTL alone, or a RUN only the RTL accepted: a bus mismatch
    // already), the RTL's DONE ends the wait.
    if (!model_runs_it) {
      if (rtl_done()) return;
      if (cycle_ - launch_cycle_ >= kRtlProgramWatchdog) {
        throw EngineStop{
            fmt::format("watchdog: cycle {}: the RTL has not ended program {} in {} "
                        "cycles",
                        cycle_, command_, cycle_ - launch_cycle_)};
      }
    } else if (predicted >= 0) {
      if (!limited && runahead_ != nullptr) {
        runahead_->SetLimit(predicted + options_.watchdog_cycles);
        limited = true;
      }
      if (busy_recorded_ != launch_cycle_) {
        busy_cycles_ += predicted - launch_cycle_;
        busy_recorded_ = launch_cycle_;
      }
      if (rtl_done() && cycle_ > predicted) return;
      if (cycle_ >= predicted + options_.watchdog_cycles) {
        throw EngineStop{fmt::format(
            "watchdog: cycle {}: the RTL has not ended program {} {} cycles after the model "
            "(cycle {}; STATUS.BUSY {})",
            cycle_, command_, cycle_ - predicted, predicted, int(sample_.busy))};
      }
    }
    Tick();
  }
}

int64_t LockstepEngine::PredictedDone() const {
  if (model_launch_cycle_ == launch_cycle_) return model_done_cycle_;
  const sim::ProgramCommand& command = program_.commands[size_t(command_)];
  if (command.job < 0) return launch_cycle_ + arch::kErrorCycles;
  const model::GemmJob& job = program_.jobs[size_t(command.job)];
  return launch_cycle_ +
         arch::Timing(options_.config.rows, options_.config.cols, job.m, job.n, job.k).E();
}

std::string LockstepEngine::WatchdogMessage(int64_t predicted) const {
  std::string text = fmt::format(
      "watchdog: cycle {}: the RTL has not completed command {} {} cycles after its predicted "
      "completion (cycle {}; STATUS.BUSY {})",
      cycle_, command_, cycle_ - predicted, predicted, int(sample_.busy));
  if (scoreboard_ != nullptr) text += scoreboard_->StoppedStream();
  return text;
}

}  // namespace qacc::cosim
