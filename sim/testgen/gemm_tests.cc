#include "sim/testgen/gemm_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

#include "golden/activation.h"
#include "golden/quant.h"
#include "golden/requant.h"
#include "sim/testgen/rng.h"
#include "sim/testgen/slope_draw.h"

namespace qacc::sim {

namespace {

constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kMinMult = int32_t{1} << 30;  // smallest nonzero legal Q31 multiplier, 0.5
constexpr int32_t kMaxMult = kInt32Max;         // 2^31 - 1, just below 1.0

// ---- Operand data ------------------------------------------------------------------------------

enum class Dist {
  kUniform,  // every code equally likely
  kAllMin,   // every element -128 (int8) or 0 (uint8)
  kAllMax,   // every element 127 (int8) or 255 (uint8)
  kSparse,   // ~90% the operand zero point (a real 0, factor 0), the rest uniform
  kBimodal,  // "skyscraper": only codes within 8 of either end of the range
  kSmall,    // codes within 4 of the zero point (small products, no saturation)
};

uint8_t Code(int value) { return static_cast<uint8_t>(value & 0xFF); }

int MinCode(bool is_unsigned) { return is_unsigned ? 0 : -128; }
int MaxCode(bool is_unsigned) { return is_unsigned ? 255 : 127; }

void FillOperand(Rng& rng, Dist dist, bool is_unsigned, int32_t zp, size_t count,
                 std::vector<uint8_t>& out) {
  const int lo = MinCode(is_unsigned), hi = MaxCode(is_unsigned);
  const int zero = std::clamp<int>(zp, lo, hi);  // nearest code to the zero point
  out.resize(count);
  for (auto& code : out) {
    int v = 0;
    switch (dist) {
      case Dist::kUniform:
        v = int(rng.Uniform(lo, hi));
        break;
      case Dist::kAllMin:
        v = lo;
        break;
      case Dist::kAllMax:
        v = hi;
        break;
      case Dist::kSparse:
        v = rng.Chance(90) ? zero : int(rng.Uniform(lo, hi));
        break;
      case Dist::kBimodal:
        v = rng.Chance(50) ? int(rng.Uniform(lo, lo + 7)) : int(rng.Uniform(hi - 7, hi));
        break;
      case Dist::kSmall:
        v = std::clamp<int>(zero + int(rng.Uniform(-4, 4)), lo, hi);
        break;
    }
    code = Code(v);
  }
}

Dist RandomDist(Rng& rng) {
  const int64_t r = rng.Uniform(0, 99);
  if (r < 55) return Dist::kUniform;
  if (r < 65) return Dist::kSparse;
  if (r < 75) return Dist::kBimodal;
  if (r < 85) return Dist::kSmall;
  if (r < 92) return Dist::kAllMin;
  return Dist::kAllMax;
}

// Operand zero point: usually the symmetric/asymmetric convention (0 for int8, around 128 for
// uint8), sometimes anywhere in the legal -128..255.
int32_t RandomZp(Rng& rng, bool is_unsigned) {
  const int64_t r = rng.Uniform(0, 99);
  if (r < 40) return is_unsigned ? 128 : 0;
  if (r < 75) return is_unsigned ? int32_t(rng.Uniform(0, 255)) : int32_t(rng.Uniform(-128, 127));
  if (r < 85) return rng.Pick<int32_t>({arch::kMinOperandZp, arch::kMaxOperandZp});
  return int32_t(rng.Uniform(arch::kMinOperandZp, arch::kMaxOperandZp));
}

// ---- Shapes ------------------------------------------------------------------------------------

// One dimension: small, around a multiple of the array size (non-multiples are the padding edge),
// or anywhere up to `max`.
int RandomDim(Rng& rng, int array, int max) {
  const int64_t r = rng.Uniform(0, 99);
  if (r < 20) return int(rng.Uniform(1, std::min(array, max)));
  if (r < 45) {
    const int mult = int(rng.Uniform(1, std::max(1, max / array)));
    return std::clamp(mult * array + int(rng.Uniform(-1, 1)), 1, max);
  }
  return int(rng.Uniform(1, max));
}

// Typical problem: dimensions up to 96, one in seven up to 300 (E ~ T * max(K, R, C) stays below
// ~0.5 M cycles, well under a second of lockstep simulation).
void RandomShape(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
  const int max = rng.Chance(14) ? 300 : 96;
  job.m = RandomDim(rng, config.rows, max);
  job.n = RandomDim(rng, config.cols, max);
  job.k = RandomDim(rng, std::max(config.rows, config.cols), max);
}

int64_t OutWordsOf(const arch::ArchConfig& config, const model::GemmJob& job) {
  const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k);
  return arch::OutWords(timing.T(), config.rows, arch::OutLayoutOf(model::ToCommand(job)));
}

// Shrinks the shape until the operands and the output fit their SRAMs from base 0 (section 4 range
// checks): K first (A and B panels), then M (output words), then N (bias/rq words).
void FitShape(const arch::ArchConfig& config, model::GemmJob& job, bool bias, bool per_channel) {
  const int64_t nb_limit = std::min<int64_t>(bias ? config.bias_depth : arch::kMaxDim,
                                             per_channel ? config.rq_depth : arch::kMaxDim);
  job.n = int(std::min<int64_t>(job.n, nb_limit * config.cols));
  const int64_t mb = arch::CeilDiv(job.m, config.rows), nb = arch::CeilDiv(job.n, config.cols);
  job.k = int(std::min<int64_t>({job.k, config.a_depth / mb, config.b_depth / nb}));
  while (OutWordsOf(config, job) > int64_t{config.out_depth}) job.m = std::max(1, job.m / 2);
}

// ---- Requant parameters ------------------------------------------------------------------------

enum class ClampKind { kRandom, kInt8, kUint8, kRelu, kRelu6, kNarrow };

int64_t Abs64(int64_t v) { return v < 0 ? -v : v; }

int BitLength(int64_t v) {
  int bits = 0;
  for (uint64_t u = static_cast<uint64_t>(Abs64(v)); u != 0; u >>= 1) ++bits;
  return bits;
}

// A shift that maps the largest |x| of a column to roughly 2^7 (x * Mq / 2^31 * 2^s with Mq / 2^31
// in [0.5, 1)), jittered by -2..+1 so that some outputs saturate and some do not.
int SensibleShift(Rng& rng, int64_t max_abs) {
  const int s = 8 - BitLength(max_abs) + int(rng.Uniform(-2, 1));
  return std::clamp(s, arch::kMinShift, arch::kMaxShift);
}

int32_t RandomMult(Rng& rng) {
  if (rng.Chance(3)) return 0;
  return int32_t(rng.Uniform(kMinMult, kMaxMult));
}

// Output zero point and clamp bounds. The clamp range lies within int8 (-128..127) or uint8
// (0..255) so that the stored byte reads back unambiguously (6.3: uint8 when clamp_min >= 0).
void SetOutputStage(Rng& rng, ClampKind kind, golden::RequantParams& rq) {
  if (kind == ClampKind::kRandom) {
    const int64_t r = rng.Uniform(0, 99);
    kind = r < 40   ? ClampKind::kInt8
           : r < 60 ? ClampKind::kUint8
           : r < 75 ? ClampKind::kRelu
           : r < 87 ? ClampKind::kRelu6
                    : ClampKind::kNarrow;
  }
  const bool out_unsigned = kind == ClampKind::kUint8 || rng.Chance(40);
  golden::QuantSpec spec;
  spec.is_signed = !out_unsigned;
  spec.zero_point = out_unsigned ? int32_t(rng.Uniform(0, 255)) : int32_t(rng.Uniform(-128, 127));
  if (rng.Chance(30)) spec.zero_point = out_unsigned ? 128 : 0;
  // ReLU / ReLU6 keep codes from the zero point up: leave them some room.
  if (kind == ClampKind::kRelu || kind == ClampKind::kRelu6) {
    spec.zero_point = std::min<int32_t>(spec.zero_point, int32_t(spec.qmax()) - 8);
  }
  // 6 / scale between 3 and ~250 codes: ReLU6 cuts anywhere from near the zero point to beyond
  // qmax.
  spec.scale = 6.0 / double(rng.Uniform(3, 250));
  golden::ClampBounds bounds{int32_t(spec.qmin()), int32_t(spec.qmax())};
  switch (kind) {
    case ClampKind::kRelu:
      bounds = golden::ActivationClamp(golden::Activation::kRelu, spec);
      break;
    case ClampKind::kRelu6:
      bounds = golden::ActivationClamp(golden::Activation::kRelu6, spec);
      break;
    case ClampKind::kNarrow: {
      const int32_t a = int32_t(rng.Uniform(spec.qmin(), spec.qmax()));
      const int32_t b = int32_t(rng.Uniform(spec.qmin(), spec.qmax()));
      bounds = {std::min(a, b), std::max(a, b)};
      break;
    }
    default:
      break;
  }
  rq.output_zero_point = spec.zero_point;
  rq.clamp_min = bounds.clamp_min;
  rq.clamp_max = bounds.clamp_max;
}

// The biased accumulators of the job (golden Gemm with bias, wrapped to int32).
golden::Matrix<int32_t> Accumulators(const model::GemmJob& job) {
  model::GemmJob raw = job;
  raw.out_raw = true;
  return model::GoldenOutput(raw);
}

std::vector<int64_t> ColumnMaxAbs(const model::GemmJob& job) {
  const golden::Matrix<int32_t> acc = Accumulators(job);
  std::vector<int64_t> max_abs(size_t(job.n), 0);
  for (int r = 0; r < acc.rows; ++r) {
    for (int c = 0; c < acc.cols; ++c) {
      max_abs[size_t(c)] = std::max(max_abs[size_t(c)], Abs64(acc.at(r, c)));
    }
  }
  return max_abs;
}

// ---- The TPU-MLIR form (requant.md 6.1) ---------------------------------------------------------

// A multiplier of `bits` signed bits: 0, the width's extremes and +-1 now and then, else a random
// magnitude of a random bit length (log-uniform) and sign.
int32_t RandomTpuMult(Rng& rng, int bits) {
  const int64_t half = int64_t{1} << (bits - 1);
  const int64_t r = rng.Uniform(0, 99);
  if (r < 4) return 0;
  if (r < 16) return int32_t(rng.Pick<int64_t>({-half, half - 1, 1, -1}));
  const int length = int(rng.Uniform(1, bits - 1));
  const int64_t magnitude = rng.Uniform(int64_t{1} << (length - 1), (int64_t{1} << length) - 1);
  return int32_t(rng.Chance(50) ? -magnitude : magnitude);
}

// The rshift that maps the largest |x * m| to roughly 2^7, jittered by -2..+1, in 0..63.
int TpuRshift(Rng& rng, int64_t max_abs, int32_t mult) {
  const int r = BitLength(max_abs) + BitLength(mult) - 8 + int(rng.Uniform(-2, 1));
  return std::clamp(r, 0, golden::kMaxRequantRshift);
}

// The TPU-MLIR form's multiplier and rshift scaled to the data, per tensor or per column.
void SetTpuScales(Rng& rng, model::GemmJob& job) {
  const std::vector<int64_t> max_abs = ColumnMaxAbs(job);
  const int64_t overall = *std::max_element(max_abs.begin(), max_abs.end());
  const int bits = job.requant.mult_bits;
  job.requant.multiplier = RandomTpuMult(rng, bits);
  job.requant.shift = TpuRshift(rng, overall, job.requant.multiplier);
  job.channel_mult.clear();
  job.channel_shift.clear();
  if (!job.per_channel) return;
  for (int n = 0; n < job.n; ++n) {
    job.channel_mult.push_back(RandomTpuMult(rng, bits));
    job.channel_shift.push_back(TpuRshift(rng, max_abs[size_t(n)], job.channel_mult.back()));
  }
  // CMD_MULT and the rshift are not checked with PER_CHANNEL: often values that per tensor would
  // be MULT_WIDTH or RSHIFT_RANGE.
  if (rng.Chance(50)) job.requant.multiplier = int32_t(rng.Next());
  if (rng.Chance(50)) job.requant.shift = int(rng.Uniform(0, 255));
}

// The TPU-MLIR form's fields of the job, any width and mode; the TFLite form's fields they leave
// unused keep whatever they hold.
void DrawTpuMlirForm(Rng& rng, model::GemmJob& job) {
  job.requant.form = golden::RequantForm::kTpuMlir;
  job.requant.mult_bits = int(rng.Pick<int64_t>({8, 16, 32}));
  job.requant.rshift_rounding = golden::tpu_mlir::kAllRoundings[rng.Uniform(0, 6)];
  SetTpuScales(rng, job);
}

// Multipliers and shifts scaled to the data (per tensor, or one per column with per_channel).
void SetScales(Rng& rng, model::GemmJob& job) {
  if (job.requant.form == golden::RequantForm::kTpuMlir) {
    SetTpuScales(rng, job);
    return;
  }
  const std::vector<int64_t> max_abs = ColumnMaxAbs(job);
  const int64_t overall = *std::max_element(max_abs.begin(), max_abs.end());
  job.requant.multiplier = RandomMult(rng);
  job.requant.shift = SensibleShift(rng, overall);
  job.channel_mult.clear();
  job.channel_shift.clear();
  if (job.per_channel) {
    for (int n = 0; n < job.n; ++n) {
      job.channel_mult.push_back(RandomMult(rng));
      job.channel_shift.push_back(SensibleShift(rng, max_abs[size_t(n)]));
    }
    // CMD_MULT is not checked with PER_CHANNEL (4: BAD_REQUANT): often a value that per tensor would be
    // illegal (1 .. 2^30 - 1), which the command must accept.
    if (rng.Chance(50)) job.requant.multiplier = int32_t(rng.Uniform(1, arch::kMinNonzeroMult - 1));
  }
}

// ---- Bases -------------------------------------------------------------------------------------

uint32_t RandomBase(Rng& rng, int64_t depth, int64_t used) {
  if (used > depth) return 0;  // the unit is unused for this command; 0 is always legal then
  const int64_t r = rng.Uniform(0, 99);
  if (r < 40) return 0;
  if (r < 55) return uint32_t(depth - used);  // the last legal base: the panel ends at the top word
  return uint32_t(rng.Uniform(0, depth - used));
}

void RandomBases(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
  const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k);
  job.a_base = RandomBase(rng, config.a_depth, timing.MB() * job.k);
  job.b_base = RandomBase(rng, config.b_depth, timing.NB() * job.k);
  job.bias_base = RandomBase(rng, config.bias_depth, timing.NB());
  job.rq_base = RandomBase(rng, config.rq_depth, timing.NB());
  job.out_base = RandomBase(rng, config.out_depth, OutWordsOf(config, job));
}

