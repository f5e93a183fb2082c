#include "model/slope_unit_model.h"

namespace qacc::model {

SlopeUnitModel::SlopeUnitModel(int cols, const golden::SlopeStageParams& params,
                               int32_t input_zero_point)
    : cols_(cols), params_(params), input_zero_point_(input_zero_point) {}

uint64_t SlopeUnitModel::ComputeBeat(uint64_t known_lanes, const int32_t* in, int32_t* out) const {
  for (int c = 0; c < cols_; ++c) {
    out[c] = (known_lanes >> c & 1) ? golden::SlopeStage(in[c], input_zero_point_, params_) : 0;
  }
  return known_lanes;
}

}  // namespace qacc::model
