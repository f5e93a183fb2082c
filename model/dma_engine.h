// The DMA engine's command datapath, cycle by cycle (docs/data_movement.md 17.4, 17.5, 17.7): a
// LOAD's read requests under its read-buffer credit and its SRAM writes, a STORE's SRAM reads under
// its write-buffer credit, its write addresses, write beats and responses. The program engine
// (program_engine.h) owns the queue, the tokens and the read channel's arbitration, and calls
// Cycle() once per cycle from the command's start cycle on.
//
// Every decision of Cycle() is taken on the state at the start of the cycle; the updates it makes
// are the flops' next values.
#ifndef QACC_MODEL_DMA_ENGINE_H_
#define QACC_MODEL_DMA_ENGINE_H_

#include <cstdint>
#include <deque>
#include <optional>

#include "model/arch.h"
#include "model/descriptor.h"
#include "model/dma_pattern.h"
#include "model/ext_memory.h"
#include "model/sram_ports.h"
#include "model/srams.h"

namespace qacc::model {

inline constexpr int kWriteBufferBeats = arch::kWrBufBeats;  // a STORE's write buffer (17.5)

class DmaEngine {
 public:
  // `srams` must outlive the engine.
  DmaEngine(const arch::ArchConfig& config, Srams& srams);

  // Starts a valid LOAD or STORE: cursors at its first burst and step, credits full.
  void Start(const DmaDesc& desc);
  bool has_command() const { return pattern_.has_value(); }
  bool is_load() const { return pattern_ && pattern_->desc().load; }

  // Whether a command stopped by an EXT_FAULT (recorded before this cycle: `stopped`) has drained
  // at the start of this cycle: a LOAD has no read burst in flight, a STORE's reader has no step
  // left in the burst it began and nothing is buffered or awaits a response (17.7). The command
  // still runs in that cycle, its last: it neither completes nor retires.
  bool Drained(bool stopped) const;

  struct CycleIn {
    uint64_t cycle = 0;           // program cycle
    bool stopped = false;         // an EXT_FAULT was recorded before this cycle
    bool may_issue_read = false;  // the fetcher does not issue and fewer than MaxOutstanding
                                  // read bursts are in flight
    PortUse compute;              // the SRAM ports the compute engine uses in this cycle
    bool aw_ready = true;         // the memory's outputs of this cycle
    bool w_ready = false;
    bool b_valid = false;
    bool b_error = false;
  };
  struct CycleOut {
    bool ar_valid = false;
    uint32_t ar_addr = 0;
    uint32_t ar_beats = 0;
    bool aw_valid = false;  // the write address channel: a new burst or a held one
    bool aw_issue = false;  // a new write burst (its address on the channel from now on)
    uint32_t aw_addr = 0;
    uint32_t aw_beats = 0;
    bool w_valid = false;
    bool w_handshake = false;
    Beat w_data{};
    uint64_t w_strb = 0;
    bool w_last = false;
    DmaSramAccess access;
    bool port_stall = false;  // the next step waited for its SRAM port (PERF_PORT_STALL)
    bool completed = false;   // the command's last action was in this cycle
    bool fault = false;       // a write response of this cycle was an error
  };
  // The command's cycle. Call once per cycle while has_command(), in cycle order.
  void Cycle(const CycleIn& in, CycleOut& out);
  // A beat of one of the command's read bursts, at the end of its cycle (usable from the next).
  void OnReadBeat(const Beat& data, bool last_of_burst);
  // Forgets the command (after its completion, or once a stopped command has drained).
  void Clear() { pattern_.reset(); }

  // For skipping cycles: true when, in a cycle that starts in this state, the command does
  // nothing and drives no channel (it waits for a read beat or a write response).
  bool WaitsForMemory(bool stopped, bool read_slot_free) const;
  // A write address is held on the channel, waiting for aw_ready.
  bool aw_pending() const { return aw_pending_; }

 private:
  struct TxBeat {
    uint64_t ready = 0;  // the first cycle with w_valid for it
    Beat data{};
    uint64_t strb = 0;
    bool last = false;
  };

  bool StepsLeft() const { return step_row_ < pattern_->rows(); }
  void AdvanceStep();
  bool CanRequest(bool read_slot_free) const;
  void LoadCycle(const CycleIn& in, CycleOut& out);
  void StoreCycle(const CycleIn& in, CycleOut& out);
  DmaSramAccess Access(const DmaPattern::Step& step, bool write) const;

  const arch::ArchConfig& config_;
  Srams& srams_;
  std::optional<DmaPattern> pattern_;
  bool completed_ = false;
  // Step cursor (LOAD writer, STORE reader): step k of row.
  uint64_t step_row_ = 0, step_k_ = 0;
  // LOAD: the next read burst, the read buffer and its credit.
  uint64_t req_row_ = 0, req_beat_ = 0;
  int read_credit_ = 0;
  std::deque<Beat> read_buffer_;
  int reads_in_flight_ = 0;
  // STORE: the next write burst of the reader's row, the beats of the open burst the reader has
  // still to complete, the beat being assembled, the write buffer and its credit, the responses.
  uint64_t aw_next_beat_ = 0;
  // A write address the memory has not accepted yet: held on the channel (15.1), and the reader
  // starts no other burst meanwhile.
  bool aw_pending_ = false;
  uint32_t aw_pending_addr_ = 0, aw_pending_beats_ = 0;
  uint32_t burst_left_ = 0;
  Beat staging_{};
  uint64_t staging_strb_ = 0;
  int write_credit_ = 0;
  std::deque<TxBeat> write_buffer_;
  uint64_t bursts_issued_ = 0, responses_ = 0;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_DMA_ENGINE_H_
