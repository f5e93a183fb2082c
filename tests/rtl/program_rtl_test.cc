// qacc_top running programs (docs/data_movement.md 11-17), Verilated once per configs/*.json, its
// memory port bridged to the testbench memory (model/ext_memory.h through sim/cosim/axi_bridge.h).
// Each test puts a program and its tensors into the external memory and the SRAMs (backdoor), sets
// Q_BASE / Q_COUNT, writes CTRL.RUN, runs until DONE and compares with the golden executor
// (golden::RunQueue) on the same initial state:
//   * every SRAM whole (backdoor) and the whole external memory image, byte for byte (not after an
//     EXT_FAULT, whose memories depend on timing: 14.3);
//   * STATUS (ERROR, ERR_CODE), Q_ERR_INDEX and Q_RETIRED through the bus;
//   * no AXI rule broken (ExtMemory::violation), the queue monitor's retirements = Q_RETIRED.
// Programs: compiled GEMM chains (compiler), random race-free LOAD / STORE / MOVE / GEMM
// programs over every SRAM (sim/testgen/random_program.h, seeded sim::Rng), and directed ones for
// errors, tokens and hand-derived cycles (17).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include QACC_VL_TOP_H  // the Verilated qacc_top of this config (tests/rtl/CMakeLists.txt)
#include QACC_VL_TOP_ROOT_H
#include "compiler/compiler.h"
#include "compiler/ext_image.h"
#include "compiler/network.h"
#include "compiler/reference.h"
#include "golden/program.h"
#include "model/arch.h"
#include "model/ext_memory.h"
#include "sim/build_paths.h"
#include "sim/cosim/axi_bridge.h"
#include "sim/cosim/monitor_sample.h"
#include "sim/testgen/random_program.h"
#include "sim/testgen/rng.h"
#include "verilated.h"

namespace qacc {
namespace {

using golden::Descriptor;
using golden::Header;
using golden::MachineState;
using golden::Op;
using golden::ProgramError;
using golden::Sram;

const arch::ArchConfig& Config() {
  static const arch::ArchConfig config = arch::LoadArchConfig(std::string(QACC_SOURCE_DIR) + "/configs/" QACC_CFG_NAME ".json");
  return config;
}

golden::AccelGeometry Geometry() { return compiler::GeometryOf(Config()); }

// ---- Backdoor access to the SRAM arrays (Verilator: words of up to 64 bits are integers, wider
// ones VlWide of 32-bit words)

template <typename Word>
uint32_t WordPart(const Word& w, int i) {
  return cosim::PortWord(w, i);
}
template <typename Word>
void SetWordPart(Word& w, int i, uint32_t v) {
  if constexpr (std::is_integral_v<Word>) {
    uint64_t x = static_cast<uint64_t>(w);
    x &= ~(uint64_t{0xFFFFFFFF} << (32 * i));
    x |= uint64_t{v} << (32 * i);
    w = static_cast<Word>(x);
  } else {
    w[static_cast<size_t>(i)] = v;
  }
}

template <typename Array>
void ReadArray(const Array& mem, std::vector<uint8_t>& image) {
  const size_t depth = sizeof(mem) / sizeof(mem[0]);
  const size_t word_bytes = image.size() / depth;
  for (size_t w = 0; w < depth; ++w) {
    for (size_t j = 0; j < word_bytes; j += 4) {
      const uint32_t v = WordPart(mem[w], int(j / 4));
      for (size_t b = 0; b < 4; ++b) image[w * word_bytes + j + b] = uint8_t(v >> (8 * b));
    }
  }
}

template <typename Array>
void WriteArray(Array& mem, const std::vector<uint8_t>& image) {
  const size_t depth = sizeof(mem) / sizeof(mem[0]);
  const size_t word_bytes = image.size() / depth;
  for (size_t w = 0; w < depth; ++w) {
    for (size_t j = 0; j < word_bytes; j += 4) {
      uint32_t v = 0;
      for (size_t b = 0; b < 4; ++b) v |= uint32_t{image[w * word_bytes + j + b]} << (8 * b);
      SetWordPart(mem[w], int(j / 4), v);
    }
  }
}

struct ExtSettings {
  uint64_t size = uint64_t{1} << 20;
  int latency = 20;
  int interval = 1;
};

// What a program run reports through the bus and the monitors.
struct RunReport {
  uint32_t status = 0, retired = 0, err_index = 0, tokens = 0, perf_cycles = 0;
  uint64_t done_cycle = 0;  // program cycle at which DONE is first visible
  int retire_pulses = 0;    // retirements seen on mon_q_o
  std::vector<uint64_t> dma_retire_cycles, cmp_retire_cycles, dma_start_cycles,
      cmp_start_cycles;  // program cycles
  uint32_t err_code() const {
    return (status & arch::kStatusErrCodeMask) >> arch::kStatusErrCodeLsb;
  }
};

// The Verilated accelerator with its memory; APB driven directly.
class ProgramBench {
 public:
  explicit ProgramBench(const ExtSettings& ext = {})
      : context_(std::make_unique<VerilatedContext>()),
        memory_(ext.size,
                model::ExtMemoryTiming{Config().mem_data_bytes, ext.latency, ext.interval}),
        bridge_(memory_, Config().mem_data_bytes) {
    top_ = std::make_unique<QACC_VL_TOP>(context_.get());
    top_->rst_ni = 0;
    top_->apb_psel_i = 0;
    top_->apb_penable_i = 0;
    Step();
    Step();
    top_->rst_ni = 1;
    Step();
  }
  ~ProgramBench() { top_->final(); }