// RQ_BASE again for a job that reads the slope's rq words too (requant.md 6.3): S words per tile.
void FitRqBase(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
  if (job.channel_slope.empty()) return;
  const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k);
  job.rq_base = RandomBase(rng, config.rq_depth, model::RqWordsPerTile(job) * timing.NB());
}

// ---- The plan of one job -----------------------------------------------------------------------

struct Plan {
  bool a_unsigned = false, b_unsigned = false;
  int32_t a_zp = 0, b_zp = 0;
  Dist a_dist = Dist::kUniform, b_dist = Dist::kUniform;
  bool bias = false;
  int bias_bits = 16;  // |bias| < 2^bias_bits
  bool per_channel = false;
  bool out_raw = false;
  golden::RequantRounding rounding = golden::RequantRounding::kDoubleRounding;
  golden::RequantForm form = golden::RequantForm::kTflite;
  ClampKind clamp = ClampKind::kRandom;
  bool random_bases = true;
  bool fit = true;  // shrink the shape into the SRAMs
};

Plan RandomPlan(Rng& rng) {
  Plan plan;
  plan.a_unsigned = rng.Chance(50);
  plan.b_unsigned = rng.Chance(25);
  plan.a_zp = RandomZp(rng, plan.a_unsigned);
  plan.b_zp = RandomZp(rng, plan.b_unsigned);
  plan.a_dist = RandomDist(rng);
  plan.b_dist = RandomDist(rng);
  plan.bias = rng.Chance(60);
  plan.bias_bits = int(rng.Uniform(4, 24));
  plan.per_channel = rng.Chance(40);
  plan.out_raw = rng.Chance(10);
  plan.rounding = rng.Chance(50) ? golden::RequantRounding::kSingleRounding
                                 : golden::RequantRounding::kDoubleRounding;
  return plan;
}

