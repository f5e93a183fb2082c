#include "sim/testgen/slope_draw.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "golden/activation.h"
#include "golden/slope_stage.h"

namespace qacc::sim {
namespace {

using golden::QuantSpec;
using golden::RequantForm;
using golden::SlopeSide;
using golden::SlopeStageParams;

double LogUniform(Rng& rng, double lo, double hi) {
  const double u = double(rng.Uniform(0, 1'000'000)) / 1e6;
  return std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo)));
}

// An 8-bit spec with this zero point (signed when it is negative, unsigned above 127).
QuantSpec SpecWithZeroPoint(Rng& rng, int32_t zero_point) {
  QuantSpec spec;
  spec.is_signed = zero_point < 0 || (zero_point <= 127 && rng.Chance(50));
  spec.zero_point = zero_point;
  spec.scale = LogUniform(rng, 1e-3, 0.5);
  return spec;
}

double Alpha(Rng& rng) {
  const int64_t r = rng.Uniform(0, 99);
  if (r < 10) return 0.0;
  if (r < 30) return -double(rng.Uniform(1, 2000)) / 1000;  // PReLU's learned negative slopes
  if (r < 40) return double(rng.Uniform(1000, 6000)) / 1000;
  return double(rng.Uniform(1, 999)) / 1000;
}

// The first stage's output is the form's input: its zero point and its codes' range.
void SetInputSpec(const QuantSpec& in, model::GemmJob& job) {
  job.requant.output_zero_point = in.zero_point;
  job.requant.clamp_min = int32_t(in.qmin());
  job.requant.clamp_max = int32_t(in.qmax());
}

SlopeStageParams Forms(Rng& rng, model::GemmJob& job) {
  for (int attempt = 0;; ++attempt) {
    try {
      const int64_t form = rng.Uniform(0, 2);
      if (form == 2) {  // TFLite r1.15: uint8 in and out
        QuantSpec in{8, false, false, LogUniform(rng, 1e-3, 0.5), int32_t(rng.Uniform(0, 255))};
        QuantSpec out{8, false, false, in.scale * LogUniform(rng, 1.0, 300.0),
                      int32_t(rng.Uniform(0, 255))};
        const double alpha = double(rng.Uniform(-300, 300)) * in.scale / 2;
        const auto p = golden::MakeTfliteR115LeakyReluParams(in, out, alpha);
        SetInputSpec(in, job);
        return golden::SlopeFromTfliteR115(p);
      }
      const QuantSpec in = SpecWithZeroPoint(rng, job.requant.output_zero_point);
      QuantSpec out = SpecWithZeroPoint(rng, int32_t(rng.Uniform(-128, 255)));
      if (form == 1) {  // seed 002: the output keeps the input's scale
        out.scale = in.scale;
        auto p =
            golden::MakeInt8SlopeLeakyReluParams(in, out, Alpha(rng) * (rng.Chance(10) ? 40 : 1));
        p.rounding = golden::kAllRoundingModes[rng.Uniform(0, 4)];
        SetInputSpec(in, job);
        return golden::SlopeFromInt8Slope(p);
      }
      const auto rounding = rng.Chance(50) ? golden::RequantRounding::kSingleRounding
                                           : golden::RequantRounding::kDoubleRounding;
      const auto p = golden::MakeLeakyReluParams(in, out, Alpha(rng), rounding);
      SetInputSpec(in, job);
      return golden::SlopeFromLeakyRelu(p);
    } catch (const std::invalid_argument&) {
      if (attempt > 100) throw;  // a ratio no form holds: draw again
    }
  }
}

