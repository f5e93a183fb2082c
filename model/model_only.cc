#include "model/model_only.h"

#include "model/beats.h"
#include "model/command.h"

namespace qacc::model {

void ExecuteTiles(const GemmEngine& engine, Srams& srams) {
  for (int64_t t = 0; t < engine.num_tiles(); ++t) {
    const TileResult tile = engine.ComputeTile(t);
    for (int row = 0; row < tile.m_valid; ++row) {
      const OutWriteBeat write = MakeOutWriteBeat(engine.command(), tile, row, 0);
      srams.WriteOutWord(write.addr, write.data, write.be);
    }
  }
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