// Fills the job (whose m, n, k are set) from the plan: operands, bias, scales, clamp, bases.
void Build(Rng& rng, const arch::ArchConfig& config, const Plan& plan, model::GemmJob& job) {
  job.a_unsigned = plan.a_unsigned;
  job.b_unsigned = plan.b_unsigned;
  job.a_zp = plan.a_zp;
  job.b_zp = plan.b_zp;
  job.per_channel = plan.per_channel;
  job.out_raw = plan.out_raw;
  if (plan.fit) FitShape(config, job, plan.bias, plan.per_channel);
  FillOperand(rng, plan.a_dist, job.a_unsigned, job.a_zp, size_t(job.m) * size_t(job.k), job.a);
  FillOperand(rng, plan.b_dist, job.b_unsigned, job.b_zp, size_t(job.k) * size_t(job.n), job.b);
  job.bias.clear();
  if (plan.bias) {
    const int64_t limit = (int64_t{1} << plan.bias_bits) - 1;
    for (int n = 0; n < job.n; ++n) job.bias.push_back(int32_t(rng.Uniform(-limit, limit)));
  }
  job.requant = golden::RequantParams{};
  job.requant.rounding = plan.rounding;
  // The other form's fields: each form ignores them (requant.md 6.1).
  job.requant.form = plan.form;
  job.requant.mult_bits = int(rng.Pick<int64_t>({8, 16, 32}));
  job.requant.rshift_rounding = golden::tpu_mlir::kAllRoundings[rng.Uniform(0, 6)];
  SetOutputStage(rng, plan.clamp, job.requant);
  SetScales(rng, job);
  job.pad_byte = Code(int(rng.Uniform(0, 255)));
  // CMD_MODE's LUT fields without ACT = LUT: ignored whatever they hold (lut.md 10.4), 16-bit
  // entries and slots past the config's included.
  if (rng.Chance(40)) job.ignored_lut_fields = uint32_t(rng.Next());
  if (plan.random_bases) RandomBases(rng, config, job);
}

// ---- The tests ---------------------------------------------------------------------------------

using Generator = std::function<void(Rng&, const arch::ArchConfig&, model::GemmJob&)>;

struct TestDef {
  GemmTestInfo info;
  Generator generate;
};

void GenRandom(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
  RandomShape(rng, config, job);
  Plan plan = RandomPlan(rng);
  if (rng.Chance(30)) plan.form = golden::RequantForm::kTpuMlir;
  Build(rng, config, plan, job);
  // Drawn after the rest, so that the jobs without it are those of earlier versions.
  // SLOPE_PER_CHANNEL without a slope, where only ACT = SLOPE reads it (requant.md 6.3).
  if (rng.Chance(10)) job.ignored_slope_per_channel = true;
  if (!job.out_raw && rng.Chance(15)) {
    const SlopeDraw draw = rng.Chance(50) ? SlopeDraw::kForms : SlopeDraw::kAny;
    const int64_t nb = arch::CeilDiv(job.n, config.cols);
    const bool per_channel = rng.Chance(40) && (job.per_channel ? 2 : 1) * nb <= config.rq_depth;
    DrawSlope(rng, draw, job, per_channel);
    FitRqBase(rng, config, job);
  }
}

// The slope stage (requant.md 6.2) after a random GEMM of up to a few tiles.
Generator WithSlope(SlopeDraw draw) {
  return [draw](Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
    job.m = int(rng.Uniform(1, 3 * config.rows));
    job.n = int(rng.Uniform(1, 3 * config.cols));
    job.k = int(rng.Uniform(1, 40));
    Plan plan = RandomPlan(rng);
    plan.out_raw = false;
    if (rng.Chance(30)) plan.form = golden::RequantForm::kTpuMlir;
    Build(rng, config, plan, job);
    SlopeDraw use = draw;
    if (draw == SlopeDraw::kForms && rng.Chance(40)) use = SlopeDraw::kAny;
    // PReLU (requant.md 6.3) on half of the jobs, drawn last: the others are those of earlier
    // versions.
    const bool per_channel = rng.Chance(50);
    DrawSlope(rng, use, job, per_channel);
    if (per_channel) FitRqBase(rng, config, job);
  };
}

