// Fast model-only mode: executes a command to completion without stepping cycles (no SystemC, no
// beats): a row block of tiles at a time through GemmEngine::ForEachTile (one whole-command GEMM
// over the SRAM panels, then the requant unit and the out writer per row), writing the output SRAM,
// and returns the cycle count E and the perf counters the hardware would report. For long
// regressions and performance estimates.
#ifndef QACC_MODEL_MODEL_ONLY_H_
#define QACC_MODEL_MODEL_ONLY_H_

#include <cstdint>

#include "model/arch.h"
#include "model/gemm_engine.h"
#include "model/perf.h"
#include "model/srams.h"

namespace qacc::model {

struct RunResult {
  arch::ErrCode error = arch::ErrCode::kNone;
  int64_t cycles = 0;  // E (PERF_CYCLES), or 1 for a rejected command
  PerfCounters perf;   // final values; perf.busy[u]: the busy cycles of beat unit u
};

// Writes every output SRAM word the command produces (section 6.3) into `srams`.
void ExecuteTiles(const GemmEngine& engine, Srams& srams);

// Validates, decodes and executes `command` on `srams` as a launch would. A rejected command
// touches nothing.
RunResult RunCommand(const arch::ArchConfig& config, const arch::Command& command, Srams& srams);

}  // namespace qacc::model

#endif  // QACC_MODEL_MODEL_ONLY_H_
