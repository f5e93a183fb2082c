// Validation of a GEMM command (spec 4, with the LUT stage's rules of lut.md 10.4 and the slope stage's of
// requant.md 6.2): the first failing check of the table in its order sets the error code, and the derived tile
// counts the controller sequences.
// Combinational. Used by the controller in cycle 0 of a command and by the fetcher on every GEMM descriptor of a
// program (data_movement.md 17.2).
module qacc_gemm_check
  import qacc_pkg::*;
#(
  parameter int unsigned NumRows   = 8,
  parameter int unsigned NumCols   = 8,
  parameter int unsigned ADepth    = 8192,
  parameter int unsigned BDepth    = 8192,
  parameter int unsigned BiasDepth = 256,
  parameter int unsigned RqDepth   = 256,
  parameter int unsigned OutDepth  = 8192,
  parameter int unsigned LutSlots  = 4,
  localparam int unsigned CntW     = DIM_W + 1
) (
  input  cmd_t            cmd_i,
  input  logic            slope_ok_i,  // the slope registers the command will read are legal (requant.md 6.2)
  output err_code_e       err_code_o,
  output logic [CntW-1:0] mb_cnt_o,  // MB = ceil(M / R)
  output logic [CntW-1:0] nb_cnt_o,  // NB = ceil(N / C)
  output logic [31:0]     tiles_o    // T = MB * NB
);

  localparam int unsigned RowsLog2 = $clog2(NumRows);
  localparam int unsigned ColsLog2 = $clog2(NumCols);
  localparam int unsigned WideW    = 40;  // range checks: base (20 bits) + up to 2^32 words

  logic [WideW-1:0] a_need, b_need, bias_need, rq_need, out_need;
  logic [1:0]       rq_words;
  logic             lut, lut16;  // ACT = LUT; with 16-bit entries: the int16 layout (lut.md 10.6)
  logic             slope;       // ACT = SLOPE
  err_code_e        act_err;     // the activation's checks: UNIT_ABSENT, the LUT fields' or BAD_SLOPE

  assign lut   = cmd_i.act == ActLut;
  assign lut16 = lut && cmd_i.lut_entry_bits == MODE_LUT_ENTRY_BITS_W'(16);
  assign slope = cmd_i.act == ActSlope;

  // UNIT_ABSENT, the LUT fields' checks and BAD_SLOPE exclude each other (by ACT), so they are one step of the
  // chain below: a step of its own each would be branches that never both hold.
  always_comb begin
    if (slope) begin
      // The input codes' zero point (d must be a 10-bit value) and the registers.
      act_err = (!clamp_in_int8_mode(cmd_i.zp_out) || !slope_ok_i) ? ErrBadSlope : ErrNone;
    end else if (!lut) begin
      act_err = (cmd_i.act != ActNone) ? ErrUnitAbsent : ErrNone;
    end else if (32'(cmd_i.lut_slot) >= LutSlots) begin
      act_err = ErrLutSlot;
    end else if (cmd_i.lut_in_bits < MODE_LUT_IN_BITS_W'(LUT_MIN_IN_BITS) ||
                 cmd_i.lut_in_bits > MODE_LUT_IN_BITS_W'(LUT_MAX_IN_BITS)) begin
      act_err = ErrLutInBits;
    end else if (cmd_i.lut_entry_bits != MODE_LUT_ENTRY_BITS_W'(8) && !lut16) begin
      act_err = ErrLutEntryBits;
    end else begin
      act_err = ErrNone;
    end
  end

  assign mb_cnt_o = (CntW'(cmd_i.m) + CntW'(NumRows - 1)) >> RowsLog2;
  assign nb_cnt_o = (CntW'(cmd_i.n) + CntW'(NumCols - 1)) >> ColsLog2;
  assign tiles_o  = 32'(mb_cnt_o) * 32'(nb_cnt_o);

  assign a_need    = WideW'(cmd_i.a_base) + WideW'(mb_cnt_o) * WideW'(cmd_i.k);
  assign b_need    = WideW'(cmd_i.b_base) + WideW'(nb_cnt_o) * WideW'(cmd_i.k);
  assign bias_need = WideW'(cmd_i.bias_base) + WideW'(nb_cnt_o);
  // S rq words per column tile (requant.md 6.3): PER_CHANNEL's, then the slope's.
  assign rq_words  = 2'(cmd_i.per_channel) + 2'(slope && cmd_i.slope_per_channel);
  assign rq_need   = WideW'(cmd_i.rq_base) + (rq_words[1] ? WideW'(nb_cnt_o) << 1 : WideW'(nb_cnt_o));
  // Out words: R a tile raw, R / 2 in the int16 layout, R / 4 in the int8 layout (6.3, 10.6).
  assign out_need  = WideW'(cmd_i.out_base) +
                     (cmd_i.out_raw ? (WideW'(tiles_o) << RowsLog2) :
                      lut16         ? (WideW'(tiles_o) << (RowsLog2 - 1)) :
                                      (WideW'(tiles_o) << (RowsLog2 - 2)));

  function automatic logic clamp_in_int8_mode(logic signed [31:0] v);
    return (v >= MIN_INT8_MODE_CLAMP) && (v <= MAX_INT8_MODE_CLAMP);
  endfunction
  function automatic logic zp_legal(logic signed [ZP_W-1:0] zp);  // 9 bits: -256..255
    return (int'(zp) >= MIN_OPERAND_ZP) && (int'(zp) <= MAX_OPERAND_ZP);
  endfunction

  always_comb begin
    logic tpu, form_bad, clamp_bad, tpu_tensor, mult_fits;
    tpu = cmd_i.rq_form == RqFormTpuMlir;
    // TFLite: the shift and the per-tensor Q31 multiplier; TPU-MLIR: the width and mode encodings.
    if (!tpu) begin
      form_bad = (cmd_i.shift < SHIFT_W'(MIN_SHIFT)) || (cmd_i.shift > SHIFT_W'(MAX_SHIFT)) ||
                 (!cmd_i.per_channel && (cmd_i.mult != '0) && (cmd_i.mult[MULT_W-1:MULT_W-2] != 2'b01));
    end else begin
      form_bad = (cmd_i.mult_width == 2'd3) || (cmd_i.rshift_round == 3'd7);
    end
    clamp_bad = (cmd_i.clamp_min > cmd_i.clamp_max) || !clamp_in_int8_mode(cmd_i.clamp_min) ||
                !clamp_in_int8_mode(cmd_i.clamp_max);
    // The per-tensor checks of the TPU-MLIR form (MULT_WIDTH, RSHIFT_RANGE). The multiplier fits MULT_WIDTH
    // signed bits when the bits above its sign bit are copies of it (requant.md 6.1); a 32-bit one always fits.
    tpu_tensor = !cmd_i.out_raw && tpu && !cmd_i.per_channel;
    unique case (cmd_i.mult_width)
      MultW8:  mult_fits = (cmd_i.mult[MULT_W-1:7] == '0) || (cmd_i.mult[MULT_W-1:7] == '1);
      MultW16: mult_fits = (cmd_i.mult[MULT_W-1:15] == '0) || (cmd_i.mult[MULT_W-1:15] == '1);
      default: mult_fits = 1'b1;
    endcase
    if (cmd_i.op != OpGemm) begin
      err_code_o = ErrBadOpcode;  // first: the checks below read the fields of a GEMM
    end else if (cmd_i.m == '0 || cmd_i.n == '0 || cmd_i.k == '0 || ((lut || slope) && cmd_i.out_raw)) begin
      err_code_o = ErrBadShape;
    end else if (a_need > WideW'(ADepth)) begin
      err_code_o = ErrARange;
    end else if (b_need > WideW'(BDepth)) begin
      err_code_o = ErrBRange;
    end else if (cmd_i.bias_en && bias_need > WideW'(BiasDepth)) begin
      err_code_o = ErrBiasRange;
    end else if (rq_words != '0 && rq_need > WideW'(RqDepth)) begin
      err_code_o = ErrRqRange;
    end else if (out_need > WideW'(OutDepth)) begin
      err_code_o = ErrOutRange;
    end else if (!cmd_i.out_raw && (form_bad || clamp_bad)) begin
      err_code_o = ErrBadRequant;
    end else if (tpu_tensor && !mult_fits) begin
      err_code_o = ErrMultWidth;
    end else if (tpu_tensor && $unsigned(cmd_i.shift) > SHIFT_W'(MAX_RQ_RSHIFT)) begin
      err_code_o = ErrRshiftRange;
    end else if (!zp_legal(cmd_i.a_zp) || !zp_legal(cmd_i.b_zp)) begin
      err_code_o = ErrBadZp;
    end else begin
      err_code_o = act_err;  // ErrNone when the activation's checks pass
    end
  end

  // Only the range, requant, zero-point and activation fields are checked here.
  logic unused_fields;
  assign unused_fields = ^{cmd_i.rounding, cmd_i.a_unsigned, cmd_i.b_unsigned};

endmodule