// The TPU-MLIR form's corners, x from the bias (A all 0), per channel, the command's mode drawn:
//  - ties: lane n's product x m = (2q + 1) 2^(r-1) with m = +-2^u (u up to the width's top bit), so
//    the quotient q + 1/2 sits on a tie of rshift r, q small enough for the int8 output to show
//    which way it went; one lane has x = m = -2^31 (32-bit width) at rshift 63, the largest
//    product 2^62 whose quotient 1/2 is a tie;
//  - extremes: rshift 0 and 63, the width's extreme multipliers, and quotients beyond int32 that
//    the zero point -2^31 + 50 brings back into the clamp range (TPU-MLIR adds the zero point to
//    the unsaturated quotient).
void GenTpuCorners(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job, bool ties) {
  job.m = int(rng.Uniform(1, config.rows));
  job.n = int(rng.Uniform(9, 3 * config.cols));
  job.k = int(rng.Uniform(1, 8));
  Plan plan = RandomPlan(rng);
  plan.a_unsigned = false;
  plan.a_zp = 0;
  plan.bias = true;
  plan.per_channel = true;
  plan.out_raw = false;
  plan.clamp = ClampKind::kInt8;
  plan.form = golden::RequantForm::kTpuMlir;
  Build(rng, config, plan, job);
  std::fill(job.a.begin(), job.a.end(), Code(0));
  DrawTpuMlirForm(rng, job);
  // The extremes of the product need 32-bit multipliers: half the runs.
  if (!ties && rng.Chance(50)) job.requant.mult_bits = 32;
  job.requant.clamp_min = -128;
  job.requant.clamp_max = 127;
  const int bits = job.requant.mult_bits;
  const int64_t half = int64_t{1} << (bits - 1);
  if (ties) {
    job.requant.output_zero_point = int32_t(rng.Uniform(-20, 20));
    for (int n = 0; n < job.n; ++n) {
      int64_t x = 0, m = 0;
      int r = 0;
      if (n == 0 && bits == 32) {
        x = kInt32Min, m = kInt32Min, r = golden::kMaxRequantRshift;
      } else {
        // (2q + 1) 2^(r-1) = x m with m = +-2^u: x = (2q + 1) 2^(r-1-u), |2q + 1| < 2^7.
        const int u = int(rng.Uniform(0, bits - 1));
        m = (u == bits - 1 || rng.Chance(50)) ? -(int64_t{1} << u) : (int64_t{1} << u);
        const int64_t odd = 2 * rng.Uniform(-60, 59) + 1;
        const int t = int(rng.Uniform(0, 31 - 7));  // x = odd 2^t fits int32
        x = odd * (int64_t{1} << t);
        r = t + u + 1;
        if (r > golden::kMaxRequantRshift) r = golden::kMaxRequantRshift;  // then not a tie
        const int64_t kind = rng.Uniform(0, 99);
        if (kind < 15) x += rng.Pick<int64_t>({-1, 1});  // next to the tie
        if (kind >= 15 && kind < 30) --r;                // exact: no bit discarded
      }
      job.bias[size_t(n)] = int32_t(x);
      job.channel_mult[size_t(n)] = int32_t(m);
      job.channel_shift[size_t(n)] = r;
    }
    return;
  }
  // Extremes. Lane 1: rshift 63 (only the largest products leave anything); lanes 4 and 5: a
  // quotient of 2^(32 + j) and -2^(32 + j) - 1, beyond the lane's 33 bits (the clamp's bounds,
  // 2^32 itself among them); lane 6: 2^33 - 1 at rshift 1, a tie between 2^32 - 1 and 2^32; on
  // 32-bit widths lane 7: -2^31 (2^31 - 1) = -2^62 + 2^31 and lane 8: (-2^31)^2 = 2^62, the
  // extremes of the product. Every other lane: a
  // quotient q = x m / 2^r of about 2^31, beyond int32 or just inside, shown through the zero point
  // -2^31 + 50: lane 0 with m = +-1 and rshift 0, lanes 2 and 3 with the width's extreme
  // multipliers, the rest random.
  job.requant.output_zero_point = kInt32Min + 50;
  for (int n = 0; n < job.n; ++n) {
    int64_t x = 0, m = 0;
    int r = 0;
    if (n == 1) {
      m = -half;
      x = rng.Pick<int64_t>({kInt32Min, kInt32Max, 1});
      r = golden::kMaxRequantRshift;
    } else if (n == 6) {
      m = 7, x = 1227133513, r = 1;  // 7 * 1227133513 = 2^33 - 1
      if (rng.Chance(50)) m = -7, x = -x;
    } else if (bits == 32 && (n == 7 || n == 8)) {
      x = kInt32Min, m = n == 7 ? kInt32Max : kInt32Min, r = 0;
    } else if (n == 4 || n == 5) {
      // x m = -+2^(32 + j) with m = -2^(w-1): x = -+2^(33 + j - w), j in 0..min(w - 2, 29); lane 5
      // one further, -2^(32 + j) - 2^(w-1) (x one larger).
      m = -half;
      const int j = int(rng.Uniform(0, std::min(bits - 2, 29)));
      x = (n == 4 ? -1 : 1) * (int64_t{1} << (33 + j - bits)) + (n == 5 ? 1 : 0);
      r = 0;
    } else {
      m = n == 0   ? rng.Pick<int64_t>({1, -1})
          : n == 2 ? half - 1
          : n == 3 ? -half
                   : RandomTpuMult(rng, bits);
      if (m == 0 || m == 1 || m == -1) m = n == 0 ? m : 2;
      r = n == 0 ? 0 : int(rng.Uniform(0, BitLength(m) - 1));
      // x = (2^31 + j) 2^r / m, j in -60..200: y = q - 2^31 + 50 in about -10..250.
      x = (((int64_t{1} << 31) + rng.Uniform(-60, 200)) << r) / m;
    }
    job.bias[size_t(n)] = int32_t(std::clamp<int64_t>(x, kInt32Min, kInt32Max));
    job.channel_mult[size_t(n)] = int32_t(m);
    job.channel_shift[size_t(n)] = std::clamp(r, 0, golden::kMaxRequantRshift);
  }
}

// One dimension (m, n or k) forced to 1, the others random.
Generator WithDim(char dim) {
  return [dim](Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
    RandomShape(rng, config, job);
    if (dim == 'm') job.m = 1;
    if (dim == 'n') job.n = 1;
    if (dim == 'k') job.k = 1;
    Build(rng, config, RandomPlan(rng), job);
  };
}

// Each dimension from the edge set around the array size and the tile period P = max(K, R, C):
// 1, R-1, R, R+1, 2R-1, 2R+1 (M; likewise C for N), K below, at and above max(R, C).
void GenEdges(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
  auto edge = [&rng](int a) {
    return std::max(1, rng.Pick<int>({1, a - 1, a, a + 1, 2 * a - 1, 2 * a + 1, 3 * a + 1}));
  };
  const int p = std::max(config.rows, config.cols);
  job.m = edge(config.rows);
  job.n = edge(config.cols);
  job.k = std::max(1, rng.Pick<int>({1, 2, config.rows - 1, config.rows, config.cols - 1,
                                     config.cols, p - 1, p, p + 1, 2 * p + 3}));
  Build(rng, config, RandomPlan(rng), job);
}

