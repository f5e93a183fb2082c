// Compiled programs (compiler) on the cycle-level program engine: GEMM layers and chains, with
// double buffering and on-chip chaining on and off, on every config and on SRAMs small enough to
// force every chunking path, under several (latency, interval) pairs. Every memory equals the
// golden executor's, the result equals the layers computed on whole matrices, the memory port
// sees no protocol violation, and the counters add up.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/ext_image.h"
#include "compiler/launches.h"
#include "compiler/network.h"
#include "compiler/reference.h"
#include "golden/program.h"
#include "model/program_engine.h"
#include "sim/testgen/compiled_program.h"
#include "tests/model/program_test_util.h"

namespace qacc::model::testing {
namespace {

using compiler::CompiledProgram;
using compiler::GemmLayer;
using compiler::Network;
using compiler::RandomLayer;
using compiler::RandomResidual;

// Small SRAMs: every layer of a few dozen rows and columns is chunked (compiler_test.cc).
arch::ArchConfig Tiny(int rows, int cols, int data_bytes, int max_outstanding) {
  arch::ArchConfig c;
  c.name = "tiny";
  c.rows = rows;
  c.cols = cols;
  c.a_depth = 128;
  c.b_depth = 128;
  c.bias_depth = 4;
  c.rq_depth = 4;
  c.out_depth = 16;
  c.mem_data_bytes = data_bytes;
  c.mem_max_outstanding = max_outstanding;
  return c;
}

struct Counts {
  int programs = 0, overlapped = 0, split = 0;
};

// What a host driver prepares for a compiled program: `values` packed into external memory (whole
// 4 KiB pages), the SRAMs zero.
Images InputImages(const arch::ArchConfig& config, const CompiledProgram& program,
                   const Network& net, const compiler::RandomValues& values) {
  const size_t ext_bytes = (size_t(program.ext_bytes) + 4095) / 4096 * 4096;
  golden::MachineState state(GeometryOf(config), ext_bytes);
  compiler::WriteInputs(program, net, values.x, values.layers, state);
  Images in(config, ext_bytes);
  in.ext = std::move(state.ext);
  return in;
}

// Golden's run of every launch in order (compiler::RunLaunches) on the images.
GoldenOutcome RunGoldenLaunches(const arch::ArchConfig& config, const Images& in,
                                const CompiledProgram& program) {
  return RunGoldenOn(config, in, [&](golden::MachineState& state) {
    const compiler::LaunchesResult r =
        compiler::RunLaunches(GeometryOf(config), program.q_base, program.launches, state);
    golden::ProgramResult result;
    result.error = r.error;
    result.error_index = int(r.error_index);
    result.retired = int(r.retired);
    return result;
  });
}

// Compiles `net`, runs it on golden and on the model under each timing, and compares.
void CheckNetwork(const arch::ArchConfig& config, const Network& net,
                  const compiler::CompileOptions& options, uint64_t seed, const std::string& what,
                  Counts& counts) {
  const CompiledProgram program = compiler::Compile(config, net, options);
  const golden::AccelGeometry geometry = GeometryOf(config);
  const compiler::RandomValues values = compiler::MakeRandomValues(net, seed);
  const Images in = InputImages(config, program, net, values);
  const uint32_t count = uint32_t(program.descriptors.size());
  const GoldenOutcome golden = RunGoldenLaunches(config, in, program);
  ASSERT_EQ(golden.result.error, golden::ProgramError::kNone) << what;
  const std::vector<int32_t> want = compiler::ReferenceOutput(net, values.x, values.layers);
  // The per-GEMM counters of 3.2 summed over the program's GEMMs.
  uint64_t mac_busy = 0, out_writes = 0;
  for (const golden::Descriptor& d : program.descriptors) {
    if ((d[15] & 0xF) != 0) continue;
    const arch::Timing t(config.rows, config.cols, d[0], d[1], d[2]);
    mac_busy += uint64_t(t.Busy(arch::BeatUnit::kMac));
    out_writes += uint64_t(t.OutWrites());
  }
  struct Timing {
    int latency, interval;
  };
  for (const Timing t :
       {Timing{config.ext_mem_latency, config.ext_mem_interval}, Timing{1, 1}, Timing{45, 4}}) {
    const std::string at =
        what + " Lm " + std::to_string(t.latency) + " Iv " + std::to_string(t.interval);
    const ModelOutcome m = RunModel(config, in, sim::ModelLaunches(program), t.latency, t.interval);
    ExpectMatchesGolden(m, golden, at);
    EXPECT_EQ(m.result.error, ProgramError::kNone) << at;
    EXPECT_EQ(m.result.retired, count) << at;
    golden::MachineState after(geometry, in.ext.size());
    after.ext = m.images.ext;
    EXPECT_EQ(compiler::ReadOutput(program, net, after), want) << at;
    const ProgramPerf& p = m.result.perf;
    ExpectPerfConsistent(p, at);
    EXPECT_EQ(p.Busy(arch::BeatUnit::kMac), mac_busy) << at;
    EXPECT_EQ(p.out_writes, out_writes) << at;
    EXPECT_EQ(p.wr_beats * uint64_t(config.mem_data_bytes) >= program.bytes_stored, true) << at;
    EXPECT_GE(p.rd_beats * uint64_t(config.mem_data_bytes),
              program.bytes_loaded + uint64_t(count) * golden::kDescriptorBytes)
        << at;
    // A relaunch idles the port kRelaunchCycles after a DONE: the span of several launches is at
    // least their busy cycles plus those (14.4).
    EXPECT_GE(p.cycles, uint64_t(program.launches.size() - 1) * uint64_t(arch::kRelaunchCycles) +
                            std::max(p.compute_busy, p.dma_busy))
        << at;
    ++counts.programs;
    counts.split += program.launches.size() > 1;
    counts.overlapped += p.overlap > 0;
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ProgramCompiled, OneLayerOnEveryConfig) {
  std::mt19937 rng(31);
  Counts counts;
  for (const char* name : {"default", "rect_4x16", "tall_16x4"}) {
    const arch::ArchConfig config = LoadConfig(name);
    for (int trial = 0; trial < 4; ++trial) {
      Network net;
      net.layers.push_back(RandomLayer(rng, "fc", 1 + int(rng() % 70), 1 + int(rng() % 70),
                                       1 + int(rng() % 90), true));
      for (bool db : {true, false}) {
        CheckNetwork(config, net, {db, true}, rng(),
                     std::string(name) + (db ? " db " : " single ") + std::to_string(trial),
                     counts);
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_EQ(counts.programs, 3 * 4 * 2 * 3);
}

TEST(ProgramCompiled, SmallSramsForceEveryChunking) {
  std::mt19937 rng(1818);
  Counts counts;
  for (const arch::ArchConfig& config :
       {Tiny(4, 4, 8, 2), Tiny(8, 4, 16, 1), Tiny(4, 8, 32, 4), Tiny(8, 8, 64, 8)}) {
    for (int trial = 0; trial < 5; ++trial) {
      Network net;
      net.layers.push_back(RandomLayer(rng, "fc", 1 + int(rng() % 60), 1 + int(rng() % 60),
                                       1 + int(rng() % 40), true));
      for (bool db : {true, false}) {
        CheckNetwork(config, net, {db, true}, rng(),
                     "tiny " + std::to_string(config.rows) + "x" + std::to_string(config.cols) +
                         " D " + std::to_string(config.mem_data_bytes) + " trial " +
                         std::to_string(trial) + (db ? " db" : ""),
                     counts);
        if (HasFailure()) return;
      }
    }
  }
  // Double buffering overlaps DMA and compute.
  EXPECT_GT(counts.overlapped, 0);
}

TEST(ProgramCompiled, ChainsOnChipAndThroughExternalMemory) {
  std::mt19937 rng(2018);
  Counts counts;
  for (const arch::ArchConfig& config :
       {LoadConfig("default"), LoadConfig("tall_16x4"), Tiny(4, 4, 16, 4), Tiny(8, 4, 8, 2)}) {
    for (int trial = 0; trial < 3; ++trial) {
      Network net;
      const int layers = 2 + int(rng() % 2);
      const int m = 1 + int(rng() % 40);
      int k = 1 + int(rng() % 30);
      for (int i = 0; i < layers; ++i) {
        const int n = 1 + int(rng() % 30);
        net.layers.push_back(RandomLayer(rng, "l" + std::to_string(i), m, n, k, i + 1 == layers));
        k = n;
      }
      for (bool chain : {true, false}) {
        for (bool db : {true, false}) {
          CheckNetwork(config, net, {db, chain}, rng(),
                       config.name + " chain " + std::to_string(trial) + (chain ? " on-chip" : "") +
                           (db ? " db" : ""),
                       counts);
          if (HasFailure()) return;
        }
      }
    }
  }
}

// Residual adds (ELTWISE, lut.md 10.5; data_movement.md 16.4): a chain whose later layers add an
// earlier layer's output, of either form, some with a table after the add.
TEST(ProgramCompiled, ResidualAdds) {
  std::mt19937 rng(1005);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Counts counts;
  int eltwises = 0;
  for (const arch::ArchConfig& config :
       {LoadConfig("default"), LoadConfig("rect_4x16"), Tiny(4, 4, 16, 4), Tiny(8, 4, 8, 2)}) {
    for (int trial = 0; trial < 3; ++trial) {
      Network net;
      const int m = 1 + int(rng() % 40), n = 1 + int(rng() % 30);
      int k = 1 + int(rng() % 30);
      for (int i = 0; i < 3; ++i) {
        net.layers.push_back(RandomLayer(rng, "l" + std::to_string(i), m, n, k, false));
        if (i > 0) RandomResidual(pick, net.layers[size_t(pick(0, i - 1))], net.layers.back());
        k = n;
      }
      for (bool chain : {true, false}) {
        const CompiledProgram program = compiler::Compile(config, net, {true, chain});
        eltwises += int(program.eltwises);
        CheckNetwork(config, net, {true, chain}, rng(),
                     config.name + " residual " + std::to_string(trial) + (chain ? " on-chip" : ""),
                     counts);
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_GT(eltwises, 0);
}

// Programs cut into launches of a few descriptors (data_movement.md 14.4) leave every memory as
// golden's run of the same launches and compute the layers, under every timing: the memories
// carry over from one launch to the next, and the tokens of each launch are its own.
TEST(ProgramCompiled, LaunchesOfAnyLength) {
  std::mt19937 rng(144);
  Counts counts;
  for (const arch::ArchConfig& config :
       {LoadConfig("default"), LoadConfig("rect_4x16"), Tiny(4, 4, 16, 4), Tiny(8, 4, 8, 2)}) {
    for (int trial = 0; trial < 3; ++trial) {
      Network net;
      const int layers = 1 + int(rng() % 2);
      const int m = 1 + int(rng() % 40);
      int k = 1 + int(rng() % 30);
      for (int i = 0; i < layers; ++i) {
        const int n = 1 + int(rng() % 30);
        net.layers.push_back(RandomLayer(rng, "l" + std::to_string(i), m, n, k, i + 1 == layers));
        k = n;
      }
      compiler::CompileOptions options{trial != 1, trial != 2};
      options.max_launch_descriptors = 1 + uint32_t(rng() % 6);
      CheckNetwork(config, net, options, rng(),
                   config.name + " trial " + std::to_string(trial) + " launches of " +
                       std::to_string(options.max_launch_descriptors),
                   counts);
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(counts.split * 4, counts.programs * 3) << counts.split << " of " << counts.programs;
}

// Skipping idle cycles changes nothing on a compiled program either (every cycle, every counter).
TEST(ProgramCompiled, SkippingIsExact) {
  std::mt19937 rng(5);
  const arch::ArchConfig config = LoadConfig("default");
  Network net;
  net.layers.push_back(RandomLayer(rng, "fc1", 40, 64, 300, false));
  net.layers.push_back(RandomLayer(rng, "fc2", 40, 24, 64, true));
  for (bool db : {true, false}) {
    const CompiledProgram program = compiler::Compile(config, net, {db, false});
    const Images in = InputImages(config, program, net, compiler::MakeRandomValues(net, 3));
    const uint32_t count = uint32_t(program.descriptors.size());
    const ModelOutcome slow = RunModel(config, in, program.q_base, count, 20, 1, false);
    // The fast run, counting the cycles it skips.
    ExtMemory memory(in.ext.size(), {config.mem_data_bytes, 20, 1});
    memory.image() = in.ext;
    Srams srams(config);
    ProgramEngine engine(config, memory, srams, program.q_base, count);
    uint64_t skipped = 0;
    while (!engine.finished()) {
      skipped += engine.SkipIdle();
      engine.Step(nullptr);
    }
    const ProgramRunResult fast = engine.result();
    EXPECT_TRUE(fast.perf == slow.result.perf)
        << fast.perf.cycles << " vs " << slow.result.perf.cycles;
    EXPECT_TRUE(memory.image() == slow.images.ext);
    EXPECT_EQ(srams.image(arch::Region::kA), slow.images.a);
    EXPECT_EQ(srams.image(arch::Region::kOut), slow.images.out);
    EXPECT_GT(skipped, fast.perf.cycles / 4);
  }
}

// Operands in panels (data_movement.md 16.1): every A or B LOAD moves whole panels, one DMA row of
// K contiguous units each, so its reads are long bursts with at most two partly used beats per
// panel. With one row per unit (the K-major and row-major layouts the compiler used before), every
// unit narrower than a beat wastes the rest of it: twice the beats for A at 8 x 8 with 16-byte
// beats.
TEST(ProgramCompiled, OperandPanelsLoadAsContiguousRows) {
  constexpr uint32_t kK = 64;
  std::mt19937 rng(16);
  for (const char* name : {"default", "rect_4x16", "tall_16x4"}) {
    const arch::ArchConfig config = LoadConfig(name);
    Network net;
    net.layers.push_back(
        RandomLayer(rng, "fc", 3 * config.rows + 1, 5 * config.cols - 1, int(kK), true));
    for (bool db : {true, false}) {
      const std::string what = std::string(name) + (db ? " db" : " single");
      const CompiledProgram program = compiler::Compile(config, net, {db, true});
      uint64_t runs = 0;  // contiguous runs of bytes the loads read: panels, bias and rq rows
      for (const golden::Descriptor& d : program.descriptors) {
        if (golden::DecodeHeader(d).op != uint32_t(golden::Op::kLoad)) continue;
        const golden::DmaFields f = golden::DecodeDma(d);
        if (f.sram == uint32_t(golden::Sram::kA) || f.sram == uint32_t(golden::Sram::kB)) {
          runs += f.count1 * f.count2 * f.count0 / kK;  // panels of K units
          EXPECT_EQ(f.count0, kK) << what << ": a panel is one row of K units";
        } else {
          runs += uint64_t(f.count1) * f.count2;
        }
      }
      const Images in = InputImages(config, program, net, compiler::MakeRandomValues(net, rng()));
      const uint32_t count = uint32_t(program.descriptors.size());
      const ModelOutcome m = RunModel(config, in, program.q_base, count, 20, 1);
      ASSERT_EQ(m.result.error, ProgramError::kNone) << what;
      const uint64_t d = uint64_t(config.mem_data_bytes);
      EXPECT_LE(m.result.perf.rd_beats,
                (program.bytes_loaded + uint64_t(count) * golden::kDescriptorBytes) / d + 2 * runs)
          << what;
    }
  }
}

// The BERT-base FFN layer at sequence 128 on the default config (16 bytes per cycle each way, the
// config's memory): B is streamed (8 A chunks reload it), and its 4 bytes per MAC cycle are hidden
// behind compute with double buffering, so the MAC array is busy at least 95 % of the program.
TEST(ProgramCompiled, BertFfnLayerIsComputeBoundOnTheDefaultConfig) {
  std::mt19937 rng(128);
  const arch::ArchConfig config = LoadConfig("default");
  Network net;
  net.layers.push_back(RandomLayer(rng, "ffn", 128, 768, 3072, true));
  const CompiledProgram program = compiler::Compile(config, net, {true, true});
  const Images in = InputImages(config, program, net, compiler::MakeRandomValues(net, 1));
  const ModelOutcome m = RunModel(config, in, program.q_base, uint32_t(program.descriptors.size()),
                                  config.ext_mem_latency, config.ext_mem_interval);
  ASSERT_EQ(m.result.error, ProgramError::kNone);
  // Every R x C tile of the output is one pass of K = 3072.
  EXPECT_EQ(m.result.perf.Busy(arch::BeatUnit::kMac),
            uint64_t(128 / config.rows) * (768 / config.cols) * 3072);
  EXPECT_GE(double(m.result.perf.Busy(arch::BeatUnit::kMac)), 0.95 * double(m.result.perf.cycles))
      << m.result.perf.cycles << " cycles";
}

}  // namespace
}  // namespace qacc::model::testing
