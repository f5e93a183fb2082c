// qacc_top (Verilated, one build per configs/*.json) driven through its APB port like a host
// driver: operands are packed into the SRAM windows (spec 6.1), a command is launched, and then
//   * every output element read back from the output window equals golden Gemm (+ bias) followed by
//   golden
//     RequantizeAccumulator (or the raw int32 accumulator), laid out as spec 6.3;
//   * every monitor beat (MAC output, requant output, output SRAM write, DONE) appears exactly at
//   the cycle of
//     the spec 7 formulas (model/arch.h Timing) with the right row and values, and no other beat
//     appears;
//   * PERF_* equal their formulas; validation errors and pslverr follow spec 3 and 4.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "Vqacc_top.h"
#include "golden/gemm.h"
#include "golden/requant.h"
#include "model/arch.h"
#include "tests/rtl/rtl_test_util.h"
#include "verilated.h"

namespace qacc {
namespace {

using arch::Command;
using arch::ErrCode;
using arch::Timing;
using golden::Matrix;
using rtl_test::GetBits;
using rtl_test::MismatchLog;
using rtl_test::SignExtend;

const arch::ArchConfig& Config() {
  static const arch::ArchConfig config = arch::LoadArchConfig(QACC_CONFIG_FILE);
  return config;
}

struct ApbResult {
  uint32_t rdata = 0;
  bool slverr = false;
  int access_cycles = 0;  // cycles of the access phase (1 = no wait state)
};

// One GEMM command with its operands (raw bytes, interpreted per the command's signedness).
struct Gemm {
  Command cmd;
  std::vector<uint8_t> a;     // M x K row-major
  std::vector<uint8_t> b;     // K x N row-major
  std::vector<int32_t> bias;  // one per padded column (NB * C), used with BIAS_EN
  std::vector<int32_t> mult;  // per-channel, one per padded column
  std::vector<int32_t> shift;
};

// The Verilated accelerator, an APB master and the monitors.
class TopBench {
 public:
  TopBench() : context_(std::make_unique<VerilatedContext>()) {
    top_ = std::make_unique<Vqacc_top>(context_.get());
    top_->rst_ni = 0;
    top_->apb_psel_i = 0;
    top_->apb_penable_i = 0;
    for (int i = 0; i < 2; ++i) Step();
    top_->rst_ni = 1;
    Step();
  }
  ~TopBench() { top_->final(); }

  int rows() const { return Config().rows; }
  int cols() const { return Config().cols; }

  // One APB transfer: setup phase, then access phase until pready.
  ApbResult Transfer(bool write, uint32_t addr, uint32_t wdata, uint32_t strb = 0xF) {
    top_->apb_psel_i = 1;
    top_->apb_penable_i = 0;
    top_->apb_pwrite_i = write;
    top_->apb_paddr_i = addr;
    top_->apb_pwdata_i = write ? wdata : 0;
    top_->apb_pstrb_i = write ? strb : 0;
    Step();
    top_->apb_penable_i = 1;
    ApbResult result;
    for (;;) {
      ++result.access_cycles;
      const bool ready = Step();
      if (ready) break;
      if (result.access_cycles > 16) {
        ADD_FAILURE() << fmt::format("APB transfer to {:#x} never completed", addr);
        break;
      }
    }
    result.rdata = last_prdata_;
    result.slverr = last_pslverr_;
    last_transfer_end_ = cycle_ - 1;
    top_->apb_psel_i = 0;
    top_->apb_penable_i = 0;
    return result;
  }
  ApbResult Write(uint32_t addr, uint32_t data, uint32_t strb = 0xF) {
    return Transfer(true, addr, data, strb);
  }
  ApbResult Read(uint32_t addr) { return Transfer(false, addr, 0); }
  uint32_t ReadOk(uint32_t addr) {
    const ApbResult r = Read(addr);
    EXPECT_FALSE(r.slverr) << fmt::format("read {:#x}", addr);
    return r.rdata;
  }
  void WriteOk(uint32_t addr, uint32_t data) {
    EXPECT_FALSE(Write(addr, data).slverr) << fmt::format("write {:#x}", addr);
  }

  // Idle bus cycles.
  void Idle(int n) {
    for (int i = 0; i < n; ++i) Step();
  }

  // Writes `bytes` into a window starting at byte offset `off` (a multiple of 4).
  void LoadBytes(uint32_t window, uint32_t off, const std::vector<uint8_t>& bytes) {
    for (size_t i = 0; i < bytes.size(); i += 4) {
      uint32_t word = 0;
      for (size_t j = 0; j < 4 && i + j < bytes.size(); ++j)
        word |= uint32_t{bytes[i + j]} << (8 * j);
      WriteOk(window + off + uint32_t(i), word);
    }
  }

  void ProgramCommand(const Command& c) {
    using namespace arch::reg;
    WriteOk(kCmdOp, c.op);
    WriteOk(kCmdM, c.m);
    WriteOk(kCmdN, c.n);
    WriteOk(kCmdK, c.k);
    WriteOk(kCmdABase, c.a_base);
    WriteOk(kCmdBBase, c.b_base);
    WriteOk(kCmdBiasBase, c.bias_base);
    WriteOk(kCmdRqBase, c.rq_base);
    WriteOk(kCmdOutBase, c.out_base);
    WriteOk(kCmdMode, c.mode);
    WriteOk(kCmdZpAb, c.zp_ab);
    WriteOk(kCmdZpOut, uint32_t(c.zp_out));
    WriteOk(kCmdClampMin, uint32_t(c.clamp_min));
    WriteOk(kCmdClampMax, uint32_t(c.clamp_max));
    WriteOk(kCmdMult, uint32_t(c.mult));
    WriteOk(kCmdShift, c.shift);
  }

