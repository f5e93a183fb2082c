// The slope stage (requant.md 6.2): LeakyReLU's second stage after requant, NumCols lanes. With active_i (the
// command's ACT = SLOPE) a beat takes SLOPE_LATENCY = 5 cycles:
//   cycle t      input beat: requant's output codes q (-128..255 for a legal command)
//   cycle t + 1  per lane d = q - zp_in (10 bits), its side (d < 0: NEG), x = d * K[side] (18 bits) registered
//   cycle t + 5  the side's first-stage form on x, + ZP[side], the shared clamp: four stages of qacc_requant_lane,
//                the first stage's own module, with the side's fields selected by the registered side
// With per_channel_i (SLOPE_PER_CHANNEL, requant.md 6.3) the NEG side's multiplier, shift and (TFLite form) K's
// sign come from the tile's slope word in the rq SRAM, word_i in the cycle word_valid_i (O(t,0) + 1): each lane
// keeps it in `staged`, and copies it to `active` when row 0 of the tile enters (Q(t,0)). Row 0's stage 0 reads
// `staged`, every later row and the requant stages read `active`, so the previous tile's rows keep their word.
// Without active_i the stage is bypassed: it takes no beat, and the out writer's beat (wr_*) is the input beat as
// it came. The configuration (the slope registers and ZP_OUT) comes from the top's unit_cfg_q (units.md 21.4) and
// is stable while the unit holds beats; it is legal for every beat taken (validated at fetch: BAD_SLOPE).
module qacc_slope_unit
  import qacc_pkg::*;
