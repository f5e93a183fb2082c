#include "model/lut_unit_model.h"

namespace qacc::model {

LutUnitModel::LutUnitModel(int cols, const golden::LutFields& fields, const Srams& srams)
    : cols_(cols), fields_(fields), srams_(srams) {}

uint64_t LutUnitModel::ComputeBeat(int64_t /*nb*/, uint64_t known_lanes, const int32_t* in,
                                   int32_t* out) const {
  const std::vector<uint8_t>& table = srams_.image(arch::Region::kLut);
  for (int c = 0; c < cols_; ++c) {
    out[c] =
        (known_lanes >> c) & 1u ? static_cast<int32_t>(golden::LutRead(table, fields_, in[c])) : 0;
  }
  return known_lanes;
}

}  // namespace qacc::model
