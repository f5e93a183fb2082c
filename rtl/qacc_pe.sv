// One processing element of the output-stationary array (spec 2.1, 5.1). The A factor moves right and the B
// factor moves down one PE per cycle; the valid/last flags travel with A. On a valid beat the PE adds
// a * b (10 x 10 -> 20 bits signed, sign-extended) to its 32-bit wrapping accumulator. The last beat of a
// tile writes acc + a * b to the result register and clears the accumulator, so the next tile accumulates
// from the following cycle while the array drains the result registers (double buffering). The K beats of a
// tile arrive in consecutive cycles (spec 7), so the accumulator never holds: outside a beat it is zero.
module qacc_pe
  import qacc_pkg::*;
(
  input  logic                       clk_i,  // no reset: spec 10

  input  logic                       valid_i,
  input  logic                       last_i,
  input  logic signed [FACTOR_W-1:0] a_i,
  input  logic signed [FACTOR_W-1:0] b_i,

  output logic                       valid_o,
  output logic                       last_o,
  output logic signed [FACTOR_W-1:0] a_o,
  output logic signed [FACTOR_W-1:0] b_o,
  output logic signed [ACC_W-1:0]    res_o
);

  logic                       valid_q, last_q;
  logic signed [FACTOR_W-1:0] a_q, b_q;
  logic signed [ACC_W-1:0]    acc_d, acc_q, res_d, res_q;
  logic signed [PROD_W-1:0]   prod;
  logic signed [ACC_W-1:0]    sum;

  always_comb begin
    prod  = a_i * b_i;                // both signed: a signed 20-bit product
    sum   = acc_q + ACC_W'(prod);     // sign-extended; the 32-bit sum wraps (mod 2^32)
    acc_d = '0;
    res_d = res_q;
    if (valid_i) begin
      acc_d = last_i ? '0 : sum;
      if (last_i) begin
        res_d = sum;
      end
    end
  end

  // Not reset (spec 10): the accumulator is zero after the first cycle without a beat, and a command's first beat
  // comes cycles after its launch, so a stray power-on beat (valid, last) touches only an accumulator that is
  // cleared before any command and a result register that only a reset tile-end token drains.
  always_ff @(posedge clk_i) begin
    valid_q <= valid_i;
    acc_q  <= acc_d;
    last_q <= last_i;
    a_q   <= a_i;
    b_q   <= b_i;
    res_q <= res_d;
  end

  assign valid_o = valid_q;
  assign last_o  = last_q;
  assign a_o     = a_q;
  assign b_o     = b_q;
  assign res_o   = res_q;

endmodule
