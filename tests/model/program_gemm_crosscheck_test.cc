// The golden program executor (golden/program.h) against the SystemC model's plain C++ datapath,
// on the same SRAM images: a GEMM descriptor executed by golden::Execute leaves the output SRAM
// byte for byte as model::RunCommand does, also with a slope stage and PReLU's per-channel words;
// EncodeGemm gives the CMD_* register values the host driver writes; golden::Validate and
// arch::ValidateCommand agree on every raw command; and a DMA LOAD / STORE moves bytes exactly as
// the host windows write and read them (3.3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "golden/activation.h"
#include "golden/program.h"
#include "golden/slope_stage.h"
#include "model/arch.h"
#include "model/gemm_job.h"
#include "model/model_only.h"
#include "model/srams.h"
#include "tests/model/model_test_util.h"

namespace qacc::model {
namespace {

using golden::AccelGeometry;
using golden::Descriptor;
using golden::MachineState;
using golden::ProgramError;

const std::vector<std::string> kConfigs = {"default", "rect_4x16", "tall_16x4"};

AccelGeometry GeometryOf(const arch::ArchConfig& config) {
  AccelGeometry g;
  g.rows = config.rows, g.cols = config.cols;
  g.a_depth = config.a_depth, g.b_depth = config.b_depth, g.bias_depth = config.bias_depth;
  g.rq_depth = config.rq_depth, g.out_depth = config.out_depth;
  g.lut_slots = config.lut_slots;
  return g;
}

void Load(Srams& srams, const std::vector<BusWrite>& writes) {
  for (const BusWrite& write : writes) {
    const auto region = static_cast<arch::Region>(arch::RegionBits(write.addr));
    srams.HostWrite(region, arch::WindowOffset(write.addr), write.data, write.strobe);
  }
}

// The job's fields written from the register table (3.2), independently of model::ToCommand.
golden::GemmFields FieldsOf(const GemmJob& job) {
  golden::GemmFields f;
  f.m = job.m, f.n = job.n, f.k = job.k;
  f.a_base = job.a_base, f.b_base = job.b_base, f.bias_base = job.bias_base;
  f.rq_base = job.rq_base, f.out_base = job.out_base;
  f.mode = (job.requant.rounding == golden::RequantRounding::kSingleRounding ? 1u : 0u) |
           (job.per_channel ? 2u : 0u) | (job.out_raw ? 4u : 0u) | (job.bias.empty() ? 0u : 8u) |
           (job.a_unsigned ? 16u : 0u) | (job.b_unsigned ? 32u : 0u);
  // The TPU-MLIR form (requant.md 6.1): bit 6, its mode's code [27:25] (golden's kAllRoundings
  // order) and its width's [29:28], written whatever the form (the TFLite form ignores them).
  uint32_t round = 0;
  while (golden::tpu_mlir::kAllRoundings[round] != job.requant.rshift_rounding) ++round;
  const uint32_t width = job.requant.mult_bits == 8 ? 0u : job.requant.mult_bits == 16 ? 1u : 2u;
  f.mode |= round << 25 | width << 28;
  if (job.requant.form == golden::RequantForm::kTpuMlir) f.mode |= 1u << 6;
  f.zp_ab = (static_cast<uint32_t>(job.a_zp) & 0x1FF) | (static_cast<uint32_t>(job.b_zp) & 0x1FF)
                                                            << 16;
  f.zp_out = job.requant.output_zero_point;
  f.clamp_min = job.requant.clamp_min;
  f.clamp_max = job.requant.clamp_max;
  f.mult = job.requant.multiplier;
  f.shift = static_cast<uint32_t>(job.requant.shift);  // EncodeGemm keeps [7:0]
  // ACT = SLOPE [11:8] = 3, and SLOPE_PER_CHANNEL (bit 7) with PReLU (requant.md 6.2, 6.3).
  if (job.slope) f.mode |= 3u << 8 | (job.channel_slope.empty() ? 0u : 1u << 7);
  return f;
}

// Random bases where the job fits, else 0 (the job is then skipped if it does not fit at all).
void PlaceJob(const arch::ArchConfig& config, GemmJob& job, std::mt19937& rng) {
  const arch::Timing t(config.rows, config.cols, job.m, job.n, job.k);
  const int64_t out_words = arch::OutWords(t.T(), config.rows, job.out_raw);
  auto base = [&rng](int64_t depth, int64_t used) {
    return depth > used
               ? static_cast<uint32_t>(std::uniform_int_distribution<int64_t>(0, depth - used)(rng))
               : 0u;
  };
  job.a_base = base(config.a_depth, t.MB() * job.k);
  job.b_base = base(config.b_depth, t.NB() * job.k);
  job.bias_base = base(config.bias_depth, t.NB());
  job.rq_base = base(config.rq_depth, std::max<int64_t>(1, RqWordsPerTile(job)) * t.NB());
  job.out_base = base(config.out_depth, out_words);
}

// Random bytes in every SRAM as the host windows could have left them: the rq shift words hold
// only bits [7:0].
void FillSrams(Srams& srams, std::mt19937& rng) {
  for (arch::Region region : {arch::Region::kA, arch::Region::kB, arch::Region::kBias,
                              arch::Region::kRq, arch::Region::kOut}) {
    std::vector<uint8_t>& image = srams.image(region);
    for (uint8_t& b : image) b = static_cast<uint8_t>(rng());
  }
  std::vector<uint8_t>& rq = srams.image(arch::Region::kRq);
  for (size_t shift = 4; shift < rq.size(); shift += 8) {
    rq[shift + 1] = rq[shift + 2] = rq[shift + 3] = 0;
  }
}

MachineState StateOf(const AccelGeometry& g, const Srams& srams) {
  MachineState state(g, 0);
  state.a = srams.image(arch::Region::kA);
  state.b = srams.image(arch::Region::kB);
  state.bias = srams.image(arch::Region::kBias);
  state.rq = srams.image(arch::Region::kRq);
  state.out = srams.image(arch::Region::kOut);
  return state;
}

std::string Describe(const GemmJob& job) {
  return "M=" + std::to_string(job.m) + " N=" + std::to_string(job.n) +
         " K=" + std::to_string(job.k) + " raw=" + std::to_string(job.out_raw) +
         " per_channel=" + std::to_string(job.per_channel) +
         " bias=" + std::to_string(!job.bias.empty()) + " out_base=" + std::to_string(job.out_base);
}

class ProgramGemmCrosscheck : public ::testing::TestWithParam<std::string> {};

TEST_P(ProgramGemmCrosscheck, OutSramEqualsTheModel) {
  const arch::ArchConfig config = testing::Config(GetParam());
  const AccelGeometry g = GeometryOf(config);
  std::mt19937 rng(4242);
  int compared = 0;
  for (int trial = 0; trial < 250; ++trial) {
    GemmJob job = testing::RandomJob(rng, trial < 200 ? 40 : 90);
    PlaceJob(config, job, rng);
    const Descriptor d = golden::EncodeGemm(FieldsOf(job), golden::Header{});
    const ProgramError golden_check = golden::Validate(g, d);
    ASSERT_EQ(static_cast<int>(golden_check),
              static_cast<int>(arch::ValidateCommand(config, ToCommand(job))))
        << Describe(job);
    if (golden_check != ProgramError::kNone) continue;
    Srams srams(config);
    FillSrams(srams, rng);
    Load(srams, PackOperands(config, job));
    MachineState state = StateOf(g, srams);
    const RunResult model = RunCommand(config, ToCommand(job), srams);
    ASSERT_EQ(model.error, arch::ErrCode::kNone) << Describe(job);
    ASSERT_EQ(golden::Execute(g, d, state), ProgramError::kNone);
    const std::vector<uint8_t>& expected = srams.image(arch::Region::kOut);
    ASSERT_EQ(state.out.size(), expected.size());
    size_t mismatches = 0, first = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      if (state.out[i] != expected[i] && mismatches++ == 0) first = i;
    }
    ASSERT_EQ(mismatches, 0u) << "trial " << trial << " " << Describe(job) << ": first at out byte "
                              << first << " golden " << int(state.out[first]) << " model "
                              << int(expected[first]);
    EXPECT_TRUE(state.a == srams.image(arch::Region::kA));
    EXPECT_TRUE(state.rq == srams.image(arch::Region::kRq));
    ++compared;
  }
  EXPECT_GT(compared, 150);
}

// The slope stage after requant (requant.md 6.2) and PReLU's per-channel NEG side (6.3): golden's
// executor (its registers in MachineState, the words in its rq image) against the model, on jobs
// whose slope is golden's LeakyRelu / Prelu (TFLite form) or seed 002's 8-bit form.
TEST_P(ProgramGemmCrosscheck, SlopeAndPreluOutSramEqualsTheModel) {
  const arch::ArchConfig config = testing::Config(GetParam());
  const AccelGeometry g = GeometryOf(config);
  std::mt19937 rng(4243);
  auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int compared = 0, per_channel = 0;
  for (int trial = 0; trial < 150; ++trial) {
    GemmJob job = testing::RandomJob(rng, 40);
    job.out_raw = false;
    golden::QuantSpec in, out;
    in.zero_point = job.requant.output_zero_point;
    in.is_signed = in.zero_point < 0 || uniform(0, 1);
    in.scale = std::ldexp(1.0, -uniform(2, 9));
    out.is_signed = uniform(0, 1);
    out.zero_point = out.is_signed ? uniform(-10, 10) : uniform(0, 20);
    const bool int8_form = uniform(0, 2) == 0;
    out.scale = int8_form ? in.scale : in.scale * std::ldexp(1.0, uniform(-2, 2));
    std::vector<double> alphas(size_t(job.n));
    for (double& alpha : alphas) alpha = uniform(-1000, 1000) / 500.0;
    std::vector<golden::SlopeStageParams> channels;
    if (int8_form) {
      const golden::Int8SlopeParams p = golden::MakeInt8SlopePreluParams(in, out, alphas);
      for (int n = 0; n < job.n; ++n) channels.push_back(golden::SlopeFromInt8Slope(p, size_t(n)));
    } else {
      for (const auto& p : golden::MakePreluParams(in, out, alphas, job.requant.rounding))
        channels.push_back(golden::SlopeFromLeakyRelu(p));
    }
    job.slope = channels[size_t(uniform(0, job.n - 1))];
    if (uniform(0, 2) != 0) job.channel_slope = channels;
    PlaceJob(config, job, rng);
    const Descriptor d = golden::EncodeGemm(FieldsOf(job), golden::Header{});
    const ProgramError golden_check = golden::Validate(g, d);
    ASSERT_EQ(static_cast<int>(golden_check),
              static_cast<int>(arch::ValidateCommand(config, ToCommand(job))))
        << Describe(job);
    if (golden_check != ProgramError::kNone) continue;
    Srams srams(config);
    FillSrams(srams, rng);
    Load(srams, PackOperands(config, job));
    MachineState state = StateOf(g, srams);
    const golden::SlopeRegisters registers = golden::EncodeSlopeRegisters(*job.slope);
    for (size_t i = 0; i < registers.size(); ++i) {
      state.unit_registers[arch::reg::kSlopePosMult + 4 * uint32_t(i)] = registers[i];
    }
    const RunResult model = RunCommand(config, ToCommand(job), srams);
    ASSERT_EQ(model.error, arch::ErrCode::kNone) << Describe(job);
    ASSERT_EQ(golden::Execute(g, d, state), ProgramError::kNone) << Describe(job);
    ASSERT_TRUE(state.out == srams.image(arch::Region::kOut))
        << "trial " << trial << " " << Describe(job) << " prelu " << !job.channel_slope.empty();
    ++compared;
    per_channel += !job.channel_slope.empty();
  }
  EXPECT_GT(compared, 100);
  EXPECT_GT(per_channel, 60);
}

// Descriptor word i is the value the driver writes to CMD register 0x080 + 4i.
TEST_P(ProgramGemmCrosscheck, DescriptorWordsAreTheCommandWrites) {
  const arch::ArchConfig config = testing::Config(GetParam());
  std::mt19937 rng(77);
  for (int trial = 0; trial < 500; ++trial) {
    GemmJob job = testing::RandomJob(rng, 70);
    PlaceJob(config, job, rng);
    const Descriptor d = golden::EncodeGemm(FieldsOf(job), golden::Header{});
    const std::vector<BusWrite> writes = CommandWrites(job);
    ASSERT_EQ(writes.size(), size_t{golden::kDescriptorWords});
    std::map<uint32_t, uint32_t> by_offset;
    for (const BusWrite& w : writes) by_offset[w.addr] = w.data;
    for (int i = 0; i < golden::kDescriptorWords; ++i) {
      const uint32_t offset = arch::reg::kCmdM + 4 * i;
      ASSERT_EQ(by_offset.count(offset), 1u) << offset;
      EXPECT_EQ(d[i], by_offset[offset]) << "word " << i << " " << Describe(job);
    }
  }
}

// Any 16 raw register words: the golden checks (on the descriptor) and the model's (on the
// registers) give the same code. Values cluster at the boundaries of every check.
TEST_P(ProgramGemmCrosscheck, ValidationAgreesOnRawCommands) {
  const arch::ArchConfig config = testing::Config(GetParam());
  const AccelGeometry g = GeometryOf(config);
  std::mt19937 rng(9);
  auto pick = [&rng](std::initializer_list<int64_t> choices) {
    std::vector<int64_t> list(choices);
    return list[std::uniform_int_distribution<size_t>(0, list.size() - 1)(rng)];
  };
  auto near = [&rng](int64_t x) {
    return static_cast<uint32_t>(x + std::uniform_int_distribution<int>(-2, 2)(rng));
  };
  std::map<int, int> seen;
  for (int trial = 0; trial < 40000; ++trial) {
    arch::Command cmd;
    const auto dim = [&]() {
      return static_cast<uint32_t>(pick({0, 1, 2, 7, 9, 17, 33, 100, 0x10000, 0x10003, 0xFFFF}));
    };
    cmd.m = dim(), cmd.n = dim(), cmd.k = dim();
    const arch::Timing t(config.rows, config.cols, cmd.M(), cmd.N(), cmd.K());
    const bool raw = rng() & 1;
    cmd.mode = (rng() & 0x3F) | (rng() % 8 == 0 ? (rng() & 0xF) << 8 : 0) |
               (rng() % 4 == 0 ? rng() & 0xFFFFF000 : 0);
    cmd.mode = raw ? cmd.mode | 4u : cmd.mode & ~4u;
    cmd.a_base = near(int64_t{config.a_depth} - t.MB() * t.k);
    cmd.b_base = rng() & 1 ? near(int64_t{config.b_depth} - t.NB() * t.k) : 0;
    cmd.bias_base = near(int64_t{config.bias_depth} - t.NB());
    cmd.rq_base = near(int64_t{config.rq_depth} - t.NB());
    cmd.out_base = near(int64_t{config.out_depth} - arch::OutWords(t.T(), config.rows, raw));
    if (rng() % 4 == 0) cmd.a_base |= 0x100000 << (rng() % 12);  // above the 20-bit field
    cmd.zp_ab = static_cast<uint32_t>(pick({0, 0x17F, 0x180, 0xFF, 0x1FF0080, 0x17F0000})) |
                (rng() % 4 == 0 ? rng() & 0xFE00FE00 : 0);
    cmd.zp_out = static_cast<int32_t>(rng());
    cmd.clamp_min = static_cast<int32_t>(pick({-129, -128, 0, 5, 255, 256, INT32_MIN}));
    cmd.clamp_max = static_cast<int32_t>(pick({-129, -128, 4, 127, 255, 256, INT32_MAX}));
    cmd.mult = static_cast<int32_t>(pick(
        {0, 1, (1 << 30) - 1, 1 << 30, INT32_MAX, INT32_MIN, -1, static_cast<int64_t>(rng())}));
    cmd.shift =
        static_cast<uint32_t>(pick({0, 30, 31, 32, 33, 63})) | (rng() % 4 == 0 ? rng() << 6 : 0);
    cmd.op = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) : 0;
    Descriptor d{};
    const uint32_t words[] = {cmd.m,
                              cmd.n,
                              cmd.k,
                              cmd.a_base,
                              cmd.b_base,
                              cmd.bias_base,
                              cmd.rq_base,
                              cmd.out_base,
                              cmd.mode,
                              cmd.zp_ab,
                              uint32_t(cmd.zp_out),
                              uint32_t(cmd.clamp_min),
                              uint32_t(cmd.clamp_max),
                              uint32_t(cmd.mult),
                              cmd.shift,
                              cmd.op};
    std::copy(std::begin(words), std::end(words), d.begin());
    const int model = static_cast<int>(arch::ValidateCommand(config, cmd));
    // The model's registers know only GEMM: a descriptor opcode 1..5 is
    // LOAD/STORE/MOVE/SET/ELTWISE.
    if (cmd.Op() >= 1 && cmd.Op() < arch::kNumDescOpcodes) {
      EXPECT_EQ(model, static_cast<int>(ProgramError::kBadOpcode));
      continue;
    }
    ASSERT_EQ(static_cast<int>(golden::Validate(g, d)), model) << "trial " << trial;
    ++seen[model];
  }
  for (int code = 0; code <= 10; ++code) EXPECT_GT(seen[code], 20) << "code " << code;
}

