// Coverage of the program engine's rules (data_movement.md 12-17) that no field or error-code bin
// reaches: the corners where a hand-written bug in the fetcher, the queues, the token counters or
// the DMA would hide (docs/cosim.md "Coverage", "Rules of the program engine").
//   token.*      same-cycle events on each token counter (17.3): a SIGNAL's give and a WAIT's take
//   in
//                one cycle; a take at 15 that frees a completed SIGNAL held by the other engine
//   deadlock.*   every form of DEADLOCK (14.3, 17.7), each with its index rule
//   order.*      a descriptor that fails two adjacent checks of its opcode's validation order (4,
//                12, 13): the first one is reported
//   port.*       a DMA step waiting for an SRAM port that the compute engine uses, per use of
//                17.6's table; runs of waiting longer than the memory latency; a STORE whose
//                write responses have all returned while its reads still wait
//
// Everything comes from the RTL's pins and monitors, never from what the generator meant: the
// descriptors are the bytes the fetcher's read bursts delivered on m_r_data_i, the queues follow
// mon_q_o's occupancies and pulses, the waits and port stalls are mon_q_o's wait and stall bits.
#ifndef QACC_SIM_COSIM_COVERAGE_RULES_H_
#define QACC_SIM_COSIM_COVERAGE_RULES_H_

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "model/arch.h"
#include "model/descriptor.h"
#include "sim/cosim/dut.h"

namespace qacc::cosim {

class RuleCoverage {
 public:
  // Registers its bins (those the config can reach) in `bins`, which must outlive it.
  RuleCoverage(const arch::ArchConfig& config, std::map<std::string, int64_t>& bins);

  // A RUN accepted with these Q_BASE and Q_COUNT register values.
  void OnRun(uint32_t q_base, uint32_t q_count);
  // Every cycle of the RTL from the RUN on (also after the program ends: nothing happens then).
  void OnCycle(const RtlSample& s);
  // The program's verdict: the first STATUS read with DONE after the RUN.
  void OnVerdict(uint32_t status);

  // The descriptor the compute engine started in the cycle last sampled, as fetched; nullptr when
  // it started none (or the view lost the RTL).
  const std::array<uint32_t, 16>* compute_started() const { return compute_started_; }

  // The checks of an opcode's validation, in the spec's order, that `d` fails (every one, not only
  // the first). Public for its unit test.
  static std::vector<arch::ErrCode> FailingChecks(const arch::ArchConfig& config,
                                                  const std::array<uint32_t, 16>& d);

 private:
  using Words = std::array<uint32_t, 16>;
  enum Engine { kDma = 0, kCompute = 1 };
  struct ReadBurst {
    bool fetch = false;
    uint32_t index = 0;  // the descriptor of a fetch
    int beats_seen = 0;
  };
  struct EngineView {
    std::deque<uint32_t> queue;  // descriptor indices, head first
    bool started = false;        // the head has started (running, or completed and holding)
    int prev_count = 0;          // occupancy at the start of the previous cycle
    bool prev_retire = false;    // a retirement in the previous cycle
  };
  // The use of 17.6's table behind a port stall: the DMA's and the compute engine's heads.
  int PortUse() const;
  void OnPortStall(const RtlSample& s);
  void OnTokens(const RtlSample& s);
  void TrackQueues(const RtlSample& s);
  void OnReadBeat(const model::AxiSlaveOut& in);
  bool Known(uint32_t index) const { return descriptors_.count(index) != 0; }
  model::DescHeader Header(uint32_t index) const {
    return model::DecodeDescHeader(descriptors_.at(index));
  }
  void Hit(int64_t* bin) {
    if (bin != nullptr) ++*bin;
  }

  arch::ArchConfig config_;
  std::map<std::string, int64_t>& bins_;
  // Bins by pointer (std::map nodes stay put).
  int64_t *give_and_take_[2] = {}, *take_frees_held_[2] = {};  // by counter: d2c, c2d
  int64_t *dl_fetcher_blocked_ = nullptr, *dl_all_fetched_ = nullptr;
  int64_t *dl_head_holds_[2] = {}, *dl_below_retired_[2] = {};  // by the lowest head's engine
  std::map<std::string, int64_t*> order_;                       // "OP.FIRST.SECOND"
  std::vector<int64_t*> port_stall_, port_outlasts_;            // by use (nullptr: unreachable)
  int64_t* store_drained_ = nullptr;
  int64_t *load_out16_ = nullptr,
          *store_out16_ = nullptr;  // a LOAD / STORE of int16 entries starts

  // The run being sampled.
  bool running_ = false, lost_ = false;  // lost: the view no longer follows the RTL (no bins)
  uint32_t q_base_ = 0, q_count_ = 0;
  uint32_t fetches_ = 0;  // fetch bursts issued
  uint32_t pushed_ = 0;   // descriptors pushed into a queue
  std::deque<ReadBurst> reads_;
  std::vector<uint8_t> fetch_bytes_;
  std::map<uint32_t, Words> descriptors_;  // as fetched, by index
  std::deque<uint32_t> fetched_;           // fetched, not yet pushed
  EngineView engines_[2];
  const Words* compute_started_ = nullptr;
  bool busy_seen_ = false;
  int64_t max_retired_index_ = -1;
  uint32_t retired_ = 0;
  int stall_use_ = -1, stall_run_ = 0;
  int64_t store_aw_ = 0, store_b_ = 0;  // the running STORE's write bursts and responses
};

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_COVERAGE_RULES_H_
