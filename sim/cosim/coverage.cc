#include "sim/cosim/coverage.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <string>

#include "golden/lut_unit.h"
#include "golden/requant.h"
#include "model/descriptor.h"

namespace qacc::cosim {

namespace {

constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();

// The error codes of the spec's validation table (generated).
std::vector<arch::ErrCode> ErrorCodes() {
  std::vector<arch::ErrCode> codes;
  for (const arch::ErrCodeInfo& info : arch::kErrCodes) codes.push_back(info.code);
  return codes;
}

std::string RuleBin(arch::ErrCode code, bool legal) {
  return fmt::format("rule.{}.{}", arch::ErrCodeName(code), legal ? "last_legal" : "first_illegal");
}

// Whether p sits exactly half-way between two multiples of 2^bits (a rounding tie).
bool IsTie(int64_t p, int bits) {
  if (bits <= 0 || bits > 62) return false;
  const uint64_t rem = static_cast<uint64_t>(p) & ((uint64_t{1} << bits) - 1);
  return rem == uint64_t{1} << (bits - 1);
}

}  // namespace

Coverage::Coverage(const arch::ArchConfig& config)
    : config_(config), rules_(config, bins_), slope_(bins_, shadow_), shadow_(config) {
  for (arch::ErrCode code : ErrorCodes()) {
    bins_[RuleBin(code, true)] = 0;
    // With 16 slots every LUT_SLOT value is legal: no first illegal one.
    if (code == arch::ErrCode::kLutSlot && config.lut_slots >= (1 << arch::kLutSlotBits)) continue;
    bins_[RuleBin(code, false)] = 0;
  }
  // The LUT stage (lut.md 10.4): each use, entry and input width, every slot used, reloaded after
  // a command read it, and swept (one command read each of its 256 addresses).
  for (const char* bin : {"lut.use.fused", "lut.entry_bits.8", "lut.entry_bits.16",
                          "lut.clamp_beyond_table", "lut.out_raw_refused"}) {
    bins_[bin] = 0;
  }
  for (int b = arch::kLutMinInBits; b <= arch::kLutMaxInBits; ++b) {
    bins_[fmt::format("lut.in_bits.{}", b)] = 0;
  }
  for (int slot = 0; slot < config.lut_slots; ++slot) {
    for (const char* what : {"used", "reloaded", "every_address"}) {
      bins_[fmt::format("lut.slot.{}.{}", slot, what)] = 0;
    }
  }
  lut_slot_used_.assign(size_t(config.lut_slots), false);
  // ELTWISE (lut.md 10.5), from the descriptors the compute engine starts: each OP, add form,
  // output layout and in-place operand, the seed form's int16 overflow both ways, one word.
  for (const char* bin :
       {"elt.op.LUT", "elt.op.ADD", "elt.op.ADD_LUT", "elt.add.tflite", "elt.add.seed_symmetric",
        "elt.add.seed_wrap", "elt.add.seed_saturate", "elt.add.same_operand", "elt.out.int8",
        "elt.out.int16", "elt.in_place.a", "elt.in_place.b", "elt.count.1"}) {
    bins_[bin] = 0;
  }
  for (int s = arch::kMinShift; s <= arch::kMaxShift; ++s) bins_[fmt::format("shift.{}", s)] = 0;
  for (const arch::OpcodeInfo& info : arch::kOpcodes) bins_[fmt::format("opcode.{}", info.name)] = 0;
  for (const char* bin :
       {"mode.int8_out", "mode.int32_out", "mode.per_channel", "mode.per_tensor", "mode.bias",
        "mode.a_unsigned", "mode.b_unsigned", "mode.single_rounding", "mode.double_rounding",
        "requant.saturate_high", "requant.saturate_low", "requant.saturate_with_zero_point",
        "requant.sat32", "requant.tie_single", "requant.tie_double_first",
        "requant.tie_double_second", "requant.zero_point_int32_max",
        "requant.zero_point_int32_min", "requant.clamp_min_-128", "requant.clamp_max_255",
        "acc.bias_add_wraps", "tile.partial_m", "tile.partial_n", "shape.k_1", "shape.k_max",
        "shape.m_1", "shape.n_1", "cmd.back_to_back", "cmd.relaunch_same_registers",
        "bus.register_read_while_busy", "bus.window_refused_while_busy",
        "bus.command_write_refused_while_busy", "bus.ctrl_write_refused_while_busy",
        "bus.status_w1c_while_busy", "bus.read_only_write_refused", "bus.reserved_access",
        "bus.unit_block_access", "bus.unmapped_refused", "bus.window_read_wait_state",
        "irq.raised_at_done", "irq.raised_by_enable", "irq.cleared_by_w1c", "irq.cleared_by_launch"}) {
    bins_[bin] = 0;
  }
  // The per-lane bins, by pointer (std::map nodes stay put): no string work per beat.
  for (int s = arch::kMinShift; s <= arch::kMaxShift; ++s) {
    hot_.shift[s - arch::kMinShift] = &bins_[fmt::format("shift.{}", s)];
  }
  hot_.bias_wrap = &bins_["acc.bias_add_wraps"];
  hot_.tie_single = &bins_["requant.tie_single"];
  hot_.tie_first = &bins_["requant.tie_double_first"];
  hot_.tie_second = &bins_["requant.tie_double_second"];
  hot_.sat32 = &bins_["requant.sat32"];
  hot_.sat_high = &bins_["requant.saturate_high"];
  hot_.sat_low = &bins_["requant.saturate_low"];
  hot_.sat_zp = &bins_["requant.saturate_with_zero_point"];
  // The TPU-MLIR form (requant.md 6.1): each form, width and mode, per channel, and the lane's
  // corners.
  for (const char* bin : {"mode.rq_form.tflite", "mode.rq_form.tpu_mlir", "tpu.width.8",
                          "tpu.width.16", "tpu.width.32", "tpu.per_channel", "tpu.rshift.0",
                          "tpu.rshift.63", "tpu.quotient_beyond_int32", "tpu.saturate_33"}) {
    bins_[bin] = 0;
  }
  for (size_t i = 0; i < std::size(golden::tpu_mlir::kAllRoundings); ++i) {
    const std::string name(golden::tpu_mlir::RoundingName(golden::tpu_mlir::kAllRoundings[i]));
    bins_["tpu.round." + name] = 0;
    hot_.tpu_tie[i] = &bins_["tpu.tie." + name];
  }
  hot_.tpu_rshift_0 = &bins_["tpu.rshift.0"];
  hot_.tpu_rshift_63 = &bins_["tpu.rshift.63"];
  hot_.tpu_beyond_int32 = &bins_["tpu.quotient_beyond_int32"];
  hot_.tpu_sat33 = &bins_["tpu.saturate_33"];

  // Programs. Bins that the config cannot reach are not registered (a hole would be no test's):
  // the unit / beat relations of its SRAM units, the out layout when a step's bytes tell it
  // (D > C: an int32 word's step is wider than an int8 entry), a stalled write channel (only
  // with ext_mem.interval > 1: with one beat per cycle the memory takes every write beat).
  for (const arch::SramInfo& sram : arch::kSrams) {
    pb_.load[size_t(sram.id)] = ProgramBin(fmt::format("dma.load.{}", sram.name));
    pb_.store[size_t(sram.id)] = ProgramBin(fmt::format("dma.store.{}", sram.name));
  }
  const int d = config_.mem_data_bytes, c = config_.cols;
  if (d > c) {
    pb_.load_out8 = ProgramBin("dma.load.out_int8");
    pb_.load_out32 = ProgramBin("dma.load.out_int32");
    pb_.store_out8 = ProgramBin("dma.store.out_int8");
    pb_.store_out32 = ProgramBin("dma.store.out_int32");
  }
  static const char* kRelations[] = {"unit_below_beat", "unit_equal_beat", "unit_above_beat"};
  for (uint8_t id = 1; id <= 4; ++id) {  // the out SRAM's units are B's and bias's sizes
    const int unit = int(model::DmaUnitBytes(config_, id, false));
    const int rel = unit < d ? 0 : unit == d ? 1 : 2;
    pb_.load_unit[rel] = ProgramBin(fmt::format("dma.load.{}", kRelations[rel]));
    pb_.store_unit[rel] = ProgramBin(fmt::format("dma.store.{}", kRelations[rel]));
  }
  pb_.rd_burst_1 = ProgramBin("axi.read_burst_1_beat");
  pb_.rd_burst_16 = ProgramBin("axi.read_burst_16_beats");
  pb_.rd_cut = ProgramBin("axi.read_burst_cut_at_4k");
  pb_.wr_burst_1 = ProgramBin("axi.write_burst_1_beat");
  pb_.wr_burst_16 = ProgramBin("axi.write_burst_16_beats");
  pb_.wr_cut = ProgramBin("axi.write_burst_cut_at_4k");
  pb_.rd_max_outstanding = ProgramBin("axi.reads_in_flight_max_outstanding");
  // A stalling memory (dma_stalling_memory) holds addresses and write beats on every config.
  pb_.ar_held = ProgramBin("axi.read_address_held");
  pb_.aw_held = ProgramBin("axi.write_address_held");
  pb_.wr_stalled = ProgramBin("axi.write_data_stalled");
  pb_.wr_buffer_full = ProgramBin("dma.write_buffer_full");
  pb_.overlap_gemm = ProgramBin("overlap.dma_with_gemm");
  pb_.overlap_move = ProgramBin("overlap.dma_with_move");
  pb_.d2c_max = ProgramBin("token.d2c_at_15");
  pb_.c2d_max = ProgramBin("token.c2d_at_15");
  pb_.dma_waits = ProgramBin("token.dma_wait_blocks");
  pb_.cmp_waits = ProgramBin("token.compute_wait_blocks");
  pb_.dma_full = ProgramBin("queue.dma_full");
  pb_.cmp_full = ProgramBin("queue.compute_full");
  pb_.dma_empty = ProgramBin("queue.dma_empty_while_compute_runs");
  pb_.cmp_empty = ProgramBin("queue.compute_empty_while_dma_runs");
  pb_.move_a = ProgramBin("move.into_a");
  pb_.move_b = ProgramBin("move.into_b");
  for (const arch::ErrCodeInfo& info : arch::kProgramErrCodes) {
    bins_[fmt::format("program.error.{}", info.name)] = 0;
  }
  for (const char* bin :
       {"program.completed", "program.error_after_retired", "program.q_count_0"}) {
    bins_[bin] = 0;
  }
}

int64_t* Coverage::ProgramBin(const std::string& bin) { return &bins_[bin]; }

void Coverage::Hit(const std::string& bin) {
  auto it = bins_.find(bin);
  if (it != bins_.end()) ++it->second;
}

void Coverage::OnTransfer(int64_t cycle, bool write, uint32_t addr, uint32_t wdata,
                          uint8_t strobe, bool pslverr, uint32_t rdata, bool busy) {
  namespace reg = arch::reg;
  const auto region = static_cast<arch::Region>(arch::RegionBits(addr));
  const uint32_t offset = arch::WindowOffset(addr) & ~3u;
  const bool regs = region == arch::Region::kRegs && addr < (uint32_t{1} << arch::kAddrBits);
  const bool window = model::Srams::IsSramRegion(region);
  const arch::RegisterInfo* info = regs ? arch::FindRegister(offset) : nullptr;
  if (!write && window && !pslverr) Hit("bus.window_read_wait_state");
  if (busy) {
    if (window && pslverr) Hit("bus.window_refused_while_busy");
    if (regs && !write && !pslverr) Hit("bus.register_read_while_busy");
    if (write && pslverr && info != nullptr && info->busy_locked && offset != reg::kCtrl) {
      Hit("bus.command_write_refused_while_busy");
    }
    if (write && pslverr && offset == reg::kCtrl && regs) Hit("bus.ctrl_write_refused_while_busy");
    if (regs && write && !pslverr && offset == reg::kStatus) Hit("bus.status_w1c_while_busy");
  }
  if (write && pslverr && info != nullptr && info->access == arch::Access::kRO) {
    Hit("bus.read_only_write_refused");
  }
  if (!regs && !window && pslverr) Hit("bus.unmapped_refused");
  if (regs && !pslverr && offset < arch::kRegsReservedEnd && info == nullptr) {
    // Blocks 0 and 1 end at kRegsSize; blocks 2..15 belong to units, absent ones read 0 (units.md 19.3).
    Hit(offset < arch::kRegsSize ? "bus.reserved_access" : "bus.unit_block_access");
  }
  if (pslverr) return;
  // The accepted accesses: the registers and SRAM contents the RTL now holds.
  if (write && window && (region == arch::Region::kBias || region == arch::Region::kRq)) {
    shadow_.HostWrite(region, offset, wdata, strobe);
  }
  if (write && region == arch::Region::kLut) OnLutWrite(offset / golden::kLutSlotBytes);
  if (!regs) return;
  if (!write) {
    if (offset == reg::kStatus && (rdata & arch::kStatusDone)) {
      if (program_) {
        OnProgramVerdict(rdata);
      } else {
        OnVerdict(rdata);
      }
    }
    if (offset == reg::kQRetired && program_ && !busy) {
      run_.retired_seen = rdata > 0;
      if (run_.error && run_.retired_seen) Hit("program.error_after_retired");
    }
    return;
  }
  // A register keeps only its fields (spec 3.3), as the RTL holds them.
  const uint32_t stored = info != nullptr ? wdata & info->rw_mask : wdata;
  switch (offset) {
    case reg::kCmdOp: regs_.op = stored; break;
    case reg::kCmdM: regs_.m = stored; break;
    case reg::kCmdN: regs_.n = stored; break;
    case reg::kCmdK: regs_.k = stored; break;
    case reg::kCmdABase: regs_.a_base = stored; break;
    case reg::kCmdBBase: regs_.b_base = stored; break;
    case reg::kCmdBiasBase: regs_.bias_base = stored; break;
    case reg::kCmdRqBase: regs_.rq_base = stored; break;
    case reg::kCmdOutBase: regs_.out_base = stored; break;
    case reg::kCmdMode: regs_.mode = stored; break;
    case reg::kCmdZpAb: regs_.zp_ab = stored; break;
    case reg::kCmdZpOut: regs_.zp_out = static_cast<int32_t>(stored); break;
    case reg::kCmdClampMin: regs_.clamp_min = static_cast<int32_t>(stored); break;
    case reg::kCmdClampMax: regs_.clamp_max = static_cast<int32_t>(stored); break;
    case reg::kCmdMult: regs_.mult = static_cast<int32_t>(stored); break;
    case reg::kCmdShift: regs_.shift = stored; break;
    case reg::kSlopePosMult:
    case reg::kSlopePosShift:
    case reg::kSlopePosZp:
    case reg::kSlopePosCfg:
    case reg::kSlopeNegMult:
    case reg::kSlopeNegShift:
    case reg::kSlopeNegZp:
    case reg::kSlopeNegCfg:
    case reg::kSlopeClampMin:
    case reg::kSlopeClampMax:
      regs_.slope_regs[(offset - reg::kSlopePosMult) / 4] = stored;
      break;
    case reg::kStatus:
      if (wdata & arch::kStatusDone) last_status_w1c_cycle_ = cycle;
      break;
    case reg::kQBase:
      q_base_ = stored;
      break;
    case reg::kQCount:
      q_count_ = stored;
      break;
    case reg::kCtrl:
      irq_en_ = wdata & arch::kCtrlIrqEn;
      if (wdata & arch::kCtrlRun) {  // RUN wins over START (14.1)
        OnRun();
      } else if (wdata & arch::kCtrlStart) {
        program_ = false;
        OnStart(cycle);
      }
      break;
    default:
      break;
  }
}

void Coverage::OnStart(int64_t cycle) {
  if (launched_ && cmd_.cmd.m == regs_.m && cmd_.cmd.n == regs_.n && cmd_.cmd.k == regs_.k &&
      cmd_.cmd.mode == regs_.mode && cmd_.cmd.a_base == regs_.a_base &&
      cmd_.cmd.out_base == regs_.out_base) {
    Hit("cmd.relaunch_same_registers");
  }
  if (last_done_cycle_ >= 0 && cycle - last_done_cycle_ <= 4) Hit("cmd.back_to_back");
  launched_ = true;
  cmd_ = Launched{};
  cmd_.cmd = regs_;
  cmd_.timing = arch::Timing(config_.rows, config_.cols, regs_.M(), regs_.N(), regs_.K(),
                             regs_.lut(), regs_.slope());
  slope_.OnLaunch(cmd_.cmd, cmd_.timing);
  last_launch_cycle_ = cycle + 1;
  FinishTile();
}

int Coverage::RuleBoundary(arch::ErrCode rule) const {
  const arch::Command& c = cmd_.cmd;
  const arch::Timing& t = cmd_.timing;
  auto range = [](int64_t end, int64_t depth) { return end == depth ? 1 : end == depth + 1 ? -1 : 0; };
  switch (rule) {
    case arch::ErrCode::kBadOpcode:
      return c.Op() == static_cast<uint32_t>(arch::Opcode::kGemm) ? 1 : c.Op() == 1 ? -1 : 0;
    case arch::ErrCode::kBadShape: {
      const int64_t smallest = std::min({int64_t{c.M()}, int64_t{c.N()}, int64_t{c.K()}});
      return smallest == 1 ? 1 : smallest == 0 ? -1 : 0;
    }
    case arch::ErrCode::kARange:
      return range(int64_t{c.a_base} + t.MB() * t.k, config_.a_depth);
    case arch::ErrCode::kBRange:
      return range(int64_t{c.b_base} + t.NB() * t.k, config_.b_depth);
    case arch::ErrCode::kBiasRange:
      return c.bias_en() ? range(int64_t{c.bias_base} + t.NB(), config_.bias_depth) : 0;
    case arch::ErrCode::kRqRange:
      return c.rq_words_per_tile() > 0
                 ? range(int64_t{c.rq_base} + c.rq_words_per_tile() * t.NB(), config_.rq_depth)
                 : 0;
    case arch::ErrCode::kOutRange:
      return range(int64_t{c.out_base} + arch::OutWords(t.T(), config_.rows, arch::OutLayoutOf(c)),
                   config_.out_depth);
    case arch::ErrCode::kBadRequant: {
      if (c.out_raw()) return 0;
      const int32_t s = arch::ShiftValue(c.shift);
      const bool tpu = c.tpu_mlir_form();
      if (!tpu && (s == arch::kMinShift - 1 || s == arch::kMaxShift + 1)) return -1;
      if (!tpu && !c.per_channel() &&
          (c.mult == arch::kMinNonzeroMult - 1 || c.mult == 1 || c.mult == kInt32Min)) {
        return -1;
      }
      // The TPU-MLIR form's encodings: the code after the last width and the last mode.
      const uint32_t last_width = uint32_t(arch::MultWidth::kW32);
      const uint32_t last_mode = uint32_t(arch::RshiftRound::kDown);
      if (tpu && (c.mult_width() == last_width + 1 || c.rshift_round() == last_mode + 1)) return -1;
      if (c.clamp_min == int64_t{c.clamp_max} + 1 || c.clamp_min == arch::kMinInt8ModeClamp - 1 ||
          c.clamp_max == arch::kMaxInt8ModeClamp + 1) {
        return -1;
      }
      const bool legal_edge =
          (!tpu && (s == arch::kMinShift || s == arch::kMaxShift)) ||
          (!tpu && !c.per_channel() &&
           (c.mult == arch::kMinNonzeroMult || c.mult == 0 || c.mult == kInt32Max)) ||
          (tpu && (c.mult_width() == last_width || c.rshift_round() == last_mode)) ||
          c.clamp_min == c.clamp_max || c.clamp_min == arch::kMinInt8ModeClamp ||
          c.clamp_max == arch::kMaxInt8ModeClamp;
      return legal_edge ? 1 : 0;
    }
    case arch::ErrCode::kMultWidth: {  // the width's extremes and one beyond each
      if (c.out_raw() || !c.tpu_mlir_form() || c.per_channel() ||
          c.mult_width() > uint32_t(arch::MultWidth::kW32)) {
        return 0;
      }
      const int bits = arch::MultWidthBits(c.mult_width());
      if (bits == 32) return c.mult == kInt32Min || c.mult == kInt32Max ? 1 : 0;
      const int64_t half = int64_t{1} << (bits - 1);
      if (c.mult == half || c.mult == -half - 1) return -1;
      return c.mult == half - 1 || c.mult == -half ? 1 : 0;
    }
    case arch::ErrCode::kRshiftRange: {
      if (c.out_raw() || !c.tpu_mlir_form() || c.per_channel()) return 0;
      const uint32_t r = arch::RshiftValue(c.shift);
      return r == uint32_t(arch::kMaxRqRshift) ? 1 : r == uint32_t(arch::kMaxRqRshift) + 1 ? -1 : 0;
    }
    case arch::ErrCode::kBadZp: {
      int result = 0;
      for (int32_t zp : {arch::ZpA(c.zp_ab), arch::ZpB(c.zp_ab)}) {
        if (zp == arch::kMinOperandZp - 1 || zp == arch::kMaxOperandZp + 1) return -1;
        if (zp == arch::kMinOperandZp || zp == arch::kMaxOperandZp) result = 1;
      }
      return result;
    }
    case arch::ErrCode::kUnitAbsent:  // SLOPE (3) is the last present unit, 2 the one before
      return c.act() == 2 || c.act() == 4 ? -1 : c.slope() ? 1 : 0;
    case arch::ErrCode::kBadSlope:
      return SlopeCoverage::RuleBoundary(c);
    case arch::ErrCode::kLutSlot:
      if (!c.lut()) return 0;
      return c.lut_slot() == uint32_t(config_.lut_slots) - 1 ? 1
             : c.lut_slot() == uint32_t(config_.lut_slots)   ? -1
                                                             : 0;
    case arch::ErrCode::kLutInBits: {
      if (!c.lut()) return 0;
      const uint32_t b = c.lut_in_bits();
      if (b == uint32_t(arch::kLutMinInBits) - 1 || b == uint32_t(arch::kLutMaxInBits) + 1)
        return -1;
      return b == uint32_t(arch::kLutMinInBits) || b == uint32_t(arch::kLutMaxInBits) ? 1 : 0;
    }
    case arch::ErrCode::kLutEntryBits: {
      if (!c.lut()) return 0;
      const uint32_t b = c.lut_entry_bits();
      if (b == 7 || b == 9 || b == 15 || b == 17) return -1;
      return b == 8 || b == 16 ? 1 : 0;
    }
    default:
      return 0;
  }
}

// The first STATUS read with DONE after a launch: the RTL's verdict on the command.
void Coverage::OnVerdict(uint32_t status) {
  if (!launched_ || cmd_.verdict_seen) return;
  cmd_.verdict_seen = true;
  FinishTile();
  const auto code =
      static_cast<arch::ErrCode>((status & arch::kStatusErrCodeMask) >> arch::kStatusErrCodeLsb);
  const bool error = status & arch::kStatusError;
  const arch::Command& c = cmd_.cmd;
  slope_.OnVerdict(!error);
  if (error) {
    // The failing rule at its first illegal value.
    if (RuleBoundary(code) == -1) Hit(RuleBin(code, false));
    if (code == arch::ErrCode::kBadShape && c.lut() && c.out_raw() && c.M() != 0 && c.N() != 0 &&
        c.K() != 0) {
      Hit("lut.out_raw_refused");
    }
    return;
  }
  // A legal command: every rule whose last legal value it sits on.
  for (arch::ErrCode rule : ErrorCodes()) {
    if (RuleBoundary(rule) == 1) Hit(RuleBin(rule, true));
  }
  if (c.lut()) OnLutVerdict();
  for (const arch::OpcodeInfo& op : arch::kOpcodes) {
    if (c.Op() == static_cast<uint32_t>(op.op)) Hit(fmt::format("opcode.{}", op.name));
  }
  if (!c.lut()) Hit(c.out_raw() ? "mode.int32_out" : "mode.int8_out");
  if (!c.out_raw()) {
    Hit(c.per_channel() ? "mode.per_channel" : "mode.per_tensor");
    if (c.tpu_mlir_form()) {
      Hit("mode.rq_form.tpu_mlir");
      Hit(fmt::format("tpu.width.{}", arch::MultWidthBits(c.mult_width())));
      Hit(fmt::format("tpu.round.{}", golden::tpu_mlir::RoundingName(
                                          golden::tpu_mlir::kAllRoundings[c.rshift_round()])));
      if (c.per_channel()) Hit("tpu.per_channel");
    } else {
      Hit("mode.rq_form.tflite");
      Hit(c.single_rounding() ? "mode.single_rounding" : "mode.double_rounding");
    }
    if (c.zp_out == kInt32Max) Hit("requant.zero_point_int32_max");
    if (c.zp_out == kInt32Min) Hit("requant.zero_point_int32_min");
    if (c.clamp_min == arch::kMinInt8ModeClamp) Hit("requant.clamp_min_-128");
    if (c.clamp_max == arch::kMaxInt8ModeClamp) Hit("requant.clamp_max_255");
  }
  if (c.bias_en()) Hit("mode.bias");
  if (c.a_unsigned()) Hit("mode.a_unsigned");
  if (c.b_unsigned()) Hit("mode.b_unsigned");
  if (c.K() == 1) Hit("shape.k_1");
  if (c.K() == std::min(config_.a_depth / cmd_.timing.MB(), config_.b_depth / cmd_.timing.NB())) {
    Hit("shape.k_max");
  }
  if (c.M() == 1) Hit("shape.m_1");
  if (c.N() == 1) Hit("shape.n_1");
}

void Coverage::OnLutVerdict() {
  const arch::Command& c = cmd_.cmd;
  Hit("lut.use.fused");
  Hit(fmt::format("lut.entry_bits.{}", c.lut_entry_bits()));
  Hit(fmt::format("lut.in_bits.{}", c.lut_in_bits()));
  Hit(fmt::format("lut.slot.{}.used", c.lut_slot()));
  if (cmd_.lut_addresses.all()) Hit(fmt::format("lut.slot.{}.every_address", c.lut_slot()));
  // A clamp that lets codes outside the table's input range through (lut.md 10.3).
  const int64_t codes = int64_t{1} << c.lut_in_bits();
  if (int64_t{c.clamp_max} - c.clamp_min >= codes) Hit("lut.clamp_beyond_table");
  if (c.lut_slot() < lut_slot_used_.size()) lut_slot_used_[c.lut_slot()] = true;
}

void Coverage::OnLutWrite(uint32_t slot) {
  if (slot < lut_slot_used_.size() && lut_slot_used_[slot]) {
    Hit(fmt::format("lut.slot.{}.reloaded", slot));
  }
}

void Coverage::OnCycle(int64_t cycle, const RtlSample& s) {
  if (s.done && !prev_done_) last_done_cycle_ = cycle;
  if (s.irq && !prev_irq_) {
    Hit(cycle == last_done_cycle_ ? "irq.raised_at_done" : "irq.raised_by_enable");
  }
  if (!s.irq && prev_irq_) {
    if (cycle == last_launch_cycle_) Hit("irq.cleared_by_launch");
    if (cycle == last_status_w1c_cycle_ + 1) Hit("irq.cleared_by_w1c");
  }
  prev_done_ = s.done;
  prev_irq_ = s.irq;
  if (program_) {
    rules_.OnCycle(s);
    if (const auto* d = rules_.compute_started()) OnComputeStart(*d);
    OnProgramCycle(cycle, s);
  }
  if (!launched_) return;
  const BeatSample& mac = s.beats[size_t(arch::BeatUnit::kMac)];
  if (mac.valid) OnMacBeat(mac);
  // The LUT lanes' addresses: the low LUT_IN_BITS of each requant code (lut.md 10.3).
  const BeatSample& rq = s.beats[size_t(arch::BeatUnit::kRequant)];
  if (rq.valid) slope_.OnRequantBeat(rq);
  if (rq.valid && cmd_.cmd.lut()) {
    const uint32_t mask =
        (uint32_t{1} << std::min<uint32_t>(cmd_.cmd.lut_in_bits(), arch::kLutMaxInBits)) - 1;
    for (int lane = 0; lane < config_.cols; ++lane) {
      cmd_.lut_addresses.set(size_t(uint32_t(rq.lanes[lane]) & mask));
    }
  }
  if (s.out_we) OnOutWrite(s);
}

// The datapath corners, from the RTL's accumulators (MAC output beat) and the command and SRAM
// contents it holds: the requant stages of each valid lane, recomputed to see which rounding and
// saturation rules the lane meets.
void Coverage::OnMacBeat(const BeatSample& s) {
  const arch::Command& c = cmd_.cmd;
  const arch::Timing& t = cmd_.timing;
  const int64_t tile = cmd_.mac_beats / config_.rows;
  ++cmd_.mac_beats;
  if (tile >= t.T()) return;
  const int64_t mb = t.TileMb(tile), nb = t.TileNb(tile);
  if (s.row >= t.MValid(mb)) return;
  const uint32_t word = uint32_t(c.rq_words_per_tile() * nb) + c.rq_base;
  const uint32_t bias_word = uint32_t(nb) + c.bias_base;
  for (int lane = 0; lane < t.NValid(nb); ++lane) {
    const int32_t acc = s.lanes[lane];
    int32_t x = acc;
    if (c.bias_en() && bias_word < config_.bias_depth) {
      const int32_t bias = shadow_.bias(bias_word, lane);
      const int64_t sum = int64_t{acc} + bias;
      if (sum > kInt32Max || sum < kInt32Min) ++*hot_.bias_wrap;
      x = static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(bias));
    }
    if (c.out_raw()) continue;
    const bool per_channel = c.per_channel() && word < config_.rq_depth;
    if (c.tpu_mlir_form()) {
      OnTpuLane(x, per_channel ? uint32_t(shadow_.rq_mult(word, lane)) : uint32_t(c.mult),
                per_channel ? uint32_t(shadow_.rq_shift(word, lane)) : c.shift);
      continue;
    }
    const int32_t mult = per_channel ? shadow_.rq_mult(word, lane) : c.mult;
    const int shift = per_channel ? shadow_.rq_shift(word, lane) : arch::ShiftValue(c.shift);
    if (shift < arch::kMinShift || shift > arch::kMaxShift) continue;
    ++*hot_.shift[shift - arch::kMinShift];
    const int64_t p = int64_t{x} * mult;
    int32_t v = 0;
    if (c.single_rounding() || shift >= 0) {
      if (IsTie(p, 31 - shift)) ++*(c.single_rounding() ? hot_.tie_single : hot_.tie_first);
      const int64_t wide = (p + (int64_t{1} << (30 - shift))) >> (31 - shift);
      if (wide > kInt32Max || wide < kInt32Min) ++*hot_.sat32;
      v = golden::MultiplyByQuantizedMultiplierSingleRounding(x, mult, shift);
    } else {
      if (IsTie(p, 31)) ++*hot_.tie_first;
      const int32_t h = golden::SaturatingRoundingDoublingHighMul(x, mult);
      if (IsTie(h, -shift)) ++*hot_.tie_second;
      v = golden::RoundingDivideByPOT(h, -shift);
    }
    const int64_t y = int64_t{v} + c.zp_out;
    if (y > c.clamp_max || y < c.clamp_min) {
      ++*(y > c.clamp_max ? hot_.sat_high : hot_.sat_low);
      if (c.zp_out != 0) ++*hot_.sat_zp;
    }
  }
}

