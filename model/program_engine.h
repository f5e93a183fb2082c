// A program run, cycle by cycle (docs/data_movement.md 14, 17): the fetcher, the two engine queues,
// the token counters, retirement, the DMA engine (dma_engine.h) and the compute engine
// (compute_engine.h) against the testbench memory (ext_memory.h), the errors and the end of the
// program, and the counters of 17.8. Plain C++: each Step() is one clock cycle; it reads the
// memory's outputs of the cycle, computes the master's outputs and the observables of 18, and
// commits the cycle to the memory.
//
// Cycle 0 is the launch cycle (17.1). Every decision of a cycle is taken on the state at its start
// (counters, queues, engine states: the flops), and every update is visible from the next cycle.
#ifndef QACC_MODEL_PROGRAM_ENGINE_H_
#define QACC_MODEL_PROGRAM_ENGINE_H_

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "model/arch.h"
#include "model/compute_engine.h"
#include "model/descriptor.h"
#include "model/dma_engine.h"
#include "model/ext_memory.h"
#include "model/sram_ports.h"
#include "model/srams.h"

namespace qacc::model {

// The counters of a program (17.8). The registers hold the low 32 bits of each.
struct ProgramPerf {
  uint64_t cycles = 0;    // PERF_CYCLES: t + 1, t the last (quiet) cycle
  // PERF_<x>_BUSY by beat unit (as PerfCounters::busy), OUT_WRITES, FEED_STALL: sums over the GEMMs
  std::array<uint64_t, arch::kNumBeatUnits> busy{};
  uint64_t out_writes = 0;
  uint64_t feed_stall = 0;
  uint64_t dma_busy = 0;      // PERF_DMA_BUSY: cycles the DMA engine runs a command
  uint64_t compute_busy = 0;  // PERF_COMPUTE_BUSY
  uint64_t dma_wait = 0;      // PERF_DMA_WAIT: cycles the DMA engine waits for a token
  uint64_t compute_wait = 0;  // PERF_COMPUTE_WAIT
  uint64_t port_stall = 0;    // PERF_PORT_STALL: cycles a DMA step waits for an SRAM port
  uint64_t rd_beats = 0;      // PERF_RD_BEATS: read data beats, descriptor fetches included
  uint64_t wr_beats = 0;      // PERF_WR_BEATS: write data beats
  uint64_t overlap = 0;       // cycles both engines run (no register: for the reports of 17.8)

  uint64_t Busy(arch::BeatUnit unit) const { return busy[static_cast<size_t>(unit)]; }
  bool operator==(const ProgramPerf& other) const;
};

// A start or retire pulse of one engine, with its descriptor's index (mon_q_o).
struct EnginePulse {
  bool valid = false;
  uint32_t index = 0;
};

// A GEMM started in this cycle: launch a BeatPredictor at `cycle` with `command` to predict its
// beats (section 7 from s).
struct GemmStart {
  bool valid = false;
  uint32_t index = 0;
  arch::Command command;
};

// The observables of one program cycle (18), sampled as the RTL's monitor ports are: the
// master's outputs of the cycle, counters and occupancies at its start, and the events of the
// cycle.
struct ProgramCycle {
  uint64_t cycle = 0;
  bool last = false;  // the program ends in this cycle (BUSY = 0, DONE = 1 from the next)
  AxiMasterOut axi;   // fields meaningful only with their valid
  // mon_q_o
  uint8_t d2c = 0, c2d = 0;  // token counters (Q_TOKENS)
  uint8_t dma_queue = 0, compute_queue = 0;
  uint32_t retired = 0;  // Q_RETIRED
  EnginePulse dma_start, dma_retire, compute_start, compute_retire;
  // The cycles PERF_DMA_WAIT, PERF_COMPUTE_WAIT and PERF_PORT_STALL count (17.8).
  bool dma_wait = false, compute_wait = false, port_stall = false;
  DmaSramAccess dma_sram;  // mon_dma_sram_o
  MoveRead move_read;      // mon_move_o
  MoveWrite move_write;
  OutAccess out_access;  // mon_out_acc_o
  GemmStart gemm_start;
  arch::Command mon_cmd;  // the GEMM the compute engine last started (from its start cycle on)
  // Errors recorded in this cycle (not pins: for generators that aim at their coincidences): an
  // error response to the DMA engine, a fetched descriptor's validation error or fetch fault.
  bool dma_error = false, fetch_error = false;
};

// The program's registers as the bus reads them at the start of a cycle (14.1, 17.8).
struct ProgramRegisters {
  uint32_t retired = 0;  // Q_RETIRED
  int d2c = 0, c2d = 0;  // Q_TOKENS
  ProgramPerf perf;      // PERF_*: the cycles so far while running (t + 1 at the end)
  std::array<uint32_t, arch::kSlopeRegisterCount> slope_regs{};  // as the SETs so far wrote them
};

struct ProgramRunResult {
  ProgramError error = ProgramError::kNone;
  int64_t error_index = -1;  // Q_ERR_INDEX with an error
  uint32_t retired = 0;      // Q_RETIRED
  ProgramPerf perf;
};

class ProgramEngine {
 public:
  // A program of `q_count` descriptors at `q_base` in `memory` (Q_BASE keeps [31:6], Q_COUNT
  // [15:0]); its cycle 0 is the memory's current cycle. `memory` must be quiet, with the beat
  // size of `config`. `initial_cmd` is what mon_cmd shows before the first GEMM (the CMD_*
  // registers). The references must outlive the engine.
  ProgramEngine(const arch::ArchConfig& config, ExtMemory& memory, Srams& srams, uint32_t q_base,
                uint32_t q_count, const arch::Command& initial_cmd = {});

