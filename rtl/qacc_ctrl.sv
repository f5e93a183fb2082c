// Controller of qacc (spec 4, 6, 7): copies the command at launch, validates it in cycle 0, sequences the
// tiles over the MAC array, reads bias/rq words for the requant unit, writes the output rows, and counts the
// perf counters. Cycle numbers are command cycles (cycle 0 = first cycle with BUSY = 1); P = max(K, R, C).
//   feeder      A/B SRAM read of tile t, beat k at F(t,k) = 1 + t*P + k; the MAC input beat (with its lane
//               enables and `last`, registered beside the SRAM read) at I(t,k) = F(t,k) + 1
//   bias/rq     read at O(t,0) - 1 = F(t,K-1) + C + 2 (a C+2 delay of the last A/B read), held for R beats;
//               with ACT = SLOPE and SLOPE_PER_CHANNEL the slope's rq word at O(t,0) (requant.md 6.3)
//   out writer  its input beat (t, i): the requant unit's at Q(t,i), or with ACT = LUT the LUT unit's at
//               Q(t,i) + L_lut (the top selects it) -> output SRAM write registered, presented one cycle later,
//               only rows i < m_valid and byte lanes of columns c < n_valid; int8, int16 or int32 layout
//   done        after the write cycle of the last row of the last tile: DONE visible at E = W(T-1,R-1) + 1
// The MAC array and the requant unit have fixed latencies, so no beat ever waits: the controller only counts.
// In a program (data_movement.md 17.3) the compute engine launches a GEMM descriptor with go_i in its start cycle s,
// which is then command cycle 0 (validated at fetch, so no check); the perf counters add up over the program.
module qacc_ctrl
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
  localparam int unsigned RowIdxW  = $clog2(NumRows),
  localparam int unsigned AAddrW   = $clog2(ADepth),
  localparam int unsigned BAddrW   = $clog2(BDepth),
  localparam int unsigned BiasAddrW = $clog2(BiasDepth),
  localparam int unsigned RqAddrW  = $clog2(RqDepth),
  localparam int unsigned OutAddrW = $clog2(OutDepth),
  localparam int unsigned OutBytes = 4 * NumCols
) (
  input  logic                            clk_i,
  input  logic                            rst_ni,

  // Launch and completion.
  input  logic                            start_i,
  input  logic                            go_i,         // program: launch cmd_i (legal) in this cycle, from idle
  input  logic                            prog_i,       // a program runs (STATUS.BUSY): PERF_CYCLES counts it
  input  logic                            run_i,        // CTRL.RUN written: clears the perf counters like start_i
  input  logic                            prog_done_i,  // the program ends in this cycle: one command counted
  input  cmd_t                            cmd_i,        // CMD_* registers: locked while busy (spec 4)
  input  logic                            slope_ok_i,   // the slope registers are legal (requant.md 6.2)
  output logic                            busy_o,
  output logic                            done_o,       // the command completes at the end of this cycle
  output err_code_e                       err_code_o,   // with done_o

  // A and B SRAM reads; MAC array input control aligned with the read data.
  output logic                            a_re_o,
  output logic [AAddrW-1:0]               a_addr_o,
  output logic                            b_re_o,
  output logic [BAddrW-1:0]               b_addr_o,
  output logic                            mac_in_valid_o,
  output logic                            mac_in_last_o,
  output logic [NumRows-1:0]              mac_in_a_en_o,
  output logic [NumCols-1:0]              mac_in_b_en_o,

  // Bias and rq SRAM reads.
  output logic                            bias_re_o,
  output logic [BiasAddrW-1:0]            bias_addr_o,
  output logic                            rq_re_o,      // either read of the rq SRAM below
  output logic [RqAddrW-1:0]              rq_addr_o,
  output logic                            rq_slope_o,   // with rq_re_o: the slope's word, not the requant's
  output logic                            slope_word_o, // the slope's word, if read, is on the rq read data

  // Requant output beat.
  // The out writer's input beat: the requant output, or the LUT output with ACT = LUT (the top selects).
  input  logic                            wr_in_valid_i,
  input  logic [RowIdxW-1:0]              wr_in_row_i,
  input  logic                            wr_in_last_i,
  input  logic [NumCols-1:0][31:0]        wr_in_data_i,

  // Output SRAM write.
  output logic                            out_we_o,
  output logic [OutAddrW-1:0]             out_addr_o,
  output logic [OutBytes-1:0]             out_be_o,
  output logic [OutBytes*8-1:0]           out_wdata_o,

  // Perf counters (3.2). Slot u of unit_in_beat_i is high in the cycles beat unit u takes an input beat; its
  // count is PERF_<x>_BUSY, read at BEAT_BUSY_REG[u] (units.md 21.2).
  input  logic [NUM_BEAT_UNITS-1:0]        unit_in_beat_i,
  output logic [31:0]                     perf_cycles_o,
  output logic [NUM_BEAT_UNITS-1:0][31:0] perf_busy_o,
  output logic [31:0]                     perf_out_writes_o,
  output logic [31:0]                     perf_feed_stall_o,
  output logic [31:0]                     perf_cmd_count_o
);

  localparam int unsigned RowsLog2 = $clog2(NumRows);
  localparam int unsigned ColsLog2 = $clog2(NumCols);
  localparam int unsigned CntW     = DIM_W + 1;  // tile counters and remaining rows/columns

  typedef enum logic [1:0] {
    StIdle,
    StCheck,
    StRun
  } state_e;

  state_e state_d, state_q;

  // ---- Command-derived values (static while the command runs) ---------------------------------------------------
  logic [CntW-1:0]  mb_cnt, nb_cnt;  // MB, NB
  logic [31:0]      tiles;           // T
  logic [DIM_W-1:0] period;          // P = max(K, R, C)
  err_code_e        err_code;

  // Validation (spec 4), in cycle 0; the first failing check wins.
  qacc_gemm_check #(
    .NumRows   (NumRows),
    .NumCols   (NumCols),
    .ADepth    (ADepth),
    .BDepth    (BDepth),
    .BiasDepth (BiasDepth),
    .RqDepth   (RqDepth),
    .OutDepth  (OutDepth),
    .LutSlots  (LutSlots)
  ) u_check (
    .cmd_i      (cmd_i),
    .slope_ok_i (slope_ok_i),
    .err_code_o (err_code),
    .mb_cnt_o   (mb_cnt),
    .nb_cnt_o   (nb_cnt),
    .tiles_o    (tiles)
  );

  // max(R, C) is a power of two 2^L, so K >= 2^L exactly when K / 2^L is not 0 (a comparison would choose
  // between two equal values at K = 2^L).
  localparam int unsigned MinPeriodLog2 = (RowsLog2 > ColsLog2) ? RowsLog2 : ColsLog2;
  assign period = ((cmd_i.k >> MinPeriodLog2) != '0) ? cmd_i.k : DIM_W'(1 << MinPeriodLog2);

  // ---- Feeder: A/B reads of tile (f_mb, f_nb), beat f_phase ----------------------------------------------------
  logic                  feed_active_d, feed_active_q;
  logic [DIM_W-1:0]      f_phase_d, f_phase_q;          // 0..P-1 inside the tile period
  logic [CntW-1:0]       f_mb_d, f_mb_q, f_nb_d, f_nb_q;
  logic [CMD_BASE_W-1:0] f_a_base_d, f_a_base_q;        // A_BASE + mb * K
  logic [CMD_BASE_W-1:0] f_b_base_d, f_b_base_q;        // B_BASE + nb * K
  logic [CntW-1:0]       f_m_rem_d, f_m_rem_q;          // M - mb * R (>= 1)
  logic [CntW-1:0]       f_n_rem_d, f_n_rem_q;          // N - nb * C (>= 1)
  logic                  feed_read, feed_last, feed_tile_end, feed_last_tile, feed_stall;
  logic [NumRows-1:0]    a_en;
  logic [NumCols-1:0]    b_en;
  logic                  in_valid_q, in_last_q;
  logic [NumRows-1:0]    in_a_en_q;
  logic [NumCols-1:0]    in_b_en_q;
  logic                  launch;

  assign launch         = ((state_q == StCheck) || go_i) && (err_code == ErrNone);
  assign feed_read      = feed_active_q && (f_phase_q < cmd_i.k);
  assign feed_last      = feed_read && (f_phase_q == cmd_i.k - 1'b1);
  assign feed_tile_end  = f_phase_q == period - 1'b1;  // read only while feed_active_q
  assign feed_last_tile = (f_mb_q == mb_cnt - 1'b1) && (f_nb_q == nb_cnt - 1'b1);
  assign feed_stall     = feed_active_q && !feed_read;

  always_comb begin
    for (int r = 0; r < NumRows; r++) begin
      a_en[r] = f_m_rem_q > CntW'(r);
    end
    for (int c = 0; c < NumCols; c++) begin
      b_en[c] = f_n_rem_q > CntW'(c);
    end
  end

  always_comb begin
    feed_active_d = feed_active_q;
    f_phase_d     = f_phase_q;
    f_mb_d        = f_mb_q;
    f_nb_d        = f_nb_q;
    f_a_base_d    = f_a_base_q;
    f_b_base_d    = f_b_base_q;
    f_m_rem_d     = f_m_rem_q;
    f_n_rem_d     = f_n_rem_q;
    if (launch) begin
      feed_active_d = 1'b1;
      f_phase_d     = '0;
      f_mb_d        = '0;
      f_nb_d        = '0;
      f_a_base_d    = cmd_i.a_base;
      f_b_base_d    = cmd_i.b_base;
      f_m_rem_d     = CntW'(cmd_i.m);
      f_n_rem_d     = CntW'(cmd_i.n);
    end else if (feed_active_q) begin
      f_phase_d = f_phase_q + 1'b1;
      if (feed_last && feed_last_tile) begin
        feed_active_d = 1'b0;  // the last tile does not wait out its period
      end else if (feed_tile_end) begin
        f_phase_d = '0;
        if (f_nb_q == nb_cnt - 1'b1) begin
          f_nb_d     = '0;
          f_n_rem_d  = CntW'(cmd_i.n);
          f_b_base_d = cmd_i.b_base;
          f_mb_d     = f_mb_q + 1'b1;
          f_m_rem_d  = f_m_rem_q - CntW'(NumRows);
          f_a_base_d = f_a_base_q + CMD_BASE_W'(cmd_i.k);
        end else begin
          f_nb_d     = f_nb_q + 1'b1;
          f_n_rem_d  = f_n_rem_q - CntW'(NumCols);
          f_b_base_d = f_b_base_q + CMD_BASE_W'(cmd_i.k);
        end
      end
    end
  end

  assign a_re_o   = feed_read;
  assign a_addr_o = AAddrW'(f_a_base_q + CMD_BASE_W'(f_phase_q));
  assign b_re_o   = feed_read;
  assign b_addr_o = BAddrW'(f_b_base_q + CMD_BASE_W'(f_phase_q));

  // ---- Bias / rq reads: O(t,0) - 1 = F(t,K-1) + C + 2 --------------------------------------------------------------
  // The delay line of the last A/B read: bit BiasDly-1 is the bias/rq read (O(t,0) - 1), bit BiasDly the slope's
  // rq read (O(t,0)), bit BiasDly+1 the cycle its word is on the SRAM's read data (requant.md 6.3).
  localparam int unsigned BiasDly = NumCols + 2;
  logic [BiasDly+1:0]    bias_dly_q;
  logic                  bias_fire, slope_fire;
  logic [CntW-1:0]       p_nb_d, p_nb_q;                // nb of the next bias/rq read
  logic [CMD_BASE_W-1:0] p_bias_addr, p_rq_addr;

  assign bias_fire   = bias_dly_q[BiasDly-1];
  assign p_bias_addr = cmd_i.bias_base + CMD_BASE_W'(p_nb_q);
  // Tile nb's rq words (requant.md 6.3): RQ_BASE + S * nb, S = PER_CHANNEL + the slope's; the slope's word is
  // the tile's last, read one cycle later (its address kept from the first read's cycle, as p_nb moves on).
  logic                  slope_pc;
  logic [CMD_BASE_W-1:0] slope_addr_q;

  assign slope_pc    = (cmd_i.act == ActSlope) && cmd_i.slope_per_channel;
  assign slope_fire  = bias_dly_q[BiasDly] && slope_pc;
  assign p_rq_addr   = cmd_i.rq_base + ((slope_pc && cmd_i.per_channel) ? CMD_BASE_W'(p_nb_q) << 1
                                                                         : CMD_BASE_W'(p_nb_q));

  always_comb begin
    p_nb_d = p_nb_q;
    if (launch) begin
      p_nb_d = '0;
    end else if (bias_fire) begin
      p_nb_d = (p_nb_q == nb_cnt - 1'b1) ? '0 : p_nb_q + 1'b1;
    end
  end

  assign bias_re_o   = bias_fire && cmd_i.bias_en;
  assign bias_addr_o = BiasAddrW'(p_bias_addr);
  assign rq_re_o     = (bias_fire && cmd_i.per_channel) || slope_fire;
  assign rq_addr_o   = RqAddrW'(slope_fire ? slope_addr_q : p_rq_addr);
  assign rq_slope_o  = slope_fire;
  // Every tile: the slope unit stages the read data then, which it uses only with SLOPE_PER_CHANNEL.
  assign slope_word_o = bias_dly_q[BiasDly+1];

  // ---- Out writer ---------------------------------------------------------------------------------------------------
  logic [CntW-1:0]       w_mb_d, w_mb_q, w_nb_d, w_nb_q;
  logic [CntW-1:0]       w_m_rem_d, w_m_rem_q, w_n_rem_d, w_n_rem_q;
  logic [31:0]           w_entry_base_d, w_entry_base_q;  // e of row 0 of the tile: t * R
  logic [31:0]           w_entry;
  logic [31:0]           w_addr;
  logic                  w_int16;  // ACT = LUT with 16-bit entries: the int16 layout (lut.md 10.6)
  logic                  w_last_tile;
  logic                  out_we_d, out_we_q, w_final_d, w_final_q;
  logic [OutAddrW-1:0]   out_addr_d, out_addr_q;
  logic [OutBytes-1:0]   out_be_d, out_be_q;
  logic [OutBytes*8-1:0] out_wdata_d, out_wdata_q;

  assign w_entry     = w_entry_base_q + 32'(wr_in_row_i);
  assign w_int16     = cmd_i.act == ActLut && cmd_i.lut_entry_bits == MODE_LUT_ENTRY_BITS_W'(16);
  assign w_addr      = 32'(cmd_i.out_base) + (cmd_i.out_raw ? w_entry : w_int16 ? (w_entry >> 1) : (w_entry >> 2));
  assign w_last_tile = (w_mb_q == mb_cnt - 1'b1) && (w_nb_q == nb_cnt - 1'b1);

  always_comb begin
    out_we_d    = wr_in_valid_i && (CntW'(wr_in_row_i) < w_m_rem_q);
    out_addr_d  = OutAddrW'(w_addr);
    // Every layout assigns every byte enable and data byte below.
    for (int c = 0; c < NumCols; c++) begin
      if (cmd_i.out_raw) begin
        out_be_d[4*c +: 4]     = {4{w_n_rem_q > CntW'(c)}};
        out_wdata_d[32*c +: 32] = wr_in_data_i[c];
      end else if (w_int16) begin
        for (int h = 0; h < 2; h++) begin
          // int16 layout: entry e in bytes 2 ((e mod 2) * C + c) .. +1; both halves carry the data, be picks one.
          out_be_d[2*(h*NumCols + c) +: 2]      = {2{(w_entry[0] == 1'(h)) && (w_n_rem_q > CntW'(c))}};
          out_wdata_d[16*(h*NumCols + c) +: 16] = wr_in_data_i[c][15:0];
        end
      end else begin
        for (int q = 0; q < 4; q++) begin
          // int8 mode: entry e in byte (e mod 4) * C + c; all four row slots carry the data, be picks one.
          out_be_d[q*NumCols + c]          = (w_entry[1:0] == 2'(q)) && (w_n_rem_q > CntW'(c));
          out_wdata_d[8*(q*NumCols + c) +: 8] = wr_in_data_i[c][7:0];
        end
      end
    end
    w_final_d      = wr_in_valid_i && wr_in_last_i && w_last_tile;
    w_mb_d         = w_mb_q;
    w_nb_d         = w_nb_q;
    w_m_rem_d      = w_m_rem_q;
    w_n_rem_d      = w_n_rem_q;
    w_entry_base_d = w_entry_base_q;
    if (launch) begin
      w_mb_d         = '0;
      w_nb_d         = '0;
      w_m_rem_d      = CntW'(cmd_i.m);
      w_n_rem_d      = CntW'(cmd_i.n);
      w_entry_base_d = '0;
    end else if (wr_in_valid_i && wr_in_last_i) begin
      w_entry_base_d = w_entry_base_q + 32'(NumRows);
      if (w_nb_q == nb_cnt - 1'b1) begin
        w_nb_d    = '0;
        w_n_rem_d = CntW'(cmd_i.n);
        w_mb_d    = w_mb_q + 1'b1;
        w_m_rem_d = w_m_rem_q - CntW'(NumRows);
      end else begin
        w_nb_d    = w_nb_q + 1'b1;
        w_n_rem_d = w_n_rem_q - CntW'(NumCols);
      end
    end
  end

  assign out_we_o    = out_we_q;
  assign out_addr_o  = out_addr_q;
  assign out_be_o    = out_be_q;
  assign out_wdata_o = out_wdata_q;

  // ---- Command FSM ------------------------------------------------------------------------------------------------
  always_comb begin
    state_d    = state_q;
    done_o     = 1'b0;
    err_code_o = ErrNone;
    unique case (state_q)
      StIdle: begin
        if (start_i) begin
          state_d = StCheck;
        end else if (launch) begin
          state_d = StRun;  // go_i: a program's GEMM, validated at fetch
        end
      end
      StCheck: begin
        if (err_code != ErrNone) begin
          state_d    = StIdle;
          done_o     = 1'b1;
          err_code_o = err_code;
        end else begin
          state_d = StRun;
        end
      end
      StRun: begin
        if (w_final_q) begin
          state_d = StIdle;
          done_o  = 1'b1;
        end
      end
      default: state_d = StIdle;
    endcase
  end

  assign busy_o = (state_q != StIdle);

  // ---- Perf counters ------------------------------------------------------------------------------------------------
  logic [31:0] perf_cycles_q, perf_out_writes_q, perf_feed_stall_q;
  logic [NUM_BEAT_UNITS-1:0][31:0] perf_busy_q;
  logic [31:0] perf_cmd_count_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      perf_cycles_q     <= '0;
      perf_busy_q       <= '0;
      perf_out_writes_q <= '0;
      perf_feed_stall_q <= '0;
      perf_cmd_count_q  <= '0;
    end else if (start_i || run_i) begin
      perf_cycles_q     <= '0;
      perf_busy_q       <= '0;
      perf_out_writes_q <= '0;
      perf_feed_stall_q <= '0;
    end else begin
      perf_cycles_q     <= perf_cycles_q + 32'(busy_o || prog_i);
      for (int unsigned u = 0; u < NUM_BEAT_UNITS; u++) perf_busy_q[u] <= perf_busy_q[u] + 32'(unit_in_beat_i[u]);
      perf_out_writes_q <= perf_out_writes_q + 32'(out_we_q);
      perf_feed_stall_q <= perf_feed_stall_q + 32'(feed_stall);
      perf_cmd_count_q  <= perf_cmd_count_q + 32'((done_o && !prog_i) || prog_done_i);
    end
  end

  assign perf_cycles_o     = perf_cycles_q;
  assign perf_busy_o       = perf_busy_q;
  assign perf_out_writes_o = perf_out_writes_q;
  assign perf_feed_stall_o = perf_feed_stall_q;
  assign perf_cmd_count_o  = perf_cmd_count_q;

  // ---- Flops ------------------------------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q       <= StIdle;
      feed_active_q <= 1'b0;
      in_valid_q    <= 1'b0;
      bias_dly_q    <= '0;
      out_we_q      <= 1'b0;
    end else begin
      state_q       <= state_d;
      feed_active_q <= feed_active_d;
      in_valid_q    <= feed_read;
      bias_dly_q    <= {bias_dly_q[BiasDly:0], feed_last};
      out_we_q      <= out_we_d;
    end
  end

  // Not reset (spec 10): the feeder's and writer's counters and bases are loaded at launch before any use, and
  // in_last / the lane enables travel beside in_valid. Write address and data are meaningful only with out_we_q.
  // The writer's final flag is read only in StRun, and reset leaves the FSM idle for at least its first cycle.
  always_ff @(posedge clk_i) begin
    w_final_q      <= w_final_d;
    f_phase_q      <= f_phase_d;
    f_mb_q         <= f_mb_d;
    f_nb_q         <= f_nb_d;
    f_a_base_q     <= f_a_base_d;
    f_b_base_q     <= f_b_base_d;
    f_m_rem_q      <= f_m_rem_d;
    f_n_rem_q      <= f_n_rem_d;
    in_last_q      <= feed_last;
    in_a_en_q      <= a_en;
    in_b_en_q      <= b_en;
    p_nb_q         <= p_nb_d;
    slope_addr_q   <= p_rq_addr + CMD_BASE_W'(cmd_i.per_channel);  // read only with slope_fire
    w_mb_q         <= w_mb_d;
    w_nb_q         <= w_nb_d;
    w_m_rem_q      <= w_m_rem_d;
    w_n_rem_q      <= w_n_rem_d;
    w_entry_base_q <= w_entry_base_d;
    out_addr_q  <= out_addr_d;
    out_be_q    <= out_be_d;
    out_wdata_q <= out_wdata_d;
  end

  assign mac_in_valid_o = in_valid_q;
  assign mac_in_last_o  = in_last_q;
  assign mac_in_a_en_o  = in_a_en_q;
  assign mac_in_b_en_o  = in_b_en_q;

  // Upper bits of the requant output are used only in int32 mode; the sum widths are wider than the SRAMs
  // (validation guarantees every address fits). The datapath units read the other command fields.
  logic unused_bits;
  assign unused_bits = ^{w_addr, p_bias_addr, p_rq_addr, slope_addr_q, w_entry_base_q, tiles};

`ifndef SYNTHESIS
  Params_A: assert property (@(posedge clk_i) NumRows >= 4 && NumCols >= 4 && NumRows <= 32 && NumCols <= 32);
  StartIdle_A: assert property (@(posedge clk_i) disable iff (!rst_ni) start_i |-> state_q == StIdle);
  // A program's GEMM starts from idle, and its descriptor passed this validation at fetch.
  GoIdle_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      go_i |-> state_q == StIdle && !start_i && err_code == ErrNone);
  // Beats only while a command runs; the writer never sees a beat after the last one.
  WrBeatBusy_A: assert property (@(posedge clk_i) disable iff (!rst_ni) wr_in_valid_i |-> state_q == StRun);
  FeedBusy_A: assert property (@(posedge clk_i) disable iff (!rst_ni) feed_active_q |-> state_q == StRun);
  // Validation keeps every SRAM address inside its SRAM.
  AAddr_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      feed_read |-> 32'(f_a_base_q) + 32'(f_phase_q) < ADepth);
  BAddr_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      feed_read |-> 32'(f_b_base_q) + 32'(f_phase_q) < BDepth);
  OutAddr_A: assert property (@(posedge clk_i) disable iff (!rst_ni) out_we_d |-> w_addr < OutDepth);
  // Clock enable (spec 10.1): the feeder's phase counter holds while no command feeds the array.
  FeedHold_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      !feed_active_q && !launch |=> $stable(f_phase_q));
`endif

endmodule
