#include "sim/cosim/lockstep_engine.h"

#include <fmt/format.h>

#include "golden/progress.h"
#include "sim/cosim/run_common.h"

namespace qacc::cosim {

namespace {
constexpr int kApbTimeout = 16;  // access cycles without pready before the bus watchdog fires
}  // namespace

void LockstepEngine::Run() {
  if (options_.reset_without_clock) {
    dut_.PulseResetWithoutClock();
    for (int i = 0; i <= kResetCycles; ++i) Tick();
  } else {
    dut_.SetReset(true);
    for (int i = 0; i < kResetCycles; ++i) Tick();
    dut_.SetReset(false);
    Tick();
  }
  PlayHostProgram(program_, *this);
}

void LockstepEngine::Tick() {
  if (cycle_ == trace_begin_) dut_.SetTracing(true);
  RtlCycle();
  if (coverage_ != nullptr) coverage_->OnCycle(cycle_, sample_);
  if (options_.fault != Fault::kNone) faults_.Apply(sample_);
  if (model_ == nullptr && sample_.busy) ++busy_cycles_;
  if (launch_cycle_ >= 0 && rtl_done_cycle_ < 0 && sample_.done) rtl_done_cycle_ = cycle_;
  if (scoreboard_ != nullptr) {
    const model::ProgramCycle* program = nullptr;
    if (model_ != nullptr) {
      // The model's program runs through this cycle first: a GEMM it starts here has its beats
      // checked from here on, and its end fixes the cycle DONE rises.
      program = &model_->state().ObserveCycle(cycle_, /*keep_registers=*/in_transfer_);
      if (program->gemm_start.valid) scoreboard_->SetProgramGemm(&model_->Beats());
      retired_ += int(program->dma_retire.valid) + int(program->compute_retire.valid);
      if (program->last && program_launched_) scoreboard_->ExpectDone(cycle_ + 1);
    }
    scoreboard_->Check(cycle_, sample_);
    if (model_ != nullptr) {
      scoreboard_->CheckStatus(cycle_, sample_, model_->Busy(cycle_), model_->Irq(cycle_));
      scoreboard_->CheckCommand(cycle_, sample_, program->mon_cmd);
      scoreboard_->CheckProgramCycle(cycle_, sample_, *program);
    }
  }
  if ((cycle_ & 4095) == 0) ReportLife();
  if (cycle_ == trace_end_) {
    dut_.SetTracing(false);
    throw EngineStop{};
  }
  ++cycle_;
  if (model_ != nullptr && !in_transfer_) model_->Advance(cycle_);
}

void LockstepEngine::ReportLife() const {
  uint64_t descriptors = 0;
  for (const sim::ProgramCommand& c : program_.commands) {
    if (c.is_program) descriptors += c.q_count;
  }
  if (descriptors > 0 && model_ != nullptr) {
    golden::ReportProgress("lockstep", "descriptors", retired_, descriptors);
  } else {
    golden::ReportProgress("lockstep", "cycles", uint64_t(cycle_), 0);
  }
}

void LockstepEngine::RtlCycle() {
  if (runahead_ != nullptr) {
    if (runahead_->Take(cycle_, sample_)) return;
    EndRunahead();  // it stopped after cycle_ - 1: the RTL goes on from there, here
  }
  dut_.SetApb(pins_);
  dut_.Cycle(cycle_, sample_);
}

void LockstepEngine::Transfer(const sim::HostOp& op) {
  const bool is_read =
      op.kind == sim::HostOp::Kind::kRead || op.kind == sim::HostOp::Kind::kReadOut;
  const int64_t setup = cycle_;
  // Stimulus fault: the RTL's CTRL write carries no START.
  const bool start = op.kind == sim::HostOp::Kind::kStart;
  const uint32_t rtl_data = start && options_.fault == Fault::kStartLost ? 0 : op.data;
  pins_ = ApbPins{true,
                  false,
                  !is_read,
                  op.addr,
                  is_read ? 0 : rtl_data,
                  static_cast<uint8_t>(is_read ? 0 : op.strobe)};
  in_transfer_ = true;
  Tick();
  pins_.penable = true;
  for (int access = 1;; ++access) {
    Tick();
    if (sample_.pready) break;
    if (access >= kApbTimeout) {
      throw EngineStop{fmt::format(
          "watchdog: cycle {}: unit bus stopped: APB {} of {:#08x} has no pready after {} access "
          "cycles",
          cycle_ - 1, is_read ? "read" : "write", op.addr, access)};
    }
  }
  in_transfer_ = false;
  const int64_t complete = cycle_ - 1;
  const uint32_t rdata = sample_.prdata;
  const bool slverr = sample_.pslverr;
  pins_ = ApbPins{};
  if (coverage_ != nullptr) {
    coverage_->OnTransfer(complete, !is_read, op.addr, rtl_data, op.strobe, slverr, rdata,
                          sample_.busy);
  }
  ModelTransfer expected;
  if (model_ != nullptr) {
    expected = model_->Transfer(is_read, op.addr, op.data, op.strobe, setup);
    model_->Advance(cycle_);
    if (scoreboard_ != nullptr) {
      scoreboard_->CheckBusResponse(
          fmt::format("{} {}", is_read ? "read of" : "write to", sim::RegisterName(op.addr)),
          is_read, complete, slverr, rdata, expected.complete_cycle, expected.status,
          expected.rdata);
    }
  }
  if (start) {
    // A START or RUN refused with pslverr (while busy) launches nothing, on either side.
    const bool is_program = program_.commands[size_t(op.index)].is_program;
    const bool rtl_launched =
        !slverr && (rtl_data & (is_program ? arch::kCtrlRun : arch::kCtrlStart)) != 0;
    const bool model_launched =
        model_ != nullptr &&
        (is_program ? model_->state().last_launch_is_program() &&
                          model_->state().last_program()->launch_cycle == complete + 1
                    : model_->LaunchedAt(complete));
    if (rtl_launched || model_launched) {
      launch_cycle_ = complete + 1;
      if (first_launch_cycle_ < 0) first_launch_cycle_ = launch_cycle_;
      rtl_done_cycle_ = -1;
      command_ = op.index;
      program_launched_ = is_program;
    }
    if (model_launched && is_program) {
      model_launch_cycle_ = launch_cycle_;
      model_done_cycle_ = -1;  // known when the model's program ends
      // The memories at launch, for the golden executor at the program's end.
      golden_initial_ = GoldenState(options_.config, model_->state());
      golden_command_ = op.index;
      if (scoreboard_ != nullptr) scoreboard_->StartProgram(op.index);
    } else if (model_launched) {
      model_launch_cycle_ = launch_cycle_;
      model_done_cycle_ = model_->LaunchDoneCycle();
      busy_cycles_ += model_done_cycle_ - launch_cycle_;
      if (scoreboard_ != nullptr) {
        scoreboard_->SetCommand(&model_->Beats(), op.index);
        CheckVerdict(op.index, complete, model_->LaunchError());
      }
    }
  } else if (op.kind == sim::HostOp::Kind::kReadOut) {
    const uint32_t off = arch::WindowOffset(op.addr);
    for (int b = 0; b < 4; ++b) {
      rtl_out_[off + uint32_t(b)] = static_cast<uint8_t>(rdata >> (8 * b));
      model_out_[off + uint32_t(b)] = static_cast<uint8_t>(expected.rdata >> (8 * b));
    }
    read_cycles_[off / 4] = complete;
  }
}

void LockstepEngine::CheckVerdict(int command_index, int64_t cycle, arch::ErrCode error) {
  const sim::ProgramCommand& command = program_.commands[size_t(command_index)];
  const arch::ErrCode intended = command.job >= 0 ? arch::ErrCode::kNone : command.expected_error;
  if (error == intended) return;
  Mismatch m;
  m.cycle = cycle;
  m.unit = CheckUnitName(CheckUnit::kDone);
  m.what = "command verdict (test generator vs model)";
  m.expected = arch::ErrCodeName(intended);
  m.actual = arch::ErrCodeName(error);
  scoreboard_->Record(CheckUnit::kDone, m);
}

void LockstepEngine::CheckProgram(int index) {
  if (model_ == nullptr || scoreboard_ == nullptr) return;
  CompareExtImages(dut_.ext_memory().image(), model_->state().ext_memory().image(), cycle_ - 1,
                   index, *scoreboard_);
  if (golden_command_ != index) {
    Mismatch m;
    m.cycle = cycle_ - 1;
    m.unit = CheckUnitName(CheckUnit::kProgram);
    m.what = "golden check of a program the model did not launch";
    m.expected = fmt::format("program {} launched", index);
    m.actual = "not launched";
    scoreboard_->Record(CheckUnit::kProgram, m);
    return;
  }
  CheckProgramAgainstGolden(options_.config, program_.commands[size_t(index)], index,
                            std::move(golden_initial_), model_->state(), cycle_ - 1, *scoreboard_);
  golden_command_ = -1;
}

}  // namespace qacc::cosim
