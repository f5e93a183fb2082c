// Sampling of a Verilated qacc_top's outputs into an RtlSample (spec 8): the one place that reads
// the monitor ports, used by the co-simulation's Dut and by the RTL top test, so that both hand the
// scoreboard the same view of the RTL.
#ifndef QACC_SIM_COSIM_MONITOR_SAMPLE_H_
#define QACC_SIM_COSIM_MONITOR_SAMPLE_H_

#include <cstdint>
#include <type_traits>

#include "sim/cosim/dut.h"
#include "verilated.h"

namespace qacc::cosim {

// 32-bit word `i` of a Verilated port: VlWide keeps 32-bit words, narrower ports are integers.
template <std::size_t N>
inline uint32_t PortWord(const VlWide<N>& port, int i) {
  return port[static_cast<std::size_t>(i)];
}
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
inline uint32_t PortWord(T port, int i) {
  return static_cast<uint32_t>(static_cast<uint64_t>(port) >> (32 * i));
}

// The APB response, status, irq and monitor ports of `top` (evaluated with the clock low) for an
// array of `cols` columns. Lane arrays are filled only when their valid bit is 1.
template <typename VTop>
void SampleOutputs(const VTop& top, int cols, RtlSample& s) {
  s.pready = top.apb_pready_o;
  s.pslverr = top.apb_pslverr_o;
  s.prdata = top.apb_prdata_o;
  s.busy = top.mon_busy_o;
  s.done = top.mon_done_o;
  s.irq = top.irq_o;
  s.mac_in_valid = top.mon_mac_in_valid_o;
  s.mac_in_last = top.mon_mac_in_last_o;
  s.mac_valid = top.mon_mac_valid_o;
  if (s.mac_valid) {
    s.mac_row = top.mon_mac_row_o;
    s.mac_last = top.mon_mac_last_o;
    for (int c = 0; c < cols; ++c) s.mac_acc[c] = static_cast<int32_t>(PortWord(top.mon_mac_acc_o, c));
  }
  s.rq_valid = top.mon_rq_valid_o;
  if (s.rq_valid) {
    s.rq_row = top.mon_rq_row_o;
    s.rq_last = top.mon_rq_last_o;
    for (int c = 0; c < cols; ++c) s.rq_data[c] = static_cast<int32_t>(PortWord(top.mon_rq_data_o, c));
  }
  static_assert(sizeof(top.mon_cmd_o) == 4 * kCommandPortWords, "mon_cmd_o is not $bits(cmd_t)");
  for (int i = 0; i < kCommandPortWords; ++i) s.cmd[i] = PortWord(top.mon_cmd_o, i);
  s.out_we = top.mon_out_we_o;
  if (s.out_we) {
    s.out_addr = top.mon_out_addr_o;
    for (int w = 0; w < cols; ++w) {  // 4C bytes = C words; 4C enable bits = C / 8 words
      const uint32_t data = PortWord(top.mon_out_wdata_o, w);
      const uint32_t be = PortWord(top.mon_out_be_o, w / 8) >> (4 * (w % 8));
      for (int b = 0; b < 4; ++b) {
        s.out_wdata[4 * w + b] = static_cast<uint8_t>(data >> (8 * b));
        s.out_be[4 * w + b] = static_cast<uint8_t>((be >> b) & 1);
      }
    }
  }
}

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_MONITOR_SAMPLE_H_
