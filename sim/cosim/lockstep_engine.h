// The lockstep engine: one loop steps the Verilated RTL a clock cycle at a time and, in the same
// cycle, hands each bus access to the model (ModelPort: in co-simulation the SystemC model's target
// socket, see lockstep.cc); the scoreboard checks every cycle. Without a model it runs the RTL
// alone (RunRtlOnly: waves). Its parts, by responsibility: the host program's steps
// (host_player.h), stepping and transfers (lockstep_engine.cc), waits for DONE and their watchdogs
// (lockstep_waits.cc), run-ahead on a second thread (rtl_runahead.h), monitor faults
// (fault_injector.h) and the end-of-command checks (program_check.h).
#ifndef QACC_SIM_COSIM_LOCKSTEP_ENGINE_H_
#define QACC_SIM_COSIM_LOCKSTEP_ENGINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "golden/program.h"
#include "model/accel_state.h"
#include "model/beat_source.h"
#include "sim/cosim/cosim.h"
#include "sim/cosim/coverage.h"
#include "sim/cosim/dut.h"
#include "sim/cosim/fault_injector.h"
#include "sim/cosim/host_player.h"
#include "sim/cosim/program_check.h"
#include "sim/cosim/rtl_runahead.h"
#include "sim/cosim/scoreboard.h"
#include "sim/testgen/program.h"

namespace qacc::cosim {

// The model half of a bus transfer, as seen by the engine.
struct ModelTransfer {
  int64_t complete_cycle = 0;  // cycle in which the access phase completes (pready)
  model::BusStatus status = model::BusStatus::kOk;
  uint32_t rdata = 0;
};

class ModelPort {
 public:
  virtual ~ModelPort() = default;
  // A transfer whose setup phase is in cycle `setup`. The engine calls it once the RTL has
  // completed the same transfer, so that the model's state answers for the cycles before it.
  virtual ModelTransfer Transfer(bool is_read, uint32_t addr, uint32_t data, uint8_t strobe,
                                 int64_t setup) = 0;
  // Called after each clock cycle outside transfers: `cycle` is the next cycle to run.
  virtual void Advance(int64_t cycle) = 0;
  // The last launch, if its START completed in `complete_cycle`.
  virtual bool LaunchedAt(int64_t complete_cycle) const = 0;
  virtual arch::ErrCode LaunchError() const = 0;  // the validation verdict of the last launch
  // The cycle DONE rises for the last launch, from the register model (AccelState, closed form):
  // what the host waits for.
  virtual int64_t LaunchDoneCycle() const = 0;
  // The beats of the last launch, from the simulated unit modules: what the scoreboard checks.
  virtual model::BeatSource& Beats() = 0;
  virtual bool Busy(int64_t cycle) = 0;
  virtual bool Irq(int64_t cycle) = 0;
  virtual const arch::Command& CommandRegisters() const = 0;
  virtual const model::Srams& srams() const = 0;
  // The register file and program engine inside (programs: data_movement.md 14, 18).
  virtual model::AccelState& state() = 0;
};

struct EngineStop {
  std::string error;
};

class LockstepEngine : public HostSteps {
 public:
  LockstepEngine(const CosimOptions& options, const sim::Program& program, Dut& dut,
                 ModelPort* model, Scoreboard* scoreboard)
      : options_(options),
        program_(program),
        dut_(dut),
        model_(model),
        scoreboard_(scoreboard),
        rtl_out_(size_t(options.config.out_depth) * options.config.out_word_bytes()),
        model_out_(rtl_out_.size()),
        read_cycles_(rtl_out_.size() / 4, -1) {}

  void set_trace(int64_t begin, int64_t end) {
    trace_begin_ = begin;
    trace_end_ = end;
  }
  // Called with each kCheckOutput: the job, the RTL's and the model's output window images and
  // the engine (for the cycles of the reads).
  void set_coverage(Coverage* coverage) { coverage_ = coverage; }
  void set_output_check(std::function<void(int, const LockstepEngine&)> check) {
    output_check_ = std::move(check);
  }

  // Plays the host program; returns normally, or throws EngineStop (watchdog, end of the trace
  // window).
  void Run();

  // The steps of the host program (host_player.h); Transfer and CheckProgram are below, with the
  // launches they record.
  void WaitDone() override {
    WaitCommandDone();
    RecordProgramEnd();
  }
  void Idle(int64_t cycles) override {
    for (int64_t i = 0; i < cycles; ++i) Tick();
  }
  void CheckOutput(int job) override {
    if (output_check_) output_check_(job, *this);
  }
  void CheckSrams() override {
    if (model_ == nullptr || scoreboard_ == nullptr) return;
    CompareSrams(options_.config, model_->srams(), dut_, cycle_ - 1, rtl_sram_, *scoreboard_);
  }
  void ExtWrite(const sim::ExtBlob& blob) override {
    dut_.ext_memory().Write(blob.addr, blob.bytes.data(), blob.bytes.size());
    if (model_ != nullptr)
      model_->state().ext_memory().Write(blob.addr, blob.bytes.data(), blob.bytes.size());
  }