// golden's PReLU forms (requant.md 6.3) over the job's N channels: Prelu (TFLite, one alpha per
// channel) or seed 002's Int8SlopePrelu. The registers hold one channel's stage.
SlopeStageParams Prelu(Rng& rng, model::GemmJob& job) {
  for (int attempt = 0;; ++attempt) {
    try {
      const QuantSpec in = SpecWithZeroPoint(rng, job.requant.output_zero_point);
      QuantSpec out = SpecWithZeroPoint(rng, int32_t(rng.Uniform(-128, 255)));
      std::vector<double> alphas(size_t(job.n));
      const bool int8 = rng.Chance(50);
      for (double& alpha : alphas) alpha = Alpha(rng) * (int8 && rng.Chance(10) ? 40 : 1);
      job.channel_slope.clear();
      if (int8) {  // seed 002: the output keeps the input's scale
        out.scale = in.scale;
        auto p = golden::MakeInt8SlopePreluParams(in, out, alphas);
        p.rounding = golden::kAllRoundingModes[rng.Uniform(0, 4)];
        for (size_t c = 0; c < alphas.size(); ++c)
          job.channel_slope.push_back(golden::SlopeFromInt8Slope(p, c));
      } else {
        const auto rounding = rng.Chance(50) ? golden::RequantRounding::kSingleRounding
                                             : golden::RequantRounding::kDoubleRounding;
        for (const auto& p : golden::MakePreluParams(in, out, alphas, rounding))
          job.channel_slope.push_back(golden::SlopeFromLeakyRelu(p));
      }
      SetInputSpec(in, job);
      return job.channel_slope[size_t(rng.Uniform(0, job.n - 1))];
    } catch (const std::invalid_argument&) {
      if (attempt > 100) throw;  // a ratio no form holds: draw again
    }
  }
}

// A multiplier and shift of the side's form (its rounding, width and mode kept), with a scale that
// keeps |x| up to 2^17 in view of the int8 output.
void AnyMultShift(Rng& rng, golden::RequantParams& rq) {
  if (rq.form == RequantForm::kTflite) {
    const int64_t r = rng.Uniform(0, 99);
    rq.multiplier = r < 5    ? 0
                    : r < 15 ? int32_t(rng.Pick<int64_t>({1 << 30, INT32_MAX}))
                             : int32_t(rng.Uniform(1 << 30, INT32_MAX));
    rq.shift =
        rng.Chance(10)
            ? int(rng.Pick<int64_t>({golden::kMinQuantizedShift, golden::kMaxQuantizedShift}))
            : int(rng.Uniform(-18, 1));
    return;
  }
  const int64_t half = int64_t{1} << (rq.mult_bits - 1);
  rq.multiplier =
      rng.Chance(15)
          ? int32_t(rng.Pick<int64_t>({-half, half - 1, 1, -1, 0}))
          : int32_t(rng.Uniform(-std::min<int64_t>(half, 4096), std::min<int64_t>(half - 1, 4096)));
  // |x m| up to about 2^29: an rshift near its bit length keeps codes in view, 0 and 63 at times.
  const int64_t bits = 17 + int64_t(std::log2(std::abs(double(rq.multiplier)) + 1));
  rq.shift = rng.Chance(10) ? int(rng.Pick<int64_t>({0, golden::kMaxRequantRshift}))
                            : int(std::clamp<int64_t>(bits - 8 + rng.Uniform(-6, 4), 0, 63));
}

// A side's first-stage form, any rounding, width and mode, and AnyMultShift's values.
void AnyForm(Rng& rng, SlopeSide& side) {
  golden::RequantParams& rq = side.requant;
  if (rng.Chance(50)) {
    rq.form = RequantForm::kTflite;
    rq.rounding = rng.Chance(50) ? golden::RequantRounding::kSingleRounding
                                 : golden::RequantRounding::kDoubleRounding;
  } else {
    rq.form = RequantForm::kTpuMlir;
    rq.mult_bits = int(rng.Pick<int64_t>({8, 16, 32}));
    rq.rshift_rounding = golden::tpu_mlir::kAllRoundings[rng.Uniform(0, 6)];
  }
  AnyMultShift(rng, rq);
}

// m = +-2^u and rshift u + 1 (TPU-MLIR form): every odd x is a tie.
void TieMultShift(Rng& rng, golden::RequantParams& rq) {
  const int u = int(rng.Uniform(0, rq.mult_bits - 2));
  rq.multiplier = int32_t(rng.Chance(50) ? -(int64_t{1} << u) : (int64_t{1} << u));
  rq.shift = u + 1;
}

int32_t AnyK(Rng& rng) {
  const int64_t r = rng.Uniform(0, 99);
  if (r < 10) return int32_t(rng.Pick<int64_t>({golden::kMinSlopeK, golden::kMaxSlopeK, 0, -1}));
  if (r < 55) return int32_t(rng.Uniform(-3, 3));
  return int32_t(rng.Uniform(golden::kMinSlopeK, golden::kMaxSlopeK));
}

