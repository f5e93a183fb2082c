// The rows of a DMA command (data_movement.md 12, 17.4): row (i1, i2) in the order i2, i1 starts at external byte
// EXT_ADDR + i1 * EXT_STRIDE1 + i2 * EXT_STRIDE2 and SRAM unit SRAM_BASE + i1 * SRAM_STRIDE1 + i2 * SRAM_STRIDE2.
// Validation keeps both inside 32 and 20 bits for every row, so the running sums never wrap. The outputs show the
// first row in the cycle of init_i (the command's start cycle), and after next_i the following row.
module qacc_dma_rows
  import qacc_pkg::*;
(
  input  logic                  clk_i,
  input  logic                  init_i,
  input  logic                  next_i,
  input  dma_desc_t             desc_i,
  output logic [31:0]           ext_o,
  output logic [CMD_BASE_W-1:0] unit_o,
  output logic                  last_o
);

  logic [DIM_W-1:0]      i1, i1_q, i2, i2_q;
  logic [31:0]           ext, ext_q, plane_ext, plane_ext_q;
  logic [CMD_BASE_W-1:0] unit, unit_q, plane_unit, plane_unit_q;
  logic                  row_end;

  always_comb begin
    i1         = init_i ? '0 : i1_q;
    i2         = init_i ? '0 : i2_q;
    ext        = init_i ? desc_i.ext_addr : ext_q;
    plane_ext  = init_i ? desc_i.ext_addr : plane_ext_q;
    unit       = init_i ? desc_i.sram_base : unit_q;
    plane_unit = init_i ? desc_i.sram_base : plane_unit_q;
    row_end    = i1 == desc_i.count1 - 1'b1;
  end

  logic [DIM_W-1:0]      i1_d, i2_d;
  logic [31:0]           ext_d, plane_ext_d;
  logic [CMD_BASE_W-1:0] unit_d, plane_unit_d;

  // One branch per case, every output assigned in each (no defaults that a branch reads back).
  always_comb begin
    if (!next_i) begin  // the row stays (at init: the first row)
      i1_d         = i1;
      i2_d         = i2;
      ext_d        = ext;
      plane_ext_d  = plane_ext;
      unit_d       = unit;
      plane_unit_d = plane_unit;
    end else if (row_end) begin  // the next plane's first row
      i1_d         = '0;
      i2_d         = i2 + 1'b1;
      plane_ext_d  = plane_ext + desc_i.ext_stride2;
      ext_d        = plane_ext + desc_i.ext_stride2;
      plane_unit_d = plane_unit + desc_i.sram_stride2;
      unit_d       = plane_unit + desc_i.sram_stride2;
    end else begin  // the next row of the plane
      i1_d         = i1 + 1'b1;
      i2_d         = i2;
      ext_d        = ext + desc_i.ext_stride1;
      plane_ext_d  = plane_ext;
      unit_d       = unit + desc_i.sram_stride1;
      plane_unit_d = plane_unit;
    end
  end

  // The row of the next cycle, every cycle: loaded at init, advanced by next, held otherwise (not reset, spec 10:
  // every use follows an init).
  always_ff @(posedge clk_i) begin
    i1_q         <= i1_d;
    i2_q         <= i2_d;
    ext_q        <= ext_d;
    plane_ext_q  <= plane_ext_d;
    unit_q       <= unit_d;
    plane_unit_q <= plane_unit_d;
  end

  // COUNT0, SRAM and OUT_INT32 are the caller's.
  logic unused_desc;
  assign unused_desc = ^{desc_i.count0, desc_i.sram, desc_i.out_int32, desc_i.out_int16};

  assign ext_o  = ext;
  assign unit_o = unit;
  assign last_o = row_end && (i2 == desc_i.count2 - 1'b1);

endmodule
