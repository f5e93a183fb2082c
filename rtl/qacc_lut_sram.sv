// The LUT table SRAM (docs/lut.md 10.1, 10.2): Slots slots of 256 16-bit entries, 8 entries per 16-byte word
// (slot s, entry e: word 32 s + e / 8, bytes 2 (e mod 8) .. +1), Depth = LUT_SLOT_WORDS * Slots words.
//
// It is stored ceil(NumCols / 2) times, as dual-port copies, so that the NumCols lookup lanes of qacc_lut_unit
// read one word each per cycle: lane 2k reads copy k through port A, lane 2k + 1 through port B. The window
// (the host while idle, the DMA while busy, through qacc_win_port) writes every copy at once through port A and
// reads copy 0 through port A; a window access never meets a lane read (the compute engine owns the table while
// a command reads it, 17.6: asserted below). Reads have latency 1 (SRAM_READ_LATENCY), as every SRAM's.
module qacc_lut_sram
  import qacc_pkg::*;
#(
  parameter int unsigned NumCols   = 8,
  parameter int unsigned Slots     = 4,
  localparam int unsigned Depth     = LUT_SLOT_WORDS * Slots,
  localparam int unsigned AddrW     = $clog2(Depth),
  localparam int unsigned WordBytes = LUT_WORD_ENTRIES * LUT_ENTRY_BYTES,
  localparam int unsigned Width     = 8 * WordBytes,
  localparam int unsigned Copies    = (NumCols + 1) / 2
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic                           engine_sel_i,

  // Host window (qacc_win_port).
  input  logic                           host_re_i,
  input  logic                           host_we_i,
  input  logic [19:0]                    host_off_i,
  input  logic [31:0]                    host_wdata_i,
  input  logic [3:0]                     host_wstrb_i,
  output logic [31:0]                    host_rdata_o,

  // Engine port (the DMA): whole words.
  input  logic                           eng_re_i,
  input  logic [AddrW-1:0]               eng_raddr_i,
  output logic [Width-1:0]               eng_rdata_o,
  input  logic                           eng_we_i,
  input  logic [AddrW-1:0]               eng_waddr_i,
  input  logic [WordBytes-1:0]           eng_be_i,
  input  logic [Width-1:0]               eng_wdata_i,

  // Lookup lanes: lane c's word from lane_re_i's cycle + 1 until its next read.
  input  logic                           lane_re_i,
  input  logic [NumCols-1:0][AddrW-1:0]  lane_addr_i,
  output logic [NumCols-1:0][Width-1:0]  lane_rdata_o
);

  logic                 re, we;
  logic [AddrW-1:0]     raddr, waddr;
  logic [WordBytes-1:0] be;
  logic [Width-1:0]     wdata, rdata_q, bit_en;

  qacc_win_port #(
    .Depth     (Depth),
    .WordBytes (WordBytes)
  ) u_port (
    .clk_i,
    .rst_ni,
    .engine_sel_i,
    .host_re_i,
    .host_we_i,
    .host_off_i,
    .host_wdata_i,
    .host_wstrb_i,
    .host_rdata_o,
    .eng_re_i,
    .eng_raddr_i,
    .eng_we_i,
    .eng_waddr_i,
    .eng_be_i,
    .eng_wdata_i,
    .re_o    (re),
    .raddr_o (raddr),
    .rdata_i (rdata_q),
    .we_o    (we),
    .waddr_o (waddr),
    .be_o    (be),
    .wdata_o (wdata)
  );

  always_comb begin
    for (int b = 0; b < int'(WordBytes); b++) begin
      bit_en[8*b +: 8] = {8{be[b]}};
    end
  end

  // public_flat_rd: the co-simulation compares every copy with the model's table SRAM after every command.
  // The array and the read registers hold data only and are not reset (spec 10).
  logic [Width-1:0] mem_q [Copies][Depth] /* verilator public_flat_rd */;

  for (genvar k = 0; k < int'(Copies); k++) begin : g_copy
    always_ff @(posedge clk_i) begin
      if (we) begin
        mem_q[k][waddr] <= (mem_q[k][waddr] & ~bit_en) | (wdata & bit_en);
      end
    end
  end

  // Port A of copy 0 reads for the window.
  always_ff @(posedge clk_i) begin
    if (re) begin
      rdata_q <= mem_q[0][raddr];
    end
  end
  assign eng_rdata_o = rdata_q;

  // Lane c reads copy c / 2 (port A for even lanes, port B for odd ones).
  for (genvar c = 0; c < int'(NumCols); c++) begin : g_lane
    logic [Width-1:0] word_q;
    always_ff @(posedge clk_i) begin
      if (lane_re_i) begin
        word_q <= mem_q[c / 2][lane_addr_i[c]];
      end
    end
    assign lane_rdata_o[c] = word_q;
  end

`ifndef SYNTHESIS
  Params_A: assert property (@(posedge clk_i) NumCols >= 4 && Slots >= 1 && Slots <= LUT_MAX_SLOTS);
  // A lane read and a window access never share port A: the DMA waits while a command reads the tables.
  PortA_A: assert property (@(posedge clk_i) disable iff (!rst_ni) lane_re_i |-> !we && !re);
`endif

endmodule
