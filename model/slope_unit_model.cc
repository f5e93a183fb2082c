#include "model/slope_unit_model.h"

#include <optional>

namespace qacc::model {

SlopeUnitModel::SlopeUnitModel(int cols, const DecodedCommand& command, const Srams& srams)
    : cols_(cols),
      params_(*command.slope),
      input_zero_point_(command.raw.zp_out),
      per_channel_(command.slope_per_channel),
      first_word_(command.rq_base + (command.per_channel ? 1u : 0u)),
      words_per_tile_(command.rq_words_per_tile),
      srams_(srams) {}

uint64_t SlopeUnitModel::ComputeBeat(int64_t nb, uint64_t known_lanes, const int32_t* in,
                                     int32_t* out) const {
  const uint32_t word = first_word_ + static_cast<uint32_t>(words_per_tile_ * nb);
  for (int c = 0; c < cols_; ++c) {
    out[c] = 0;
    if (!(known_lanes >> c & 1)) continue;
    std::optional<golden::SlopeStageParams> lane = params_;
    if (per_channel_) {
      // The rq SRAM returns the shift word sign-extended from bit 7: its low byte is the field.
      const golden::SlopeChannelWords words{static_cast<uint32_t>(srams_.rq_mult(word, c)),
                                            static_cast<uint8_t>(srams_.rq_shift(word, c))};
      lane = golden::ApplySlopeChannelWords(params_, words);
    }
    if (lane) {
      out[c] = golden::SlopeStage(in[c], input_zero_point_, *lane);
    } else {
      known_lanes &= ~(uint64_t{1} << c);
    }
  }
  return known_lanes;
}

}  // namespace qacc::model
