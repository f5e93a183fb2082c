// The accelerator as seen from its host bus, in plain C++: register file (3.2), SRAM windows (3.1),
// the pslverr rules (3), command launch, validation (4) and the BUSY/DONE/perf-counter timeline
// (7). Time is explicit: every access names the absolute clock cycle in which its access phase
// completes (pready = 1), so the same object serves the SystemC shell (qacc_tlm.h), the model-only
// mode and the lockstep co-simulation.
//
// A command executes at launch (all tiles, output SRAM written) although its results are visible
// only from the done cycle on: every SRAM window access is refused while BUSY, so no host access
// can tell the difference.
//
// A program (CTRL.RUN, data_movement.md 14) runs on the program engine (program_engine.h) against
// the state's external memory, stepped lazily: every access or query at cycle c first runs the
// program up to c. ObserveCycle() steps it one cycle at a time and hands out the observables of
// each cycle (18), for the lockstep co-simulation.
#ifndef QACC_MODEL_ACCEL_STATE_H_
#define QACC_MODEL_ACCEL_STATE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "model/arch.h"
#include "model/beat_predictor.h"
#include "model/ext_memory.h"
#include "model/gemm_engine.h"
#include "model/perf.h"
#include "model/program_engine.h"
#include "model/srams.h"

namespace qacc::model {

// pslverr and its TLM mapping (section 3): unmapped -> TLM_ADDRESS_ERROR_RESPONSE, the other
// refusals -> TLM_GENERIC_ERROR_RESPONSE.
enum class BusStatus : uint8_t { kOk, kAddressError, kGenericError };
const char* BusStatusName(BusStatus status);  // "ok", "address_error", "generic_error"

struct BusResponse {
  BusStatus status = BusStatus::kOk;
  uint32_t data = 0;  // read data; 0 on an error
};

// One launched command (the last one is kept).
struct Launch {
  int64_t launch_cycle = 0;  // absolute cycle of command cycle 0 (first BUSY cycle)
  int64_t done_cycle = 0;    // absolute cycle from which DONE = 1, BUSY = 0: launch_cycle + E
  arch::ErrCode error = arch::ErrCode::kNone;
  PerfCounters perf;                         // final counter values
  std::shared_ptr<const GemmEngine> engine;  // null when rejected; reads the state's SRAMs
};

// One launched program (the last one is kept).
struct ProgramLaunch {
  int64_t launch_cycle = 0;  // absolute cycle of program cycle 0 (first BUSY cycle)
  uint32_t q_base = 0, q_count = 0;
  bool ended = false;
  int64_t done_cycle = 0;   // once ended: the first cycle with DONE = 1, BUSY = 0 (launch + t + 1)
  ProgramRunResult result;  // once ended
};

class AccelState {
 public:
  explicit AccelState(const arch::ArchConfig& config);
  AccelState(const AccelState&) = delete;
  AccelState& operator=(const AccelState&) = delete;

  const arch::ArchConfig& config() const { return config_; }

  // One bus transfer whose access phase completes in absolute cycle `cycle` (non-decreasing across
  // calls). `addr` is the byte address (bits [1:0] ignored); addresses at or above 2^24 are
  // unmapped.
  BusResponse Read(uint64_t addr, int64_t cycle);
  // `strobe` bit b enables byte b; used by SRAM windows only (register writes take all 32 bits).
  BusStatus Write(uint64_t addr, uint32_t data, uint8_t strobe, int64_t cycle);

  // Cycles a transfer occupies the bus, setup phase included: 2, or 3 for an SRAM window read (1
  // wait state).
  static int TransferCycles(uint64_t addr, bool is_read);

  // State at an absolute cycle at or after the last access (a program runs up to it).
  bool Busy(int64_t cycle);
  bool Irq(int64_t cycle);  // irq_o = STATUS.DONE & CTRL.IRQ_EN
  // The CMD_* registers as stored, after the last write (what the controller sees: spec 8).
  const arch::Command& command_registers() const { return cmd_regs_; }

  const std::optional<Launch>& last_launch() const { return launch_; }
  // The predicted beats of the last launched command. Take them before the host writes the SRAMs
  // again.
  BeatPredictor MakePredictor() const;
  // Called at every launch (from Write), e.g. to start a predictor or schedule the irq update.
  void set_launch_listener(std::function<void(const Launch&)> listener) {
    launch_listener_ = std::move(listener);
  }

