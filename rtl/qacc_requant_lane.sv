// One requant lane: int32 accumulator -> output code, bit-exact with golden RequantizeAccumulator (spec 5.2).
//
//   stage 1  x   = acc + bias (mod 2^32); pick the shifts: one rounding (single rounding, or shift >= 0) uses
//                  sh1 = 31 - shift, sh2 = 0; double rounding with shift < 0 uses sh1 = 31, sh2 = -shift
//   stage 2  p   = x * mult                                      signed 32 x 32 -> 64, |p| <= 2^62
//   stage 3  r1  = sat32(floor((p + 2^(sh1-1)) / 2^sh1))        half up: single rounding, or gemmlowp SRDHM
//   stage 4  v   = r1 / 2^sh2 rounded half away from zero        gemmlowp RoundingDivideByPOT (sh2 = 0: v = r1)
//            y   = clamp(v + zp_out, clamp_min, clamp_max)       33-bit sum, cannot wrap
//            out = out_raw ? x : y
//
// Latency REQUANT_LATENCY = 4: a beat presented in cycle t is on valid_o/data_o in cycle t + 4; one beat per
// cycle. Every field travels with its beat, so the lane is a pure function of its input beat (the unit feeds
// the command-static fields from the command register; they do not change within a command).
module qacc_requant_lane
  import qacc_pkg::*;
