#include "model/gemm_engine.h"

#include <algorithm>
#include <type_traits>

#include "golden/gemm.h"
#include "golden/requant.h"

namespace qacc::model {

namespace {

// An SRAM byte as the operand type of the command (two's complement for int8).
template <typename T>
T OperandFromByte(uint8_t byte) {
  if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(byte < 128 ? int{byte} : int{byte} - 256);
  } else {
    return byte;
  }
}

// Per-channel (multiplier, shift) pairs are not validated at launch (section 4). A legal pair goes
// through golden::RequantizeAccumulator. An illegal multiplier with a legal shift is still defined
// by the formula of 5.2, which golden's MultiplyByQuantizedMultiplier* implement for any
// multiplier; zero point and clamp follow as in RequantizeAccumulator. A shift of -32 or 31 has no
// defined result: returns false, y untouched.
bool RequantLane(int32_t x, const golden::RequantParams& params, int32_t& y) {
  if (params.shift < arch::kMinShift || params.shift > arch::kMaxShift) return false;
  const bool legal_mult =
      params.multiplier == 0 || int64_t{params.multiplier} >= arch::kMinNonzeroMult;
  if (legal_mult) {
    y = golden::RequantizeAccumulator(x, params);
    return true;
  }
  const int32_t scaled =
      params.rounding == golden::RequantRounding::kDoubleRounding
          ? golden::MultiplyByQuantizedMultiplierDoubleRounding(x, params.multiplier, params.shift)
          : golden::MultiplyByQuantizedMultiplierSingleRounding(x, params.multiplier, params.shift);
  y = static_cast<int32_t>(std::clamp<int64_t>(int64_t{scaled} + params.output_zero_point,
                                               params.clamp_min, params.clamp_max));
  return true;
}

}  // namespace

GemmEngine::GemmEngine(const arch::ArchConfig& config, const DecodedCommand& command,
                       const Srams& srams)
    : rows_(config.rows), cols_(config.cols), command_(command), srams_(srams) {}

TileResult GemmEngine::ComputeTile(int64_t t) const {
  const arch::Timing& timing = command_.timing;
  TileResult tile;
  tile.tile = t;
  tile.mb = timing.TileMb(t);
  tile.nb = timing.TileNb(t);
  tile.m_valid = static_cast<int>(timing.MValid(tile.mb));
  tile.n_valid = static_cast<int>(timing.NValid(tile.nb));
  if (command_.a_unsigned) {
    command_.b_unsigned ? ComputeAcc<uint8_t, uint8_t>(tile) : ComputeAcc<uint8_t, int8_t>(tile);
  } else {
    command_.b_unsigned ? ComputeAcc<int8_t, uint8_t>(tile) : ComputeAcc<int8_t, int8_t>(tile);
  }
  ComputeRequant(tile);
  return tile;
}

// The valid m_valid x K and K x n_valid panels go through golden::Gemm (no bias: the requant lane
// adds it); padded lanes enter the array as factor 0, so their accumulators are 0.
template <typename TA, typename TB>
void GemmEngine::ComputeAcc(TileResult& tile) const {
  const int k_dim = static_cast<int>(timing().k);
  const uint32_t a_word = command_.a_base + static_cast<uint32_t>(tile.mb * k_dim);
  const uint32_t b_word = command_.b_base + static_cast<uint32_t>(tile.nb * k_dim);
  golden::Matrix<TA> a(tile.m_valid, k_dim);
  golden::Matrix<TB> b(k_dim, tile.n_valid);
  for (int k = 0; k < k_dim; ++k) {
    for (int r = 0; r < tile.m_valid; ++r)
      a.at(r, k) = OperandFromByte<TA>(srams_.a(a_word + k, r));
    for (int c = 0; c < tile.n_valid; ++c)
      b.at(k, c) = OperandFromByte<TB>(srams_.b(b_word + k, c));
  }
  const golden::Matrix<int32_t> acc = golden::Gemm(a, b, {}, command_.a_zp, command_.b_zp);
  tile.acc.assign(size_t(rows_) * cols_, 0);
  for (int r = 0; r < tile.m_valid; ++r) {
    std::copy_n(&acc.at(r, 0), tile.n_valid, &tile.acc[size_t(r) * cols_]);
  }
}

void GemmEngine::ComputeRequant(TileResult& tile) const {
  const uint32_t bias_word = command_.bias_base + static_cast<uint32_t>(tile.nb);
  const uint32_t rq_word = command_.rq_base + static_cast<uint32_t>(tile.nb);
  std::vector<int32_t> bias(cols_, 0);
  std::vector<golden::RequantParams> params(cols_, command_.requant);
  for (int c = 0; c < cols_; ++c) {
    if (command_.bias_en) bias[c] = srams_.bias(bias_word, c);
    if (command_.per_channel && !command_.out_raw) {
      params[c].multiplier = srams_.rq_mult(rq_word, c);
      params[c].shift = srams_.rq_shift(rq_word, c);
    }
  }
  tile.out.assign(size_t(rows_) * cols_, 0);
  tile.known_lanes = 0;
  for (int c = 0; c < cols_; ++c) {
    bool known = true;
    for (int r = 0; r < rows_; ++r) {
      const size_t index = size_t(r) * cols_ + c;
      // Stage 1 of the lane: 32-bit wrapping bias add.
      const int32_t x = golden::WrapToInt32(static_cast<uint32_t>(tile.acc[index]) +
                                            static_cast<uint32_t>(bias[c]));
      if (command_.out_raw) {
        tile.out[index] = x;
      } else {
        known = RequantLane(x, params[c], tile.out[index]);
        if (!known) break;
      }
    }
    if (known) tile.known_lanes |= uint64_t{1} << c;
  }
}

}  // namespace qacc::model