void Coverage::OnTpuLane(int32_t x, uint32_t mult_word, uint32_t shift_byte) {
  const arch::Command& c = cmd_.cmd;
  const int64_t m = arch::LowBitsSigned(mult_word, arch::MultWidthBits(c.mult_width()));
  const int rshift = int(arch::RshiftValue(shift_byte) & uint32_t(arch::kMaxRqRshift));
  if (rshift == 0) ++*hot_.tpu_rshift_0;
  if (rshift == arch::kMaxRqRshift) ++*hot_.tpu_rshift_63;
  const int64_t p = int64_t{x} * m;
  // A tie: the discarded bits are exactly one half (IsTie stops at 62 bits; rshift 63's half is
  // 2^62, reached only by p = +-2^62).
  const bool tie =
      rshift == 63 ? (p == (int64_t{1} << 62) || p == -(int64_t{1} << 62)) : IsTie(p, rshift);
  if (tie) ++*hot_.tpu_tie[c.rshift_round()];
  const int64_t q = golden::tpu_mlir::RightShiftRound(
      p, rshift, golden::tpu_mlir::kAllRoundings[c.rshift_round()]);
  if (q > kInt32Max || q < kInt32Min) {
    const int64_t y = q + c.zp_out;
    // The zero point brings it back into int32, where TFLite's int32 quotient would have been
    // saturated first.
    if (y <= kInt32Max && y >= kInt32Min) ++*hot_.tpu_beyond_int32;
    if (q >= (int64_t{1} << 32) || q < -(int64_t{1} << 32)) ++*hot_.tpu_sat33;
  }
  const int64_t y = q + c.zp_out;
  if (y > c.clamp_max || y < c.clamp_min) {
    ++*(y > c.clamp_max ? hot_.sat_high : hot_.sat_low);
    if (c.zp_out != 0) ++*hot_.sat_zp;
  }
}