// Sizes that end exactly at the top word of an SRAM, computed from the config depths; the variant
// (seed-chosen) picks which SRAMs are filled.
void GenFillSram(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
  Plan plan = RandomPlan(rng);
  plan.fit = false;
  plan.random_bases = false;
  const int variant = int(rng.Uniform(0, 3));
  if (variant == 0) {
    // A and B from base 0: MB * K = ADepth and NB * K = BDepth with K a power of two (depths are).
    const int64_t k = rng.Pick<int64_t>({256, 512, 1024});
    job.k = int(k);
    job.m = int(config.a_depth / k * config.rows - rng.Uniform(0, config.rows - 1));
    job.n = int(config.b_depth / k * config.cols - rng.Uniform(0, config.cols - 1));
    plan.out_raw = false;
    Build(rng, config, plan, job);
  } else if (variant == 1) {
    // Bias and rq SRAMs: NB words ending at the top of both (bases = depth - NB).
    plan.bias = true;
    plan.per_channel = true;
    plan.out_raw = false;
    const int64_t nb = std::min(config.bias_depth, config.rq_depth);
    job.n = int(nb * config.cols - rng.Uniform(0, config.cols - 1));
    job.m = int(rng.Uniform(1, 2 * config.rows));
    job.k = int(rng.Uniform(1, 16));
    Build(rng, config, plan, job);
    job.bias_base = uint32_t(config.bias_depth - nb);
    job.rq_base = uint32_t(config.rq_depth - nb);
  } else if (variant == 2) {
    // Output SRAM (int32 mode) from base 0: T * Rows = OutDepth.
    plan.out_raw = true;
    const int64_t tiles = config.out_depth / config.rows;  // a power of two
    int64_t mb = 1;
    while (mb * mb < tiles) mb *= 2;
    const int64_t nb = tiles / mb;
    job.m = int(mb * config.rows - rng.Uniform(0, config.rows - 1));
    job.n = int(nb * config.cols - rng.Uniform(0, config.cols - 1));
    job.k = int(rng.Uniform(1, 8));
    Build(rng, config, plan, job);
  } else {
    // Output SRAM (int8 mode): a random number of tiles ending at the top word (OUT_BASE = OutDepth
    // - T * Rows / 4), plus the A panel ending at the top of the A SRAM.
    plan.out_raw = false;
    job.m = RandomDim(rng, config.rows, 200);
    job.n = RandomDim(rng, config.cols, 200);
    job.k = RandomDim(rng, config.rows, 64);
    Build(rng, config, plan, job);
    const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k);
    job.out_base = uint32_t(config.out_depth - OutWordsOf(config, job));
    job.a_base = uint32_t(config.a_depth - timing.MB() * job.k);
  }
}

Generator WithDist(Dist dist) {
  return [dist](Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
    RandomShape(rng, config, job);
    Plan plan = RandomPlan(rng);
    plan.a_dist = dist;
    plan.b_dist = dist;
    Build(rng, config, plan, job);
  };
}

// The exact final value bias[n] + sum_k (...) must leave int32: the SRAM depths bound K (MB * K <=
// ADepth), so K * 383^2 alone stays below 2^31 (8192 * 146689 ~ 1.2e9); a bias near the int32 limit
// of the column's sign pushes it over, and the 32-bit accumulator (bias first, then the products)
// wraps.
void GenOverflow(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
  Plan plan = RandomPlan(rng);
  plan.bias = true;
  plan.out_raw = rng.Chance(50);
  // Factors of magnitude 383 / 255: uint8 255 - (-128) and uint8 0 - 255.
  plan.a_unsigned = true;
  plan.b_unsigned = true;
  plan.a_zp = -128;
  plan.b_zp = rng.Pick<int32_t>({-128, 255});
  plan.random_bases = false;
  const int64_t max_k = std::min(config.a_depth, config.b_depth);
  job.k = int(rng.Uniform(max_k / 4, max_k));
  job.m = int(rng.Uniform(1, config.rows));
  job.n = int(rng.Uniform(1, config.cols));
  Build(rng, config, plan, job);
  const uint8_t b_extreme = plan.b_zp < 0 ? 255 : 0;
  for (auto& code : job.a) code = rng.Chance(95) ? 255 : Code(int(rng.Uniform(0, 255)));
  for (auto& code : job.b) code = rng.Chance(95) ? b_extreme : Code(int(rng.Uniform(0, 255)));
  std::fill(job.bias.begin(), job.bias.end(), 0);
  const golden::Matrix<int32_t> acc = Accumulators(job);  // exact: |acc| < 2^31 without bias
  for (int n = 0; n < job.n; ++n) {
    int64_t largest = 0;
    for (int m = 0; m < job.m; ++m) {
      if (Abs64(acc.at(m, n)) > Abs64(largest)) largest = acc.at(m, n);
    }
    // bias + largest = limit + largest / 2 (rounded away from 0): outside int32 for |largest| >= 1.
    const int64_t half = largest / 2;
    job.bias[size_t(n)] = int32_t(largest >= 0 ? kInt32Max - half : kInt32Min - half);
  }
  SetScales(rng, job);
  RandomBases(rng, config, job);
}

// Shifts at both ends of -31..30 and 0: per channel (lanes 0..4 hold -31, -30, 0, 29, 30 in a
// random order, the others random) or one of -31, 0, 30 per tensor.
void GenShiftExtremes(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
  RandomShape(rng, config, job);
  Plan plan = RandomPlan(rng);
  plan.out_raw = false;
  plan.per_channel = rng.Chance(70);
  if (plan.per_channel) job.n = std::max(job.n, 5);
  if (rng.Chance(50)) plan.a_dist = Dist::kSmall;  // small accumulators keep shift 30 unsaturated
  Build(rng, config, plan, job);
  if (job.per_channel) {
    std::vector<int> extremes = {arch::kMinShift, arch::kMinShift + 1, 0, arch::kMaxShift - 1,
                                 arch::kMaxShift};
    for (size_t i = extremes.size(); i > 1; --i) {
      std::swap(extremes[i - 1], extremes[size_t(rng.Uniform(0, int64_t(i) - 1))]);
    }
    for (int n = 0; n < job.n; ++n) {
      job.channel_shift[size_t(n)] =
          n < 5 ? extremes[size_t(n)] : int(rng.Uniform(arch::kMinShift, arch::kMaxShift));
      if (job.channel_mult[size_t(n)] == 0) job.channel_mult[size_t(n)] = kMinMult;
    }
  } else {
    job.requant.shift = rng.Pick<int>({arch::kMinShift, 0, arch::kMaxShift});
    if (job.requant.multiplier == 0) job.requant.multiplier = kMaxMult;
  }
}