  bool finished() const { return finished_; }
  uint64_t cycle() const { return cycle_; }  // the next cycle Step() runs
  // The slope stage's registers (requant.md 6.2): initial_cmd's at the launch, then as the SETs
  // that started wrote them. They outlive the program (AccelState takes them back).
  const std::array<uint32_t, arch::kSlopeRegisterCount>& slope_registers() const {
    return slope_regs_;
  }
  // One cycle; fills `observed` when it is not null.
  void Step(ProgramCycle* observed);
  // Skips the cycles from cycle() on in which nothing happens but waiting: no channel is driven,
  // no SRAM step, MOVE cycle, push, start or retirement, and no memory beat or response is due
  // (a GEMM may run). The counters advance as Step() would advance them. Returns the cycles
  // skipped (0 when the next cycle does something); stops before cycle `limit`.
  uint64_t SkipIdle(uint64_t limit = UINT64_MAX);
  // What the registers are computed from, cheap to copy (a lockstep keeps the one of the cycle it
  // stepped last, as the bus reads that cycle's registers after the engine has run it).
  struct RegisterState {
    uint64_t cycle = 0;
    bool finished = false;
    uint32_t retired = 0;
    int d2c = 0, c2d = 0;
    ProgramPerf perf;
    bool gemm_active = false;
    arch::Timing gemm_timing{1, 1, 1, 1, 1};
    uint64_t gemm_start = 0;
    std::array<uint32_t, arch::kSlopeRegisterCount> slope_regs{};
  };
  RegisterState register_state() const;
  // The registers at the start of cycle(): what a bus read completing in that cycle returns.
  static ProgramRegisters VisibleRegisters(const RegisterState& state);
  ProgramRegisters VisibleRegisters() const { return VisibleRegisters(register_state()); }
  // The outcome, once finished().
  ProgramRunResult result() const;

 private:
  enum Engine { kDma = 0, kCompute = 1 };
  enum class EngineState : uint8_t { kIdle, kRunning, kCompleted };  // kCompleted: SIGNAL waits
  enum class FetchState : uint8_t { kIssue, kAwait, kValidate, kHold, kDone, kStopped };
  struct Entry {
    uint32_t index = 0;
    Descriptor d{};
    DescHeader header;
    uint64_t pushed = 0;  // the cycle at whose end it was pushed
  };
  struct ReadBurst {
    bool fetch = false;  // the fetcher's, else the DMA engine's
    uint32_t beats_left = 0;
  };
  struct Slot {
    std::deque<Entry> queue;
    EngineState state = EngineState::kIdle;
  };

  static Engine Other(Engine e) { return e == kDma ? kCompute : kDma; }
  bool CanStart(Engine e, uint64_t c) const;
  bool CanRetire(Engine e) const;  // a completed command whose token fits
  bool WaitsForToken(Engine e, uint64_t c) const;
  bool DmaRunning() const;
  bool ComputeRunning(uint64_t c) const;
  bool SlopeOk() const;  // a GEMM with ACT = SLOPE fetched now has legal registers at its start
  bool FetcherQuiet() const;
  bool Quiet(uint64_t c) const;
  void Record(ProgramError error, uint32_t index);
  void LaunchCycle(ProgramCycle* observed);
  void StartCommand(Engine e, uint64_t c, ProgramCycle* observed);
  int BeatsPerDescriptor() const { return int(kDescriptorBytes) / config_.mem_data_bytes; }

