#include "sim/testgen/lut_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "golden/elementwise.h"
#include "golden/lut_unit.h"
#include "sim/testgen/eltwise_tests.h"
#include "sim/testgen/gemm_tests.h"

namespace qacc::sim {

namespace {

constexpr int kMaxDrawTries = 64;

golden::Lut DrawLut(Rng& rng, int in_bits, int entry_bits) {
  const std::vector<std::string>& names = golden::ElementwiseNames();
  // A draw whose outputs are all 0 (relu over codes that are all negative, ...) has no derived
  // scale; draw again.
  for (int attempt = 0; attempt < kMaxDrawTries; ++attempt) {
    golden::LutSpec spec;
    const bool seed = rng.Chance(20);  // seed 000's compat mode: symmetric, truncating
    spec.mode = seed ? golden::LutMode::kSeedCompat : golden::LutMode::kExact;
    spec.rounding = seed ? golden::RoundingMode::kTowardZero : golden::RoundingMode::kHalfToEven;
    spec.in.bits = in_bits;
    spec.in.is_signed = seed || rng.Chance(60);
    spec.in.narrow = spec.in.is_signed && rng.Chance(30);
    spec.in.scale = rng.Pick<double>({1.0, 3.0, 6.0, 10.0}) / double(spec.in.qmax());
    spec.in.zero_point = 0;
    if (!seed && rng.Chance(50)) {
      spec.in.zero_point = int32_t(rng.Uniform(spec.in.qmin(), spec.in.qmax()));
    }
    spec.out.bits = entry_bits;
    spec.out.is_signed = seed || rng.Chance(70);
    spec.derive_out = true;
    const std::string& name = names[size_t(rng.Uniform(0, int64_t(names.size()) - 1))];
    try {
      return golden::BuildLut(golden::GetElementwise(name), spec);
    } catch (const std::invalid_argument&) {
      continue;
    }
  }
  throw std::logic_error("lut tests: no table could be drawn");
}

// Halves M until the result fits the out SRAM, then draws OUT_BASE.
void FitOut(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
  auto words = [&] {
    const arch::Timing t(config.rows, config.cols, job.m, job.n, job.k);
    return arch::OutWords(t.T(), config.rows, arch::OutLayoutOf(model::ToCommand(job)));
  };
  while (words() > int64_t{config.out_depth} && job.m > 1) {
    job.m = std::max(1, job.m / 2);
    job.a.resize(size_t(job.m) * size_t(job.k));
  }
  job.out_base = uint32_t(rng.Uniform(0, int64_t{config.out_depth} - words()));
}

uint32_t RandomSlot(Rng& rng, const arch::ArchConfig& config) {
  // The edges twice as often as any other slot.
  if (rng.Chance(30)) return rng.Chance(50) ? 0u : uint32_t(config.lut_slots - 1);
  return uint32_t(rng.Uniform(0, config.lut_slots - 1));
}

// A gemm_random job with a random table fused.
model::GemmJob RandomLutJob(Rng& rng, const arch::ArchConfig& config, uint32_t slot) {
  model::GemmJob job = MakeGemmTest("gemm_random", uint64_t(rng.Uniform(0, 1 << 30)), config);
  job.slope.reset();  // the table takes the activation's place (ACT is one unit)
  FuseLut(rng, config, RandomLut(rng), slot, rng.Chance(20), job);
  return job;
}

// A job of small random shape with a random table: several fit one run.
model::GemmJob SmallLutJob(Rng& rng, const arch::ArchConfig& config, uint32_t slot) {
  const int m = int(rng.Uniform(1, 3 * config.rows)), n = int(rng.Uniform(1, 2 * config.cols));
  const int k = int(rng.Uniform(1, 24));
  model::GemmJob job = RandomJobOfShape(uint64_t(rng.Uniform(0, 1 << 30)), config, m, n, k);
  FuseLut(rng, config, RandomLut(rng), slot, rng.Chance(20), job);
  return job;
}

// Loads `lut` into `slot` through the host window, whole words, as a driver does between commands.
void LoadSlot(ProgramBuilder& b, const golden::Lut& lut, uint32_t slot) {
  const std::vector<uint8_t> image = golden::LutSlotImage(lut);
  for (size_t i = 0; i < image.size(); i += 4) {
    const uint32_t data = uint32_t{image[i]} | uint32_t{image[i + 1]} << 8 |
                          uint32_t{image[i + 2]} << 16 | uint32_t{image[i + 3]} << 24;
    b.Write(arch::kLutBase + slot * golden::kLutSlotBytes + uint32_t(i), data);
  }
}

void RunLutJob(ProgramBuilder& b, const model::GemmJob& job, bool irq) {
  const int index = b.AddJob(job);
  b.LoadOperands(index);
  b.WriteCommand(index);
  b.Launch(index, irq);
  b.ReadRegisters();
  b.ReadBackOutput(index);
  b.CheckSrams();
}

Program GenFused(Rng& rng, const arch::ArchConfig& config) {
  return SingleJobProgram(config, RandomLutJob(rng, config, RandomSlot(rng, config)));
}

Program GenSlots(Rng& rng, const arch::ArchConfig& config) {
  ProgramBuilder b(config);
  std::vector<uint32_t> used;
  const int commands = int(rng.Uniform(3, 6));
  for (int i = 0; i < commands; ++i) {
    // Half the time a slot a command used before: it is reloaded with this job's table.
    const uint32_t slot = !used.empty() && rng.Chance(50)
                              ? used[size_t(rng.Uniform(0, int64_t(used.size()) - 1))]
                              : RandomSlot(rng, config);
    // Other slots loaded while idle: the command must read its own slot only.
    if (config.lut_slots > 1 && rng.Chance(50)) {
      uint32_t other = uint32_t(rng.Uniform(0, config.lut_slots - 2));
      if (other >= slot) ++other;
      LoadSlot(b, RandomLut(rng), other);
    }
    RunLutJob(b, SmallLutJob(rng, config, slot), rng.Chance(30));
    used.push_back(slot);
  }
  return b.Take();
}

// Two commands per slot whose requant codes are every byte 0..255: M = 256 rows of A (K = 1)
// hold the codes, B is all ones, and the requant stage is the identity (multiplier 2^30, shift 1:
// x * 2^31 / 2^31 exactly), so row m of every lane looks up address m of the slot. The second
// round reloads every slot after a command read it.
Program GenSweep(Rng& rng, const arch::ArchConfig& config) {
  ProgramBuilder b(config);
  for (uint32_t i = 0; i < 2 * uint32_t(config.lut_slots); ++i) {
    const uint32_t slot = i % uint32_t(config.lut_slots);
    const golden::Lut lut = RandomLut(rng, 8, rng.Chance(50) ? 8 : 16);
    model::GemmJob job;
    job.m = 256;
    job.n = int(rng.Uniform(1, config.cols));
    job.k = 1;
    job.a_unsigned = !lut.in().is_signed;  // A's bytes m are the codes -128..127 or 0..255
    for (int m = 0; m < job.m; ++m) job.a.push_back(uint8_t(m));
    job.b.assign(size_t(job.n), uint8_t{1});
    job.requant.multiplier = 1 << 30;
    job.requant.shift = 1;
    job.requant.output_zero_point = 0;
    job.requant.clamp_min = job.a_unsigned ? 0 : -128;
    job.requant.clamp_max = job.a_unsigned ? 255 : 127;
    job.lut = lut;
    job.lut_slot = slot;
    FitOut(rng, config, job);
    RunLutJob(b, job, false);
  }
  return b.Take();
}

struct LutTestDef {
  TestInfo info;
  std::function<Program(Rng&, const arch::ArchConfig&)> generate;
};

const std::vector<LutTestDef>& Defs() {
  static const std::vector<LutTestDef> defs = {
      {{"lut_fused",
        "a random GEMM with a random table fused (ACT = LUT): every function, input width, "
        "signedness, entry width and slot"},
       GenFused},
      {{"lut_slots",
        "several fused GEMMs over several slots: reloads between commands, other "
        "slots loaded while idle"},
       GenSlots},
      {{"lut_sweep",
        "every code through an 8-bit table in every slot, twice: each address read, each slot "
        "reloaded"},
       GenSweep},
      {{"lut_eltwise",
        "random programs of ELTWISE among LOAD, STORE, MOVE and GEMM: every OP, both add forms, "
        "lookups of every slot and width, in place and disjoint"},
       GenEltwise},
      {{"lut_eltwise_chain",
        "GEMM -> ELTWISE lookup -> MOVE -> GEMM, and two GEMMs -> ELTWISE add (a residual), with "
        "golden's tables"},
       GenEltwiseChain},
      {{"lut_eltwise_whole",
        "ELTWISE over the whole out SRAM in place, its halves added, 16-bit entries of its top "
        "third into the rest"},
       GenEltwiseWhole},
  };
  return defs;
}

}  // namespace

golden::Lut RandomLut(Rng& rng, int in_bits, int entry_bits) {
  return DrawLut(rng, in_bits, entry_bits);
}

golden::Lut RandomLut(Rng& rng) {
  const int in_bits = int(rng.Uniform(arch::kLutMinInBits, arch::kLutMaxInBits));
  return DrawLut(rng, in_bits, rng.Chance(50) ? 8 : 16);
}

void FuseLut(Rng& rng, const arch::ArchConfig& config, golden::Lut lut, uint32_t slot,
             bool wide_clamp, model::GemmJob& job) {
  const golden::QuantSpec& in = lut.in();
  job.out_raw = false;
  job.requant.output_zero_point = in.zero_point;
  job.requant.clamp_min = int32_t(in.qmin());
  job.requant.clamp_max = int32_t(in.qmax());
  if (wide_clamp) {  // any legal int8-mode clamp around the zero point
    job.requant.clamp_min = int32_t(rng.Uniform(arch::kMinInt8ModeClamp, in.zero_point));
    job.requant.clamp_max = int32_t(rng.Uniform(in.zero_point, arch::kMaxInt8ModeClamp));
  }
  job.lut = std::move(lut);
  job.lut_slot = slot;
  FitOut(rng, config, job);
}

std::vector<TestInfo> LutTests() {
  std::vector<TestInfo> tests;
  for (const LutTestDef& def : Defs()) tests.push_back(def.info);
  return tests;
}

Program MakeLutTest(std::string_view name, uint64_t seed, const arch::ArchConfig& config) {
  for (const LutTestDef& def : Defs()) {
    if (def.info.name != name) continue;
    Rng rng(HashName(name) ^ seed);
    return def.generate(rng, config);
  }
  throw std::invalid_argument(fmt::format("unknown test '{}' in suite lut", name));
}

}  // namespace qacc::sim
