#include "model/mac_array_model.h"

#include "model/panel_gemm.h"

namespace qacc::model {

MacArrayModel::MacArrayModel(const arch::ArchConfig& config, const DecodedCommand& command,
                             const Srams& srams)
    : rows_(config.rows), cols_(config.cols), command_(command), srams_(srams) {}

// Tile (mb, nb) is row block mb against the one column block nb: R x C accumulators.
void MacArrayModel::ComputeTile(int64_t t, std::vector<int32_t>& acc) const {
  const arch::Timing& timing = command_.timing;
  PanelGemm(command_, srams_, rows_, cols_, timing.TileNb(t), 1)
      .ComputeRowBlock(timing.TileMb(t), acc);
}

std::vector<int32_t> MacArrayModel::ComputeTile(int64_t t) const {
  std::vector<int32_t> acc;
  ComputeTile(t, acc);
  return acc;
}

PanelGemm MacArrayModel::AllColumnBlocks() const {
  return PanelGemm(command_, srams_, rows_, cols_, 0, command_.timing.NB());
}

}  // namespace qacc::model
