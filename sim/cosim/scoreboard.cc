#include "sim/cosim/scoreboard.h"

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

namespace qacc::cosim {

namespace {

std::string BeatName(int64_t tile, int row) {
  return tile >= 0 ? fmt::format("beat tile {} row {}", tile, row)
                   : fmt::format("beat row {}", row);
}

}  // namespace

Scoreboard::Scoreboard(const arch::ArchConfig& config)
    : config_(config), timing_(config.rows, config.cols, 1, 1, 1) {}

void Scoreboard::StartProgram(int command) {
  source_ = nullptr;
  has_command_ = false;
  command_ = command;
  program_ = true;
  program_done_ = std::numeric_limits<int64_t>::max();
}

void Scoreboard::SetProgramGemm(model::BeatSource* source) {
  const int command = command_;
  SetCommand(source, command);
  program_ = true;
}

void Scoreboard::ExpectDone(int64_t cycle) { program_done_ = cycle; }

void Scoreboard::SetCommand(model::BeatSource* source, int command) {
  source_ = source;
  command_ = command;
  program_ = false;
  const model::GemmEngine* engine = source ? source->engine() : nullptr;
  has_command_ = engine != nullptr;
  if (has_command_) {
    timing_ = engine->timing();
    out_raw_ = engine->command().out_raw;
    out_base_ = engine->command().out_base;
  }
}

void Scoreboard::CheckStatus(int64_t cycle, const RtlSample& s, bool busy, bool irq) {
  if (s.busy == busy && s.irq == irq) return;
  Mismatch m;
  m.cycle = cycle;
  m.unit = CheckUnitName(CheckUnit::kStatus);
  m.what = s.busy != busy ? "STATUS.BUSY" : "irq_o";
  m.expected = std::to_string(int(s.busy != busy ? busy : irq));
  m.actual = std::to_string(int(s.busy != busy ? s.busy : s.irq));
  Record(CheckUnit::kStatus, m);
}

arch::Command DecodeCommandPort(const uint32_t (&words)[kCommandPortWords]) {
  // A field of up to 32 bits from the two words it may span (every cycle of a lockstep run decodes the port).
  auto bits = [&](int lsb, int width) {
    const int w = lsb / 32;
    uint64_t pair = words[w];
    if (w + 1 < kCommandPortWords) pair |= uint64_t{words[w + 1]} << 32;
    return static_cast<uint32_t>((pair >> (lsb % 32)) & ((uint64_t{1} << width) - 1));
  };
  model::Descriptor d{};
  const uint32_t op = arch::desc::UnpackCmd(bits, d);
  arch::Command c = model::GemmCommandOf(d);
  c.op = op;
  return c;
}

void Scoreboard::CheckCommand(int64_t cycle, const RtlSample& s, const arch::Command& model) {
  // mon_cmd_o and the model's registers change only at a launch or a program's GEMM start: a cycle
  // with the very words and registers of the last cycle that matched matches too.
  // (the slope registers are compared through the bus and the slope beats, not through mon_cmd_o)
  static_assert(sizeof(arch::Command) == (16 + arch::kSlopeRegisterCount) * sizeof(uint32_t),
                "arch::Command has padding");
  if (cmd_matched_ && std::memcmp(cmd_words_, s.cmd, sizeof cmd_words_) == 0 &&
      std::memcmp(&cmd_model_, &model, sizeof model) == 0) {
    return;
  }
  std::memcpy(cmd_words_, s.cmd, sizeof cmd_words_);
  cmd_model_ = model;
  cmd_matched_ = false;
  const arch::Command rtl = DecodeCommandPort(s.cmd);
  namespace reg = arch::reg;
  const struct {
    uint32_t offset;
    uint32_t rtl, model;
  } fields[] = {
      {reg::kCmdOp, rtl.op, model.op},
      {reg::kCmdM, rtl.m, model.m},
      {reg::kCmdN, rtl.n, model.n},
      {reg::kCmdK, rtl.k, model.k},
      {reg::kCmdABase, rtl.a_base, model.a_base},
      {reg::kCmdBBase, rtl.b_base, model.b_base},
      {reg::kCmdBiasBase, rtl.bias_base, model.bias_base},
      {reg::kCmdRqBase, rtl.rq_base, model.rq_base},
      {reg::kCmdOutBase, rtl.out_base, model.out_base},
      {reg::kCmdMode, rtl.mode, model.mode},
      {reg::kCmdZpAb, rtl.zp_ab, model.zp_ab},
      {reg::kCmdZpOut, uint32_t(rtl.zp_out), uint32_t(model.zp_out)},
      {reg::kCmdClampMin, uint32_t(rtl.clamp_min), uint32_t(model.clamp_min)},
      {reg::kCmdClampMax, uint32_t(rtl.clamp_max), uint32_t(model.clamp_max)},
      {reg::kCmdMult, uint32_t(rtl.mult), uint32_t(model.mult)},
      {reg::kCmdShift, rtl.shift, model.shift},
  };
  for (const auto& f : fields) {
    if (f.rtl == f.model) continue;
    Mismatch m;
    m.cycle = cycle;
    m.unit = CheckUnitName(CheckUnit::kCommand);
    const char* name = "CMD";
    for (const arch::RegisterInfo& r : arch::kRegisters) {
      if (r.offset == f.offset) name = r.name;
    }
    m.what = fmt::format("{} as the controller sees it", name);
    m.expected = fmt::format("{:#x}", f.model);
    m.actual = fmt::format("{:#x}", f.rtl);
    Record(CheckUnit::kCommand, m);
    return;  // one mismatch per cycle: the first field that differs
  }
  cmd_matched_ = true;
}

int64_t Scoreboard::total() const {
  int64_t sum = 0;
  for (int64_t c : counts_) sum += c;
  return sum;
}

void Scoreboard::Record(CheckUnit unit, Mismatch mismatch) {
  if (mismatch.command < 0) mismatch.command = command_;
  const int u = static_cast<int>(unit);
  ++counts_[u];
  if (!first_of_[u]) first_of_[u] = mismatch;
  if (!first_) first_ = mismatch;
}

void Scoreboard::Report(CheckUnit unit, int64_t cycle, std::string what, std::string expected,
                        std::string actual) {
  Mismatch m;
  m.cycle = cycle;
  m.unit = CheckUnitName(unit);
  m.what = std::move(what);
  m.expected = std::move(expected);
  m.actual = std::move(actual);
  Record(unit, std::move(m));
}

void Scoreboard::Locate(Mismatch& m, int64_t tile, int tile_row) const {
  m.tile = tile;
  m.tile_row = tile_row;
  if (tile < 0 || !has_command_) return;
  const int64_t mb = timing_.TileMb(tile), nb = timing_.TileNb(tile);
  if (tile_row >= 0) m.row = static_cast<int>(mb * config_.rows + tile_row);
  if (m.lane >= 0) m.col = static_cast<int>(nb * config_.cols + m.lane);
}

// Names the tile of an unexpected beat, from the closed-form timing (diagnostics only).
int64_t Scoreboard::TileOf(int64_t cycle, int row, int64_t first) const {
  if (source_ == nullptr || !has_command_) return -1;
  const int64_t rel = cycle - source_->launch_cycle() - first - row;
  if (rel < 0) return -1;
  const int64_t tile = rel / timing_.P();
  return tile < timing_.T() ? tile : -1;
}

std::string Scoreboard::StoppedStream() const {
  std::vector<CheckUnit> units = {CheckUnit::kMacIn};
  for (const arch::BeatUnitInfo& beat : arch::kBeatUnits) units.push_back(BeatCheckUnit(beat.beat));
  units.insert(units.end(), {CheckUnit::kOutWrite, CheckUnit::kDone});
  for (CheckUnit unit : units) {
    const int64_t seen = this->seen(unit), want = predicted(unit);
    if (seen >= want) continue;
    const int64_t last = last_seen_cycle(unit);
    return fmt::format("; unit {} stopped: {} of {} predicted {} seen, last at {}",
                       CheckUnitName(unit), seen, want,
                       unit == CheckUnit::kDone ? "completions" : "beats",
                       last < 0 ? std::string("none") : fmt::format("cycle {}", last));
  }
  return {};
}

void Scoreboard::Check(int64_t cycle, const RtlSample& s) {
  if (source_ != nullptr) source_->Advance(cycle);
  CheckMacIn(cycle, s);
  for (const arch::BeatUnitInfo& unit : arch::kBeatUnits) CheckBeat(unit.beat, cycle, s);
  CheckOutWrite(cycle, s);
  CheckDone(cycle, s);
}

// The feeder's beats: beat k of a tile enters the array in cycle first_cycle + k, last with
// k = K - 1; the cycles between two tiles' beats carry none.
void Scoreboard::CheckMacIn(int64_t cycle, const RtlSample& s) {
  const model::MacInRun* run = source_ ? source_->PeekMacIn() : nullptr;
  const bool valid = run != nullptr && cycle >= run->first_cycle;
  const bool last = valid && cycle == run->first_cycle + run->beats - 1;
  const int64_t tile = valid ? run->tile : -1;
  if (last) source_->PopMacIn();
  if (s.mac_in_valid) {
    ++seen_[static_cast<int>(CheckUnit::kMacIn)];
    last_seen_[static_cast<int>(CheckUnit::kMacIn)] = cycle;
  }
  if (valid) ++predicted_[static_cast<int>(CheckUnit::kMacIn)];
  if (valid == s.mac_in_valid && (!valid || last == s.mac_in_last)) return;
  Mismatch m;
  m.cycle = cycle;
  m.unit = CheckUnitName(CheckUnit::kMacIn);
  m.what = valid != s.mac_in_valid ? "input beat valid" : "input beat last";
  m.expected = valid != s.mac_in_valid ? std::to_string(int(valid)) : std::to_string(int(last));
  m.actual = valid != s.mac_in_valid ? std::to_string(int(s.mac_in_valid))
                                      : std::to_string(int(s.mac_in_last));
  Locate(m, tile, -1);
  Record(CheckUnit::kMacIn, m);
}

void Scoreboard::CheckBeat(arch::BeatUnit unit, int64_t cycle, const RtlSample& s) {
  const model::RowBeat* e = source_ ? source_->PeekBeat(unit) : nullptr;
  const bool due = e != nullptr && e->cycle == cycle;
  RowBeat expected;
  if (due) expected = {true, e->tile, e->row, e->last, e->lanes.data(), e->known_lanes};
  const BeatSample& a = s.beats[size_t(unit)];
  CheckRowBeat(unit, cycle, {a.valid, 0, a.row, a.last, a.lanes}, expected);
  if (due) source_->PopBeat(unit);
}

void Scoreboard::CheckRowBeat(arch::BeatUnit beat_unit, int64_t cycle, const RowBeat& actual,
                              const RowBeat& expected) {
  const CheckUnit unit = BeatCheckUnit(beat_unit);
  const int u = static_cast<int>(unit);
  if (actual.valid) {
    ++seen_[u];
    last_seen_[u] = cycle;
  }
  if (!expected.valid && !actual.valid) return;
  Mismatch m;
  m.cycle = cycle;
  m.unit = CheckUnitName(unit);
  if (expected.valid) ++predicted_[u];
  if (!actual.valid) {
    m.what = "missing beat";
    m.expected = BeatName(expected.tile, expected.row);
    m.actual = "no beat";
    Locate(m, expected.tile, expected.row);
    Record(unit, m);
  } else if (!expected.valid) {
    m.what = "unexpected beat";
    m.expected = "no beat";
    // The tile of an unexpected beat, from the unit's beat cycle of tile 0, row 0 (diagnostics only).
    const int64_t tile = TileOf(cycle, actual.row, timing_.Beat(beat_unit, 0, 0));
    m.actual = BeatName(tile, actual.row);
    Locate(m, tile, actual.row);
    Record(unit, m);
  } else {
    if (actual.row != expected.row || actual.last != expected.last) {
      m.what = "row/last";
      m.expected = fmt::format("row {} last {}", expected.row, int(expected.last));
      m.actual = fmt::format("row {} last {}", actual.row, int(actual.last));
      Locate(m, expected.tile, expected.row);
      Record(unit, m);
    }
    for (int c = 0; c < config_.cols; ++c) {
      if (((expected.known_lanes >> c) & 1) == 0 || actual.lanes[c] == expected.lanes[c]) continue;
      Mismatch v = m;
      v.what = "value";
      v.lane = c;
      v.expected = std::to_string(expected.lanes[c]);
      v.actual = std::to_string(actual.lanes[c]);
      Locate(v, expected.tile, expected.row);
      Record(unit, v);
    }
  }
}

void Scoreboard::CheckOutWrite(int64_t cycle, const RtlSample& s) {
  constexpr CheckUnit kUnit = CheckUnit::kOutWrite;
  const model::OutWriteBeat* e = source_ ? source_->PeekOutWrite() : nullptr;
  const bool expected = e != nullptr && e->cycle == cycle;
  if (s.out_we) {
    ++seen_[static_cast<int>(kUnit)];
    last_seen_[static_cast<int>(kUnit)] = cycle;
  }
  if (!expected && !s.out_we) return;
  const int cols = config_.cols;
  const int bytes = 4 * cols;
  // Lane of byte j: j / 4 in int32 mode, j mod C in int8 mode (6.3).
  auto lane_of = [&](int j) { return out_raw_ ? j / 4 : j % cols; };
  Mismatch m;
  m.cycle = cycle;
  m.unit = CheckUnitName(kUnit);
  if (expected) ++predicted_[static_cast<int>(kUnit)];
  if (expected && !s.out_we) {
    m.what = "missing write";
    m.expected = fmt::format("write word {:#x} ({})", e->addr, BeatName(e->tile, e->row));
    m.actual = "no write";
    Locate(m, e->tile, e->row);
    Record(kUnit, m);
  } else if (!expected) {
    m.what = "unexpected write";
    m.expected = "no write";
    m.actual = fmt::format("write word {:#x}", s.out_addr);
    // Entry of the first enabled byte (6.3): e = addr - OUT_BASE (int32), (addr - OUT_BASE) * 4 +
    // byte / C (int8); tile e / R, row e mod R.
    int first = 0;
    while (first < bytes - 1 && !s.out_be[first]) ++first;
    const int64_t word = int64_t{s.out_addr} - int64_t{out_base_};
    if (word >= 0) {
      const int64_t entry = out_raw_ ? word : word * 4 + first / cols;
      Locate(m, entry / config_.rows, static_cast<int>(entry % config_.rows));
    }
    Record(kUnit, m);
  } else {
    if (s.out_addr != e->addr) {
      m.what = "address";
      m.expected = fmt::format("word {:#x}", e->addr);
      m.actual = fmt::format("word {:#x}", s.out_addr);
      Locate(m, e->tile, e->row);
      Record(kUnit, m);
    }
    for (int j = 0; j < bytes; ++j) {
      const bool be_ok = s.out_be[j] == e->be[size_t(j)];
      const bool data_ok = !e->known[size_t(j)] || s.out_wdata[j] == e->data[size_t(j)];
      if (be_ok && data_ok) continue;
      Mismatch v = m;
      v.what = be_ok ? fmt::format("data byte {}", j) : fmt::format("byte enable {}", j);
      v.lane = lane_of(j);
      v.expected = be_ok ? fmt::format("{:#04x}", e->data[size_t(j)])
                         : fmt::format("be {}", int(e->be[size_t(j)]));
      v.actual =
          be_ok ? fmt::format("{:#04x}", s.out_wdata[j]) : fmt::format("be {}", int(s.out_be[j]));
      Locate(v, e->tile, e->row);
      Record(kUnit, v);
    }
  }
  if (expected) source_->PopOutWrite();
}

void Scoreboard::CheckDone(int64_t cycle, const RtlSample& s) {
  constexpr CheckUnit kUnit = CheckUnit::kDone;
  const bool rose = s.done && !prev_done_;
  prev_done_ = s.done;
  const bool expected =
      program_ ? cycle == program_done_ : source_ != nullptr && cycle == source_->done_cycle();
  if (rose) {
    ++seen_[static_cast<int>(kUnit)];
    last_seen_[static_cast<int>(kUnit)] = cycle;
  }
  if (expected) ++predicted_[static_cast<int>(kUnit)];
  if (rose == expected) return;
  Mismatch m;
  m.cycle = cycle;
  m.unit = CheckUnitName(kUnit);
  m.what = expected ? "missing DONE" : "unexpected DONE";
  m.expected = expected ? "DONE rises" : "no DONE";
  m.actual = expected ? "no DONE" : "DONE rises";
  if (source_ != nullptr || program_) {
    const int64_t done = program_ ? program_done_ : source_->done_cycle();
    m.expected += done == std::numeric_limits<int64_t>::max()
                      ? std::string(" (predicted later)")
                      : fmt::format(" (predicted at cycle {})", done);
  }
  Record(kUnit, m);
}

// ---- Programs (data_movement.md 18) ---------------------------------------------------------

void Scoreboard::CheckProgramCycle(int64_t cycle, const RtlSample& s,
                                   const model::ProgramCycle& e) {
  CheckMemPort(cycle, s.axi, e.axi);
  CheckQueue(cycle, s.queue, e);
  CheckDmaSram(cycle, s.dma, e.dma_sram);
  CheckMove(cycle, s.move, e.move_read, e.move_write);
  CheckOutAccess(cycle, s.out_acc, e.out_access);
}

void Scoreboard::CheckMemPort(int64_t cycle, const model::AxiMasterOut& r,
                              const model::AxiMasterOut& e) {
  const int d = config_.mem_data_bytes;
  auto differs = [&](std::string what, std::string expected, std::string actual) {
    Report(CheckUnit::kMemPort, cycle, std::move(what), std::move(expected), std::move(actual));
  };
  auto request = [](bool valid, uint32_t addr, uint8_t len) {
    return valid ? fmt::format("addr {:#x} len {}", addr, len) : std::string("no request");
  };
  if (r.ar_valid != e.ar_valid ||
      (e.ar_valid && (r.ar_addr != e.ar_addr || r.ar_len != e.ar_len))) {
    differs("read address channel", request(e.ar_valid, e.ar_addr, e.ar_len),
            request(r.ar_valid, r.ar_addr, r.ar_len));
  }
  if (r.aw_valid != e.aw_valid ||
      (e.aw_valid && (r.aw_addr != e.aw_addr || r.aw_len != e.aw_len))) {
    differs("write address channel", request(e.aw_valid, e.aw_addr, e.aw_len),
            request(r.aw_valid, r.aw_addr, r.aw_len));
  }
  if (r.r_ready != e.r_ready || r.b_ready != e.b_ready) {
    differs("r_ready/b_ready", fmt::format("{}/{}", int(e.r_ready), int(e.b_ready)),
            fmt::format("{}/{}", int(r.r_ready), int(r.b_ready)));
  }
  if (r.w_valid != e.w_valid) {
    differs("write data valid", std::to_string(int(e.w_valid)), std::to_string(int(r.w_valid)));
    return;
  }
  if (!e.w_valid) return;
  const uint64_t mask = d >= 64 ? ~uint64_t{0} : (uint64_t{1} << d) - 1;
  if ((r.w_strb & mask) != (e.w_strb & mask) || r.w_last != e.w_last) {
    differs("write strobes/last", fmt::format("strb {:#x} last {}", e.w_strb & mask, int(e.w_last)),
            fmt::format("strb {:#x} last {}", r.w_strb & mask, int(r.w_last)));
    return;
  }
  for (int j = 0; j < d; ++j) {
    // Every byte: those without a strobe are 0 (15.1).
    if (r.w_data[size_t(j)] == e.w_data[size_t(j)]) continue;
    differs(fmt::format("write data byte {}", j), fmt::format("{:#04x}", e.w_data[size_t(j)]),
            fmt::format("{:#04x}", r.w_data[size_t(j)]));
    return;
  }
}

void Scoreboard::CheckQueue(int64_t cycle, const QueueSample& r, const model::ProgramCycle& e) {
  constexpr uint32_t kIndexMask =
      (1u << arch::kQCountBits) - 1;  // the monitor's index and Q_RETIRED fields
  QueueSample want;
  want.d2c = e.d2c;
  want.c2d = e.c2d;
  want.dma_count = e.dma_queue;
  want.cmp_count = e.compute_queue;
  want.retired = e.retired & kIndexMask;
  want.dma_start = e.dma_start.valid;
  want.dma_start_idx = e.dma_start.valid ? e.dma_start.index & kIndexMask : 0;
  want.dma_retire = e.dma_retire.valid;
  want.dma_retire_idx = e.dma_retire.valid ? e.dma_retire.index & kIndexMask : 0;
  want.cmp_start = e.compute_start.valid;
  want.cmp_start_idx = e.compute_start.valid ? e.compute_start.index & kIndexMask : 0;
  want.cmp_retire = e.compute_retire.valid;
  want.cmp_retire_idx = e.compute_retire.valid ? e.compute_retire.index & kIndexMask : 0;
  want.dma_wait = e.dma_wait;
  want.cmp_wait = e.compute_wait;
  want.port_stall = e.port_stall;
  if (r == want) return;
  auto text = [](const QueueSample& q) {
    std::string t = fmt::format("d2c {} c2d {} queues {}/{} retired {}", q.d2c, q.c2d, q.dma_count,
                                q.cmp_count, q.retired);
    if (q.dma_start) t += fmt::format(", dma start {}", q.dma_start_idx);
    if (q.dma_retire) t += fmt::format(", dma retire {}", q.dma_retire_idx);
    if (q.cmp_start) t += fmt::format(", compute start {}", q.cmp_start_idx);
    if (q.cmp_retire) t += fmt::format(", compute retire {}", q.cmp_retire_idx);
    if (q.dma_wait) t += ", dma waits for a token";
    if (q.cmp_wait) t += ", compute waits for a token";
    if (q.port_stall) t += ", dma step waits for its port";
    return t;
  };
  Report(CheckUnit::kQueue, cycle, "queue monitor", text(want), text(r));
}

void Scoreboard::CheckDmaSram(int64_t cycle, const DmaSramSample& r,
                              const model::DmaSramAccess& e) {
  const bool e_re = e.valid && !e.write, e_we = e.valid && e.write;
  auto access = [](bool re, bool we, int sram, uint32_t word) {
    if (!re && !we) return std::string("no access");
    return fmt::format("{} SRAM {} word {:#x}", we ? "write" : "read", sram, word);
  };
  if (r.re != e_re || r.we != e_we || (e.valid && (r.sram != e.sram || r.addr != e.word))) {
    Report(CheckUnit::kDmaSram, cycle, "DMA SRAM access", access(e_re, e_we, e.sram, e.word),
           access(r.re, r.we, r.sram, r.addr));
    return;
  }
  if (!e.valid) {
    if (!r.idle_zero) {
      Report(CheckUnit::kDmaSram, cycle,
             "DMA SRAM id, address, byte enables and data in a cycle without an access (18: 0)",
             "0", "not 0");
    }
    return;
  }
  for (int j = 0; j < DmaPortBytes(config_.rows, config_.cols); ++j) {
    const bool enabled = j >= e.offset && j < e.offset + e.bytes;
    if (r.be[j] != uint8_t(enabled)) {
      Report(CheckUnit::kDmaSram, cycle, fmt::format("DMA SRAM byte enable {}", j),
             std::to_string(int(enabled)), std::to_string(int(r.be[j])));
      return;
    }
    if (enabled && e.write && r.wdata[j] != e.data[size_t(j - e.offset)]) {
      Report(CheckUnit::kDmaSram, cycle, fmt::format("DMA SRAM write data byte {}", j),
             fmt::format("{:#04x}", e.data[size_t(j - e.offset)]),
             fmt::format("{:#04x}", r.wdata[j]));
      return;
    }
  }
}

void Scoreboard::CheckMove(int64_t cycle, const MoveSample& r, const model::MoveRead& read,
                           const model::MoveWrite& write) {
  if (r.re != read.valid || (read.valid && r.raddr != read.word)) {
    Report(CheckUnit::kMove, cycle, "MOVE out read",
           read.valid ? fmt::format("word {:#x}", read.word) : "no read",
           r.re ? fmt::format("word {:#x}", r.raddr) : "no read");
  }
  if (r.we != write.valid || (write.valid && (r.dst != write.sram || r.waddr != write.word))) {
    Report(CheckUnit::kMove, cycle, "MOVE write",
           write.valid ? fmt::format("SRAM {} word {:#x}", write.sram, write.word) : "no write",
           r.we ? fmt::format("SRAM {} word {:#x}", r.dst, r.waddr) : "no write");
    return;
  }
  if (!r.idle_zero) {
    Report(CheckUnit::kMove, cycle, "MOVE fields of an access the cycle does not have (18: 0)", "0",
           "not 0");
  }
  if (!write.valid) return;
  for (int j = 0; j < write.bytes; ++j) {
    if (r.wdata[j] == write.data[size_t(j)]) continue;
    Report(CheckUnit::kMove, cycle, fmt::format("MOVE write data byte {}", j),
           fmt::format("{:#04x}", write.data[size_t(j)]), fmt::format("{:#04x}", r.wdata[j]));
    return;
  }
}

void Scoreboard::CheckOutAccess(int64_t cycle, const OutAccessSample& r,
                                const model::OutAccess& e) {
  constexpr CheckUnit kUnit = CheckUnit::kEltwise;
  if (r.re != e.read || (e.read && r.raddr != e.raddr)) {
    Report(kUnit, cycle, "ELTWISE out read",
           e.read ? fmt::format("word {:#x}", e.raddr) : "no read",
           r.re ? fmt::format("word {:#x}", r.raddr) : "no read");
  }
  if (r.we != e.write || (e.write && r.waddr != e.waddr)) {
    Report(kUnit, cycle, "ELTWISE out write",
           e.write ? fmt::format("word {:#x}", e.waddr) : "no write",
           r.we ? fmt::format("word {:#x}", r.waddr) : "no write");
    return;
  }
  if (!r.idle_zero) {
    Report(kUnit, cycle, "ELTWISE fields of an access the cycle does not have (18: 0)", "0",
           "not 0");
  }
  if (!e.write) return;
  for (int j = 0; j < e.bytes; ++j) {
    if (r.wdata[j] == e.data[size_t(j)]) continue;
    Report(kUnit, cycle, fmt::format("ELTWISE write data byte {}", j),
           fmt::format("{:#04x}", e.data[size_t(j)]), fmt::format("{:#04x}", r.wdata[j]));
    return;
  }
}

void Scoreboard::CheckBusResponse(const std::string& access, bool is_read, int64_t complete,
                                  bool slverr, uint32_t rdata, int64_t expected_complete,
                                  model::BusStatus expected_status, uint32_t expected_rdata) {
  const bool model_err = expected_status != model::BusStatus::kOk;
  Mismatch m;
  m.cycle = complete;
  m.unit = CheckUnitName(CheckUnit::kBus);
  if (expected_complete != complete) {
    m.what = access + ": completion cycle (wait states)";
    m.expected = std::to_string(expected_complete);
    m.actual = std::to_string(complete);
    Record(CheckUnit::kBus, m);
  }
  if (model_err != slverr) {
    m.what = access + ": pslverr";
    m.expected = fmt::format("{} ({})", int(model_err), model::BusStatusName(expected_status));
    m.actual = std::to_string(int(slverr));
    Record(CheckUnit::kBus, m);
  }
  // prdata in every completion: a write's is 0 (architecture.md 3.2, a quiet bus).
  if (rdata != expected_rdata) {
    m.what = access + (is_read ? ": read data" : ": prdata of a write");
    m.expected = fmt::format("{:#x}", expected_rdata);
    m.actual = fmt::format("{:#x}", rdata);
    Record(CheckUnit::kBus, m);
  }
}

void CompareOutputs(const arch::ArchConfig& config, const model::GemmJob& job,
                    const golden::Matrix<int32_t>& golden, const std::vector<uint8_t>& image,
                    const char* unit_name, const std::function<int64_t(int64_t)>& cycle_of,
                    int command, Scoreboard& scoreboard) {
  const golden::Matrix<int32_t> got = model::UnpackOutput(config, job, image);
  const int rows = config.rows, cols = config.cols;
  const int64_t nb_count = arch::CeilDiv(job.n, cols);
  // int8 mode stores the low 8 bits of y (spec 5.3): with clamp bounds spanning -128..255 the byte
  // alone does not tell int8 from uint8, so the bytes are compared.
  const uint32_t mask = job.out_raw ? 0xFFFF'FFFFu : 0xFFu;
  for (int m = 0; m < job.m; ++m) {
    for (int n = 0; n < job.n; ++n) {
      if (((uint32_t(got.at(m, n)) ^ uint32_t(golden.at(m, n))) & mask) == 0) continue;
      const int64_t entry = arch::OutEntryOf(m, n, rows, cols, nb_count);
      Mismatch mm;
      mm.unit = unit_name;
      mm.what = "output element vs golden";
      mm.lane = n % cols;
      mm.tile = entry / rows;
      mm.tile_row = static_cast<int>(entry % rows);
      mm.row = m;
      mm.col = n;
      mm.command = command;
      mm.expected = std::to_string(golden.at(m, n));
      mm.actual = std::to_string(got.at(m, n));
      mm.cycle = cycle_of(arch::OutWindowByte(job.out_base, entry, n % cols, cols, job.out_raw));
      scoreboard.Record(CheckUnit::kOutput, mm);
    }
  }
}

}  // namespace qacc::cosim
