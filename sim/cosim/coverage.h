// Functional coverage of a co-simulation run, sampled from what the RTL showed: the APB transfers
// as its pins completed them (a CMD_* or SRAM write counts only when the RTL accepted it, pslverr =
// 0), its STATUS read data (the verdict of each command), and its monitor beats (MAC accumulators,
// requant and output-writer beats, BUSY, DONE, irq_o). Nothing comes from what the test generator
// meant to produce.
//
// The bins follow from the spec's tables: one pair per validation rule (the last legal value ran,
// the first illegal one failed with its code), one per shift of the legal range, the command
// modes, and the datapath and control corners (docs/cosim.md "Coverage"). `qacc regress` merges
// the bins of its runs and lists the holes.
#ifndef QACC_SIM_COSIM_COVERAGE_H_
#define QACC_SIM_COSIM_COVERAGE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/arch.h"
#include "model/srams.h"
#include "sim/cosim/dut.h"

namespace qacc::cosim {

class Coverage {
 public:
  explicit Coverage(const arch::ArchConfig& config);

  // One APB transfer as the RTL completed it in `cycle`: `busy` is mon_busy_o in that cycle.
  void OnTransfer(int64_t cycle, bool write, uint32_t addr, uint32_t wdata, uint8_t strobe,
                  bool pslverr, uint32_t rdata, bool busy);
  // One clock cycle of the RTL's monitors.
  void OnCycle(int64_t cycle, const RtlSample& sample);

  // Every bin of the model (hit or not), by name, in a stable order.
  const std::map<std::string, int64_t>& bins() const { return bins_; }

 private:
  // A command as launched by an accepted START: the CMD_* registers the RTL holds.
  struct Launched {
    arch::Command cmd;
    arch::Timing timing;
    int64_t mac_beats = 0;  // MAC output beats seen so far (tile = beats / R)
    bool verdict_seen = false;
  };
  void Hit(const std::string& bin);
  void OnStart(int64_t cycle);
  void OnVerdict(uint32_t status);
  void OnMacBeat(const RtlSample& s);
  void OnOutWrite(const RtlSample& s);
  void FinishTile();
  // Classifies the boundary of every rule for the launched command: +1 at the last legal value,
  // -1 at the first illegal one, 0 elsewhere.
  int RuleBoundary(arch::ErrCode rule) const;

  arch::ArchConfig config_;
  std::map<std::string, int64_t> bins_;
  arch::Command regs_;    // CMD_* as accepted
  bool irq_en_ = false;
  model::Srams shadow_;   // bias and rq SRAM contents, from the accepted window writes
  bool launched_ = false;
  Launched cmd_;
  bool prev_done_ = false, prev_irq_ = false;
  int64_t last_done_cycle_ = -1;
  int64_t last_status_w1c_cycle_ = -2;
  int64_t last_launch_cycle_ = -2;
  int64_t write_tile_ = -1;  // the tile the out writer is writing
  int rows_written_in_tile_ = 0;
  struct HotBins {
    int64_t* shift[arch::kMaxShift - arch::kMinShift + 1] = {};
    int64_t *bias_wrap = nullptr, *tie_single = nullptr, *tie_first = nullptr,
            *tie_second = nullptr, *sat32 = nullptr, *sat_high = nullptr, *sat_low = nullptr,
            *sat_zp = nullptr;
  } hot_;
};

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_COVERAGE_H_
