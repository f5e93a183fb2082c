// Clocking-choice measurement for docs/cosim.md: the RTL alone, Verilated with --sc (SystemC ports
// and an sc_clock), driven by an SC_THREAD that plays the same host program as `qacc bench` (a
// 256x256x256 GEMM on the default config). Compare its cycles/s with `qacc bench` (C++ Verilated
// model stepped from one SystemC thread). Usage: qacc_sc_clocking_bench [M N K]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <systemc>

#include "Vqacc_top_sc.h"
#include "model/arch.h"
#include "model/gemm_job.h"
#include "sim/testgen/program.h"

namespace {

int64_t g_cycles = 0;
bool g_done = false;

struct Host : sc_core::sc_module {
  sc_core::sc_clock clk{"clk", sc_core::sc_time(1, sc_core::SC_NS)};
  sc_core::sc_signal<bool> rst_n{"rst_n"}, psel{"psel"}, penable{"penable"}, pwrite{"pwrite"};
  sc_core::sc_signal<uint32_t> paddr{"paddr"}, pwdata{"pwdata"}, pstrb{"pstrb"}, prdata{"prdata"};
  sc_core::sc_signal<bool> pready{"pready"}, pslverr{"pslverr"}, irq{"irq"}, busy{"busy"},
      done{"done"};
  sc_core::sc_signal<bool> mac_in_valid{"mac_in_valid"}, mac_in_last{"mac_in_last"};
  sc_core::sc_signal<bool> out_we{"out_we"};
  // Row beats of the MAC array and requant (units.md 21.2) on the default 8x8 config.
  sc_core::sc_signal<uint32_t> beat_valid{"beat_valid"}, beat_row{"beat_row"},
      beat_last{"beat_last"}, out_addr{"out_addr"}, out_be{"out_be"};
  sc_core::sc_signal<sc_dt::sc_bv<qacc::arch::kNumBeatUnits * 256>> beat_lanes{"beat_lanes"};
  sc_core::sc_signal<sc_dt::sc_bv<256>> out_wdata{"out_wdata"};
  Vqacc_top_sc top{"top"};
  std::vector<qacc::sim::HostOp> program;
  uint64_t checksum = 0;

  SC_HAS_PROCESS(Host);
  explicit Host(sc_core::sc_module_name name, std::vector<qacc::sim::HostOp> ops)
      : sc_core::sc_module(name), program(std::move(ops)) {
    top.clk_i(clk);
    top.rst_ni(rst_n);
    top.apb_psel_i(psel);
    top.apb_penable_i(penable);
    top.apb_pwrite_i(pwrite);
    top.apb_paddr_i(paddr);
    top.apb_pwdata_i(pwdata);
    top.apb_pstrb_i(pstrb);
    top.apb_prdata_o(prdata);
    top.apb_pready_o(pready);
    top.apb_pslverr_o(pslverr);
    top.irq_o(irq);
    top.mon_busy_o(busy);
    top.mon_done_o(done);
    top.mon_mac_in_valid_o(mac_in_valid);
    top.mon_mac_in_last_o(mac_in_last);
    top.mon_beat_valid_o(beat_valid);
    top.mon_beat_row_o(beat_row);
    top.mon_beat_last_o(beat_last);
    top.mon_beat_lanes_o(beat_lanes);
    top.mon_out_we_o(out_we);
    top.mon_out_addr_o(out_addr);
    top.mon_out_be_o(out_be);
    top.mon_out_wdata_o(out_wdata);
    SC_THREAD(Run);
  }

  // One clock cycle: wait for the rising edge that ends it, sampling the monitors as the lockstep
  // engine does (lanes only when valid).
  void Edge() {
    for (int u = 0; u < qacc::arch::kNumBeatUnits; ++u) {
      if ((beat_valid.read() >> u) & 1)
        checksum += beat_lanes.read().range(256 * u + 63, 256 * u).to_uint64();
    }
    if (out_we.read()) checksum += out_wdata.read().to_uint64();
    wait(clk.posedge_event());
    ++g_cycles;
  }

  void Run() {
    using Kind = qacc::sim::HostOp::Kind;
    wait(clk.negedge_event());
    rst_n = false;
    Edge();
    Edge();
    rst_n = true;
    Edge();
    for (const auto& op : program) {
      if (op.kind == Kind::kWaitDone) {
        while (!done.read()) Edge();
        g_done = true;
        continue;
      }
      if (op.kind == Kind::kIdle) {
        for (int64_t i = 0; i < op.cycles; ++i) Edge();
        continue;
      }
      if (op.kind == Kind::kCheckOutput || op.kind == Kind::kCheckSrams) continue;
      const bool is_read = op.kind == Kind::kRead || op.kind == Kind::kReadOut;
      psel = true;
      penable = false;
      pwrite = !is_read;
      paddr = op.addr;
      pwdata = op.data;
      pstrb = op.strobe;
      Edge();
      penable = true;
      for (;;) {
        const bool ready = pready.read();
        Edge();
        if (ready) break;
      }
      psel = false;
      penable = false;
    }
    sc_core::sc_stop();
  }
};

}  // namespace

int sc_main(int argc, char** argv) {
  qacc::model::GemmJob job;
  job.m = argc > 3 ? std::atoi(argv[1]) : 256;
  job.n = argc > 3 ? std::atoi(argv[2]) : 256;
  job.k = argc > 3 ? std::atoi(argv[3]) : 256;
  uint32_t state = 1;
  for (int i = 0; i < job.m * job.k + job.k * job.n; ++i) {
    state = state * 1664525u + 1013904223u;
    (i < job.m * job.k ? job.a : job.b).push_back(static_cast<uint8_t>(state >> 24));
  }
  job.bias.assign(size_t(job.n), 1000);
  job.requant.multiplier = 1 << 30;
  job.requant.shift = -10;
  const qacc::arch::ArchConfig config;  // the default config the --sc build was Verilated for
  Host host("host", qacc::sim::SingleJobProgram(config, job).ops);
  const auto start = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "Verilator --sc, sc_clock: %lld cycles in %.3f s = %.0f cycles/s (done %d, checksum %llu)\n",
      static_cast<long long>(g_cycles), seconds, double(g_cycles) / seconds, int(g_done),
      static_cast<unsigned long long>(host.checksum));
  return g_done ? 0 : 1;
}
