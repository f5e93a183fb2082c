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

// `width` bits at bit `lsb` of a port read as 32-bit words (width <= 32).
template <typename T>
inline uint32_t PortBits(const T& port, int lsb, int width) {
  const uint64_t two = uint64_t{PortWord(port, lsb / 32)} |
                       (lsb % 32 + width > 32 ? uint64_t{PortWord(port, lsb / 32 + 1)} << 32 : 0);
  return static_cast<uint32_t>((two >> (lsb % 32)) & ((uint64_t{1} << width) - 1));
}

// Whether every bit of a monitor port is 0.
template <std::size_t N>
inline bool PortIsZero(const VlWide<N>& port) {
  for (std::size_t i = 0; i < N; ++i) {
    if (port[i] != 0) return false;
  }
  return true;
}
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
inline bool PortIsZero(T port) {
  return port == 0;
}

// The bytes of a monitor port (byte j in bits [8j+7:8j]) and its per-byte enables.
template <typename T>
inline void PortBytes(const T& port, int bytes, uint8_t* out) {
  for (int j = 0; j < bytes; ++j) out[j] = static_cast<uint8_t>(PortWord(port, j / 4) >> (8 * (j % 4)));
}
template <typename T>
inline void PortBitsPerByte(const T& port, int bits, uint8_t* out) {
  for (int j = 0; j < bits; ++j) out[j] = static_cast<uint8_t>((PortWord(port, j / 32) >> (j % 32)) & 1);
}

// The width of a row index (qacc_top's RowIdxW = $clog2(NumRows)).
inline int RowIndexBits(int rows) {
  int bits = 0;
  while ((1 << bits) < rows) ++bits;
  return bits;
}

// The APB response, status, irq and monitor ports of `top` (evaluated with the clock low) for an
// array of `rows` x `cols`. Lane arrays are filled only when their valid bit is 1.
template <typename VTop>
void SampleOutputs(const VTop& top, int rows, int cols, RtlSample& s) {
  s.pready = top.apb_pready_o;
  s.pslverr = top.apb_pslverr_o;
  s.prdata = top.apb_prdata_o;
  s.busy = top.mon_busy_o;
  s.done = top.mon_done_o;
  s.irq = top.irq_o;
  s.mac_in_valid = top.mon_mac_in_valid_o;
  s.mac_in_last = top.mon_mac_in_last_o;
  static_assert(sizeof(top.mon_beat_valid_o) * 8 >= arch::kNumBeatUnits, "mon_beat_valid_o has a slot per beat unit");
  const int row_bits = RowIndexBits(rows);
  for (int u = 0; u < arch::kNumBeatUnits; ++u) {
    BeatSample& beat = s.beats[u];
    beat.valid = (top.mon_beat_valid_o >> u) & 1;
    if (!beat.valid) continue;
    beat.row = int(PortBits(top.mon_beat_row_o, u * row_bits, row_bits));
    beat.last = (top.mon_beat_last_o >> u) & 1;
    for (int c = 0; c < cols; ++c)
      beat.lanes[c] = static_cast<int32_t>(PortWord(top.mon_beat_lanes_o, u * cols + c));
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
  // Programs (data_movement.md 18).
  static_assert(sizeof(top.mon_q_o) * 8 >= arch::kMonQBits, "mon_q_o is not $bits(mon_q_t)");
  // mon_q_o changes only at a start, a retirement or a token event: decoded when its words change.
  bool queue_same = true;
  for (int i = 0; i < kQueuePortWords; ++i) {
    const uint32_t word = PortWord(top.mon_q_o, i);
    queue_same = queue_same && word == s.queue_port[i];
    s.queue_port[i] = word;
  }
  if (!queue_same) {
    s.queue = arch::UnpackMonQ([&top](int lsb, int width) { return PortBits(top.mon_q_o, lsb, width); });
  }
  s.dma.re = top.mon_dma_re_o;
  s.dma.we = top.mon_dma_we_o;
  // Without an access every field is 0 (data_movement.md 18): SRAM, address, byte enables and data.
  s.dma.idle_zero = s.dma.re || s.dma.we ||
                    (top.mon_dma_sram_o == 0 && top.mon_dma_addr_o == 0 &&
                     PortIsZero(top.mon_dma_be_o) && PortIsZero(top.mon_dma_wdata_o));
  if (s.dma.re || s.dma.we) {
    s.dma.sram = top.mon_dma_sram_o;
    s.dma.addr = top.mon_dma_addr_o;
    PortBitsPerByte(top.mon_dma_be_o, DmaPortBytes(rows, cols), s.dma.be);
    PortBytes(top.mon_dma_wdata_o, DmaPortBytes(rows, cols), s.dma.wdata);
  }
  s.move.re = top.mon_move_re_o;
  s.move.raddr = top.mon_move_raddr_o;
  s.move.we = top.mon_move_we_o;
  s.move.idle_zero = (s.move.re || s.move.raddr == 0) &&
                     (s.move.we || (top.mon_move_dst_o == 0 && top.mon_move_waddr_o == 0 &&
                                    PortIsZero(top.mon_move_wdata_o)));
  if (s.move.we) {
    s.move.dst = top.mon_move_dst_o;
    s.move.waddr = top.mon_move_waddr_o;
    PortBytes(top.mon_move_wdata_o, rows > cols ? rows : cols, s.move.wdata);
  }
  s.out_acc.re = top.mon_out_acc_re_o;
  s.out_acc.raddr = top.mon_out_acc_raddr_o;
  s.out_acc.we = top.mon_out_acc_we_o;
  s.out_acc.idle_zero =
      (s.out_acc.re || s.out_acc.raddr == 0) &&
      (s.out_acc.we || (top.mon_out_acc_waddr_o == 0 && PortIsZero(top.mon_out_acc_wdata_o)));
  if (s.out_acc.we) {
    s.out_acc.waddr = top.mon_out_acc_waddr_o;
    PortBytes(top.mon_out_acc_wdata_o, 4 * cols, s.out_acc.wdata);
  }
}

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_MONITOR_SAMPLE_H_