  // CTRL.IRQ_EN shares CTRL with START: the driver keeps it in every CTRL write.
  void SetIrqEnable(bool enable) {
    ctrl_irq_en_ = enable ? arch::kCtrlIrqEn : 0;
    WriteOk(arch::reg::kCtrl, ctrl_irq_en_);
  }

  // Writes CTRL.START; returns the command's cycle 0 (the cycle after the access phase completed).
  uint64_t Start() {
    EXPECT_FALSE(Write(arch::reg::kCtrl, arch::kCtrlStart | ctrl_irq_en_).slverr);
    launch_ = last_transfer_end_ + 1;
    ClearBeats();
    return launch_;
  }

  // Steps until STATUS.DONE (monitor port), at most `limit` cycles.
  bool WaitDone(uint64_t limit) {
    for (uint64_t i = 0; i < limit; ++i) {
      if (done_cycle_) return true;
      Step();
    }
    return done_cycle_.has_value();
  }

  struct MacBeat {
    uint64_t cycle;
    int row;
    bool last;
    std::vector<int32_t> lanes;
  };
  struct Write8 {
    uint64_t cycle;
    uint32_t addr;
    std::vector<bool> be;
    std::vector<uint8_t> data;
  };
  const std::vector<MacBeat>& mac_beats() const { return mac_beats_; }
  const std::vector<MacBeat>& rq_beats() const { return rq_beats_; }
  const std::vector<Write8>& writes() const { return writes_; }
  std::optional<uint64_t> done_cycle() const { return done_cycle_; }
  uint64_t launch() const { return launch_; }
  uint64_t busy_cycles() const { return busy_cycles_; }
  bool irq() const { return top_->irq_o; }

 private:
  void ClearBeats() {
    mac_beats_.clear();
    rq_beats_.clear();
    writes_.clear();
    done_cycle_.reset();
    busy_cycles_ = 0;
  }

  // Evaluates cycle_ with the current inputs, samples outputs and monitors, then the rising edge.
  // Returns pready of this cycle.
  bool Step() {
    top_->clk_i = 0;
    top_->eval();
    const bool ready = top_->apb_pready_o;
    last_prdata_ = top_->apb_prdata_o;
    last_pslverr_ = top_->apb_pslverr_o;
    Sample();
    top_->clk_i = 1;
    top_->eval();
    ++cycle_;
    return ready;
  }