  int64_t cycle() const { return cycle_; }
  // Cycles the RTL ran on the second thread (--threads 2).
  int64_t runahead_cycles() const { return runahead_cycles_; }
  int64_t first_launch_cycle() const { return first_launch_cycle_; }
  // Cycles with BUSY over every command: the model's prediction, or what the RTL showed when it
  // runs alone.
  int64_t busy_cycles() const { return busy_cycles_; }
  const std::vector<CosimResult::ProgramEnd>& programs() const { return programs_; }
  bool rtl_done() const { return rtl_done_cycle_ >= 0; }
  const std::vector<uint8_t>& rtl_out() const { return rtl_out_; }
  const std::vector<uint8_t>& model_out() const { return model_out_; }
  // Cycle of the last read that returned output-window byte `byte` (offset inside the window).
  int64_t ReadCycleOf(int64_t byte) const {
    const int64_t word = byte / 4;
    return word >= 0 && word < int64_t(read_cycles_.size()) ? read_cycles_[size_t(word)] : -1;
  }

 private:
  // ---- Stepping (lockstep_engine.cc)
  // One clock cycle of everything: the RTL's half, coverage, the monitor faults, the model's
  // program cycle and the scoreboard's checks.
  void Tick();

  // A sign of life for a terminal (golden/progress.h): the descriptors retired of the programs'
  // (the model's, which the scoreboard holds the RTL to), else the cycles.
  void ReportLife() const;

  // The RTL's half of the cycle: from the second thread's ring while it runs ahead, else here.
  void RtlCycle();

  // ---- Run-ahead
  // With --threads 2, the RTL runs ahead on a second thread while a wait for DONE lasts
  // (rtl_runahead.h): cycles below `limit`, the wait's watchdog cycle. The engine's loop is the
  // same either way; the scope ends the worker when the wait ends or throws.
  class RunaheadScope {
   public:
    RunaheadScope(LockstepEngine& engine, int64_t limit) : engine_(engine) {
      if (engine.options_.threads > 1 && engine.model_ != nullptr && engine.trace_begin_ < 0 &&
          !engine.rtl_done()) {
        engine.runahead_ =
            std::make_unique<RtlRunahead>(engine.dut_, engine.pins_, engine.cycle_, limit);
      }
    }
    ~RunaheadScope() { engine_.EndRunahead(); }
    RunaheadScope(const RunaheadScope&) = delete;
    RunaheadScope& operator=(const RunaheadScope&) = delete;

   private:
    LockstepEngine& engine_;
  };

  void EndRunahead() {
    if (runahead_ == nullptr) return;
    runahead_cycles_ += runahead_->produced();
    runahead_.reset();
  }

  // ---- Transfers and launches (lockstep_engine.cc)
  // One APB access, the RTL's first and then the model's for the same setup cycle; a START or RUN
  // records the launch on each side.
  void Transfer(const sim::HostOp& op) override;

  // The test generator's intent (legal, or the error it aimed at) vs the model's validation: a
  // program that does not test what it says is a failure of the test, reported as one.
  void CheckVerdict(int command_index, int64_t cycle, arch::ErrCode error);

  // ---- Waits for DONE and their watchdogs (lockstep_waits.cc)
  // Idle bus until both the RTL and the model have completed the command in flight.
  void WaitCommandDone();

  // After a wait for DONE: the model's outcome of the program it ended, once.
  void RecordProgramEnd();

  // A program: idle bus until the RTL and the model have both ended it (the model's end is known
  // once it has run that far); the watchdog counts from the model's done cycle. The RTL alone has
  // no prediction: its watchdog is kRtlProgramWatchdog cycles from the launch.
  void WaitProgramDone();

  // After a program: the external memory images of RTL and model, whole; the model against golden.
  void CheckProgram(int index) override;

  // The model's done cycle; without a model (RTL alone) the command's E from its job, or the
  // error timing of an illegal one.
  int64_t PredictedDone() const;

  // The watchdog's message for a command the RTL has not completed by `predicted` + the watchdog's
  // cycles, naming the beat stream that stopped.
  std::string WatchdogMessage(int64_t predicted) const;

  const CosimOptions& options_;
  const sim::Program& program_;
  Dut& dut_;
  ModelPort* model_;
  Scoreboard* scoreboard_;
  ApbPins pins_;
  RtlSample sample_;
  int64_t cycle_ = 0;
  int64_t launch_cycle_ = -1;
  int64_t first_launch_cycle_ = -1;
  int64_t rtl_done_cycle_ = -1;
  int64_t busy_cycles_ = 0;
  std::vector<CosimResult::ProgramEnd> programs_;
  int command_ = -1;
  bool in_transfer_ = false;
  int64_t trace_begin_ = -1, trace_end_ = -1;
  int64_t model_launch_cycle_ = -1, model_done_cycle_ = -1;
  bool program_launched_ = false;  // the command in flight is a program
  int64_t busy_recorded_ = -1;     // the launch whose program cycles busy_cycles_ holds
  golden::MachineState golden_initial_{golden::AccelGeometry{}, 0};
  int golden_command_ = -1;
  std::vector<uint8_t> rtl_out_, model_out_, rtl_sram_;
  std::vector<int64_t> read_cycles_;
  std::function<void(int, const LockstepEngine&)> output_check_;
  Coverage* coverage_ = nullptr;
  std::unique_ptr<RtlRunahead> runahead_;
  int64_t runahead_cycles_ = 0;
  uint64_t retired_ = 0;  // descriptors the model's programs retired so far
  FaultInjector faults_{options_.fault, options_.config.rows, options_.config.cols};
};

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_LOCKSTEP_ENGINE_H_
