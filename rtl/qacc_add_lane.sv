// One lane of ELTWISE's add (docs/lut.md 10.5): two int8 or uint8 operand codes -> the add's code, bit for bit
// golden's Add (golden/add.h) followed by the command's clamp, in either form. ADD_LANE_LATENCY = 3 stages:
//
//   form tflite (TFLite's quantized Add, left shift, three multiplier/shift pairs):
//     1: x_a = (q_a - Z_a) << left_shift, h_a = SRDHM(x_a, M_a)                  likewise b
//     2: s = RDivPOT(h_a, -shift_a) + RDivPOT(h_b, -shift_b), h_y = SRDHM(s, M_y)
//     3: y = clamp(RDivPOT(h_y, -shift_y) + Z_y)
//   form seed-symmetric (seed 002, 8-bit multipliers, one rshift, the int16 intermediate):
//     1: t = sat16 or wrap16(q_a M_a + q_b M_b)
//     2: r = RoundingRightShift(t, rshift, rounding)
//     3: y = clamp(r)
//
// SRDHM is gemmlowp's SaturatingRoundingDoublingHighMul and RDivPOT its RoundingDivideByPOT (golden/requant.h).
// The fields come from the command, validated at fetch (lut.md 10.5: Q31 multipliers 0 or [2^30, 2^31),
// shifts -31..0, left_shift 0..20, seed multipliers 0..127, rshift 0..62, rounding 0..4, the clamp inside the
// result's type) and stable while the lane holds data; the lane has no valid pipeline (its unit carries one).
module qacc_add_lane
  import qacc_pkg::*;