  void Sample() {
    const int c_count = cols();
    if (top_->mon_mac_valid_o) {
      MacBeat beat{cycle_, int(top_->mon_mac_row_o), bool(top_->mon_mac_last_o), {}};
      for (int c = 0; c < c_count; ++c) {
        beat.lanes.push_back(int32_t(SignExtend(GetBits(top_->mon_mac_acc_o, 32 * c, 32), 32)));
      }
      mac_beats_.push_back(beat);
    }
    if (top_->mon_rq_valid_o) {
      MacBeat beat{cycle_, int(top_->mon_rq_row_o), bool(top_->mon_rq_last_o), {}};
      for (int c = 0; c < c_count; ++c) {
        beat.lanes.push_back(int32_t(SignExtend(GetBits(top_->mon_rq_data_o, 32 * c, 32), 32)));
      }
      rq_beats_.push_back(beat);
    }
    if (top_->mon_out_we_o) {
      Write8 w{cycle_, uint32_t(top_->mon_out_addr_o), {}, {}};
      for (int byte = 0; byte < 4 * c_count; ++byte) {
        w.be.push_back(GetBits(top_->mon_out_be_o, byte, 1) != 0);
        w.data.push_back(uint8_t(GetBits(top_->mon_out_wdata_o, 8 * byte, 8)));
      }
      writes_.push_back(w);
    }
    if (top_->mon_done_o && !done_cycle_ && launch_ != 0 && cycle_ >= launch_) done_cycle_ = cycle_;
    if (top_->mon_busy_o) ++busy_cycles_;
  }

  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Vqacc_top> top_;
  uint64_t cycle_ = 0;
  uint64_t launch_ = 0;
  uint32_t ctrl_irq_en_ = 0;
  uint64_t last_transfer_end_ = 0;
  uint32_t last_prdata_ = 0;
  bool last_pslverr_ = false;
  uint64_t busy_cycles_ = 0;
  std::vector<MacBeat> mac_beats_, rq_beats_;
  std::vector<Write8> writes_;
  std::optional<uint64_t> done_cycle_;
};

// ---- Reference values
// ---------------------------------------------------------------------------------------------

template <typename TA, typename TB>
Matrix<int32_t> GoldenGemmT(const Gemm& g, bool with_bias) {
  const int m = int(g.cmd.M()), n = int(g.cmd.N()), k = int(g.cmd.K());
  Matrix<TA> a(m, k);
  Matrix<TB> b(k, n);
  for (int i = 0; i < m * k; ++i) a.data[size_t(i)] = static_cast<TA>(g.a[size_t(i)]);
  for (int i = 0; i < k * n; ++i) b.data[size_t(i)] = static_cast<TB>(g.b[size_t(i)]);
  std::vector<int32_t> bias;
  if (with_bias) bias.assign(g.bias.begin(), g.bias.begin() + n);
  return golden::Gemm(a, b, bias, arch::ZpA(g.cmd.zp_ab), arch::ZpB(g.cmd.zp_ab));
}

Matrix<int32_t> GoldenGemm(const Gemm& g, bool with_bias) {
  if (g.cmd.a_unsigned()) {
    return g.cmd.b_unsigned() ? GoldenGemmT<uint8_t, uint8_t>(g, with_bias)
                              : GoldenGemmT<uint8_t, int8_t>(g, with_bias);
  }
  return g.cmd.b_unsigned() ? GoldenGemmT<int8_t, uint8_t>(g, with_bias)
                            : GoldenGemmT<int8_t, int8_t>(g, with_bias);
}

golden::RequantParams ParamsOfColumn(const Gemm& g, int col) {
  golden::RequantParams p;
  p.multiplier = g.cmd.per_channel() ? g.mult[size_t(col)] : g.cmd.mult;
  p.shift = g.cmd.per_channel() ? g.shift[size_t(col)] : arch::ShiftValue(g.cmd.shift);
  p.rounding = g.cmd.single_rounding() ? golden::RequantRounding::kSingleRounding
                                       : golden::RequantRounding::kDoubleRounding;
  p.output_zero_point = g.cmd.zp_out;
  p.clamp_min = g.cmd.clamp_min;
  p.clamp_max = g.cmd.clamp_max;
  return p;
}

// The requant lane's output for accumulator `acc` (bias not yet added) in padded column `col`.
int32_t LaneOutput(const Gemm& g, int col, int32_t acc) {
  const int32_t bias = g.cmd.bias_en() ? g.bias[size_t(col)] : 0;
  const int32_t x = golden::WrapToInt32(uint32_t(acc) + uint32_t(bias));
  return g.cmd.out_raw() ? x : golden::RequantizeAccumulator(x, ParamsOfColumn(g, col));
}

// ---- The test body
// --------------------------------------------------------------------------------------------

// Loads, runs and checks one command; returns the number of mismatches (details in `log`).
void RunGemm(TopBench& bench, const Gemm& g, MismatchLog& log) {
  const int R = bench.rows(), C = bench.cols();
  const Command& cmd = g.cmd;
  const Timing tm(R, C, cmd.M(), cmd.N(), cmd.K());
  const int M = int(cmd.M()), N = int(cmd.N()), K = int(cmd.K());
  const int MB = int(tm.MB()), NB = int(tm.NB());
  const std::string what = fmt::format("{}x{}x{} mode {:#x}", M, N, K, cmd.mode);

  // Operand panels (6.1); padding lanes get arbitrary bytes, which must not matter.
  std::mt19937 pad_rng(M * 131 + N * 17 + K);
  std::vector<uint8_t> a_words(size_t(MB) * K * R), b_words(size_t(NB) * K * C);
  for (int mb = 0; mb < MB; ++mb)
    for (int k = 0; k < K; ++k)
      for (int r = 0; r < R; ++r) {
        const int m = mb * R + r;
        a_words[(size_t(mb) * K + k) * R + r] = m < M ? g.a[size_t(m) * K + k] : uint8_t(pad_rng());
      }
  for (int nb = 0; nb < NB; ++nb)
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < C; ++c) {
        const int n = nb * C + c;
        b_words[(size_t(nb) * K + k) * C + c] = n < N ? g.b[size_t(k) * N + n] : uint8_t(pad_rng());
      }
  bench.LoadBytes(arch::kABase, cmd.a_base * R, a_words);
  bench.LoadBytes(arch::kBBase, cmd.b_base * C, b_words);
  if (cmd.bias_en()) {
    for (int n = 0; n < NB * C; ++n) {
      bench.WriteOk(arch::kBiasBase + (cmd.bias_base * C + n) * 4, uint32_t(g.bias[size_t(n)]));
    }
  }
  if (cmd.per_channel()) {
    for (int n = 0; n < NB * C; ++n) {
      const uint32_t off = (cmd.rq_base * C + n) * 8;
      bench.WriteOk(arch::kRqBase + off, uint32_t(g.mult[size_t(n)]));
      bench.WriteOk(arch::kRqBase + off + 4, uint32_t(g.shift[size_t(n)]) & 0x3F);
    }
  }
  bench.ProgramCommand(cmd);
  ASSERT_EQ(arch::ValidateCommand(Config(), cmd), ErrCode::kNone) << what;
  const uint64_t t0 = bench.Start();
  ASSERT_TRUE(bench.WaitDone(uint64_t(tm.E()) + 100)) << what << ": no DONE";

