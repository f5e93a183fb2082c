// qacc accelerator top (spec 2): APB4 register/window slave, controller, five SRAMs, MAC array and requant
// unit. The mon_*_o ports carry the beat-level interfaces of spec 8 for co-simulation monitors; they are
// copies of internal signals, sampled after the rising edge (a beat is "at cycle t" when its valid is 1
// while the design evaluates cycle t). They have no function in the design and may be left unconnected.
module qacc_top
  import qacc_pkg::*;
#(
  parameter int unsigned NumRows   = 8,
  parameter int unsigned NumCols   = 8,
  parameter int unsigned ADepth    = 8192,
  parameter int unsigned BDepth    = 8192,
  parameter int unsigned BiasDepth = 256,
  parameter int unsigned RqDepth   = 256,
  parameter int unsigned OutDepth  = 8192,
  parameter int unsigned AddrWidth = 24,
  localparam int unsigned RowIdxW  = $clog2(NumRows),
  localparam int unsigned OutBytes = 4 * NumCols
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,

  // APB4 host bus (spec 3).
  input  logic                          apb_psel_i,
  input  logic                          apb_penable_i,
  input  logic                          apb_pwrite_i,
  input  logic [AddrWidth-1:0]          apb_paddr_i,
  input  logic [31:0]                   apb_pwdata_i,
  input  logic [3:0]                    apb_pstrb_i,
  output logic [31:0]                   apb_prdata_o,
  output logic                          apb_pready_o,
  output logic                          apb_pslverr_o,
  output logic                          irq_o,

  // Monitors (spec 8).
  output logic                          mon_busy_o,          // STATUS.BUSY
  output logic                          mon_done_o,          // STATUS.DONE
  output logic                          mon_mac_in_valid_o,  // MAC array input beat
  output logic                          mon_mac_in_last_o,
  output logic                          mon_mac_valid_o,     // MAC array output beat
  output logic [RowIdxW-1:0]            mon_mac_row_o,
  output logic                          mon_mac_last_o,
  output logic [NumCols-1:0][31:0]      mon_mac_acc_o,
  output logic                          mon_rq_valid_o,      // requant output beat
  output logic [RowIdxW-1:0]            mon_rq_row_o,
  output logic                          mon_rq_last_o,
  output logic [NumCols-1:0][31:0]      mon_rq_data_o,
  output logic                          mon_out_we_o,        // output SRAM write
  output logic [WINDOW_BITS-1:0]        mon_out_addr_o,      // word address, zero-extended
  output logic [OutBytes-1:0]           mon_out_be_o,
  output logic [OutBytes*8-1:0]         mon_out_wdata_o,
  output cmd_t                          mon_cmd_o            // the command as the controller sees it
);

  localparam int unsigned AAddrW    = $clog2(ADepth);
  localparam int unsigned BAddrW    = $clog2(BDepth);
  localparam int unsigned BiasAddrW = $clog2(BiasDepth);
  localparam int unsigned RqAddrW   = $clog2(RqDepth);
  localparam int unsigned OutAddrW  = $clog2(OutDepth);

  // ---- Registers and windows --------------------------------------------------------------------------------------
  cmd_t                       cmd;
  logic                       start, busy, done;
  err_code_e                  err_code;
  logic [31:0]                perf_cycles, perf_mac_busy, perf_rq_busy, perf_out_writes, perf_feed_stall;
  logic [31:0]                perf_cmd_count;
  logic [NUM_WIN-1:0]         win_re, win_we;
  logic [WINDOW_BITS-1:0]     win_off;
  logic [31:0]                win_wdata;
  logic [3:0]                 win_wstrb;
  logic [NUM_WIN-1:0][31:0]   win_rdata;
  logic                       status_done;

  qacc_regs #(
    .NumRows   (NumRows),
    .NumCols   (NumCols),
    .ADepth    (ADepth),
    .BDepth    (BDepth),
    .BiasDepth (BiasDepth),
    .RqDepth   (RqDepth),
    .OutDepth  (OutDepth),
    .AddrWidth (AddrWidth)
  ) u_regs (
    .clk_i,
    .rst_ni,
    .apb_psel_i,
    .apb_penable_i,
    .apb_pwrite_i,
    .apb_paddr_i,
    .apb_pwdata_i,
    .apb_pstrb_i,
    .apb_prdata_o,
    .apb_pready_o,
    .apb_pslverr_o,
    .irq_o,
    .cmd_o             (cmd),
    .start_o           (start),
    .busy_i            (busy),
    .done_i            (done),
    .err_code_i        (err_code),
    .status_done_o     (status_done),
    .perf_cycles_i     (perf_cycles),
    .perf_mac_busy_i   (perf_mac_busy),
    .perf_rq_busy_i    (perf_rq_busy),
    .perf_out_writes_i (perf_out_writes),
    .perf_feed_stall_i (perf_feed_stall),
    .perf_cmd_count_i  (perf_cmd_count),
    .win_re_o          (win_re),
    .win_we_o          (win_we),
    .win_off_o         (win_off),
    .win_wdata_o       (win_wdata),
    .win_wstrb_o       (win_wstrb),
    .win_rdata_i       (win_rdata)
  );

  // ---- Controller -----------------------------------------------------------------------------------------------
  logic                              a_re, b_re, bias_re, rq_re;
  logic [AAddrW-1:0]                 a_addr;
  logic [BAddrW-1:0]                 b_addr;
  logic [BiasAddrW-1:0]              bias_addr;
  logic [RqAddrW-1:0]                rq_addr;
  logic                              mac_in_valid, mac_in_last;
  logic [NumRows-1:0]                mac_in_a_en;
  logic [NumCols-1:0]                mac_in_b_en;
  logic                              mac_out_valid, mac_out_last;
  logic [RowIdxW-1:0]                mac_out_row;
  logic [NumCols-1:0][ACC_W-1:0]     mac_out_acc;
  logic                              rq_out_valid, rq_out_last;
  logic [RowIdxW-1:0]                rq_out_row;
  logic [NumCols-1:0][31:0]          rq_out_data;
  logic                              out_we;
  logic [OutAddrW-1:0]               out_addr;
  logic [OutBytes-1:0]               out_be;
  logic [OutBytes*8-1:0]             out_wdata;

  qacc_ctrl #(
    .NumRows   (NumRows),
    .NumCols   (NumCols),
    .ADepth    (ADepth),
    .BDepth    (BDepth),
    .BiasDepth (BiasDepth),
    .RqDepth   (RqDepth),
    .OutDepth  (OutDepth)
  ) u_ctrl (
    .clk_i,
    .rst_ni,
    .start_i           (start),
    .cmd_i             (cmd),
    .busy_o            (busy),
    .done_o            (done),
    .err_code_o        (err_code),
    .a_re_o            (a_re),
    .a_addr_o          (a_addr),
    .b_re_o            (b_re),
    .b_addr_o          (b_addr),
    .mac_in_valid_o    (mac_in_valid),
    .mac_in_last_o     (mac_in_last),
    .mac_in_a_en_o     (mac_in_a_en),
    .mac_in_b_en_o     (mac_in_b_en),
    .mac_out_valid_i   (mac_out_valid),
    .bias_re_o         (bias_re),
    .bias_addr_o       (bias_addr),
    .rq_re_o           (rq_re),
    .rq_addr_o         (rq_addr),
    .rq_out_valid_i    (rq_out_valid),
    .rq_out_row_i      (rq_out_row),
    .rq_out_last_i     (rq_out_last),
    .rq_out_data_i     (rq_out_data),
    .out_we_o          (out_we),
    .out_addr_o        (out_addr),
    .out_be_o          (out_be),
    .out_wdata_o       (out_wdata),
    .perf_cycles_o     (perf_cycles),
    .perf_mac_busy_o   (perf_mac_busy),
    .perf_rq_busy_o    (perf_rq_busy),
    .perf_out_writes_o (perf_out_writes),
    .perf_feed_stall_o (perf_feed_stall),
    .perf_cmd_count_o  (perf_cmd_count)
  );

  // ---- SRAMs ------------------------------------------------------------------------------------------------------
  logic [NumRows-1:0][OPERAND_W-1:0]  a_rdata;
  logic [NumCols-1:0][OPERAND_W-1:0]  b_rdata;
  logic [NumCols-1:0][ACC_W-1:0]      bias_rdata;
  logic [NumCols-1:0][63:0]           rq_rdata;   // lane c: [31:0] multiplier, [37:32] shift (3.1)
  logic [OutBytes*8-1:0]              out_rdata;

  qacc_sram_win #(.Depth(ADepth), .WordBytes(NumRows)) u_a_sram (
    .clk_i, .rst_ni, .engine_sel_i (busy),
    .host_re_i (win_re[WinA]), .host_we_i (win_we[WinA]), .host_off_i (win_off), .host_wdata_i (win_wdata),
    .host_wstrb_i (win_wstrb), .host_rdata_o (win_rdata[WinA]),
    .eng_re_i (a_re), .eng_raddr_i (a_addr), .eng_rdata_o (a_rdata),
    .eng_we_i (1'b0), .eng_waddr_i ('0), .eng_be_i ('0), .eng_wdata_i ('0)
  );

  qacc_sram_win #(.Depth(BDepth), .WordBytes(NumCols)) u_b_sram (
    .clk_i, .rst_ni, .engine_sel_i (busy),
    .host_re_i (win_re[WinB]), .host_we_i (win_we[WinB]), .host_off_i (win_off), .host_wdata_i (win_wdata),
    .host_wstrb_i (win_wstrb), .host_rdata_o (win_rdata[WinB]),
    .eng_re_i (b_re), .eng_raddr_i (b_addr), .eng_rdata_o (b_rdata),
    .eng_we_i (1'b0), .eng_waddr_i ('0), .eng_be_i ('0), .eng_wdata_i ('0)
  );

  qacc_sram_win #(.Depth(BiasDepth), .WordBytes(4 * NumCols)) u_bias_sram (
    .clk_i, .rst_ni, .engine_sel_i (busy),
    .host_re_i (win_re[WinBias]), .host_we_i (win_we[WinBias]), .host_off_i (win_off), .host_wdata_i (win_wdata),
    .host_wstrb_i (win_wstrb), .host_rdata_o (win_rdata[WinBias]),
    .eng_re_i (bias_re), .eng_raddr_i (bias_addr), .eng_rdata_o (bias_rdata),
    .eng_we_i (1'b0), .eng_waddr_i ('0), .eng_be_i ('0), .eng_wdata_i ('0)
  );

  qacc_sram_win #(.Depth(RqDepth), .WordBytes(8 * NumCols)) u_rq_sram (
    .clk_i, .rst_ni, .engine_sel_i (busy),
    .host_re_i (win_re[WinRq]), .host_we_i (win_we[WinRq]), .host_off_i (win_off), .host_wdata_i (win_wdata),
    .host_wstrb_i (win_wstrb), .host_rdata_o (win_rdata[WinRq]),
    .eng_re_i (rq_re), .eng_raddr_i (rq_addr), .eng_rdata_o (rq_rdata),
    .eng_we_i (1'b0), .eng_waddr_i ('0), .eng_be_i ('0), .eng_wdata_i ('0)
  );

  qacc_sram_win #(.Depth(OutDepth), .WordBytes(OutBytes)) u_out_sram (
    .clk_i, .rst_ni, .engine_sel_i (busy),
    .host_re_i (win_re[WinOut]), .host_we_i (win_we[WinOut]), .host_off_i (win_off), .host_wdata_i (win_wdata),
    .host_wstrb_i (win_wstrb), .host_rdata_o (win_rdata[WinOut]),
    .eng_re_i (1'b0), .eng_raddr_i ('0), .eng_rdata_o (out_rdata),
    .eng_we_i (out_we), .eng_waddr_i (out_addr), .eng_be_i (out_be), .eng_wdata_i (out_wdata)
  );

  // ---- MAC array and requant unit ---------------------------------------------------------------------------------
  qacc_mac_array #(
    .NumRows (NumRows),
    .NumCols (NumCols)
  ) u_mac_array (
    .clk_i,
    .rst_ni,
    .a_zp_i       (cmd.a_zp),
    .b_zp_i       (cmd.b_zp),
    .a_unsigned_i (cmd.a_unsigned),
    .b_unsigned_i (cmd.b_unsigned),
    .in_valid_i   (mac_in_valid),
    .in_last_i    (mac_in_last),
    .in_a_i       (a_rdata),
    .in_a_en_i    (mac_in_a_en),
    .in_b_i       (b_rdata),
    .in_b_en_i    (mac_in_b_en),
    .out_valid_o  (mac_out_valid),
    .out_row_o    (mac_out_row),
    .out_last_o   (mac_out_last),
    .out_acc_o    (mac_out_acc)
  );

  // A legal multiplier is 0 or 2^30..2^31-1 (spec 4): the lanes take its low 31 bits, and bit 31 of a
  // per-channel word, which launch does not check, must be 0 when a beat uses it (PerChannelMult_A).
  logic [NumCols-1:0][Q31_FRAC_BITS-1:0] rq_mult;
  logic [NumCols-1:0][SHIFT_W-1:0]       rq_shift;
  logic                                  unused_rq_bits;

  always_comb begin
    unused_rq_bits = 1'b0;
    for (int c = 0; c < NumCols; c++) begin
      rq_mult[c]     = rq_rdata[c][Q31_FRAC_BITS-1:0];
      rq_shift[c]    = rq_rdata[c][32 +: SHIFT_W];
      unused_rq_bits ^= rq_rdata[c][31] ^ (^rq_rdata[c][63:32+SHIFT_W]);
    end
  end

  qacc_requant_unit #(
    .NumRows (NumRows),
    .NumCols (NumCols)
  ) u_requant (
    .clk_i,
    .rst_ni,
    .in_valid_i    (mac_out_valid),
    .in_row_i      (mac_out_row),
    .in_last_i     (mac_out_last),
    .in_acc_i      (mac_out_acc),
    .in_bias_i     (bias_rdata),
    .in_mult_i     (rq_mult),
    .in_shift_i    (rq_shift),
    .per_channel_i (cmd.per_channel),
    .bias_en_i     (cmd.bias_en),
    .rounding_i    (cmd.rounding),
    .out_raw_i     (cmd.out_raw),
    .mult_i        (cmd.mult[Q31_FRAC_BITS-1:0]),
    .shift_i       (cmd.shift),
    .zp_out_i      (cmd.zp_out),
    .clamp_min_i   (cmd.clamp_min),
    .clamp_max_i   (cmd.clamp_max),
    .out_valid_o   (rq_out_valid),
    .out_row_o     (rq_out_row),
    .out_last_o    (rq_out_last),
    .out_data_o    (rq_out_data)
  );

  // ---- Monitors ---------------------------------------------------------------------------------------------------

  assign mon_busy_o         = busy;
  assign mon_done_o         = status_done;
  assign mon_mac_in_valid_o = mac_in_valid;
  assign mon_mac_in_last_o  = mac_in_last;
  assign mon_mac_valid_o    = mac_out_valid;
  assign mon_mac_row_o      = mac_out_row;
  assign mon_mac_last_o     = mac_out_last;
  assign mon_mac_acc_o      = mac_out_acc;
  assign mon_rq_valid_o     = rq_out_valid;
  assign mon_rq_row_o       = rq_out_row;
  assign mon_rq_last_o      = rq_out_last;
  assign mon_rq_data_o      = rq_out_data;
  assign mon_out_we_o       = out_we;
  assign mon_out_addr_o     = WINDOW_BITS'(out_addr);
  assign mon_out_be_o       = out_be;
  assign mon_out_wdata_o    = out_wdata;
  assign mon_cmd_o          = cmd;

  // The output SRAM is never read by the engine.
  logic unused_top;
  assign unused_top = ^out_rdata;

`ifndef SYNTHESIS
  // Bit 31 of a per-channel multiplier that a beat uses is 0 (the lanes' MultRange_A checks the other bits).
  logic [NumCols-1:0] rq_mult_bit31;
  always_comb begin
    for (int c = 0; c < NumCols; c++) begin
      rq_mult_bit31[c] = rq_rdata[c][31];
    end
  end
  PerChannelMult_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      mac_out_valid && cmd.per_channel && !cmd.out_raw |-> rq_mult_bit31 == '0);
`endif

endmodule
