// Validation of an ELTWISE descriptor (lut.md 10.5), bit for bit golden's ValidateEltwise: the first failing check
// in this order is the error. Combinational; qacc_desc_check uses it on every ELTWISE descriptor at fetch.
//   1  BAD_SHAPE       COUNT = 0, or OP = 3
//   2  OUT_RANGE       source a, source b (with an add) or the result past OutDepth
//   3  ELT_OVERLAP     the result shares a word with a source, other than exactly in place
//   4  LUT_SLOT, LUT_IN_BITS, LUT_ENTRY_BITS      with a lookup (lut.md 10.3)
//   5  BAD_ADD         with an add: the clamp reversed or outside the result's type, or a field of the form outside
//                      its range
// The result takes 2 COUNT words with a lookup of 16-bit entries (the int16 layout, 10.6), whatever the other
// fields: the sizes of checks 2 and 3 do not wait for check 4.
module qacc_elt_check
  import qacc_pkg::*;
#(
  parameter int unsigned OutDepth = 8192,
  parameter int unsigned LutSlots = 4
) (
  input  eltwise_desc_t desc_i,
  output err_code_e     err_code_o
);

  // OP (lut.md 10.5): 0 LUT, 1 ADD, 2 ADD_LUT; 3 is BAD_SHAPE.
  localparam logic [1:0] EltLut = 2'd0, EltAdd = 2'd1, EltAddLut = 2'd2, EltBad = 2'd3;
  // Word counts: a 20-bit base plus up to 2 * 65535 words, far from overflowing.
  localparam int unsigned WideW = 32;
  // The add's legal fields (golden: lut_unit.cc AddFieldsLegal; add.h, requant.h, quant.h).
  localparam logic [31:0]        SeedMultMax  = 32'd127;  // seed multipliers: 8-bit signed, not negative
  localparam logic [5:0]         RshiftMax    = 6'd62;    // kMaxRshift
  localparam logic [2:0]         RoundingMax  = 3'd4;     // the five kAllRoundingModes
  localparam logic [4:0]         LeftShiftMax = 5'd20;    // kTfliteAddLeftShift
  localparam logic signed [5:0]  AddShiftMin  = -6'sd31;  // tflite shifts: -31..0 (a right shift only)
  localparam logic signed [5:0]  AddShiftMax  = 6'sd0;

  logic             has_add, lookup, lut16;
  logic [WideW-1:0] count, result;  // source words; result words: COUNT, or 2 COUNT in the int16 layout
  err_code_e        lut_err;        // the LUT fields' checks
  logic             add_bad;

  assign has_add = desc_i.op == EltAdd || desc_i.op == EltAddLut;
  assign lookup  = desc_i.op == EltLut || desc_i.op == EltAddLut;
  assign lut16   = lookup && desc_i.lut_entry_bits == ELTWISE_LUT_ENTRY_BITS_W'(16);
  assign count   = WideW'(desc_i.count);
  assign result  = lut16 ? count << 1 : count;

  // [dst, dst + result) and [src, src + count) share a word, and not as the exact in-place case (DST = the source,
  // the result as long as it): there each word is read before it is written, elsewhere a word may be written first.
  function automatic logic overlaps(logic [CMD_BASE_W-1:0] src, logic [CMD_BASE_W-1:0] dst,
                                    logic [WideW-1:0] src_words, logic [WideW-1:0] dst_words);
    return WideW'(dst) < WideW'(src) + src_words && WideW'(src) < WideW'(dst) + dst_words &&
           !(dst == src && dst_words == src_words);
  endfunction

  // The same three checks as a GEMM's with ACT = LUT (qacc_gemm_check), in their order.
  always_comb begin
    if (32'(desc_i.lut_slot) >= LutSlots) begin
      lut_err = ErrLutSlot;
    end else if (desc_i.lut_in_bits < ELTWISE_LUT_IN_BITS_W'(LUT_MIN_IN_BITS) ||
                 desc_i.lut_in_bits > ELTWISE_LUT_IN_BITS_W'(LUT_MAX_IN_BITS)) begin
      lut_err = ErrLutInBits;
    end else if (desc_i.lut_entry_bits != ELTWISE_LUT_ENTRY_BITS_W'(8) &&
                 desc_i.lut_entry_bits != ELTWISE_LUT_ENTRY_BITS_W'(16)) begin
      lut_err = ErrLutEntryBits;
    end else begin
      lut_err = ErrNone;
    end
  end

  // A tflite multiplier is 0 or normalised Q31, [2^30, 2^31), as the requant unit's (architecture.md 4).
  function automatic logic q31(logic [31:0] mult);
    return mult == '0 || mult[31:30] == 2'b01;
  endfunction
  function automatic logic add_shift_ok(logic signed [5:0] shift);
    return shift >= AddShiftMin && shift <= AddShiftMax;
  endfunction

  // The clamp lies inside the result's 8-bit type (uint8 or int8), so the add's own clamp to it is this one.
  always_comb begin
    logic signed [8:0] y_min, y_max;
    logic              clamp_bad, seed_bad, tflite_bad;
    y_min      = desc_i.y_unsigned ? 9'sd0 : -9'sd128;
    y_max      = desc_i.y_unsigned ? 9'sd255 : 9'sd127;
    clamp_bad  = desc_i.clamp_min > desc_i.clamp_max || desc_i.clamp_min < y_min || desc_i.clamp_max > y_max;
    seed_bad   = desc_i.mult_a > SeedMultMax || desc_i.mult_b > SeedMultMax || desc_i.rshift > RshiftMax ||
                 desc_i.rounding > RoundingMax;
    tflite_bad = !q31(desc_i.mult_a) || !q31(desc_i.mult_b) || !q31(desc_i.mult_y) ||
                 !add_shift_ok(desc_i.shift_a) || !add_shift_ok(desc_i.shift_b) || !add_shift_ok(desc_i.shift_y) ||
                 desc_i.left_shift > LeftShiftMax;
    add_bad    = clamp_bad || (desc_i.form ? seed_bad : tflite_bad);  // the fields of the other form are ignored
  end

  always_comb begin
    if (desc_i.count == '0 || desc_i.op == EltBad) begin
      err_code_o = ErrBadShape;
    end else if (WideW'(desc_i.src_a) + count > WideW'(OutDepth) ||
                 (has_add && WideW'(desc_i.src_b) + count > WideW'(OutDepth)) ||
                 WideW'(desc_i.dst) + result > WideW'(OutDepth)) begin
      err_code_o = ErrOutRange;
    end else if (overlaps(desc_i.src_a, desc_i.dst, count, result) ||
                 (has_add && overlaps(desc_i.src_b, desc_i.dst, count, result))) begin
      err_code_o = ErrEltOverlap;
    end else if (lookup && lut_err != ErrNone) begin
      err_code_o = lut_err;
    end else if (has_add && add_bad) begin
      err_code_o = ErrBadAdd;
    end else begin
      err_code_o = ErrNone;
    end
  end

  // The operands' signedness, the zero points and WRAP have no illegal value.
  logic unused_fields;
  assign unused_fields = ^{desc_i.a_unsigned, desc_i.b_unsigned, desc_i.wrap, desc_i.zp_a, desc_i.zp_b, desc_i.zp_y};

endmodule