(
  input  logic                       clk_i,
  input  logic                       rst_ni,

  input  logic                       valid_i,
  input  logic signed [ACC_W-1:0]    acc_i,
  input  logic signed [ACC_W-1:0]    bias_i,       // 0 when the command has no bias
  input  logic signed [MULT_W-1:0]   mult_i,       // Q31, legal 0 or 2^30..2^31-1
  input  logic signed [SHIFT_W-1:0]  shift_i,      // legal -31..30
  input  rq_rounding_e               rounding_i,
  input  logic                       out_raw_i,    // 1: output the biased accumulator x
  input  logic signed [31:0]         zp_out_i,
  input  logic signed [31:0]         clamp_min_i,
  input  logic signed [31:0]         clamp_max_i,

  output logic                       valid_o,
  output logic signed [31:0]         data_o
);

  // Shift amounts are 6 bits: sh1 is 1..62 and sh2 0..31 for legal shifts (0..63 and 0..32 for any 6-bit one).
  typedef struct packed {
    logic signed [31:0] x;
    logic signed [31:0] mult;
    logic [5:0]         sh1;
    logic [5:0]         sh2;
    logic               raw;
    logic signed [31:0] zp;
    logic signed [31:0] cmin;
    logic signed [31:0] cmax;
  } stage1_t;

  typedef struct packed {
    logic signed [63:0] prod;
    logic signed [31:0] x;
    logic [5:0]         sh1;
    logic [5:0]         sh2;
    logic               raw;
    logic signed [31:0] zp;
    logic signed [31:0] cmin;
    logic signed [31:0] cmax;
  } stage2_t;

  typedef struct packed {
    logic signed [31:0] r1;
    logic signed [31:0] x;
    logic [5:0]         sh2;
    logic               raw;
    logic signed [31:0] zp;
    logic signed [31:0] cmin;
    logic signed [31:0] cmax;
  } stage3_t;

  logic    valid1_q, valid2_q, valid3_q, valid4_q;
  stage1_t s1_d, s1_q;
  stage2_t s2_d, s2_q;
  stage3_t s3_d, s3_q;
  logic signed [31:0] data_d, data_q;

  // ---- Stage 1: bias add, shift selection ---------------------------------------------------------------------
  logic one_rounding;

  // 31 - shift and -shift are taken mod 64: exact for legal shifts (sh1 1..62, sh2 0..31).
  always_comb begin
    // Golden double rounding with shift >= 0 uses an exact left shift: one half-up rounding, as single rounding.
    one_rounding = (rounding_i == RqRoundSingle) || !shift_i[SHIFT_W-1];

    s1_d.x    = acc_i + bias_i;  // 32-bit wrap, as the golden accumulator
    s1_d.mult = mult_i;
    s1_d.sh1  = one_rounding ? 6'd31 - 6'(shift_i) : 6'd31;
    s1_d.sh2  = one_rounding ? 6'd0 : 6'd0 - 6'(shift_i);
    s1_d.raw  = out_raw_i;
    s1_d.zp   = zp_out_i;
    s1_d.cmin = clamp_min_i;
    s1_d.cmax = clamp_max_i;
  end

  // ---- Stage 2: 32 x 32 -> 64 signed multiply -----------------------------------------------------------------
  logic signed [63:0] x_wide, mult_wide;

  always_comb begin
    x_wide       = 64'(s1_q.x);     // signed operand: sign-extended
    mult_wide    = 64'(s1_q.mult);
    s2_d.prod    = x_wide * mult_wide;
    s2_d.x       = s1_q.x;
    s2_d.sh1     = s1_q.sh1;
    s2_d.sh2     = s1_q.sh2;
    s2_d.raw     = s1_q.raw;
    s2_d.zp      = s1_q.zp;
    s2_d.cmin    = s1_q.cmin;
    s2_d.cmax    = s1_q.cmax;
  end

  // ---- Stage 3: first rounding shift (half up) and saturation to int32 --------------------------------------------
  // 65 bits: p + 2^(sh1-1) <= 2^62 + 2^62 for a legal shift (sh1 >= 1). An illegal per-channel shift of 31 (spec 4:
  // not checked) gives sh1 = 0, where sh1 - 1 wraps to 63: a deterministic result, and p + 2^63 does not wrap.
  logic signed [64:0] round_sum, rounded;
  logic [64:0]        round_half;
  logic               fits_int32;

  always_comb begin
    round_half = 65'd1 << (s2_q.sh1 - 6'd1);
    round_sum  = 65'(s2_q.prod) + signed'(round_half);
    rounded    = round_sum >>> s2_q.sh1;
    // The value fits int32 when bits [64:31] are all copies of the sign.
    fits_int32 = (rounded[64:31] == {34{rounded[64]}});

    s3_d.r1   = fits_int32 ? rounded[31:0] : (rounded[64] ? 32'sh8000_0000 : 32'sh7FFF_FFFF);
    s3_d.x    = s2_q.x;
    s3_d.sh2  = s2_q.sh2;
    s3_d.raw  = s2_q.raw;
    s3_d.zp   = s2_q.zp;
    s3_d.cmin = s2_q.cmin;
    s3_d.cmax = s2_q.cmax;
  end

  // ---- Stage 4: second rounding shift (half away from zero), zero point, clamp, raw select ----------------------
  logic signed [31:0] pot_floor, pot_result;
  logic [63:0]        pot_mask, pot_rem, pot_half;
  logic               pot_inc;
  logic signed [32:0] with_zp, cmin_ext, cmax_ext;
  logic signed [31:0] clamped;

  always_comb begin
    pot_floor = s3_q.r1 >>> s3_q.sh2;
    pot_mask  = (64'd1 << s3_q.sh2) - 64'd1;
    pot_rem   = {32'd0, s3_q.r1} & pot_mask;
    // sh2 = 0: sh2 - 1 wraps to 63, a half of 2^63 above the remainder 0, so no increment.
    pot_half  = 64'd1 << (s3_q.sh2 - 6'd1);
    // Half away from zero: a tie rounds up for x >= 0 and down for x < 0.
    pot_inc   = s3_q.r1[31] ? (pot_rem > pot_half) : (pot_rem >= pot_half);
    // floor <= 2^30 whenever sh2 >= 1, so the increment cannot wrap.
    pot_result = pot_floor + (pot_inc ? 32'sd1 : 32'sd0);

    with_zp  = 33'(pot_result) + 33'(s3_q.zp);
    cmin_ext = 33'(s3_q.cmin);
    cmax_ext = 33'(s3_q.cmax);
    if (with_zp < cmin_ext) begin
      clamped = s3_q.cmin;
    end else if (with_zp > cmax_ext) begin
      clamped = s3_q.cmax;
    end else begin
      clamped = with_zp[31:0];
    end

    data_d = s3_q.raw ? s3_q.x : clamped;
  end

  // ---- Flops -------------------------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid1_q <= 1'b0;
      valid2_q <= 1'b0;
      valid3_q <= 1'b0;
      valid4_q <= 1'b0;
    end else begin
      valid1_q <= valid_i;
      valid2_q <= valid1_q;
      valid3_q <= valid2_q;
      valid4_q <= valid3_q;
    end
  end

  // Datapath flops are not reset (spec 10); they only move when a beat is present.
  always_ff @(posedge clk_i) begin
    if (valid_i) begin
      s1_q <= s1_d;
    end
    if (valid1_q) begin
      s2_q <= s2_d;
    end
    if (valid2_q) begin
      s3_q <= s3_d;
    end
    if (valid3_q) begin
      data_q <= data_d;
    end
  end

  assign valid_o = valid4_q;
  assign data_o  = data_q;

`ifndef SYNTHESIS
  // Legal parameters (golden ValidateRequantParams); the raw path ignores them.
  ShiftRange_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_i && !out_raw_i |-> (shift_i >= SHIFT_W'(MIN_SHIFT)) && (shift_i <= SHIFT_W'(MAX_SHIFT)));
  MultRange_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_i && !out_raw_i |-> (mult_i == '0) || (mult_i[MULT_W-1:MULT_W-2] == 2'b01));
  ClampOrder_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_i && !out_raw_i |-> clamp_min_i <= clamp_max_i);
`endif

endmodule
