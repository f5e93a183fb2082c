// Whether a slope stage configuration is legal (requant.md 6.2, golden SlopeRegistersLegal): for each side its
// form's rules on the multiplier and shift (as the first stage's BAD_REQUANT, MULT_WIDTH and RSHIFT_RANGE), and
// the clamp ordered and within the int8 mode's bounds. Combinational. Checked on a SET's values at fetch, and on
// the registers for a GEMM with ACT = SLOPE that no SET into the block precedes (BAD_SLOPE).
module qacc_slope_check
  import qacc_pkg::*;
(
  input  slope_cfg_t cfg_i,
  output logic       legal_o
);

  // The zero point, K and ROUNDING of a side are never illegal (K is 9 bits wide: every value is legal).
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic side_legal(slope_side_t s);
    logic mult_fits;
    unique case (s.mult_width)
      MultW8:  mult_fits = (s.mult[MULT_W-1:7] == '0) || (s.mult[MULT_W-1:7] == '1);
      MultW16: mult_fits = (s.mult[MULT_W-1:15] == '0) || (s.mult[MULT_W-1:15] == '1);
      default: mult_fits = s.mult_width == MultW32;  // 3 names no width
    endcase
    if (s.form == RqFormTpuMlir) begin
      return mult_fits && s.rshift_round != 3'd7 && $unsigned(s.shift) <= SHIFT_W'(MAX_RQ_RSHIFT);
    end
    return (s.mult == '0 || s.mult[MULT_W-1:MULT_W-2] == 2'b01) &&
           $signed(s.shift) >= SHIFT_W'(MIN_SHIFT) && $signed(s.shift) <= SHIFT_W'(MAX_SHIFT);
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  function automatic logic bound_legal(logic signed [31:0] v);
    return (v >= MIN_INT8_MODE_CLAMP) && (v <= MAX_INT8_MODE_CLAMP);
  endfunction

  assign legal_o = side_legal(cfg_i.pos) && side_legal(cfg_i.neg) && cfg_i.clamp_min <= cfg_i.clamp_max &&
                   bound_legal(cfg_i.clamp_min) && bound_legal(cfg_i.clamp_max);

endmodule