  model::ExtMemory& memory() { return memory_; }

  // The SRAMs and the external memory of `state`.
  void Load(const MachineState& state) {
    auto& root = *top_->rootp;
    WriteArray(root.qacc_top__DOT__u_a_sram__DOT__u_sram__DOT__mem_q, state.a);
    WriteArray(root.qacc_top__DOT__u_b_sram__DOT__u_sram__DOT__mem_q, state.b);
    WriteArray(root.qacc_top__DOT__u_bias_sram__DOT__u_sram__DOT__mem_q, state.bias);
    WriteArray(root.qacc_top__DOT__u_rq_sram__DOT__u_sram__DOT__mem_q, state.rq);
    WriteArray(root.qacc_top__DOT__u_out_sram__DOT__u_sram__DOT__mem_q, state.out);
    for (auto& copy : root.qacc_top__DOT__u_lut_sram__DOT__mem_q.m_storage)
      WriteArray(copy, state.lut);
    ASSERT_EQ(state.ext.size(), memory_.image().size());
    memory_.image() = state.ext;
  }

  // The RTL's SRAMs and external memory as a MachineState.
  MachineState Snapshot() const {
    MachineState s(Geometry(), 0);
    const auto& root = *top_->rootp;
    ReadArray(root.qacc_top__DOT__u_a_sram__DOT__u_sram__DOT__mem_q, s.a);
    ReadArray(root.qacc_top__DOT__u_b_sram__DOT__u_sram__DOT__mem_q, s.b);
    ReadArray(root.qacc_top__DOT__u_bias_sram__DOT__u_sram__DOT__mem_q, s.bias);
    ReadArray(root.qacc_top__DOT__u_rq_sram__DOT__u_sram__DOT__mem_q, s.rq);
    ReadArray(root.qacc_top__DOT__u_out_sram__DOT__u_sram__DOT__mem_q, s.out);
    // The LUT table's copies (lut.md 10.2) all hold the window's image: a copy that differs from
    // copy 0 is a mismatch of the LUT table.
    ReadArray(root.qacc_top__DOT__u_lut_sram__DOT__mem_q[0], s.lut);
    std::vector<uint8_t> copy(s.lut.size());
    for (const auto& k : root.qacc_top__DOT__u_lut_sram__DOT__mem_q.m_storage) {
      ReadArray(k, copy);
      EXPECT_TRUE(copy == s.lut) << "a LUT table copy differs from copy 0";
    }
    s.ext = memory_.image();
    return s;
  }

  // One APB transfer; returns (rdata, slverr).
  std::pair<uint32_t, bool> Transfer(bool write, uint32_t addr, uint32_t wdata) {
    top_->apb_psel_i = 1;
    top_->apb_penable_i = 0;
    top_->apb_pwrite_i = write;
    top_->apb_paddr_i = addr;
    top_->apb_pwdata_i = write ? wdata : 0;
    top_->apb_pstrb_i = 0xF;
    Step();
    top_->apb_penable_i = 1;
    for (int i = 0; i < 4 && !Step(); ++i) {
    }
    top_->apb_psel_i = 0;
    top_->apb_penable_i = 0;
    return {sample_.prdata, sample_.pslverr};
  }
  uint32_t Read(uint32_t addr) { return Transfer(false, arch::kRegsBase + addr, 0).first; }
  bool Write(uint32_t addr, uint32_t data) {
    return !Transfer(true, arch::kRegsBase + addr, data).second;
  }

