// The model-only run (RunModelOnly): the host program played on the register and program model
// alone (AccelState, closed-form timing), checked against golden. The same host program as the
// lockstep run, for the same cycle count: reset, one transfer per access (2 cycles, 3 for an SRAM
// read), idle cycles, and each command up to the cycle after its DONE.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "golden/program.h"
#include "model/accel_state.h"
#include "sim/cosim/cosim.h"
#include "sim/cosim/host_player.h"
#include "sim/cosim/program_check.h"
#include "sim/cosim/run_common.h"

namespace qacc::cosim {

namespace {

class ModelRun : public HostSteps {
 public:
  ModelRun(const CosimOptions& options, const sim::Program& program, CosimResult& result)
      : options_(options),
        program_(program),
        result_(result),
        state_(options.config),
        scoreboard_(options.config),
        out_image_(size_t(options.config.out_depth) * options.config.out_word_bytes()) {}

  void Transfer(const sim::HostOp& op) override {
    const bool is_read =
        op.kind == sim::HostOp::Kind::kRead || op.kind == sim::HostOp::Kind::kReadOut;
    const int64_t complete = cycle_ + model::AccelState::TransferCycles(op.addr, is_read) - 1;
    if (is_read) {
      const model::BusResponse response = state_.Read(op.addr, complete);
      if (op.kind == sim::HostOp::Kind::kReadOut) {
        const uint32_t off = arch::WindowOffset(op.addr);
        for (int b = 0; b < 4; ++b)
          out_image_[off + uint32_t(b)] = static_cast<uint8_t>(response.data >> (8 * b));
      }
    } else {
      state_.Write(op.addr, op.data, op.strobe, complete);
    }
    if (op.kind == sim::HostOp::Kind::kStart) Launched(op.index, complete);
    cycle_ = complete + 1;
  }

  void WaitDone() override {
    if (state_.last_launch_is_program()) {
      const bool counted = state_.last_program()->ended;
      const int64_t done = state_.FinishProgram();
      if (!counted) result_.command_cycles += done - state_.last_program()->launch_cycle;
      const int64_t launch = state_.last_program()->launch_cycle;
      if (result_.programs.empty() || result_.programs.back().launch_cycle != launch) {
        result_.programs.push_back({launch, state_.last_program()->result});
      }
      cycle_ = std::max(cycle_, done + 1);
    } else if (state_.last_launch()) {
      cycle_ = std::max(cycle_, state_.last_launch()->done_cycle + 1);
    }
  }

  void Idle(int64_t cycles) override { cycle_ += cycles; }

  void CheckOutput(int job_index) override {
    const auto check_start = std::chrono::steady_clock::now();
    const model::GemmJob& job = program_.jobs[size_t(job_index)];
    const int64_t end_cycle = cycle_ - 1;
    CompareOutputs(
        options_.config, job, model::GoldenOutput(job), out_image_, "model-output",
        [end_cycle](int64_t) { return end_cycle; }, CommandOfJob(program_, job_index), scoreboard_);
    result_.check_seconds += Seconds(check_start);
  }

  void CheckSrams() override {}  // there is no RTL to compare with

  void ExtWrite(const sim::ExtBlob& blob) override {
    state_.ext_memory().Write(blob.addr, blob.bytes.data(), blob.bytes.size());
  }

  void CheckProgram(int index) override {
    if (golden_command_ != index) return;
    CheckProgramAgainstGolden(options_.config, program_.commands[size_t(index)], index,
                              std::move(golden_initial_), state_, cycle_ - 1, scoreboard_);
    golden_command_ = -1;
  }

  // After the program: the cycles, the last program's outcome, the counts and the verdict.
  void Finish() {
    result_.cycles = cycle_;
    if (state_.last_program() && state_.last_program()->ended)
      result_.program = state_.last_program()->result;
    FillCounts(scoreboard_, result_);
    result_.pass = result_.error.empty() && scoreboard_.total() == 0;
  }

 private:
  // A START or RUN whose access completed in `complete`: a program keeps the memories for golden,
  // a command has its verdict checked against the generator's intent.
  void Launched(int command_index, int64_t complete) {
    if (state_.last_launch_is_program() && state_.last_program()->launch_cycle == complete + 1) {
      if (result_.launch_cycle == 0) result_.launch_cycle = complete + 1;
      golden_initial_ = GoldenState(options_.config, state_);
      golden_command_ = command_index;
      return;
    }
    if (!state_.last_launch() || state_.last_launch()->launch_cycle != complete + 1) return;
    const model::Launch& launch = *state_.last_launch();
    if (result_.launch_cycle == 0) result_.launch_cycle = launch.launch_cycle;
    result_.command_cycles += launch.done_cycle - launch.launch_cycle;
    const sim::ProgramCommand& command = program_.commands[size_t(command_index)];
    const arch::ErrCode intended = command.job >= 0 ? arch::ErrCode::kNone : command.expected_error;
    if (launch.error == intended) return;
    Mismatch m;
    m.cycle = complete;
    m.unit = CheckUnitName(CheckUnit::kDone);
    m.what = "command verdict (test generator vs model)";
    m.command = command_index;
    m.expected = arch::ErrCodeName(intended);
    m.actual = arch::ErrCodeName(launch.error);
    scoreboard_.Record(CheckUnit::kDone, m);
  }

  const CosimOptions& options_;
  const sim::Program& program_;
  CosimResult& result_;
  model::AccelState state_;
  Scoreboard scoreboard_;
  std::vector<uint8_t> out_image_;
  int64_t cycle_ = kResetCycles + 1;
  golden::MachineState golden_initial_{golden::AccelGeometry{}, 0};  // at the last program's launch
  int golden_command_ = -1;
};

}  // namespace

CosimResult RunModelOnly(const CosimOptions& options, const sim::Program& program) {
  CosimResult result;
  const auto start = std::chrono::steady_clock::now();
  ModelRun run(options, program, result);
  PlayHostProgram(program, run);
  run.Finish();
  result.wall_seconds = Seconds(start);
  return result;
}

}  // namespace qacc::cosim