// Partial tiles as the out writer shows them: a write with fewer enabled bytes than a whole row
// (partial N), a tile with fewer rows written than R (partial M). The entry e = t * R + i of a
// write comes from its address and, in int8 mode, its byte slot (spec 6.3).
void Coverage::OnOutWrite(const RtlSample& s) {
  const int cols = config_.cols;
  const bool raw = cmd_.cmd.out_raw();
  int lanes = 0, first = -1;
  for (int j = 0; j < 4 * cols; ++j) {
    lanes += s.out_be[j];
    if (s.out_be[j] && first < 0) first = j;
  }
  if (lanes < (raw ? 4 * cols : cols)) Hit("tile.partial_n");
  const int64_t word = int64_t{s.out_addr} - int64_t{cmd_.cmd.out_base};
  const int64_t entry = raw ? word : word * 4 + std::max(first, 0) / cols;
  const int64_t tile = entry / config_.rows;
  if (tile != write_tile_) {
    FinishTile();
    write_tile_ = tile;
  }
  ++rows_written_in_tile_;
}

void Coverage::FinishTile() {
  if (write_tile_ >= 0 && rows_written_in_tile_ < config_.rows) Hit("tile.partial_m");
  write_tile_ = -1;
  rows_written_in_tile_ = 0;
}

