#include "model/accel_state.h"

#include <stdexcept>
#include <utility>

#include "model/command.h"
#include "model/model_only.h"

namespace qacc::model {

namespace {

constexpr uint64_t kAddrLimit = uint64_t{1} << arch::kAddrBits;
constexpr uint32_t kDimMask = arch::kMaxDim;
constexpr uint32_t kBaseMask = (uint32_t{1} << arch::kBaseBits) - 1;
constexpr uint32_t kModeMask = arch::kModeRounding | arch::kModePerChannel | arch::kModeOutRaw |
                               arch::kModeBiasEn | arch::kModeAUnsigned | arch::kModeBUnsigned |
                               arch::kModeActMask;
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

AccelState::AccelState(const arch::ArchConfig& config) : config_(config), srams_(config) {
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
  if (pending_ && cycle >= launch_->done_cycle) {
    pending_ = false;
    done_ = true;
    error_ = launch_->error != arch::ErrCode::kNone;
    err_code_ = launch_->error;
    ++cmd_count_;
  }
}

bool AccelState::Busy(int64_t cycle) const {
  return pending_ && cycle >= launch_->launch_cycle && cycle < launch_->done_cycle;
}

bool AccelState::Irq(int64_t cycle) const {
  const bool done = done_ || (pending_ && cycle >= launch_->done_cycle);
  return done && irq_en_;
}

BusResponse AccelState::Read(uint64_t addr, int64_t cycle) {
  AdvanceTo(cycle);
  if (addr >= kAddrLimit) return {BusStatus::kAddressError, 0};
  const uint32_t address = static_cast<uint32_t>(addr);
  const auto region = static_cast<arch::Region>(arch::RegionBits(address));
  const uint32_t offset = arch::WindowOffset(address) & ~uint32_t{3};
  if (region == arch::Region::kRegs) {
    if (offset >= arch::kRegsReservedEnd) return {BusStatus::kAddressError, 0};
    return {BusStatus::kOk, offset < arch::kRegsSize ? ReadRegister(offset, cycle) : 0};
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
    return offset < arch::kRegsSize ? WriteRegister(offset, data, cycle) : BusStatus::kOk;
  }
  if (!Srams::IsSramRegion(region)) return BusStatus::kAddressError;
  if (Busy(cycle) || !srams_.InRange(region, offset)) return BusStatus::kGenericError;
  srams_.HostWrite(region, offset, data, strobe);
  return BusStatus::kOk;
}

PerfCounters AccelState::PerfVisible(int64_t cycle) const {
  if (!launch_) return {};
  const int64_t command_cycle = cycle - launch_->launch_cycle;
  if (launch_->engine) return PerfAt(launch_->engine->timing(), command_cycle);
  return command_cycle >= arch::kErrorCycles ? launch_->perf : PerfCounters{};
}

uint32_t AccelState::ReadRegister(uint32_t offset, int64_t cycle) const {
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
    case reg::kPerfMacBusy:
      return PerfVisible(cycle).mac_busy;
    case reg::kPerfRqBusy:
      return PerfVisible(cycle).rq_busy;
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
    // Q_RETIRED, Q_ERR_INDEX, Q_TOKENS and PERF_DMA_BUSY .. PERF_WR_BEATS: a program's (data_movement.md
    // 14.1, 17.8); this register file runs no program, so they keep their reset value 0.
    default:  // reserved offsets (PERF_LUT_BUSY, PERF_SMX_BUSY included) read 0
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
      // RUN (a program, data_movement.md 14.1) wins over START; programs are executed by the program
      // engine, not by this register file: here a RUN write only loads IRQ_EN.
      if ((data & arch::kCtrlStart) && !(data & arch::kCtrlRun)) Start(cycle);
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
    default:  // reserved offsets: ignored
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
  launch_ = std::move(launch);
  if (launch_listener_) launch_listener_(*launch_);
}

BeatPredictor AccelState::MakePredictor() const {
  if (!launch_) throw std::logic_error("AccelState::MakePredictor: no command was launched");
  return BeatPredictor(launch_->engine, launch_->launch_cycle);
}

}  // namespace qacc::model