  Srams& srams() { return srams_; }
  const Srams& srams() const { return srams_; }

  // ---- Programs (data_movement.md 14, 17)
  // The testbench memory on the model's memory port (config ext_mem.*; the host fills it by
  // backdoor). Its cycle is kept equal to the absolute cycle at every launch.
  ExtMemory& ext_memory() { return ext_; }
  const ExtMemory& ext_memory() const { return ext_; }
  const std::optional<ProgramLaunch>& last_program() const { return program_; }
  // The first absolute cycle the program in flight has not run yet.
  int64_t program_progress() const {
    return program_ ? program_->launch_cycle + int64_t(engine_->cycle()) : 0;
  }
  // True when the last launch (START or RUN) was a program's.
  bool last_launch_is_program() const { return last_is_program_; }
  // The observables of absolute cycle `cycle` (18): the program's cycle when one runs in it (the
  // program is stepped through `cycle`; cycles must be asked in increasing order and none skipped
  // while a program runs), else an idle port and the queue monitor's held values. A bus access that
  // completes in `cycle` after this call reads the registers at its start only with
  // `keep_registers` (the lockstep sets it in the cycles of a transfer).
  const ProgramCycle& ObserveCycle(int64_t cycle, bool keep_registers = true);
  // Runs the program in flight to its end (skipping idle cycles unless cycles are observed) and
  // returns its done cycle. Throws std::logic_error without a program.
  int64_t FinishProgram();
  // Called when a program starts a GEMM, with its start cycle s (absolute) and its CMD_* image:
  // e.g. to start the unit modules that simulate its beats.
  void set_program_gemm_listener(std::function<void(int64_t, const arch::Command&)> listener) {
    gemm_listener_ = std::move(listener);
  }

 private:
  void AdvanceTo(int64_t cycle);
  uint32_t ReadRegister(uint32_t offset, int64_t cycle);
  BusStatus WriteRegister(uint32_t offset, uint32_t data, int64_t cycle);
  void Start(int64_t cycle);
  void Run(int64_t cycle);
  // Steps the program through the cycles before `end` (absolute).
  void StepProgramBefore(int64_t end);
  void StepProgramOnce();
  // The program's registers at the start of `cycle` (stepped up to it).
  ProgramRegisters ProgramRegistersAt(int64_t cycle) const;
  PerfCounters PerfVisible(int64_t cycle) const;

  arch::ArchConfig config_;
  Srams srams_;
  arch::Command cmd_regs_;  // CMD_* as stored (fields masked to their width)
  bool irq_en_ = false;
  bool done_ = false;
  bool error_ = false;
  arch::ErrCode err_code_ = arch::ErrCode::kNone;
  uint32_t cmd_count_ = 0;  // completed commands, applied at each done cycle
  uint32_t q_base_ = 0;     // Q_BASE [31:6] (data_movement.md 14.1)
  uint32_t q_count_ = 0;    // Q_COUNT [15:0]
  bool pending_ = false;    // the last launch has not reached its done cycle yet
  std::optional<Launch> launch_;
  std::function<void(const Launch&)> launch_listener_;

  ExtMemory ext_;
  bool last_is_program_ = false;
  uint32_t q_err_index_ = 0;  // Q_ERR_INDEX, written at a program's end
  std::optional<ProgramLaunch> program_;
  std::unique_ptr<ProgramEngine> engine_;
  bool observing_ = false;       // ObserveCycle was used: step every cycle, never skip
  bool keep_registers_ = true;   // keep the registers of the cycle stepped last
  ProgramCycle observed_;        // the last stepped cycle's observables
  int64_t observed_cycle_ = -1;  // its absolute cycle
  int64_t kept_cycle_ = -1;      // the cycle whose start before_observed_ holds
  ProgramEngine::RegisterState before_observed_;  // what its registers at its start come from
  ProgramCycle idle_;  // a cycle without a program: the queue monitor holds the last values
  std::function<void(int64_t, const arch::Command&)> gemm_listener_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_ACCEL_STATE_H_
