#include "model/accel_state.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "model/command.h"
#include "model/model_only.h"

namespace qacc::model {

namespace {

constexpr uint64_t kAddrLimit = uint64_t{1} << arch::kAddrBits;
constexpr uint32_t kDimMask = arch::kMaxDim;
constexpr uint32_t kBaseMask = (uint32_t{1} << arch::kBaseBits) - 1;
constexpr uint32_t kModeMask =
    arch::kModeRounding | arch::kModePerChannel | arch::kModeOutRaw | arch::kModeBiasEn |
    arch::kModeAUnsigned | arch::kModeBUnsigned | arch::kModeRqForm | arch::kModeSlopePerChannel |
    arch::kModeActMask | arch::kModeLutSlotMask | arch::kModeLutInBitsMask |
    arch::kModeLutEntryBitsMask | arch::kModeRshiftRoundMask | arch::kModeMultWidthMask;
constexpr uint32_t kZpMask = 0x1FFu << arch::kZpALsb | 0x1FFu << arch::kZpBLsb;
constexpr uint32_t kShiftMask = (uint32_t{1} << arch::kShiftBits) - 1;

constexpr uint32_t kQBaseMask = ~(arch::kDescBytes - 1);  // Q_BASE [31:6]

// The write rules of the generated register table (3.2): a write to a read-only register is refused,
// and so is a write to a busy-locked one (CTRL, CMD_*, Q_BASE, Q_COUNT) while BUSY.
bool IsReadOnlyRegister(uint32_t offset) {
  const arch::RegisterInfo* info = arch::FindRegister(offset);
  return info != nullptr && info->access == arch::Access::kRO;
}
bool IsBusyLocked(uint32_t offset) {
  const arch::RegisterInfo* info = arch::FindRegister(offset);
  return info != nullptr && info->busy_locked;
}

// The index of a slope stage register (requant.md 6.2) in arch::Command::slope_regs, or -1.
int SlopeRegisterIndex(uint32_t offset) {
  if (offset < arch::reg::kSlopePosMult || offset > arch::reg::kSlopeClampMax) return -1;
  return int((offset - arch::reg::kSlopePosMult) / 4);
}

}  // namespace

const char* BusStatusName(BusStatus status) {
  switch (status) {
    case BusStatus::kOk:
      return "ok";
    case BusStatus::kAddressError:
      return "address_error";
    case BusStatus::kGenericError:
      return "generic_error";
  }
  return "?";
}

AccelState::AccelState(const arch::ArchConfig& config)
    : config_(config), srams_(config), ext_(config.ext_mem_size_bytes, ExtMemoryTimingOf(config)) {
  arch::ValidateArchConfig(config_);
  // Reset (spec 10): every register field is 0, not arch::Command's member defaults.
  cmd_regs_.m = cmd_regs_.n = cmd_regs_.k = 0;
  cmd_regs_.clamp_min = cmd_regs_.clamp_max = 0;
  cmd_regs_.mult = 0;
}

int AccelState::TransferCycles(uint64_t addr, bool is_read) {
  const bool sram =
      addr < kAddrLimit &&
      Srams::IsSramRegion(static_cast<arch::Region>(arch::RegionBits(uint32_t(addr))));
  return is_read && sram ? 3 : 2;
}

void AccelState::AdvanceTo(int64_t cycle) {
  if (!pending_) return;
  if (last_is_program_) {
    StepProgramBefore(cycle);
    if (!program_->ended || cycle < program_->done_cycle) return;
    pending_ = false;
    done_ = true;
    cmd_regs_.slope_regs = engine_->slope_registers();  // the SETs' writes outlive the program
    error_ = program_->result.error != arch::ErrCode::kNone;
    err_code_ = program_->result.error;
    if (error_) q_err_index_ = static_cast<uint32_t>(program_->result.error_index);
    ++cmd_count_;
    return;
  }
  if (cycle >= launch_->done_cycle) {
    pending_ = false;
    done_ = true;
    error_ = launch_->error != arch::ErrCode::kNone;
    err_code_ = launch_->error;
    ++cmd_count_;
  }
}

bool AccelState::Busy(int64_t cycle) {
  if (!pending_) return false;
  if (last_is_program_) {
    StepProgramBefore(cycle);
    return cycle >= program_->launch_cycle && (!program_->ended || cycle < program_->done_cycle);
  }
  return cycle >= launch_->launch_cycle && cycle < launch_->done_cycle;
}

bool AccelState::Irq(int64_t cycle) {
  if (!irq_en_) return false;
  if (done_) return true;
  if (!pending_) return false;
  if (last_is_program_) {
    StepProgramBefore(cycle);
    return program_->ended && cycle >= program_->done_cycle;
  }
  return cycle >= launch_->done_cycle;
}

// ---- Programs ---------------------------------------------------------------------------------

// The RUN write completes in `cycle`; program cycle 0 is the next one
// (data_movement.md 14.1, 17.1).
void AccelState::Run(int64_t cycle) {
  ProgramLaunch launch;
  launch.launch_cycle = cycle + 1;
  launch.q_base = q_base_;
  launch.q_count = q_count_;
  // The memory's cycle is the absolute cycle, so that its timing (the interval since the last beat)
  // is that of a memory clocked in every cycle, as the RTL's is.
  if (ext_.cycle() < uint64_t(launch.launch_cycle))
    ext_.Idle(uint64_t(launch.launch_cycle) - ext_.cycle());
  engine_ = std::make_unique<ProgramEngine>(config_, ext_, srams_, q_base_, q_count_, cmd_regs_);
  program_ = launch;
  last_is_program_ = true;
  done_ = false;
  error_ = false;
  err_code_ = arch::ErrCode::kNone;
  q_err_index_ = 0;
  idle_ = ProgramCycle{};  // RUN clears the token counters, the queues and Q_RETIRED
  pending_ = true;
}

void AccelState::StepProgramOnce() {
  const int64_t cycle = program_->launch_cycle + int64_t(engine_->cycle());
  if (observing_ && keep_registers_) {
    before_observed_ = engine_->register_state();
    kept_cycle_ = cycle;
  }
  engine_->Step(&observed_);
  observed_cycle_ = cycle;
  if (observed_.gemm_start.valid && gemm_listener_) {
    gemm_listener_(cycle, observed_.gemm_start.command);
  }
  if (!engine_->finished()) return;
  program_->ended = true;
  program_->done_cycle = cycle + 1;
  program_->result = engine_->result();
  // After the end the queue monitor holds the last counters and occupancies, without pulses.
  idle_ = ProgramCycle{};
  idle_.d2c = observed_.d2c;
  idle_.c2d = observed_.c2d;
  idle_.dma_queue = observed_.dma_queue;
  idle_.compute_queue = observed_.compute_queue;
  idle_.retired = observed_.retired;
}

void AccelState::StepProgramBefore(int64_t end) {
  if (!engine_) return;
  while (!engine_->finished()) {
    const int64_t next = program_->launch_cycle + int64_t(engine_->cycle());
    if (next >= end) return;
    if (!observing_) {
      engine_->SkipIdle(uint64_t(end - program_->launch_cycle));
      if (program_->launch_cycle + int64_t(engine_->cycle()) >= end) return;
    }
    StepProgramOnce();
  }
}

const ProgramCycle& AccelState::ObserveCycle(int64_t cycle, bool keep_registers) {
  observing_ = true;
  keep_registers_ = keep_registers;
  if (cycle == observed_cycle_) return observed_;
  if (engine_ && !engine_->finished() && cycle >= program_->launch_cycle) {
    const int64_t next = program_->launch_cycle + int64_t(engine_->cycle());
    if (next != cycle) {
      throw std::logic_error("AccelState::ObserveCycle: cycle " + std::to_string(cycle) +
                             " asked while the program is at cycle " + std::to_string(next));
    }
    StepProgramOnce();
    return observed_;
  }
  idle_.mon_cmd = cmd_regs_;
  return idle_;
}

int64_t AccelState::FinishProgram() {
  if (!program_) throw std::logic_error("AccelState::FinishProgram: no program was launched");
  while (!engine_->finished()) {
    if (!observing_) engine_->SkipIdle();
    StepProgramOnce();
  }
  return program_->done_cycle;
}

ProgramRegisters AccelState::ProgramRegistersAt(int64_t cycle) const {
  if (!engine_) return {};
  // In lockstep the program runs one cycle ahead of the bus: the cycle of a read is the one last
  // observed, and its registers are those at that cycle's start.
  if (observing_ && cycle == kept_cycle_) return ProgramEngine::VisibleRegisters(before_observed_);
  const int64_t next = program_->launch_cycle + int64_t(engine_->cycle());
  if (cycle >= next || engine_->finished()) return engine_->VisibleRegisters();
  throw std::logic_error("AccelState: the program registers of cycle " + std::to_string(cycle) +
                         " are asked after the program passed it");
}

BusResponse AccelState::Read(uint64_t addr, int64_t cycle) {
  AdvanceTo(cycle);
  if (addr >= kAddrLimit) return {BusStatus::kAddressError, 0};
  const uint32_t address = static_cast<uint32_t>(addr);
  const auto region = static_cast<arch::Region>(arch::RegionBits(address));
  const uint32_t offset = arch::WindowOffset(address) & ~uint32_t{3};
  if (region == arch::Region::kRegs) {
    if (offset >= arch::kRegsReservedEnd) return {BusStatus::kAddressError, 0};
    // Blocks 0..1, and the unit blocks' registers (the others read 0, units.md 19.3).
    const bool mapped = offset < arch::kRegsSize || arch::FindRegister(offset) != nullptr;
    return {BusStatus::kOk, mapped ? ReadRegister(offset, cycle) : 0};
  }
  if (!Srams::IsSramRegion(region)) return {BusStatus::kAddressError, 0};
  if (Busy(cycle) || !srams_.InRange(region, offset)) return {BusStatus::kGenericError, 0};
  return {BusStatus::kOk, srams_.HostRead(region, offset)};
}

BusStatus AccelState::Write(uint64_t addr, uint32_t data, uint8_t strobe, int64_t cycle) {
  AdvanceTo(cycle);
  if (addr >= kAddrLimit) return BusStatus::kAddressError;
  const uint32_t address = static_cast<uint32_t>(addr);
  const auto region = static_cast<arch::Region>(arch::RegionBits(address));
  const uint32_t offset = arch::WindowOffset(address) & ~uint32_t{3};
  if (region == arch::Region::kRegs) {
    if (offset >= arch::kRegsReservedEnd) return BusStatus::kAddressError;
    const bool mapped = offset < arch::kRegsSize || arch::FindRegister(offset) != nullptr;
    return mapped ? WriteRegister(offset, data, cycle) : BusStatus::kOk;
  }
  if (!Srams::IsSramRegion(region)) return BusStatus::kAddressError;
  if (Busy(cycle) || !srams_.InRange(region, offset)) return BusStatus::kGenericError;
  srams_.HostWrite(region, offset, data, strobe);
  return BusStatus::kOk;
}

PerfCounters AccelState::PerfVisible(int64_t cycle) const {
  if (last_is_program_) {
    const ProgramPerf p = ProgramRegistersAt(cycle).perf;
    PerfCounters visible;
    visible.cycles = uint32_t(p.cycles);
    for (size_t u = 0; u < p.busy.size(); ++u) visible.busy[u] = uint32_t(p.busy[u]);
    visible.out_writes = uint32_t(p.out_writes);
    visible.feed_stall = uint32_t(p.feed_stall);
    return visible;
  }
  if (!launch_) return {};
  const int64_t command_cycle = cycle - launch_->launch_cycle;
  if (launch_->engine) return PerfAt(launch_->engine->timing(), command_cycle);
  return command_cycle >= arch::kErrorCycles ? launch_->perf : PerfCounters{};
}

uint32_t AccelState::ReadRegister(uint32_t offset, int64_t cycle) {
  namespace reg = arch::reg;
  switch (offset) {
    case reg::kId:
      return arch::kId;
    case reg::kVersion:
      return arch::kVersion;
    case reg::kHwRows:
      return static_cast<uint32_t>(config_.rows);
    case reg::kHwCols:
      return static_cast<uint32_t>(config_.cols);
    case reg::kHwADepth:
      return config_.a_depth;
    case reg::kHwBDepth:
      return config_.b_depth;
    case reg::kHwBiasDepth:
      return config_.bias_depth;
    case reg::kHwRqDepth:
      return config_.rq_depth;
    case reg::kHwOutDepth:
      return config_.out_depth;
    case reg::kHwUnits:
      return arch::kHwUnitsV1;
    case reg::kHwLatency:
      return arch::kHwLatencyV1;
    case reg::kHwLutSlots:
      return static_cast<uint32_t>(config_.lut_slots);
    case reg::kCtrl:
      return irq_en_ ? arch::kCtrlIrqEn : 0u;
    case reg::kStatus:
      return (Busy(cycle) ? arch::kStatusBusy : 0u) | (done_ ? arch::kStatusDone : 0u) |
             (error_ ? arch::kStatusError : 0u) |
             static_cast<uint32_t>(err_code_) << arch::kStatusErrCodeLsb;
    case reg::kCmdM:
      return cmd_regs_.m;
    case reg::kCmdN:
      return cmd_regs_.n;
    case reg::kCmdK:
      return cmd_regs_.k;
    case reg::kCmdABase:
      return cmd_regs_.a_base;
    case reg::kCmdBBase:
      return cmd_regs_.b_base;
    case reg::kCmdBiasBase:
      return cmd_regs_.bias_base;
    case reg::kCmdRqBase:
      return cmd_regs_.rq_base;
    case reg::kCmdOutBase:
      return cmd_regs_.out_base;
    case reg::kCmdMode:
      return cmd_regs_.mode;
    case reg::kCmdZpAb:
      return cmd_regs_.zp_ab;
    case reg::kCmdZpOut:
      return static_cast<uint32_t>(cmd_regs_.zp_out);
    case reg::kCmdClampMin:
      return static_cast<uint32_t>(cmd_regs_.clamp_min);
    case reg::kCmdClampMax:
      return static_cast<uint32_t>(cmd_regs_.clamp_max);
    case reg::kCmdMult:
      return static_cast<uint32_t>(cmd_regs_.mult);
    case reg::kCmdShift:
      return static_cast<uint32_t>(arch::ShiftValue(cmd_regs_.shift));
    case reg::kCmdOp:
      return cmd_regs_.op;
    case reg::kPerfCycles:
      return PerfVisible(cycle).cycles;
    case reg::kPerfOutWrites:
      return PerfVisible(cycle).out_writes;
    case reg::kPerfFeedStall:
      return PerfVisible(cycle).feed_stall;
    case reg::kPerfCmdCount:
      return cmd_count_;
    case reg::kQBase:
      return q_base_;
    case reg::kQCount:
      return q_count_;
    case reg::kQRetired:
      return ProgramRegistersAt(cycle).retired;
    case reg::kQErrIndex:
      return q_err_index_;
    case reg::kQTokens: {
      const ProgramRegisters r = ProgramRegistersAt(cycle);
      return uint32_t(r.d2c) | uint32_t(r.c2d) << 8;
    }
    // The counters of 17.8: a START clears them (they stay 0 while only commands run).
    case reg::kPerfDmaBusy:
    case reg::kPerfComputeBusy:
    case reg::kPerfDmaWait:
    case reg::kPerfComputeWait:
    case reg::kPerfPortStall:
    case reg::kPerfRdBeats:
    case reg::kPerfWrBeats: {
      if (!last_is_program_) return 0;
      const ProgramPerf p = ProgramRegistersAt(cycle).perf;
      const uint64_t values[] = {p.dma_busy,   p.compute_busy, p.dma_wait, p.compute_wait,
                                 p.port_stall, p.rd_beats,     p.wr_beats};
      return uint32_t(values[(offset - reg::kPerfDmaBusy) / 4]);  // wraps modulo 2^32
    }
    default:
      // The slope stage's registers: a running program's as its SETs wrote them so far.
      if (const int i = SlopeRegisterIndex(offset); i >= 0) {
        return pending_ && last_is_program_ ? ProgramRegistersAt(cycle).slope_regs[size_t(i)]
                                            : cmd_regs_.slope_regs[size_t(i)];
      }
      // The busy counters of the present beat units; reserved offsets (the busy counters of absent
      // units among them) read 0.
      for (const arch::BeatUnitInfo& unit : arch::kBeatUnits) {
        if (offset == unit.busy_reg) return PerfVisible(cycle).Busy(unit.beat);
      }
      return 0;
  }
}

BusStatus AccelState::WriteRegister(uint32_t offset, uint32_t data, int64_t cycle) {
  namespace reg = arch::reg;
  if (IsReadOnlyRegister(offset)) return BusStatus::kGenericError;
  if (IsBusyLocked(offset) && Busy(cycle)) return BusStatus::kGenericError;
  switch (offset) {
    case reg::kCtrl:
      irq_en_ = data & arch::kCtrlIrqEn;
      // RUN (a program, data_movement.md 14.1) wins over START.
      if (data & arch::kCtrlRun) {
        Run(cycle);
      } else if (data & arch::kCtrlStart) {
        Start(cycle);
      }
      break;
    case reg::kQBase:
      q_base_ = data & kQBaseMask;
      break;
    case reg::kQCount:
      q_count_ = data & kDimMask;
      break;
    case reg::kStatus:
      if (data & arch::kStatusDone) done_ = false;
      if (data & arch::kStatusError) {
        error_ = false;
        err_code_ = arch::ErrCode::kNone;
      }
      break;
    case reg::kCmdM:
      cmd_regs_.m = data & kDimMask;
      break;
    case reg::kCmdN:
      cmd_regs_.n = data & kDimMask;
      break;
    case reg::kCmdK:
      cmd_regs_.k = data & kDimMask;
      break;
    case reg::kCmdABase:
      cmd_regs_.a_base = data & kBaseMask;
      break;
    case reg::kCmdBBase:
      cmd_regs_.b_base = data & kBaseMask;
      break;
    case reg::kCmdBiasBase:
      cmd_regs_.bias_base = data & kBaseMask;
      break;
    case reg::kCmdRqBase:
      cmd_regs_.rq_base = data & kBaseMask;
      break;
    case reg::kCmdOutBase:
      cmd_regs_.out_base = data & kBaseMask;
      break;
    case reg::kCmdMode:
      cmd_regs_.mode = data & kModeMask;
      break;
    case reg::kCmdZpAb:
      cmd_regs_.zp_ab = data & kZpMask;
      break;
    case reg::kCmdZpOut:
      cmd_regs_.zp_out = static_cast<int32_t>(data);
      break;
    case reg::kCmdClampMin:
      cmd_regs_.clamp_min = static_cast<int32_t>(data);
      break;
    case reg::kCmdClampMax:
      cmd_regs_.clamp_max = static_cast<int32_t>(data);
      break;
    case reg::kCmdMult:
      cmd_regs_.mult = static_cast<int32_t>(data);
      break;
    case reg::kCmdShift:
      cmd_regs_.shift = data & kShiftMask;
      break;
    case reg::kCmdOp:
      cmd_regs_.op = data & ((uint32_t{1} << arch::kOpBits) - 1);
      break;
    default:  // the slope stage's registers, each storing its fields; reserved offsets: ignored
      if (const int i = SlopeRegisterIndex(offset); i >= 0) {
        cmd_regs_.slope_regs[size_t(i)] = data & arch::FindRegister(offset)->rw_mask;
      }
      break;
  }
  return BusStatus::kOk;
}

// The START write completes in `cycle`; command cycle 0 is the next one. DONE, ERROR and ERR_CODE
// of the previous command are cleared at launch, so DONE rises again at this command's done cycle.
void AccelState::Start(int64_t cycle) {
  const LaunchDecision decision = DecodeCommand(config_, cmd_regs_);
  Launch launch;
  launch.launch_cycle = cycle + 1;
  launch.done_cycle = launch.launch_cycle + decision.cycles;
  launch.error = decision.error;
  if (decision.error == arch::ErrCode::kNone) {
    launch.engine = std::make_shared<const GemmEngine>(config_, decision.command, srams_);
    launch.perf = PerfAt(decision.command.timing, decision.cycles);
    ExecuteTiles(*launch.engine, srams_);
  } else {
    launch.perf = ErrorPerf();
  }
  done_ = false;
  error_ = false;
  err_code_ = arch::ErrCode::kNone;
  pending_ = true;
  last_is_program_ = false;
  launch_ = std::move(launch);
  if (launch_listener_) launch_listener_(*launch_);
}

BeatPredictor AccelState::MakePredictor() const {
  if (!launch_) throw std::logic_error("AccelState::MakePredictor: no command was launched");
  return BeatPredictor(launch_->engine, launch_->launch_cycle);
}

}  // namespace qacc::model
