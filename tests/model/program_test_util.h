// Helpers of the program-engine tests: configs with a chosen memory port, a program run on the
// model from given memory images (with or without skipping idle cycles, with a per-cycle trace),
// the same run on the golden executor, and their comparison.
#ifndef QACC_TESTS_MODEL_PROGRAM_TEST_UTIL_H_
#define QACC_TESTS_MODEL_PROGRAM_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "golden/program.h"
#include "model/arch.h"
#include "model/ext_memory.h"
#include "model/program_engine.h"
#include "model/srams.h"
#include "sim/build_paths.h"

namespace qacc::model::testing {

inline arch::ArchConfig LoadConfig(const std::string& name) {
  return arch::LoadArchConfig(std::string(QACC_SOURCE_DIR) + "/configs/" + name + ".json");
}

// The default geometry (8 x 8, default depths) with a memory port of `data_bytes` bytes per beat
// and `max_outstanding` read bursts.
inline arch::ArchConfig PortConfig(int data_bytes, int max_outstanding, int rows = 8,
                                   int cols = 8) {
  arch::ArchConfig c;
  c.rows = rows;
  c.cols = cols;
  c.mem_data_bytes = data_bytes;
  c.mem_max_outstanding = max_outstanding;
  arch::ValidateArchConfig(c);
  return c;
}

inline golden::AccelGeometry GeometryOf(const arch::ArchConfig& c) {
  golden::AccelGeometry g;
  g.rows = c.rows;
  g.cols = c.cols;
  g.a_depth = c.a_depth;
  g.b_depth = c.b_depth;
  g.bias_depth = c.bias_depth;
  g.rq_depth = c.rq_depth;
  g.out_depth = c.out_depth;
  g.lut_slots = c.lut_slots;
  return g;
}

// The memories a program runs on: the external memory and the six SRAM images (window layout,
// as golden::MachineState and model::Srams hold them).
struct Images {
  golden::MemoryImage ext;
  std::vector<uint8_t> a, b, bias, rq, out, lut;

  Images(const arch::ArchConfig& config, size_t ext_bytes)
      : ext(ext_bytes),
        a(size_t(config.a_depth) * config.a_word_bytes()),
        b(size_t(config.b_depth) * config.b_word_bytes()),
        bias(size_t(config.bias_depth) * config.bias_word_bytes()),
        rq(size_t(config.rq_depth) * config.rq_word_bytes()),
        out(size_t(config.out_depth) * config.out_word_bytes()),
        lut(size_t(config.depth(arch::Region::kLut)) * config.lut_word_bytes()) {}
  bool operator==(const Images& o) const {
    return ext == o.ext && a == o.a && b == o.b && bias == o.bias && rq == o.rq && out == o.out &&
           lut == o.lut;
  }
};

inline void PutProgram(const std::vector<golden::Descriptor>& program, uint32_t q_base,
                       golden::MemoryImage& ext) {
  for (size_t i = 0; i < program.size(); ++i) {
    for (int w = 0; w < golden::kDescriptorWords; ++w) {
      for (int b = 0; b < 4; ++b) {
        ext.at(q_base + i * golden::kDescriptorBytes + size_t(4 * w + b)) =
            uint8_t(program[i][size_t(w)] >> (8 * b));
      }
    }
  }
}

struct ModelOutcome {
  ProgramRunResult result;
  Images images;
  std::string violation;            // the memory port's first protocol violation
  std::vector<ProgramCycle> trace;  // every cycle, when traced
};

// Runs the program's launches (already in images.ext) on the model, as the host driver does
// (RunLaunches, data_movement.md 14.4).
inline ModelOutcome RunModel(const arch::ArchConfig& config, const Images& in,
                             const std::vector<ProgramLaunchSpec>& launches, int latency,
                             int interval, bool skip = true, bool trace = false) {
  ExtMemory memory(in.ext.size(), {config.mem_data_bytes, latency, interval});
  memory.image() = in.ext;
  Srams srams(config);
  srams.image(arch::Region::kA) = in.a;
  srams.image(arch::Region::kB) = in.b;
  srams.image(arch::Region::kBias) = in.bias;
  srams.image(arch::Region::kRq) = in.rq;
  srams.image(arch::Region::kOut) = in.out;
  srams.image(arch::Region::kLut) = in.lut;
  ModelOutcome o{{}, in, {}, {}};
  ProgramRunOptions options;
  options.skip_idle = skip;
  if (trace) options.observer = [&o](const ProgramCycle& c) { o.trace.push_back(c); };
  o.result = RunLaunches(config, memory, srams, launches, options);
  o.images.ext = memory.image();
  o.images.a = srams.image(arch::Region::kA);
  o.images.b = srams.image(arch::Region::kB);
  o.images.bias = srams.image(arch::Region::kBias);
  o.images.rq = srams.image(arch::Region::kRq);
  o.images.out = srams.image(arch::Region::kOut);
  o.images.lut = srams.image(arch::Region::kLut);
  o.violation = memory.violation();
  return o;
}

// Runs the program at `q_base` (already in images.ext) on the model: one launch.
inline ModelOutcome RunModel(const arch::ArchConfig& config, const Images& in, uint32_t q_base,
                             uint32_t q_count, int latency, int interval, bool skip = true,
                             bool trace = false) {
  return RunModel(config, in, {ProgramLaunchSpec{q_base, q_count, 0}}, latency, interval, skip,
                  trace);
}

struct GoldenOutcome {
  golden::ProgramResult result;
  Images images;
};

// Golden's `run(state)` (returning a golden::ProgramResult) on the images: its result and the
// memories after it.
template <typename Run>
GoldenOutcome RunGoldenOn(const arch::ArchConfig& config, const Images& in, Run run) {
  golden::MachineState state(GeometryOf(config), in.ext.size());
  state.ext = in.ext;
  state.a = in.a;
  state.b = in.b;
  state.bias = in.bias;
  state.rq = in.rq;
  state.out = in.out;
  state.lut = in.lut;
  GoldenOutcome o{run(state), in};
  o.images.ext = state.ext;
  o.images.a = state.a;
  o.images.b = state.b;
  o.images.bias = state.bias;
  o.images.rq = state.rq;
  o.images.out = state.out;
  o.images.lut = state.lut;
  return o;
}

inline GoldenOutcome RunGolden(const arch::ArchConfig& config, const Images& in, uint32_t q_base,
                               uint32_t q_count) {
  return RunGoldenOn(config, in, [&](golden::MachineState& state) {
    return golden::RunQueue(GeometryOf(config), q_base, q_count, state);
  });
}

// The first differing byte of two images, for messages.
inline std::string FirstDifference(const std::vector<uint8_t>& got,
                                   const std::vector<uint8_t>& want) {
  if (got.size() != want.size()) return "sizes differ";
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      return "byte " + std::to_string(i) + ": " + std::to_string(got[i]) + " instead of " +
             std::to_string(want[i]);
    }
  }
  return "equal";
}

