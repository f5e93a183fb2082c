#include "model/gemm_engine.h"

namespace qacc::model {

GemmEngine::GemmEngine(const arch::ArchConfig& config, const DecodedCommand& command,
                       const Srams& srams)
    : rows_(config.rows),
      cols_(config.cols),
      command_(command),
      mac_array_(config, command, srams),
      requant_unit_(config, command, srams) {}

TileResult GemmEngine::ComputeTile(int64_t t) const {
  const arch::Timing& timing = command_.timing;
  TileResult tile;
  tile.tile = t;
  tile.mb = timing.TileMb(t);
  tile.nb = timing.TileNb(t);
  tile.m_valid = static_cast<int>(timing.MValid(tile.mb));
  tile.n_valid = static_cast<int>(timing.NValid(tile.nb));
  mac_array_.ComputeTile(t, tile.acc);
  // Every beat of the tile sees the same bias/rq words, so the known lanes are those of the words.
  const RequantLaneInputs inputs = requant_unit_.ReadLaneInputs(tile.nb);
  tile.out.assign(size_t(rows_) * cols_, 0);
  for (int row = 0; row < rows_; ++row) {
    const size_t first = size_t(row) * cols_;
    tile.known_lanes = requant_unit_.ComputeBeat(inputs, &tile.acc[first], &tile.out[first]);
  }
  return tile;
}

}  // namespace qacc::model