// Multipliers 2^30 (0.5), 2^30 + 1, 2^31 - 2, 2^31 - 1 and 0: per channel (lanes 0..3 hold 2^30,
// 2^31 - 1, 2^30 + 1, 2^31 - 2) or one of them per tensor.
void GenMultExtremes(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
  RandomShape(rng, config, job);
  Plan plan = RandomPlan(rng);
  plan.out_raw = false;
  plan.per_channel = rng.Chance(60);
  if (plan.per_channel) job.n = std::max(job.n, 4);
  Build(rng, config, plan, job);
  const std::vector<int32_t> extremes = {kMinMult, kMaxMult, kMinMult + 1, kMaxMult - 1};
  if (job.per_channel) {
    for (int n = 0; n < job.n; ++n) {
      job.channel_mult[size_t(n)] =
          n < 4 ? extremes[size_t(n)]
                : rng.Pick<int32_t>({kMinMult, kMinMult + 1, kMaxMult - 1, kMaxMult, 0});
    }
  } else {
    job.requant.multiplier = rng.Chance(90) ? rng.Pick<int32_t>({kMinMult, kMaxMult}) : 0;
  }
}

// Requant corners that random data rarely reaches, made visible in the int8 output by an output zero point
// that brings the huge intermediate back into the clamp range. A is all 0 (every accumulator is 0), so
// x = bias[n]; per-tensor multiplier and shift; one sign per seed (the zero point can show only one).
//  - ties: double rounding, shift -sh2, SRDHM results beyond 2^30 in magnitude that are ties of
//    RoundingDivideByPOT (x is searched with the golden SRDHM): the tie direction follows bit 31 of the
//    SRDHM result, which differs from bit 30 there;
//  - saturation: shift 30, most products saturate to INT32_MAX (x > 0) or INT32_MIN (x < 0), and the zero
//    point +-(2^31 - 1) -+ 50 shows the saturated value itself; a few x in -2..2 do not saturate.
void GenRequantCorners(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job, bool ties) {
  job.m = int(rng.Uniform(1, config.rows));
  job.n = int(rng.Uniform(1, 3 * config.cols));
  job.k = int(rng.Uniform(1, 8));
  Plan plan = RandomPlan(rng);
  plan.form = golden::RequantForm::kTflite;
  plan.a_unsigned = false;
  plan.a_zp = 0;
  plan.bias = true;
  plan.per_channel = false;
  plan.out_raw = false;
  plan.clamp = ClampKind::kInt8;
  Build(rng, config, plan, job);
  std::fill(job.a.begin(), job.a.end(), Code(0));
  job.requant.clamp_min = -128;
  job.requant.clamp_max = 127;
  const bool negative = rng.Chance(50);
  const int64_t two30 = int64_t{1} << 30;
  if (ties) {
    const int sh2 = int(rng.Uniform(1, 29));
    const int32_t mult = int32_t(rng.Uniform(two30 + two30 / 2, kMaxMult));
    job.requant.rounding = golden::RequantRounding::kDoubleRounding;
    job.requant.multiplier = mult;
    job.requant.shift = -sh2;
    // Ties t = +-(2^30 + 2^(sh2-1) + j * 2^sh2), j < jmax, all with |t| < mult (reachable by some x).
    const int64_t half = int64_t{1} << (sh2 - 1), step = int64_t{1} << sh2;
    const int64_t jmax = std::min<int64_t>(180, (int64_t(mult) - two30 - half) / step);
    for (int n = 0; n < job.n; ++n) {
      const int64_t j = rng.Uniform(0, std::max<int64_t>(0, jmax - 1));
      const int64_t t = (two30 + half + j * step) * (negative ? -1 : 1);
      // SRDHM(x, mult) = floor((x * mult + 2^30) / 2^31) grows by 0 or 1 per step of x (mult < 2^31).
      int64_t x = t * (int64_t{1} << 31) / mult;
      while (golden::SaturatingRoundingDoublingHighMul(int32_t(x), mult) < t) ++x;
      while (golden::SaturatingRoundingDoublingHighMul(int32_t(x), mult) > t) --x;
      job.bias[size_t(n)] = int32_t(x);
    }
    // v = t / 2^sh2 rounded away from zero = +-(2^(30 - sh2) + j + 1): with the zero point, +-(j - 60).
    const int32_t base = int32_t((int64_t{1} << (30 - sh2)) + 1);
    job.requant.output_zero_point = negative ? base + 60 : -base - 60;
  } else {
    job.requant.rounding = rng.Chance(50) ? golden::RequantRounding::kSingleRounding
                                          : golden::RequantRounding::kDoubleRounding;
    job.requant.multiplier = int32_t(rng.Uniform(kMinMult, kMaxMult));
    job.requant.shift = arch::kMaxShift;
    for (int n = 0; n < job.n; ++n) {
      const int64_t x = rng.Chance(10) ? rng.Uniform(-2, 2) : rng.Uniform(3, kInt32Max);
      job.bias[size_t(n)] = int32_t(negative ? -x : x);
    }
    job.requant.output_zero_point = negative ? kInt32Max - 50 : -kInt32Max + 50;
  }
}

// A plan modifier applied after RandomPlan, then built on a random shape.
Generator WithPlan(std::function<void(Rng&, Plan&)> modify) {
  return [modify](Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
    RandomShape(rng, config, job);
    Plan plan = RandomPlan(rng);
    modify(rng, plan);
    Build(rng, config, plan, job);
  };
}

// Operand zero points over the whole legal range, with both signednesses, and extreme output zero
// points (a/b zp in -128..255: factors up to +-383).
void GenZeroPoints(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
  RandomShape(rng, config, job);
  Plan plan = RandomPlan(rng);
  plan.a_unsigned = rng.Chance(50);
  plan.b_unsigned = rng.Chance(50);
  auto zp = [&rng]() {
    return rng.Chance(40) ? rng.Pick<int32_t>({-128, -127, 0, 127, 128, 254, 255})
                          : int32_t(rng.Uniform(arch::kMinOperandZp, arch::kMaxOperandZp));
  };
  plan.a_zp = zp();
  plan.b_zp = zp();
  plan.out_raw = false;
  Build(rng, config, plan, job);
  const bool out_unsigned = job.requant.clamp_min >= 0;
  job.requant.output_zero_point =
      out_unsigned ? rng.Pick<int32_t>({0, 255, int32_t(rng.Uniform(0, 255))})
                   : rng.Pick<int32_t>({-128, 127, int32_t(rng.Uniform(-128, 127))});
}

// Bases anywhere that still fits: each panel at base 0, at the last legal base or in between (every
// SRAM independently).
void GenBases(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
  RandomShape(rng, config, job);
  Plan plan = RandomPlan(rng);
  plan.bias = true;
  plan.per_channel = true;
  Build(rng, config, plan, job);
}

