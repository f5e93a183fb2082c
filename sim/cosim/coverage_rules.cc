#include "sim/cosim/coverage_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "model/descriptor.h"

namespace qacc::cosim {

namespace {

using arch::ErrCode;

constexpr const char* kOpNames[] = {"GEMM", "LOAD", "STORE", "MOVE", "SET", "ELTWISE"};
constexpr const char* kCounterNames[] = {"d2c", "c2d"};
constexpr const char* kEngineNames[] = {"dma", "compute"};
constexpr uint64_t kMaxExtAddress = 0xFFFF'FFFFull;

// 17.6's table, one entry per (DMA command, compute command) pair that can share a port.
enum PortUseId {
  kGemmARead,
  kGemmBRead,
  kGemmBiasRead,
  kGemmRqRead,
  kGemmOutWrite,
  kMoveOutRead,
  kMoveAWrite,
  kMoveBWrite,
  kGemmLutRead,
  kEltOutRead,
  kEltOutWrite,
  kEltLutRead,
  kPortUses
};
constexpr const char* kPortUseNames[] = {
    "gemm_a_read",    "gemm_b_read",      "gemm_bias_read",    "gemm_rq_read",
    "gemm_out_write", "move_out_read",    "move_a_write",      "move_b_write",
    "gemm_lut_read",  "eltwise_out_read", "eltwise_out_write", "eltwise_lut_read"};

std::string CodeName(ErrCode code) { return arch::ErrCodeName(code); }

struct Check {
  ErrCode code;
  bool fails;
  // The check's name in an order bin when it has no code of its own: with a bad SRAM id, the range
  // check of every SRAM (kNone).
  const char* name = nullptr;
};
// A LOAD/STORE with a bad SRAM id and units past the end of every SRAM: BAD_SRAM must still be the
// error (12), whatever depth a checker would take for the bad id.
constexpr const char* kEveryRange = "EVERY_RANGE";
std::string CheckName(const Check& check) { return check.name ? check.name : CodeName(check.code); }

// The checks of a descriptor's opcode in the spec's order, each with whether `d` fails it. A check
// whose inputs the earlier ones leave undefined (an SRAM range without a valid SRAM, a sum over a
// count of 0) is left out: no pair with it can be formed.
std::vector<Check> ChecksOf(const arch::ArchConfig& cfg, const std::array<uint32_t, 16>& d) {
  const model::DescHeader h = model::DecodeDescHeader(d);
  std::vector<Check> checks;
  if (h.op == uint32_t(arch::Opcode::kGemm)) {  // GEMM, architecture.md 4
    const arch::Command c = model::GemmCommandOf(d);
    const int64_t m = c.M(), n = c.N(), k = c.K();
    const int64_t mb = arch::CeilDiv(m, cfg.rows), nb = arch::CeilDiv(n, cfg.cols);
    const int32_t shift = arch::ShiftValue(c.shift);
    const bool tpu = c.tpu_mlir_form();
    // requant.md 6.1: each form's own fields, then the clamp of both.
    const bool bad_form =
        tpu ? c.mult_width() > uint32_t(arch::MultWidth::kW32) ||
                  c.rshift_round() > uint32_t(arch::RshiftRound::kDown)
            : shift < arch::kMinShift || shift > arch::kMaxShift ||
                  (!c.per_channel() && c.mult != 0 && c.mult < arch::kMinNonzeroMult);
    const bool bad_requant = !c.out_raw() && (bad_form || c.clamp_min > c.clamp_max ||
                                              c.clamp_min < arch::kMinInt8ModeClamp ||
                                              c.clamp_max > arch::kMaxInt8ModeClamp);
    // The TPU-MLIR form's per-tensor checks; a width code of 3 leaves MULT_WIDTH undefined.
    const bool tpu_tensor = !c.out_raw() && tpu && !c.per_channel();
    const bool bad_width =
        tpu_tensor && c.mult_width() <= uint32_t(arch::MultWidth::kW32) &&
        arch::LowBitsSigned(uint32_t(c.mult), arch::MultWidthBits(c.mult_width())) != c.mult;
    const bool bad_rshift = tpu_tensor && arch::RshiftValue(c.shift) > uint32_t(arch::kMaxRqRshift);
    auto bad_zp = [](int32_t zp) { return zp < arch::kMinOperandZp || zp > arch::kMaxOperandZp; };
    const bool lut = c.lut();
    checks = {
        {ErrCode::kBadShape, m == 0 || n == 0 || k == 0 || ((lut || c.slope()) && c.out_raw())},
        {ErrCode::kARange, int64_t{c.a_base} + mb * k > int64_t{cfg.a_depth}},
        {ErrCode::kBRange, int64_t{c.b_base} + nb * k > int64_t{cfg.b_depth}},
        {ErrCode::kBiasRange, c.bias_en() && int64_t{c.bias_base} + nb > int64_t{cfg.bias_depth}},
        {ErrCode::kRqRange,
         c.rq_words_per_tile() > 0 &&
             int64_t{c.rq_base} + c.rq_words_per_tile() * nb > int64_t{cfg.rq_depth}},
        {ErrCode::kOutRange,
         int64_t{c.out_base} + arch::OutWords(mb * nb, cfg.rows, arch::OutLayoutOf(c)) >
             int64_t{cfg.out_depth}},
        {ErrCode::kBadRequant, bad_requant},
        {ErrCode::kMultWidth, bad_width},
        {ErrCode::kRshiftRange, bad_rshift},
        {ErrCode::kBadZp, bad_zp(arch::ZpA(c.zp_ab)) || bad_zp(arch::ZpB(c.zp_ab))},
    };
    // UNIT_ABSENT and the LUT checks exclude each other (lut.md 10.4): a descriptor meets one
    // kind, so its next check after BAD_ZP is UNIT_ABSENT or LUT_SLOT (LUT_IN_BITS with 16
    // slots, where no slot is illegal).
    if (c.slope()) {
      // requant.md 6.2: ZP_OUT; the registers' part depends on the program's state, not on `d`.
      checks.push_back({ErrCode::kBadSlope,
                        c.zp_out < arch::kMinInt8ModeClamp || c.zp_out > arch::kMaxInt8ModeClamp});
    } else if (!lut) {
      checks.push_back({ErrCode::kUnitAbsent, c.act() != uint32_t(arch::Act::kNone)});
    } else {
      if (cfg.lut_slots < (1 << arch::kLutSlotBits)) {
        checks.push_back({ErrCode::kLutSlot, c.lut_slot() >= uint32_t(cfg.lut_slots)});
      }
      checks.push_back({ErrCode::kLutInBits, c.lut_in_bits() < uint32_t(arch::kLutMinInBits) ||
                                                 c.lut_in_bits() > uint32_t(arch::kLutMaxInBits)});
      checks.push_back(
          {ErrCode::kLutEntryBits, c.lut_entry_bits() != 8 && c.lut_entry_bits() != 16});
    }
  } else if (model::IsDmaOp(h.op)) {  // LOAD / STORE, data_movement.md 12
    const model::DmaDesc f = model::DecodeDmaDesc(d);
    // OUT_INT32 with OUT_INT16 is BAD_SHAPE (lut.md 10.6), as a count of 0.
    const bool counts =
        f.count0 != 0 && f.count1 != 0 && f.count2 != 0 && !(f.out_int32 && f.out_int16);
    const arch::SramInfo* sram = arch::FindSram(f.sram);
    const bool sram_ok = sram != nullptr;
    checks = {{ErrCode::kBadShape, !counts}, {ErrCode::kBadSram, !sram_ok}};
    if (counts && !sram_ok) {
      uint64_t every_end = 0;  // the units of the largest SRAM
      for (const arch::SramInfo& info : arch::kSrams) {
        every_end = std::max(every_end, uint64_t{cfg.depth(info.id)} * uint64_t(info.int8_entries));
      }
      const uint64_t last_unit = uint64_t{f.sram_base} + (f.count0 - 1) +
                                 uint64_t{f.count1 - 1} * f.sram_stride1 +
                                 uint64_t{f.count2 - 1} * f.sram_stride2;
      checks.push_back({ErrCode::kNone, last_unit >= every_end, kEveryRange});
    }
    if (counts && sram_ok) {
      const uint64_t unit = model::DmaUnitBytes(cfg, f.sram, f.out_int32, f.out_int16);
      const uint64_t units =
          uint64_t{cfg.depth(sram->id)} * uint64_t(f.out_int32   ? 1
                                                   : f.out_int16 ? sram->int16_entries
                                                                 : sram->int8_entries);
      const uint64_t last_unit = uint64_t{f.sram_base} + (f.count0 - 1) +
                                 uint64_t{f.count1 - 1} * f.sram_stride1 +
                                 uint64_t{f.count2 - 1} * f.sram_stride2;
      const uint64_t last_byte = uint64_t{f.ext_addr} + uint64_t{f.count0} * unit - 1 +
                                 uint64_t{f.count1 - 1} * f.ext_stride1 +
                                 uint64_t{f.count2 - 1} * f.ext_stride2;
      checks.push_back({sram->range_error, last_unit >= units});
      checks.push_back({ErrCode::kExtAlign, f.ext_addr % unit != 0 || f.ext_stride1 % unit != 0 ||
                                                f.ext_stride2 % unit != 0});
      checks.push_back({ErrCode::kExtRange, last_byte > kMaxExtAddress});
    }
  } else if (h.op == uint32_t(arch::Opcode::kMove)) {  // MOVE, data_movement.md 13
    const model::MoveDesc f = model::DecodeMoveDesc(d);
    const bool into_a = f.dst == uint32_t(arch::Region::kA),
               into_b = f.dst == uint32_t(arch::Region::kB);
    const bool counts = f.count0 != 0 && f.count1 != 0 && f.count2 != 0;
    checks = {{ErrCode::kBadShape, !counts || (into_a && f.count0 > uint32_t(cfg.cols)) ||
                                       (into_b && f.count0 > uint32_t(cfg.rows))},
              {ErrCode::kBadSram, !into_a && !into_b}};
    if (counts) {
      const uint64_t last_entry = uint64_t{f.src_base} + uint64_t{f.count1 - 1} * f.src_stride1 +
                                  uint64_t{f.count2 - 1} * f.src_stride2 + uint64_t(cfg.rows) - 1;
      checks.push_back({ErrCode::kOutRange, f.src_base % 4 != 0 || f.src_stride1 % 4 != 0 ||
                                                f.src_stride2 % 4 != 0 ||
                                                last_entry > 4 * uint64_t{cfg.out_depth} - 1});
      if (into_a || into_b) {
        const uint64_t last_word = uint64_t{f.dst_base} + uint64_t{f.count1 - 1} * f.dst_stride1 +
                                   uint64_t{f.count2 - 1} * f.dst_stride2 + f.count0 - 1;
        checks.push_back({into_a ? ErrCode::kARange : ErrCode::kBRange,
                          last_word >= cfg.depth(arch::Region(f.dst))});
      }
    }
  } else if (h.op == uint32_t(arch::Opcode::kSet)) {  // SET, units.md 19.4
    const uint32_t reg = arch::desc::Get(d, arch::desc::set::kReg);
    const uint32_t count = arch::desc::Get(d, arch::desc::set::kCount);
    const uint32_t last = reg + std::max(count, 1u) - 1;
    constexpr uint32_t kRegsPerBlock = arch::kUnitBlockBytes / 4;
    // In one present unit's block (read-only registers: none lies in a unit block yet).
    const bool in_block =
        std::any_of(std::begin(arch::kUnits), std::end(arch::kUnits), [&](const arch::UnitInfo& u) {
          return u.present && u.block != 0 && reg / kRegsPerBlock == uint32_t(u.block) &&
                 last / kRegsPerBlock == uint32_t(u.block);
        });
    checks = {{ErrCode::kBadShape, count == 0 || count > uint32_t(arch::kMaxSetCount)},
              {ErrCode::kBadSet, !in_block}};
  } else if (h.op == uint32_t(arch::Opcode::kEltwise)) {  // ELTWISE, lut.md 10.5
    const golden::EltwiseFields f = model::DecodeEltwiseDesc(d);
    checks = {{ErrCode::kBadShape, f.count == 0 || f.op == 3}};
    if (f.op != 3) {  // OP 3 has no operands: its ranges are undefined
      const uint64_t count = f.count, result = f.result_words(), depth = cfg.out_depth;
      const bool add = f.has_add();
      const auto overlaps = [&](uint64_t src) {
        return f.dst < src + count && src < f.dst + result && !(f.dst == src && result == count);
      };
      checks.push_back({ErrCode::kOutRange, f.src_a + count > depth ||
                                                (add && f.src_b + count > depth) ||
                                                f.dst + result > depth});
      checks.push_back({ErrCode::kEltOverlap, overlaps(f.src_a) || (add && overlaps(f.src_b))});
      if (f.has_lookup()) {
        if (cfg.lut_slots < (1 << arch::kLutSlotBits)) {
          checks.push_back({ErrCode::kLutSlot, f.lut.slot >= uint32_t(cfg.lut_slots)});
        }
        checks.push_back({ErrCode::kLutInBits, f.lut.in_bits < uint32_t(arch::kLutMinInBits) ||
                                                   f.lut.in_bits > uint32_t(arch::kLutMaxInBits)});
        checks.push_back({ErrCode::kLutEntryBits, f.lut.entry_bits != 8 && f.lut.entry_bits != 16});
      }
      if (add) checks.push_back({ErrCode::kBadAdd, !model::EltwiseAddFieldsLegal(f)});
    }
  }
  return checks;
}

}  // namespace

std::vector<ErrCode> RuleCoverage::FailingChecks(const arch::ArchConfig& config, const Words& d) {
  std::vector<ErrCode> failing;
  for (const Check& check : ChecksOf(config, d)) {
    if (check.fails && check.code != ErrCode::kNone) failing.push_back(check.code);
  }
  return failing;
}

RuleCoverage::RuleCoverage(const arch::ArchConfig& config, std::map<std::string, int64_t>& bins)
    : config_(config), bins_(bins) {
  auto bin = [&](const std::string& name) { return &bins_[name]; };
  for (int c = 0; c < 2; ++c) {
    give_and_take_[c] = bin(fmt::format("token.{}.give_and_take", kCounterNames[c]));
    take_frees_held_[c] =
        bin(fmt::format("token.{}.take_at_15_frees_held_signal", kCounterNames[c]));
  }
  dl_fetcher_blocked_ = bin("deadlock.fetcher_waits_on_full_queue");
  dl_all_fetched_ = bin("deadlock.every_descriptor_fetched");
  for (int e = 0; e < 2; ++e) {
    dl_head_holds_[e] = bin(fmt::format("deadlock.lowest_head_holds_signal.{}", kEngineNames[e]));
    dl_below_retired_[e] =
        bin(fmt::format("deadlock.lowest_head_below_retired.{}", kEngineNames[e]));
  }
  std::vector<ErrCode> lut_chain = {ErrCode::kBadZp, ErrCode::kLutSlot, ErrCode::kLutInBits,
                                    ErrCode::kLutEntryBits};
  if (config.lut_slots >= (1 << arch::kLutSlotBits)) lut_chain.erase(lut_chain.begin() + 1);
  // ELTWISE's checks (lut.md 10.5); the lookup's with OP = LUT or ADD_LUT, BAD_ADD with an add.
  std::vector<ErrCode> elt_chain = {ErrCode::kBadShape, ErrCode::kOutRange,  ErrCode::kEltOverlap,
                                    ErrCode::kLutSlot,  ErrCode::kLutInBits, ErrCode::kLutEntryBits,
                                    ErrCode::kBadAdd};
  if (config.lut_slots >= (1 << arch::kLutSlotBits)) elt_chain.erase(elt_chain.begin() + 3);
  // Adjacent pairs of each opcode's checks that one descriptor can fail together.
  std::vector<std::pair<std::string, std::vector<ErrCode>>> chains = {
      {"GEMM",
       {ErrCode::kBadShape, ErrCode::kARange, ErrCode::kBRange, ErrCode::kBiasRange,
        ErrCode::kRqRange, ErrCode::kOutRange, ErrCode::kBadRequant, ErrCode::kMultWidth,
        ErrCode::kRshiftRange, ErrCode::kBadZp, ErrCode::kUnitAbsent}},
      // UNIT_ABSENT and the LUT checks exclude each other (ACT = LUT or not): the LUT chain
      // follows BAD_ZP (ChecksOf). LUT_SLOT has no illegal value with 16 slots.
      {"GEMM", lut_chain},
      // ACT = SLOPE (requant.md 6.2): BAD_SLOPE follows BAD_ZP.
      {"GEMM", {ErrCode::kBadZp, ErrCode::kBadSlope}},
      {"MOVE", {ErrCode::kBadShape, ErrCode::kBadSram, ErrCode::kOutRange, ErrCode::kARange}},
      {"MOVE", {ErrCode::kOutRange, ErrCode::kBRange}},
      {"SET", {ErrCode::kBadShape, ErrCode::kBadSet}},
      {"ELTWISE", elt_chain},
      // OP = ADD: no lookup between the overlap and the add's fields.
      {"ELTWISE", {ErrCode::kEltOverlap, ErrCode::kBadAdd}},
  };
  for (const char* op : {"LOAD", "STORE"}) {
    chains.push_back({op, {ErrCode::kBadShape, ErrCode::kBadSram}});
    order_[fmt::format("{}.BAD_SRAM.{}", op, kEveryRange)] =
        bin(fmt::format("order.{}.BAD_SRAM.{}", op, kEveryRange));
    for (const arch::SramInfo& sram : arch::kSrams) {
      chains.push_back({op, {sram.range_error, ErrCode::kExtAlign, ErrCode::kExtRange}});
    }
  }
  for (const auto& [op, chain] : chains) {
    for (size_t i = 0; i + 1 < chain.size(); ++i) {
      const std::string key =
          fmt::format("{}.{}.{}", op, CodeName(chain[i]), CodeName(chain[i + 1]));
      order_[key] = bin("order." + key);
    }
  }
  // Port conflicts. A run of waiting longer than the memory latency needs a use that lasts that
  // long: a GEMM's A and B reads (every beat cycle), and its out writes when they are back to back
  // (a tile period of R cycles, R >= C). A tile's bias or rq read is one cycle per tile, a MOVE's
  // reads and writes leave gaps between tiles: the DMA steps in those.
  for (int use = 0; use < kPortUses; ++use) {
    // The table's uses need a slot beside the one the command reads.
    const bool table = use == kGemmLutRead || use == kEltLutRead;
    port_stall_.push_back(table && config_.lut_slots < 2
                              ? nullptr
                              : bin(fmt::format("port.{}.stall", kPortUseNames[use])));
    const bool long_use = use == kGemmARead || use == kGemmBRead ||
                          (use == kGemmOutWrite && config_.rows >= config_.cols);
    port_outlasts_.push_back(
        long_use ? bin(fmt::format("port.{}.stall_outlasts_latency", kPortUseNames[use]))
                 : nullptr);
  }
  store_drained_ = bin("port.store_responses_back_while_reads_wait");
  // The out SRAM's int16 unit (lut.md 10.6), told by the started command: a step of 2C bytes looks
  // like an int32 word's when D <= 2C.
  load_out16_ = bin("dma.load.out_int16");
  store_out16_ = bin("dma.store.out_int16");
}

void RuleCoverage::OnRun(uint32_t q_base, uint32_t q_count) {
  running_ = true;
  lost_ = false;
  q_base_ = q_base;
  q_count_ = q_count;
  fetches_ = pushed_ = retired_ = 0;
  reads_.clear();
  fetch_bytes_.clear();
  descriptors_.clear();
  fetched_.clear();
  for (EngineView& e : engines_) e = EngineView{};
  busy_seen_ = false;
  max_retired_index_ = -1;
  stall_use_ = -1;
  stall_run_ = 0;
  store_aw_ = store_b_ = 0;
}

void RuleCoverage::OnReadBeat(const model::AxiSlaveOut& in) {
  if (reads_.empty()) {
    lost_ = true;
    return;
  }
  ReadBurst& burst = reads_.front();
  ++burst.beats_seen;
  if (burst.fetch) {
    fetch_bytes_.insert(fetch_bytes_.end(), in.r_data.begin(),
                        in.r_data.begin() + config_.mem_data_bytes);
    if (in.r_resp != model::kAxiOkay) burst.fetch = false;  // an EXT_FAULT: never pushed
  }
  if (!in.r_last) return;
  if (burst.fetch && fetch_bytes_.size() == size_t(arch::kDescBytes)) {
    Words words{};
    for (size_t i = 0; i < words.size(); ++i) {
      for (int b = 0; b < 4; ++b) words[i] |= uint32_t{fetch_bytes_[4 * i + size_t(b)]} << (8 * b);
    }
    descriptors_[burst.index] = words;
    fetched_.push_back(burst.index);
  }
  fetch_bytes_.clear();
  reads_.pop_front();
}

void RuleCoverage::OnCycle(const RtlSample& s) {
  compute_started_ = nullptr;
  if (!running_) return;
  // Read data first: a beat of this cycle belongs to a burst issued before it.
  if (s.axi_in.r_valid) OnReadBeat(s.axi_in);
  if (s.axi.ar_valid && s.axi_in.ar_ready) {  // a handshake (a stalling memory holds it)
    const int beats = int(s.axi.ar_len) + 1;
    const uint32_t next = q_base_ + uint32_t(arch::kDescBytes) * fetches_;  // mod 2^32
    // The fetcher reads descriptor i at Q_BASE + 64 i, in order (17.2). A LOAD of exactly those
    // 64 bytes at that moment would be taken for the fetch; no test reads its own program.
    const bool fetch = fetches_ < q_count_ && s.axi.ar_addr == next &&
                       beats * config_.mem_data_bytes == arch::kDescBytes;
    reads_.push_back({fetch, fetch ? fetches_ : 0, 0});
    if (fetch) ++fetches_;
  }
  if (!s.busy) return;
  TrackQueues(s);
  if (lost_) return;
  OnTokens(s);
  OnPortStall(s);
  // This cycle's starts and retirements, visible from the next.
  const QueueSample& q = s.queue;
  const bool starts[2] = {q.dma_start, q.cmp_start}, retires[2] = {q.dma_retire, q.cmp_retire};
  const uint32_t start_index[2] = {q.dma_start_idx, q.cmp_start_idx};
  const uint32_t retire_index[2] = {q.dma_retire_idx, q.cmp_retire_idx};
  for (int e = 0; e < 2; ++e) {
    EngineView& v = engines_[e];
    if (starts[e]) {
      if (v.queue.empty() || (v.queue.front() & 0xFFFF) != start_index[e]) lost_ = true;
      v.started = true;
      if (e == kCompute && !lost_ && Known(v.queue.front())) {
        compute_started_ = &descriptors_.at(v.queue.front());
      }
      if (!lost_ && Known(v.queue.front()) && model::IsDmaOp(Header(v.queue.front()).op)) {
        const model::DmaDesc f = model::DecodeDmaDesc(descriptors_.at(v.queue.front()));
        if (f.sram == uint8_t(arch::Region::kOut) && f.out_int16 && !f.out_int32) {
          Hit(Header(v.queue.front()).op == uint32_t(arch::Opcode::kLoad) ? load_out16_
                                                                          : store_out16_);
        }
      }
    }
    if (retires[e]) {
      if (v.queue.empty() || (v.queue.front() & 0xFFFF) != retire_index[e]) {
        lost_ = true;
        continue;
      }
      max_retired_index_ = std::max<int64_t>(max_retired_index_, v.queue.front());
      ++retired_;
      v.queue.pop_front();
      v.started = false;
    }
  }
}

// The pushes of the previous cycle, from the occupancies: count(t) = count(t-1) + push - retire.
void RuleCoverage::TrackQueues(const RtlSample& s) {
  const int counts[2] = {int(s.queue.dma_count), int(s.queue.cmp_count)};
  for (int e = 0; e < 2; ++e) {
    EngineView& v = engines_[e];
    if (!busy_seen_) v.prev_count = counts[e];  // cycle 0: RUN cleared the queues
    const int pushes = counts[e] - v.prev_count + (v.prev_retire ? 1 : 0);
    if (pushes == 1) {
      if (fetched_.empty() || model::IsDmaOp(Header(fetched_.front()).op) != (e == kDma)) {
        lost_ = true;
      } else {
        v.queue.push_back(fetched_.front());
        fetched_.pop_front();
        ++pushed_;
      }
    } else if (pushes != 0) {
      lost_ = true;
    }
    v.prev_count = counts[e];
  }
  busy_seen_ = true;
  engines_[kDma].prev_retire = s.queue.dma_retire;
  engines_[kCompute].prev_retire = s.queue.cmp_retire;
}

// Same-cycle token events (17.3). d2c: the DMA gives with a SIGNAL's retirement, the compute engine
// takes with a WAIT's start; c2d the other way. A take needs the counter above 0, so a give and a
// take in one cycle always find it at 1 or more.
void RuleCoverage::OnTokens(const RtlSample& s) {
  const QueueSample& q = s.queue;
  auto signals = [&](bool pulse, uint32_t index) {
    return pulse && Known(index) && Header(index).signal;
  };
  auto waits = [&](bool pulse, uint32_t index) {
    return pulse && Known(index) && Header(index).wait;
  };
  const bool give[2] = {signals(q.dma_retire, q.dma_retire_idx),
                        signals(q.cmp_retire, q.cmp_retire_idx)};
  const bool take[2] = {waits(q.cmp_start, q.cmp_start_idx), waits(q.dma_start, q.dma_start_idx)};
  const int value[2] = {int(q.d2c), int(q.c2d)};
  // The giver of counter c is engine c (d2c: the DMA); it holds a completed SIGNAL when it waits
  // for a token while its head has started (a WAIT at 0 waits with the engine idle).
  const bool held[2] = {q.dma_wait && engines_[kDma].started,
                        q.cmp_wait && engines_[kCompute].started};
  for (int c = 0; c < 2; ++c) {
    if (give[c] && take[c]) Hit(give_and_take_[c]);
    if (take[c] && value[c] == arch::kMaxTokens && held[c]) Hit(take_frees_held_[c]);
  }
}

int RuleCoverage::PortUse() const {
  const EngineView& dma = engines_[kDma];
  const EngineView& cmp = engines_[kCompute];
  if (!dma.started || !cmp.started || !Known(dma.queue.front()) || !Known(cmp.queue.front())) {
    return -1;
  }
  const Words& dd = descriptors_.at(dma.queue.front());
  const Words& cd = descriptors_.at(cmp.queue.front());
  const bool store = model::DecodeDescHeader(dd).op == uint32_t(model::DescOp::kStore);
  const uint32_t sram = model::DecodeDmaDesc(dd).sram;
  const uint32_t op = model::DecodeDescHeader(cd).op;
  const bool gemm = op == uint32_t(model::DescOp::kGemm);
  const bool move = op == uint32_t(model::DescOp::kMove);
  const bool elt = op == uint32_t(model::DescOp::kEltwise);
  const uint32_t move_dst = move ? model::DecodeMoveDesc(cd).dst : 0;
  const uint32_t out = uint32_t(arch::Region::kOut);
  // The table SRAM: its lanes take both ports of every copy, so a LOAD and a STORE wait alike.
  if (sram == uint32_t(arch::Region::kLut)) {
    if (gemm && model::GemmCommandOf(cd).lut()) return kGemmLutRead;
    if (elt && model::DecodeEltwiseDesc(cd).has_lookup()) return kEltLutRead;
    return -1;
  }
  if (elt && sram == out) return store ? kEltOutRead : kEltOutWrite;
  if (store && gemm) {  // the GEMM reads A, B, bias and rq and writes out (17.6)
    switch (arch::Region(sram)) {
      case arch::Region::kA:
        return kGemmARead;
      case arch::Region::kB:
        return kGemmBRead;
      case arch::Region::kBias:
        return kGemmBiasRead;
      case arch::Region::kRq:
        return kGemmRqRead;
      default:
        break;
    }
  }
  if (store && move && sram == out) return kMoveOutRead;
  if (!store && gemm && sram == out) return kGemmOutWrite;
  if (!store && move && sram == move_dst) {
    if (sram == uint32_t(arch::Region::kA)) return kMoveAWrite;
    if (sram == uint32_t(arch::Region::kB)) return kMoveBWrite;
  }
  return -1;
}

void RuleCoverage::OnPortStall(const RtlSample& s) {
  const QueueSample& q = s.queue;
  if (q.dma_start) store_aw_ = store_b_ = 0;
  store_aw_ +=
      s.axi.aw_valid && s.axi_in.aw_ready;  // only a STORE writes: its bursts and their responses
  store_b_ += s.axi_in.b_valid;
  if (!q.port_stall) {
    stall_use_ = -1;
    stall_run_ = 0;
    return;
  }
  const int use = PortUse();
  if (use < 0) return;
  Hit(port_stall_[size_t(use)]);
  stall_run_ = use == stall_use_ ? stall_run_ + 1 : 1;
  stall_use_ = use;
  if (stall_run_ == config_.ext_mem_latency + 1) Hit(port_outlasts_[size_t(use)]);
  // A STORE whose every write burst so far has had its response, with nothing left in its write
  // buffer (w_valid low), while its next read waits for the port.
  const bool store = use == kGemmARead || use == kGemmBRead || use == kGemmBiasRead ||
                     use == kGemmRqRead || use == kMoveOutRead;
  if (store && store_aw_ > 0 && store_aw_ == store_b_ && !s.axi.w_valid) Hit(store_drained_);
}

void RuleCoverage::OnVerdict(uint32_t status) {
  if (!running_) return;
  running_ = false;
  if (lost_) return;
  const auto code =
      static_cast<ErrCode>((status & arch::kStatusErrCodeMask) >> arch::kStatusErrCodeLsb);
  if (!(status & arch::kStatusError)) return;
  if (code == ErrCode::kDeadlock) {
    int lowest_engine = -1;
    int64_t lowest = -1;
    for (int e = 0; e < 2; ++e) {
      const EngineView& v = engines_[e];
      if (!v.queue.empty() && (lowest < 0 || v.queue.front() < lowest)) {
        lowest = v.queue.front();
        lowest_engine = e;
      }
    }
    if (lowest_engine < 0) return;
    // The fetcher holds a validated descriptor that its full queue cannot take, both engines
    // waiting (a quiet engine with a head waits).
    if (!fetched_.empty()) {
      const int e = model::IsDmaOp(Header(fetched_.front()).op) ? kDma : kCompute;
      if (engines_[e].queue.size() == size_t(arch::kQueueDepth) && !engines_[kDma].queue.empty() &&
          !engines_[kCompute].queue.empty()) {
        Hit(dl_fetcher_blocked_);
      }
    }
    if (pushed_ == q_count_) Hit(dl_all_fetched_);
    if (engines_[lowest_engine].started) Hit(dl_head_holds_[lowest_engine]);
    if (max_retired_index_ > lowest && int64_t{retired_} != lowest) {
      Hit(dl_below_retired_[lowest_engine]);
    }
    return;
  }
  // A validation error: the fetcher stopped at the last descriptor it fetched, which no queue took.
  if (code == ErrCode::kExtFault || fetched_.empty() || fetched_.back() + 1 != fetches_) return;
  const Words& d = descriptors_.at(fetched_.back());
  const uint32_t op = model::DecodeDescHeader(d).op;
  if (op >= std::size(kOpNames)) return;
  const std::vector<Check> checks = ChecksOf(config_, d);
  for (size_t i = 0; i + 1 < checks.size(); ++i) {
    if (!checks[i].fails || !checks[i + 1].fails || checks[i].code != code) continue;
    auto it = order_.find(
        fmt::format("{}.{}.{}", kOpNames[op], CheckName(checks[i]), CheckName(checks[i + 1])));
    if (it != order_.end()) Hit(it->second);
  }
}

}  // namespace qacc::cosim
