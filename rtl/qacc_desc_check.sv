// Validation of a descriptor at fetch (data_movement.md 11-13, 17.2): the checks of its opcode in their order,
// the first failing one is the error. Combinational.
//   GEMM          the command's checks (architecture.md 4, qacc_gemm_check)
//   LOAD, STORE   BAD_SHAPE, BAD_SRAM, the SRAM's range code, EXT_ALIGN, EXT_RANGE (12)
//   MOVE          BAD_SHAPE, BAD_SRAM, OUT_RANGE, A_RANGE / B_RANGE (13)
//   SET           BAD_SHAPE, BAD_SET (units.md 19.4), BAD_SLOPE (its values into the slope block, requant.md 6.2)
//   ELTWISE       BAD_SHAPE, OUT_RANGE, ELT_OVERLAP, the LUT fields', BAD_ADD (lut.md 10.5, qacc_elt_check)
//   6..15         BAD_OPCODE
module qacc_desc_check
  import qacc_pkg::*;
#(
  parameter int unsigned NumRows   = 8,
  parameter int unsigned NumCols   = 8,
  parameter int unsigned ADepth    = 8192,
  parameter int unsigned BDepth    = 8192,
  parameter int unsigned BiasDepth = 256,
  parameter int unsigned RqDepth   = 256,
  parameter int unsigned OutDepth  = 8192,
  parameter int unsigned LutSlots  = 4
) (
  input  desc_t     desc_i,
  input  logic      slope_ok_i,  // a GEMM's slope registers will be legal at its start (requant.md 6.2)
  output err_code_e err_code_o
);

  localparam int unsigned RowsLog2 = $clog2(NumRows);
  localparam int unsigned ColsLog2 = $clog2(NumCols);
  localparam int unsigned UnitW    = 40;  // SRAM units: base (20 bits) + two 16 x 20 bit products
  localparam int unsigned ExtW     = 52;  // external bytes: 32 bits + two 16 x 32 bit products

  // ---- GEMM ---------------------------------------------------------------------------------------------------
  err_code_e        gemm_err;
  logic [DIM_W:0]   unused_mb, unused_nb;
  logic [31:0]      unused_tiles;

  // The fields of each layout (generated decoders, rtl/qacc_desc_fields.sv).
  cmd_t gemm;
  qacc_gemm_cmd u_gemm_cmd (.desc_i, .fields_o(gemm));

  qacc_gemm_check #(
    .NumRows   (NumRows),
    .NumCols   (NumCols),
    .ADepth    (ADepth),
    .BDepth    (BDepth),
    .BiasDepth (BiasDepth),
    .RqDepth   (RqDepth),
    .OutDepth  (OutDepth),
    .LutSlots  (LutSlots)
  ) u_gemm (
    .cmd_i      (gemm),
    .slope_ok_i (slope_ok_i),
    .err_code_o (gemm_err),
    .mb_cnt_o   (unused_mb),
    .nb_cnt_o   (unused_nb),
    .tiles_o    (unused_tiles)
  );

  // ---- LOAD / STORE ---------------------------------------------------------------------------------------------
  dma_desc_t        dma;
  err_code_e        dma_err;
  logic [3:0]       unit_log2;   // log2 U
  logic [UnitW-1:0] units;       // units in the SRAM
  err_code_e        range_err;
  logic [UnitW-1:0] last_unit;
  logic [ExtW-1:0]  last_byte;
  logic [31:0]      unit_mask;

  qacc_dma_fields u_dma_fields (.desc_i, .fields_o(dma));

  assign unit_log2 = dma_unit_log2(dma.sram, dma.out_int32, dma.out_int16, RowsLog2, ColsLog2);

  always_comb begin
    units     = UnitW'(ADepth);
    range_err = ErrARange;
    unique case (dma.sram)
      SRAM_ID_W'(RegionA): begin
        units     = UnitW'(ADepth);
        range_err = ErrARange;
      end
      SRAM_ID_W'(RegionB): begin
        units     = UnitW'(BDepth);
        range_err = ErrBRange;
      end
      SRAM_ID_W'(RegionBias): begin
        units     = UnitW'(BiasDepth);
        range_err = ErrBiasRange;
      end
      SRAM_ID_W'(RegionRq): begin
        units     = UnitW'(RqDepth);
        range_err = ErrRqRange;
      end
      SRAM_ID_W'(RegionOut): begin
        units     = dma.out_int32 ? UnitW'(OutDepth) : dma.out_int16 ? UnitW'(2 * OutDepth) : UnitW'(4 * OutDepth);
        range_err = ErrOutRange;
      end
      SRAM_ID_W'(RegionLut): begin
        units     = UnitW'(LUT_SLOT_WORDS * LutSlots);
        range_err = ErrLutRange;
      end
      default: ;  // BAD_SRAM, checked before the range
    endcase
    last_unit = UnitW'(dma.sram_base) + (UnitW'(dma.count0) - UnitW'(1)) +
                (UnitW'(dma.count1) - UnitW'(1)) * UnitW'(dma.sram_stride1) +
                (UnitW'(dma.count2) - UnitW'(1)) * UnitW'(dma.sram_stride2);
    last_byte = ExtW'(dma.ext_addr) + (ExtW'(dma.count0) << unit_log2) - ExtW'(1) +
                (ExtW'(dma.count1) - ExtW'(1)) * ExtW'(dma.ext_stride1) +
                (ExtW'(dma.count2) - ExtW'(1)) * ExtW'(dma.ext_stride2);
    unit_mask = (32'(1) << unit_log2) - 1'b1;
    // OUT_INT32 with OUT_INT16: the reserved unit (lut.md 10.6), whatever the SRAM.
    if (dma.count0 == '0 || dma.count1 == '0 || dma.count2 == '0 || (dma.out_int32 && dma.out_int16)) begin
      dma_err = ErrBadShape;
    end else if (dma.sram < SRAM_ID_W'(RegionA) || dma.sram > SRAM_ID_W'(RegionLut)) begin
      dma_err = ErrBadSram;
    end else if (last_unit >= units) begin
      dma_err = range_err;
    end else if (((dma.ext_addr | dma.ext_stride1 | dma.ext_stride2) & unit_mask) != '0) begin
      dma_err = ErrExtAlign;
    end else if (last_byte[ExtW-1:32] != '0) begin
      dma_err = ErrExtRange;
    end else begin
      dma_err = ErrNone;
    end
  end

  // ---- MOVE -----------------------------------------------------------------------------------------------------
  move_desc_t       mv;
  err_code_e        move_err;
  logic             into_a, into_b;
  logic [UnitW-1:0] last_entry, last_word;

  qacc_move_fields u_move_fields (.desc_i, .fields_o(mv));

  always_comb begin
    into_a     = mv.dst == SRAM_ID_W'(RegionA);
    into_b     = mv.dst == SRAM_ID_W'(RegionB);
    last_entry = UnitW'(mv.src_base) + (UnitW'(mv.count1) - UnitW'(1)) * UnitW'(mv.src_stride1) +
                 (UnitW'(mv.count2) - UnitW'(1)) * UnitW'(mv.src_stride2) + UnitW'(NumRows) - UnitW'(1);
    last_word  = UnitW'(mv.dst_base) + (UnitW'(mv.count1) - UnitW'(1)) * UnitW'(mv.dst_stride1) +
                 (UnitW'(mv.count2) - UnitW'(1)) * UnitW'(mv.dst_stride2) + (UnitW'(mv.count0) - UnitW'(1));
    if (mv.count0 == '0 || mv.count1 == '0 || mv.count2 == '0 ||
        (into_a && 32'(mv.count0) > NumCols) || (into_b && 32'(mv.count0) > NumRows)) begin
      move_err = ErrBadShape;
    end else if (!into_a && !into_b) begin
      move_err = ErrBadSram;
    end else if ((mv.src_base[1:0] | mv.src_stride1[1:0] | mv.src_stride2[1:0]) != 2'b00 ||
                 last_entry > UnitW'(4 * OutDepth - 1)) begin
      move_err = ErrOutRange;
    end else if (into_a && last_word >= UnitW'(ADepth)) begin
      move_err = ErrARange;
    end else if (into_b && last_word >= UnitW'(BDepth)) begin
      move_err = ErrBRange;
    end else begin
      move_err = ErrNone;
    end
  end

  // ---- ELTWISE --------------------------------------------------------------------------------------------------
  eltwise_desc_t elt;
  err_code_e     elt_err;

  qacc_eltwise_fields u_elt_fields (.desc_i, .fields_o(elt));

  qacc_elt_check #(
    .OutDepth (OutDepth),
    .LutSlots (LutSlots)
  ) u_elt (
    .desc_i     (elt),
    .err_code_o (elt_err)
  );

  // ---- SET ------------------------------------------------------------------------------------------------------
  // REG and COUNT by part-selects at their generated positions (set_fields() would copy the descriptor each cycle).
  logic [SET_REG_W-1:0]   set_reg;
  logic [SET_COUNT_W-1:0] set_count;
  err_code_e              set_err;

  assign set_reg   = desc_i.w[SET_REG_WORD][SET_REG_LSB +: SET_REG_W];
  assign set_count = desc_i.w[SET_COUNT_WORD][SET_COUNT_LSB +: SET_COUNT_W];
  // The one block a SET can write (set_regs_ok) is the slope stage's: its values must be a legal slope.
  slope_cfg_t set_slope;
  logic       set_slope_legal;
  // VALUE[i] is word SET_VALUE_WORD + i: the registers in offset order (requant.md 6.2).
  assign set_slope.pos       = slope_side_of(desc_i.w[SET_VALUE_WORD +: 4]);
  assign set_slope.neg       = slope_side_of(desc_i.w[SET_VALUE_WORD + 4 +: 4]);
  assign set_slope.clamp_min = desc_i.w[SET_VALUE_WORD + 8];
  assign set_slope.clamp_max = desc_i.w[SET_VALUE_WORD + 9];
  qacc_slope_check u_set_slope (.cfg_i(set_slope), .legal_o(set_slope_legal));

  assign set_err   = (set_count == '0 || 32'(set_count) > MAX_SET_COUNT) ? ErrBadShape :
                     !set_regs_ok(set_reg, set_count)                 ? ErrBadSet :
                     !set_slope_legal                                 ? ErrBadSlope : ErrNone;

  always_comb begin
    unique case (desc_i.op)
      OpGemm:          err_code_o = gemm_err;
      OpLoad, OpStore: err_code_o = dma_err;
      OpMove:          err_code_o = move_err;
      OpSet:           err_code_o = set_err;
      OpEltwise:       err_code_o = elt_err;
      default:         err_code_o = ErrBadOpcode;
    endcase
  end

  // Words 12..14 are GEMM fields only; the index and the token flags are not checked.
  logic unused_desc;
  assign unused_desc = ^{unused_mb, unused_nb, unused_tiles, desc_i.index, desc_i.wait_tok, desc_i.signal,
                         last_byte[31:0]};

endmodule
