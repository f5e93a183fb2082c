// qacc_top (Verilated, one build per configs/*.json) driven through its APB port like a host
// driver, with directed stimulus: operands packed into the SRAM windows (spec 6.1), commands
// launched back to back, registers and windows accessed at chosen times. The checks go through the
// co-simulation's own comparison code (sim/cosim/scoreboard.h), against the model's register side
// (AccelState, fed the same transfers) and the closed-form beats of each command (BeatPredictor):
//   * every cycle: MAC input and output beats, requant beats, output SRAM writes (every lane, every
//     byte enable), DONE, BUSY and irq_o;
//   * every bus transfer: completion cycle (wait states), pslverr and read data;
//   * every output element read back vs golden (model::GoldenOutput: golden Gemm + requant).
// On top, directed expectations from the spec: register values, error codes, the spec example.
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

#include QACC_VL_TOP_H  // the Verilated qacc_top of this config (tests/rtl/CMakeLists.txt)
#include "golden/gemm.h"
#include "golden/requant.h"
#include "model/accel_state.h"
#include "model/arch.h"
#include "model/beat_predictor.h"
#include "model/command.h"
#include "model/gemm_job.h"
#include "sim/build_paths.h"
#include "sim/cosim/monitor_sample.h"
#include "sim/cosim/scoreboard.h"
#include "verilated.h"