  // Q_BASE, Q_COUNT, CTRL.RUN; steps until DONE (at most `limit` cycles). Program cycle 0 is the
  // cycle after the RUN write's access phase.
  RunReport Run(uint32_t q_base, uint32_t count, uint64_t limit = 4'000'000) {
    EXPECT_TRUE(Write(arch::reg::kQBase, q_base));
    EXPECT_TRUE(Write(arch::reg::kQCount, count));
    EXPECT_TRUE(Write(arch::reg::kCtrl, arch::kCtrlRun));
    launch_ = cycle_;
    RunReport report;
    recording_ = &report;
    Step();  // cycle 0: BUSY, DONE cleared by the launch
    uint64_t n = 0;
    while (!(sample_.done && !sample_.busy) && n++ < limit) Step();
    recording_ = nullptr;
    EXPECT_TRUE(sample_.done) << "no DONE within " << limit << " cycles";
    report.done_cycle = cycle_ - 1 - launch_;
    report.status = Read(arch::reg::kStatus);
    report.retired = Read(arch::reg::kQRetired);
    report.err_index = Read(arch::reg::kQErrIndex);
    report.tokens = Read(arch::reg::kQTokens);
    report.perf_cycles = Read(arch::reg::kPerfCycles);
    EXPECT_EQ(memory_.violation(), "");
    EXPECT_TRUE(memory_.Quiet());
    EXPECT_EQ(uint32_t(report.retire_pulses), report.retired);
    return report;
  }

  uint64_t cycle() const { return cycle_; }
  void Idle(int n) {
    for (int i = 0; i < n; ++i) Step();
  }