(
  input  logic                     clk_i,

  input  logic [7:0]               a_i,
  input  logic [7:0]               b_i,

  input  logic                     seed_i,         // FORM: 1 seed-symmetric, 0 tflite
  input  logic                     a_unsigned_i,
  input  logic                     b_unsigned_i,
  input  logic signed [8:0]        zp_a_i,
  input  logic signed [8:0]        zp_b_i,
  input  logic signed [8:0]        zp_y_i,
  input  logic [4:0]               left_shift_i,
  input  logic [31:0]              mult_a_i,
  input  logic [31:0]              mult_b_i,
  input  logic [31:0]              mult_y_i,
  input  logic signed [5:0]        shift_a_i,
  input  logic signed [5:0]        shift_b_i,
  input  logic signed [5:0]        shift_y_i,
  input  logic [5:0]               rshift_i,
  input  logic [2:0]               rounding_i,     // golden's kAllRoundingModes order
  input  logic                     wrap_i,
  input  logic signed [8:0]        clamp_min_i,
  input  logic signed [8:0]        clamp_max_i,

  output logic signed [8:0]        y_o
);

  // ---- gemmlowp's two primitives -------------------------------------------------------------------------------
  // SaturatingRoundingDoublingHighMul: (a b + nudge) / 2^31 truncated toward zero, nudge 2^30 or 1 - 2^30 by the
  // product's sign; the one overflow, INT32_MIN squared, saturates.
  function automatic logic signed [31:0] srdhm(logic signed [31:0] a, logic signed [31:0] b);
    logic signed [63:0] ab, sum, q;
    ab  = 64'(a) * 64'(b);
    sum = ab + (ab >= 0 ? 64'sd1073741824 : -64'sd1073741823);
    q   = sum >>> 31;
    if (sum < 0 && sum[30:0] != '0) q = q + 64'sd1;  // an arithmetic shift floors; the division truncates
    if (a == 32'sh8000_0000 && b == 32'sh8000_0000) q = 64'sd2147483647;
    return q[31:0];
  endfunction

  // RoundingDivideByPOT(x, e), e in 0..31: floor(x / 2^e), plus one when the remainder passes the threshold.
  function automatic logic signed [31:0] rdivpot(logic signed [31:0] x, logic [4:0] e);
    logic [31:0] mask, remainder, threshold;
    mask      = (32'd1 << e) - 32'd1;
    remainder = x & mask;
    threshold = (mask >> 1) + {31'd0, x[31]};
    return (x >>> e) + (remainder > threshold ? 32'sd1 : 32'sd0);
  endfunction

  // An operand byte as its code.
  function automatic logic signed [8:0] code(logic [7:0] byte_i, logic is_unsigned);
    return is_unsigned ? {1'b0, byte_i} : {byte_i[7], byte_i};
  endfunction

  // ---- Stage 1 -------------------------------------------------------------------------------------------------
  logic signed [31:0] h_a_q, h_b_q;   // tflite
  logic signed [15:0] t_q;            // seed

  always_ff @(posedge clk_i) begin
    logic signed [8:0]  qa, qb;
    logic signed [9:0]  da, db;
    logic signed [31:0] xa, xb;
    logic signed [17:0] sum;
    qa = code(a_i, a_unsigned_i);
    qb = code(b_i, b_unsigned_i);
    // |q - Z| <= 511, so the shifted value stays below 2^30.
    da = 10'(qa) - 10'(zp_a_i);
    db = 10'(qb) - 10'(zp_b_i);
    xa = 32'(da) <<< left_shift_i;
    xb = 32'(db) <<< left_shift_i;
    h_a_q <= srdhm(xa, mult_a_i);
    h_b_q <= srdhm(xb, mult_b_i);
    // Seed: 8-bit multipliers (0..127), |sum| <= 2 * 255 * 127.
    sum = 18'(qa) * 18'(signed'(mult_a_i[7:0])) + 18'(qb) * 18'(signed'(mult_b_i[7:0]));
    if (wrap_i) begin
      t_q <= sum[15:0];
    end else if (sum > 18'sd32767) begin
      t_q <= 16'sh7FFF;
    end else if (sum < -18'sd32768) begin
      t_q <= 16'sh8000;
    end else begin
      t_q <= sum[15:0];
    end
  end

  // ---- Stage 2 -------------------------------------------------------------------------------------------------
  logic signed [31:0] s2_q;  // tflite: h_y; seed: r

  // RoundingRightShift(t, rshift, mode) of an int16: shifts from 17 on give what 17 gives (floor 0 or -1, the
  // remainder past every threshold for a negative t, below them for a positive one).
  function automatic logic signed [31:0] round_shift(logic signed [15:0] t, logic [5:0] rshift, logic [2:0] mode);
    logic [4:0]         s;
    logic signed [31:0] x, floor_q;
    logic [31:0]        rem, half;
    logic               up;
    s       = rshift > 6'd17 ? 5'd17 : rshift[4:0];
    x       = 32'(t);
    floor_q = x >>> s;
    rem     = 32'(x) & ((32'd1 << s) - 32'd1);
    half    = s == 0 ? 32'd0 : 32'd1 << (s - 5'd1);
    case (mode)
      3'd0:    up = s != 0 && (rem > half || (rem == half && !t[15]));  // half away from zero
      3'd1:    up = s != 0 && (rem > half || (rem == half && floor_q[0]));  // half to even
      3'd2:    up = s != 0 && rem >= half;                              // half up
      3'd3:    up = t[15] && rem != 0;                                  // toward zero
      default: up = 1'b0;                                               // floor
    endcase
    return floor_q + (up ? 32'sd1 : 32'sd0);
  endfunction

  always_ff @(posedge clk_i) begin
    logic signed [31:0] s;
    if (seed_i) begin
      s2_q <= round_shift(t_q, rshift_i, rounding_i);
    end else begin
      s = rdivpot(h_a_q, 5'(-shift_a_i)) + rdivpot(h_b_q, 5'(-shift_b_i));
      s2_q <= srdhm(s, mult_y_i);
    end
  end

  // ---- Stage 3 -------------------------------------------------------------------------------------------------
  logic signed [8:0] y_q;

  always_ff @(posedge clk_i) begin
    logic signed [33:0] y;
    y = seed_i ? 34'(s2_q) : 34'(rdivpot(s2_q, 5'(-shift_y_i))) + 34'(zp_y_i);
    if (y < 34'(clamp_min_i)) begin
      y_q <= clamp_min_i;
    end else if (y > 34'(clamp_max_i)) begin
      y_q <= clamp_max_i;
    end else begin
      y_q <= y[8:0];
    end
  end

  assign y_o = y_q;

`ifndef SYNTHESIS
  // The three stages above are the spec's ADD_LANE_LATENCY.
  Latency_A: assert property (@(posedge clk_i) ADD_LANE_LATENCY == 3);
`endif

endmodule
