// The pins of qacc_top's external memory port (docs/data_movement.md 15.1) bridged to the
// testbench's memory model (model/ext_memory.h), one cycle at a time, for any Verilated build:
//   before evaluating cycle t:              the slave's outputs of t (ExtMemory::Outputs) -> the
//   RTL's inputs; after evaluating it with the clock low: the RTL's master outputs -> AxiMasterOut
//   -> ExtMemory::Commit.
// The memory is a Moore machine (its outputs in t depend only on handshakes before t), so this
// order is exact. The Dut (dut_impl.h) and the RTL program test drive the port through this one
// bridge.
#ifndef QACC_SIM_COSIM_AXI_BRIDGE_H_
#define QACC_SIM_COSIM_AXI_BRIDGE_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "model/ext_memory.h"

namespace qacc::cosim {

// A beat's bytes as 32-bit words (byte j in bits [8j+7 : 8j] of the port, word j / 4) and back.
void BeatToWords(const model::Beat& beat, int data_bytes, uint32_t* words);
void WordsToBeat(const uint32_t* words, int data_bytes, model::Beat& beat);

namespace axi_internal {

// Verilator keeps ports of up to 64 bits as integers and wider ones as VlWide (32-bit words); these
// helpers read and write a port as 32-bit words for both. `Wide` is any type with operator[] of
// 32-bit words (VlWide).
template <typename T>
inline void SetWords(T& port, const uint32_t* words, int count) {
  if constexpr (std::is_integral_v<T>) {
    uint64_t value = 0;
    for (int i = 0; i < count && i < 2; ++i) value |= uint64_t{words[i]} << (32 * i);
    port = static_cast<T>(value);
  } else {
    for (int i = 0; i < count; ++i) port[static_cast<std::size_t>(i)] = words[i];
  }
}
template <typename T>
inline void GetWords(const T& port, uint32_t* words, int count) {
  if constexpr (std::is_integral_v<T>) {
    const uint64_t value = static_cast<uint64_t>(port);
    for (int i = 0; i < count; ++i) words[i] = i < 2 ? static_cast<uint32_t>(value >> (32 * i)) : 0;
  } else {
    for (int i = 0; i < count; ++i) words[i] = port[static_cast<std::size_t>(i)];
  }
}
template <typename T>
inline uint64_t GetU64(const T& port) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<uint64_t>(port);
  } else {
    return uint64_t{port[0]} | uint64_t{port[1]} << 32;
  }
}

}  // namespace axi_internal

// The slave's outputs of one cycle onto the RTL's m_*_i pins.
template <typename VTop>
void DriveAxiSlave(VTop& top, const model::AxiSlaveOut& s, int data_bytes) {
  uint32_t words[model::kMaxBeatBytes / 4] = {};
  top.m_ar_ready_i = s.ar_ready;
  top.m_aw_ready_i = s.aw_ready;
  top.m_w_ready_i = s.w_ready;
  top.m_r_valid_i = s.r_valid;
  top.m_r_last_i = s.r_last;
  top.m_r_resp_i = s.r_resp;
  BeatToWords(s.r_data, data_bytes, words);
  axi_internal::SetWords(top.m_r_data_i, words, data_bytes / 4);
  top.m_b_valid_i = s.b_valid;
  top.m_b_resp_i = s.b_resp;
}

// The RTL's m_*_o pins of one cycle (evaluated with the clock low). Fields of a channel are copied
// only with its valid (the rest keep their defaults).
template <typename VTop>
void SampleAxiMaster(const VTop& top, int data_bytes, model::AxiMasterOut& m) {
  m = model::AxiMasterOut{};
  m.ar_valid = top.m_ar_valid_o;
  if (m.ar_valid) {
    m.ar_addr = top.m_ar_addr_o;
    m.ar_len = top.m_ar_len_o;
  }
  m.r_ready = top.m_r_ready_o;
  m.aw_valid = top.m_aw_valid_o;
  if (m.aw_valid) {
    m.aw_addr = top.m_aw_addr_o;
    m.aw_len = top.m_aw_len_o;
  }
  m.w_valid = top.m_w_valid_o;
  if (m.w_valid) {
    uint32_t words[model::kMaxBeatBytes / 4] = {};
    axi_internal::GetWords(top.m_w_data_o, words, data_bytes / 4);
    WordsToBeat(words, data_bytes, m.w_data);
    m.w_strb = axi_internal::GetU64(top.m_w_strb_o);
    m.w_last = top.m_w_last_o;
  }
  m.b_ready = top.m_b_ready_o;
}

// The bridge of one RTL instance and one memory: call BeforeEval before evaluating a cycle with the
// clock low, AfterEval after it (and before the rising edge).
class AxiBridge {
 public:
  explicit AxiBridge(model::ExtMemory& memory, int data_bytes)
      : memory_(memory), data_bytes_(data_bytes) {}

  template <typename VTop>
  void BeforeEval(VTop& top) {
    slave_ = memory_.Outputs();
    DriveAxiSlave(top, slave_, data_bytes_);
  }
  template <typename VTop>
  void AfterEval(const VTop& top) {
    SampleAxiMaster(top, data_bytes_, master_);
    memory_.Commit(master_);
  }
  // The master's outputs of the last cycle (what the lockstep compares with the model's).
  const model::AxiMasterOut& master() const { return master_; }
  // The slave's outputs of the last cycle: what the RTL's m_*_i pins received.
  const model::AxiSlaveOut& slave() const { return slave_; }
  model::ExtMemory& memory() { return memory_; }

 private:
  model::ExtMemory& memory_;
  int data_bytes_;
  model::AxiMasterOut master_;
  model::AxiSlaveOut slave_;
};

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_AXI_BRIDGE_H_