// ---- Programs (data_movement.md 14-18)

void Coverage::OnRun() {
  program_ = true;
  launched_ = false;  // the GEMM bins above follow CMD_* launches only
  FinishTile();
  run_ = Run{};
  run_.q_count = q_count_;
  rules_.OnRun(q_base_, q_count_);
}

// The first STATUS read with DONE after a RUN: the program's verdict.
void Coverage::OnProgramVerdict(uint32_t status) {
  if (run_.verdict_seen) return;
  run_.verdict_seen = true;
  const auto code =
      static_cast<arch::ErrCode>((status & arch::kStatusErrCodeMask) >> arch::kStatusErrCodeLsb);
  run_.error = status & arch::kStatusError;
  rules_.OnVerdict(status);
  if (!run_.error) {
    Hit("program.completed");
    return;
  }
  Hit(fmt::format("program.error.{}", arch::ErrCodeName(code)));
  if (code == arch::ErrCode::kBadShape && run_.q_count == 0) Hit("program.q_count_0");
  if (run_.retired_seen) Hit("program.error_after_retired");
}

bool Coverage::CutAtPage(std::deque<Burst>& recent, const Burst& next) const {
  const int d = config_.mem_data_bytes;
  auto fetch_like = [&](const Burst& b) {
    return b.beats * d == arch::kDescBytes && b.addr % arch::kDescBytes == 0;
  };
  bool cut = false;
  for (const Burst& b : recent) {
    const uint64_t end = uint64_t(b.addr) + uint64_t(b.beats) * uint64_t(d);
    if (b.beats < arch::kMaxBurstBeats && end % arch::kAxiPageBytes == 0 && end == next.addr &&
        !(fetch_like(b) && fetch_like(next))) {
      cut = true;
    }
  }
  recent.push_back(next);
  if (recent.size() > 4) recent.pop_front();
  return cut;
}

