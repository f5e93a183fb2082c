// The lockstep engine: one loop steps the Verilated RTL a clock cycle at a time and, in the same
// cycle, hands each bus access to the SystemC model's target socket; the scoreboard checks every
// cycle. The engine runs inside one SC_THREAD of the SystemC kernel (clocking choice:
// docs/cosim.md).
#include <fmt/format.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <systemc>
#include <tlm>

#include "golden/gemm.h"
#include "golden/progress.h"
#include "model/accel_state.h"
#include "model/model_only.h"
#include "model/qacc_tlm.h"
#include "sim/cosim/cosim.h"
#include "sim/cosim/coverage.h"
#include "sim/cosim/dut.h"
#include "sim/cosim/fault_injector.h"
#include "sim/cosim/host_player.h"
#include "sim/cosim/program_check.h"
#include "sim/cosim/rtl_runahead.h"
#include "sim/cosim/run_common.h"
#include "sim/testgen/program.h"

// libsystemc's main() refers to sc_main; qacc has its own main() and starts the kernel itself, so
// this one is never called.
int sc_main(int /*argc*/, char** /*argv*/) { return 1; }

namespace qacc::cosim {

namespace {

constexpr int kApbTimeout = 16;  // access cycles without pready before the bus watchdog fires

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

class Engine : public HostSteps {
 public:
  Engine(const CosimOptions& options, const sim::Program& program, Dut& dut, ModelPort* model,
         Scoreboard* scoreboard)
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
  void set_output_check(std::function<void(int, const Engine&)> check) {
    output_check_ = std::move(check);
  }