// A LOAD writes the bytes a full-strobe host window write of the same words leaves; a STORE gives
// the words a host window read returns (the rq shift word: bits [7:0] kept, read sign-extended).
TEST_P(ProgramGemmCrosscheck, DmaBytesEqualHostWindowAccess) {
  const arch::ArchConfig config = testing::Config(GetParam());
  const AccelGeometry g = GeometryOf(config);
  std::mt19937 rng(5);
  const arch::Region regions[] = {arch::Region::kA,  arch::Region::kB,   arch::Region::kBias,
                                  arch::Region::kRq, arch::Region::kOut, arch::Region::kLut};
  for (uint32_t sram = 1; sram <= 6; ++sram) {
    const arch::Region region = regions[sram - 1];
    // Section 12's units (out: int32 words; the LUT table: 8 16-bit entries).
    const uint32_t rows = g.rows, cols = g.cols;
    const uint32_t unit = sram == 1   ? rows
                          : sram == 2 ? cols
                          : sram == 4 ? 8 * cols
                          : sram == 6 ? 16
                                      : 4 * cols;
    const uint32_t units = 12;
    golden::DmaFields f;
    f.sram = sram, f.out_int32 = true, f.count0 = units, f.sram_base = 3;
    MachineState state(g, 2 * units * unit);
    for (uint64_t i = 0; i < state.ext.size(); ++i) state.ext[i] = static_cast<uint8_t>(rng());
    Srams srams(config);
    for (uint32_t i = 0; i < units * unit; i += 4) {
      uint32_t word = 0;
      for (int b = 0; b < 4; ++b) word |= uint32_t{state.ext[i + b]} << (8 * b);
      srams.HostWrite(region, 3 * unit + i, word, 0xF);
    }
    state.sram(static_cast<golden::Sram>(sram)) =
        std::vector<uint8_t>(srams.image(region).size(), 0);
    ASSERT_EQ(golden::Execute(g, golden::EncodeDma(golden::Op::kLoad, f, golden::Header{}), state),
              ProgramError::kNone);
    EXPECT_TRUE(state.sram(static_cast<golden::Sram>(sram)) == srams.image(region)) << sram;
    f.ext_addr = units * unit;
    ASSERT_EQ(golden::Execute(g, golden::EncodeDma(golden::Op::kStore, f, golden::Header{}), state),
              ProgramError::kNone);
    for (uint32_t i = 0; i < units * unit; i += 4) {
      uint32_t word = 0;
      for (int b = 0; b < 4; ++b) word |= uint32_t{state.ext[units * unit + i + b]} << (8 * b);
      ASSERT_EQ(word, srams.HostRead(region, 3 * unit + i)) << "sram " << sram << " byte " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, ProgramGemmCrosscheck, ::testing::ValuesIn(kConfigs));

}  // namespace
}  // namespace qacc::model
