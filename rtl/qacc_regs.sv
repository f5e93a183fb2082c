// APB4 slave of qacc (spec 3): the register file of 3.2, the command registers, STATUS/irq, and the decode of
// the SRAM windows of 3.1 into a window request bus served by qacc_sram_win.
//   register accesses and window writes: 0 wait states (pready = 1 in the first access cycle);
//   window reads: 1 wait state (request in the first access cycle, data and pready = 1 in the second).
// pslverr (no side effect, reads return 0) for: an unmapped address, a window offset beyond the SRAM, any
// window access while BUSY, a write to CTRL, CMD_*, Q_BASE or Q_COUNT while BUSY, a write to a read-only
// register. Offsets of 0x000..0x3FF that name no register are reserved: they read 0 and ignore writes, without
// error.
// Programs (data_movement.md 14.1): Q_BASE and Q_COUNT (busy-locked like CMD_*), CTRL.RUN (wins over START), and
// the read-only Q_* and PERF_* registers of the program controller.
module qacc_regs
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
  parameter int unsigned AddrWidth = 24
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,

  // APB4 slave.
  input  logic                       apb_psel_i,
  input  logic                       apb_penable_i,
  input  logic                       apb_pwrite_i,
  input  logic [AddrWidth-1:0]       apb_paddr_i,
  input  logic [31:0]                apb_pwdata_i,
  input  logic [3:0]                 apb_pstrb_i,
  output logic [31:0]                apb_prdata_o,
  output logic                       apb_pready_o,
  output logic                       apb_pslverr_o,
  output logic                       irq_o,

  // Command and status.
  output cmd_t                       cmd_o,        // CMD_* registers (locked while busy: the units read them in place)
  output logic                       start_o,      // CTRL.START written while idle (and RUN not)
  output logic                       run_o,        // CTRL.RUN written while idle: launch a program
  input  logic                       busy_i,
  input  logic                       done_i,       // command completed (with err_code_i) at this edge
  input  err_code_e                  err_code_i,
  output logic                       status_done_o,  // STATUS.DONE (for the top's monitor port)

  // The unit register blocks 2..15 (units.md 19.3): an error-free register write at reg_off_o (the units take the
  // offsets of their registers), and the read data of reg_off_o (0 where no present unit has a register).
  output logic                       unit_wr_o,
  output logic [11:0]                reg_off_o,
  output logic [31:0]                unit_wdata_o,
  input  logic [31:0]                unit_rdata_i,

  // Perf counters (3.2).
  input  logic [31:0]                perf_cycles_i,
  input  logic [NUM_BEAT_UNITS-1:0][31:0] perf_busy_i,  // PERF_<x>_BUSY of beat unit u at BEAT_BUSY_REG[u]
  input  logic [31:0]                perf_out_writes_i,
  input  logic [31:0]                perf_feed_stall_i,
  input  logic [31:0]                perf_cmd_count_i,

  // Programs (data_movement.md 14.1, 17.8).
  output logic [31:0]                q_base_o,     // Q_BASE: [5:0] are 0
  output logic [DIM_W-1:0]           q_count_o,
  input  logic [DIM_W-1:0]           q_retired_i,
  input  logic [DIM_W-1:0]           q_err_index_i,
  input  logic [3:0]                 q_d2c_i,
  input  logic [3:0]                 q_c2d_i,
  input  logic [6:0][31:0]           perf_prog_i,  // PERF_DMA_BUSY (0) .. PERF_WR_BEATS (6)

  // SRAM windows: one-hot read and write strobes (index win_e), byte offset inside the window.
  output logic [NUM_WIN-1:0]         win_re_o,     // one-hot read strobe: the first access cycle of a read
  output logic [NUM_WIN-1:0]         win_we_o,     // one-hot write strobe: a completing write
  output logic [WINDOW_BITS-1:0]     win_off_o,
  output logic [31:0]                win_wdata_o,
  output logic [3:0]                 win_wstrb_o,
  input  logic [NUM_WIN-1:0][31:0]   win_rdata_i
);

  localparam int unsigned RegionW = AddrWidth - WINDOW_BITS;
  localparam int unsigned QBaseLsb = $clog2(DESC_BYTES);  // Q_BASE keeps [31:6]

  // ---- Decode ---------------------------------------------------------------------------------------------------
  logic                   access;
  logic [RegionW-1:0]     region;
  logic [WINDOW_BITS-1:0] off;
  logic [11:0]            reg_off;
  logic                   is_reg, is_win, win_in_range;
  win_e                   win;

  assign access  = apb_psel_i & apb_penable_i;
  assign region  = apb_paddr_i[AddrWidth-1:WINDOW_BITS];
  assign off     = apb_paddr_i[WINDOW_BITS-1:0];
  // Register offsets are below REG_SPACE_BYTES (0x1000, blocks 0..15): bits [11:2] are the whole offset wherever
  // is_reg holds. Blocks 2..15 are the units' (the top's unit_* ports): an offset that names no register of a
  // present unit reads 0 and ignores writes, as the reserved offsets of block 0 do (units.md 19.3).
  assign reg_off = {apb_paddr_i[11:2], 2'b00};
  assign is_reg  = (region == RegionW'(RegionRegs)) && (off < WINDOW_BITS'(REG_SPACE_BYTES));

  always_comb begin
    is_win       = 1'b1;
    win          = WinA;
    win_in_range = 1'b0;
    unique case (region)
      RegionW'(RegionA): begin
        win          = WinA;
        win_in_range = 32'(off) < ADepth * NumRows;
      end
      RegionW'(RegionB): begin
        win          = WinB;
        win_in_range = 32'(off) < BDepth * NumCols;
      end
      RegionW'(RegionBias): begin
        win          = WinBias;
        win_in_range = 32'(off) < BiasDepth * 4 * NumCols;
      end
      RegionW'(RegionRq): begin
        win          = WinRq;
        win_in_range = 32'(off) < RqDepth * 8 * NumCols;
      end
      RegionW'(RegionOut): begin
        win          = WinOut;
        win_in_range = 32'(off) < OutDepth * 4 * NumCols;
      end
      RegionW'(RegionLut): begin
        win          = WinLut;
        win_in_range = 32'(off) < LUT_SLOT_WORDS * LutSlots * LUT_WORD_ENTRIES * LUT_ENTRY_BYTES;
      end
      default: is_win = 1'b0;  // registers, reserved softmax/LayerNorm windows (absent in this version), unmapped
    endcase
  end

  // ---- Registers ------------------------------------------------------------------------------------------------
  cmd_t            cmd_d, cmd_q;
  logic [31:QBaseLsb] q_base_d, q_base_q;
  logic [DIM_W-1:0] q_count_d, q_count_q;
  logic            irq_en_d, irq_en_q;
  logic            done_d, done_q;
  logic            error;  // STATUS.ERROR: set exactly when ERR_CODE is not NONE (3.2), so not a flop of its own
  err_code_e       err_code_d, err_code_q;

  // Window read in flight (the wait state): its error and where its data comes from.
  logic            rd_pend_d, rd_pend_q, rd_err_q, rd_shift_q;
  win_e            rd_win_q;

  logic            reg_ro, reg_locked;
  logic            err;
  logic            wr_en;
  logic [31:0]     reg_rdata, win_rdata;

  // Register classes for the write rules (generated from the spec's register table).
  assign reg_ro     = reg_read_only(reg_off);
  assign reg_locked = reg_busy_locked(reg_off);

  // Error of the access in its first access cycle. Outside the register space an address is a window offset, and
  // an unmapped region is a window of size 0 (win_in_range stays 0).
  always_comb begin
    if (is_reg) begin
      err = apb_pwrite_i && (reg_ro || (reg_locked && busy_i));
    end else begin
      err = !win_in_range || busy_i;
    end
  end

  // APB handshake. A window read answers in its second access cycle from the _q state.
  always_comb begin
    rd_pend_d     = 1'b0;
    apb_pready_o  = 1'b0;
    apb_pslverr_o = 1'b0;
    apb_prdata_o  = '0;
    wr_en         = 1'b0;
    win_re_o      = '0;
    win_we_o      = '0;
    if (access) begin
      if (is_win && !apb_pwrite_i) begin
        if (!rd_pend_q) begin
          rd_pend_d  = 1'b1;
          win_re_o   = err ? '0 : NUM_WIN'(1) << win;
        end else begin
          apb_pready_o  = 1'b1;
          apb_pslverr_o = rd_err_q;
          apb_prdata_o  = rd_err_q ? '0 : win_rdata;
        end
      end else begin
        apb_pready_o  = 1'b1;
        apb_pslverr_o = err;
        apb_prdata_o  = (apb_pwrite_i || err) ? '0 : reg_rdata;
        wr_en         = apb_pwrite_i && !err;
        if (is_win && wr_en) begin
          win_we_o = NUM_WIN'(1) << win;
        end
      end
    end
  end

  assign win_off_o   = off;
  assign win_wdata_o = apb_pwdata_i;
  assign win_wstrb_o = apb_pstrb_i;

  // rq window: the shift word keeps its 6-bit field and reads back sign-extended.
  always_comb begin
    win_rdata = win_rdata_i[rd_win_q];
    if (rd_shift_q) begin
      win_rdata = 32'(signed'(win_rdata[SHIFT_W-1:0]));
    end
  end

  // Register writes (only on a completed, error-free write to the register space).
  logic reg_wr;
  assign reg_wr       = wr_en && is_reg;
  assign unit_wr_o    = reg_wr;  // the units decode their own offsets (none of blocks 0..1)
  assign reg_off_o    = reg_off;
  assign unit_wdata_o = apb_pwdata_i;
  logic ctrl_wr;
  assign ctrl_wr = reg_wr && (reg_off == REG_CTRL);
  assign run_o   = ctrl_wr && apb_pwdata_i[CTRL_RUN_BIT];
  assign start_o = ctrl_wr && apb_pwdata_i[CTRL_START_BIT] && !apb_pwdata_i[CTRL_RUN_BIT];

  always_comb begin
    cmd_d      = cmd_q;
    irq_en_d   = irq_en_q;
    done_d     = done_q;
    err_code_d = err_code_q;
    q_base_d   = q_base_q;
    q_count_d  = q_count_q;
    if (reg_wr) begin
      unique case (reg_off)
        REG_CTRL:          irq_en_d = apb_pwdata_i[CTRL_IRQ_EN_BIT];
        REG_STATUS: begin
          if (apb_pwdata_i[STATUS_DONE_BIT]) begin
            done_d = 1'b0;
          end
          if (apb_pwdata_i[STATUS_ERROR_BIT]) begin
            err_code_d = ErrNone;
          end
        end
        REG_CMD_M:         cmd_d.m         = apb_pwdata_i[DIM_W-1:0];
        REG_CMD_N:         cmd_d.n         = apb_pwdata_i[DIM_W-1:0];
        REG_CMD_K:         cmd_d.k         = apb_pwdata_i[DIM_W-1:0];
        REG_CMD_A_BASE:    cmd_d.a_base    = apb_pwdata_i[CMD_BASE_W-1:0];
        REG_CMD_B_BASE:    cmd_d.b_base    = apb_pwdata_i[CMD_BASE_W-1:0];
        REG_CMD_BIAS_BASE: cmd_d.bias_base = apb_pwdata_i[CMD_BASE_W-1:0];
        REG_CMD_RQ_BASE:   cmd_d.rq_base   = apb_pwdata_i[CMD_BASE_W-1:0];
        REG_CMD_OUT_BASE:  cmd_d.out_base  = apb_pwdata_i[CMD_BASE_W-1:0];
        REG_CMD_MODE: begin
          cmd_d.rounding    = rq_rounding_e'(apb_pwdata_i[MODE_ROUNDING_BIT]);
          cmd_d.per_channel = apb_pwdata_i[MODE_PER_CHANNEL_BIT];
          cmd_d.out_raw     = apb_pwdata_i[MODE_OUT_RAW_BIT];
          cmd_d.bias_en     = apb_pwdata_i[MODE_BIAS_EN_BIT];
          cmd_d.a_unsigned  = apb_pwdata_i[MODE_A_UNSIGNED_BIT];
          cmd_d.b_unsigned  = apb_pwdata_i[MODE_B_UNSIGNED_BIT];
          cmd_d.rq_form     = rq_form_e'(apb_pwdata_i[MODE_RQ_FORM_BIT]);
          cmd_d.slope_per_channel = apb_pwdata_i[MODE_SLOPE_PER_CHANNEL_BIT];
          cmd_d.act         = act_sel_e'(apb_pwdata_i[MODE_ACT_LSB +: MODE_ACT_W]);
          cmd_d.lut_slot       = apb_pwdata_i[MODE_LUT_SLOT_LSB +: MODE_LUT_SLOT_W];
          cmd_d.lut_in_bits    = apb_pwdata_i[MODE_LUT_IN_BITS_LSB +: MODE_LUT_IN_BITS_W];
          cmd_d.lut_entry_bits = apb_pwdata_i[MODE_LUT_ENTRY_BITS_LSB +: MODE_LUT_ENTRY_BITS_W];
          cmd_d.rshift_round   = rshift_round_e'(apb_pwdata_i[MODE_RSHIFT_ROUND_LSB +: MODE_RSHIFT_ROUND_W]);
          cmd_d.mult_width     = mult_width_e'(apb_pwdata_i[MODE_MULT_WIDTH_LSB +: MODE_MULT_WIDTH_W]);
        end
        REG_CMD_ZP_AB: begin
          cmd_d.a_zp = apb_pwdata_i[ZP_A_LSB +: ZP_A_W];
          cmd_d.b_zp = apb_pwdata_i[ZP_B_LSB +: ZP_B_W];
        end
        REG_CMD_ZP_OUT:    cmd_d.zp_out    = apb_pwdata_i;
        REG_CMD_CLAMP_MIN: cmd_d.clamp_min = apb_pwdata_i;
        REG_CMD_CLAMP_MAX: cmd_d.clamp_max = apb_pwdata_i;
        REG_CMD_MULT:      cmd_d.mult      = apb_pwdata_i;
        REG_CMD_SHIFT:     cmd_d.shift     = apb_pwdata_i[SHIFT_W-1:0];
        REG_CMD_OP:        cmd_d.op        = opcode_e'(apb_pwdata_i[OP_W-1:0]);
        REG_Q_BASE:        q_base_d        = apb_pwdata_i[31:QBaseLsb];
        REG_Q_COUNT:       q_count_d       = apb_pwdata_i[DIM_W-1:0];
        default: ;  // read-only registers are rejected by err; reserved offsets ignore writes
      endcase
    end
    // A launch starts a fresh command status; the completion of a command sets it (and wins over a W1C).
    if (start_o || run_o) begin
      done_d     = 1'b0;
      err_code_d = ErrNone;
    end
    if (done_i) begin
      done_d     = 1'b1;
      err_code_d = err_code_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cmd_q      <= '0;
      irq_en_q   <= 1'b0;
      done_q     <= 1'b0;
      err_code_q <= ErrNone;
      q_base_q   <= '0;
      q_count_q  <= '0;
    end else begin
      q_base_q   <= q_base_d;
      q_count_q  <= q_count_d;
      cmd_q      <= cmd_d;
      irq_en_q   <= irq_en_d;
      done_q     <= done_d;
      err_code_q <= err_code_d;
    end
  end

  // The first access cycle's decode, for the second (APB holds the address; not reset, spec 10). The read wait
  // state is not reset either: every transfer's setup cycle (PENABLE low) clears it before its access.
  always_ff @(posedge clk_i) begin
    rd_pend_q  <= rd_pend_d;
    rd_err_q   <= err;
    rd_win_q   <= win;
    rd_shift_q <= (win == WinRq) && off[2];
  end

  assign error = (err_code_q != ErrNone);

  // Register read data. The command registers read back through cmd_o, what the controller and the fetcher's
  // checks see (cmd_d, the next value, differs from it only during a write, which reads nothing).
  always_comb begin
    reg_rdata = '0;
    unique case (reg_off)
      REG_ID:              reg_rdata = QACC_ID;
      REG_VERSION:         reg_rdata = QACC_VERSION;
      REG_HW_ROWS:         reg_rdata = 32'(NumRows);
      REG_HW_COLS:         reg_rdata = 32'(NumCols);
      REG_HW_A_DEPTH:      reg_rdata = 32'(ADepth);
      REG_HW_B_DEPTH:      reg_rdata = 32'(BDepth);
      REG_HW_BIAS_DEPTH:   reg_rdata = 32'(BiasDepth);
      REG_HW_RQ_DEPTH:     reg_rdata = 32'(RqDepth);
      REG_HW_OUT_DEPTH:    reg_rdata = 32'(OutDepth);
      REG_HW_UNITS:        reg_rdata = HW_UNITS_VALUE;
      REG_HW_LATENCY:      reg_rdata = HW_LATENCY_VALUE;
      REG_HW_LUT_SLOTS:    reg_rdata = 32'(LutSlots);
      REG_CTRL:            reg_rdata = 32'(irq_en_q) << CTRL_IRQ_EN_BIT;
      REG_STATUS:          reg_rdata = (32'(err_code_q) << STATUS_ERR_CODE_LSB) | (32'(error) << STATUS_ERROR_BIT) |
                                       (32'(done_q) << STATUS_DONE_BIT) | (32'(busy_i) << STATUS_BUSY_BIT);
      REG_CMD_M:           reg_rdata = 32'(cmd_o.m);
      REG_CMD_N:           reg_rdata = 32'(cmd_o.n);
      REG_CMD_K:           reg_rdata = 32'(cmd_o.k);
      REG_CMD_A_BASE:      reg_rdata = 32'(cmd_o.a_base);
      REG_CMD_B_BASE:      reg_rdata = 32'(cmd_o.b_base);
      REG_CMD_BIAS_BASE:   reg_rdata = 32'(cmd_o.bias_base);
      REG_CMD_RQ_BASE:     reg_rdata = 32'(cmd_o.rq_base);
      REG_CMD_OUT_BASE:    reg_rdata = 32'(cmd_o.out_base);
      REG_CMD_MODE: begin
        reg_rdata[MODE_ROUNDING_BIT]    = cmd_o.rounding;
        reg_rdata[MODE_PER_CHANNEL_BIT] = cmd_o.per_channel;
        reg_rdata[MODE_OUT_RAW_BIT]     = cmd_o.out_raw;
        reg_rdata[MODE_BIAS_EN_BIT]     = cmd_o.bias_en;
        reg_rdata[MODE_A_UNSIGNED_BIT]  = cmd_o.a_unsigned;
        reg_rdata[MODE_B_UNSIGNED_BIT]  = cmd_o.b_unsigned;
        reg_rdata[MODE_RQ_FORM_BIT]     = cmd_o.rq_form;
        reg_rdata[MODE_SLOPE_PER_CHANNEL_BIT] = cmd_o.slope_per_channel;
        reg_rdata[MODE_ACT_LSB +: MODE_ACT_W] = cmd_o.act;
        reg_rdata[MODE_LUT_SLOT_LSB +: MODE_LUT_SLOT_W]             = cmd_o.lut_slot;
        reg_rdata[MODE_LUT_IN_BITS_LSB +: MODE_LUT_IN_BITS_W]       = cmd_o.lut_in_bits;
        reg_rdata[MODE_LUT_ENTRY_BITS_LSB +: MODE_LUT_ENTRY_BITS_W] = cmd_o.lut_entry_bits;
        reg_rdata[MODE_RSHIFT_ROUND_LSB +: MODE_RSHIFT_ROUND_W]     = cmd_o.rshift_round;
        reg_rdata[MODE_MULT_WIDTH_LSB +: MODE_MULT_WIDTH_W]         = cmd_o.mult_width;
      end
      REG_CMD_ZP_AB: begin
        reg_rdata[ZP_A_LSB +: ZP_A_W] = cmd_o.a_zp;
        reg_rdata[ZP_B_LSB +: ZP_B_W] = cmd_o.b_zp;
      end
      REG_CMD_ZP_OUT:      reg_rdata = cmd_o.zp_out;
      REG_CMD_CLAMP_MIN:   reg_rdata = cmd_o.clamp_min;
      REG_CMD_CLAMP_MAX:   reg_rdata = cmd_o.clamp_max;
      REG_CMD_MULT:        reg_rdata = cmd_o.mult;
      REG_CMD_SHIFT:       reg_rdata = 32'(cmd_o.shift);  // signed: sign-extended
      REG_CMD_OP:          reg_rdata = 32'(cmd_o.op);
      REG_PERF_CYCLES:     reg_rdata = perf_cycles_i;
      REG_PERF_OUT_WRITES: reg_rdata = perf_out_writes_i;
      REG_PERF_FEED_STALL: reg_rdata = perf_feed_stall_i;
      REG_PERF_CMD_COUNT:  reg_rdata = perf_cmd_count_i;
      REG_PERF_DMA_BUSY:     reg_rdata = perf_prog_i[0];
      REG_PERF_COMPUTE_BUSY: reg_rdata = perf_prog_i[1];
      REG_PERF_DMA_WAIT:     reg_rdata = perf_prog_i[2];
      REG_PERF_COMPUTE_WAIT: reg_rdata = perf_prog_i[3];
      REG_PERF_PORT_STALL:   reg_rdata = perf_prog_i[4];
      REG_PERF_RD_BEATS:     reg_rdata = perf_prog_i[5];
      REG_PERF_WR_BEATS:     reg_rdata = perf_prog_i[6];
      REG_Q_BASE:          reg_rdata = {q_base_q, QBaseLsb'(0)};
      REG_Q_COUNT:         reg_rdata = 32'(q_count_q);
      REG_Q_RETIRED:       reg_rdata = 32'(q_retired_i);
      REG_Q_ERR_INDEX:     reg_rdata = 32'(q_err_index_i);
      REG_Q_TOKENS:        reg_rdata = (32'(q_c2d_i) << Q_TOKENS_C2D_LSB) | (32'(q_d2c_i) << Q_TOKENS_D2C_LSB);
      default: begin
        // The busy counters of the present beat units, the units' registers (0 at an offset that is none of
        // theirs); reserved offsets (the busy counters of absent units among them) read 0.
        reg_rdata = unit_rdata_i;
        for (int unsigned u = 0; u < NUM_BEAT_UNITS; u++) begin
          if (reg_off == BEAT_BUSY_REG[u]) reg_rdata = perf_busy_i[u];
        end
      end
    endcase
  end

  assign cmd_o     = cmd_q;
  assign q_base_o  = {q_base_q, QBaseLsb'(0)};
  assign q_count_o = q_count_q;
  assign irq_o = done_q & irq_en_q;
  assign status_done_o = done_q;

`ifndef SYNTHESIS
  Params_A: assert property (@(posedge clk_i) AddrWidth == ADDR_BITS);
  // APB4: the access phase follows a setup phase and keeps address, direction and data until pready.
  ApbStable_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      apb_psel_i && apb_penable_i && !apb_pready_o |=>
      apb_psel_i && apb_penable_i && $stable(apb_paddr_i) && $stable(apb_pwrite_i));
  StartIdle_A: assert property (@(posedge clk_i) disable iff (!rst_ni) (start_o || run_o) |-> !busy_i);
  // A quiet bus (3): read data and error are 0 except in a completing access.
  QuietBus_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      !(apb_psel_i && apb_penable_i && apb_pready_o) |-> apb_prdata_o == '0 && !apb_pslverr_o);
`endif

endmodule
