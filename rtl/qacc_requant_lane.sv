// One requant lane: int32 accumulator -> output code, bit-exact with golden RequantizeAccumulator in both of its
// forms (spec 5.2, requant.md 6.1). One datapath serves both: each form only chooses the multiplier's extension,
// the shift amounts and the rounding mode of stage 3.
//
//   stage 1  x   = acc + bias (mod 2^32); the multiplier m, the shifts and stage 3's mode:
//                  TFLite form: m = the Q31 multiplier (31 bits, zero-extended), mode half up; one rounding (single
//                  rounding, or shift >= 0) uses sh1 = 31 - shift, sh2 = 0; double rounding with shift < 0 uses
//                  sh1 = 31, sh2 = -shift
//                  TPU-MLIR form: m = the low MULT_WIDTH bits of the multiplier word, sign-extended; sh1 = rshift,
//                  sh2 = 0, mode RSHIFT_ROUND
//   stage 2  p   = x * m                                         signed 32 x 32 -> 64, |p| <= 2^62
//   stage 3  r1  = floor(p / 2^sh1) + the mode's increment      saturated to int32 (TFLite: gemmlowp SRDHM or the
//                                                                single rounding) or to 33 bits (TPU-MLIR)
//   stage 4  v   = r1 / 2^sh2 rounded half away from zero        gemmlowp RoundingDivideByPOT (sh2 = 0: v = r1)
//            y   = clamp(v + zp_out, clamp_min, clamp_max)       34-bit sum, cannot wrap
//            out = out_raw ? x : y
//
// TPU-MLIR adds the zero point to the unsaturated int64 quotient: no int32 saturation may sit between. Beyond
// -2^32..2^32-1 the sum with any int32 zero point lies beyond any int32 clamp bound, so the quotient saturated
// to 33 bits gives the same code as the int64 one. A saturated value is its sign's: all ones or all zeros below
// the sign bit, never a chosen constant.
//
// Latency REQUANT_LATENCY = 4: a beat presented in cycle t is on data_o in cycle t + 4; one beat per cycle. The
// lane has no valid output: the unit carries one valid pipeline for all its lanes. Every field travels with its
// beat, so the lane is a pure function of its input beat (the unit feeds the command-static fields from the
// command register; they do not change within a command). Widths are those of legal parameters (spec 4,
// requant.md 6.1); ShiftRange_A, MultRange_A, RshiftRange_A and MultWidth_A hold the inputs to them.
module qacc_requant_lane
  import qacc_pkg::*;
