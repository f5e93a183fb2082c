// Clamp of a 34-bit value to [min, max] (spec 5.2: y = clamp(v + ZP_OUT, CLAMP_MIN, CLAMP_MAX); the TPU-MLIR
// form's v has 33 bits, requant.md 6.1), as
// min(max(value, min), max). Each comparison picks between two equal values at equality, so `<` and `<=` (and
// `>` and `>=`) are interchangeable whatever the bounds. A leaf with no package and no parameters, so that qacc
// validate's yosys equivalence check can read it (docs/validate.md).
module qacc_clamp (
  input  logic signed [33:0] value_i,
  input  logic signed [31:0] min_i,    // min_i <= max_i (ClampOrder_A of the lane)
  input  logic signed [31:0] max_i,
  output logic signed [31:0] value_o
);

  logic signed [33:0] raised;  // max(value, min)

  always_comb begin
    raised  = (value_i < 34'(min_i)) ? 34'(min_i) : value_i;
    value_o = (raised > 34'(max_i)) ? max_i : raised[31:0];
  end

endmodule