// A read burst accepted in `cycle` (its address handshake). Its last
// beat comes, by 15.2, at max(cycle + Lm, p + Iv) + (beats - 1) Iv, p the stream's latest beat.
void Coverage::OnReadAddress(int64_t cycle, uint32_t addr, int beats) {
  if (beats == 1) ++*pb_.rd_burst_1;
  if (beats == arch::kMaxBurstBeats) ++*pb_.rd_burst_16;
  if (CutAtPage(run_.recent_reads, {addr, beats})) ++*pb_.rd_cut;
  const int64_t iv = config_.ext_mem_interval;
  const int64_t first = std::max(cycle + config_.ext_mem_latency, run_.last_read_beat + iv);
  run_.last_read_beat = first + (beats - 1) * iv;
  run_.reads.push_back(run_.last_read_beat);
}

void Coverage::OnWriteAddress(uint32_t addr, int beats) {
  if (beats == 1) ++*pb_.wr_burst_1;
  if (beats == arch::kMaxBurstBeats) ++*pb_.wr_burst_16;
  if (CutAtPage(run_.recent_writes, {addr, beats})) ++*pb_.wr_cut;
}

// The DMA's SRAM step: its direction and SRAM, and the unit it moves (the out SRAM's layout from
// the step's width when D > C; the unit / beat relation from the SRAM's unit, 12).
void Coverage::OnDmaAccess(const DmaSramSample& dma) {
  if (arch::FindSram(uint32_t(dma.sram)) == nullptr) return;
  const bool load = dma.we;
  ++*(load ? pb_.load : pb_.store)[dma.sram];
  if (load && dma.sram == int(arch::Region::kLut)) OnLutWrite(dma.addr / arch::kLutSlotWords);
  const int c = config_.cols, d = config_.mem_data_bytes;
  bool out32 = false;
  if (dma.sram ==
      int(arch::Region::kOut)) {  // the out SRAM's layout, told by the step's width (12)
    if (d <= c) {       // an int8 entry's step and an int32 word's look alike; both are >= D
      if (!load) run_.beats_entering.push_back(cycle_ + 1);
      return;
    }
    int bytes = 0;
    for (int j = 0; j < 4 * c; ++j) bytes += dma.be[j];
    out32 = bytes > c;
    ++*(load ? (out32 ? pb_.load_out32 : pb_.load_out8)
             : (out32 ? pb_.store_out32 : pb_.store_out8));
  }
  const int unit = int(model::DmaUnitBytes(config_, uint8_t(dma.sram), out32));
  const int rel = unit < d ? 0 : unit == d ? 1 : 2;
  int64_t* bin = (load ? pb_.load_unit : pb_.store_unit)[rel];
  if (bin != nullptr) ++*bin;
  if (!load && unit >= d) run_.beats_entering.push_back(cycle_ + 1);
}