  // One cycle of Step, part by part: the start-of-cycle values its updates must not disturb, and
  // what each part decides for the end of the cycle.
  struct CycleWork {
    uint64_t c = 0;
    ProgramCycle* observed = nullptr;
    bool quiet = false;
    AxiSlaveOut in;
    int outstanding = 0;           // read bursts in flight at the start
    size_t occupancy[2] = {0, 0};  // queue lengths at the start
    int tokens[2] = {0, 0};        // token counters at the start
    uint32_t retired_at_start = 0;
    bool fetch_issue = false, push = false;
    Engine push_engine = kCompute;
    int token_delta[2] = {0, 0};
    bool retire[2] = {false, false}, busy[2] = {false, false}, waits[2] = {false, false};
    bool fault = false;
    bool dma_error = false, fetch_error = false;  // an error recorded in this cycle, by whom
    EnginePulse start_pulse[2], retire_pulse[2];
    PortUse ports;  // the compute engine's SRAM ports
    MoveRead move_read;
    MoveWrite move_write;
    OutAccess out_access;
    DmaEngine::CycleOut dout;
    AxiMasterOut m;  // the master's channels
  };
  void FetcherCycle(CycleWork& w);
  void RetireOrWait(Engine e, CycleWork& w);
  void MaybeStart(Engine e, CycleWork& w);
  void ComputeCycle(CycleWork& w);
  void DmaCycle(CycleWork& w);
  void PortCycle(CycleWork& w);
  void EndOfCycle(CycleWork& w);
  void Observe(const CycleWork& w, ProgramCycle& o) const;

  const arch::ArchConfig& config_;
  ExtMemory& memory_;
  uint32_t q_base_, q_count_;
  uint64_t memory_base_;  // the memory's cycle at program cycle 0
  uint64_t cycle_ = 0;
  bool finished_ = false;

  FetchState fetch_ = FetchState::kIssue;
  uint32_t next_ = 0;  // the descriptor the fetcher fetches or holds
  std::array<uint8_t, kDescriptorBytes> fetch_bytes_{};  // the beats received so far
  Descriptor fetched_{};                                 // the whole descriptor, from r + 1
  int fetched_beats_ = 0;
  bool fetch_error_ = false;
  std::deque<ReadBurst> reads_;  // read bursts in flight (issued), in order
  uint64_t writes_in_flight_ = 0;
  // A read address the memory has not accepted yet (15.1): held on the channel, and neither the
  // fetcher nor the DMA engine issues meanwhile. Its burst is in reads_ from its issue.
  bool ar_pending_ = false;
  uint32_t ar_pending_addr_ = 0;
  uint8_t ar_pending_len_ = 0;

  Slot slots_[2];
  int tokens_to_[2] = {0, 0};  // [kCompute] = d2c (DMA -> compute), [kDma] = c2d
  uint32_t retired_ = 0;
  DmaEngine dma_;
  ComputeEngine compute_;
  arch::Command mon_cmd_;
  std::array<uint32_t, arch::kSlopeRegisterCount> slope_regs_;
  // A SET into the slope registers was fetched (the fetcher's rule of requant.md 6.2).
  bool slope_set_seen_ = false;

  bool have_error_ = false;
  ProgramError error_ = ProgramError::kNone;
  uint32_t error_index_ = 0;
  bool stopped_ = false;      // an EXT_FAULT was recorded in an earlier cycle
  ProgramPerf perf_;          // a GEMM's counts are added whole at its start
  bool gemm_active_ = false;  // the last GEMM started (for VisibleRegisters)
  arch::Timing gemm_timing_{1, 1, 1, 1, 1};
  uint64_t gemm_start_ = 0;
};

struct ProgramRunOptions {
  // Skip idle cycles (ProgramEngine::SkipIdle); identical results, much faster for long GEMMs.
  // Ignored with an observer, which sees every cycle.
  bool skip_idle = true;
  std::function<void(const ProgramCycle&)> observer;
  arch::Command initial_cmd;  // mon_cmd before the first GEMM
};

// Runs a program to its end on `memory` and `srams` (a model-only run).
ProgramRunResult RunProgram(const arch::ArchConfig& config, ExtMemory& memory, Srams& srams,
                            uint32_t q_base, uint32_t q_count,
                            const ProgramRunOptions& options = {});

// One launch of a program of several (data_movement.md 14.4): Q_BASE and Q_COUNT, and the index
// of its first descriptor in the whole program.
struct ProgramLaunchSpec {
  uint32_t q_base = 0, q_count = 0;
  uint32_t first = 0;
};

// Runs the launches in order as the host driver does (14.4): each one's cycle 0 comes
// arch::kRelaunchCycles after the cycle in which the previous one's DONE became visible, the memory
// idle in between; it stops after a launch that ends with an error. The result: that launch's
// error with its Q_ERR_INDEX plus `first` (the program's index), Q_RETIRED and every counter summed
// over the launches run, and perf.cycles the span from the first launch's cycle 0 to the last one's
// end: the sum of their PERF_CYCLES plus kRelaunchCycles per relaunch.
ProgramRunResult RunLaunches(const arch::ArchConfig& config, ExtMemory& memory, Srams& srams,
                             const std::vector<ProgramLaunchSpec>& launches,
                             const ProgramRunOptions& options = {});

// Adds `part`'s counters to `sum` (every field, cycles included).
void AddPerf(ProgramPerf& sum, const ProgramPerf& part);

}  // namespace qacc::model

#endif  // QACC_MODEL_PROGRAM_ENGINE_H_