  // Expected beats, keyed by command cycle.
  const Matrix<int32_t> acc = GoldenGemm(g, false);
  std::map<int64_t, std::pair<int, int>> mac_due, rq_due, wr_due;  // cycle -> (tile, row)
  for (int64_t t = 0; t < tm.T(); ++t) {
    for (int i = 0; i < R; ++i) {
      mac_due[tm.O(t, i)] = {int(t), i};
      rq_due[tm.Q(t, i)] = {int(t), i};
      if (i < tm.MValid(tm.TileMb(t))) wr_due[tm.W(t, i)] = {int(t), i};
    }
  }
  auto acc_of = [&](int t, int i, int c) -> int32_t {
    const int m = int(tm.TileMb(t)) * R + i, n = int(tm.TileNb(t)) * C + c;
    return (m < M && n < N) ? acc.at(m, n) : 0;
  };
  auto check_beats = [&](const std::vector<TopBench::MacBeat>& beats,
                         std::map<int64_t, std::pair<int, int>>& due, const char* unit,
                         bool requant) {
    for (const auto& beat : beats) {
      const int64_t cyc = int64_t(beat.cycle - t0);
      const auto it = due.find(cyc);
      if (it == due.end()) {
        log.Add(
            fmt::format("{}: {} beat at unexpected cycle {} (row {})", what, unit, cyc, beat.row));
        continue;
      }
      const auto [t, i] = it->second;
      due.erase(it);
      if (beat.row != i || beat.last != (i == R - 1)) {
        log.Add(fmt::format("{}: {} cycle {} tile {}: row {} last {}, expected row {}", what, unit,
                            cyc, t, beat.row, beat.last, i));
      }
      for (int c = 0; c < C; ++c) {
        const int32_t a = acc_of(t, i, c);
        const int32_t expected = requant ? LaneOutput(g, int(tm.TileNb(t)) * C + c, a) : a;
        if (beat.lanes[size_t(c)] != expected) {
          log.Add(fmt::format("{}: {} cycle {} tile {} row {} lane {}: expected {}, got {}", what,
                              unit, cyc, t, i, c, expected, beat.lanes[size_t(c)]));
        }
      }
    }
    for (const auto& [cyc, tr] : due) {
      log.Add(fmt::format("{}: {} beat tile {} row {} due at cycle {} missing", what, unit,
                          tr.first, tr.second, cyc));
    }
  };
  check_beats(bench.mac_beats(), mac_due, "mac", false);
  check_beats(bench.rq_beats(), rq_due, "requant", true);

  // Output SRAM writes: cycle, address, byte enables and enabled bytes.
  for (const auto& w : bench.writes()) {
    const int64_t cyc = int64_t(w.cycle - t0);
    const auto it = wr_due.find(cyc);
    if (it == wr_due.end()) {
      log.Add(fmt::format("{}: out write at unexpected cycle {} (addr {})", what, cyc, w.addr));
      continue;
    }
    const auto [t, i] = it->second;
    wr_due.erase(it);
    const int64_t e = arch::OutEntry(t, i, R);
    const int64_t addr = arch::OutWordAddr(cmd.out_base, e, cmd.out_raw());
    if (w.addr != addr)
      log.Add(fmt::format("{}: write cycle {}: addr {}, expected {}", what, cyc, w.addr, addr));
    std::vector<bool> be(size_t(4 * C), false);
    std::vector<uint8_t> data(size_t(4 * C), 0);
    for (int c = 0; c < tm.NValid(tm.TileNb(t)); ++c) {
      const uint32_t y = uint32_t(LaneOutput(g, int(tm.TileNb(t)) * C + c, acc_of(t, i, c)));
      const int64_t byte = arch::OutByteInWord(e, c, C, cmd.out_raw());
      for (int j = 0; j < (cmd.out_raw() ? 4 : 1); ++j) {
        be[size_t(byte + j)] = true;
        data[size_t(byte + j)] = uint8_t(y >> (8 * j));
      }
    }
    for (int byte = 0; byte < 4 * C; ++byte) {
      if (w.be[size_t(byte)] != be[size_t(byte)] ||
          (be[size_t(byte)] && w.data[size_t(byte)] != data[size_t(byte)])) {
        log.Add(fmt::format(
            "{}: write cycle {} tile {} row {} byte {}: be {} data {}, expected be {} data {}",
            what, cyc, t, i, byte, bool(w.be[size_t(byte)]), w.data[size_t(byte)],
            bool(be[size_t(byte)]), data[size_t(byte)]));
        break;
      }
    }
  }
  for (const auto& [cyc, tr] : wr_due) {
    log.Add(fmt::format("{}: out write tile {} row {} due at cycle {} missing", what, tr.first,
                        tr.second, cyc));
  }

  // DONE, STATUS and perf counters.
  const int64_t done = int64_t(*bench.done_cycle() - t0);
  if (done != tm.E())
    log.Add(fmt::format("{}: DONE visible at cycle {}, expected E = {}", what, done, tm.E()));
  if (int64_t(bench.busy_cycles()) != tm.E()) {
    log.Add(fmt::format("{}: BUSY for {} cycles, expected {}", what, bench.busy_cycles(), tm.E()));
  }
  using namespace arch::reg;
  const uint32_t status = bench.ReadOk(kStatus);
  EXPECT_EQ(status, arch::kStatusDone) << what;
  EXPECT_EQ(bench.ReadOk(kPerfCycles), uint32_t(tm.E())) << what;
  EXPECT_EQ(bench.ReadOk(kPerfMacBusy), uint32_t(tm.MacBusy())) << what;
  EXPECT_EQ(bench.ReadOk(kPerfRqBusy), uint32_t(tm.RqBusy())) << what;
  EXPECT_EQ(bench.ReadOk(kPerfOutWrites), uint32_t(tm.OutWrites())) << what;
  EXPECT_EQ(bench.ReadOk(kPerfFeedStall), uint32_t(tm.FeedStall())) << what;