 private:
  // Evaluates the cycle with the clock low (memory outputs first, then the port's master outputs
  // to the memory), then the rising edge. Returns pready.
  bool Step() {
    top_->clk_i = 0;
    bridge_.BeforeEval(*top_);
    top_->eval();
    cosim::SampleOutputs(*top_, Config().rows, Config().cols, sample_);
    bridge_.AfterEval(*top_);
    if (recording_ != nullptr) {
      const uint64_t t = cycle_ - launch_;
      const cosim::QueueSample& q = sample_.queue;
      recording_->retire_pulses += int(q.dma_retire) + int(q.cmp_retire);
      if (q.dma_retire) recording_->dma_retire_cycles.push_back(t);
      if (q.cmp_retire) recording_->cmp_retire_cycles.push_back(t);
      if (q.dma_start) recording_->dma_start_cycles.push_back(t);
      if (q.cmp_start) recording_->cmp_start_cycles.push_back(t);
    }
    top_->clk_i = 1;
    top_->eval();
    ++cycle_;
    return sample_.pready;
  }

  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<QACC_VL_TOP> top_;
  model::ExtMemory memory_;
  cosim::AxiBridge bridge_;
  cosim::RtlSample sample_;
  uint64_t cycle_ = 0, launch_ = 0;
  RunReport* recording_ = nullptr;
};

// ---- Comparison with the golden executor

void ExpectSameMemories(const MachineState& want, const MachineState& got,
                        const std::string& what) {
  for (const arch::SramInfo& sram : arch::kSrams) {
    const char* name = sram.name;
    const auto& w = want.sram(sram.id);
    const auto& g = got.sram(sram.id);
    const auto it = std::mismatch(w.begin(), w.end(), g.begin());
    EXPECT_TRUE(it.first == w.end())
        << what << ": " << name << " SRAM byte " << (it.first - w.begin()) << " expected "
        << int(*it.first) << ", RTL " << int(*it.second);
  }
  ASSERT_EQ(want.ext.size(), got.ext.size()) << what;
  const std::optional<uint64_t> first = golden::FirstDifference(want.ext, got.ext);
  EXPECT_FALSE(first.has_value()) << what << ": external byte "
                                  << fmt::format("{:#x}", first.value_or(0)) << " expected "
                                  << int(want.ext[first.value_or(0)]) << ", RTL "
                                  << int(got.ext[first.value_or(0)]);
}

// Runs `program` (stored at q_base of `initial`) on the RTL and on golden; compares.
RunReport RunAndCompare(const MachineState& initial, const std::vector<Descriptor>& program,
                        uint32_t q_base, const std::string& what, const ExtSettings& ext = {},
                        std::optional<uint32_t> count = std::nullopt) {
  MachineState state = initial;
  golden::StoreProgram(program, q_base, state);
  const uint32_t n = count.value_or(uint32_t(program.size()));
  ProgramBench bench(ext);
  bench.Load(state);
  MachineState want = state;
  const golden::ProgramResult expected = golden::RunQueue(Geometry(), q_base, n, want);
  const RunReport got = bench.Run(q_base, n);
  const uint32_t code = uint32_t(expected.error);
  EXPECT_EQ(got.err_code(), code) << what << ": expected "
                                  << golden::ProgramErrorName(expected.error) << " at "
                                  << expected.error_index << ", RTL "
                                  << arch::ErrCodeName(arch::ErrCode(got.err_code())) << " at "
                                  << got.err_index;
  EXPECT_EQ((got.status & arch::kStatusError) != 0, code != 0) << what;
  EXPECT_EQ(got.status & (arch::kStatusBusy | arch::kStatusDone), arch::kStatusDone) << what;
  if (code != 0) {
    EXPECT_EQ(got.err_index, uint32_t(expected.error_index)) << what;
  }
  if (expected.error != ProgramError::kExtFault) {
    EXPECT_EQ(got.retired, uint32_t(expected.retired)) << what;
    ExpectSameMemories(want, bench.Snapshot(), what);
  }
  EXPECT_EQ(got.perf_cycles, uint32_t(got.done_cycle))
      << what;  // PERF_CYCLES = t + 1 = DONE's cycle
  return got;
}

// ---- Random contents and descriptors (sim/testgen/random_program.h, on this config's geometry)

using Rng = sim::Rng;

MachineState RandomState(Rng& rng, uint64_t ext_size, uint64_t data_bytes) {
  return sim::RandomState(rng, Geometry(), ext_size, data_bytes);
}
int64_t Pick(Rng& rng, int64_t lo, int64_t hi) { return rng.Uniform(lo, hi); }
Descriptor RandomDma(Rng& rng, Op op, uint64_t ext_limit, uint32_t sram = 0) {
  return sim::RandomDma(rng, Geometry(), op, ext_limit, sram);
}
Descriptor RandomMove(Rng& rng) { return sim::RandomMove(rng, Geometry()); }
Descriptor RandomGemm(Rng& rng) { return sim::RandomGemm(rng, Geometry()); }
void AddTokens(std::vector<Descriptor>& program, Rng& rng, int extra) {
  sim::AddTokens(program, rng, Geometry(), extra);
}
std::vector<Descriptor> RandomProgram(Rng& rng, int n, uint64_t data_limit, int extra = 20) {
  return sim::RandomProgram(rng, Geometry(), n, data_limit, extra);
}

constexpr uint64_t kExtSize = uint64_t{1} << 20;  // the random tests' external memory
constexpr uint64_t kDataLimit = 0xC0000;          // tensors below, programs above
constexpr uint32_t kQBase = 0xC0000;

// ---- Tests

// Hand-derived cycles (17), default config (8x8, D = 16, Lm = 20, Iv = 1, MaxOutstanding 4):
//   descriptor 0 is one burst of 64 / 16 = 4 beats, issued at program cycle 1 (f = 1); its beats
//   come at max(1 + 20, -) = 21, 22, 23, 24 = r; validated at 25 and pushed at the end of 25.
//   The DMA starts it at s = 26 (pushed before s). LOAD of A (U = R = 8 < D): COUNT0 = 4 units of
//   8 bytes at 0x1000 = one row of 2 beats, one burst issued at 26 (credit 64 >= 2, no fetch in
//   26), beats at max(26 + 20, 24 + 1) = 46 and 47. Steps (one unit each, two per beat) from the
//   cycle after a beat arrives: 47, 48 (beat 0), 49, 50 (beat 1): e = 50, retired at 50.
//   Cycle 51 is quiet: DONE visible at 52, PERF_CYCLES = 52.
TEST(ProgramRtl, SingleLoadCycles) {
  const auto& cfg = Config();
  if (cfg.rows != 8 || cfg.cols != 8 || cfg.mem_data_bytes != 16 || cfg.mem_max_outstanding != 4) {
    GTEST_SKIP() << "derived for the default config";
  }
  Rng rng(5);
  MachineState s = RandomState(rng, kExtSize, kDataLimit);
  golden::DmaFields f;
  f.count0 = 4;
  f.sram = 1;
  f.sram_base = 100;
  f.ext_addr = 0x1000;
  const RunReport r = RunAndCompare(s, {golden::EncodeDma(Op::kLoad, f, {})}, kQBase, "one LOAD");
  ASSERT_EQ(r.dma_start_cycles.size(), 1u);
  EXPECT_EQ(r.dma_start_cycles[0], 26u);
  ASSERT_EQ(r.dma_retire_cycles.size(), 1u);
  EXPECT_EQ(r.dma_retire_cycles[0], 50u);
  EXPECT_EQ(r.done_cycle, 52u);
  EXPECT_EQ(r.perf_cycles, 52u);
}

// One MOVE into A (default 8x8): pushed at 25 as above, started at s = 26. Tile j starts at
// x = 26 + j * (R/4 + 1 + COUNT0) = 26 + 11 j with COUNT0 = 8: reads at x, x + 1, writes at
// x + 3 .. x + 10. Two tiles: the last write at 37 + 10 = 47 = e; quiet at 48, DONE at 49.
TEST(ProgramRtl, MoveCycles) {
  const auto& cfg = Config();
  if (cfg.rows != 8 || cfg.cols != 8 || cfg.mem_data_bytes != 16) GTEST_SKIP() << "default only";
  Rng rng(6);
  MachineState s = RandomState(rng, kExtSize, kDataLimit);
  golden::MoveFields f;
  f.count0 = 8;
  f.count1 = 2;
  f.dst = 1;
  f.src_base = 40;
  f.src_stride1 = 8;
  f.dst_base = 7;
  f.dst_stride1 = 8;
  const RunReport r = RunAndCompare(s, {golden::EncodeMove(f, {})}, kQBase, "one MOVE");
  ASSERT_EQ(r.cmp_start_cycles.size(), 1u);
  EXPECT_EQ(r.cmp_start_cycles[0], 26u);
  ASSERT_EQ(r.cmp_retire_cycles.size(), 1u);
  EXPECT_EQ(r.cmp_retire_cycles[0], 47u);
  EXPECT_EQ(r.done_cycle, 49u);
}

// One GEMM, on every config (D bytes per beat, memory latency 20, interval 1): descriptor 0 is
// one burst of 64 / D beats issued at 1, its beats at 21 .. 20 + 64 / D = r; pushed at the end of
// r + 1, started at s = r + 2 = 22 + 64 / D. From there a part-1 command: it completes at
// e = s + E - 1 and retires there; quiet at s + E, DONE at s + E + 1.
TEST(ProgramRtl, GemmCycles) {
  const auto& cfg = Config();
  Rng rng(7);
  MachineState s = RandomState(rng, kExtSize, kDataLimit);
  const Descriptor d = RandomGemm(rng);
  const golden::GemmFields f = golden::DecodeGemm(d);
  const arch::Timing tm(cfg.rows, cfg.cols, f.m, f.n, f.k);
  const uint64_t start = 22 + 64 / uint64_t(cfg.mem_data_bytes);
  const RunReport r = RunAndCompare(s, {d}, kQBase, "one GEMM");
  ASSERT_EQ(r.cmp_start_cycles.size(), 1u);
  EXPECT_EQ(r.cmp_start_cycles[0], start);
  ASSERT_EQ(r.cmp_retire_cycles.size(), 1u);
  EXPECT_EQ(r.cmp_retire_cycles[0], start + uint64_t(tm.E()) - 1);
  EXPECT_EQ(r.done_cycle, start + uint64_t(tm.E()) + 1);
}

// Q_COUNT = 0: BAD_SHAPE at index 0, DONE at 1, PERF_CYCLES = 1 (17.1).
TEST(ProgramRtl, EmptyProgram) {
  Rng rng(8);
  MachineState s = RandomState(rng, kExtSize, 64);
  const RunReport r = RunAndCompare(s, {}, kQBase, "Q_COUNT 0", {}, 0);
  EXPECT_EQ(r.err_code(), uint32_t(arch::ErrCode::kBadShape));
  EXPECT_EQ(r.done_cycle, 1u);
  EXPECT_EQ(r.perf_cycles, 1u);
}

// Compiled GEMM layers and chains (compiler) with double buffering and chaining on and off.
TEST(ProgramRtl, CompiledChains) {
  std::mt19937 rng(2026);
  const auto& cfg = Config();
  int runs = 0;
  for (int trial = 0; trial < 12; ++trial) {
    compiler::Network net;
    const int layers = 1 + trial % 3;
    const int m = 1 + int(rng() % 24);
    int k = 1 + int(rng() % 40);
    for (int i = 0; i < layers; ++i) {
      compiler::GemmLayer l;
      l.name = "l" + std::to_string(i);
      l.m = m;
      l.n = 1 + int(rng() % 30);
      l.k = k;
      l.a_unsigned = rng() % 2;
      l.b_unsigned = rng() % 2;
      l.a_zp = int(rng() % 21) - 10;
      l.b_zp = int(rng() % 21) - 10;
      l.bias = rng() % 2;
      l.per_channel = rng() % 2;
      l.single_rounding = rng() % 2;
      l.out_int32 = i + 1 == layers && rng() % 3 == 0;
      l.mult = int32_t((1u << 30) + rng() % (1u << 30));
      l.shift = -6 - int(rng() % 8);
      net.layers.push_back(l);
      k = l.n;
    }
    for (bool chain : {true, false}) {
      for (bool db : {true, false}) {
        const compiler::CompiledProgram p = compiler::Compile(cfg, net, {db, chain});
        MachineState s(Geometry(), kExtSize);
        ASSERT_LE(p.ext_bytes, kExtSize);
        const compiler::RandomValues values = compiler::MakeRandomValues(net, rng());
        compiler::WriteInputs(p, net, values.x, values.layers, s);
        ASSERT_TRUE(golden::RaceCheck(Geometry(), p.descriptors, p.q_base).empty());
        const std::string what =
            fmt::format("trial {} ({} layers) chain {} db {}", trial, layers, chain, db);
        const RunReport r = RunAndCompare(s, p.descriptors, p.q_base, what,
                                          {kExtSize, 1 + int(rng() % 30), 1 + int(rng() % 3)});
        EXPECT_EQ(r.err_code(), 0u) << what;
        ++runs;
      }
    }
  }
  EXPECT_EQ(runs, 48);
}

// Random race-free programs of every command over every SRAM, several memory timings.
TEST(ProgramRtl, RandomPrograms) {
  Rng rng(99);
  constexpr int kPrograms = 150;
  for (int i = 0; i < kPrograms; ++i) {
    MachineState s = RandomState(rng, kExtSize, kDataLimit);
    const std::vector<Descriptor> p = RandomProgram(rng, int(Pick(rng, 1, 60)), kDataLimit);
    ASSERT_TRUE(golden::RaceCheck(Geometry(), p, kQBase).empty()) << i;
    const ExtSettings ext{kExtSize, int(Pick(rng, 1, 40)), int(Pick(rng, 1, 4))};
    const RunReport r = RunAndCompare(s, p, kQBase,
                                      fmt::format("program {} ({} descriptors, Lm {}, Iv {})", i,
                                                  p.size(), ext.latency, ext.interval),
                                      ext);
    EXPECT_EQ(r.err_code(), 0u) << i;
  }
}

// Every SRAM as source and destination, U < D and U > D, strides 0 and large, counts at edges.
TEST(ProgramRtl, EverySramBothWays) {
  Rng rng(3);
  for (const arch::SramInfo& info : arch::kSrams) {
    const auto sram = uint32_t(info.id);
    for (int rep = 0; rep < 3; ++rep) {
      MachineState s = RandomState(rng, kExtSize, kDataLimit);
      std::vector<Descriptor> p;
      for (int i = 0; i < 6; ++i) {
        p.push_back(RandomDma(rng, i % 2 ? Op::kStore : Op::kLoad, kDataLimit, sram));
      }
      AddTokens(p, rng, 0);
      RunAndCompare(s, p, kQBase, fmt::format("SRAM {} rep {}", sram, rep));
    }
  }
}

// Counts at their edges: 65535 rows of one unit with both strides 0 (a broadcast load, then a
// repeated store), a whole SRAM in one row.
TEST(ProgramRtl, CountEdges) {
  Rng rng(4);
  const golden::AccelGeometry g = Geometry();
  MachineState s = RandomState(rng, kExtSize, kDataLimit);
  golden::DmaFields load;
  load.count0 = 1;
  load.count1 = 65535;
  load.sram = 2;
  load.sram_base = 5;
  load.ext_addr = uint32_t(3 * g.cols);
  golden::DmaFields store = load;
  store.count1 = 1;
  store.count2 = 300;
  store.ext_addr = uint32_t(0x40000);
  golden::DmaFields whole;
  whole.count0 = g.bias_depth;
  whole.sram = 3;
  whole.ext_addr = 0x8000;
  golden::DmaFields whole_out = whole;
  whole_out.sram = 5;
  whole_out.count0 = 4 * g.out_depth;  // every int8 entry
  whole_out.ext_addr = 0x10000;
  std::vector<Descriptor> p = {
      golden::EncodeDma(Op::kLoad, load, {}), golden::EncodeDma(Op::kStore, store, {}),
      golden::EncodeDma(Op::kStore, whole, {}), golden::EncodeDma(Op::kLoad, whole_out, {})};
  RunAndCompare(s, p, kQBase, "count edges");
}

// A full counter and full queues: 20 LOADs each with SIGNAL, then 20 MOVEs each with WAIT. After 15
// retirements d2c is 15: the 16th LOAD completes and holds its token, the DMA queue fills (LOADs
// 15..18) and the fetcher waits with LOAD 19 in hand, so no MOVE is ever fetched: DEADLOCK with
// index 15, the DMA queue's head.
TEST(ProgramRtl, TokenSaturationDeadlock) {
  Rng rng(10);
  MachineState s = RandomState(rng, kExtSize, kDataLimit);
  std::vector<Descriptor> p;
  for (int i = 0; i < 20; ++i) {
    Descriptor d = RandomDma(rng, Op::kLoad, kDataLimit, 3);
    d[15] |= 1u << 9;
    p.push_back(d);
  }
  for (int i = 0; i < 20; ++i) {
    Descriptor d = RandomMove(rng);
    d[15] |= 1u << 8;
    p.push_back(d);
  }
  const RunReport r = RunAndCompare(s, p, kQBase, "16 signals");
  EXPECT_EQ(r.err_code(), uint32_t(arch::ErrCode::kDeadlock));
}

// Token traffic that completes: signals and waits interleaved both ways, queues full in turn.
TEST(ProgramRtl, TokensBothWays) {
  Rng rng(11);
  for (int rep = 0; rep < 10; ++rep) {
    MachineState s = RandomState(rng, kExtSize, kDataLimit);
    const std::vector<Descriptor> p = RandomProgram(rng, 40, kDataLimit, 80);
    ASSERT_TRUE(golden::RaceCheck(Geometry(), p, kQBase).empty());
    const RunReport r = RunAndCompare(s, p, kQBase, fmt::format("tokens {}", rep));
    EXPECT_EQ(r.err_code(), 0u);
  }
}

// A WAIT that no SIGNAL answers: DEADLOCK at the lowest head index.
TEST(ProgramRtl, Deadlock) {
  Rng rng(12);
  MachineState s = RandomState(rng, kExtSize, kDataLimit);
  std::vector<Descriptor> p = RandomProgram(rng, 6, kDataLimit);
  Descriptor w = RandomGemm(rng);
  w[15] |= 1u << 8;
  p.push_back(w);
  p.push_back(RandomDma(rng, Op::kLoad, kDataLimit, 1));
  const RunReport r = RunAndCompare(s, p, kQBase, "unanswered WAIT");
  EXPECT_EQ(r.err_code(), uint32_t(arch::ErrCode::kDeadlock));
}

// Validation errors mid-program: the descriptors before it complete, the error is reported with
// its index (BAD_OPCODE, BAD_SRAM, ranges, EXT_ALIGN, EXT_RANGE, MOVE's and GEMM's checks).
TEST(ProgramRtl, ValidationErrors) {
  Rng rng(13);
  const golden::AccelGeometry g = Geometry();
  std::vector<std::pair<std::string, Descriptor>> bad;
  {
    Descriptor d = RandomGemm(rng);
    d[15] = (d[15] & ~0xFu) | 7;
    bad.push_back({"BAD_OPCODE", d});
  }
  {
    golden::DmaFields f;
    f.sram = 7;
    bad.push_back({"BAD_SRAM", golden::EncodeDma(Op::kLoad, f, {})});
  }
  {
    golden::DmaFields f;
    f.count1 = 0;
    bad.push_back({"BAD_SHAPE", golden::EncodeDma(Op::kStore, f, {})});
  }
  {
    golden::DmaFields f;
    f.sram = 5;
    f.count0 = 2;
    f.sram_base = 4 * g.out_depth - 1;
    bad.push_back({"OUT_RANGE", golden::EncodeDma(Op::kLoad, f, {})});
  }
  {
    golden::DmaFields f;
    f.sram = 4;
    f.ext_stride1 = 8;
    f.count1 = 2;
    bad.push_back({"EXT_ALIGN", golden::EncodeDma(Op::kLoad, f, {})});
  }
  {
    golden::DmaFields f;
    f.sram = 1;
    f.count1 = 3;
    f.ext_addr = 0xFFFF'0000u;
    f.ext_stride1 = 0x8000;
    bad.push_back({"EXT_RANGE", golden::EncodeDma(Op::kStore, f, {})});
  }
  {
    golden::MoveFields f;
    f.dst = 2;
    f.src_base = 2;
    bad.push_back({"MOVE OUT_RANGE", golden::EncodeMove(f, {})});
  }
  {
    golden::MoveFields f;
    f.dst = 1;
    f.count0 = uint32_t(g.cols + 1);
    bad.push_back({"MOVE BAD_SHAPE", golden::EncodeMove(f, {})});
  }
  {
    Descriptor d = RandomGemm(rng);
    d[2] = 0;  // K
    bad.push_back({"GEMM BAD_SHAPE", d});
  }
  for (const auto& [name, d] : bad) {
    MachineState s = RandomState(rng, kExtSize, kDataLimit);
    std::vector<Descriptor> p = RandomProgram(rng, int(Pick(rng, 0, 9)), kDataLimit);
    p.push_back(d);
    const std::vector<Descriptor> tail = RandomProgram(rng, 3, kDataLimit);
    p.insert(p.end(), tail.begin(), tail.end());
    const RunReport r = RunAndCompare(s, p, kQBase, name);
    EXPECT_NE(r.err_code(), 0u) << name;
  }
}

// EXT_FAULT: a LOAD and a STORE reaching beyond the external memory, and a descriptor fetched from
// beyond it. Only the error and its index are predicted (14.3).
TEST(ProgramRtl, ExtFaults) {
  Rng rng(14);
  const golden::AccelGeometry g = Geometry();
  for (Op op : {Op::kLoad, Op::kStore}) {
    MachineState s = RandomState(rng, kExtSize, kDataLimit);
    std::vector<Descriptor> p = RandomProgram(rng, 5, kDataLimit);
    golden::DmaFields f;
    f.sram = 2;
    f.count0 = 8;
    f.count1 = 3;
    f.ext_stride1 = uint32_t(64 * g.cols);
    f.ext_addr = uint32_t(kExtSize - 2 * 64 * g.cols);  // the third row is outside
    p.push_back(golden::EncodeDma(op, f, {}));
    const std::vector<Descriptor> tail = RandomProgram(rng, 4, kDataLimit);
    p.insert(p.end(), tail.begin(), tail.end());
    const RunReport r = RunAndCompare(s, p, kQBase, op == Op::kLoad ? "LOAD fault" : "STORE fault");
    EXPECT_EQ(r.err_code(), uint32_t(arch::ErrCode::kExtFault));
  }
  // Q_BASE near the end: descriptors 0 .. 2 inside, 3 outside.
  MachineState s = RandomState(rng, kExtSize, kDataLimit);
  const uint32_t q_base = uint32_t(kExtSize - 3 * 64);
  std::vector<Descriptor> p = RandomProgram(rng, 3, kDataLimit);
  const RunReport r = RunAndCompare(s, p, q_base, "fetch fault", {}, 5);
  EXPECT_EQ(r.err_code(), uint32_t(arch::ErrCode::kExtFault));
  EXPECT_EQ(r.err_index, 3u);
}

// Q_BASE and Q_COUNT are locked while a program runs, like CMD_*; Q_BASE keeps [31:6].
TEST(ProgramRtl, QueueRegistersLockWhileBusy) {
  ProgramBench bench;
  EXPECT_TRUE(bench.Write(arch::reg::kQBase, 0xFFFF'FFFF));
  EXPECT_EQ(bench.Read(arch::reg::kQBase), 0xFFFF'FFC0u);
  Rng rng(15);
  MachineState s = RandomState(rng, kExtSize, kDataLimit);
  golden::StoreProgram({RandomGemm(rng)}, kQBase, s);
  bench.Load(s);
  EXPECT_TRUE(bench.Write(arch::reg::kQBase, kQBase));
  EXPECT_TRUE(bench.Write(arch::reg::kQCount, 1));
  EXPECT_TRUE(bench.Write(arch::reg::kCtrl, arch::kCtrlRun | arch::kCtrlStart));
  EXPECT_FALSE(bench.Write(arch::reg::kQBase, 0));
  EXPECT_FALSE(bench.Write(arch::reg::kQCount, 3));
  EXPECT_FALSE(bench.Write(arch::reg::kCtrl, arch::kCtrlRun));
  EXPECT_EQ(bench.Read(arch::reg::kStatus) & arch::kStatusBusy, arch::kStatusBusy);
  EXPECT_EQ(bench.Read(arch::reg::kQCount), 1u);
  bench.Idle(2000);
  EXPECT_EQ(bench.Read(arch::reg::kStatus), arch::kStatusDone);
  EXPECT_EQ(bench.Read(arch::reg::kQRetired), 1u);
  EXPECT_EQ(bench.Read(arch::reg::kPerfCmdCount), 1u);  // a program counts as one command
}

}  // namespace
}  // namespace qacc
