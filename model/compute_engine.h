// The compute engine's command of a program (docs/data_movement.md 17.3, 17.6): a GEMM (a part-1
// command whose cycle 0 is its start cycle s: reads, beats and writes at s plus the cycles of
// architecture.md 7, completion at s + E - 1), a MOVE (move_unit.h) or an ELTWISE
// (eltwise_unit.h), with the SRAM ports each uses in every cycle.
//
// A GEMM's data is computed whole at its start (model_only.h ExecuteTiles on the SRAM images):
// programs are race free (14.2), so no other command touches its operands or its output words
// while it runs, and the final images equal those of a write at every W cycle.
#ifndef QACC_MODEL_COMPUTE_ENGINE_H_
#define QACC_MODEL_COMPUTE_ENGINE_H_

#include <cstdint>

#include "model/arch.h"
#include "model/descriptor.h"
#include "model/eltwise_unit.h"
#include "model/move_unit.h"
#include "model/sram_ports.h"
#include "model/srams.h"

namespace qacc::model {

class ComputeEngine {
 public:
  // `srams` must outlive the engine.
  ComputeEngine(const arch::ArchConfig& config, Srams& srams);

  // Starts a valid GEMM (the CMD_* image of its descriptor) at cycle s and writes its output.
  // Returns its tiling and timing (for the perf counters it adds).
  arch::Timing StartGemm(const arch::Command& command, uint64_t start_cycle);
  void StartMove(const MoveDesc& desc, uint64_t start_cycle);
  void StartEltwise(const golden::EltwiseFields& fields, uint64_t start_cycle);
  // A SET: no port, no data; it completes at its start (units.md 19.4; its registers are the
  // program engine's).
  void StartSet(uint64_t start_cycle);

  // MOVE and ELTWISE access their SRAMs in Cycle(), every cycle; a GEMM's data is written at start.
  bool steps_each_cycle() const { return kind_ != Kind::kGemm; }
  // The command last started is a SET: it completed in its start cycle.
  bool is_set() const { return kind_ == Kind::kSet; }
  // e: the completion cycle of the command last started.
  uint64_t end_cycle() const { return end_; }
  // The SRAM ports the command uses in cycle c (nothing outside s .. e).
  PortUse PortsAt(uint64_t cycle) const;
  // A MOVE's out read and destination write, an ELTWISE's out accesses, of cycle c (nothing for a
  // GEMM).
  void Cycle(uint64_t cycle, MoveRead& read, MoveWrite& write, OutAccess& out_access);

 private:
  const arch::ArchConfig& config_;
  Srams& srams_;
  enum class Kind : uint8_t { kGemm, kMove, kEltwise, kSet };
  MoveUnit move_;
  EltwiseUnit eltwise_;
  Kind kind_ = Kind::kGemm;
  uint64_t start_ = 0, end_ = 0;
  arch::Timing timing_;
  bool bias_en_ = false, per_channel_ = false, slope_per_channel_ = false, lut_ = false;
  // Section 7 offsets from s: the first A/B read, the first bias/rq read, the first out write.
  int64_t first_read_ = 0, first_param_read_ = 0, first_write_ = 0, first_lut_read_ = 0;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_COMPUTE_ENGINE_H_