  // The output window against golden Gemm + requant, element by element (6.3).
  const Matrix<int32_t> with_bias = GoldenGemm(g, cmd.bias_en());
  std::map<uint32_t, uint32_t> words;  // host word address -> value
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      const int64_t e = arch::OutEntryOf(m, n, R, C, NB);
      const uint32_t byte = uint32_t(arch::OutWindowByte(cmd.out_base, e, n % C, C, cmd.out_raw()));
      const uint32_t host_word = byte & ~3u;
      auto it = words.find(host_word);
      if (it == words.end())
        it = words.emplace(host_word, bench.ReadOk(arch::kOutBase + host_word)).first;
      const int32_t x = with_bias.at(m, n);
      int64_t expected, got;
      if (cmd.out_raw()) {
        expected = x;
        got = int32_t(it->second);
      } else {
        expected = golden::RequantizeAccumulator(x, ParamsOfColumn(g, n)) & 0xFF;
        got = (it->second >> (8 * (byte & 3))) & 0xFF;
      }
      if (expected != got) {
        log.Add(fmt::format("{}: out[{}][{}] = {}, expected {}", what, m, n, got, expected));
      }
    }
  }
}

// A random legal command on the configured array. `shape` fixes M, N, K when nonzero.
Gemm RandomGemm(std::mt19937& rng, int M, int N, int K) {
  const auto& cfg = Config();
  auto uni = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  Gemm g;
  Command& c = g.cmd;
  c.m = uint32_t(M);
  c.n = uint32_t(N);
  c.k = uint32_t(K);
  const Timing tm(cfg.rows, cfg.cols, M, N, K);
  c.mode = 0;
  if (uni(0, 1)) c.mode |= arch::kModeRounding;
  if (uni(0, 1)) c.mode |= arch::kModePerChannel;
  if (uni(0, 3) == 0) c.mode |= arch::kModeOutRaw;
  if (uni(0, 2)) c.mode |= arch::kModeBiasEn;
  if (uni(0, 1)) c.mode |= arch::kModeAUnsigned;
  if (uni(0, 1)) c.mode |= arch::kModeBUnsigned;
  c.a_base = uint32_t(uni(0, cfg.a_depth - tm.MB() * K));
  c.b_base = uint32_t(uni(0, cfg.b_depth - tm.NB() * K));
  c.bias_base = uint32_t(uni(0, cfg.bias_depth - tm.NB()));
  c.rq_base = uint32_t(uni(0, cfg.rq_depth - tm.NB()));
  c.out_base = uint32_t(uni(0, cfg.out_depth - arch::OutWords(tm.T(), cfg.rows, c.out_raw())));
  c.zp_ab = arch::PackZpAb(int32_t(uni(0, 3) == 0 ? 0 : uni(-128, 255)),
                           int32_t(uni(0, 3) == 0 ? 0 : uni(-128, 255)));
  const bool uint8_out = uni(0, 1);
  c.zp_out = int32_t(uint8_out ? uni(0, 255) : uni(-128, 127));
  c.clamp_min = uint8_out ? 0 : -128;
  c.clamp_max = uint8_out ? 255 : 127;
  switch (uni(0, 3)) {
    case 0:  // ReLU: clamp at the zero point
      c.clamp_min = c.zp_out;
      break;
    case 1:  // a narrow random window (ReLU6-like)
      c.clamp_min = int32_t(uni(c.clamp_min, c.zp_out));
      c.clamp_max = int32_t(uni(c.clamp_min, c.clamp_max));
      break;
    default:
      break;
  }
  // Multipliers near the practical range: accumulators of K * 383^2 scaled to int8 need shifts
  // around -8..-20.
  auto mult = [&]() {
    return int32_t(uni(0, 15) == 0 ? 0 : uni(int64_t{1} << 30, (int64_t{1} << 31) - 1));
  };
  auto shift = [&]() { return int32_t(uni(0, 7) == 0 ? uni(-31, 30) : uni(-20, 1)); };
  c.mult = mult();
  c.shift = uint32_t(shift()) & 0x3F;
  const int padded = int(tm.NB()) * cfg.cols;
  for (int n = 0; n < padded; ++n) {
    g.bias.push_back(int32_t(uni(0, 7) == 0 ? uni(INT32_MIN, INT32_MAX) : uni(-100000, 100000)));
    g.mult.push_back(mult());
    g.shift.push_back(shift());
  }
  g.a.resize(size_t(M) * K);
  g.b.resize(size_t(K) * N);
  for (auto& v : g.a) v = uint8_t(uni(0, 255));
  for (auto& v : g.b) v = uint8_t(uni(0, 255));
  return g;
}

void ExpectClean(const MismatchLog& log) {
  EXPECT_EQ(log.count(), 0u) << "first mismatch: " << log.first();
}