void Coverage::OnComputeStart(const std::array<uint32_t, 16>& d) {
  slope_.OnComputeStart(d);
  if (model::SetsSlopeRegisters(d)) {  // the registers as the SET wrote them (units.md 19.4)
    for (size_t i = 0; i < regs_.slope_regs.size(); ++i) {
      regs_.slope_regs[i] =
          d[i] & arch::FindRegister(arch::reg::kSlopePosMult + 4 * uint32_t(i))->rw_mask;
    }
  }
  if (model::DecodeDescHeader(d).op != uint32_t(arch::Opcode::kEltwise)) return;
  const golden::EltwiseFields f = model::DecodeEltwiseDesc(d);
  static constexpr const char* kOps[] = {"LUT", "ADD", "ADD_LUT"};
  if (f.op < std::size(kOps)) Hit(fmt::format("elt.op.{}", kOps[f.op]));
  if (f.has_add()) {
    const bool seed = f.form == golden::kEltwiseFormSeed;
    Hit(seed ? "elt.add.seed_symmetric" : "elt.add.tflite");
    if (seed) Hit(f.wrap ? "elt.add.seed_wrap" : "elt.add.seed_saturate");
    if (f.src_a == f.src_b) Hit("elt.add.same_operand");
  }
  Hit(f.result_words() == f.count ? "elt.out.int8" : "elt.out.int16");
  if (f.dst == f.src_a) Hit("elt.in_place.a");
  if (f.has_add() && f.dst == f.src_b) Hit("elt.in_place.b");
  if (f.count == 1) Hit("elt.count.1");
}