// A small random convolution lowered by the host: im2col of the input, flattened HWIO filter.
void GenConv(Rng& rng, const arch::ArchConfig& config, model::GemmJob& job, ConvTestCase& conv) {
  const int batch = int(rng.Uniform(1, 2));
  const int h = int(rng.Uniform(1, 12)), w = int(rng.Uniform(1, 12));
  const int c_in = int(rng.Uniform(1, 12)), c_out = int(rng.Uniform(1, 40));
  golden::Conv2dParams& params = conv.params;
  const int kh = int(rng.Uniform(1, 3)), kw = int(rng.Uniform(1, 3));
  params.stride_h = int(rng.Uniform(1, 2));
  params.stride_w = int(rng.Uniform(1, 2));
  params.pad_top = int(rng.Uniform(0, kh - 1));
  params.pad_bottom = int(rng.Uniform(0, kh - 1));
  params.pad_left = int(rng.Uniform(0, kw - 1));
  params.pad_right = int(rng.Uniform(0, kw - 1));
  // The kernel must fit the padded input: enlarge the input if not.
  const int in_h = std::max(h, kh), in_w = std::max(w, kw);
  params.input_zero_point = int32_t(rng.Uniform(0, 255));
  params.filter_zero_point = rng.Chance(70) ? 0 : int32_t(rng.Uniform(-128, 127));
  conv.input = golden::Tensor4<uint8_t>(batch, in_h, in_w, c_in);
  conv.filter = golden::Tensor4<int8_t>(kh, kw, c_in, c_out);
  FillOperand(rng, RandomDist(rng), true, params.input_zero_point, conv.input.data.size(), job.a);
  for (size_t i = 0; i < job.a.size(); ++i) conv.input.data[i] = job.a[i];
  FillOperand(rng, Dist::kUniform, false, params.filter_zero_point, conv.filter.data.size(), job.b);
  for (size_t i = 0; i < job.b.size(); ++i) {
    conv.filter.data[i] =
        static_cast<int8_t>(int(job.b[i]) < 128 ? int(job.b[i]) : int(job.b[i]) - 256);
  }
  const golden::Matrix<uint8_t> cols = golden::Im2Col(conv.input, kh, kw, params);
  const golden::Matrix<int8_t> weights = golden::FlattenToMatrix(conv.filter);
  job.m = cols.rows;
  job.k = cols.cols;
  job.n = weights.cols;
  job.a = cols.data;
  job.b.resize(weights.data.size());
  for (size_t i = 0; i < weights.data.size(); ++i) job.b[i] = Code(weights.data[i]);
  job.a_unsigned = true;
  job.b_unsigned = false;
  job.a_zp = params.input_zero_point;
  job.b_zp = params.filter_zero_point;
  job.per_channel = rng.Chance(80);
  job.out_raw = false;
  job.bias.clear();
  for (int n = 0; n < job.n; ++n) job.bias.push_back(int32_t(rng.Uniform(-(1 << 16), 1 << 16)));
  job.requant = golden::RequantParams{};
  job.requant.rounding = rng.Chance(50) ? golden::RequantRounding::kSingleRounding
                                        : golden::RequantRounding::kDoubleRounding;
  SetOutputStage(rng, ClampKind::kRandom, job.requant);
  SetScales(rng, job);
  job.pad_byte = Code(int(rng.Uniform(0, 255)));
  RandomBases(rng, config, job);
}

const std::vector<TestDef>& TestDefs() {
  static const std::vector<TestDef> defs = [] {
    std::vector<TestDef> d;
    auto add = [&d](std::string name, std::string description, Generator generate) {
      d.push_back({{std::move(name), std::move(description)}, std::move(generate)});
    };
    add("gemm_random",
        "everything random: shape 1..96 (1 in 7 up to 300), operand signedness, zero points and "
        "data "
        "distribution, bias, per-tensor/per-channel, rounding, clamp, int8/int32 output, SRAM "
        "bases",
        GenRandom);
    add("gemm_k1", "K = 1: one beat per tile, tile period P = max(R, C) (feed stall every tile)",
        WithDim('k'));
    add("gemm_m1", "M = 1: one valid output row per tile, rows 1..R-1 padding", WithDim('m'));
    add("gemm_n1", "N = 1: one valid output column / requant lane per tile", WithDim('n'));
    add("gemm_edges",
        "M, N, K from the edge set 1, R-1, R, R+1, 2R-1, 2R+1, 3R+1 (C for N; K around max(R, C)): "
        "non-multiples of the array size and K below, at and above the tile period",
        GenEdges);
    add("gemm_fill_sram",
        "sizes that end exactly at the top word of the SRAMs (from the config depths): A and B "
        "full "
        "from base 0, bias and rq full, output full in int32 mode, output and A ending at the top",
        GenFillSram);
    add("gemm_all_min", "both operands all -128 (int8) or 0 (uint8): extreme constant factors",
        WithDist(Dist::kAllMin));
    add("gemm_all_max", "both operands all 127 (int8) or 255 (uint8)", WithDist(Dist::kAllMax));
    add("gemm_sparse", "both operands ~90% at their zero point (factor 0), the rest uniform",
        WithDist(Dist::kSparse));
    add("gemm_bimodal",
        "both operands only within 8 codes of either end of their range (skyscraper)",
        WithDist(Dist::kBimodal));
    add("gemm_overflow",
        "K up to the SRAM limit with factors of magnitude 383/255 and a bias near the int32 limit: "
        "the "
        "exact sum leaves int32 in every column and the 32-bit accumulator wraps "
        "(CheckGemmOverflow)",
        GenOverflow);
    add("gemm_shift_extremes",
        "requant shifts -31, -30, 0, 29, 30 (per channel, plus random lanes) or -31/0/30 per "
        "tensor",
        GenShiftExtremes);
    add("gemm_mult_extremes",
        "requant multipliers 2^30, 2^30+1, 2^31-2, 2^31-1 (and 0) per channel or per tensor",
        GenMultExtremes);
    add("gemm_requant_ties",
        "x from the bias (A all 0): double-rounding ties with |SRDHM| > 2^30, shown in the int8 "
        "output by an output zero point near -+2^(30 - sh2)",
        [](Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
          GenRequantCorners(rng, config, job, /*ties=*/true);
        });
    add("gemm_requant_saturation",
        "x from the bias (A all 0): shift 30 saturating to INT32_MAX or INT32_MIN, the saturated "
        "value shown in the int8 output by an output zero point near -+2^31",
        [](Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
          GenRequantCorners(rng, config, job, /*ties=*/false);
        });
    add("gemm_tpu_mlir",
        "the TPU-MLIR requant form (requant.md 6.1): a signed multiplier of 8, 16 or 32 bits, an "
        "rshift 0..63 scaled to the data, any of its seven roundings, per tensor or per channel",
        WithPlan([](Rng&, Plan& plan) {
          plan.form = golden::RequantForm::kTpuMlir;
          plan.out_raw = false;
        }));
    add("gemm_tpu_mlir_ties",
        "TPU-MLIR form, x from the bias (A all 0), per channel: products on a rounding tie of "
        "their rshift (and next to one) in the command's mode, x = m = -2^31 at rshift 63",
        [](Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
          GenTpuCorners(rng, config, job, /*ties=*/true);
        });
    add("gemm_tpu_mlir_extremes",
        "TPU-MLIR form, x from the bias (A all 0), per channel: rshift 0 and 63, the width's "
        "extreme multipliers, quotients beyond int32 brought back by the zero point -2^31 + 50",
        [](Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
          GenTpuCorners(rng, config, job, /*ties=*/false);
        });
    add("gemm_slope",
        "the slope stage (requant.md 6.2) after requant: golden's three LeakyReLU forms (TFLite "
        "with any alpha, seed 002's 8-bit slope, TFLite r1.15) on the first stage's codes, or any "
        "legal stage (each side's form, multiplier, shift, modes, K, zero point; the clamp); on "
        "half of the jobs PReLU (6.3): golden's two PReLU forms, or any NEG multiplier, shift and "
        "sign per channel from the rq SRAM",
        WithSlope(SlopeDraw::kForms));
    add("gemm_slope_ties",
        "slope stage, TPU-MLIR form on both sides with m = +-2^u and rshift u + 1: every odd "
        "x = d K is a rounding tie of the side's mode, K +-1 or +-3; half of the jobs per channel",
        WithSlope(SlopeDraw::kTies));
    add("gemm_slope_extremes",
        "slope stage: K -256 and 255, d up to -383 and 383 (codes -128..255, ZP_OUT -128 or 255), "
        "the forms' extreme multipliers and shifts, zero points at the int32 limits; half of the "
        "jobs per channel, with K -256 negated to 256 in the TFLite form",
        WithSlope(SlopeDraw::kExtremes));
    add("gemm_per_channel",
        "per-channel multipliers and shifts from the rq SRAM, with bias; on half of the jobs "
        "SLOPE_PER_CHANNEL set without a slope, which must not move the words (requant.md 6.3)",
        [](Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
          WithPlan([](Rng&, Plan& plan) {
            plan.per_channel = true;
            plan.out_raw = false;
            plan.bias = true;
          })(rng, config, job);
          job.ignored_slope_per_channel = rng.Chance(50);
        });
    add("gemm_single_rounding", "single rounding (MODE.ROUNDING = 1), per tensor or per channel",
        WithPlan([](Rng&, Plan& plan) {
          plan.rounding = golden::RequantRounding::kSingleRounding;
          plan.out_raw = false;
        }));
    add("gemm_double_rounding", "double rounding (TFLite SRDHM + RoundingDivideByPOT)",
        WithPlan([](Rng&, Plan& plan) {
          plan.rounding = golden::RequantRounding::kDoubleRounding;
          plan.out_raw = false;
        }));
    add("gemm_raw_int32", "OUT_RAW: the int32 biased accumulators stored, one output word per row",
        WithPlan([](Rng& rng, Plan& plan) {
          plan.out_raw = true;
          plan.bias_bits = int(rng.Uniform(4, 31));
        }));
    add("gemm_relu", "ReLU fused into the clamp (golden ActivationClamp), int8 or uint8 output",
        WithPlan([](Rng&, Plan& plan) {
          plan.clamp = ClampKind::kRelu;
          plan.out_raw = false;
        }));
    add("gemm_relu6", "ReLU6 fused into the clamp (golden ActivationClamp), int8 or uint8 output",
        WithPlan([](Rng&, Plan& plan) {
          plan.clamp = ClampKind::kRelu6;
          plan.out_raw = false;
        }));
    add("gemm_zero_points",
        "operand zero points over -128..255 (incl. the extremes) with int8 and uint8 operands, "
        "output "
        "zero point at the ends of the output range",
        GenZeroPoints);
    add("gemm_bases",
        "bias and per channel, every SRAM base at 0, at the last legal base or random in between",
        GenBases);
    add("conv_im2col",
        "a random conv layer (1-2 images up to 12x12x12, kernel 1..3, stride 1..2, padding) "
        "lowered "
        "by the host: A = golden Im2Col of the uint8 input, B = the flattened HWIO int8 filter",
        [](Rng& rng, const arch::ArchConfig& config, model::GemmJob& job) {
          ConvTestCase conv;
          GenConv(rng, config, job, conv);
        });
    return d;
  }();
  return defs;
}