TEST(Top, IdentificationRegisters) {
  TopBench bench;
  using namespace arch::reg;
  EXPECT_EQ(bench.ReadOk(kId), arch::kId);
  EXPECT_EQ(bench.ReadOk(kVersion), arch::kVersion);
  EXPECT_EQ(bench.ReadOk(kHwRows), uint32_t(Config().rows));
  EXPECT_EQ(bench.ReadOk(kHwCols), uint32_t(Config().cols));
  EXPECT_EQ(bench.ReadOk(kHwADepth), Config().a_depth);
  EXPECT_EQ(bench.ReadOk(kHwBDepth), Config().b_depth);
  EXPECT_EQ(bench.ReadOk(kHwBiasDepth), Config().bias_depth);
  EXPECT_EQ(bench.ReadOk(kHwRqDepth), Config().rq_depth);
  EXPECT_EQ(bench.ReadOk(kHwOutDepth), Config().out_depth);
  EXPECT_EQ(bench.ReadOk(kHwUnits), arch::kHwUnitsV1);
  EXPECT_EQ(bench.ReadOk(kHwLatency), arch::kHwLatencyV1);
  EXPECT_EQ(bench.ReadOk(kStatus), 0u);
  EXPECT_EQ(bench.ReadOk(kPerfCmdCount), 0u);
  // Fields keep only their bits; CMD_SHIFT and the zero points read back sign-extended / as stored.
  bench.WriteOk(kCmdM, 0xFFFF1234);
  EXPECT_EQ(bench.ReadOk(kCmdM), 0x1234u);
  bench.WriteOk(kCmdShift, 0x3E);
  EXPECT_EQ(bench.ReadOk(kCmdShift), 0xFFFFFFFEu);
  bench.WriteOk(kCmdMode, 0xFFFFFFFF);
  EXPECT_EQ(bench.ReadOk(kCmdMode), 0xF3Fu);
  bench.WriteOk(kCmdZpAb, 0xFFFFFFFF);
  EXPECT_EQ(bench.ReadOk(kCmdZpAb), 0x01FF01FFu);
  bench.WriteOk(kCmdOp, 0xFFFFFFFF);
  EXPECT_EQ(bench.ReadOk(kCmdOp), 0xFu);  // [3:0]
}

// Every register of the spec's table (model/arch_spec.h, generated from the same data as the RTL
// package): its value after reset, the read-only ones refuse writes, the RW ones store exactly
// their RW fields (CMD_SHIFT reads back sign-extended; CTRL is left out: bit 0 launches).
TEST(Top, EveryRegisterOfTheSpec) {
  TopBench bench;
  for (const arch::RegisterInfo& info : arch::kRegisters) {
    const uint32_t reset = info.reset_param == nullptr ? info.reset : bench.ReadOk(info.offset);
    EXPECT_EQ(bench.ReadOk(info.offset), reset) << info.name;
    if (info.access == arch::Access::kRO) {
      EXPECT_TRUE(bench.Write(info.offset, 0xFFFFFFFF).slverr) << info.name;
      EXPECT_EQ(bench.ReadOk(info.offset), reset) << info.name;
    } else if (info.access == arch::Access::kRW && info.offset != arch::reg::kCtrl) {
      bench.WriteOk(info.offset, 0xFFFFFFFF);
      const uint32_t ones = info.offset == arch::reg::kCmdShift ? 0xFFFFFFFF : info.rw_mask;
      EXPECT_EQ(bench.ReadOk(info.offset), ones) << info.name;
      bench.WriteOk(info.offset, 0);
      EXPECT_EQ(bench.ReadOk(info.offset), 0u) << info.name;
    }
  }
  EXPECT_EQ(bench.ReadOk(arch::reg::kHwRows), uint32_t(Config().rows));
}

// CMD_OP at its boundary: 0 (GEMM) runs, 1 and 15 are BAD_OPCODE (10) even with every other field
// illegal too (checked first), and a write of 0x10 keeps [3:0] = 0, a GEMM again.
TEST(Top, OpcodeBoundary) {
  TopBench bench;
  std::mt19937 rng(11);
  MismatchLog log;
  Gemm g = RandomGemm(rng, 5, 6, 7);
  g.cmd.op = 0;
  RunGemm(bench, g, log);
  ExpectClean(log);
  uint32_t count = 1;
  for (uint32_t op : {1u, 15u, 0x10u}) {
    Command cmd = g.cmd;
    cmd.op = op;
    cmd.m = 0;       // BAD_SHAPE
    cmd.shift = 31;  // BAD_REQUANT
    const ErrCode expected = op == 0x10 ? ErrCode::kBadShape : ErrCode::kBadOpcode;
    ASSERT_EQ(arch::ValidateCommand(Config(), cmd), expected) << op;  // the C++ mirror agrees
    bench.ProgramCommand(cmd);
    EXPECT_EQ(bench.ReadOk(arch::reg::kCmdOp), op & 0xF);
    bench.Start();
    ASSERT_TRUE(bench.WaitDone(10)) << op;
    EXPECT_EQ(*bench.done_cycle() - bench.launch(), uint64_t(arch::kErrorCycles)) << op;
    EXPECT_EQ(bench.ReadOk(arch::reg::kStatus), arch::kStatusDone | arch::kStatusError |
                                                    (uint32_t(expected) << arch::kStatusErrCodeLsb))
        << op;
    EXPECT_EQ(bench.ReadOk(arch::reg::kPerfCmdCount), ++count) << op;
  }
}

TEST(Top, SpecExampleOneTile) {
  // Spec 7: default 8x8, M = N = K = 8: MAC beats at 19..26, requant 23..30, writes 24..31, done
  // at 32.
  TopBench bench;
  std::mt19937 rng(1);
  const int r = Config().rows, c = Config().cols, k = 8;
  Gemm g = RandomGemm(rng, r, c, k);
  MismatchLog log;
  RunGemm(bench, g, log);
  ExpectClean(log);
  if (r == 8 && c == 8) {
    EXPECT_EQ(bench.mac_beats().front().cycle - bench.launch(), 19u);
    EXPECT_EQ(bench.rq_beats().back().cycle - bench.launch(), 30u);
    EXPECT_EQ(bench.writes().front().cycle - bench.launch(), 24u);
    EXPECT_EQ(*bench.done_cycle() - bench.launch(), 32u);
  }
}