(
  input  logic                       clk_i,
  input  logic                       rst_ni,

  input  logic                       valid_i,
  input  logic signed [ACC_W-1:0]    acc_i,
  input  logic signed [ACC_W-1:0]    bias_i,         // 0 when the command has no bias
  input  logic [MULT_W-1:0]          mult_i,         // TFLite: Q31, legal 0 or 2^30..2^31-1; TPU-MLIR: low bits
  input  logic [SHIFT_W-1:0]         shift_i,        // TFLite: two's complement, legal -31..30; TPU-MLIR: 0..63
  input  rq_form_e                   form_i,
  input  rq_rounding_e               rounding_i,     // TFLite form
  input  rshift_round_e              rshift_round_i, // TPU-MLIR form
  input  mult_width_e                mult_width_i,   // TPU-MLIR form
  input  logic                       out_raw_i,      // 1: output the biased accumulator x
  input  logic signed [31:0]         zp_out_i,
  input  logic signed [31:0]         clamp_min_i,
  input  logic signed [31:0]         clamp_max_i,

  output logic signed [31:0]         data_o
);

  // Shift amounts: sh1 is 0..63 (6 bits) and sh2 0..31 (5 bits) for legal parameters.
  typedef struct packed {
    logic signed [31:0] x;
    logic signed [31:0] mult;
    logic [5:0]         sh1;
    logic [4:0]         sh2;
    rshift_round_e      mode;
    logic               tpu;    // TPU-MLIR form: stage 3 keeps 33 bits and the side of a larger quotient
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
    rshift_round_e      mode;
    logic               tpu;
    logic               raw;
    logic signed [31:0] zp;
    logic signed [31:0] cmin;
    logic signed [31:0] cmax;
  } stage2_t;

  typedef struct packed {
    logic signed [32:0] r1;
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

  // ---- Stage 1: bias add, the form's multiplier, shifts and mode ----------------------------------------------
  logic one_rounding, tpu;

  // 31 - shift is taken mod 64 and -shift mod 32: exact for legal shifts (sh1 1..62, sh2 0..31).
  always_comb begin
    tpu = form_i == RqFormTpuMlir;
    // Golden double rounding with shift >= 0 uses an exact left shift: one half-up rounding, as single rounding.
    one_rounding = (rounding_i == RqRoundSingle) || !shift_i[SHIFT_W-1];

    s1_d.x     = acc_i + bias_i;  // 32-bit wrap, as the golden accumulator
    if (!tpu) begin
      s1_d.mult = 32'(mult_i[Q31_FRAC_BITS-1:0]);
      s1_d.sh1  = one_rounding ? 6'd31 - 6'(shift_i) : 6'd31;
      s1_d.sh2  = one_rounding ? 5'd0 : 5'd0 - 5'(shift_i);
      s1_d.mode = RshRoundHalfUp;
    end else begin
      unique case (mult_width_i)
        MultW8:   s1_d.mult = 32'(signed'(mult_i[7:0]));
        MultW16:  s1_d.mult = 32'(signed'(mult_i[15:0]));
        default: s1_d.mult = mult_i;
      endcase
      s1_d.sh1  = shift_i[5:0];
      s1_d.sh2  = 5'd0;
      s1_d.mode = rshift_round_i;
    end
    s1_d.tpu   = tpu;
    s1_d.raw   = out_raw_i;
    s1_d.zp    = zp_out_i;
    s1_d.cmin  = clamp_min_i;
    s1_d.cmax  = clamp_max_i;
  end

  // ---- Stage 2: 32 x 32 -> 64 signed multiply -----------------------------------------------------------------
  logic signed [63:0] x_wide, mult_wide;

  always_comb begin
    x_wide       = 64'(s1_q.x);     // signed operands: sign-extended
    mult_wide    = 64'(s1_q.mult);
    s2_d.prod    = x_wide * mult_wide;
    s2_d.x       = s1_q.x;
    s2_d.sh1     = s1_q.sh1;
    s2_d.sh2     = s1_q.sh2;
    s2_d.mode    = s1_q.mode;
    s2_d.tpu     = s1_q.tpu;
    s2_d.raw     = s1_q.raw;
    s2_d.zp      = s1_q.zp;
    s2_d.cmin    = s1_q.cmin;
    s2_d.cmax    = s1_q.cmax;
  end

  // ---- Stage 3: first rounding shift in the beat's mode, saturation ----------------------------------------------
  // floor(p / 2^sh1) plus one where the discarded bits ask for it: rem is what the floor discards, compared with
  // the half 2^(sh1-1) (sh1 = 0: the half wraps to 2^63, above rem = 0, and nothing is discarded).
  logic signed [62:0] floor_v, rounded;
  logic [63:0]        rem, half;
  logic               neg, above, tie, inexact, inc, fits32, fits33;

  always_comb begin
    floor_v = 63'(s2_q.prod >>> s2_q.sh1);
    rem     = s2_q.prod & ((64'd1 << s2_q.sh1) - 64'd1);
    half    = 64'd1 << (s2_q.sh1 - 6'd1);
    neg     = s2_q.prod[63];
    above   = rem > half;
    tie     = rem == half;
    inexact = rem != '0;
    unique case (s2_q.mode)
      RshRoundHalfAwayFromZero: inc = above || (tie && !neg);
      RshRoundHalfUp:           inc = above || tie;
      RshRoundHalfDown:         inc = above;
      RshRoundHalfToEven:       inc = above || (tie && floor_v[0]);
      RshRoundTowardsZero:      inc = neg && inexact;
      RshRoundUp:               inc = inexact;
      default:                  inc = 1'b0;  // down: the floor
    endcase
    rounded = floor_v + 63'(inc);
    // 63 bits hold every quotient but 2^62 (x = m = -2^31 at rshift 0), which they read as -2^62: both lie beyond
    // 33 bits, and the saturation takes the product's sign. A value fits when its bits from the range's top down
    // to the width's sign bit are all equal: the TFLite form's |p| < 2^62 with sh1 >= 1 keeps |rounded| <= 2^61
    // (bits 62..61 equal but for 2^61 itself, which bit 61 alone rules out).
    fits32  = (rounded[61:31] == '0) || (rounded[61:31] == '1);
    fits33  = (rounded[62:32] == '0) || (rounded[62:32] == '1);

    // The quotient's sign is the product's. Saturated: the sign, then its complement (33 or 32 bits).
    if (s2_q.tpu) begin
      s3_d.r1 = fits33 ? rounded[32:0] : {neg, {32{!neg}}};
    end else begin
      s3_d.r1 = fits32 ? 33'(signed'(rounded[31:0])) : {neg, neg, {31{!neg}}};
    end
    s3_d.x    = s2_q.x;
    s3_d.sh2  = s2_q.sh2;
    s3_d.raw  = s2_q.raw;
    s3_d.zp   = s2_q.zp;
    s3_d.cmin = s2_q.cmin;
    s3_d.cmax = s2_q.cmax;
  end

  // ---- Stage 4: second rounding shift (half away from zero), zero point, clamp, raw select ----------------------
  // sh2 is not 0 only in the TFLite form, where r1 is an int32.
  // The remainder has sh2 <= 31 bits: 31 bits of r1 and of the mask. Its sign: r1 is an int32 whenever sh2 is not
  // 0 (bit 31 is its sign); with sh2 = 0 the remainder is 0 and no sign matters.
  logic signed [32:0] pot_floor, pot_result;
  logic [30:0]        pot_mask, pot_rem;
  logic [31:0]        pot_half;
  logic               pot_inc;
  logic signed [33:0] with_zp;
  logic signed [31:0] clamped;

  always_comb begin
    pot_floor = s3_q.r1 >>> s3_q.sh2;
    pot_mask  = (31'd1 << s3_q.sh2) - 31'd1;  // sh2 = 31: 2^31 wraps to 0, the mask to all ones
    pot_rem   = s3_q.r1[30:0] & pot_mask;
    // sh2 = 0: sh2 - 1 wraps to 31, a half of 2^31 above the remainder 0, so no increment.
    pot_half  = 32'd1 << (s3_q.sh2 - 5'd1);
    // Half away from zero: a tie rounds up for x >= 0 and down for x < 0.
    pot_inc   = s3_q.r1[31] ? ({1'b0, pot_rem} > pot_half) : ({1'b0, pot_rem} >= pot_half);
    // floor <= 2^30 whenever sh2 >= 1, so the increment cannot wrap.
    pot_result = pot_floor + (pot_inc ? 33'sd1 : 33'sd0);

    with_zp  = 34'(pot_result) + 34'(s3_q.zp);
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
      valid_i && !out_raw_i && !tpu |->
      (signed'(shift_i) >= SHIFT_W'(MIN_SHIFT)) && (signed'(shift_i) <= SHIFT_W'(MAX_SHIFT)));
  MultRange_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_i && !out_raw_i && !tpu |-> (mult_i == '0) || (mult_i[MULT_W-1:Q31_FRAC_BITS-1] == 2'b01));
  RshiftRange_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_i && !out_raw_i && tpu |-> shift_i <= SHIFT_W'(MAX_RQ_RSHIFT));
  MultWidth_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_i && !out_raw_i && tpu |-> mult_width_i inside {MultW8, MultW16, MultW32} &&
      (mult_width_i == MultW32 || int'(s1_d.mult) == int'(mult_i)) && rshift_round_i != 3'd7);
  ClampOrder_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_i && !out_raw_i |-> clamp_min_i <= clamp_max_i);
  // Clock enable (spec 10.1): the input stage holds without a beat.
  Stage1Hold_A: assert property (@(posedge clk_i) disable iff (!rst_ni) !valid_i |=> $stable(s1_q));
`endif

endmodule