const TestDef& FindTest(std::string_view name) {
  for (const TestDef& def : TestDefs()) {
    if (def.info.name == name) return def;
  }
  std::string names;
  for (const TestDef& def : TestDefs()) names += (names.empty() ? "" : ", ") + def.info.name;
  throw std::invalid_argument(
      fmt::format("unknown test '{}' in suite gemm; valid tests: {}", name, names));
}

void CheckLegal(std::string_view name, uint64_t seed, const arch::ArchConfig& config,
                const model::GemmJob& job) {
  const arch::ErrCode code = arch::ValidateCommand(config, model::ToCommand(job));
  if (code != arch::ErrCode::kNone) {
    throw std::logic_error(
        fmt::format("test generator bug: {} seed {} on {} made an illegal command ({})", name, seed,
                    config.name, arch::ErrCodeName(code)));
  }
}

}  // namespace

const std::vector<GemmTestInfo>& GemmTests() {
  static const std::vector<GemmTestInfo> infos = [] {
    std::vector<GemmTestInfo> v;
    for (const TestDef& def : TestDefs()) v.push_back(def.info);
    return v;
  }();
  return infos;
}

model::GemmJob MakeGemmTest(std::string_view name, uint64_t seed, const arch::ArchConfig& config) {
  const TestDef& def = FindTest(name);
  Rng rng(HashName(name) ^ seed);
  model::GemmJob job;
  def.generate(rng, config, job);
  CheckLegal(name, seed, config, job);
  return job;
}

model::GemmJob RandomJobOfShape(uint64_t seed, const arch::ArchConfig& config, int m, int n,
                                int k) {
  Rng rng(HashName("random_job_of_shape") ^ seed);
  Plan plan = RandomPlan(rng);
  plan.fit = false;
  plan.random_bases = false;
  model::GemmJob job;
  job.m = m, job.n = n, job.k = k;
  Build(rng, config, plan, job);
  return job;
}

void DrawTpuMlirForm(uint64_t seed, model::GemmJob& job) {
  Rng rng(HashName("draw_tpu_mlir_form") ^ seed);
  DrawTpuMlirForm(rng, job);
}

model::GemmJob TpuMlirCornerJob(uint64_t seed, const arch::ArchConfig& config, bool ties,
                                golden::tpu_mlir::Rounding mode) {
  const std::string_view name = ties ? "gemm_tpu_mlir_ties" : "gemm_tpu_mlir_extremes";
  Rng rng(HashName(name) ^ seed);
  model::GemmJob job;
  GenTpuCorners(rng, config, job, ties);
  job.requant.rshift_rounding = mode;
  CheckLegal(name, seed, config, job);
  return job;
}

ConvTestCase MakeConvTestCase(uint64_t seed, const arch::ArchConfig& config) {
  constexpr std::string_view kName = "conv_im2col";
  Rng rng(HashName(kName) ^ seed);
  ConvTestCase conv;
  GenConv(rng, config, conv.job, conv);
  CheckLegal(kName, seed, config, conv.job);
  return conv;
}

}  // namespace qacc::sim