#(
  parameter int unsigned NumRows = 8,
  parameter int unsigned NumCols = 8,
  localparam int unsigned RowIdxW = $clog2(NumRows)
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,

  input  logic                           active_i,   // ACT = SLOPE
  input  slope_cfg_t                     cfg_i,
  input  logic signed [31:0]             zp_in_i,    // ZP_OUT: the input codes' zero point, -128..255
  input  logic                           per_channel_i,  // SLOPE_PER_CHANNEL: the NEG side from word_i
  input  logic                           word_valid_i,   // the tile's slope word is on word_i (O(t,0) + 1)
  input  logic [NumCols-1:0][63:0]       word_i,         // lane c: [31:0] multiplier word, [39:32] shift

  // Input beat: the requant output row (through the LUT unit's bypass).
  input  logic                           in_valid_i,
  input  logic [RowIdxW-1:0]             in_row_i,
  input  logic                           in_last_i,
  input  logic [NumCols-1:0][31:0]       in_data_i,
  output logic                           in_beat_o,  // a beat taken (PERF_SLOPE_BUSY)

  // Output beat: each lane's code.
  output logic                           out_valid_o,
  output logic [RowIdxW-1:0]             out_row_o,
  output logic                           out_last_o,
  output logic [NumCols-1:0][31:0]       out_data_o,

  // The out writer's input beat: the output beat with active_i, else the input beat.
  output logic                           wr_valid_o,
  output logic [RowIdxW-1:0]             wr_row_o,
  output logic                           wr_last_o,
  output logic [NumCols-1:0][31:0]       wr_data_o
);

  localparam int unsigned DW = 10;  // d = q - zp_in: -383..383
  localparam int unsigned KW = SLOPE_K_W + 1;  // K or -K: -256..256
  localparam int unsigned XW = 18;  // x = d * K: |x| <= 383 * 256 < 2^17

  assign in_beat_o = in_valid_i && active_i;

  // ---- The valid pipeline: stage 0 (d, side, x) and the lane's four ----------------------------------------------
  logic [SLOPE_LATENCY-1:0]              valid_q;
  logic [SLOPE_LATENCY-1:0][RowIdxW-1:0] row_q;
  logic [SLOPE_LATENCY-1:0]              last_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
    end else begin
      valid_q <= {valid_q[SLOPE_LATENCY-2:0], in_beat_o};
    end
  end

  // Not reset (spec 10): they travel beside the valid bits.
  always_ff @(posedge clk_i) begin
    row_q  <= {row_q[SLOPE_LATENCY-2:0], in_row_i};
    last_q <= {last_q[SLOPE_LATENCY-2:0], in_last_i};
  end

  // ---- Lanes ------------------------------------------------------------------------------------------------------
  for (genvar c = 0; c < int'(NumCols); c++) begin : g_lane
    logic signed [DW-1:0] d;
    logic signed [XW-1:0] x_q;
    logic                 neg_q;
    logic signed [KW-1:0] k, k_neg;
    logic                 negate;
    slope_side_t          side;
    logic [MULT_W-1:0]    mult;
    logic [SHIFT_W-1:0]   shift;

    // The tile's slope word (requant.md 6.3): staged from the read, active from row 0's entry on.
    logic [MULT_W-1:0]    staged_mult_q, active_mult_q;
    logic [SHIFT_W-1:0]   staged_shift_q, active_shift_q;

    // Not reset (spec 10): read only with per_channel_i, after the tile's read. `active` loads whenever the input's
    // row is 0: at row 0's beat, or between beats, after the previous tile's last row has entered (a load then is
    // overwritten at row 0's beat before any use).
    always_ff @(posedge clk_i) begin
      if (word_valid_i) begin
        staged_mult_q  <= word_i[c][MULT_W-1:0];
        staged_shift_q <= word_i[c][32 +: SHIFT_W];
      end
      if (in_row_i == '0) begin
        active_mult_q  <= staged_mult_q;
        active_shift_q <= staged_shift_q;
      end
    end

    // Both are 9-bit values for a legal command (codes and ZP_OUT within -128..255).
    assign d = DW'(signed'(in_data_i[c][8:0])) - DW'(signed'(zp_in_i[8:0]));
    // The TFLite form's NEGATE (bit 31): row 0 reads the staged word, the tile's later rows the active one.
    assign negate = per_channel_i && cfg_i.neg.form == RqFormTflite &&
                    (in_row_i == '0 ? staged_mult_q[MULT_W-1] : active_mult_q[MULT_W-1]);
    assign k_neg  = negate ? -KW'(cfg_i.neg.k) : KW'(cfg_i.neg.k);
    assign k      = d[DW-1] ? k_neg : KW'(cfg_i.pos.k);

    // Stage 0 loads only with a beat (its clock enable, spec 10.1).
    always_ff @(posedge clk_i) begin
      if (in_beat_o) begin
        neg_q <= d[DW-1];
        x_q   <= XW'(d) * XW'(k);  // the low 18 bits of the product: all of it for legal inputs
      end
    end

    assign side = neg_q ? cfg_i.neg : cfg_i.pos;
    // The NEG side's multiplier and shift per channel: the active word, its NEGATE bit cleared in the TFLite form.
    always_comb begin
      mult  = side.mult;
      shift = side.shift;
      if (neg_q && per_channel_i) begin
        mult  = active_mult_q;
        shift = active_shift_q;
        if (cfg_i.neg.form == RqFormTflite) mult[MULT_W-1] = 1'b0;
      end
    end
`ifndef SYNTHESIS
    // Clock enable (spec 10.1): stage 0 holds without a beat.
    Stage0Hold_A: assert property (@(posedge clk_i) disable iff (!rst_ni) !in_beat_o |=> $stable({x_q, neg_q}));
`endif
    logic unused_k;  // K was stage 0's; the word's bits above the shift are not a field
    assign unused_k = ^{side.k, word_i[c][63:32+SHIFT_W]};

    qacc_requant_lane u_lane (
      .clk_i,
      .rst_ni,
      .valid_i        (valid_q[0]),
      .acc_i          (ACC_W'(x_q)),
      .bias_i         ('0),
      .mult_i         (mult),
      .shift_i        (shift),
      .form_i         (side.form),
      .rounding_i     (side.rounding),
      .rshift_round_i (side.rshift_round),
      .mult_width_i   (side.mult_width),
      .out_raw_i      (1'b0),
      .zp_out_i       (side.zp),
      .clamp_min_i    (cfg_i.clamp_min),
      .clamp_max_i    (cfg_i.clamp_max),
      .data_o         (out_data_o[c])
    );
  end

  assign out_valid_o = valid_q[SLOPE_LATENCY-1];
  assign out_row_o   = row_q[SLOPE_LATENCY-1];
  assign out_last_o  = last_q[SLOPE_LATENCY-1];

  // ---- The out writer's beat -------------------------------------------------------------------------------------
  assign wr_valid_o = active_i ? out_valid_o : in_valid_i;
  assign wr_row_o   = active_i ? out_row_o : in_row_i;
  assign wr_last_o  = active_i ? out_last_o : in_last_i;
  assign wr_data_o  = active_i ? out_data_o : in_data_i;

`ifndef SYNTHESIS
  // Stage 0 and the requant lane's four stages are SLOPE_LATENCY.
  Params_A: assert property (@(posedge clk_i) SLOPE_LATENCY == 1 + REQUANT_LATENCY && NumCols >= 1);
  // The configuration holds while beats are inside (units.md 21.4).
  Config_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_q != '0 |-> $stable({active_i, cfg_i, zp_in_i, per_channel_i}));
  // The tile's word arrives before its row 0 enters and after the previous tile's row 0 (P >= R >= 4).
  WordTiming_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      word_valid_i |-> !(in_beat_o && in_row_i == '0));
  // Legal inputs only (validated at fetch): codes of the int8 mode's clamp, and ZP_OUT within the same range.
  Inputs_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      in_beat_o |-> zp_in_i >= MIN_INT8_MODE_CLAMP && zp_in_i <= MAX_INT8_MODE_CLAMP);
`endif

endmodule