inline std::string ExtDifference(const golden::MemoryImage& got, const golden::MemoryImage& want) {
  uint64_t count = 0;
  const auto first = golden::FirstDifference(got, want, &count);
  if (!first) return "equal";
  if (got.size() != want.size()) return "sizes differ";
  return "byte " + std::to_string(*first) + ": " + std::to_string(got[*first]) + " instead of " +
         std::to_string(want[*first]) + ", " + std::to_string(count) + " bytes differ";
}

// The model against golden (data_movement.md 18): error and index always; the retired count and
// every memory unless the error is EXT_FAULT (14.3: which descriptors ran depends on timing).
inline void ExpectMatchesGolden(const ModelOutcome& m, const GoldenOutcome& g,
                                const std::string& what) {
  EXPECT_TRUE(m.violation.empty()) << what << ": " << m.violation;
  ASSERT_EQ(int(m.result.error), int(g.result.error))
      << what << ": model " << ProgramErrorName(m.result.error) << " at " << m.result.error_index
      << ", golden " << golden::ProgramErrorName(g.result.error) << " at " << g.result.error_index;
  if (g.result.error != golden::ProgramError::kNone) {
    EXPECT_EQ(m.result.error_index, g.result.error_index) << what;
  }
  if (g.result.error == golden::ProgramError::kExtFault) return;
  EXPECT_EQ(int64_t(m.result.retired), int64_t(g.result.retired)) << what;
  EXPECT_TRUE(m.images.ext == g.images.ext)
      << what << ": ext " << ExtDifference(m.images.ext, g.images.ext);
  EXPECT_TRUE(m.images.a == g.images.a)
      << what << ": A " << FirstDifference(m.images.a, g.images.a);
  EXPECT_TRUE(m.images.b == g.images.b)
      << what << ": B " << FirstDifference(m.images.b, g.images.b);
  EXPECT_TRUE(m.images.bias == g.images.bias)
      << what << ": bias " << FirstDifference(m.images.bias, g.images.bias);
  EXPECT_TRUE(m.images.rq == g.images.rq)
      << what << ": rq " << FirstDifference(m.images.rq, g.images.rq);
  EXPECT_TRUE(m.images.out == g.images.out)
      << what << ": out " << FirstDifference(m.images.out, g.images.out);
  EXPECT_TRUE(m.images.lut == g.images.lut)
      << what << ": LUT table " << FirstDifference(m.images.lut, g.images.lut);
}

// Internal consistency of a run's counters: no counter exceeds the cycles, the overlap is within
// both busy counts.
inline void ExpectPerfConsistent(const ProgramPerf& p, const std::string& what) {
  EXPECT_LE(p.dma_busy, p.cycles) << what;
  EXPECT_LE(p.compute_busy, p.cycles) << what;
  EXPECT_LE(p.overlap, std::min(p.dma_busy, p.compute_busy)) << what;
  EXPECT_LE(p.Busy(arch::BeatUnit::kMac), p.compute_busy) << what;
  EXPECT_LE(p.dma_wait, p.cycles) << what;
  EXPECT_LE(p.compute_wait, p.cycles) << what;
}

}  // namespace qacc::model::testing

#endif  // QACC_TESTS_MODEL_PROGRAM_TEST_UTIL_H_