namespace qacc {
namespace {

using arch::Command;
using arch::ErrCode;
using arch::Timing;

const arch::ArchConfig& Config() {
  static const arch::ArchConfig config = arch::LoadArchConfig(std::string(QACC_SOURCE_DIR) + "/configs/" QACC_CFG_NAME ".json");
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

// The Verilated accelerator and an APB master; each cycle's outputs and each transfer's response
// go to the co-simulation scoreboard, against AccelState (fed the same transfers) and the
// closed-form beats of each launched command.
class TopBench {
 public:
  TopBench()
      : context_(std::make_unique<VerilatedContext>()), model_(Config()), scoreboard_(Config()) {
    top_ = std::make_unique<QACC_VL_TOP>(context_.get());
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

  // One APB transfer: setup phase, then access phase until pready; then the model's response to
  // the same transfer is compared.
  ApbResult Transfer(bool write, uint32_t addr, uint32_t wdata, uint32_t strb = 0xF) {
    const uint64_t setup = cycle_;
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

    const int64_t complete = int64_t(last_transfer_end_);
    model::BusResponse expected;
    if (write) {
      expected.status = model_.Write(addr, wdata, uint8_t(strb), complete);
    } else {
      expected = model_.Read(addr, complete);
    }
    scoreboard_.CheckBusResponse(
        fmt::format("{} {:#x}", write ? "write to" : "read of", addr), !write, complete,
        result.slverr, result.rdata,
        int64_t(setup) + model::AccelState::TransferCycles(addr, !write) - 1, expected.status,
        expected.data);
    const auto& launch = model_.last_launch();
    if (write && launch && launch->launch_cycle == complete + 1) {
      predictor_ = std::make_unique<model::BeatPredictor>(model_.MakePredictor());
      scoreboard_.SetCommand(predictor_.get(), commands_++);
    }
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
    for (const model::BusWrite& write : model::CommandWrites(c)) WriteOk(write.addr, write.data);
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

  // Cycles of the RTL's beats since the last Start (the scoreboard checks their content).
  const std::vector<uint64_t>& mac_beats() const { return mac_beats_; }
  const std::vector<uint64_t>& rq_beats() const { return rq_beats_; }
  const std::vector<uint64_t>& writes() const { return writes_; }
  std::optional<uint64_t> done_cycle() const { return done_cycle_; }
  uint64_t launch() const { return launch_; }
  uint64_t cycle() const { return cycle_; }
  uint64_t busy_cycles() const { return busy_cycles_; }
  bool irq() const { return top_->irq_o; }
  cosim::Scoreboard& scoreboard() { return scoreboard_; }
  int last_command() const { return commands_ - 1; }

 private:
  void ClearBeats() {
    mac_beats_.clear();
    rq_beats_.clear();
    writes_.clear();
    done_cycle_.reset();
    busy_cycles_ = 0;
  }

  // Evaluates cycle_ with the current inputs, samples and checks the outputs, then the rising
  // edge. Returns pready of this cycle.
  bool Step() {
    top_->clk_i = 0;
    top_->eval();
    cosim::SampleOutputs(*top_, rows(), cols(), sample_);
    last_prdata_ = sample_.prdata;
    last_pslverr_ = sample_.pslverr;
    const int64_t cycle = int64_t(cycle_);
    scoreboard_.Check(cycle, sample_);
    scoreboard_.CheckStatus(cycle, sample_, model_.Busy(cycle), model_.Irq(cycle));
    if (sample_.beats[size_t(arch::BeatUnit::kMac)].valid) mac_beats_.push_back(cycle_);
    if (sample_.beats[size_t(arch::BeatUnit::kRequant)].valid) rq_beats_.push_back(cycle_);
    if (sample_.out_we) writes_.push_back(cycle_);
    if (sample_.done && !done_cycle_ && launch_ != 0 && cycle_ >= launch_) done_cycle_ = cycle_;
    if (sample_.busy) ++busy_cycles_;
    top_->clk_i = 1;
    top_->eval();
    ++cycle_;
    return sample_.pready;
  }

  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<QACC_VL_TOP> top_;
  model::AccelState model_;
  cosim::Scoreboard scoreboard_;
  std::unique_ptr<model::BeatPredictor> predictor_;
  cosim::RtlSample sample_;
  int commands_ = 0;
  uint64_t cycle_ = 0;
  uint64_t launch_ = 0;
  uint32_t ctrl_irq_en_ = 0;
  uint64_t last_transfer_end_ = 0;
  uint32_t last_prdata_ = 0;
  bool last_pslverr_ = false;
  uint64_t busy_cycles_ = 0;
  std::vector<uint64_t> mac_beats_, rq_beats_, writes_;
  std::optional<uint64_t> done_cycle_;
};

// The job of a (legal) test command, for golden (GoldenOutput) and the output comparison: the
// fields as the model decodes them, the operands and the first N bias / rq values.
model::GemmJob JobOf(const Gemm& g) {
  const model::DecodedCommand cmd = model::DecodeCommand(Config(), g.cmd).command;
  model::GemmJob job;
  job.m = int(cmd.timing.m);
  job.n = int(cmd.timing.n);
  job.k = int(cmd.timing.k);
  job.a_unsigned = cmd.a_unsigned;
  job.b_unsigned = cmd.b_unsigned;
  job.a = g.a;
  job.b = g.b;
  job.a_zp = cmd.a_zp;
  job.b_zp = cmd.b_zp;
  if (cmd.bias_en) job.bias.assign(g.bias.begin(), g.bias.begin() + job.n);
  job.out_raw = cmd.out_raw;
  job.per_channel = cmd.per_channel;
  job.requant = cmd.requant;
  if (cmd.per_channel) {
    job.channel_mult.assign(g.mult.begin(), g.mult.begin() + job.n);
    job.channel_shift.assign(g.shift.begin(), g.shift.begin() + job.n);
  }
  job.out_base = cmd.out_base;
  return job;
}

// ---- The test body ------------------------------------------------------------------------------

// Loads, runs and reads back one command; the bench's scoreboard records any mismatch.
void RunGemm(TopBench& bench, const Gemm& g) {
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
      bench.WriteOk(arch::kRqBase + off + 4, uint32_t(g.shift[size_t(n)]) & 0xFF);
    }
  }
  bench.ProgramCommand(cmd);
  ASSERT_EQ(arch::ValidateCommand(Config(), cmd), ErrCode::kNone) << what;
  bench.Start();
  ASSERT_TRUE(bench.WaitDone(uint64_t(tm.E()) + 100)) << what << ": no DONE";
  // The scoreboard checked every beat and DONE (and did predict them); the spec's closed forms once
  // more, directly.
  for (cosim::CheckUnit unit : {cosim::CheckUnit::kMacIn, cosim::CheckUnit::kMac,
                                cosim::CheckUnit::kRequant, cosim::CheckUnit::kOutWrite}) {
    EXPECT_GT(bench.scoreboard().predicted(unit), 0) << cosim::CheckUnitName(unit);
  }
  EXPECT_EQ(int64_t(*bench.done_cycle() - bench.launch()), tm.E()) << what;
  EXPECT_EQ(int64_t(bench.busy_cycles()), tm.E()) << what;
  using namespace arch::reg;
  EXPECT_EQ(bench.ReadOk(kStatus), arch::kStatusDone) << what;
  EXPECT_EQ(bench.ReadOk(kPerfCycles), uint32_t(tm.E())) << what;
  EXPECT_EQ(bench.ReadOk(kPerfMacBusy), uint32_t(tm.Busy(arch::BeatUnit::kMac))) << what;
  EXPECT_EQ(bench.ReadOk(kPerfRqBusy), uint32_t(tm.Busy(arch::BeatUnit::kRequant))) << what;
  EXPECT_EQ(bench.ReadOk(kPerfOutWrites), uint32_t(tm.OutWrites())) << what;
  EXPECT_EQ(bench.ReadOk(kPerfFeedStall), uint32_t(tm.FeedStall())) << what;

  // The output window, read back word by word where the result lies, against golden (6.3).
  const model::GemmJob job = JobOf(g);
  std::vector<uint8_t> image(size_t(Config().out_depth) * Config().out_word_bytes());
  std::map<uint32_t, uint64_t> read_cycle;  // window byte of a word -> cycle it was read in
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      const int64_t e = arch::OutEntryOf(m, n, R, C, NB);
      const uint32_t word =
          uint32_t(arch::OutWindowByte(cmd.out_base, e, n % C, C, cmd.out_raw())) & ~3u;
      if (read_cycle.count(word)) continue;
      const uint32_t data = bench.ReadOk(arch::kOutBase + word);
      read_cycle[word] = bench.cycle() - 1;
      for (int b = 0; b < 4; ++b) image[word + uint32_t(b)] = uint8_t(data >> (8 * b));
    }
  }
  cosim::CompareOutputs(
      Config(), job, model::GoldenOutput(job), image, "output",
      [&](int64_t byte) { return int64_t(read_cycle[uint32_t(byte) & ~3u]); },
      bench.last_command(), bench.scoreboard());
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
  c.shift = uint32_t(shift()) & 0xFF;
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

// No mismatch recorded by the bench's scoreboard (the first one is printed).
void ExpectClean(TopBench& bench) {
  const cosim::Scoreboard& scoreboard = bench.scoreboard();
  if (scoreboard.total() == 0) return;
  const cosim::Mismatch& m = *scoreboard.first();
  ADD_FAILURE() << scoreboard.total() << " mismatches; first: cycle " << m.cycle << ", unit "
                << m.unit << ", command " << m.command << ", tile " << m.tile << " row "
                << m.tile_row << " lane " << m.lane << ": " << m.what << ": expected "
                << m.expected << ", actual " << m.actual;
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
  bench.WriteOk(kCmdShift, 0x1FE);
  EXPECT_EQ(bench.ReadOk(kCmdShift), 0xFFFFFFFEu);
  bench.WriteOk(kCmdShift, 0x13E);
  EXPECT_EQ(bench.ReadOk(kCmdShift), 0x3Eu);  // 8 bits since version 2.1
  bench.WriteOk(kCmdMode, 0xFFFFFFFF);
  EXPECT_EQ(bench.ReadOk(kCmdMode), 0x3FFFFFFFu);
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
  Gemm g = RandomGemm(rng, 5, 6, 7);
  g.cmd.op = 0;
  RunGemm(bench, g);
  ExpectClean(bench);
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
  RunGemm(bench, g);
  ExpectClean(bench);
  if (r == 8 && c == 8) {
    EXPECT_EQ(bench.mac_beats().front() - bench.launch(), 19u);
    EXPECT_EQ(bench.rq_beats().back() - bench.launch(), 30u);
    EXPECT_EQ(bench.writes().front() - bench.launch(), 24u);
    EXPECT_EQ(*bench.done_cycle() - bench.launch(), 32u);
  }
}

TEST(Top, RandomShapes) {
  constexpr int kRandomCommands = 100;
  TopBench bench;  // one bench: commands back to back, as a driver would issue them
  std::mt19937 rng(2024);
  for (int i = 0; i < kRandomCommands; ++i) {
    std::uniform_int_distribution<int> dim(1, 70);
    Gemm g = RandomGemm(rng, dim(rng), dim(rng), dim(rng));
    RunGemm(bench, g);
  }
  ExpectClean(bench);
  EXPECT_EQ(bench.ReadOk(arch::reg::kPerfCmdCount), uint32_t(kRandomCommands));
}

TEST(Top, EdgeShapes) {
  TopBench bench;
  std::mt19937 rng(7);
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
    RunGemm(bench, RandomGemm(rng, s[0], s[1], s[2]));
  }
  ExpectClean(bench);
}

TEST(Top, ModesExhaustive) {
  // Every combination of the six mode bits on one non-multiple shape.
  TopBench bench;
  std::mt19937 rng(99);
  for (uint32_t mode = 0; mode < 64; ++mode) {
    Gemm g = RandomGemm(rng, 13, 11, 10);
    g.cmd.mode = mode;
    RunGemm(bench, g);
  }
  ExpectClean(bench);
}

TEST(Top, IrqAndStatusW1C) {
  TopBench bench;
  std::mt19937 rng(5);
  bench.SetIrqEnable(true);
  RunGemm(bench, RandomGemm(rng, 3, 5, 7));
  ExpectClean(bench);
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
      {ErrCode::kUnitAbsent, [](Command& c) { c.mode = 2u << arch::kModeActLsb; }},
      {ErrCode::kLutSlot,
       [&](Command& c) {
         c.mode = 1u << arch::kModeActLsb | uint32_t(cfg.lut_slots) << arch::kModeLutSlotLsb |
                  8u << arch::kModeLutInBitsLsb | 8u << arch::kModeLutEntryBitsLsb;
       }},
      {ErrCode::kLutInBits,
       [](Command& c) {
         c.mode = 1u << arch::kModeActLsb | 9u << arch::kModeLutInBitsLsb |
                  16u << arch::kModeLutEntryBitsLsb;
       }},
      {ErrCode::kLutEntryBits,
       [](Command& c) {
         c.mode = 1u << arch::kModeActLsb | 2u << arch::kModeLutInBitsLsb |
                  9u << arch::kModeLutEntryBitsLsb;
       }},
      {ErrCode::kBadShape,
       [](Command& c) {
         c.mode = 1u << arch::kModeActLsb | arch::kModeOutRaw | 8u << arch::kModeLutInBitsLsb |
                  8u << arch::kModeLutEntryBitsLsb;
       }},
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
  // rq shift word: 8 bits, read back sign-extended.
  bench.WriteOk(arch::kRqBase + 4, 0x1FF);
  EXPECT_EQ(bench.Read(arch::kRqBase + 4).rdata, 0xFFFFFFFFu);
  bench.WriteOk(arch::kRqBase + 4, 0x13F);
  EXPECT_EQ(bench.Read(arch::kRqBase + 4).rdata, 0x3Fu);
  // Reserved offsets, block 2's offsets past the slope registers and the blocks of absent units
  // read 0 and ignore writes, without error.
  for (uint32_t off :
       {0x030u, 0x0C0u, 0x140u, 0x1FCu, 0x228u, 0x2FCu, 0x3FCu, 0x400u, 0x800u, 0xFFCu}) {
    const ApbResult r = bench.Read(off);
    EXPECT_FALSE(r.slverr) << off;
    EXPECT_EQ(r.rdata, 0u) << off;
    EXPECT_FALSE(bench.Write(off, 1).slverr) << off;
  }
  EXPECT_EQ(bench.ReadOk(kPerfLutBusy), 0u);
  // pslverr: unmapped, beyond depth, read-only registers.
  const uint32_t bad_reads[] = {0x1000u,
                                0x0F0000u,
                                arch::kLutBase + 32u * 16u * uint32_t(cfg.lut_slots),
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
