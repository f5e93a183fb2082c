// The LUT unit's RTL unit test bench (tests/rtl/lut_unit_test.cc): qacc_lut_unit's lanes over a qacc_lut_sram,
// whose engine port the test drives as the DMA does (engine_sel_i = 1, no host window).
module qacc_lut_unit_tb
  import qacc_pkg::*;
#(
  parameter int unsigned NumRows = 8,
  parameter int unsigned NumCols = 8,
  parameter int unsigned Slots   = 4,
  localparam int unsigned RowIdxW   = $clog2(NumRows),
  localparam int unsigned AddrW     = $clog2(LUT_SLOT_WORDS * Slots),
  localparam int unsigned WordBytes = LUT_WORD_ENTRIES * LUT_ENTRY_BYTES
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic                           we_i,
  input  logic [AddrW-1:0]               waddr_i,
  input  logic [WordBytes-1:0]           be_i,
  input  logic [8*WordBytes-1:0]         wdata_i,
  input  logic                           re_i,
  input  logic [AddrW-1:0]               raddr_i,
  output logic [8*WordBytes-1:0]         rdata_o,
  input  logic [LUT_SLOT_W-1:0]          slot_i,
  input  logic [LUT_IN_BITS_W-1:0]       in_bits_i,
  input  logic                           entry16_i,
  input  logic                           in_valid_i,
  input  logic [RowIdxW-1:0]             in_row_i,
  input  logic                           in_last_i,
  input  logic [NumCols-1:0][7:0]        in_code_i,
  output logic                           out_valid_o,
  output logic [RowIdxW-1:0]             out_row_o,
  output logic                           out_last_o,
  output logic [NumCols-1:0][15:0]       out_entry_o
);

  logic                                 lane_re;
  logic [NumCols-1:0][AddrW-1:0]        lane_addr;
  logic [NumCols-1:0][8*WordBytes-1:0]  lane_rdata;
  logic [31:0]                          unused_host_rdata;
  logic [NumCols-1:0][31:0]             in_data, wr_data;
  logic                                 in_beat, wr_valid, wr_last;
  logic [RowIdxW-1:0]                   wr_row;
  logic                                 unused_wr;

  // The codes in the requant beat's low bytes, its high bits random-looking: only the low bits address.
  for (genvar c = 0; c < int'(NumCols); c++) begin : g_in
    assign in_data[c] = {in_code_i[c] ^ 8'h5A, in_code_i[c] ^ 8'hC3, in_code_i[c] ^ 8'h96, in_code_i[c]};
  end
  // The unit is active here: the writer's beat is the output beat (lut_unit_test.cc reads out_*).
  assign unused_wr = ^{in_beat, wr_valid, wr_row, wr_last, wr_data};

  qacc_lut_sram #(
    .NumCols (NumCols),
    .Slots   (Slots)
  ) u_sram (
    .clk_i,
    .rst_ni,
    .engine_sel_i (1'b1),
    .host_re_i    (1'b0),
    .host_we_i    (1'b0),
    .host_off_i   ('0),
    .host_wdata_i ('0),
    .host_wstrb_i ('0),
    .host_rdata_o (unused_host_rdata),
    .eng_re_i     (re_i),
    .eng_raddr_i  (raddr_i),
    .eng_rdata_o  (rdata_o),
    .eng_we_i     (we_i),
    .eng_waddr_i  (waddr_i),
    .eng_be_i     (be_i),
    .eng_wdata_i  (wdata_i),
    .lane_re_i    (lane_re),
    .lane_addr_i  (lane_addr),
    .lane_rdata_o (lane_rdata)
  );

  qacc_lut_unit #(
    .NumRows (NumRows),
    .NumCols (NumCols),
    .Slots   (Slots)
  ) u_lut (
    .clk_i,
    .rst_ni,
    .active_i     (1'b1),
    .slot_i,
    .in_bits_i,
    .entry16_i,
    .in_valid_i,
    .in_row_i,
    .in_last_i,
    .in_data_i    (in_data),
    .in_beat_o    (in_beat),
    .lane_re_o    (lane_re),
    .lane_addr_o  (lane_addr),
    .lane_rdata_i (lane_rdata),
    .out_valid_o,
    .out_row_o,
    .out_last_o,
    .out_entry_o,
    .wr_valid_o   (wr_valid),
    .wr_row_o     (wr_row),
    .wr_last_o    (wr_last),
    .wr_data_o    (wr_data)
  );

endmodule