void Coverage::OnProgramCycle(int64_t cycle, const RtlSample& s) {
  const QueueSample& q = s.queue;
  cycle_ = cycle;
  if (s.dma.re || s.dma.we) {
    OnDmaAccess(s.dma);
    if (s.mac_in_valid) ++*pb_.overlap_gemm;
    if (s.move.re || s.move.we) ++*pb_.overlap_move;
  }
  if (s.move.we) ++*(s.move.dst == int(arch::Region::kA) ? pb_.move_a : pb_.move_b);
  // The memory port (15.1, 15.2): read bursts in flight at the start of this cycle are those
  // accepted before it whose last beat is not before it.
  while (!run_.reads.empty() && run_.reads.front() < cycle) run_.reads.pop_front();
  if (int(run_.reads.size()) >= config_.mem_max_outstanding) ++*pb_.rd_max_outstanding;
  while (!run_.beats_entering.empty() && run_.beats_entering.front() <= cycle) {
    run_.beats_entering.pop_front();
    ++run_.write_buffer_beats;
  }
  if (run_.write_buffer_beats >= arch::kWrBufBeats) ++*pb_.wr_buffer_full;
  if (s.axi.w_valid) {
    if (s.axi_in.w_ready) {
      run_.write_buffer_beats = std::max<int64_t>(0, run_.write_buffer_beats - 1);
    } else {
      ++*pb_.wr_stalled;
    }
  }
  if (s.axi.ar_valid && !s.axi_in.ar_ready) ++*pb_.ar_held;
  if (s.axi.aw_valid && !s.axi_in.aw_ready) ++*pb_.aw_held;
  // Handshakes only: a stalling memory (ext_mem.ready_gaps) holds an address for cycles.
  if (s.axi.ar_valid && s.axi_in.ar_ready) {
    OnReadAddress(cycle, s.axi.ar_addr, int(s.axi.ar_len) + 1);
  }
  if (s.axi.aw_valid && s.axi_in.aw_ready) OnWriteAddress(s.axi.aw_addr, int(s.axi.aw_len) + 1);
  if (!s.busy) return;
  // The queues and tokens (mon_q_o; counters and occupancies at the start of the cycle).
  if (q.d2c == arch::kMaxTokens) ++*pb_.d2c_max;
  if (q.c2d == arch::kMaxTokens) ++*pb_.c2d_max;
  if (q.dma_count == arch::kQueueDepth) ++*pb_.dma_full;
  if (q.cmp_count == arch::kQueueDepth) ++*pb_.cmp_full;
  if (q.dma_count == 0 && run_.dma_started && run_.cmp_active) ++*pb_.dma_empty;
  if (q.cmp_count == 0 && run_.cmp_started && run_.dma_active) ++*pb_.cmp_empty;
  // A WAIT that waits: the engine idle (nothing started and not retired) with a head in its
  // queue that it does not start, its incoming counter at 0, two cycles in a row (a head pushed
  // in the cycle before starts at once, 17.3).
  const bool dma_blocked = !run_.dma_active && q.dma_count > 0 && q.c2d == 0 && !q.dma_start;
  const bool cmp_blocked = !run_.cmp_active && q.cmp_count > 0 && q.d2c == 0 && !q.cmp_start;
  run_.dma_blocked = dma_blocked ? run_.dma_blocked + 1 : 0;
  run_.cmp_blocked = cmp_blocked ? run_.cmp_blocked + 1 : 0;
  if (run_.dma_blocked == 2) ++*pb_.dma_waits;
  if (run_.cmp_blocked == 2) ++*pb_.cmp_waits;
  if (q.dma_start) run_.dma_active = run_.dma_started = true;
  if (q.cmp_start) run_.cmp_active = run_.cmp_started = true;
  if (q.dma_retire) run_.dma_active = false;
  if (q.cmp_retire) run_.cmp_active = false;
}

}  // namespace qacc::cosim