  // Plays the host program; returns normally, or throws EngineStop (watchdog, end of the trace
  // window).
  void Run() {
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

  // The steps of the host program (host_player.h); Transfer and CheckProgram are below.
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
  // One clock cycle of everything.
  void Tick() {
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

  // A sign of life for a terminal (golden/progress.h): the descriptors retired of the programs'
  // (the model's, which the scoreboard holds the RTL to), else the cycles.
  void ReportLife() const {
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

  // The RTL's half of the cycle: from the second thread's ring while it runs ahead, else here.
  void RtlCycle() {
    if (runahead_ != nullptr) {
      if (runahead_->Take(cycle_, sample_)) return;
      EndRunahead();  // it stopped after cycle_ - 1: the RTL goes on from there, here
    }
    dut_.SetApb(pins_);
    dut_.Cycle(cycle_, sample_);
  }

  // With --threads 2, the RTL runs ahead on a second thread while a wait for DONE lasts
  // (rtl_runahead.h): cycles below `limit`, the wait's watchdog cycle. The engine's loop is the
  // same either way; the scope ends the worker when the wait ends or throws.
  class RunaheadScope {
   public:
    RunaheadScope(Engine& engine, int64_t limit) : engine_(engine) {
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
    Engine& engine_;
  };

  void EndRunahead() {
    if (runahead_ == nullptr) return;
    runahead_cycles_ += runahead_->produced();
    runahead_.reset();
  }

  void Transfer(const sim::HostOp& op) override {
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

  // The test generator's intent (legal, or the error it aimed at) vs the model's validation: a
  // program that does not test what it says is a failure of the test, reported as one.
  void CheckVerdict(int command_index, int64_t cycle, arch::ErrCode error) {
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

  // Idle bus until both the RTL and the model have completed the command in flight.
  void WaitCommandDone() {
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

  // After a wait for DONE: the model's outcome of the program it ended, once.
  void RecordProgramEnd() {
    if (model_ == nullptr || !program_launched_ || model_launch_cycle_ != launch_cycle_) return;
    if (!programs_.empty() && programs_.back().launch_cycle == launch_cycle_) return;
    const auto& program = model_->state().last_program();
    if (program && program->ended) programs_.push_back({program->launch_cycle, program->result});
  }

  // A program: idle bus until the RTL and the model have both ended it (the model's end is known
  // once it has run that far); the watchdog counts from the model's done cycle. The RTL alone has
  // no prediction: its watchdog is kRtlProgramWatchdog cycles from the launch.
  void WaitProgramDone() {
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

  // After a program: the external memory images of RTL and model, whole; the model against golden.
  void CheckProgram(int index) override {
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
                              std::move(golden_initial_), model_->state(), cycle_ - 1,
                              *scoreboard_);
    golden_command_ = -1;
  }

  // The model's done cycle; without a model (RTL alone) the command's E from its job, or the
  // error timing of an illegal one.
  int64_t PredictedDone() const {
    if (model_launch_cycle_ == launch_cycle_) return model_done_cycle_;
    const sim::ProgramCommand& command = program_.commands[size_t(command_)];
    if (command.job < 0) return launch_cycle_ + arch::kErrorCycles;
    const model::GemmJob& job = program_.jobs[size_t(command.job)];
    return launch_cycle_ +
           arch::Timing(options_.config.rows, options_.config.cols, job.m, job.n, job.k).E();
  }

  std::string WatchdogMessage(int64_t predicted) const {
    std::string text = fmt::format(
        "watchdog: cycle {}: the RTL has not completed command {} {} cycles after its predicted "
        "completion (cycle {}; STATUS.BUSY {})",
        cycle_, command_, cycle_ - predicted, predicted, int(sample_.busy));
    if (scoreboard_ != nullptr) text += scoreboard_->StoppedStream();
    return text;
  }

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
  std::function<void(int, const Engine&)> output_check_;
  Coverage* coverage_ = nullptr;
  std::unique_ptr<RtlRunahead> runahead_;
  int64_t runahead_cycles_ = 0;
  uint64_t retired_ = 0;  // descriptors the model's programs retired so far
  FaultInjector faults_{options_.fault, options_.config.rows, options_.config.cols};
};

// ---- SystemC side
// --------------------------------------------------------------------------------

// The host: one SC_THREAD runs the engine; its bus transfers go to the model's target socket with
// the local time offset of the cycle they are set up in (TLM-2.0 temporal decoupling, quantum
// `quantum_cycles`).
class LockstepHost : public sc_core::sc_module, public ModelPort {
 public:
  tlm_utils::simple_initiator_socket<LockstepHost> initiator_socket;

  LockstepHost(sc_core::sc_module_name name, model::QaccTlm& tlm, int64_t quantum_cycles,
               std::function<void(ModelPort&)> body)
      : sc_core::sc_module(name),
        initiator_socket("initiator_socket"),
        tlm_(tlm),
        quantum_(quantum_cycles),
        body_(std::move(body)) {
    SC_HAS_PROCESS(LockstepHost);
    SC_THREAD(Run);
  }

  ModelTransfer Transfer(bool is_read, uint32_t addr, uint32_t data, uint8_t strobe,
                         int64_t setup) override {
    unsigned char bytes[4];
    unsigned char enables[4];
    for (int b = 0; b < 4; ++b) {
      bytes[b] = static_cast<unsigned char>(data >> (8 * b));
      enables[b] = (strobe >> b) & 1 ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED;
    }
    payload_.set_command(is_read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
    payload_.set_address(addr);
    payload_.set_data_ptr(bytes);
    payload_.set_data_length(4);
    payload_.set_streaming_width(4);
    payload_.set_byte_enable_ptr(enables);
    payload_.set_byte_enable_length(4);
    payload_.set_dmi_allowed(false);
    payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = tlm_.TimeOfCycle(setup) - sc_core::sc_time_stamp();
    initiator_socket->b_transport(payload_, delay);
    ModelTransfer result;
    result.complete_cycle = tlm_.CycleAt(sc_core::sc_time_stamp() + delay) - 1;
    switch (payload_.get_response_status()) {
      case tlm::TLM_OK_RESPONSE:
        result.status = model::BusStatus::kOk;
        break;
      case tlm::TLM_ADDRESS_ERROR_RESPONSE:
        result.status = model::BusStatus::kAddressError;
        break;
      default:
        result.status = model::BusStatus::kGenericError;
        break;
    }
    if (is_read) {
      result.rdata = uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 | uint32_t{bytes[2]} << 16 |
                     uint32_t{bytes[3]} << 24;
    }
    payload_.set_data_ptr(nullptr);
    payload_.set_byte_enable_ptr(nullptr);
    return result;
  }

  void Advance(int64_t cycle) override {
    if (cycle - synced_cycle_ >= quantum_) {
      sc_core::wait(tlm_.TimeOfCycle(cycle) - sc_core::sc_time_stamp());
      synced_cycle_ = cycle;
    }
  }

  bool LaunchedAt(int64_t complete_cycle) const override {
    const auto& launch = tlm_.state().last_launch();
    return launch && launch->launch_cycle == complete_cycle + 1;
  }
  arch::ErrCode LaunchError() const override { return tlm_.state().last_launch()->error; }
  int64_t LaunchDoneCycle() const override { return tlm_.state().last_launch()->done_cycle; }
  model::BeatSource& Beats() override { return tlm_.units(); }
  bool Busy(int64_t cycle) override { return tlm_.state().Busy(cycle); }
  bool Irq(int64_t cycle) override { return tlm_.state().Irq(cycle); }
  model::AccelState& state() override { return tlm_.state(); }
  const arch::Command& CommandRegisters() const override { return tlm_.state().command_registers(); }
  const model::Srams& srams() const override { return tlm_.state().srams(); }

 private:
  void Run() {
    body_(*this);
    sc_core::sc_stop();
  }

  model::QaccTlm& tlm_;
  int64_t quantum_;
  int64_t synced_cycle_ = 0;
  std::function<void(ModelPort&)> body_;
  tlm::tlm_generic_payload payload_;
};

}  // namespace

CosimResult RunLockstep(const CosimOptions& options, const sim::Program& program) {
  const DutVariant& variant = FindVariant(options.config, /*traced=*/false);
  // The SystemC banner and the sc_stop() note would mix with --json output on stdout.
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  std::unique_ptr<Dut> dut =
      MakeDut(variant, options.mutant, options.power_on_seed, ExtMemSettingsOf(options.config));
  Scoreboard scoreboard(options.config);
  Coverage coverage(options.config);

  CosimResult result;
  const auto start = std::chrono::steady_clock::now();
  double check_seconds = 0;
  std::unique_ptr<Engine> engine;
  {
    model::UnitLatencies latencies;
    if (options.fault == Fault::kRequantLatency) ++latencies.requant;
    model::QaccTlm tlm("qacc", options.config, sc_core::sc_time(1, sc_core::SC_NS), latencies);
    sc_core::sc_signal<bool> irq("irq");
    tlm.irq(irq);
    LockstepHost host(
        "host", tlm, std::max<int64_t>(1, options.quantum_cycles), [&](ModelPort& port) {
          engine = std::make_unique<Engine>(options, program, *dut, &port, &scoreboard);
          engine->set_coverage(&coverage);
          engine->set_output_check([&](int job_index, const Engine& e) {
            const auto check_start = std::chrono::steady_clock::now();
            const model::GemmJob& job = program.jobs[size_t(job_index)];
            const golden::Matrix<int32_t> golden = model::GoldenOutput(job);
            const int command = CommandOfJob(program, job_index);
            const auto read_cycle = [&e](int64_t byte) { return e.ReadCycleOf(byte); };
            CompareOutputs(options.config, job, golden, e.rtl_out(), "output", read_cycle, command,
                           scoreboard);
            CompareOutputs(options.config, job, golden, e.model_out(), "model-output", read_cycle,
                           command, scoreboard);
            check_seconds += Seconds(check_start);
          });
          try {
            engine->Run();
          } catch (const EngineStop& stop) {
            result.error = stop.error;
          } catch (const std::exception& e) {
            result.error = fmt::format("internal error in cycle {}: {}", engine->cycle(), e.what());
          }
          const auto& last = tlm.state().last_program();
          if (last && last->ended) result.program = last->result;
        });
    host.initiator_socket.bind(tlm.target_socket);
    sc_core::sc_start();
  }
  result.cycles = engine->cycle();
  result.launch_cycle = engine->first_launch_cycle();
  result.programs = engine->programs();
  result.command_cycles = engine->busy_cycles();
  result.rtl_thread_cycles = engine->runahead_cycles();
  result.check_seconds = check_seconds;
  result.coverage = coverage.bins();
  if (!options.coverage_path.empty()) dut->WriteCoverage(options.coverage_path);
  result.wall_seconds = Seconds(start);
  FillCounts(scoreboard, result);
  result.pass = result.error.empty() && scoreboard.total() == 0;
  return result;
}

RtlOnlyResult RunRtlOnly(const CosimOptions& options, const sim::Program& program,
                         const RtlOnlyOptions& rtl_options) {
  const bool traced = !rtl_options.trace_path.empty();
  std::unique_ptr<Dut> dut =
      MakeDut(FindVariant(options.config, traced || rtl_options.traced_build), options.mutant,
              options.power_on_seed, ExtMemSettingsOf(options.config));
  if (traced) dut->OpenTrace(rtl_options.trace_path);
  Engine engine(options, program, *dut, nullptr, nullptr);
  if (traced) engine.set_trace(rtl_options.trace_begin, rtl_options.trace_end);
  RtlOnlyResult result;
  const auto start = std::chrono::steady_clock::now();
  try {
    engine.Run();
  } catch (const EngineStop&) {
  }
  result.wall_seconds = Seconds(start);
  result.cycles = engine.cycle();
  result.done = engine.rtl_done();
  if (traced) dut->CloseTrace();
  return result;
}

}  // namespace qacc::cosim
