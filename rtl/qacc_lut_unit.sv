// LUT unit (docs/lut.md 10): NumCols lookup lanes over the LUT table SRAM (qacc_lut_sram).
//
// The table SRAM holds Slots slots of 256 entries of 16 bits, 8 entries per 16-byte word: slot s, entry e is
// word 32 s + e / 8, bytes 2 (e mod 8) .. +1 (10.1). Each lane reads its own word per cycle through the
// SRAM's lane ports (replicated dual-port copies, 10.2).
//
// With active_i (the command's ACT = LUT) a lookup beat takes LUT_LATENCY = 2 cycles:
//   cycle t      input beat: the requant output; its lanes' low 8 bits are the codes
//   cycle t + 1  the lanes' word addresses and entry selects registered; the SRAM's lane ports read
//   cycle t + 2  output beat: each lane's entry, its bits [7:0] only for 8-bit entries
// The address of code q is its low LUT_IN_BITS bits (lut.md 2); the configuration comes from the top's
// unit_cfg_q (units.md 21.4) and is stable while the unit holds beats. Without active_i the stage is bypassed
// (lut.md 10.4): it takes no beat, and the out writer's beat (wr_*) is the input beat as it came.
module qacc_lut_unit
  import qacc_pkg::*;
#(
  parameter int unsigned NumRows = 8,
  parameter int unsigned NumCols = 8,
  parameter int unsigned Slots   = 4,
  localparam int unsigned RowIdxW   = $clog2(NumRows),
  localparam int unsigned Depth     = LUT_SLOT_WORDS * Slots,
  localparam int unsigned AddrW     = $clog2(Depth),
  localparam int unsigned WordBytes = LUT_WORD_ENTRIES * LUT_ENTRY_BYTES
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,

  // Command-static fields (lut.md 10.3), legal: validated at fetch.
  input  logic                           active_i,    // ACT = LUT
  input  logic [LUT_SLOT_W-1:0]          slot_i,
  input  logic [LUT_IN_BITS_W-1:0]       in_bits_i,
  input  logic                           entry16_i,   // LUT_ENTRY_BITS = 16

  // Input beat: the requant output row.
  input  logic                           in_valid_i,
  input  logic [RowIdxW-1:0]             in_row_i,
  input  logic                           in_last_i,
  input  logic [NumCols-1:0][31:0]       in_data_i,
  output logic                           in_beat_o,   // a beat taken (PERF_LUT_BUSY)

  // The table SRAM's lane ports (qacc_lut_sram): the words of this cycle's addresses, in the next cycle.
  output logic                           lane_re_o,
  output logic [NumCols-1:0][AddrW-1:0]  lane_addr_o,
  input  logic [NumCols-1:0][8*WordBytes-1:0] lane_rdata_i,

  // Output beat: each lane's entry, zero-extended.
  output logic                           out_valid_o,
  output logic [RowIdxW-1:0]             out_row_o,
  output logic                           out_last_o,
  output logic [NumCols-1:0][15:0]       out_entry_o,

  // The out writer's input beat: the output beat with active_i, else the input beat.
  output logic                           wr_valid_o,
  output logic [RowIdxW-1:0]             wr_row_o,
  output logic                           wr_last_o,
  output logic [NumCols-1:0][31:0]       wr_data_o
);

  localparam int unsigned SelW = $clog2(LUT_WORD_ENTRIES);
  localparam int unsigned EntryAddrW = LUT_MAX_IN_BITS;  // a slot's entries: the widest table's addresses

  // ---- Stage 1: addresses -------------------------------------------------------------------------------------
  logic                                 s1_valid_q, s2_valid_q;
  logic [RowIdxW-1:0]                   s1_row_q, s2_row_q;
  logic                                 s1_last_q, s2_last_q;
  logic [NumCols-1:0][AddrW-1:0]        s1_word_q;
  logic [NumCols-1:0][SelW-1:0]         s1_sel_q, s2_sel_q;

  // The low in_bits of the code: a mask of in_bits ones (2..8 bits).
  logic [EntryAddrW-1:0] in_mask;
  assign in_mask = EntryAddrW'((9'd1 << in_bits_i) - 9'd1);

  assign in_beat_o = in_valid_i && active_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
      s2_valid_q <= 1'b0;
    end else begin
      s1_valid_q <= in_beat_o;
      s2_valid_q <= s1_valid_q;
    end
  end

  // Not reset (spec 10): they travel beside the valid bits.
  always_ff @(posedge clk_i) begin
    s1_row_q  <= in_row_i;
    s1_last_q <= in_last_i;
    s2_row_q  <= s1_row_q;
    s2_last_q <= s1_last_q;
    s2_sel_q  <= s1_sel_q;
    for (int c = 0; c < int'(NumCols); c++) begin
      logic [EntryAddrW-1:0] entry;
      entry = in_data_i[c][7:0] & in_mask;  // the code's low bits, whatever the clamp (10.3)
      s1_word_q[c] <= AddrW'({slot_i, entry[EntryAddrW-1:SelW]});
      s1_sel_q[c]  <= entry[SelW-1:0];
    end
  end

  assign lane_re_o   = s1_valid_q;
  assign lane_addr_o = s1_word_q;

  // ---- Stage 2: the entry select ----------------------------------------------------------------------------------
  for (genvar c = 0; c < int'(NumCols); c++) begin : g_lane
    logic [15:0] entry;
    assign entry = lane_rdata_i[c][16*s2_sel_q[c] +: 16];
    assign out_entry_o[c] = entry16_i ? entry : {8'd0, entry[7:0]};
  end

  assign out_valid_o = s2_valid_q;
  assign out_row_o   = s2_row_q;
  assign out_last_o  = s2_last_q;

  // ---- The out writer's beat -------------------------------------------------------------------------------------
  assign wr_valid_o = active_i ? s2_valid_q : in_valid_i;
  assign wr_row_o   = active_i ? s2_row_q : in_row_i;
  assign wr_last_o  = active_i ? s2_last_q : in_last_i;
  for (genvar c = 0; c < int'(NumCols); c++) begin : g_wr
    assign wr_data_o[c] = active_i ? 32'(out_entry_o[c]) : in_data_i[c];
  end

`ifndef SYNTHESIS
  // The two stages above are LUT_LATENCY.
  Params_A: assert property (@(posedge clk_i) NumCols >= 4 && Slots >= 1 && Slots <= LUT_MAX_SLOTS &&
      LUT_LATENCY == 2);
  // The fields hold while beats are inside (units.md 21.4): the output select reads them in the last stage.
  Config_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      s1_valid_q || s2_valid_q |-> $stable({active_i, slot_i, in_bits_i, entry16_i}));
  // Legal fields only (validated at fetch): 2..8 input bits, a slot below Slots.
  Fields_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      in_beat_o |-> in_bits_i >= LUT_IN_BITS_W'(LUT_MIN_IN_BITS) && in_bits_i <= LUT_IN_BITS_W'(LUT_MAX_IN_BITS)
                     && 32'(slot_i) < Slots);
`endif

endmodule