TEST(Top, RandomShapes) {
  constexpr int kRandomCommands = 100;
  TopBench bench;  // one bench: commands back to back, as a driver would issue them
  std::mt19937 rng(2024);
  MismatchLog log;
  for (int i = 0; i < kRandomCommands; ++i) {
    std::uniform_int_distribution<int> dim(1, 70);
    Gemm g = RandomGemm(rng, dim(rng), dim(rng), dim(rng));
    RunGemm(bench, g, log);
  }
  ExpectClean(log);
  EXPECT_EQ(bench.ReadOk(arch::reg::kPerfCmdCount), uint32_t(kRandomCommands));
}

TEST(Top, EdgeShapes) {
  TopBench bench;
  std::mt19937 rng(7);
  MismatchLog log;
  const int r = Config().rows, c = Config().cols;
  const int shapes[][3] = {{1, 1, 1},
                           {1, 37, 20},
                           {45, 1, 9},
                           {33, 19, 1},
                           {r, c, 1},
                           {r + 1, c + 1, 2},
                           {2 * r, 3 * c, r - 1},
                           {r, c, 3 * std::max(r, c)}};
  for (const auto& s : shapes) {
    RunGemm(bench, RandomGemm(rng, s[0], s[1], s[2]), log);
  }
  ExpectClean(log);
}

TEST(Top, ModesExhaustive) {
  // Every combination of the six mode bits on one non-multiple shape.
  TopBench bench;
  std::mt19937 rng(99);
  MismatchLog log;
  for (uint32_t mode = 0; mode < 64; ++mode) {
    Gemm g = RandomGemm(rng, 13, 11, 10);
    g.cmd.mode = mode;
    RunGemm(bench, g, log);
  }
  ExpectClean(log);
}

TEST(Top, IrqAndStatusW1C) {
  TopBench bench;
  std::mt19937 rng(5);
  MismatchLog log;
  bench.SetIrqEnable(true);
  RunGemm(bench, RandomGemm(rng, 3, 5, 7), log);
  ExpectClean(log);
  EXPECT_TRUE(bench.irq());
  EXPECT_EQ(bench.ReadOk(arch::reg::kCtrl), arch::kCtrlIrqEn);
  bench.WriteOk(arch::reg::kStatus, arch::kStatusDone);
  EXPECT_EQ(bench.ReadOk(arch::reg::kStatus), 0u);
  bench.Idle(1);
  EXPECT_FALSE(bench.irq());
}

// Each validation error: ERR_CODE, DONE and ERROR at cycle 1, PERF_CYCLES = 1, no beat, no write.
TEST(Top, ValidationErrors) {
  TopBench bench;
  const auto& cfg = Config();
  Command ok;
  ok.m = 20;
  ok.n = 20;
  ok.k = 30;
  const Timing tm(cfg.rows, cfg.cols, 20, 20, 30);
  struct Case {
    ErrCode code;
    std::function<void(Command&)> change;
  };
  const std::vector<Case> cases = {
      {ErrCode::kBadShape, [](Command& c) { c.n = 0; }},
      {ErrCode::kARange, [&](Command& c) { c.a_base = uint32_t(cfg.a_depth - tm.MB() * 30 + 1); }},
      {ErrCode::kBRange, [&](Command& c) { c.b_base = uint32_t(cfg.b_depth - tm.NB() * 30 + 1); }},
      {ErrCode::kBiasRange,
       [&](Command& c) {
         c.bias_base = cfg.bias_depth - 1;
         c.mode = arch::kModeBiasEn;
       }},
      {ErrCode::kRqRange,
       [&](Command& c) {
         c.rq_base = cfg.rq_depth - 1;
         c.mode = arch::kModePerChannel;
       }},
      {ErrCode::kOutRange, [&](Command& c) { c.out_base = cfg.out_depth - 1; }},
      {ErrCode::kBadRequant, [](Command& c) { c.shift = 31; }},
      {ErrCode::kBadRequant, [](Command& c) { c.mult = 12345; }},
      {ErrCode::kBadRequant,
       [](Command& c) {
         c.clamp_min = 10;
         c.clamp_max = 9;
       }},
      {ErrCode::kBadRequant, [](Command& c) { c.clamp_min = -129; }},
      {ErrCode::kBadZp, [](Command& c) { c.zp_ab = arch::PackZpAb(-129, 0); }},
      {ErrCode::kBadZp, [](Command& c) { c.zp_ab = arch::PackZpAb(0, -256); }},
      {ErrCode::kUnitAbsent, [](Command& c) { c.mode = 1u << arch::kModeActLsb; }},
      {ErrCode::kBadOpcode, [](Command& c) { c.op = 1; }},
      {ErrCode::kBadOpcode, [](Command& c) { c.op = 15; }},
  };
  uint32_t count = 0;
  for (const auto& test : cases) {
    Command cmd = ok;
    test.change(cmd);
    const std::string what = arch::ErrCodeName(test.code);
    ASSERT_EQ(arch::ValidateCommand(cfg, cmd), test.code) << what;  // the C++ mirror agrees
    bench.ProgramCommand(cmd);
    bench.Start();
    ASSERT_TRUE(bench.WaitDone(10)) << what;
    EXPECT_EQ(*bench.done_cycle() - bench.launch(), uint64_t(arch::kErrorCycles)) << what;
    EXPECT_EQ(bench.busy_cycles(), 1u) << what;
    EXPECT_TRUE(bench.mac_beats().empty() && bench.rq_beats().empty() && bench.writes().empty())
        << what;
    const uint32_t status = bench.ReadOk(arch::reg::kStatus);
    EXPECT_EQ(status, arch::kStatusDone | arch::kStatusError |
                          (uint32_t(test.code) << arch::kStatusErrCodeLsb))
        << what;
    EXPECT_EQ(bench.ReadOk(arch::reg::kPerfCycles), 1u) << what;
    EXPECT_EQ(bench.ReadOk(arch::reg::kPerfCmdCount), ++count) << what;
    bench.WriteOk(arch::reg::kStatus, arch::kStatusError);  // W1C clears ERROR and ERR_CODE
    EXPECT_EQ(bench.ReadOk(arch::reg::kStatus), arch::kStatusDone) << what;
  }
}

