// Requant unit: one qacc_requant_lane per array column (spec 5.2, 8; requant.md 6.1). A beat is one array row
// of NumCols accumulators; it leaves REQUANT_LATENCY cycles later with its row index. The form and per-tensor or
// per-channel multiplier and shift are selected per command; the bias word is masked when the command has no
// bias.
module qacc_requant_unit
  import qacc_pkg::*;
#(
  parameter int unsigned NumRows = 8,
  parameter int unsigned NumCols = 8,
  localparam int unsigned RowIdxW = $clog2(NumRows)
) (
  input  logic                                   clk_i,
  input  logic                                   rst_ni,

  // Input beat: a MAC array output row plus the bias and rq SRAM words of its tile.
  input  logic                                   in_valid_i,
  input  logic [RowIdxW-1:0]                     in_row_i,
  input  logic                                   in_last_i,
  input  logic [NumCols-1:0][ACC_W-1:0]          in_acc_i,
  input  logic [NumCols-1:0][ACC_W-1:0]          in_bias_i,
  input  logic [NumCols-1:0][MULT_W-1:0]         in_mult_i,     // the rq lanes' multiplier words
  input  logic [NumCols-1:0][SHIFT_W-1:0]        in_shift_i,    // and their shift bytes

  // Command-static fields (stable while the unit holds beats).
  input  logic                                   per_channel_i,
  input  logic                                   bias_en_i,
  input  rq_form_e                               form_i,
  input  rq_rounding_e                           rounding_i,
  input  rshift_round_e                          rshift_round_i,
  input  mult_width_e                            mult_width_i,
  input  logic                                   out_raw_i,
  input  logic [MULT_W-1:0]                      mult_i,
  input  logic [SHIFT_W-1:0]                     shift_i,
  input  logic signed [31:0]                     zp_out_i,
  input  logic signed [31:0]                     clamp_min_i,
  input  logic signed [31:0]                     clamp_max_i,

  // Output beat.
  output logic                                   out_valid_o,
  output logic [RowIdxW-1:0]                     out_row_o,
  output logic                                   out_last_o,
  output logic [NumCols-1:0][31:0]               out_data_o
);

  for (genvar c = 0; c < NumCols; c++) begin : g_lane
    logic signed [ACC_W-1:0]   lane_bias;
    logic [MULT_W-1:0]         lane_mult;
    logic [SHIFT_W-1:0]        lane_shift;

    assign lane_bias  = bias_en_i ? signed'(in_bias_i[c]) : '0;
    assign lane_mult  = per_channel_i ? in_mult_i[c] : mult_i;
    assign lane_shift = per_channel_i ? in_shift_i[c] : shift_i;

    qacc_requant_lane u_lane (
      .clk_i,
      .rst_ni,
      .valid_i     (in_valid_i),
      .acc_i       (signed'(in_acc_i[c])),
      .bias_i      (lane_bias),
      .mult_i      (lane_mult),
      .shift_i     (lane_shift),
      .form_i,
      .rounding_i,
      .rshift_round_i,
      .mult_width_i,
      .out_raw_i,
      .zp_out_i,
      .clamp_min_i,
      .clamp_max_i,
      .data_o      (out_data_o[c])
    );
  end

  // One valid pipeline for all lanes, with the lanes' latency; row index and last flag travel beside it.
  logic [REQUANT_LATENCY-1:0]              valid_q;
  logic [REQUANT_LATENCY-1:0][RowIdxW-1:0] row_q;
  logic [REQUANT_LATENCY-1:0]              last_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
    end else begin
      valid_q <= {valid_q[REQUANT_LATENCY-2:0], in_valid_i};
    end
  end

  // Not reset (spec 10): they travel beside the valid bits.
  always_ff @(posedge clk_i) begin
    row_q  <= {row_q[REQUANT_LATENCY-2:0], in_row_i};
    last_q <= {last_q[REQUANT_LATENCY-2:0], in_last_i};
  end

  assign out_valid_o = valid_q[REQUANT_LATENCY-1];
  assign out_row_o   = row_q[REQUANT_LATENCY-1];
  assign out_last_o  = last_q[REQUANT_LATENCY-1];

`ifndef SYNTHESIS
  Params_A: assert property (@(posedge clk_i) NumRows >= 4 && NumCols >= 4 &&
      (NumRows & (NumRows - 1)) == 0 && (NumCols & (NumCols - 1)) == 0);
`endif

endmodule
