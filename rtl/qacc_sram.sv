// Generic synchronous SRAM, one read port and one write port (1R1W; a 1RW use drives one port per cycle),
// with byte enables (spec 1, 7: read latency Lr = SRAM_READ_LATENCY = 1).
//   read:  address in cycle t (re_i = 1), data in rdata_o from cycle t + 1 until the next read.
//   write: presented in cycle t (we_i = 1), the memory holds it after the rising edge ending t.
// A read and a write of the same word in one cycle return the old word (read-first). The array and the read
// register hold data only and are not reset (spec 10).
module qacc_sram #(
  parameter int unsigned Depth     = 256,
  parameter int unsigned WordBytes = 4,
  localparam int unsigned AddrW    = $clog2(Depth),
  localparam int unsigned Width    = 8 * WordBytes
) (
  input  logic                 clk_i,

  input  logic                 re_i,
  input  logic [AddrW-1:0]     raddr_i,
  output logic [Width-1:0]     rdata_o,

  input  logic                 we_i,
  input  logic [AddrW-1:0]     waddr_i,
  input  logic [WordBytes-1:0] be_i,
  input  logic [Width-1:0]     wdata_i
);

  // public_flat_rd: the co-simulation compares the whole array with the model's after every command.
  logic [Width-1:0] mem_q [Depth] /* verilator public_flat_rd */;
  logic [Width-1:0] rdata_q;
  logic [Width-1:0] bit_en, wword;

  // Byte enables as a bit mask; the written word merges the enabled bytes into the stored one.
  always_comb begin
    for (int b = 0; b < int'(WordBytes); b++) begin
      bit_en[8*b +: 8] = {8{be_i[b]}};
    end
    wword = (mem_q[waddr_i] & ~bit_en) | (wdata_i & bit_en);
  end

  always_ff @(posedge clk_i) begin
    if (we_i) begin
      mem_q[waddr_i] <= wword;
    end
  end

  always_ff @(posedge clk_i) begin
    if (re_i) begin
      rdata_q <= mem_q[raddr_i];
    end
  end

  assign rdata_o = rdata_q;

`ifndef SYNTHESIS
  Params_A: assert property (@(posedge clk_i) Depth >= 2 && (Depth & (Depth - 1)) == 0 && WordBytes >= 1);
`endif

endmodule
