#include "model/requant_unit_model.h"

#include <algorithm>

#include "golden/gemm.h"

namespace qacc::model {

int32_t RequantLane(int32_t x, const golden::RequantParams& params, bool legal_mult) {
  if (legal_mult) return golden::RequantizeAccumulator(x, params);
  const int32_t scaled =
      params.rounding == golden::RequantRounding::kDoubleRounding
          ? golden::MultiplyByQuantizedMultiplierDoubleRounding(x, params.multiplier, params.shift)
          : golden::MultiplyByQuantizedMultiplierSingleRounding(x, params.multiplier, params.shift);
  return static_cast<int32_t>(std::clamp<int64_t>(int64_t{scaled} + params.output_zero_point,
                                                  params.clamp_min, params.clamp_max));
}

RequantUnitModel::RequantUnitModel(const arch::ArchConfig& config, const DecodedCommand& command,
                                   const Srams& srams)
    : cols_(config.cols), command_(command), srams_(srams) {}

RequantLaneInputs RequantUnitModel::ReadLaneInputs(int64_t nb) const {
  const uint32_t bias_word = command_.bias_base + static_cast<uint32_t>(nb);
  const uint32_t rq_word =
      command_.rq_base + static_cast<uint32_t>(command_.rq_words_per_tile * nb);
  RequantLaneInputs inputs;
  inputs.bias.assign(cols_, 0);
  inputs.params.assign(cols_, command_.requant);
  inputs.legal_mult.assign(cols_, 1);
  for (int c = 0; c < cols_; ++c) {
    if (command_.bias_en) inputs.bias[c] = srams_.bias(bias_word, c);
    golden::RequantParams& params = inputs.params[c];
    const bool tpu = params.form == golden::RequantForm::kTpuMlir;
    if (command_.per_channel && !command_.out_raw) {
      params.multiplier = srams_.rq_mult(rq_word, c);
      params.shift = srams_.rq_shift(rq_word, c);
      if (tpu) {
        params.multiplier =
            arch::LowBitsSigned(static_cast<uint32_t>(params.multiplier), params.mult_bits);
        params.shift = static_cast<int>(arch::RshiftValue(static_cast<uint32_t>(params.shift)) &
                                        uint32_t(arch::kMaxRqRshift));
      }
    }
    // Per-tensor values passed validation (section 4); per-channel ones did not.
    const bool known = command_.out_raw || tpu ||
                       (params.shift >= arch::kMinShift && params.shift <= arch::kMaxShift);
    if (known) inputs.known_lanes |= uint64_t{1} << c;
    inputs.legal_mult[c] =
        tpu || params.multiplier == 0 || int64_t{params.multiplier} >= arch::kMinNonzeroMult;
  }
  return inputs;
}

uint64_t RequantUnitModel::ComputeBeat(const RequantLaneInputs& inputs, const int32_t* acc,
                                       int32_t* out) const {
  for (int c = 0; c < cols_; ++c) {
    // Stage 1 of the lane: 32-bit wrapping bias add.
    const int32_t x =
        golden::WrapToInt32(static_cast<uint32_t>(acc[c]) + static_cast<uint32_t>(inputs.bias[c]));
    if (command_.out_raw) {
      out[c] = x;
    } else if ((inputs.known_lanes >> c) & 1u) {
      out[c] = RequantLane(x, inputs.params[c], inputs.legal_mult[c] != 0);
    } else {
      out[c] = 0;
    }
  }
  return inputs.known_lanes;
}

}  // namespace qacc::model
