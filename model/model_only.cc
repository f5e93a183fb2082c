#include "model/model_only.h"

#include "model/beats.h"
#include "model/command.h"
#include "model/out_writer_model.h"

namespace qacc::model {

// The whole-command path (GemmEngine::ForEachTile); one write beat is reused for every row, as
// PackOutRow keeps its buffers.
void ExecuteTiles(const GemmEngine& engine, Srams& srams) {
  OutWriteBeat write;
  engine.ForEachTile([&](const TileResult& tile) {
    for (int row = 0; row < tile.m_valid; ++row) {
      PackOutRow(engine.command(), tile.tile, row, &tile.written()[size_t(row) * engine.cols()],
                 tile.written_known_lanes(), write);
      srams.WriteOutWord(write.addr, write.data, write.be);
    }
  });
}

RunResult RunCommand(const arch::ArchConfig& config, const arch::Command& command, Srams& srams) {
  const LaunchDecision decision = DecodeCommand(config, command);
  RunResult result;
  result.error = decision.error;
  result.cycles = decision.cycles;
  if (decision.error != arch::ErrCode::kNone) {
    result.perf = ErrorPerf();
    return result;
  }
  ExecuteTiles(GemmEngine(config, decision.command, srams), srams);
  result.perf = PerfAt(decision.command.timing, decision.cycles);
  return result;
}

}  // namespace qacc::model
