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
// Latency REQUANT_LATENCY = 4: a beat presented in cycle t is on data_o in cycle t + 4; one beat per cycle. The
// lane has no valid output: the unit carries one valid pipeline for all its lanes. Every field travels with its
// beat, so the lane is a pure function of its input beat (the unit feeds the command-static fields from the
// command register; they do not change within a command). Widths are those of legal parameters (shift -31..30,
// multiplier 0 or 2^30..2^31-1, spec 4); ShiftRange_A and MultRange_A hold the inputs to them.
module qacc_requant_lane
  import qacc_pkg::*;
(
  input  logic                       clk_i,
  input  logic                       rst_ni,

  input  logic                       valid_i,
  input  logic signed [ACC_W-1:0]    acc_i,
  input  logic signed [ACC_W-1:0]    bias_i,       // 0 when the command has no bias
  input  logic [Q31_FRAC_BITS-1:0]   mult_i,       // Q31, legal 0 or 2^30..2^31-1: 31 bits, unsigned
  input  logic signed [SHIFT_W-1:0]  shift_i,      // legal -31..30
  input  rq_rounding_e               rounding_i,
  input  logic                       out_raw_i,    // 1: output the biased accumulator x
  input  logic signed [31:0]         zp_out_i,
  input  logic signed [31:0]         clamp_min_i,
  input  logic signed [31:0]         clamp_max_i,

  output logic signed [31:0]         data_o
);

  // Shift amounts: sh1 is 1..62 (6 bits) and sh2 0..31 (5 bits) for legal shifts.
  typedef struct packed {
    logic signed [31:0] x;
    logic [30:0]        mult;
    logic [5:0]         sh1;
    logic [4:0]         sh2;
    logic               raw;
    logic signed [31:0] zp;
    logic signed [31:0] cmin;
    logic signed [31:0] cmax;
  } stage1_t;

  typedef struct packed {
    logic signed [63:0] prod;
    logic signed [31:0] x;
    logic [5:0]         sh1;
    logic [4:0]         sh2;
    logic               raw;
    logic signed [31:0] zp;
    logic signed [31:0] cmin;
    logic signed [31:0] cmax;
  } stage2_t;

  typedef struct packed {
    logic signed [31:0] r1;
    logic signed [31:0] x;
    logic [4:0]         sh2;
    logic               raw;
    logic signed [31:0] zp;
    logic signed [31:0] cmin;
    logic signed [31:0] cmax;
  } stage3_t;

  stage1_t s1_d, s1_q;
  stage2_t s2_d, s2_q;
  stage3_t s3_d, s3_q;
  logic signed [31:0] data_d, data_q;

  // ---- Stage 1: bias add, shift selection ---------------------------------------------------------------------
  logic one_rounding;

  // 31 - shift is taken mod 64 and -shift mod 32: exact for legal shifts (sh1 1..62, sh2 0..31).
  always_comb begin
    // Golden double rounding with shift >= 0 uses an exact left shift: one half-up rounding, as single rounding.
    one_rounding = (rounding_i == RqRoundSingle) || !shift_i[SHIFT_W-1];

    s1_d.x    = acc_i + bias_i;  // 32-bit wrap, as the golden accumulator
    s1_d.mult = mult_i;
    s1_d.sh1  = one_rounding ? 6'd31 - 6'(shift_i) : 6'd31;
    s1_d.sh2  = one_rounding ? 5'd0 : 5'd0 - 5'(shift_i);
    s1_d.raw  = out_raw_i;
    s1_d.zp   = zp_out_i;
    s1_d.cmin = clamp_min_i;
    s1_d.cmax = clamp_max_i;
  end

  // ---- Stage 2: 32 x 32 -> 64 signed multiply -----------------------------------------------------------------
  logic signed [63:0] x_wide, mult_wide;

  always_comb begin
    x_wide       = 64'(s1_q.x);     // signed operand: sign-extended
    mult_wide    = 64'(s1_q.mult);  // unsigned: zero-extended
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
  // Exact widths for legal parameters: -2^62 < p < 2^62 and 2^(sh1-1) <= 2^61, so the sum needs 64 bits; after
  // the shift by sh1 >= 1, -2^61 <= rounded < 2^61 needs 62. (Illegal ones, which ShiftRange_A and MultRange_A
  // refuse, give a deterministic result outside the spec.)
  logic signed [63:0] round_sum, round_half;
  logic signed [61:0] rounded;
  logic               fits_int32;

  always_comb begin
    round_half = 64'sd1 <<< (s2_q.sh1 - 6'd1);
    round_sum  = s2_q.prod + round_half;
    rounded    = 62'(round_sum >>> s2_q.sh1);
    // The value fits int32 when bits [61:31] are all copies of its sign: all zeros or all ones.
    fits_int32 = (rounded[61:31] == '0) || (rounded[61:31] == '1);

    s3_d.r1   = fits_int32 ? rounded[31:0] : (rounded[61] ? 32'sh8000_0000 : 32'sh7FFF_FFFF);
    s3_d.x    = s2_q.x;
    s3_d.sh2  = s2_q.sh2;
    s3_d.raw  = s2_q.raw;
    s3_d.zp   = s2_q.zp;
    s3_d.cmin = s2_q.cmin;
    s3_d.cmax = s2_q.cmax;
  end

  // ---- Stage 4: second rounding shift (half away from zero), zero point, clamp, raw select ----------------------
  logic signed [31:0] pot_floor, pot_result;
  logic [31:0]        pot_mask, pot_rem, pot_half;
  logic               pot_inc;
  logic signed [32:0] with_zp;
  logic signed [31:0] clamped;

  always_comb begin
    pot_floor = s3_q.r1 >>> s3_q.sh2;
    pot_mask  = (32'd1 << s3_q.sh2) - 32'd1;
    pot_rem   = s3_q.r1 & pot_mask;
    // sh2 = 0: sh2 - 1 wraps to 31, a half of 2^31 above the remainder 0, so no increment.
    pot_half  = 32'd1 << (s3_q.sh2 - 5'd1);
    // Half away from zero: a tie rounds up for x >= 0 and down for x < 0.
    pot_inc   = s3_q.r1[31] ? (pot_rem > pot_half) : (pot_rem >= pot_half);
    // floor <= 2^30 whenever sh2 >= 1, so the increment cannot wrap.
    pot_result = pot_floor + (pot_inc ? 32'sd1 : 32'sd0);

    with_zp  = 33'(pot_result) + 33'(s3_q.zp);
    data_d = s3_q.raw ? s3_q.x : clamped;
  end

  qacc_clamp u_clamp (
    .value_i (with_zp),
    .min_i   (s3_q.cmin),
    .max_i   (s3_q.cmax),
    .value_o (clamped)
  );

  // ---- Flops -------------------------------------------------------------------------------------------------
  // Datapath flops are not reset (spec 10). Stage 1 loads only with a beat (its clock enable, spec 10.1); the later
  // stages need none: their inputs change only in the cycle after the stage before them loaded a beat.
  always_ff @(posedge clk_i) begin
    if (valid_i) begin
      s1_q <= s1_d;
    end
    s2_q   <= s2_d;
    s3_q   <= s3_d;
    data_q <= data_d;
  end

  assign data_o = data_q;

`ifndef SYNTHESIS
  // Legal parameters (golden ValidateRequantParams); the raw path ignores them.
  ShiftRange_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_i && !out_raw_i |-> (shift_i >= SHIFT_W'(MIN_SHIFT)) && (shift_i <= SHIFT_W'(MAX_SHIFT)));
  MultRange_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_i && !out_raw_i |-> (mult_i == '0) || mult_i[Q31_FRAC_BITS-1]);
  ClampOrder_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_i && !out_raw_i |-> clamp_min_i <= clamp_max_i);
  // Clock enable (spec 10.1): the input stage holds without a beat.
  Stage1Hold_A: assert property (@(posedge clk_i) disable iff (!rst_ni) !valid_i |=> $stable(s1_q));
`endif

endmodule
