#include "sim/cosim/slope_coverage.h"

#include <fmt/format.h>

#include <limits>

#include "model/descriptor.h"

namespace qacc::cosim {
namespace {

constexpr const char* kSides[] = {"pos", "neg"};
constexpr int32_t kMinD = arch::kMinInt8ModeClamp - arch::kMaxInt8ModeClamp;  // -383
constexpr int32_t kMaxD = -kMinD;

// The discarded bits of p / 2^bits are exactly one half (rshift 63: p = +-2^62).
bool IsTie(int64_t p, int bits) {
  if (bits == 63) return p == int64_t{1} << 62 || p == -(int64_t{1} << 62);
  if (bits <= 0) return false;
  const uint64_t rem = static_cast<uint64_t>(p) & ((uint64_t{1} << bits) - 1);
  return rem == uint64_t{1} << (bits - 1);
}

std::string ModeName(golden::tpu_mlir::Rounding mode) {
  return std::string(golden::tpu_mlir::RoundingName(mode));
}

}  // namespace

SlopeCoverage::SlopeCoverage(std::map<std::string, int64_t>& bins, const model::Srams& rq)
    : bins_(bins), rq_(rq) {
  for (const char* bin :
       {"slope.use", "slope.d.negative", "slope.d.zero", "slope.d.positive", "slope.d.min",
        "slope.d.max", "slope.clamp_low", "slope.clamp_high", "slope.set", "slope.program_gemm",
        "slope.per_channel.tflite", "slope.per_channel.negate", "slope.per_channel.tpu",
        "slope.per_channel.after_requant_words", "slope.per_channel.later_tile",
        "slope.per_channel.k_256"}) {
    bins_[bin] = 0;
  }
  for (const char* side : kSides) {
    for (const char* what :
         {"k.negative", "k.zero", "k.positive", "k.min", "k.max", "tflite.double", "tflite.single",
          "tflite.shift.-31", "tflite.shift.30", "tpu.width.8", "tpu.width.16", "tpu.width.32",
          "tpu.rshift.0", "tpu.rshift.63"}) {
      bins_[fmt::format("slope.{}.{}", side, what)] = 0;
    }
  }
  for (const golden::tpu_mlir::Rounding mode : golden::tpu_mlir::kAllRoundings) {
    bins_["slope.tie." + ModeName(mode)] = 0;
  }
}

void SlopeCoverage::Hit(const std::string& bin) { ++bins_.at(bin); }

void SlopeCoverage::OnLaunch(const arch::Command& c, const arch::Timing& timing) {
  params_.reset();
  timing_ = timing;
  beats_ = 0;
  zp_in_ = c.zp_out;
  command_ = c;
  if (!c.slope() || !arch::SlopeRegistersLegal(c.slope_regs)) return;
  params_ = golden::DecodeSlopeRegisters(c.slope_regs);
}

void SlopeCoverage::OnVerdict(bool legal) {
  if (!legal || !params_) return;
  Hit("slope.use");
}

void SlopeCoverage::OnRequantBeat(const BeatSample& beat) {
  if (!params_) return;
  const int64_t tile = beats_ / timing_.rows;
  ++beats_;
  if (tile >= timing_.T() || beat.row >= timing_.MValid(timing_.TileMb(tile))) return;
  const int64_t nb = timing_.TileNb(tile);
  const int64_t word = int64_t{command_.rq_base} + command_.rq_words_per_tile() * nb +
                       (command_.per_channel() ? 1 : 0);
  for (int lane = 0; lane < timing_.NValid(nb); ++lane) {
    if (!command_.slope_per_channel()) {
      OnLane(beat.lanes[lane], *params_, false);
      continue;
    }
    // The lane's NEG side from the tile's slope word (requant.md 6.3); none for an illegal word.
    const golden::SlopeChannelWords words{static_cast<uint32_t>(rq_.rq_mult(uint32_t(word), lane)),
                                          static_cast<uint8_t>(rq_.rq_shift(uint32_t(word), lane))};
    if (const auto p = golden::ApplySlopeChannelWords(*params_, words)) {
      const int32_t d = beat.lanes[lane] - zp_in_;
      if (d < 0) {
        const bool tpu = p->negative.requant.form == golden::RequantForm::kTpuMlir;
        Hit(tpu ? "slope.per_channel.tpu" : "slope.per_channel.tflite");
        if (!tpu && (words.mult & golden::kSlopeNegateBit)) Hit("slope.per_channel.negate");
        if (command_.per_channel()) Hit("slope.per_channel.after_requant_words");
        if (nb > 0) Hit("slope.per_channel.later_tile");
      }
      OnLane(beat.lanes[lane], *p, true);
    }
  }
}

// One lane of the stage: its side, d, K and the side's form on x = d K (golden's arithmetic).
void SlopeCoverage::OnLane(int32_t q, const golden::SlopeStageParams& p, bool per_channel_tile) {
  const int32_t d = q - zp_in_;
  const bool neg = d < 0;
  const golden::SlopeSide& side = neg ? p.negative : p.positive;
  const std::string name = fmt::format("slope.{}.", kSides[neg ? 1 : 0]);
  Hit(d < 0 ? "slope.d.negative" : d == 0 ? "slope.d.zero" : "slope.d.positive");
  if (d == kMinD) Hit("slope.d.min");
  if (d == kMaxD) Hit("slope.d.max");
  Hit(name + (side.k < 0 ? "k.negative" : side.k == 0 ? "k.zero" : "k.positive"));
  if (side.k == golden::kMinSlopeK) Hit(name + "k.min");
  if (side.k == golden::kMaxSlopeK) Hit(name + "k.max");
  // K -256 negated (requant.md 6.3): 256, one past the field's range.
  if (per_channel_tile && side.k == -golden::kMinSlopeK) Hit("slope.per_channel.k_256");
  const int32_t x = d * side.k;
  const golden::RequantParams& rq = side.requant;
  if (rq.form == golden::RequantForm::kTpuMlir) {
    Hit(fmt::format("{}tpu.width.{}", name, rq.mult_bits));
    if (rq.shift == 0) Hit(name + "tpu.rshift.0");
    if (rq.shift == golden::kMaxRequantRshift) Hit(name + "tpu.rshift.63");
    if (IsTie(int64_t{x} * rq.multiplier, rq.shift))
      Hit("slope.tie." + ModeName(rq.rshift_rounding));
  } else {
    Hit(name + (rq.rounding == golden::RequantRounding::kSingleRounding ? "tflite.single"
                                                                        : "tflite.double"));
    if (rq.shift == golden::kMinQuantizedShift) Hit(name + "tflite.shift.-31");
    if (rq.shift == golden::kMaxQuantizedShift) Hit(name + "tflite.shift.30");
  }
  // The value before the shared clamp: the side's form with no clamp.
  golden::RequantParams wide = rq;
  wide.clamp_min = std::numeric_limits<int32_t>::min();
  wide.clamp_max = std::numeric_limits<int32_t>::max();
  const int32_t v = golden::RequantizeAccumulator(x, wide);
  if (v < p.clamp_min) Hit("slope.clamp_low");
  if (v > p.clamp_max) Hit("slope.clamp_high");
}

void SlopeCoverage::OnComputeStart(const std::array<uint32_t, 16>& d) {
  if (model::SetsSlopeRegisters(d)) Hit("slope.set");
  const model::DescHeader h = model::DecodeDescHeader(d);
  if (h.op == uint32_t(arch::Opcode::kGemm) && model::GemmCommandOf(d).slope()) {
    Hit("slope.program_gemm");
  }
}

int SlopeCoverage::RuleBoundary(const arch::Command& c) {
  if (!c.slope() || c.out_raw()) return 0;
  bool first_illegal =
      c.zp_out == arch::kMinInt8ModeClamp - 1 || c.zp_out == arch::kMaxInt8ModeClamp + 1;
  bool last_legal = c.zp_out == arch::kMinInt8ModeClamp || c.zp_out == arch::kMaxInt8ModeClamp;
  const auto& r = c.slope_regs;
  for (size_t s = 0; s < 2; ++s) {
    const uint32_t mult = r[4 * s], shift_word = r[4 * s + 1], cfg = r[4 * s + 3];
    const auto m = static_cast<int32_t>(mult);
    if (cfg & arch::kSlopePosRqForm) {
      const uint32_t width = (cfg & arch::kSlopePosMultWidthMask) >> arch::kSlopePosMultWidthLsb;
      const uint32_t mode = (cfg & arch::kSlopePosRshiftRoundMask) >> arch::kSlopePosRshiftRoundLsb;
      const uint32_t rshift = arch::RshiftValue(shift_word);
      const uint32_t last_width = uint32_t(arch::MultWidth::kW32);
      const uint32_t last_mode = uint32_t(arch::RshiftRound::kDown);
      first_illegal |= width == last_width + 1 || mode == last_mode + 1 ||
                       rshift == uint32_t(arch::kMaxRqRshift) + 1;
      last_legal |=
          width == last_width || mode == last_mode || rshift == uint32_t(arch::kMaxRqRshift);
      if (width < last_width) {
        const int64_t half = int64_t{1} << (arch::MultWidthBits(width) - 1);
        first_illegal |= m == half || m == -half - 1;
        last_legal |= m == half - 1 || m == -half;
      }
    } else {
      const int32_t shift = arch::ShiftValue(shift_word);
      first_illegal |= m == arch::kMinNonzeroMult - 1 || shift == arch::kMinShift - 1 ||
                       shift == arch::kMaxShift + 1;
      last_legal |=
          m == arch::kMinNonzeroMult || shift == arch::kMinShift || shift == arch::kMaxShift;
    }
  }
  const auto lo = static_cast<int32_t>(r[8]), hi = static_cast<int32_t>(r[9]);
  first_illegal |= lo == arch::kMinInt8ModeClamp - 1 || hi == arch::kMaxInt8ModeClamp + 1 ||
                   int64_t{lo} == int64_t{hi} + 1;
  last_legal |= lo == arch::kMinInt8ModeClamp || hi == arch::kMaxInt8ModeClamp || lo == hi;
  const bool legal = c.zp_out >= arch::kMinInt8ModeClamp && c.zp_out <= arch::kMaxInt8ModeClamp &&
                     arch::SlopeRegistersLegal(r);
  if (legal) return last_legal ? 1 : 0;
  return first_illegal ? -1 : 0;
}

}  // namespace qacc::cosim
