// The external memory of the testbench (docs/data_movement.md 15.2): contents plus the timing rules
// of its AXI4-subset slave port (15.1). One class serves both sides of the co-simulation: the
// model's program engine and the bridge to the Verilated RTL's pins call it the same way, so that
// both see the same contents and the same cycles.
//
// A Moore machine stepped once per clock: Outputs() gives the slave's outputs of the current cycle
// (they depend only on handshakes of earlier cycles), Commit() takes the master's outputs of the
// same cycle, performs its handshakes and advances to the next cycle. Plain C++, no SystemC.
#ifndef QACC_MODEL_EXT_MEMORY_H_
#define QACC_MODEL_EXT_MEMORY_H_

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "golden/memory_image.h"
#include "model/arch.h"
#include "spec/arch_spec.h"

namespace qacc::model {

inline constexpr int kMaxBeatBytes = 64;  // largest mem.data_bytes
inline constexpr int kMaxBurstBeats = arch::kMaxBurstBeats;
inline constexpr uint32_t kAxiPageBytes = uint32_t(arch::kAxiPageBytes);  // no burst crosses it
inline constexpr uint8_t kAxiOkay = 0;
inline constexpr uint8_t kAxiSlvErr = 2;

using Beat = std::array<uint8_t, kMaxBeatBytes>;  // bytes 0..D-1 used

// The master's outputs in one cycle (sampled before the rising edge). Fields of a channel are read
// only with its valid.
struct AxiMasterOut {
  bool ar_valid = false;
  uint32_t ar_addr = 0;
  uint8_t ar_len = 0;  // beats - 1
  bool r_ready = true;
  bool aw_valid = false;
  uint32_t aw_addr = 0;
  uint8_t aw_len = 0;
  bool w_valid = false;
  Beat w_data{};
  uint64_t w_strb = 0;  // bit j enables byte j
  bool w_last = false;
  bool b_ready = true;
};

// The slave's outputs in one cycle.
struct AxiSlaveOut {
  bool ar_ready = true;
  bool aw_ready = true;
  bool r_valid = false;
  Beat r_data{};
  bool r_last = false;
  uint8_t r_resp = kAxiOkay;
  bool w_ready = false;
  bool b_valid = false;
  uint8_t b_resp = kAxiOkay;
};

struct ExtMemoryTiming {
  int data_bytes = 16;  // D: 8, 16, 32, 64
  int latency = 20;     // Lm >= 1
  int interval = 1;     // Iv >= 1
  // A stalling slave: in about `ready_gaps` percent of the cycles (0..90), drawn per cycle and
  // channel from `gap_seed` and the cycle number, ar_ready, aw_ready and w_ready are 0 (15.2).
  int ready_gaps = 0;
  uint64_t gap_seed = 1;
};

// The testbench memory's timing of a config (its ext_mem.* keys and mem.data_bytes).
ExtMemoryTiming ExtMemoryTimingOf(const arch::ArchConfig& config);

class ExtMemory {
 public:
  // Throws std::invalid_argument for a size that is 0 or above 4 GiB, or illegal timing.
  ExtMemory(uint64_t size_bytes, const ExtMemoryTiming& timing);

  // ---- Backdoor (host side: programs, tensors, results). Throws std::out_of_range outside.
  // The whole image, `size` bytes, zero at construction. It costs only the pages written, and it
  // is not even mapped before it is first needed: a run that never uses the memory reserves no
  // address space (under `qacc regress`'s RLIMIT_AS, a 4 GiB ext_mem would not fit three times).
  golden::MemoryImage& image() { return Mapped(); }
  const golden::MemoryImage& image() const { return Mapped(); }
  uint64_t size() const { return size_; }
  void Write(uint64_t addr, const uint8_t* data, size_t n);
  void Read(uint64_t addr, uint8_t* data, size_t n) const;

  // ---- Port, one call pair per cycle.
  uint64_t cycle() const { return cycle_; }
  // The slave's outputs of the current cycle.
  AxiSlaveOut Outputs() const;
  // The master's outputs of the current cycle: performs the handshakes, then advances one cycle.
  // A protocol violation by the master (an unaligned address, a burst across 4 KiB, a write beat
  // without an address, a wrong w_last, ready low) is recorded (first one kept) and the offending
  // request is otherwise served as well as it can be.
  void Commit(const AxiMasterOut& master);
  // Skips `cycles` cycles in which the master drives nothing valid (the caller knows it is idle).
  // Equivalent to that many Commit(AxiMasterOut{}) calls when no beat or response is due in them.
  void Idle(uint64_t cycles);
  // The first cycle >= cycle() in which the slave drives a valid beat or response, or UINT64_MAX.
  uint64_t NextEventCycle() const;

  const std::string& violation() const { return violation_; }
  bool Quiet() const { return reads_.empty() && writes_.empty() && responses_.empty(); }

  // Totals since construction.
  uint64_t read_beats() const { return read_beats_; }
  uint64_t write_beats() const { return write_beats_; }

 private:
  struct Burst {
    uint32_t addr = 0;
    int beats = 0;
    uint64_t accepted = 0;  // handshake cycle of its address
    int done = 0;           // beats transferred
    bool error = false;     // reaches at or above the size: SLVERR
  };
  struct Response {
    uint64_t due = 0;
    bool error = false;
  };

  uint64_t NextReadBeatCycle() const;  // of the head read burst; UINT64_MAX when none
  bool Gap(int channel) const;         // a ready held low in this cycle (0 ar, 1 aw, 2 w)
  bool WriteReady() const;
  void Violation(const std::string& what);
  bool BurstLegal(uint32_t addr, int beats, const char* channel);

  golden::MemoryImage& Mapped() const;

  uint64_t size_ = 0;
  mutable golden::MemoryImage mem_;  // empty until Mapped()
  ExtMemoryTiming timing_;
  uint64_t cycle_ = 0;
  std::deque<Burst> reads_, writes_;
  std::deque<Response> responses_;
  bool have_read_beat_ = false, have_write_beat_ = false;
  uint64_t last_read_beat_ = 0, last_write_beat_ = 0, last_response_due_ = 0;
  bool have_response_ = false;
  uint64_t read_beats_ = 0, write_beats_ = 0;
  std::string violation_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_EXT_MEMORY_H_
