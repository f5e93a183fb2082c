#include "sim/testgen/program_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/network.h"
#include "compiler/reference.h"
#include "golden/gemm.h"
#include "model/srams.h"
#include "sim/testgen/compiled_program.h"
#include "sim/testgen/gemm_tests.h"
#include "sim/testgen/lut_tests.h"
#include "sim/testgen/rng.h"
#include "sim/testgen/slope_draw.h"

namespace qacc::sim {

namespace {

constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kMinMult = int32_t{1} << 30;

using ErrCode = arch::ErrCode;

// A generator's own consistency: what it calls legal is legal, what it calls illegal fails with
// the code it names. The co-simulation checks the model's verdict again at each launch.
void Expect(const arch::ArchConfig& config, const arch::Command& cmd, ErrCode want,
            const std::string& what) {
  const ErrCode got = arch::ValidateCommand(config, cmd);
  if (got != want) {
    throw std::logic_error(fmt::format("program generator bug: {} on {}: {} instead of {}", what,
                                       config.name, arch::ErrCodeName(got),
                                       arch::ErrCodeName(want)));
  }
}

int64_t OutWords(const arch::ArchConfig& config, const model::GemmJob& job) {
  const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k);
  return arch::OutWords(timing.T(), config.rows, arch::OutLayoutOf(model::ToCommand(job)));
}

// A small random job: up to two tiles in each dimension, K up to twice the array.
model::GemmJob SmallJob(Rng& rng, const arch::ArchConfig& config) {
  const int p = std::max(config.rows, config.cols);
  return RandomJobOfShape(rng.Next(), config, int(rng.Uniform(1, 2 * config.rows + 1)),
                          int(rng.Uniform(1, 2 * config.cols + 1)), int(rng.Uniform(1, 2 * p + 1)));
}

// Forces a per-tensor, int8-output job of the TFLite form (the requant registers matter).
void MakePerTensorInt8(model::GemmJob& job) {
  job.requant.form = golden::RequantForm::kTflite;
  job.out_raw = false;
  job.per_channel = false;
  job.channel_mult.clear();
  job.channel_shift.clear();
  if (job.requant.multiplier != 0 && job.requant.multiplier < kMinMult) {
    job.requant.multiplier = kMinMult;
  }
}

// Sets the job's per-channel parameters (N entries) from a per-lane rule.
void SetPerChannel(model::GemmJob& job, const std::function<int32_t(int)>& mult,
                   const std::function<int(int)>& shift) {
  job.per_channel = true;
  job.channel_mult.resize(size_t(job.n));
  job.channel_shift.resize(size_t(job.n));
  for (int n = 0; n < job.n; ++n) {
    job.channel_mult[size_t(n)] = mult(n);
    job.channel_shift[size_t(n)] = shift(n);
  }
}

// The driver's steps for one legal job: operands, command, START (IRQ_EN as asked), wait, every
// register, the result read back against golden, every SRAM compared.
int RunJob(ProgramBuilder& b, const model::GemmJob& job, bool irq_enable) {
  Expect(b.config(), model::ToCommand(job), ErrCode::kNone, "a legal job");
  const int index = b.AddJob(job);
  b.LoadOperands(index);
  b.WriteCommand(index);
  b.Launch(index, irq_enable);
  b.ReadRegisters();
  b.ReadBackOutput(index);
  b.CheckSrams();
  return index;
}

// After a command: acknowledge DONE (and ERROR) like an interrupt handler, or leave them set for
// the next launch to clear.
void MaybeAcknowledge(Rng& rng, ProgramBuilder& b) {
  const uint32_t status = arch::kRegsBase + arch::reg::kStatus;
  b.Read(status);
  if (rng.Chance(50)) {
    b.Write(status, rng.Pick<uint32_t>({arch::kStatusDone, arch::kStatusError,
                                        arch::kStatusDone | arch::kStatusError}));
    b.Read(status);
  }
}

// ---- prog_chain ---------------------------------------------------------------------------------

Program GenChain(Rng& rng, const arch::ArchConfig& config) {
  ProgramBuilder b(config);
  const int p = std::max(config.rows, config.cols);
  model::GemmJob first =
      RandomJobOfShape(rng.Next(), config, int(rng.Uniform(1, 3 * config.rows)),
                       int(rng.Uniform(1, 3 * config.cols)), int(rng.Uniform(1, 3 * p)));
  first.out_raw = false;
  first.out_base = uint32_t(rng.Uniform(0, config.out_depth - OutWords(config, first)));
  bool irq = rng.Chance(50);
  RunJob(b, first, irq);
  MaybeAcknowledge(rng, b);

  // The next command's A is this one's output: M stays, K = the previous N.
  model::GemmJob prev = first;
  const int links = int(rng.Uniform(1, 3));
  for (int link = 0; link < links; ++link) {
    const golden::Matrix<int32_t> out = model::GoldenOutput(prev);
    model::GemmJob next =
        RandomJobOfShape(rng.Next(), config, prev.m, int(rng.Uniform(1, 3 * config.cols)), prev.n);
    next.a_unsigned = prev.requant.clamp_min >= 0;
    next.a_zp = std::clamp(prev.requant.output_zero_point, next.a_unsigned ? 0 : -128,
                           next.a_unsigned ? 255 : 127);
    next.a.resize(size_t(next.m) * size_t(next.k));
    for (int m = 0; m < next.m; ++m) {
      for (int k = 0; k < next.k; ++k) {
        next.a[size_t(m) * size_t(next.k) + size_t(k)] = static_cast<uint8_t>(out.at(m, k));
      }
    }
    next.out_raw = link + 1 == links && rng.Chance(30);
    // The TPU-MLIR requant form on a third of the links (requant.md 6.1), scaled to their data.
    if (rng.Chance(33)) DrawTpuMlirForm(rng.Next(), next);
    const arch::Timing timing(config.rows, config.cols, next.m, next.n, next.k);
    next.a_base = uint32_t(rng.Uniform(0, config.a_depth - timing.MB() * next.k));
    next.b_base = uint32_t(rng.Uniform(0, config.b_depth - timing.NB() * next.k));
    next.out_base = uint32_t(rng.Uniform(0, config.out_depth - OutWords(config, next)));
    irq = rng.Chance(50);
    RunJob(b, next, irq);
    MaybeAcknowledge(rng, b);
    // Back to back: the same registers launched twice more, each START right after DONE; same
    // result.
    if (rng.Chance(60)) {
      const int index = int(b.program().jobs.size()) - 1;
      b.Launch(index, rng.Chance(50));
      b.Launch(index, rng.Chance(50));
      b.ReadRegisters();
      b.ReadBackOutput(index);
      b.CheckSrams();
    }
    prev = next;
    if (prev.out_raw) break;
  }
  return b.Take();
}

// ---- prog_errors --------------------------------------------------------------------------------

// One boundary: a legal job at the last legal value (run whole), or an illegal command (the first
// illegal value) with the code it must fail with.
struct Case {
  std::string what;
  model::GemmJob job;  // the legal job, or the base of the illegal command
  bool legal = true;
  arch::Command illegal;  // the registers of an illegal command
  ErrCode error = ErrCode::kNone;
};

void AddPair(std::vector<Case>& cases, const std::string& what, const model::GemmJob& legal,
             const std::function<void(arch::Command&)>& break_it, ErrCode error) {
  cases.push_back({what + ": last legal value", legal, true, {}, ErrCode::kNone});
  Case bad{what + ": first illegal value", legal, false, model::ToCommand(legal), error};
  break_it(bad.illegal);
  cases.push_back(bad);
}

// The slope stage's rule (requant.md 6.2, BAD_SLOPE) at each boundary: ZP_OUT (the input codes'
// zero point) -128 and 255; each side's form at its extremes (a Q31 multiplier 2^30, shifts -31
// and 30, an 8-bit multiplier -128 and 127, rshift 63, the last mode and width) and the clamp;
// each with its first illegal value written to the registers. BAD_SHAPE for OUT_RAW with it.
void AddSlopeCases(Rng& rng, const arch::ArchConfig& config, std::vector<Case>& cases) {
  auto job_with = [&](const std::function<void(golden::SlopeStageParams&)>& edit) {
    model::GemmJob job = SmallJob(rng, config);
    MakePerTensorInt8(job);
    DrawSlope(rng, SlopeDraw::kAny, job);
    edit(*job.slope);
    golden::ValidateSlopeStage(*job.slope, job.requant.output_zero_point);
    return job;
  };
  auto reg = [](size_t i, uint32_t value) {
    return [i, value](arch::Command& c) { c.slope_regs[i] = value; };
  };
  auto tflite = [](golden::SlopeSide& s, int32_t mult, int shift) {
    s.requant.form = golden::RequantForm::kTflite;
    s.requant.multiplier = mult;
    s.requant.shift = shift;
  };
  auto tpu = [](golden::SlopeSide& s, int bits, int32_t mult, int rshift) {
    s.requant.form = golden::RequantForm::kTpuMlir;
    s.requant.mult_bits = bits;
    s.requant.multiplier = mult;
    s.requant.shift = rshift;
  };
  for (const int32_t zp : {-128, 255}) {
    model::GemmJob job = job_with([](golden::SlopeStageParams&) {});
    job.requant.output_zero_point = zp;
    job.requant.clamp_min = -128;
    job.requant.clamp_max = 255;
    AddPair(
        cases, fmt::format("BAD_SLOPE ZP_OUT {} / {}", zp, zp < 0 ? zp - 1 : zp + 1), job,
        [zp](arch::Command& c) { c.zp_out = zp < 0 ? zp - 1 : zp + 1; }, ErrCode::kBadSlope);
  }
  constexpr size_t kPosMult = 0, kPosShift = 1, kPosCfg = 3, kNegMult = 4, kNegShift = 5,
                   kNegCfg = 7;
  constexpr size_t kClampMin = 8, kClampMax = 9;
  AddPair(cases, "BAD_SLOPE NEG multiplier 2^30 / 2^30 - 1",
          job_with([&](auto& p) { tflite(p.negative, kMinMult, -20); }),
          reg(kNegMult, uint32_t(kMinMult - 1)), ErrCode::kBadSlope);
  AddPair(cases, "BAD_SLOPE POS shift 30 / 31",
          job_with([&](auto& p) { tflite(p.positive, 0, 30); }), reg(kPosShift, 31),
          ErrCode::kBadSlope);
  AddPair(cases, "BAD_SLOPE NEG shift -31 / -32",
          job_with([&](auto& p) { tflite(p.negative, kInt32Max, -31); }), reg(kNegShift, 0xE0),
          ErrCode::kBadSlope);
  AddPair(cases, "BAD_SLOPE NEG 8-bit multiplier 127 / 128",
          job_with([&](auto& p) { tpu(p.negative, 8, 127, 12); }), reg(kNegMult, 128),
          ErrCode::kBadSlope);
  AddPair(cases, "BAD_SLOPE POS 16-bit multiplier -32768 / -32769",
          job_with([&](auto& p) { tpu(p.positive, 16, -32768, 20); }),
          reg(kPosMult, uint32_t(-32769)), ErrCode::kBadSlope);
  AddPair(cases, "BAD_SLOPE POS rshift 63 / 64",
          job_with([&](auto& p) { tpu(p.positive, 32, kInt32Min, 63); }), reg(kPosShift, 64),
          ErrCode::kBadSlope);
  AddPair(
      cases, "BAD_SLOPE NEG MULT_WIDTH 2 / 3",
      job_with([&](auto& p) { tpu(p.negative, 32, -9, 4); }),
      [](arch::Command& c) { c.slope_regs[kNegCfg] |= 3u << arch::kSlopeNegMultWidthLsb; },
      ErrCode::kBadSlope);
  AddPair(
      cases, "BAD_SLOPE POS RSHIFT_ROUND 6 / 7", job_with([&](auto& p) {
        tpu(p.positive, 8, 5, 2);
        p.positive.requant.rshift_rounding = golden::tpu_mlir::Rounding::kDown;
      }),
      [](arch::Command& c) { c.slope_regs[kPosCfg] |= 7u << arch::kSlopePosRshiftRoundLsb; },
      ErrCode::kBadSlope);
  // The bits above a width's sign bit all count; a TFLite multiplier is never negative.
  for (const int bits : {8, 16}) {
    model::GemmJob low = job_with([&](auto& p) { tpu(p.negative, bits, -5, 3); });
    cases.push_back({fmt::format("BAD_SLOPE NEG {}-bit multiplier -2^31 + 5", bits), low, false,
                     model::ToCommand(low), ErrCode::kBadSlope});
    cases.back().illegal.slope_regs[kNegMult] = uint32_t(kInt32Min + 5);
  }
  {
    model::GemmJob neg = job_with([&](auto& p) { tflite(p.positive, kMinMult, -3); });
    cases.push_back(
        {"BAD_SLOPE POS multiplier -2^30", neg, false, model::ToCommand(neg), ErrCode::kBadSlope});
    cases.back().illegal.slope_regs[kPosMult] = 0xC000'0000u;
  }
  AddPair(cases, "BAD_SLOPE clamp -128 / -129", job_with([](auto& p) { p.clamp_min = -128; }),
          reg(kClampMin, uint32_t(-129)), ErrCode::kBadSlope);
  AddPair(cases, "BAD_SLOPE clamp 255 / 256", job_with([](auto& p) { p.clamp_max = 255; }),
          reg(kClampMax, 256), ErrCode::kBadSlope);
  AddPair(
      cases, "BAD_SLOPE clamp_min = clamp_max / clamp_min > clamp_max",
      job_with([](auto& p) { p.clamp_min = p.clamp_max; }),
      [](arch::Command& c) { c.slope_regs[kClampMin] = c.slope_regs[kClampMax] + 1; },
      ErrCode::kBadSlope);
  // RQ_RANGE with the slope's rq words (requant.md 6.3): one word a tile (SLOPE_PER_CHANNEL), two
  // (with PER_CHANNEL); the last legal base runs whole, the next fails. Without ACT = SLOPE the bit
  // reads no word: the base past the end is legal.
  for (const bool first_stage : {false, true}) {
    model::GemmJob job = SmallJob(rng, config);
    MakePerTensorInt8(job);
    DrawSlope(rng, SlopeDraw::kAny, job, /*per_channel=*/true);
    if (first_stage) {
      SetPerChannel(
          job, [&](int) { return int32_t(rng.Uniform(kMinMult, kInt32Max)); },
          [&](int) { return int(rng.Uniform(-12, 0)); });
    }
    const int64_t words = model::RqWordsPerTile(job) * arch::CeilDiv(job.n, config.cols);
    job.rq_base = uint32_t(config.rq_depth - words);
    AddPair(
        cases, first_stage ? "RQ_RANGE, two words a tile" : "RQ_RANGE, the slope's word", job,
        [](arch::Command& c) { ++c.rq_base; }, ErrCode::kRqRange);
  }
  {
    model::GemmJob off = SmallJob(rng, config);
    MakePerTensorInt8(off);
    off.ignored_slope_per_channel = true;
    off.rq_base = uint32_t(config.rq_depth - arch::CeilDiv(off.n, config.cols) + 1);
    cases.push_back(
        {"RQ_RANGE off: SLOPE_PER_CHANNEL without ACT = SLOPE", off, true, {}, ErrCode::kNone});
  }
  // A raw accumulator is no slope's input.
  model::GemmJob raw = job_with([](golden::SlopeStageParams&) {});
  cases.push_back({"BAD_SHAPE ACT = SLOPE with OUT_RAW", raw, false, model::ToCommand(raw),
                   ErrCode::kBadShape});
  cases.back().illegal.mode |= arch::kModeOutRaw;
}

std::vector<Case> BoundaryCases(Rng& rng, const arch::ArchConfig& config) {
  std::vector<Case> cases;
  const int rows = config.rows, cols = config.cols;
  auto small = [&] { return SmallJob(rng, config); };

  // BAD_SHAPE: 1 is the smallest legal dimension, 0 the illegal one.
  {
    model::GemmJob job = RandomJobOfShape(rng.Next(), config, 1, 1, 1);
    AddPair(
        cases, "BAD_SHAPE M", job, [](arch::Command& c) { c.m = 0; }, ErrCode::kBadShape);
    cases.push_back({"BAD_SHAPE N = 0", job, false, model::ToCommand(job), ErrCode::kBadShape});
    cases.back().illegal.n = 0;
    cases.push_back({"BAD_SHAPE K = 0", job, false, model::ToCommand(job), ErrCode::kBadShape});
    cases.back().illegal.k = 0;
  }
  // The range rules: the panel ends at the SRAM's last word, then one word further.
  {
    model::GemmJob job = small();
    const arch::Timing t(rows, cols, job.m, job.n, job.k);
    job.a_base = uint32_t(config.a_depth - t.MB() * job.k);
    AddPair(
        cases, "A_RANGE", job, [](arch::Command& c) { ++c.a_base; }, ErrCode::kARange);
  }
  {
    model::GemmJob job = small();
    const arch::Timing t(rows, cols, job.m, job.n, job.k);
    job.b_base = uint32_t(config.b_depth - t.NB() * job.k);
    AddPair(
        cases, "B_RANGE", job, [](arch::Command& c) { ++c.b_base; }, ErrCode::kBRange);
  }
  {
    model::GemmJob job = small();
    if (job.bias.empty()) job.bias.assign(size_t(job.n), int32_t(rng.Uniform(-1000, 1000)));
    const arch::Timing t(rows, cols, job.m, job.n, job.k);
    job.bias_base = uint32_t(config.bias_depth - t.NB());
    AddPair(
        cases, "BIAS_RANGE", job, [](arch::Command& c) { ++c.bias_base; }, ErrCode::kBiasRange);
    // Without BIAS_EN the rule does not apply: the same base + 1 is legal.
    model::GemmJob off = small();
    off.bias.clear();
    off.bias_base = uint32_t(config.bias_depth - arch::CeilDiv(off.n, cols) + 1);
    cases.push_back({"BIAS_RANGE off without BIAS_EN", off, true, {}, ErrCode::kNone});
  }
  {
    model::GemmJob job = small();
    job.out_raw = false;
    SetPerChannel(
        job, [&](int) { return int32_t(rng.Uniform(kMinMult, kInt32Max)); },
        [&](int) { return int(rng.Uniform(-12, 0)); });
    const arch::Timing t(rows, cols, job.m, job.n, job.k);
    job.rq_base = uint32_t(config.rq_depth - t.NB());
    AddPair(
        cases, "RQ_RANGE", job, [](arch::Command& c) { ++c.rq_base; }, ErrCode::kRqRange);
  }
  {
    // Without PER_CHANNEL the rule does not apply: the same base + 1 is legal.
    model::GemmJob off = small();
    off.per_channel = false;
    off.channel_mult.clear();
    off.channel_shift.clear();
    off.requant.form = golden::RequantForm::kTflite;
    off.requant.multiplier =
        int32_t(arch::kMinNonzeroMult);  // legal per tensor (a per-channel job's
    off.requant.shift = -8;              // CMD_MULT need not be)
    off.rq_base = uint32_t(config.rq_depth - arch::CeilDiv(off.n, cols) + 1);
    cases.push_back({"RQ_RANGE off without PER_CHANNEL", off, true, {}, ErrCode::kNone});
  }
  {
    // With OUT_RAW the requant rules do not apply (4): a shift, a multiplier and a clamp that
    // BAD_REQUANT would refuse are legal.
    model::GemmJob raw = small();
    raw.out_raw = true;
    raw.per_channel = false;
    raw.channel_mult.clear();
    raw.channel_shift.clear();
    raw.requant.form = golden::RequantForm::kTflite;
    raw.requant.shift = arch::kMaxShift + 1;
    raw.requant.multiplier = 1;
    raw.requant.clamp_min = 5;
    raw.requant.clamp_max = 4;
    cases.push_back({"BAD_REQUANT off with OUT_RAW", raw, true, {}, ErrCode::kNone});
  }
  for (bool raw : {false, true}) {
    model::GemmJob job = small();
    job.out_raw = raw;
    job.out_base = uint32_t(config.out_depth - OutWords(config, job));
    AddPair(
        cases, raw ? "OUT_RANGE int32 out" : "OUT_RANGE int8 out", job,
        [](arch::Command& c) { ++c.out_base; }, ErrCode::kOutRange);
  }
  // BAD_REQUANT: each rule of section 4 at both ends.
  auto requant_pair = [&](const std::string& what,
                          const std::function<void(model::GemmJob&)>& legal,
                          const std::function<void(arch::Command&)>& illegal) {
    model::GemmJob job = small();
    MakePerTensorInt8(job);
    legal(job);
    AddPair(cases, "BAD_REQUANT " + what, job, illegal, ErrCode::kBadRequant);
  };
  requant_pair(
      "shift -31 / -32", [](model::GemmJob& j) { j.requant.shift = -31; },
      [](arch::Command& c) { c.shift = uint32_t(-32) & ((1u << arch::kShiftBits) - 1); });
  requant_pair(
      "shift 30 / 31", [](model::GemmJob& j) { j.requant.shift = 30; },
      [](arch::Command& c) { c.shift = 31; });
  requant_pair(
      "mult 2^30 / 2^30 - 1", [](model::GemmJob& j) { j.requant.multiplier = kMinMult; },
      [](arch::Command& c) { c.mult = kMinMult - 1; });
  requant_pair(
      "mult 0 / 1", [](model::GemmJob& j) { j.requant.multiplier = 0; },
      [](arch::Command& c) { c.mult = 1; });
  requant_pair(
      "mult 2^31 - 1 / -2^31", [](model::GemmJob& j) { j.requant.multiplier = kInt32Max; },
      [](arch::Command& c) { c.mult = kInt32Min; });
  // Negative multipliers with bit 30 set: the rule looks at both top bits, not bit 30 alone.
  requant_pair(
      "mult 2^31 - 1 / -2^30", [](model::GemmJob& j) { j.requant.multiplier = kInt32Max; },
      [](arch::Command& c) { c.mult = -kMinMult; });
  requant_pair(
      "mult 2^30 / -1", [](model::GemmJob& j) { j.requant.multiplier = kMinMult; },
      [](arch::Command& c) { c.mult = -1; });
  requant_pair(
      "clamp_min = clamp_max / clamp_min > clamp_max",
      [&](model::GemmJob& j) { j.requant.clamp_min = j.requant.clamp_max; },
      [](arch::Command& c) { c.clamp_min = c.clamp_max + 1; });
  requant_pair(
      "clamp_min -128 / -129", [](model::GemmJob& j) { j.requant.clamp_min = -128; },
      [](arch::Command& c) { c.clamp_min = -129; });
  requant_pair(
      "clamp_max 255 / 256", [](model::GemmJob& j) { j.requant.clamp_max = 255; },
      [](arch::Command& c) { c.clamp_max = 256; });
  // The TPU-MLIR form (requant.md 6.1): its encodings (BAD_REQUANT), each width's multiplier at
  // both ends (MULT_WIDTH) and the rshift (RSHIFT_RANGE), per tensor; with PER_CHANNEL neither
  // register is checked.
  auto tpu_job = [&](int bits, int32_t mult, int rshift, golden::tpu_mlir::Rounding mode) {
    model::GemmJob job = small();
    MakePerTensorInt8(job);
    job.requant.form = golden::RequantForm::kTpuMlir;
    job.requant.mult_bits = bits;
    job.requant.multiplier = mult;
    job.requant.shift = rshift;
    job.requant.rshift_rounding = mode;
    return job;
  };
  auto set_mode_field = [](uint32_t mask, int lsb, uint32_t value) {
    return [mask, lsb, value](arch::Command& c) { c.mode = (c.mode & ~mask) | value << lsb; };
  };
  {
    using golden::tpu_mlir::Rounding;
    AddPair(cases, "BAD_REQUANT MULT_WIDTH 2 / 3", tpu_job(32, -5, 9, Rounding::kUp),
            set_mode_field(arch::kModeMultWidthMask, arch::kModeMultWidthLsb, 3),
            ErrCode::kBadRequant);
    AddPair(cases, "BAD_REQUANT RSHIFT_ROUND 6 / 7", tpu_job(16, 77, 4, Rounding::kDown),
            set_mode_field(arch::kModeRshiftRoundMask, arch::kModeRshiftRoundLsb, 7),
            ErrCode::kBadRequant);
    for (int bits : {8, 16}) {
      const int32_t half = int32_t{1} << (bits - 1);
      AddPair(
          cases, fmt::format("MULT_WIDTH {} bits: {} / {}", bits, half - 1, half),
          tpu_job(bits, half - 1, int(rng.Uniform(bits, bits + 8)), Rounding::kHalfUp),
          [half](arch::Command& c) { c.mult = half; }, ErrCode::kMultWidth);
      AddPair(
          cases, fmt::format("MULT_WIDTH {} bits: {} / {}", bits, -half, -half - 1),
          tpu_job(bits, -half, int(rng.Uniform(bits, bits + 8)), Rounding::kHalfToEven),
          [half](arch::Command& c) { c.mult = -half - 1; }, ErrCode::kMultWidth);
    }
    AddPair(
        cases, "RSHIFT_RANGE 63 / 64",
        tpu_job(32, int32_t(rng.Pick<int64_t>({kInt32Min, kInt32Max})), 63,
                Rounding::kHalfAwayFromZero),
        [](arch::Command& c) { c.shift = 64; }, ErrCode::kRshiftRange);
    // The bits above a width's sign bit all count: -2^31 + 5 is no 8- or 16-bit multiplier.
    for (int bits : {8, 16}) {
      model::GemmJob low = tpu_job(bits, -5, 3, Rounding::kUp);
      cases.push_back({fmt::format("MULT_WIDTH {} bits: -2^31 + 5", bits), low, false,
                       model::ToCommand(low), ErrCode::kMultWidth});
      cases.back().illegal.mult = kInt32Min + 5;
    }
    // With OUT_RAW the form's registers are not checked either.
    model::GemmJob raw_tpu = tpu_job(8, 100, 3, Rounding::kDown);
    raw_tpu.out_raw = true;
    raw_tpu.requant.multiplier = 1 << 20;
    raw_tpu.requant.shift = 255;
    cases.push_back(
        {"MULT_WIDTH and RSHIFT_RANGE off with OUT_RAW", raw_tpu, true, {}, ErrCode::kNone});
    model::GemmJob top = tpu_job(8, 3, 0, Rounding::kTowardsZero);
    cases.push_back({"RSHIFT_RANGE 255", top, false, model::ToCommand(top), ErrCode::kRshiftRange});
    cases.back().illegal.shift = 255;
    // Per channel: CMD_MULT past its width and the rshift 255 are legal (not checked).
    model::GemmJob channel = small();
    channel.out_raw = false;
    channel.per_channel = true;
    DrawTpuMlirForm(rng.Next(), channel);
    channel.requant.multiplier = 1 << 20;  // past 8 and 16 bits
    channel.requant.shift = 255;
    cases.push_back(
        {"MULT_WIDTH and RSHIFT_RANGE off with PER_CHANNEL", channel, true, {}, ErrCode::kNone});
  }
  {
    // With OUT_RAW the requant registers are not checked: shift 31 and MULT 1 are legal.
    model::GemmJob job = small();
    job.out_raw = true;
    Case c{"BAD_REQUANT off with OUT_RAW", job, true, {}, ErrCode::kNone};
    cases.push_back(c);
  }
  // BAD_ZP: -128 and 255 are legal for either operand, -129 and 256 are not.
  for (bool b_side : {false, true}) {
    for (int32_t edge : {-128, 255}) {
      model::GemmJob job = small();
      (b_side ? job.b_zp : job.a_zp) = edge;
      const int32_t bad = edge < 0 ? -129 : 256;
      AddPair(
          cases, fmt::format("BAD_ZP {} {} / {}", b_side ? "b_zp" : "a_zp", edge, bad), job,
          [&, bad, b_side](arch::Command& c) {
            const int32_t a = b_side ? arch::ZpA(c.zp_ab) : bad;
            const int32_t bz = b_side ? bad : arch::ZpB(c.zp_ab);
            c.zp_ab = arch::PackZpAb(a, bz);
          },
          ErrCode::kBadZp);
    }
  }
  // BAD_OPCODE: GEMM (0) is the one opcode; the next value and the top of the field are not.
  for (uint32_t op : {1u, 15u}) {
    model::GemmJob job = small();
    Case c{fmt::format("BAD_OPCODE CMD_OP = {}", op), job, false, model::ToCommand(job),
           ErrCode::kBadOpcode};
    c.illegal.op = op;
    cases.push_back(c);
  }
  // UNIT_ABSENT: ACT 0 (none) and 1 (LUT) name present units, 2 (softmax) and above do not.
  {
    model::GemmJob job = small();
    FuseLut(rng, config, RandomLut(rng), 0, false, job);
    AddPair(
        cases, "UNIT_ABSENT ACT = 1 / 2", job,
        [](arch::Command& c) { c.mode = (c.mode & ~arch::kModeActMask) | 2u << arch::kModeActLsb; },
        ErrCode::kUnitAbsent);
    Case top{"UNIT_ABSENT ACT = 15", job, false, model::ToCommand(job), ErrCode::kUnitAbsent};
    top.illegal.mode |= arch::kModeActMask;
    cases.push_back(top);
  }
  // The LUT fields (lut.md 10.4), each at both ends of its range, and the rules ACT = LUT adds.
  auto lut_pair = [&](const std::string& what, int in_bits, int entry_bits, uint32_t slot,
                      uint32_t mask, int lsb, uint32_t bad, ErrCode error) {
    model::GemmJob job = small();
    FuseLut(rng, config, RandomLut(rng, in_bits, entry_bits), slot, false, job);
    AddPair(
        cases, what, job,
        [mask, lsb, bad](arch::Command& c) { c.mode = (c.mode & ~mask) | bad << lsb; }, error);
  };
  const uint32_t last_slot = uint32_t(config.lut_slots - 1);
  if (config.lut_slots < (1 << arch::kLutSlotBits)) {  // 16 slots: every LUT_SLOT is legal
    lut_pair(fmt::format("LUT_SLOT {} / {}", last_slot, last_slot + 1), 8, 8, last_slot,
             arch::kModeLutSlotMask, arch::kModeLutSlotLsb, last_slot + 1, ErrCode::kLutSlot);
  }
  lut_pair("LUT_IN_BITS 2 / 1", 2, 8, 0, arch::kModeLutInBitsMask, arch::kModeLutInBitsLsb, 1,
           ErrCode::kLutInBits);
  lut_pair("LUT_IN_BITS 8 / 9", 8, 16, last_slot, arch::kModeLutInBitsMask, arch::kModeLutInBitsLsb,
           9, ErrCode::kLutInBits);
  lut_pair("LUT_ENTRY_BITS 8 / 9", 4, 8, 0, arch::kModeLutEntryBitsMask, arch::kModeLutEntryBitsLsb,
           9, ErrCode::kLutEntryBits);
  lut_pair("LUT_ENTRY_BITS 16 / 17", 4, 16, 0, arch::kModeLutEntryBitsMask,
           arch::kModeLutEntryBitsLsb, 17, ErrCode::kLutEntryBits);
  lut_pair("LUT_ENTRY_BITS 8 / 7", 6, 8, last_slot, arch::kModeLutEntryBitsMask,
           arch::kModeLutEntryBitsLsb, 7, ErrCode::kLutEntryBits);
  lut_pair("LUT_ENTRY_BITS 16 / 15", 6, 16, last_slot, arch::kModeLutEntryBitsMask,
           arch::kModeLutEntryBitsLsb, 15, ErrCode::kLutEntryBits);
  {
    // A raw accumulator is no table's input: ACT = LUT with OUT_RAW is BAD_SHAPE.
    model::GemmJob job = small();
    FuseLut(rng, config, RandomLut(rng), 0, false, job);
    AddPair(
        cases, "BAD_SHAPE ACT = LUT with OUT_RAW", job,
        [](arch::Command& c) { c.mode |= arch::kModeOutRaw; }, ErrCode::kBadShape);
  }
  {
    // Without ACT = LUT the LUT fields are ignored: 16-bit entries and a slot past the config's
    // leave OUT_RANGE at the int8 layout's words and the command legal.
    model::GemmJob job = small();
    job.ignored_lut_fields = 15u << arch::kModeLutSlotLsb | 15u << arch::kModeLutInBitsLsb |
                             16u << arch::kModeLutEntryBitsLsb;
    job.out_base = uint32_t(config.out_depth - OutWords(config, job));
    AddPair(
        cases, "OUT_RANGE int8 out, ACT = NONE with LUT_ENTRY_BITS 16", job,
        [](arch::Command& c) { ++c.out_base; }, ErrCode::kOutRange);
  }
  {
    // OUT_RANGE counts the int16 layout's words with 16-bit entries.
    model::GemmJob job = small();
    FuseLut(rng, config, RandomLut(rng, 8, 16), 0, false, job);
    job.out_base = uint32_t(config.out_depth - OutWords(config, job));
    AddPair(
        cases, "OUT_RANGE int16 out", job, [](arch::Command& c) { ++c.out_base; },
        ErrCode::kOutRange);
  }
  // Two failing rules: the first in the order of section 4 names the error.
  {
    model::GemmJob job = small();
    Case c{"BAD_SHAPE before BAD_ZP", job, false, model::ToCommand(job), ErrCode::kBadShape};
    c.illegal.k = 0;
    c.illegal.zp_ab = arch::PackZpAb(-200, 0);
    cases.push_back(c);
    Case d{"A_RANGE before UNIT_ABSENT", job, false, model::ToCommand(job), ErrCode::kARange};
    d.illegal.a_base = config.a_depth;
    d.illegal.mode |= 2u << arch::kModeActLsb;
    cases.push_back(d);
    Case e{"BAD_OPCODE before BAD_SHAPE", job, false, model::ToCommand(job), ErrCode::kBadOpcode};
    e.illegal.op = 2;
    e.illegal.m = 0;
    cases.push_back(e);
  }
  // Bases and dimensions wider than the fields: the register keeps its field only.
  {
    model::GemmJob job = small();
    Case c{"CMD_M above 16 bits reads as 0", job, false, model::ToCommand(job), ErrCode::kBadShape};
    c.illegal.m = 0x10000;
    cases.push_back(c);
  }
  AddSlopeCases(rng, config, cases);
  return cases;
}

Program GenErrors(Rng& rng, const arch::ArchConfig& config) {
  ProgramBuilder b(config);
  b.ReadRegisters();  // the reset value of every register
  // A START straight after reset launches the reset CMD_* registers: M = N = K = 0.
  if (rng.Chance(50)) b.LaunchIllegal(ErrCode::kBadShape, "illegal: the reset command (M = 0)");
  std::vector<Case> cases = BoundaryCases(rng, config);
  // A random order: the state left by one case (registers, DONE/ERROR, SRAM contents) is the
  // starting point of the next.
  for (size_t i = cases.size(); i > 1; --i)
    std::swap(cases[i - 1], cases[size_t(rng.Uniform(0, int64_t(i) - 1))]);
  for (const Case& c : cases) {
    const bool irq = rng.Chance(30);
    if (c.legal) {
      RunJob(b, c.job, irq);
    } else {
      Expect(config, c.illegal, c.error, c.what);
      b.WriteCommandRegisters(c.illegal);
      b.LaunchIllegal(c.error, "illegal: " + c.what, irq);
      b.Read(arch::kRegsBase + arch::reg::kStatus);
      b.Read(arch::kRegsBase + arch::reg::kPerfCycles);
      b.Read(arch::kRegsBase + arch::reg::kPerfCmdCount);
      if (rng.Chance(25)) b.CheckSrams();  // an illegal command writes nothing
    }
    MaybeAcknowledge(rng, b);
  }
  b.ReadRegisters();
  b.CheckSrams();
  return b.Take();
}

// ---- prog_bus -----------------------------------------------------------------------------------

// One access while the command runs; returns its bus cycles.
int RandomBusyAccess(Rng& rng, ProgramBuilder& b) {
  const std::vector<NamedRegister>& regs = ReadableRegisters();
  const int64_t r = rng.Uniform(0, 99);
  if (r < 40) {  // any readable register, perf counters mid-count included
    b.Read(arch::kRegsBase + regs[size_t(rng.Uniform(0, int64_t(regs.size()) - 1))].offset);
    return 2;
  }
  if (r < 55) {  // an SRAM window, read or written: refused while busy
    const arch::Region region =
        arch::kSrams[rng.Uniform(0, int64_t(std::size(arch::kSrams)) - 1)].id;
    const uint32_t addr = arch::WindowBase(region) + uint32_t(rng.Uniform(0, 1023)) * 4;
    if (rng.Chance(50)) {
      b.Read(addr);
      return 3;
    }
    b.Write(addr, uint32_t(rng.Next()), uint8_t(rng.Uniform(0, 15)));
    return 2;
  }
  if (r < 70) {  // a command register or CTRL (START too): refused while busy
    const uint32_t offset =
        rng.Chance(80) ? uint32_t(rng.Uniform(arch::reg::kCmdM / 4, arch::reg::kCmdOp / 4)) * 4
                       : arch::reg::kCtrl;
    b.Write(arch::kRegsBase + offset, uint32_t(rng.Next()));
    return 2;
  }
  if (r < 78) {  // STATUS W1C while busy: nothing to clear, BUSY stays
    b.Write(arch::kRegsBase + arch::reg::kStatus, 0xFFFF'FFFFu);
    return 2;
  }
  if (r < 86) {  // a read-only register: refused
    b.Write(
        arch::kRegsBase + rng.Pick<uint32_t>({arch::reg::kId, arch::reg::kHwRows,
                                              arch::reg::kPerfCycles, arch::reg::kPerfCmdCount}),
        uint32_t(rng.Next()));
    return 2;
  }
  if (r < 93) {  // reserved offsets and the blocks of absent units (2..15): read 0, writes ignored
    const uint32_t offset = rng.Pick<uint32_t>(
        {0x02C, 0x03C, 0x048, 0x0C0, 0x0FC, 0x13C, 0x1FC, 0x200, 0x3FC, 0x404, 0x804, 0xFFC});
    if (rng.Chance(50)) {
      b.Read(arch::kRegsBase + offset);
    } else {
      b.Write(arch::kRegsBase + offset, uint32_t(rng.Next()));
    }
    return 2;
  }
  // Unmapped: above the register blocks, the reserved softmax/LayerNorm windows, regions 9..15; and
  // the LUT table window's first word (mapped since the table SRAM: refused while busy).
  const uint32_t addr =
      rng.Pick<uint32_t>({0x001000, 0x0FFFFC, 0x600000, 0x700010, 0x800000, 0xF00000, 0xFFFFFC});
  if (rng.Chance(50)) {
    b.Read(addr);
  } else {
    b.Write(addr, uint32_t(rng.Next()));
  }
  return 2;
}

// Idle SRAM windows at their edges: the last word of each window's SRAM and the first word past it (refused),
// the top of the 1 MiB window (refused, it must not alias a low word), written with random data and strobes
// and read back; and the RQ window's words read back (odd words: the 6-bit shift, sign-extended).
void WindowEdges(Rng& rng, ProgramBuilder& b) {
  const model::Srams srams(b.config());  // the window sizes, from the one place that defines them
  for (const arch::SramInfo& sram : arch::kSrams) {
    const arch::Region region = sram.id;
    const uint32_t bytes = srams.WindowBytes(region);
    for (uint32_t offset : {bytes - 4, bytes, arch::kWindowSize / 2, arch::kWindowSize - 4}) {
      b.Write(arch::WindowBase(region) + offset, uint32_t(rng.Next()), uint8_t(rng.Uniform(1, 15)));
      b.Read(arch::WindowBase(region) + offset);
    }
  }
  for (int i = 0; i < 4; ++i) {
    const uint32_t word = uint32_t(rng.Uniform(0, srams.WindowBytes(arch::Region::kRq) / 4 - 1)) * 4;
    b.Write(arch::kRqBase + word, uint32_t(rng.Next()));
    b.Read(arch::kRqBase + word);
    b.Read(arch::kRqBase + (word ^ arch::kRqShiftOffset));
  }
  b.CheckSrams();
}

Program GenBus(Rng& rng, const arch::ArchConfig& config) {
  ProgramBuilder b(config);
  b.ReadRegisters();  // the reset value of every register
  // Every command register written with all ones, a random word and zero, each read back: every
  // bit of every field reaches the register and its read-back (bits outside a field read 0).
  for (uint32_t offset = arch::reg::kCmdM; offset <= arch::reg::kCmdOp; offset += 4) {
    for (uint32_t value : {0xFFFF'FFFFu, uint32_t(rng.Next()), 0u}) {
      b.Write(arch::kRegsBase + offset, value);
      b.Read(arch::kRegsBase + offset);
    }
  }
  // The slope stage's registers likewise (requant.md 6.2, block 2), then the offsets of block 2
  // past them, which read 0.
  for (uint32_t offset = arch::reg::kSlopePosMult; offset <= arch::reg::kSlopeClampMax;
       offset += 4) {
    for (uint32_t value : {0xFFFF'FFFFu, uint32_t(rng.Next()), 0u}) {
      b.Write(arch::kRegsBase + offset, value);
      b.Read(arch::kRegsBase + offset);
    }
  }
  for (uint32_t offset : {arch::reg::kSlopeClampMax + 4, 0x2FCu}) {
    b.Write(arch::kRegsBase + offset, uint32_t(rng.Next()));
    b.Read(arch::kRegsBase + offset);
  }
  // Q_BASE and Q_COUNT likewise (data_movement.md 14.1): every bit of Q_BASE [31:6] and Q_COUNT
  // [15:0], the top ones included.
  for (uint32_t offset : {arch::reg::kQBase, arch::reg::kQCount}) {
    for (uint32_t value : {0xFFFF'FFFFu, uint32_t(rng.Next()), 0u}) {
      b.Write(arch::kRegsBase + offset, value);
      b.Read(arch::kRegsBase + offset);
    }
  }
  WindowEdges(rng, b);
  // Unmapped addresses while idle (refused by the address rule alone, not by BUSY): above the
  // register blocks, the reserved softmax/LayerNorm windows, regions 9..15, read and written.
  for (uint32_t addr : {0x001000u, 0x0FFFFCu, 0x700000u, 0x7FFFFCu, 0x800010u, 0xFFFFFCu}) {
    b.Read(addr);
    b.Write(addr, uint32_t(rng.Next()));
  }
  // The unit blocks (2..15) read 0: offsets whose bit 10 or 11 alone lifts them off VERSION and
  // CTRL, so that a decoder dropping either bit reads or writes a live register instead.
  for (uint32_t offset : {0x404u, 0x804u, 0xC04u, 0x840u, 0xFFCu}) {
    b.Write(arch::kRegsBase + offset, offset == 0x840u ? arch::kCtrlIrqEn : uint32_t(rng.Next()));
    b.Read(arch::kRegsBase + offset);
  }
  const int p = std::max(config.rows, config.cols);
  model::GemmJob job =
      RandomJobOfShape(rng.Next(), config, int(rng.Uniform(config.rows, 4 * config.rows)),
                       int(rng.Uniform(config.cols, 4 * config.cols)), int(rng.Uniform(p, 6 * p)));
  Expect(config, model::ToCommand(job), ErrCode::kNone, "prog_bus job");
  const int index = b.AddJob(job);
  b.LoadOperands(index);
  b.WriteCommand(index);
  const int64_t e = arch::Timing(config.rows, config.cols, job.m, job.n, job.k).E();
  for (int round = 0; round < 2; ++round) {
    b.Start(index, ErrCode::kNone, DescribeCommand(config, job), rng.Chance(50));
    // Accesses at chosen cycles of the command, all inside its busy window: cycle 0 is the first
    // busy cycle and each access takes 2 (3 for an SRAM read) cycles.
    int64_t at = 0;
    while (true) {
      const int64_t gap = rng.Chance(40) ? 0 : rng.Uniform(1, std::max<int64_t>(1, e / 16));
      if (at + gap + 3 >= e) break;
      b.Idle(gap);
      at += gap + RandomBusyAccess(rng, b);
    }
    b.WaitDone();
    b.ReadRegisters();
    b.ReadBackOutput(index);
    b.CheckSrams();
    // IRQ: enabled after DONE (irq rises), DONE cleared (irq falls), disabled again.
    const uint32_t ctrl = arch::kRegsBase + arch::reg::kCtrl;
    const uint32_t status = arch::kRegsBase + arch::reg::kStatus;
    b.Write(ctrl, arch::kCtrlIrqEn);
    b.Idle(rng.Uniform(0, 3));
    if (rng.Chance(50)) b.Write(status, arch::kStatusDone);
    b.Read(status);
    b.Write(ctrl, 0);
    // Idle SRAM windows take host accesses again: words of the A and B windows written with
    // random data and byte strobes (the next round reloads the operands), read back, and the
    // SRAMs compared.
    for (int i = 0; i < 4; ++i) {
      const uint32_t byte = uint32_t(rng.Uniform(0, 15)) * 4;
      const uint32_t window = rng.Chance(50) ? arch::kABase : arch::kBBase;
      b.Write(window + byte, uint32_t(rng.Next()), uint8_t(rng.Uniform(0, 15)));
      b.Read(window + byte);
      b.Read(arch::kOutBase + byte);
    }
    b.CheckSrams();
    b.LoadOperands(index);
  }
  return b.Take();
}

// ---- prog_corners -------------------------------------------------------------------------------

Program GenCorners(Rng& rng, const arch::ArchConfig& config) {
  ProgramBuilder b(config);
  const int rows = config.rows, cols = config.cols;
  auto run = [&](model::GemmJob job) { RunJob(b, job, rng.Chance(30)); };

  // Output zero point at both int32 extremes: every element saturates to a clamp bound.
  for (int32_t zp : {kInt32Max, kInt32Min}) {
    model::GemmJob job = SmallJob(rng, config);
    MakePerTensorInt8(job);
    job.requant.output_zero_point = zp;
    run(job);
  }
  // Clamp at the widest int8-mode bounds, -128..255 (the byte stored is the low 8 bits of y), and
  // a zero point that makes both ends saturate.
  {
    model::GemmJob job = SmallJob(rng, config);
    MakePerTensorInt8(job);
    job.requant.clamp_min = -128;
    job.requant.clamp_max = 255;
    job.requant.output_zero_point = int32_t(rng.Uniform(-300, 300));
    run(job);
  }
  // Every shift, one per column (per-channel), multipliers at their ends and in between, a bias
  // that spreads the accumulators over both signs.
  {
    const int shifts = arch::kMaxShift - arch::kMinShift + 1;
    model::GemmJob job = RandomJobOfShape(rng.Next(), config, int(rng.Uniform(1, rows)), shifts,
                                          int(rng.Uniform(1, 2 * rows)));
    job.out_raw = false;
    const int offset = int(rng.Uniform(0, shifts - 1));
    SetPerChannel(
        job,
        [&](int) {
          return rng.Pick<int32_t>(
              {kMinMult, kInt32Max, int32_t(rng.Uniform(kMinMult, kInt32Max))});
        },
        [&](int n) { return arch::kMinShift + (n + offset) % shifts; });
    job.bias.resize(size_t(job.n));
    for (auto& v : job.bias) v = int32_t(rng.Uniform(-(1 << 20), 1 << 20));
    job.requant.rounding = rng.Chance(50) ? golden::RequantRounding::kSingleRounding
                                          : golden::RequantRounding::kDoubleRounding;
    run(job);
  }
  // Ties: A at its zero point makes every accumulator 0, so x = bias, chosen per column.
  // MULT = 2^30 halves x: an odd x ties in the first rounding (SRDHM, or the single rounding's
  // shift); with double rounding and shift -e, x = 2h with h = (2j + 1) * 2^(e-1) ties in the
  // second.
  for (golden::RequantRounding rounding :
       {golden::RequantRounding::kSingleRounding, golden::RequantRounding::kDoubleRounding}) {
    model::GemmJob job = RandomJobOfShape(rng.Next(), config, int(rng.Uniform(1, rows)),
                                          int(rng.Uniform(cols, 2 * cols)), 1);
    job.a_zp = job.a_unsigned ? int32_t(rng.Uniform(0, 255)) : int32_t(rng.Uniform(-128, 127));
    std::fill(job.a.begin(), job.a.end(), static_cast<uint8_t>(job.a_zp));
    MakePerTensorInt8(job);
    job.requant.rounding = rounding;
    job.requant.multiplier = kMinMult;
    const bool single = rounding == golden::RequantRounding::kSingleRounding;
    const int e = int(rng.Uniform(1, 6));
    // Single rounding of x * 2^30 by 2^(31 - s) = x / 2^(1 - s): shift 0 ties at odd x, shift -e
    // at x = (2j + 1) * 2^e.
    const bool single_at_zero = single && rng.Chance(50);
    job.requant.shift = single_at_zero ? 0 : -e;
    job.requant.output_zero_point = 0;
    job.requant.clamp_min = -128;
    job.requant.clamp_max = 127;
    job.bias.resize(size_t(job.n));
    for (int n = 0; n < job.n; ++n) {
      const int32_t sign = rng.Chance(50) ? 1 : -1;
      const int32_t j = int32_t(rng.Uniform(0, 40));
      const int32_t odd = sign * (2 * j + 1);
      if (single) {
        job.bias[size_t(n)] = single_at_zero ? odd : odd * (int32_t{1} << e);
      } else {
        job.bias[size_t(n)] = n % 2 == 0 ? odd * 2 * (int32_t{1} << (e - 1)) : odd;
      }
    }
    run(job);
  }
  // Saturation high and low with an output zero point: large biases of both signs.
  {
    model::GemmJob job = SmallJob(rng, config);
    MakePerTensorInt8(job);
    job.requant.multiplier = int32_t(rng.Uniform(kMinMult, kInt32Max));
    job.requant.shift = int(rng.Uniform(-4, 0));
    const bool out_unsigned = rng.Chance(50);
    job.requant.clamp_min = out_unsigned ? 0 : -128;
    job.requant.clamp_max = out_unsigned ? 255 : 127;
    job.requant.output_zero_point =
        int32_t(rng.Uniform(job.requant.clamp_min, job.requant.clamp_max));
    job.bias.resize(size_t(job.n));
    for (int n = 0; n < job.n; ++n) {
      job.bias[size_t(n)] = (n % 2 ? 1 : -1) * int32_t(rng.Uniform(1000, 1 << 20));
    }
    run(job);
  }
  // The most negative product a legal command makes: x = -2^31 (A at its zero point, bias -2^31),
  // MULT = 2^31 - 1 and shift 30 (one rounding by 2^1), so the rounded value is -2^61 + 2^30 + ...:
  // bit 61 set and bits 60..31 clear, far below int32, saturating to -2^31.
  {
    model::GemmJob job = RandomJobOfShape(rng.Next(), config, int(rng.Uniform(1, rows)),
                                          int(rng.Uniform(1, cols)), int(rng.Uniform(1, 8)));
    job.a_zp = job.a_unsigned ? int32_t(rng.Uniform(0, 255)) : int32_t(rng.Uniform(-128, 127));
    std::fill(job.a.begin(), job.a.end(), static_cast<uint8_t>(job.a_zp));
    MakePerTensorInt8(job);
    job.requant.rounding = golden::RequantRounding::kSingleRounding;
    job.requant.multiplier = kInt32Max;
    job.requant.shift = arch::kMaxShift;
    job.requant.output_zero_point = 0;
    job.requant.clamp_min = -128;
    job.requant.clamp_max = 127;
    job.bias.assign(size_t(job.n), kInt32Min);
    run(job);
  }
  // The bias add wraps around 2^32 (int32 out shows x itself; int8 out requantizes the wrapped x).
  for (bool raw : {true, false}) {
    model::GemmJob job = SmallJob(rng, config);
    job.out_raw = raw;
    if (!raw) MakePerTensorInt8(job);
    job.bias.resize(size_t(job.n));
    for (int n = 0; n < job.n; ++n) {
      job.bias[size_t(n)] = n % 2 ? kInt32Max - int32_t(rng.Uniform(0, 1000))
                                  : kInt32Min + int32_t(rng.Uniform(0, 1000));
    }
    run(job);
  }
  // K = 1 and the largest K the A and B SRAMs hold for one tile, both panels ending at the last
  // word; M = 1 and N = 1.
  {
    model::GemmJob job = RandomJobOfShape(rng.Next(), config, int(rng.Uniform(1, rows)),
                                          int(rng.Uniform(1, cols)), 1);
    run(job);
    const int k_max = int(std::min<int64_t>({config.a_depth, config.b_depth, arch::kMaxDim}));
    model::GemmJob big = RandomJobOfShape(rng.Next(), config, int(rng.Uniform(1, rows)),
                                          int(rng.Uniform(1, cols)), k_max);
    run(big);
    model::GemmJob line = RandomJobOfShape(rng.Next(), config, 1, int(rng.Uniform(1, 3 * cols)),
                                           int(rng.Uniform(1, 40)));
    run(line);
    model::GemmJob column = RandomJobOfShape(rng.Next(), config, int(rng.Uniform(1, 3 * rows)), 1,
                                             int(rng.Uniform(1, 40)));
    run(column);
  }
  b.ReadRegisters();
  return b.Take();
}

// ---- prog_launch_after_reset --------------------------------------------------------------------

// A command launched as soon as the bus allows after reset: one bias word and the CMD_* registers
// that differ from their reset values (M, N, K, MODE), then START, about 12 cycles after reset. That
// is inside the bias-read delay line's length (C + 2 cycles, 18 on 16 columns), so a delay line that
// reset leaves holding tokens fires bias reads into this command. N spans C + 3 column blocks,
// more than such fires can wrap the bias pointer around, and only block 0's lane 0 has a nonzero
// bias: a stray fire moves the pointer to a zero entry. A and B are zero in the SRAMs' power-on
// state; int32 output shows the bias itself.
Program GenLaunchAfterReset(Rng& rng, const arch::ArchConfig& config) {
  ProgramBuilder b(config);
  model::GemmJob job;
  job.m = int(rng.Uniform(1, config.rows));
  job.n = config.cols * (config.cols + 3);
  job.k = 1;
  job.a.assign(size_t(job.m) * size_t(job.k), 0);
  job.b.assign(size_t(job.k) * size_t(job.n), 0);
  job.bias.assign(size_t(job.n), 0);
  const int32_t magnitude = int32_t(rng.Uniform(1, int64_t{1} << 30));
  job.bias[0] = rng.Chance(50) ? magnitude : -magnitude;
  job.out_raw = true;
  // The requant registers at their reset values (int32 output does not use them).
  job.requant.rounding = golden::RequantRounding::kDoubleRounding;
  job.requant.multiplier = 0;
  job.requant.shift = 0;
  job.requant.output_zero_point = 0;
  job.requant.clamp_min = 0;
  job.requant.clamp_max = 0;
  const int index = b.AddJob(job);
  b.Write(arch::kBiasBase, static_cast<uint32_t>(job.bias[0]));
  namespace reg = arch::reg;
  for (const model::BusWrite& w : model::CommandWrites(job)) {
    const uint32_t offset = w.addr - arch::kRegsBase;
    if (offset == reg::kCmdM || offset == reg::kCmdN || offset == reg::kCmdK ||
        offset == reg::kCmdMode) {
      b.Write(w.addr, w.data, w.strobe);
    } else if (w.data != 0) {  // every other CMD register must be at its reset value, 0
      throw std::logic_error(
          fmt::format("prog_launch_after_reset: CMD register 0x{:03X} would need a write", offset));
    }
  }
  b.Start(index, arch::ErrCode::kNone, DescribeCommand(config, job), false);
  b.WaitDone();
  b.ReadBackOutput(index);
  b.ReadRegisters();
  b.CheckSrams();
  return b.Take();
}

// ---- prog_layers --------------------------------------------------------------------------------

// A random legal layer (the distribution of compiler::RandomLayer, drawn from sim::Rng so that the
// same seed gives the same network on every platform).
compiler::GemmLayer RandomLayerOf(Rng& rng, const std::string& name, int m, int n, int k,
                                  bool last) {
  compiler::GemmLayer l;
  l.name = name;
  l.m = m;
  l.n = n;
  l.k = k;
  l.a_unsigned = rng.Chance(50);
  l.b_unsigned = rng.Chance(50);
  l.a_zp = int32_t(rng.Uniform(-20, 20));
  l.b_zp = int32_t(rng.Uniform(-20, 20));
  l.bias = rng.Chance(50);
  l.per_channel = rng.Chance(50);
  l.single_rounding = rng.Chance(50);
  l.out_int32 = last && rng.Chance(25);
  l.mult = int32_t(rng.Uniform(int64_t{1} << 30, kInt32Max));
  l.shift = int(rng.Uniform(-14, -6));
  if (rng.Chance(25)) {  // TPU-MLIR's form, the same scales
    l.requant = golden::RequantForm::kTpuMlir;
    l.single_rounding = false;
    l.mult_bits = 8 << rng.Uniform(0, 2);
    l.rshift_rounding = golden::tpu_mlir::kAllRoundings[size_t(rng.Uniform(0, 6))];
    l.mult = int32_t(
        rng.Uniform(int64_t{1} << (l.mult_bits - 2), (int64_t{1} << (l.mult_bits - 1)) - 1));
    l.shift = l.mult_bits - 1 - l.shift;
  }
  l.zp_out = int32_t(rng.Uniform(-5, 5));
  if (rng.Chance(50)) {
    l.clamp_min = 0;  // ReLU, uint8 codes
    l.clamp_max = 255;
  }
  return l;
}

// A chain of 1-3 layers (M up to 3 R). Half the networks start with a layer whose weights do not
// fit the B SRAM (NB * K above its depth), so that B is streamed in chunks and double buffering
// has loads to overlap; the others are small enough to stay resident. A third of the later layers
// add an earlier layer's output (a residual: ELTWISE, lut.md 10.5), whose N they take.
compiler::Network RandomNetwork(Rng& rng, const arch::ArchConfig& config) {
  compiler::Network net;
  net.name = "prog_layers";
  const int layers = int(rng.Uniform(1, 3));
  const int m = int(rng.Uniform(1, 3 * config.rows));
  const bool streamed = rng.Chance(50);
  int k = streamed ? int(rng.Uniform(160, 240)) : int(rng.Uniform(1, 40));
  for (int i = 0; i < layers; ++i) {
    int n = int(rng.Uniform(1, 4 * config.cols));
    if (i == 0 && streamed) {
      const int64_t nb = int64_t(config.b_depth) / k + rng.Uniform(1, 3);
      n = int(nb * config.cols - rng.Uniform(0, config.cols - 1));
    }
    const int from = i > 0 && rng.Chance(33) ? int(rng.Uniform(0, i - 1)) : -1;
    if (from >= 0) n = net.layers[size_t(from)].n;
    net.layers.push_back(RandomLayerOf(rng, "l" + std::to_string(i), m, n, k, i + 1 == layers));
    if (from >= 0) {
      net.layers.back().out_int32 = false;  // the add takes int8 codes
      compiler::RandomResidual([&rng](int lo, int hi) { return int(rng.Uniform(lo, hi)); },
                               net.layers[size_t(from)], net.layers.back());
    }
    k = n;
  }
  return net;
}

// The network compiled four ways (on-chip chaining and double buffering each on and off), each
// program run on the same input, the last one in two launches (data_movement.md 14.4). Oracles:
//   * here, at generation (CompileChecked): each compiled program is race free, and golden's run
//     of its launches on its external image leaves the output compiler::ReferenceOutput gives (the
//     layers on whole matrices, no tiling): the program computes the network;
//   * in the co-simulation, kCheckProgram after each launch (RunCompiled): the RTL's and the
//     model's external memory images are equal, and the model's memories, error and Q_RETIRED
//     equal golden::RunQueue's on the memories at that launch; with every cycle of both compared
//     in lockstep.
Program GenLayers(Rng& rng, const arch::ArchConfig& config) {
  ProgramBuilder b(config);
  const compiler::Network net = RandomNetwork(rng, config);
  const compiler::RandomValues values = compiler::MakeRandomValues(net, rng.Next());
  const std::vector<int32_t> want = compiler::ReferenceOutput(net, values.x, values.layers);
  for (bool chain : {true, false}) {
    for (bool double_buffer : {true, false}) {
      compiler::CompileOptions options{double_buffer, chain};
      if (!chain && !double_buffer) {
        // This one in two launches (data_movement.md 14.4): every seed runs a relaunch, with the
        // SRAMs carried over and the tokens cut between the halves.
        const size_t n = compiler::Compile(config, net, options).descriptors.size();
        options.max_launch_descriptors = uint32_t(std::max<size_t>(1, (n + 1) / 2));
      }
      const CheckedProgram checked = CompileChecked(config, net, options, values, want);
      const compiler::CompiledProgram& p = checked.compiled;
      int b_chunks = 0;
      for (const compiler::LayerPlan& plan : p.layers) b_chunks = std::max(b_chunks, plan.b_chunks);
      const std::string what = fmt::format(
          "{} layers M={} (N {}), chaining {}, double buffering {}: {} descriptors in {} launch{} "
          "({} LOAD, {} STORE, {} GEMM, {} MOVE), B in up to {} chunks{}",
          net.layers.size(), net.layers[0].m, net.layers.back().n, chain ? "on" : "off",
          double_buffer ? "on" : "off", p.descriptors.size(), p.launches.size(),
          p.launches.size() == 1 ? "" : "es", p.loads, p.stores, p.gemms, p.moves, b_chunks,
          p.eltwises ? fmt::format(", {} ELTWISE (residual adds)", p.eltwises) : "");
      b.WriteExt(0, checked.image);
      RunCompiled(b, p, what, rng.Chance(50));
    }
  }
  return b.Take();
}

// ---- prog_requant_forms -------------------------------------------------------------------------

// The TPU-MLIR requant form's corners in every mode (requant.md 6.1): one gemm_tpu_mlir_ties job
// per RSHIFT_ROUND mode, then one gemm_tpu_mlir_extremes job, each run whole.
Program GenRequantForms(Rng& rng, const arch::ArchConfig& config) {
  ProgramBuilder b(config);
  for (golden::tpu_mlir::Rounding mode : golden::tpu_mlir::kAllRoundings) {
    RunJob(b, TpuMlirCornerJob(rng.Next(), config, /*ties=*/true, mode), rng.Chance(30));
    MaybeAcknowledge(rng, b);
  }
  const golden::tpu_mlir::Rounding mode = golden::tpu_mlir::kAllRoundings[rng.Uniform(0, 6)];
  RunJob(b, TpuMlirCornerJob(rng.Next(), config, /*ties=*/false, mode), rng.Chance(30));
  return b.Take();
}

// ---- prog_slope_edges ---------------------------------------------------------------------------

// The slope stage (requant.md 6.2) at its edges, one command each, per side: the TFLite form's
// shifts -31 and 30, the TPU-MLIR form's rshifts 0 and 63, K -256 and 255; the first stage
// saturated to -128 and 255 around an input zero point of 255 (every lane on the NEG side, d -383)
// or -128 (the POS side, d 383).
Program GenSlopeEdges(Rng& rng, const arch::ArchConfig& config) {
  ProgramBuilder b(config);
  for (const bool neg : {false, true}) {
    for (int edge = 0; edge < 4; ++edge) {
      model::GemmJob job = SmallJob(rng, config);
      MakePerTensorInt8(job);
      // A gain far above 1: nearly every accumulator saturates the codes -128..255.
      job.requant.multiplier = kInt32Max;
      job.requant.shift = int(rng.Uniform(8, 16));
      job.requant.rounding = golden::RequantRounding::kSingleRounding;
      job.requant.output_zero_point = neg ? 255 : -128;
      job.requant.clamp_min = -128;
      job.requant.clamp_max = 255;
      DrawSlope(rng, SlopeDraw::kAny, job);
      golden::SlopeSide& side = neg ? job.slope->negative : job.slope->positive;
      golden::RequantParams& rq = side.requant;
      side.k = int32_t(rng.Pick<int64_t>({golden::kMinSlopeK, golden::kMaxSlopeK}));
      if (edge < 2) {
        rq.form = golden::RequantForm::kTflite;
        rq.multiplier = int32_t(rng.Uniform(kMinMult, kInt32Max));
        rq.shift = edge == 0 ? golden::kMinQuantizedShift : golden::kMaxQuantizedShift;
      } else {
        rq.form = golden::RequantForm::kTpuMlir;
        rq.mult_bits = int(rng.Pick<int64_t>({8, 16, 32}));
        rq.multiplier = int32_t(rng.Uniform(-100, 100));
        rq.shift = edge == 2 ? 0 : golden::kMaxRequantRshift;
      }
      RunJob(b, job, rng.Chance(30));
      MaybeAcknowledge(rng, b);
    }
  }
  // The ties of each TPU-MLIR mode on both sides (gemm_slope_ties' stage, the mode set), then K = 0
  // on both sides: the bins slope.tie.<mode> and slope.<side>.k.zero close in every run.
  for (const golden::tpu_mlir::Rounding mode : golden::tpu_mlir::kAllRoundings) {
    model::GemmJob job = SmallJob(rng, config);
    MakePerTensorInt8(job);
    DrawSlope(rng, SlopeDraw::kTies, job);
    job.slope->positive.requant.rshift_rounding = job.slope->negative.requant.rshift_rounding =
        mode;
    RunJob(b, job, rng.Chance(30));
    MaybeAcknowledge(rng, b);
  }
  model::GemmJob zero = SmallJob(rng, config);
  MakePerTensorInt8(zero);
  DrawSlope(rng, SlopeDraw::kAny, zero);
  zero.slope->positive.k = zero.slope->negative.k = 0;
  RunJob(b, zero, rng.Chance(30));
  // PReLU (requant.md 6.3) over two or three column tiles, d down to -383: the TFLite form with K
  // -256, negated to 256 on every other channel, with and without the first stage's rq words; the
  // TPU-MLIR form. The bins slope.per_channel.* close in every run.
  for (int form = 0; form < 3; ++form) {
    const int p = std::max(config.rows, config.cols);
    model::GemmJob job = RandomJobOfShape(rng.Next(), config, int(rng.Uniform(1, 2 * config.rows)),
                                          int(rng.Uniform(config.cols + 1, 3 * config.cols)),
                                          int(rng.Uniform(1, p)));
    MakePerTensorInt8(job);
    job.requant.multiplier = kInt32Max;  // saturated codes -128 and 255 around ZP_OUT 255
    job.requant.shift = int(rng.Uniform(8, 16));
    job.requant.output_zero_point = 255;
    job.requant.clamp_min = -128;
    job.requant.clamp_max = 255;
    DrawSlope(rng, SlopeDraw::kAny, job);
    golden::RequantParams& neg = job.slope->negative.requant;
    const bool tpu = form == 2;
    neg.form = tpu ? golden::RequantForm::kTpuMlir : golden::RequantForm::kTflite;
    neg.mult_bits = 16;
    job.slope->negative.k = tpu ? -1 : golden::kMinSlopeK;
    for (int n = 0; n < job.n; ++n) {
      golden::SlopeStageParams channel = *job.slope;
      golden::RequantParams& rq = channel.negative.requant;
      rq.multiplier = int32_t(tpu ? rng.Uniform(-32768, 32767) : rng.Uniform(kMinMult, kInt32Max));
      rq.shift = int(tpu ? rng.Uniform(4, 16) : rng.Uniform(-14, -6));
      if (!tpu && n % 2 == 1) channel.negative.k = -golden::kMinSlopeK;
      job.channel_slope.push_back(channel);
    }
    *job.slope = job.channel_slope[0];
    job.rq_base = 0;
    if (form == 0) {
      SetPerChannel(
          job, [&](int) { return int32_t(rng.Uniform(kMinMult, kInt32Max)); },
          [&](int) { return int(rng.Uniform(-12, 0)); });
    }
    RunJob(b, job, rng.Chance(30));
  }
  return b.Take();
}

struct ProgramTestDef {
  TestInfo info;
  std::function<Program(Rng&, const arch::ArchConfig&)> generate;
};

const std::vector<ProgramTestDef>& Defs() {
  static const std::vector<ProgramTestDef> defs = {
      {{"prog_chain",
        "2-4 commands, each one's int8 output the next one's A operand (read back and written by "
        "the host); back-to-back relaunch; IRQ enable and DONE/ERROR acknowledge"},
       GenChain},
      {{"prog_errors",
        "every validation rule at its boundary in random order: the last legal value runs whole, "
        "the first illegal one fails with its code and writes nothing; two failing rules at once"},
       GenErrors},
      {{"prog_bus",
        "every CMD register written with ones, random and zeros and read back; idle SRAM windows "
        "at "
        "their edges (last word, first word past, top of window) and RQ words read back; bus "
        "accesses at "
        "random cycles while a command runs: every register (perf counters "
        "mid-count), SRAM windows, CMD_*/CTRL writes, read-only, reserved and unmapped "
        "addresses; IRQ raised and cleared after DONE"},
       GenBus},
      {{"prog_corners",
        "field extremes: output zero point -2^31 and 2^31-1, clamp -128..255, every shift, ties "
        "in both rounding stages, saturation with zero points, bias wrap-around, K = 1 and the "
        "largest K, M = 1, N = 1"},
       GenCorners},
      {{"prog_requant_forms",
        "the TPU-MLIR requant form's ties in each of its seven roundings (one command per mode, "
        "per channel, x from the bias), then rshift 0 and 63, the width's extreme multipliers and "
        "quotients beyond int32 brought back by the zero point"},
       GenRequantForms},
      {{"prog_slope_edges",
        "the slope stage at its edges, one command each, per side: TFLite shifts -31 and 30, "
        "TPU-MLIR rshifts 0 and 63, K -256 and 255, d -383 and 383 (the first stage saturated "
        "around an input zero point of 255 or -128); the ties of each TPU-MLIR mode; K = 0"},
       GenSlopeEdges},
      {{"prog_launch_after_reset",
        "a command launched about 12 cycles after reset (one bias word and M, N, K, MODE written, "
        "the "
        "other CMD registers at their reset values), inside the bias-read delay line's length on "
        "16 "
        "columns; N spans C + 3 column blocks and only block 0 has a bias"},
       GenLaunchAfterReset},
      {{"prog_layers",
        "a random chain of 1-3 GEMM layers (half of them with weights streamed through the B "
        "SRAM in chunks, a third of the later ones adding an earlier one's output by ELTWISE) "
        "compiled with on-chip chaining and double buffering each on and off; "
        "each program run with CTRL.RUN on the same input, its output equal to the reference "
        "network (checked with golden at generation) and every memory to golden's"},
       GenLayers},
  };
  return defs;
}

}  // namespace

std::vector<TestInfo> ProgramTests() {
  std::vector<TestInfo> tests;
  for (const ProgramTestDef& def : Defs()) tests.push_back(def.info);
  return tests;
}

Program MakeProgramTest(std::string_view name, uint64_t seed, const arch::ArchConfig& config) {
  for (const ProgramTestDef& def : Defs()) {
    if (def.info.name != name) continue;
    Rng rng(HashName(name) ^ seed);
    return def.generate(rng, config);
  }
  throw std::invalid_argument(fmt::format("unknown test '{}' in suite program", name));
}

}  // namespace qacc::sim
