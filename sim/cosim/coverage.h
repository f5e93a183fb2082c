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
//
// Programs (data_movement.md 14-18): from the queue monitor (token counters, queue occupancies,
// start and retire pulses), the DMA's and MOVE's SRAM accesses, the memory port's master outputs
// (bursts, and the read bursts in flight and the write channel's ready, both derived from the
// addresses the RTL issued by the testbench memory's rules of 15.2 with the config's ext_mem
// latency and interval), and the STATUS / Q_RETIRED read back after a RUN. The bins of the program
// engine's rules (same-cycle token events, deadlock forms, validation order, port conflicts) are
// RuleCoverage's (coverage_rules.h).
#ifndef QACC_SIM_COSIM_COVERAGE_H_
#define QACC_SIM_COSIM_COVERAGE_H_

#include <bitset>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "model/arch.h"
#include "model/srams.h"
#include "sim/cosim/coverage_rules.h"
#include "sim/cosim/dut.h"
#include "sim/cosim/slope_coverage.h"

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
    std::bitset<arch::kLutSlotEntries>
        lut_addresses;  // ACT = LUT: the slot addresses its lanes read
  };
  void Hit(const std::string& bin);
  void OnStart(int64_t cycle);
  void OnVerdict(uint32_t status);
  void OnMacBeat(const BeatSample& s);
  void OnOutWrite(const RtlSample& s);
  void FinishTile();
  void OnLutVerdict();             // a legal command with ACT = LUT completed
  void OnLutWrite(uint32_t slot);  // a window or LOAD write into a slot of the table SRAM
  // Classifies the boundary of every rule for the launched command: +1 at the last legal value,
  // -1 at the first illegal one, 0 elsewhere.
  int RuleBoundary(arch::ErrCode rule) const;

  // ---- Programs
  int64_t* ProgramBin(const std::string& bin);  // registers the bin, returns its counter
  void OnRun();
  void OnProgramVerdict(uint32_t status);
  void OnProgramCycle(int64_t cycle, const RtlSample& s);
  // A descriptor the compute engine starts (the ELTWISE bins).
  void OnComputeStart(const std::array<uint32_t, 16>& d);
  void OnDmaAccess(const DmaSramSample& dma);
  void OnReadAddress(int64_t cycle, uint32_t addr, int beats);
  void OnWriteAddress(uint32_t addr, int beats);
  struct Burst {
    uint32_t addr = 0;
    int beats = 0;
  };
  // A burst shorter than 16 beats that ends at a 4 KiB boundary, followed by a burst from that
  // boundary: the RTL cut a longer run of beats there (descriptor fetches, 64 bytes at a
  // 64-byte slot, are left out).
  bool CutAtPage(std::deque<Burst>& recent, const Burst& next) const;
  struct ProgramBins {
    int64_t *load[1 << arch::kSramIdBits] = {}, *store[1 << arch::kSramIdBits] = {};  // by SRAM id
    int64_t *load_out8 = nullptr, *load_out32 = nullptr, *store_out8 = nullptr,
            *store_out32 = nullptr;
    int64_t *load_unit[3] = {}, *store_unit[3] = {};  // U < D, U = D, U > D (reachable ones)
    int64_t *rd_burst_1 = nullptr, *rd_burst_16 = nullptr, *rd_cut = nullptr;
    int64_t *wr_burst_1 = nullptr, *wr_burst_16 = nullptr, *wr_cut = nullptr;
    int64_t *rd_max_outstanding = nullptr, *wr_stalled = nullptr, *wr_buffer_full = nullptr;
    int64_t *ar_held = nullptr, *aw_held = nullptr;
    int64_t *overlap_gemm = nullptr, *overlap_move = nullptr;
    int64_t *d2c_max = nullptr, *c2d_max = nullptr, *dma_waits = nullptr, *cmp_waits = nullptr;
    int64_t *dma_full = nullptr, *cmp_full = nullptr, *dma_empty = nullptr, *cmp_empty = nullptr;
    int64_t *move_a = nullptr, *move_b = nullptr;
  } pb_;
  uint32_t q_base_ = 0, q_count_ = 0;  // Q_BASE and Q_COUNT as accepted
  int64_t cycle_ = 0;     // the cycle OnProgramCycle samples
  bool program_ = false;  // the last launch was a RUN
  struct Run {
    uint32_t q_count = 0;
    bool verdict_seen = false, error = false, retired_seen = false;
    bool dma_active = false, cmp_active = false;  // between a start and a retire pulse
    bool dma_started = false, cmp_started = false;
    int dma_blocked = 0, cmp_blocked = 0;  // consecutive cycles idle with a head and no token
    std::deque<int64_t> reads;             // last-beat cycles of the read bursts in flight
    int64_t last_read_beat = -1000000;     // the read data stream's latest beat (15.2)
    // A lower bound of the write buffer's beats held against its credit (17.5): STORE steps of
    // units of at least a beat (each one beat, taking a credit at the end of its read cycle) minus
    // the beats the memory took.
    int64_t write_buffer_beats = 0;
    std::deque<int64_t> beats_entering;  // the cycles from which those beats are buffered
    std::deque<Burst> recent_reads, recent_writes;
  } run_;

  arch::ArchConfig config_;
  std::map<std::string, int64_t> bins_;
  RuleCoverage rules_;  // the program engine's rules (coverage_rules.h), into bins_
  SlopeCoverage slope_;   // the slope stage's bins (slope_coverage.h), into bins_
  arch::Command regs_;    // CMD_* as accepted
  bool irq_en_ = false;
  model::Srams shadow_;   // bias and rq SRAM contents, from the accepted window writes
  bool launched_ = false;
  Launched cmd_;
  std::vector<bool> lut_slot_used_;  // by slot: a command read it since reset
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
    // The TPU-MLIR form (requant.md 6.1): a tie of each RSHIFT_ROUND mode, rshift 0 and 63, a
    // quotient beyond int32 that the zero point brings back, and the 33-bit saturation.
    int64_t* tpu_tie[7] = {};
    int64_t *tpu_rshift_0 = nullptr, *tpu_rshift_63 = nullptr, *tpu_beyond_int32 = nullptr,
            *tpu_sat33 = nullptr;
  } hot_;
  // One lane of the TPU-MLIR form, from the biased accumulator and the lane's multiplier word and
  // shift byte.
  void OnTpuLane(int32_t x, uint32_t mult_word, uint32_t shift_byte);
};

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_COVERAGE_H_
