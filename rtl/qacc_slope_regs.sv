// The slope stage's registers (requant.md 6.2): block 2 of the register region, ten registers from
// REG_SLOPE_POS_MULT. Command state (units.md 19.3): written by the host through qacc_regs while not BUSY, or by a
// SET on the compute engine, which writes the whole block at the end of its start cycle (units.md 19.4; the fetcher
// refused a SET that is not exactly these registers). Each register stores its fields only and reads back as
// stored. Reset: all 0.
module qacc_slope_regs
  import qacc_pkg::*;
(
  input  logic                            clk_i,
  input  logic                            rst_ni,

  // Host write (qacc_regs): an error-free write to a register offset of the block.
  input  logic                            wr_i,
  input  logic [11:0]                     wr_off_i,
  input  logic [31:0]                     wr_data_i,
  // SET: the block's ten values, in register order.
  input  logic                            set_i,
  input  logic [SLOPE_REGS-1:0][31:0]     set_value_i,

  // Host read: the register at rd_off_i, 0 for an offset of the block that holds none.
  input  logic [11:0]                     rd_off_i,
  output logic [31:0]                     rd_data_o,

  output slope_cfg_t                      cfg_o
);

  slope_cfg_t cfg_d, cfg_q;

  // The register image of the stored fields, in offset order (what a SET writes and the host reads).
  logic [SLOPE_REGS-1:0][31:0] image;
  assign image = {32'(cfg_q.clamp_max), 32'(cfg_q.clamp_min),
                  slope_cfg_word(cfg_q.neg), 32'(cfg_q.neg.zp), 32'(cfg_q.neg.shift), cfg_q.neg.mult,
                  slope_cfg_word(cfg_q.pos), 32'(cfg_q.pos.zp), 32'(cfg_q.pos.shift), cfg_q.pos.mult};

  // One register's new image: the SET's value, or the host's data at its offset, or the stored one.
  logic [SLOPE_REGS-1:0][31:0] next;
  always_comb begin
    for (int unsigned i = 0; i < SLOPE_REGS; i++) begin
      if (set_i) begin
        next[i] = set_value_i[i];
      end else if (wr_i && wr_off_i == REG_SLOPE_POS_MULT + 12'(4 * i)) begin
        next[i] = wr_data_i;
      end else begin
        next[i] = image[i];
      end
    end
    cfg_d.pos       = slope_side_of(next[3:0]);
    cfg_d.neg       = slope_side_of(next[7:4]);
    cfg_d.clamp_min = next[8];
    cfg_d.clamp_max = next[9];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cfg_q <= '0;
    end else begin
      cfg_q <= cfg_d;
    end
  end

  always_comb begin
    rd_data_o = '0;
    for (int unsigned i = 0; i < SLOPE_REGS; i++) begin
      if (rd_off_i == REG_SLOPE_POS_MULT + 12'(4 * i)) rd_data_o = image[i];
    end
  end

  assign cfg_o = cfg_q;

`ifndef SYNTHESIS
  // The two sides' CFG registers share one layout (slope_side_of reads the POS positions), and the ten registers
  // are contiguous from REG_SLOPE_POS_MULT in the order of image.
  Layout_A: assert property (@(posedge clk_i)
      SLOPE_NEG_K_LSB == SLOPE_POS_K_LSB && SLOPE_NEG_MULT_WIDTH_LSB == SLOPE_POS_MULT_WIDTH_LSB &&
      SLOPE_NEG_RSHIFT_ROUND_LSB == SLOPE_POS_RSHIFT_ROUND_LSB && SLOPE_NEG_RQ_FORM_BIT == SLOPE_POS_RQ_FORM_BIT &&
      SLOPE_NEG_ROUNDING_BIT == SLOPE_POS_ROUNDING_BIT && SLOPE_REGS == 10 &&
      REG_SLOPE_NEG_MULT == REG_SLOPE_POS_MULT + 12'h10 && REG_SLOPE_CLAMP_MIN == REG_SLOPE_POS_MULT + 12'h20);
  // A SET runs only while BUSY, when the host cannot write (busy-locked registers).
  OneWriter_A: assert property (@(posedge clk_i) disable iff (!rst_ni) !(set_i && wr_i));
`endif

endmodule
