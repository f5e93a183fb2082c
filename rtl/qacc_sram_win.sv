// One operand/result SRAM with its two users (spec 3, 3.1): the host window and the engine, picked by
// `engine_sel_i` (= BUSY) in qacc_win_port, in front of a qacc_sram (read latency 1).
module qacc_sram_win #(
  parameter int unsigned Depth     = 256,
  parameter int unsigned WordBytes = 4,
  localparam int unsigned AddrW    = $clog2(Depth),
  localparam int unsigned Width    = 8 * WordBytes
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 engine_sel_i,

  // Host window: off_i is the byte offset inside the window, already range checked.
  input  logic                 host_re_i,
  input  logic                 host_we_i,
  input  logic [19:0]          host_off_i,
  input  logic [31:0]          host_wdata_i,
  input  logic [3:0]           host_wstrb_i,
  output logic [31:0]          host_rdata_o,

  // Engine ports (controller).
  input  logic                 eng_re_i,
  input  logic [AddrW-1:0]     eng_raddr_i,
  output logic [Width-1:0]     eng_rdata_o,
  input  logic                 eng_we_i,
  input  logic [AddrW-1:0]     eng_waddr_i,
  input  logic [WordBytes-1:0] eng_be_i,
  input  logic [Width-1:0]     eng_wdata_i
);

  logic                 re, we;
  logic [AddrW-1:0]     raddr, waddr;
  logic [WordBytes-1:0] be;
  logic [Width-1:0]     wdata, rdata;

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
    .rdata_i (rdata),
    .we_o    (we),
    .waddr_o (waddr),
    .be_o    (be),
    .wdata_o (wdata)
  );

  qacc_sram #(
    .Depth     (Depth),
    .WordBytes (WordBytes)
  ) u_sram (
    .clk_i,
    .re_i    (re),
    .raddr_i (raddr),
    .rdata_o (rdata),
    .we_i    (we),
    .waddr_i (waddr),
    .be_i    (be),
    .wdata_i (wdata)
  );

  assign eng_rdata_o = rdata;

endmodule
