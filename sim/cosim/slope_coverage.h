// Coverage of the slope stage (docs/requant.md 6.2, bins "slope.*", docs/cosim.md): each side's
// form, width, rounding and shift extremes, both signs and the extremes of K on each side, d's
// signs and extremes, a rounding tie of each TPU-MLIR mode, the output clamp from both sides, and
// the stage in programs (a SET of its registers, a GEMM with ACT = SLOPE). Sampled from the RTL's
// requant output beats of a launched command with ACT = SLOPE (the stage's input) and the registers
// as the bus and the SETs wrote them; BAD_SLOPE's rule boundary from the command and its registers.
#ifndef QACC_SIM_COSIM_SLOPE_COVERAGE_H_
#define QACC_SIM_COSIM_SLOPE_COVERAGE_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "golden/slope_stage.h"
#include "model/arch.h"
#include "model/srams.h"
#include "sim/cosim/dut.h"

namespace qacc::cosim {

class SlopeCoverage {
 public:
  // Registers every bin in `bins` (0 hits). `rq` holds the rq SRAM's contents (the per-channel NEG
  // sides, requant.md 6.3); it must outlive the coverage.
  SlopeCoverage(std::map<std::string, int64_t>& bins, const model::Srams& rq);

  // A host launch of `c` (its slope registers as accepted); the command's beats follow.
  void OnLaunch(const arch::Command& c, const arch::Timing& timing);
  // The RTL's verdict on the launched command: legal or not.
  void OnVerdict(bool legal);
  // A requant output beat of the launched command.
  void OnRequantBeat(const BeatSample& beat);
  // A descriptor the compute engine starts.
  void OnComputeStart(const std::array<uint32_t, 16>& d);

  // BAD_SLOPE's boundary (Coverage::RuleBoundary): 1 when a legal command with ACT = SLOPE sits on
  // a last legal value (ZP_OUT -128 or 255, a form's extreme multiplier or shift, the last width or
  // mode, a clamp bound at -128 or 255 or equal bounds), -1 when an illegal one is one step past
  // it.
  static int RuleBoundary(const arch::Command& c);

 private:
  void Hit(const std::string& bin);
  void OnLane(int32_t q, const golden::SlopeStageParams& p, bool per_channel_tile);

  std::map<std::string, int64_t>& bins_;
  const model::Srams& rq_;
  std::optional<golden::SlopeStageParams> params_;  // the launched command's, when legal
  arch::Command command_;
  int32_t zp_in_ = 0;
  arch::Timing timing_;
  int64_t beats_ = 0;
};

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_SLOPE_COVERAGE_H_