TEST(Top, BusErrorsAndWaitStates) {
  TopBench bench;
  const auto& cfg = Config();
  using namespace arch::reg;
  // Wait states: registers and window writes 0, window reads 1.
  EXPECT_EQ(bench.Read(kId).access_cycles, 1);
  EXPECT_EQ(bench.Write(arch::kABase, 0x04030201).access_cycles, 1);
  const ApbResult a = bench.Read(arch::kABase);
  EXPECT_EQ(a.access_cycles, 2);
  EXPECT_EQ(a.rdata, 0x04030201u);
  EXPECT_FALSE(a.slverr);
  // pstrb selects bytes.
  EXPECT_FALSE(bench.Write(arch::kABase, 0xAABBCCDD, 0x5).slverr);
  EXPECT_EQ(bench.Read(arch::kABase).rdata, 0x04BB02DDu);
  // rq shift word: 6 bits, read back sign-extended.
  bench.WriteOk(arch::kRqBase + 4, 0x3F);
  EXPECT_EQ(bench.Read(arch::kRqBase + 4).rdata, 0xFFFFFFFFu);
  // Reserved offsets read 0 and ignore writes, without error.
  for (uint32_t off : {0x02Cu, 0x0C0u, 0x120u, 0x200u, 0x3FCu}) {
    const ApbResult r = bench.Read(off);
    EXPECT_FALSE(r.slverr) << off;
    EXPECT_EQ(r.rdata, 0u) << off;
    EXPECT_FALSE(bench.Write(off, 1).slverr) << off;
  }
  EXPECT_EQ(bench.ReadOk(kPerfLutBusy), 0u);
  // pslverr: unmapped, beyond depth, read-only registers.
  const uint32_t bad_reads[] = {0x400u,
                                0x0F0000u,
                                arch::kLutBase,
                                arch::kSmxBase,
                                0x800000u,
                                0xF00000u,
                                arch::kABase + cfg.a_depth * uint32_t(cfg.rows),
                                arch::kOutBase + cfg.out_depth * 4u * uint32_t(cfg.cols)};
  for (uint32_t addr : bad_reads) {
    const ApbResult r = bench.Read(addr);
    EXPECT_TRUE(r.slverr) << std::hex << addr;
    EXPECT_EQ(r.rdata, 0u) << std::hex << addr;
    EXPECT_TRUE(bench.Write(addr, 1).slverr) << std::hex << addr;
  }
  for (uint32_t reg : {kId, kVersion, kHwRows, kHwLatency, kPerfCycles, kPerfCmdCount}) {
    EXPECT_TRUE(bench.Write(reg, 0).slverr) << std::hex << reg;
  }
  EXPECT_EQ(bench.ReadOk(kId), arch::kId);
  // While BUSY: window accesses, CMD_* and CTRL writes fail; reads of registers and STATUS writes
  // do not.
  std::mt19937 rng(3);
  Gemm g = RandomGemm(rng, 64, 64, 64);
  g.cmd.mode = 0;
  g.cmd.a_base = g.cmd.b_base = g.cmd.out_base = 0;
  bench.ProgramCommand(g.cmd);
  bench.WriteOk(kCmdShift, 0);
  bench.Start();
  EXPECT_EQ(bench.ReadOk(kStatus) & arch::kStatusBusy, arch::kStatusBusy);
  EXPECT_TRUE(bench.Read(arch::kABase).slverr);
  EXPECT_TRUE(bench.Write(arch::kOutBase, 1).slverr);
  for (const arch::RegisterInfo& info : arch::kRegisters) {  // CTRL and every CMD_*
    if (info.busy_locked) {
      EXPECT_TRUE(bench.Write(info.offset, 5).slverr) << info.name;
    }
  }
  EXPECT_FALSE(bench.Write(kStatus, 0).slverr);
  EXPECT_EQ(bench.ReadOk(kCmdM), 64u);  // the rejected write had no effect
  ASSERT_TRUE(bench.WaitDone(100000));
  EXPECT_EQ(*bench.done_cycle() - bench.launch(),
            uint64_t(Timing(cfg.rows, cfg.cols, 64, 64, 64).E()));
  EXPECT_FALSE(bench.Read(arch::kABase).slverr);
}

}  // namespace
}  // namespace qacc