// Within int8 or uint8, so that the stored byte reads back unambiguously (6.3).
void AnyClamp(Rng& rng, SlopeStageParams& s) {
  const int32_t lo = rng.Chance(50) ? -128 : 0, hi = lo + 255;
  if (rng.Chance(50)) {  // the type's whole range
    s.clamp_min = lo;
    s.clamp_max = hi;
    return;
  }
  const int32_t a = int32_t(rng.Uniform(lo, hi)), b = int32_t(rng.Uniform(lo, hi));
  s.clamp_min = std::min(a, b);
  s.clamp_max = std::max(a, b);
}

SlopeStageParams Any(Rng& rng) {
  SlopeStageParams s;
  for (SlopeSide* side : {&s.positive, &s.negative}) {
    AnyForm(rng, *side);
    side->k = AnyK(rng);
    side->requant.output_zero_point = rng.Chance(10)
                                          ? int32_t(rng.Pick<int64_t>({INT32_MIN, INT32_MAX}))
                                          : int32_t(rng.Uniform(-200, 300));
  }
  AnyClamp(rng, s);
  return s;
}

SlopeStageParams Ties(Rng& rng) {
  SlopeStageParams s;
  for (SlopeSide* side : {&s.positive, &s.negative}) {
    golden::RequantParams& rq = side->requant;
    rq.form = RequantForm::kTpuMlir;
    rq.mult_bits = int(rng.Pick<int64_t>({8, 16, 32}));
    rq.rshift_rounding = golden::tpu_mlir::kAllRoundings[rng.Uniform(0, 6)];
    TieMultShift(rng, rq);
    side->k = int32_t(rng.Pick<int64_t>({1, -1, 3, -3}));
    rq.output_zero_point = int32_t(rng.Uniform(-20, 20));
  }
  s.clamp_min = -128;
  s.clamp_max = 127;
  return s;
}

SlopeStageParams Extremes(Rng& rng, model::GemmJob& job) {
  // The widest codes and an extreme input zero point: d reaches -383 (q -128, zero point 255) or
  // 383 (q 255, zero point -128).
  job.requant.clamp_min = -128;
  job.requant.clamp_max = 255;
  job.requant.output_zero_point = int32_t(rng.Pick<int64_t>({-128, 255, 0}));
  SlopeStageParams s = Any(rng);
  for (SlopeSide* side : {&s.positive, &s.negative}) {
    side->k = int32_t(rng.Pick<int64_t>({golden::kMinSlopeK, golden::kMaxSlopeK, 1, -1}));
  }
  return s;
}

}  // namespace

void DrawSlope(Rng& rng, SlopeDraw draw, model::GemmJob& job, bool per_channel) {
  if (job.out_raw) throw std::logic_error("DrawSlope: a raw GEMM has no slope stage");
  job.channel_slope.clear();
  switch (draw) {
    case SlopeDraw::kForms:
      job.slope = per_channel ? Prelu(rng, job) : Forms(rng, job);
      break;
    case SlopeDraw::kAny:
      job.slope = Any(rng);
      break;
    case SlopeDraw::kTies:
      job.slope = Ties(rng);
      break;
    case SlopeDraw::kExtremes:
      job.slope = Extremes(rng, job);
      break;
  }
  golden::ValidateSlopeStage(*job.slope, job.requant.output_zero_point);
  if (!per_channel || !job.channel_slope.empty()) return;
  // The extremes of a negated K: -256 becomes 256 on the channels with NEGATE (requant.md 6.3).
  if (draw == SlopeDraw::kExtremes && job.slope->negative.requant.form == RequantForm::kTflite)
    job.slope->negative.k = golden::kMinSlopeK;
  // Any NEG multiplier and shift of the registers' form per channel, and the TFLite form's NEGATE.
  for (int n = 0; n < job.n; ++n) {
    SlopeStageParams channel = *job.slope;
    golden::RequantParams& rq = channel.negative.requant;
    if (draw == SlopeDraw::kTies) {
      TieMultShift(rng, rq);
    } else {
      AnyMultShift(rng, rq);
    }
    if (rq.form == RequantForm::kTflite && rng.Chance(50)) channel.negative.k = -channel.negative.k;
    job.channel_slope.push_back(channel);
  }
}

}  // namespace qacc::sim
