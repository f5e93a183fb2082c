#include "model/gemm_engine.h"

#include <algorithm>

namespace qacc::model {

GemmEngine::GemmEngine(const arch::ArchConfig& config, const DecodedCommand& command,
                       const Srams& srams)
    : rows_(config.rows),
      cols_(config.cols),
      command_(command),
      mac_array_(config, command, srams),
      requant_unit_(config, command, srams) {
  if (command.lut) lut_unit_.emplace(config.cols, command.lut_fields, srams);
  if (command.slope) slope_unit_.emplace(config.cols, command, srams);
}

TileResult GemmEngine::ComputeTile(int64_t t) const {
  const arch::Timing& timing = command_.timing;
  TileResult tile;
  tile.tile = t;
  tile.mb = timing.TileMb(t);
  tile.nb = timing.TileNb(t);
  tile.m_valid = static_cast<int>(timing.MValid(tile.mb));
  tile.n_valid = static_cast<int>(timing.NValid(tile.nb));
  mac_array_.ComputeTile(t, tile.acc);
  Requantize(requant_unit_.ReadLaneInputs(tile.nb), tile);
  LookUp(tile);
  Slope(tile);
  return tile;
}

void GemmEngine::ForEachTile(const std::function<void(const TileResult&)>& visit) const {
  const arch::Timing& timing = command_.timing;
  const int64_t nb_count = timing.NB();
  const PanelGemm gemm = mac_array_.AllColumnBlocks();
  std::vector<RequantLaneInputs> inputs;
  for (int64_t nb = 0; nb < nb_count; ++nb) inputs.push_back(requant_unit_.ReadLaneInputs(nb));
  std::vector<int32_t> block;  // R x (NB * C): row block mb
  TileResult tile;             // reused, so its buffers are allocated once
  for (int64_t mb = 0; mb < timing.MB(); ++mb) {
    gemm.ComputeRowBlock(mb, block);
    for (int64_t nb = 0; nb < nb_count; ++nb) {
      tile.tile = mb * nb_count + nb;
      tile.mb = mb;
      tile.nb = nb;
      tile.m_valid = static_cast<int>(timing.MValid(mb));
      tile.n_valid = static_cast<int>(timing.NValid(nb));
      tile.acc.resize(size_t(rows_) * cols_);
      for (int row = 0; row < rows_; ++row) {
        std::copy_n(&block[size_t(row) * gemm.num_cols() + size_t(nb) * cols_], cols_,
                    &tile.acc[size_t(row) * cols_]);
      }
      Requantize(inputs[size_t(nb)], tile);
      LookUp(tile);
      Slope(tile);
      visit(tile);
    }
  }
}

// Every beat of the tile sees the same bias/rq words, so the known lanes are those of the words.
void GemmEngine::Requantize(const RequantLaneInputs& inputs, TileResult& tile) const {
  tile.out.resize(size_t(rows_) * cols_);
  tile.known_lanes = inputs.known_lanes;
  for (int row = 0; row < rows_; ++row) {
    const size_t first = size_t(row) * cols_;
    requant_unit_.ComputeBeat(inputs, &tile.acc[first], &tile.out[first]);
  }
}

void GemmEngine::LookUp(TileResult& tile) const { RunStage(lut_unit(), tile, tile.lut); }
void GemmEngine::Slope(TileResult& tile) const { RunStage(slope_unit(), tile, tile.slope); }

// A stage's known lanes are the same for every beat of the tile: they depend on its words.
void GemmEngine::RunStage(const BeatStageModel* unit, TileResult& tile,
                          std::vector<int32_t>& lanes) const {
  if (unit == nullptr) {
    lanes.clear();
    return;
  }
  lanes.resize(size_t(rows_) * cols_);
  for (int row = 0; row < rows_; ++row) {
    const size_t first = size_t(row) * cols_;
    tile.stage_known_lanes =
        unit->ComputeBeat(tile.nb, tile.known_lanes, &tile.out[first], &lanes[first]);
  }
}

}  // namespace qacc::model
