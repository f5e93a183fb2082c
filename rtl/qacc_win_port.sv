// The host window and the engine port in front of one SRAM (spec 3, 3.1): the host (32-bit accesses at byte
// offsets, pstrb byte enables, only while the accelerator is idle) or the engine (whole words, only while a
// command runs: STATUS.BUSY). `engine_sel_i` (= BUSY) picks the owner; qacc_regs answers a window access during
// BUSY with pslverr and never forwards it, so the two never collide.
//   host word w32 = off / 4 lands in SRAM word off / WordBytes, byte lanes 4 * (w32 mod (WordBytes / 4)) + 0..3.
//   host read: request in cycle t, host_rdata_o valid in cycle t + 1 (the window's wait state).
// The memory behind it has read latency 1 (SRAM_READ_LATENCY): qacc_sram, or the LUT table's copies.
module qacc_win_port #(
  parameter int unsigned Depth     = 256,
  parameter int unsigned WordBytes = 4,
  localparam int unsigned AddrW    = $clog2(Depth),
  localparam int unsigned Width    = 8 * WordBytes
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 engine_sel_i,

  // Host window: off_i is the byte offset inside the window, already range checked.
  input  logic                 host_re_i,     // a host read of this window (qacc_regs: first access cycle)
  input  logic                 host_we_i,     // a host write of this window
  input  logic [19:0]          host_off_i,
  input  logic [31:0]          host_wdata_i,
  input  logic [3:0]           host_wstrb_i,
  output logic [31:0]          host_rdata_o,

  // Engine port (controller, DMA, MOVE): whole words.
  input  logic                 eng_re_i,
  input  logic [AddrW-1:0]     eng_raddr_i,
  input  logic                 eng_we_i,
  input  logic [AddrW-1:0]     eng_waddr_i,
  input  logic [WordBytes-1:0] eng_be_i,
  input  logic [Width-1:0]     eng_wdata_i,

  // The memory's ports.
  output logic                 re_o,
  output logic [AddrW-1:0]     raddr_o,
  input  logic [Width-1:0]     rdata_i,
  output logic                 we_o,
  output logic [AddrW-1:0]     waddr_o,
  output logic [WordBytes-1:0] be_o,
  output logic [Width-1:0]     wdata_o
);

  localparam int unsigned SubWords = WordBytes / 4;  // 32-bit host words per SRAM word
  localparam int unsigned SubW     = (SubWords > 1) ? $clog2(SubWords) : 1;
  localparam int unsigned ByteW    = $clog2(WordBytes);  // byte-offset bits inside one SRAM word

  logic [AddrW-1:0]     host_addr;
  logic [WordBytes-1:0] host_be;
  logic [SubW-1:0]      host_sub;

  assign host_addr = host_off_i[ByteW +: AddrW];
  assign host_sub  = (SubWords > 1) ? SubW'(host_off_i[19:2] & 18'(SubWords - 1)) : '0;

  always_comb begin
    for (int j = 0; j < int'(SubWords); j++) begin
      host_be[4*j +: 4] = (SubW'(j) == host_sub) ? host_wstrb_i : 4'b0000;
    end
  end

  always_comb begin
    if (engine_sel_i) begin
      re_o    = eng_re_i;
      raddr_o = eng_raddr_i;
      we_o    = eng_we_i;
      waddr_o = eng_waddr_i;
      be_o    = eng_be_i;
      wdata_o = eng_wdata_i;
    end else begin
      re_o    = host_re_i;
      raddr_o = host_addr;
      we_o    = host_we_i;
      waddr_o = host_addr;
      be_o    = host_be;
      wdata_o = {SubWords{host_wdata_i}};
    end
  end

  // A host read's data cycle (the wait state) still holds its address: APB keeps PADDR until PREADY.
  assign host_rdata_o = rdata_i[32*host_sub +: 32];

  // Offset bits above the SRAM (checked by qacc_regs) and below the 32-bit word are not used here.
  logic unused_off;
  assign unused_off = ^{host_off_i[1:0], host_off_i >> (ByteW + AddrW)};

`ifndef SYNTHESIS
  Params_A: assert property (@(posedge clk_i) WordBytes >= 4 && (WordBytes & (WordBytes - 1)) == 0 &&
      Depth * WordBytes <= (1 << 20));
  NoHostWhileEngine_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      engine_sel_i |-> !host_re_i && !host_we_i);
`endif

endmodule
