// qacc accelerator top (spec 2): APB4 register/window slave, controller, six SRAMs, MAC array, requant unit and
// LUT unit; programs (data_movement.md 14-17): the program controller with its fetcher and queues, the DMA engine,
// MOVE, ELTWISE (lut.md 10.5), and the AXI4-subset memory master port (15.1). The mon_*_o ports carry the beat-level
// interfaces of spec 8 and data_movement.md 18 for co-simulation monitors; they are copies of internal signals,
// sampled after the rising edge (a beat is "at cycle t" when its valid is 1 while the design evaluates cycle t).
// They have no function in the design and may be left unconnected.
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
  parameter int unsigned LutSlots  = 4,     // lut.slots: LUT table slots (lut.md 10.1)
  parameter int unsigned AddrWidth = 24,
  parameter int unsigned DataBytes      = 16,  // mem.data_bytes: D, bytes of a memory beat
  parameter int unsigned MaxOutstanding = 4,   // mem.max_outstanding: read bursts in flight
  localparam int unsigned RowIdxW  = $clog2(NumRows),
  localparam int unsigned OutBytes = 4 * NumCols,
  localparam int unsigned WordBytesMax = sram_word_bytes_max(NumRows, NumCols),
  localparam int unsigned MoveBytes = (NumRows > NumCols) ? NumRows : NumCols,
  localparam int unsigned LutAddrW  = $clog2(LUT_SLOT_WORDS * LutSlots),
  localparam int unsigned LutWordBytes = LUT_WORD_ENTRIES * LUT_ENTRY_BYTES
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

  // External memory master port (data_movement.md 15.1).
  output logic                          m_ar_valid_o,
  output logic [31:0]                   m_ar_addr_o,
  output logic [3:0]                    m_ar_len_o,
  input  logic                          m_ar_ready_i,
  output logic                          m_r_ready_o,
  input  logic                          m_r_valid_i,
  input  logic [8*DataBytes-1:0]        m_r_data_i,
  input  logic                          m_r_last_i,
  input  logic [1:0]                    m_r_resp_i,
  output logic                          m_aw_valid_o,
  output logic [31:0]                   m_aw_addr_o,
  output logic [3:0]                    m_aw_len_o,
  input  logic                          m_aw_ready_i,
  output logic                          m_w_valid_o,
  output logic [8*DataBytes-1:0]        m_w_data_o,
  output logic [DataBytes-1:0]          m_w_strb_o,
  output logic                          m_w_last_o,
  input  logic                          m_w_ready_i,
  output logic                          m_b_ready_o,
  input  logic                          m_b_valid_i,
  input  logic [1:0]                    m_b_resp_i,

  // Monitors (spec 8).
  output logic                          mon_busy_o,          // STATUS.BUSY
  output logic                          mon_done_o,          // STATUS.DONE
  output logic                          mon_mac_in_valid_o,  // MAC array input beat
  output logic                          mon_mac_in_last_o,
  // Row beats (units.md 21.2), slot BEAT_<unit> of qacc_pkg per unit: lane c of slot u in mon_beat_lanes_o[u][c].
  output logic [NUM_BEAT_UNITS-1:0]                      mon_beat_valid_o,
  output logic [NUM_BEAT_UNITS-1:0][RowIdxW-1:0]         mon_beat_row_o,
  output logic [NUM_BEAT_UNITS-1:0]                      mon_beat_last_o,
  output logic [NUM_BEAT_UNITS-1:0][NumCols-1:0][31:0]   mon_beat_lanes_o,
  output logic                          mon_out_we_o,        // output SRAM write
  output logic [WINDOW_BITS-1:0]        mon_out_addr_o,      // word address, zero-extended
  output logic [OutBytes-1:0]           mon_out_be_o,
  output logic [OutBytes*8-1:0]         mon_out_wdata_o,
  output cmd_t                          mon_cmd_o,           // the command as the controller sees it

  // Monitors of programs (data_movement.md 18).
  output mon_q_t                        mon_q_o,             // tokens, queues, Q_RETIRED, starts and retirements
  output logic                          mon_dma_re_o,        // the DMA's SRAM access of the cycle
  output logic                          mon_dma_we_o,
  output logic [SRAM_ID_W-1:0]          mon_dma_sram_o,      // SRAM id 1..5 (A, B, bias, rq, out)
  output logic [CMD_BASE_W-1:0]         mon_dma_addr_o,      // word address
  output logic [WordBytesMax-1:0]       mon_dma_be_o,        // the step's bytes of the word
  output logic [8*WordBytesMax-1:0]     mon_dma_wdata_o,     // write data (0 for a read)
  output logic                          mon_move_re_o,       // MOVE's output SRAM read
  output logic [CMD_BASE_W-1:0]         mon_move_raddr_o,
  output logic                          mon_move_we_o,       // MOVE's destination write
  output logic [SRAM_ID_W-1:0]          mon_move_dst_o,      // 1 A, 2 B (with mon_move_we_o)
  output logic [CMD_BASE_W-1:0]         mon_move_waddr_o,
  output logic [8*MoveBytes-1:0]        mon_move_wdata_o,    // R bytes into A, C bytes into B
  // A command unit's out SRAM read and write of each cycle: ELTWISE's; the command units to come share them, one
  // runs at a time. The fields of an access not made are 0.
  output logic                          mon_out_acc_re_o,
  output logic [CMD_BASE_W-1:0]         mon_out_acc_raddr_o,
  output logic                          mon_out_acc_we_o,
  output logic [CMD_BASE_W-1:0]         mon_out_acc_waddr_o,
  output logic [32*NumCols-1:0]         mon_out_acc_wdata_o  // whole words
);

  localparam int unsigned AAddrW    = $clog2(ADepth);
  localparam int unsigned BAddrW    = $clog2(BDepth);
  localparam int unsigned BiasAddrW = $clog2(BiasDepth);
  localparam int unsigned RqAddrW   = $clog2(RqDepth);
  localparam int unsigned OutAddrW  = $clog2(OutDepth);

  // ---- Registers and windows --------------------------------------------------------------------------------------
  cmd_t                       cmd, regs_cmd;
  logic                       start, run, busy, done, ctrl_busy, ctrl_done, prog_busy, prog_done;
  err_code_e                  err_code, ctrl_err_code, prog_err_code;
  logic [31:0]                q_base;
  logic [DIM_W-1:0]           q_count, q_retired, q_err_index;
  logic [3:0]                 q_d2c, q_c2d;
  logic [6:0][31:0]           perf_prog;
  logic [31:0]                perf_cycles, perf_out_writes, perf_feed_stall;
  logic [NUM_BEAT_UNITS-1:0][31:0] perf_busy;
  logic [NUM_BEAT_UNITS-1:0]  unit_in_beat;
  logic [31:0]                perf_cmd_count;
  logic [NUM_WIN-1:0]         win_re, win_we;
  logic [WINDOW_BITS-1:0]     win_off;
  logic [31:0]                win_wdata;
  logic [3:0]                 win_wstrb;
  logic [NUM_WIN-1:0][31:0]   win_rdata;
  logic                       status_done;
  logic                       unit_wr;      // the units' register blocks (units.md 19.3)
  logic [11:0]                reg_off;
  logic [31:0]                unit_wdata, unit_rdata;

  qacc_regs #(
    .NumRows   (NumRows),
    .NumCols   (NumCols),
    .ADepth    (ADepth),
    .BDepth    (BDepth),
    .BiasDepth (BiasDepth),
    .RqDepth   (RqDepth),
    .OutDepth  (OutDepth),
    .LutSlots  (LutSlots),
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
    .cmd_o             (regs_cmd),
    .start_o           (start),
    .run_o             (run),
    .busy_i            (busy),
    .done_i            (done),
    .err_code_i        (err_code),
    .status_done_o     (status_done),
    .unit_wr_o         (unit_wr),
    .reg_off_o         (reg_off),
    .unit_wdata_o      (unit_wdata),
    .unit_rdata_i      (unit_rdata),
    .perf_cycles_i     (perf_cycles),
    .perf_busy_i       (perf_busy),
    .perf_out_writes_i (perf_out_writes),
    .perf_feed_stall_i (perf_feed_stall),
    .perf_cmd_count_i  (perf_cmd_count),
    .q_base_o          (q_base),
    .q_count_o         (q_count),
    .q_retired_i       (q_retired),
    .q_err_index_i     (q_err_index),
    .q_d2c_i           (q_d2c),
    .q_c2d_i           (q_c2d),
    .perf_prog_i       (perf_prog),
    .win_re_o          (win_re),
    .win_we_o          (win_we),
    .win_off_o         (win_off),
    .win_wdata_o       (win_wdata),
    .win_wstrb_o       (win_wstrb),
    .win_rdata_i       (win_rdata)
  );

  // BUSY, DONE and the error are the program's while one runs (its GEMMs complete inside it), else the command's.
  assign busy     = ctrl_busy || prog_busy;
  assign done     = prog_busy ? prog_done : ctrl_done;
  assign err_code = prog_busy ? prog_err_code : ctrl_err_code;

  // ---- Program controller, memory port, DMA, MOVE and ELTWISE (data_movement.md 14-17, lut.md 10.5) ------------
  desc_t                      dma_head, cmp_head;
  cmd_t                       cmp_head_cmd;   // the compute queue's head decoded as a GEMM, a MOVE and an ELTWISE
  move_desc_t                 cmp_head_move;
  eltwise_desc_t              cmp_head_elt;
  logic                       dma_start, dma_done, dma_abort, dma_fault, dma_stall, prog_stop;
  logic                       gemm_go, move_start, move_done, elt_start, elt_done, elt_busy, set_start;
  logic                       fetch_req, fetch_issue, fetch_r_valid, dma_ar_req, dma_ar_issue, dma_r_valid;
  logic [31:0]                fetch_addr, dma_ar_addr;
  logic [3:0]                 fetch_len, dma_ar_len;
  logic [$clog2(MaxOutstanding+1)-1:0] rd_inflight;
  logic                       wr_inflight;
  // Which command the controller sees: a program's GEMM from its start, until the program ends.
  cmd_t                       gemm_cmd_d, gemm_cmd_q;

  qacc_prog #(
    .NumRows        (NumRows),
    .NumCols        (NumCols),
    .ADepth         (ADepth),
    .BDepth         (BDepth),
    .BiasDepth      (BiasDepth),
    .RqDepth        (RqDepth),
    .OutDepth       (OutDepth),
    .LutSlots       (LutSlots),
    .DataBytes      (DataBytes),
    .MaxOutstanding (MaxOutstanding)
  ) u_prog (
    .clk_i,
    .rst_ni,
    .run_i           (run),
    .start_i         (start),
    .q_base_i        (q_base),
    .q_count_i       (q_count),
    .busy_o          (prog_busy),
    .done_o          (prog_done),
    .err_code_o      (prog_err_code),
    .q_retired_o     (q_retired),
    .q_err_index_o   (q_err_index),
    .d2c_o           (q_d2c),
    .c2d_o           (q_c2d),
    .perf_o          (perf_prog),
    .fetch_req_o     (fetch_req),
    .fetch_addr_o    (fetch_addr),
    .fetch_len_o     (fetch_len),
    .fetch_issue_i   (fetch_issue),
    .fetch_r_valid_i (fetch_r_valid),
    .r_data_i        (m_r_data_i),
    .r_resp_i        (m_r_resp_i),
    .rd_beat_i       (m_r_valid_i),
    .wr_beat_i       (m_w_valid_o && m_w_ready_i),
    .rd_inflight_i   (rd_inflight),
    .wr_inflight_i   (wr_inflight),
    .dma_head_o      (dma_head),
    .dma_start_o     (dma_start),
    .dma_done_i      (dma_done),
    .dma_abort_i     (dma_abort),
    .dma_fault_i     (dma_fault),
    .dma_stall_i     (dma_stall),
    .stop_o          (prog_stop),
    .cmp_head_o      (cmp_head),
    .gemm_go_o       (gemm_go),
    .move_start_o    (move_start),
    .elt_start_o     (elt_start),
    .set_o           (set_start),
    .cmp_done_i      ((ctrl_done && prog_busy) || move_done || elt_done),
    .slope_legal_i   (slope_legal),
    .mon_q_o
  );
  qacc_gemm_cmd    u_cmp_head_cmd  (.desc_i(cmp_head), .fields_o(cmp_head_cmd));

  // ---- The slope stage's registers (block 2, requant.md 6.2): host writes, and a SET's at the end of its start
  // cycle (the fetcher let through only a SET of exactly these registers) ------------------------------------------
  slope_cfg_t                 slope_cfg;
  logic [31:0]                slope_rdata;
  logic                       slope_legal;

  qacc_slope_regs u_slope_regs (
    .clk_i,
    .rst_ni,
    .wr_i        (unit_wr),
    .wr_off_i    (reg_off),
    .wr_data_i   (unit_wdata),
    .set_i       (set_start),  // the one unit with registers: every legal SET is its
    .set_value_i (cmp_head.w[SLOPE_REGS-1:0]),
    .rd_off_i    (reg_off),
    .rd_data_o   (slope_rdata),
    .cfg_o       (slope_cfg)
  );
  assign unit_rdata = slope_rdata;  // 0 at an offset that is not a slope register
  // Legal registers: BAD_SLOPE of a GEMM that reads them (the controller's and the fetcher's check).
  qacc_slope_check u_slope_check (.cfg_i(slope_cfg), .legal_o(slope_legal));
  qacc_move_fields u_cmp_head_move (.desc_i(cmp_head), .fields_o(cmp_head_move));
  qacc_eltwise_fields u_cmp_head_elt (.desc_i(cmp_head), .fields_o(cmp_head_elt));

  qacc_mem_port #(
    .MaxOutstanding (MaxOutstanding)
  ) u_mem_port (
    .clk_i,
    .rst_ni,
    .fetch_req_i     (fetch_req),
    .fetch_addr_i    (fetch_addr),
    .fetch_len_i     (fetch_len),
    .fetch_issue_o   (fetch_issue),
    .dma_req_i       (dma_ar_req),
    .dma_addr_i      (dma_ar_addr),
    .dma_len_i       (dma_ar_len),
    .dma_issue_o     (dma_ar_issue),
    .m_ar_valid_o,
    .m_ar_addr_o,
    .m_ar_len_o,
    .m_ar_ready_i,
    .m_r_valid_i,
    .m_r_last_i,
    .fetch_r_valid_o (fetch_r_valid),
    .dma_r_valid_o   (dma_r_valid),
    .inflight_o      (rd_inflight)
  );

  assign m_r_ready_o = 1'b1;  // every read burst has room in its buffer (15.1)
  assign m_b_ready_o = 1'b1;

  // The controller's command: the CMD_* registers, or in a program the GEMM the compute engine starts (read from
  // the queue's head in its start cycle) and then the last one it started (data_movement.md 18). A RUN loads the
  // CMD_* registers, which no write changes while the program runs: they are what it shows before its first GEMM.
  always_comb begin
    gemm_cmd_d = gemm_go ? cmp_head_cmd : run ? regs_cmd : gemm_cmd_q;
    // A GEMM starts only in a program, and no RUN comes while one runs: there gemm_cmd_d is the start's or the last.
    cmd        = prog_busy ? gemm_cmd_d : regs_cmd;
  end

  // Read only while a program runs, loaded by its RUN (not reset, spec 10).
  always_ff @(posedge clk_i) begin
    gemm_cmd_q <= gemm_cmd_d;
  end

  // ---- Controller -----------------------------------------------------------------------------------------------
  logic                              a_re, b_re, bias_re, rq_re, rq_slope, slope_word;
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
  logic                              wr_in_valid, wr_in_last;  // the out writer's input: requant or LUT
  logic [RowIdxW-1:0]                wr_in_row;
  logic [NumCols-1:0][31:0]          wr_in_data;
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
    .OutDepth  (OutDepth),
    .LutSlots  (LutSlots)
  ) u_ctrl (
    .clk_i,
    .rst_ni,
    .start_i           (start),
    .go_i              (gemm_go),
    .prog_i            (prog_busy),
    .run_i             (run),
    .prog_done_i       (prog_done),
    .cmd_i             (cmd),
    .slope_ok_i        (slope_legal),
    .busy_o            (ctrl_busy),
    .done_o            (ctrl_done),
    .err_code_o        (ctrl_err_code),
    .a_re_o            (a_re),
    .a_addr_o          (a_addr),
    .b_re_o            (b_re),
    .b_addr_o          (b_addr),
    .mac_in_valid_o    (mac_in_valid),
    .mac_in_last_o     (mac_in_last),
    .mac_in_a_en_o     (mac_in_a_en),
    .mac_in_b_en_o     (mac_in_b_en),
    .bias_re_o         (bias_re),
    .bias_addr_o       (bias_addr),
    .rq_re_o           (rq_re),
    .rq_addr_o         (rq_addr),
    .rq_slope_o        (rq_slope),
    .slope_word_o      (slope_word),
    .wr_in_valid_i     (wr_in_valid),
    .wr_in_row_i       (wr_in_row),
    .wr_in_last_i      (wr_in_last),
    .wr_in_data_i      (wr_in_data),
    .out_we_o          (out_we),
    .out_addr_o        (out_addr),
    .out_be_o          (out_be),
    .out_wdata_o       (out_wdata),
    .unit_in_beat_i    (unit_in_beat),
    .perf_cycles_o     (perf_cycles),
    .perf_busy_o       (perf_busy),
    .perf_out_writes_o (perf_out_writes),
    .perf_feed_stall_o (perf_feed_stall),
    .perf_cmd_count_o  (perf_cmd_count)
  );

  // ---- DMA, MOVE and ELTWISE ----------------------------------------------------------------------------------
  logic [NumRows-1:0][OPERAND_W-1:0]  a_rdata;
  logic [NumCols-1:0][OPERAND_W-1:0]  b_rdata;
  logic [NumCols-1:0][ACC_W-1:0]      bias_rdata;
  logic [NumCols-1:0][63:0]           rq_rdata;   // lane c: [31:0] multiplier, [39:32] shift (3.1)
  logic [OutBytes*8-1:0]              out_rdata;
  logic [8*LutWordBytes-1:0]          lut_rdata;
  logic [NUM_SRAMS-1:0]               cmp_re, cmp_we, dma_re, dma_we;  // bit id - 1 per SRAM
  logic [CMD_BASE_W-1:0]              dma_addr;
  logic [WordBytesMax-1:0]            dma_be;
  logic [8*WordBytesMax-1:0]          dma_wdata;
  logic                               move_re, move_we_a, move_we_b;
  logic [CMD_BASE_W-1:0]              move_raddr, move_waddr;
  logic [8*MoveBytes-1:0]             move_wdata;
  logic                               elt_re, elt_we, elt_lut_valid;
  logic [CMD_BASE_W-1:0]              elt_raddr, elt_waddr;
  logic [OutBytes*8-1:0]              elt_wdata;
  logic [NumCols-1:0][7:0]            elt_lut_code;

  // The compute engine's use of each SRAM port in this cycle (17.6): the DMA waits for a port it uses. The LUT
  // lanes read through both ports of every table copy (lut.md 10.2), so they block the DMA's reads and writes.
  logic                                 lut_lane_re;
  logic [NumCols-1:0][LutAddrW-1:0]     lut_lane_addr;
  logic [NumCols-1:0][8*LutWordBytes-1:0] lut_lane_rdata;

  assign cmp_re = {lut_lane_re, move_re || elt_re, rq_re, bias_re, b_re, a_re};
  assign cmp_we = {lut_lane_re, out_we || elt_we, 1'b0, 1'b0, move_we_b, move_we_a};

  qacc_dma #(
    .NumRows        (NumRows),
    .NumCols        (NumCols),
    .DataBytes      (DataBytes),
    .MaxOutstanding (MaxOutstanding)
  ) u_dma (
    .clk_i,
    .rst_ni,
    .start_i       (dma_start),
    .head_i        (dma_head),
    .stop_i        (prog_stop),
    .done_o        (dma_done),
    .abort_o       (dma_abort),
    .fault_o       (dma_fault),
    .stall_o       (dma_stall),
    .ar_req_o      (dma_ar_req),
    .ar_addr_o     (dma_ar_addr),
    .ar_len_o      (dma_ar_len),
    .ar_issue_i    (dma_ar_issue),
    .r_valid_i     (dma_r_valid),
    .r_data_i      (m_r_data_i),
    .r_resp_i      (m_r_resp_i),
    .r_last_i      (m_r_last_i),
    .m_aw_valid_o,
    .m_aw_addr_o,
    .m_aw_len_o,
    .m_aw_ready_i,
    .m_w_valid_o,
    .m_w_data_o,
    .m_w_strb_o,
    .m_w_last_o,
    .m_w_ready_i,
    .m_b_valid_i,
    .m_b_resp_i,
    .wr_inflight_o (wr_inflight),
    .cmp_re_i      (cmp_re),
    .cmp_we_i      (cmp_we),
    .re_o          (dma_re),
    .we_o          (dma_we),
    .addr_o        (dma_addr),
    .be_o          (dma_be),
    .wdata_o       (dma_wdata),
    .a_rdata_i     (a_rdata),
    .b_rdata_i     (b_rdata),
    .bias_rdata_i  (bias_rdata),
    .rq_rdata_i    (rq_rdata),
    .out_rdata_i   (out_rdata),
    .lut_rdata_i   (lut_rdata)
  );

  qacc_move #(
    .NumRows (NumRows),
    .NumCols (NumCols)
  ) u_move (
    .clk_i,
    .rst_ni,
    .start_i (move_start),
    .desc_i  (cmp_head_move),
    .done_o  (move_done),
    .re_o    (move_re),
    .raddr_o (move_raddr),
    .rdata_i (out_rdata),
    .we_a_o  (move_we_a),
    .we_b_o  (move_we_b),
    .waddr_o (move_waddr),
    .wdata_o (move_wdata)
  );

  // ---- SRAMs ------------------------------------------------------------------------------------------------------
  // Engine ports: the compute engine (controller, MOVE, ELTWISE) or the DMA, never both in one cycle on one port.
  qacc_sram_win #(.Depth(ADepth), .WordBytes(NumRows)) u_a_sram (
    .clk_i, .rst_ni, .engine_sel_i (busy),
    .host_re_i (win_re[WinA]), .host_we_i (win_we[WinA]), .host_off_i (win_off), .host_wdata_i (win_wdata),
    .host_wstrb_i (win_wstrb), .host_rdata_o (win_rdata[WinA]),
    .eng_re_i (a_re || dma_re[0]), .eng_raddr_i (a_re ? a_addr : AAddrW'(dma_addr)), .eng_rdata_o (a_rdata),
    .eng_we_i (move_we_a || dma_we[0]), .eng_waddr_i (AAddrW'(move_we_a ? move_waddr : dma_addr)),
    .eng_be_i (move_we_a ? '1 : dma_be[NumRows-1:0]),
    .eng_wdata_i (move_we_a ? move_wdata[8*NumRows-1:0] : dma_wdata[8*NumRows-1:0])
  );

  qacc_sram_win #(.Depth(BDepth), .WordBytes(NumCols)) u_b_sram (
    .clk_i, .rst_ni, .engine_sel_i (busy),
    .host_re_i (win_re[WinB]), .host_we_i (win_we[WinB]), .host_off_i (win_off), .host_wdata_i (win_wdata),
    .host_wstrb_i (win_wstrb), .host_rdata_o (win_rdata[WinB]),
    .eng_re_i (b_re || dma_re[1]), .eng_raddr_i (b_re ? b_addr : BAddrW'(dma_addr)), .eng_rdata_o (b_rdata),
    .eng_we_i (move_we_b || dma_we[1]), .eng_waddr_i (BAddrW'(move_we_b ? move_waddr : dma_addr)),
    .eng_be_i (move_we_b ? '1 : dma_be[NumCols-1:0]),
    .eng_wdata_i (move_we_b ? move_wdata[8*NumCols-1:0] : dma_wdata[8*NumCols-1:0])
  );

  qacc_sram_win #(.Depth(BiasDepth), .WordBytes(4 * NumCols)) u_bias_sram (
    .clk_i, .rst_ni, .engine_sel_i (busy),
    .host_re_i (win_re[WinBias]), .host_we_i (win_we[WinBias]), .host_off_i (win_off), .host_wdata_i (win_wdata),
    .host_wstrb_i (win_wstrb), .host_rdata_o (win_rdata[WinBias]),
    .eng_re_i (bias_re || dma_re[2]), .eng_raddr_i (bias_re ? bias_addr : BiasAddrW'(dma_addr)),
    .eng_rdata_o (bias_rdata),
    .eng_we_i (dma_we[2]), .eng_waddr_i (BiasAddrW'(dma_addr)), .eng_be_i (dma_be[4*NumCols-1:0]),
    .eng_wdata_i (dma_wdata[32*NumCols-1:0])
  );

  qacc_sram_win #(.Depth(RqDepth), .WordBytes(8 * NumCols)) u_rq_sram (
    .clk_i, .rst_ni, .engine_sel_i (busy),
    .host_re_i (win_re[WinRq]), .host_we_i (win_we[WinRq]), .host_off_i (win_off), .host_wdata_i (win_wdata),
    .host_wstrb_i (win_wstrb), .host_rdata_o (win_rdata[WinRq]),
    .eng_re_i (rq_re || dma_re[3]), .eng_raddr_i (rq_re ? rq_addr : RqAddrW'(dma_addr)), .eng_rdata_o (rq_rdata),
    .eng_we_i (dma_we[3]), .eng_waddr_i (RqAddrW'(dma_addr)), .eng_be_i (dma_be), .eng_wdata_i (dma_wdata)
  );

  qacc_sram_win #(.Depth(OutDepth), .WordBytes(OutBytes)) u_out_sram (
    .clk_i, .rst_ni, .engine_sel_i (busy),
    .host_re_i (win_re[WinOut]), .host_we_i (win_we[WinOut]), .host_off_i (win_off), .host_wdata_i (win_wdata),
    .host_wstrb_i (win_wstrb), .host_rdata_o (win_rdata[WinOut]),
    .eng_re_i (elt_re || move_re || dma_re[4]),
    .eng_raddr_i (OutAddrW'(elt_re ? elt_raddr : move_re ? move_raddr : dma_addr)),
    .eng_rdata_o (out_rdata),
    .eng_we_i (out_we || elt_we || dma_we[4]),
    .eng_waddr_i (out_we ? out_addr : OutAddrW'(elt_we ? elt_waddr : dma_addr)),
    .eng_be_i (out_we ? out_be : elt_we ? '1 : dma_be[OutBytes-1:0]),
    .eng_wdata_i (out_we ? out_wdata : elt_we ? elt_wdata : dma_wdata[8*OutBytes-1:0])
  );

  // The LUT table SRAM (lut.md 10.1, 10.2): the window and the DMA through port A of its copies, the LUT unit's
  // lanes through both ports.
  qacc_lut_sram #(.NumCols(NumCols), .Slots(LutSlots)) u_lut_sram (
    .clk_i, .rst_ni, .engine_sel_i (busy),
    .host_re_i (win_re[WinLut]), .host_we_i (win_we[WinLut]), .host_off_i (win_off), .host_wdata_i (win_wdata),
    .host_wstrb_i (win_wstrb), .host_rdata_o (win_rdata[WinLut]),
    .eng_re_i (dma_re[5]), .eng_raddr_i (LutAddrW'(dma_addr)), .eng_rdata_o (lut_rdata),
    .eng_we_i (dma_we[5]), .eng_waddr_i (LutAddrW'(dma_addr)), .eng_be_i (dma_be[LutWordBytes-1:0]),
    .eng_wdata_i (dma_wdata[8*LutWordBytes-1:0]),
    .lane_re_i (lut_lane_re), .lane_addr_i (lut_lane_addr), .lane_rdata_o (lut_lane_rdata)
  );

  // The requant unit uses a tile's bias and rq words for R beats after their read (7); a DMA read of the same
  // SRAM in between (a STORE, 17.6) replaces the SRAM's read data, so the words of the controller's last read are
  // kept here. The slope's rq word (requant.md 6.3), read one cycle later, is not the requant unit's: the slope
  // unit keeps it itself.
  logic                              ctrl_bias_rd_q, ctrl_rq_rd_q;
  logic [NumCols-1:0][ACC_W-1:0]     bias_hold_q, bias_word;
  logic [NumCols-1:0][63:0]          rq_hold_q, rq_word;

  assign bias_word = ctrl_bias_rd_q ? bias_rdata : bias_hold_q;
  assign rq_word   = ctrl_rq_rd_q ? rq_rdata : rq_hold_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ctrl_bias_rd_q <= 1'b0;
      ctrl_rq_rd_q   <= 1'b0;
    end else begin
      ctrl_bias_rd_q <= bias_re;
      ctrl_rq_rd_q   <= rq_re && !rq_slope;
    end
  end

  // Data, loaded in the cycle after the controller's read (not reset, spec 10).
  always_ff @(posedge clk_i) begin
    bias_hold_q <= bias_word;
    rq_hold_q   <= rq_word;
  end

  // ---- MAC array and requant unit ---------------------------------------------------------------------------------
  // The units' configuration: the fields of the command that the MAC array and the requant unit read, registered
  // every cycle. The command changes only while the controller is idle (a launch, a RUN, a CMD_* write), and the
  // units hold data only while it is busy, so the copy equals the command whenever a unit uses it (UnitCfg_A).
  // Registered, the units' wide combinational cones hang off flops, not off the paths from the host bus and the
  // queue's head: shorter paths in silicon, and in Verilator logic that the input-driven region, evaluated on
  // both clock phases, no longer holds (units.md 21.4).
  typedef struct packed {
    logic signed [ZP_W-1:0]          a_zp;
    logic signed [8:0]               b_zp;
    logic                            a_unsigned;
    logic                            b_unsigned;
    logic                            per_channel;
    logic                            bias_en;
    rq_form_e                        rq_form;
    rq_rounding_e                    rounding;
    rshift_round_e                   rshift_round;
    mult_width_e                     mult_width;
    logic                            out_raw;
    logic [MULT_W-1:0]               mult;
    logic [SHIFT_W-1:0]              shift;
    logic signed [31:0]              zp_out;
    logic signed [31:0]              clamp_min;
    logic signed [31:0]              clamp_max;
    logic                            lut;          // ACT = LUT (lut.md 10.4)
    logic [LUT_SLOT_W-1:0]           lut_slot;
    logic [LUT_IN_BITS_W-1:0]        lut_in_bits;
    logic                            lut16;        // LUT_ENTRY_BITS = 16
    logic                            slope;        // ACT = SLOPE (requant.md 6.2)
    logic                            slope_per_channel;  // the NEG side from the rq SRAM (requant.md 6.3)
    slope_cfg_t                      slope_cfg;    // the slope registers: command state (units.md 19.3)
  } unit_cfg_t;
  unit_cfg_t unit_cfg, unit_cfg_q;

  always_comb begin
    unit_cfg.a_zp        = cmd.a_zp;
    unit_cfg.b_zp        = cmd.b_zp;
    unit_cfg.a_unsigned  = cmd.a_unsigned;
    unit_cfg.b_unsigned  = cmd.b_unsigned;
    unit_cfg.per_channel = cmd.per_channel;
    unit_cfg.bias_en     = cmd.bias_en;
    unit_cfg.rq_form     = cmd.rq_form;
    unit_cfg.rounding    = cmd.rounding;
    unit_cfg.rshift_round = cmd.rshift_round;
    unit_cfg.mult_width  = cmd.mult_width;
    unit_cfg.out_raw     = cmd.out_raw;
    unit_cfg.mult        = cmd.mult;
    unit_cfg.shift       = cmd.shift;
    unit_cfg.zp_out      = cmd.zp_out;
    unit_cfg.clamp_min   = cmd.clamp_min;
    unit_cfg.clamp_max   = cmd.clamp_max;
    unit_cfg.lut         = cmd.act == ActLut;
    unit_cfg.lut_slot    = cmd.lut_slot;
    unit_cfg.lut_in_bits = cmd.lut_in_bits;
    unit_cfg.lut16       = cmd.lut_entry_bits == MODE_LUT_ENTRY_BITS_W'(16);
    unit_cfg.slope       = cmd.act == ActSlope;
    unit_cfg.slope_per_channel = cmd.slope_per_channel;
    unit_cfg.slope_cfg   = slope_cfg;
  end

  // Not reset: read only while the controller is busy, after a cycle with the command in place.
  always_ff @(posedge clk_i) begin
    unit_cfg_q <= unit_cfg;
  end

  qacc_mac_array #(
    .NumRows (NumRows),
    .NumCols (NumCols)
  ) u_mac_array (
    .clk_i,
    .rst_ni,
    .a_zp_i       (unit_cfg_q.a_zp),
    .b_zp_i       (unit_cfg_q.b_zp),
    .a_unsigned_i (unit_cfg_q.a_unsigned),
    .b_unsigned_i (unit_cfg_q.b_unsigned),
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

  // An rq lane: the multiplier word and the shift word's low SHIFT_W bits, which the rq SRAM keeps (3.3). The
  // lanes check per-channel values, which launch does not (MultRange_A and the others of qacc_requant_lane).
  logic [NumCols-1:0][MULT_W-1:0]  rq_mult;
  logic [NumCols-1:0][SHIFT_W-1:0] rq_shift;
  logic                            unused_rq_bits;

  always_comb begin
    unused_rq_bits = 1'b0;
    for (int c = 0; c < NumCols; c++) begin
      rq_mult[c]     = rq_word[c][MULT_W-1:0];
      rq_shift[c]    = rq_word[c][32 +: SHIFT_W];
      unused_rq_bits ^= ^rq_word[c][63:32+SHIFT_W];
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
    .in_bias_i     (bias_word),
    .in_mult_i     (rq_mult),
    .in_shift_i    (rq_shift),
    .per_channel_i (unit_cfg_q.per_channel),
    .bias_en_i     (unit_cfg_q.bias_en),
    .form_i        (unit_cfg_q.rq_form),
    .rounding_i    (unit_cfg_q.rounding),
    .rshift_round_i (unit_cfg_q.rshift_round),
    .mult_width_i  (unit_cfg_q.mult_width),
    .out_raw_i     (unit_cfg_q.out_raw),
    .mult_i        (unit_cfg_q.mult),
    .shift_i       (unit_cfg_q.shift),
    .zp_out_i      (unit_cfg_q.zp_out),
    .clamp_min_i   (unit_cfg_q.clamp_min),
    .clamp_max_i   (unit_cfg_q.clamp_max),
    .out_valid_o   (rq_out_valid),
    .out_row_o     (rq_out_row),
    .out_last_o    (rq_out_last),
    .out_data_o    (rq_out_data)
  );

  // ---- LUT unit (lut.md 10.4): with ACT = LUT, the requant output's codes through the tables, L_lut later; it
  // hands the out writer its own beat then, requant's otherwise -----------------------------------------------------
  // While an ELTWISE runs (elt_busy: from the cycle after its start, before its first lookup, to its last write,
  // after its last entry) the unit is that command's: its codes in, its descriptor's LUT fields, its entries back to
  // it (lut.md 10.5). Its beats are not the GEMM's: neither the out writer nor slot BEAT_LUT (PERF_LUT_BUSY) sees
  // them. One compute command runs at a time, so the GEMM's beats never meet an ELTWISE.
  logic                        lut_in_beat, lut_out_valid, lut_out_last, lut_wr_valid, lut_wr_last;
  logic [RowIdxW-1:0]          lut_wr_row;
  logic [NumCols-1:0][31:0]    lut_wr_data;
  logic [RowIdxW-1:0]          lut_out_row;
  logic [NumCols-1:0][15:0]    lut_out_entry;
  logic [NumCols-1:0][31:0]    lut_out_data, elt_lut_data;

  always_comb begin
    for (int c = 0; c < NumCols; c++) begin
      lut_out_data[c] = 32'(lut_out_entry[c]);  // the monitor's lanes: the entries, zero-extended
      elt_lut_data[c] = 32'(elt_lut_code[c]);   // the unit reads a lane's low 8 bits
    end
  end

  qacc_lut_unit #(
    .NumRows (NumRows),
    .NumCols (NumCols),
    .Slots   (LutSlots)
  ) u_lut (
    .clk_i,
    .rst_ni,
    .active_i     (elt_busy || unit_cfg_q.lut),
    .slot_i       (elt_busy ? cmp_head_elt.lut_slot : unit_cfg_q.lut_slot),
    .in_bits_i    (elt_busy ? cmp_head_elt.lut_in_bits : unit_cfg_q.lut_in_bits),
    .entry16_i    (elt_busy ? cmp_head_elt.lut_entry_bits == ELTWISE_LUT_ENTRY_BITS_W'(16) : unit_cfg_q.lut16),
    .in_valid_i   (elt_busy ? elt_lut_valid : rq_out_valid),
    .in_row_i     (elt_busy ? '0 : rq_out_row),
    .in_last_i    (elt_busy ? 1'b0 : rq_out_last),
    .in_data_i    (elt_busy ? elt_lut_data : rq_out_data),
    .in_beat_o    (lut_in_beat),
    .lane_re_o    (lut_lane_re),
    .lane_addr_o  (lut_lane_addr),
    .lane_rdata_i (lut_lane_rdata),
    .out_valid_o  (lut_out_valid),
    .out_row_o    (lut_out_row),
    .out_last_o   (lut_out_last),
    .out_entry_o  (lut_out_entry),
    .wr_valid_o   (lut_wr_valid),
    .wr_row_o     (lut_wr_row),
    .wr_last_o    (lut_wr_last),
    .wr_data_o    (lut_wr_data)
  );

  // ---- Slope stage (requant.md 6.2): with ACT = SLOPE, requant's codes (the LUT unit passes them on) through
  // LeakyReLU's second stage, L_slope later; it hands the out writer its own beat then, the LUT unit's otherwise --
  logic                        slope_in_beat, slope_out_valid, slope_out_last;
  logic [RowIdxW-1:0]          slope_out_row;
  logic [NumCols-1:0][31:0]    slope_out_data;

  qacc_slope_unit #(
    .NumRows (NumRows),
    .NumCols (NumCols)
  ) u_slope (
    .clk_i,
    .rst_ni,
    .active_i    (unit_cfg_q.slope),
    .cfg_i       (unit_cfg_q.slope_cfg),
    .per_channel_i (unit_cfg_q.slope_per_channel),
    .word_valid_i  (slope_word),
    .word_i        (rq_rdata),
    .zp_in_i     (unit_cfg_q.zp_out),
    .in_valid_i  (lut_wr_valid && !elt_busy),
    .in_row_i    (lut_wr_row),
    .in_last_i   (lut_wr_last),
    .in_data_i   (lut_wr_data),
    .in_beat_o   (slope_in_beat),
    .out_valid_o (slope_out_valid),
    .out_row_o   (slope_out_row),
    .out_last_o  (slope_out_last),
    .out_data_o  (slope_out_data),
    .wr_valid_o  (wr_in_valid),
    .wr_row_o    (wr_in_row),
    .wr_last_o   (wr_in_last),
    .wr_data_o   (wr_in_data)
  );

  // ---- ELTWISE (lut.md 10.5): the out SRAM through the add lanes and the LUT unit, back into the out SRAM ---------
  qacc_eltwise #(
    .NumCols  (NumCols),
    .OutDepth (OutDepth)
  ) u_elt (
    .clk_i,
    .rst_ni,
    .start_i     (elt_start),
    .desc_i      (cmp_head_elt),
    .done_o      (elt_done),
    .busy_o      (elt_busy),
    .re_o        (elt_re),
    .raddr_o     (elt_raddr),
    .rdata_i     (out_rdata),
    .we_o        (elt_we),
    .waddr_o     (elt_waddr),
    .wdata_o     (elt_wdata),
    .lut_valid_o (elt_lut_valid),
    .lut_code_o  (elt_lut_code),
    .lut_entry_i (lut_out_entry)
  );

  // ---- Monitors ---------------------------------------------------------------------------------------------------

  assign mon_busy_o         = busy;
  assign mon_done_o         = status_done;
  assign mon_mac_in_valid_o = mac_in_valid;
  assign mon_mac_in_last_o  = mac_in_last;
  // A unit's input beats, counted by its PERF_<x>_BUSY (units.md 21.2): the feeder's beats for the MAC array,
  // the MAC array's output beats for requant, requant's output beats for the LUT unit with ACT = LUT.
  assign unit_in_beat[BEAT_MAC]         = mac_in_valid;
  assign unit_in_beat[BEAT_REQUANT]     = mac_out_valid;
  assign unit_in_beat[BEAT_LUT]         = lut_in_beat && !elt_busy;  // a GEMM's only (the LUT unit above)
  assign mon_beat_valid_o[BEAT_MAC]     = mac_out_valid;
  assign mon_beat_row_o[BEAT_MAC]       = mac_out_row;
  assign mon_beat_last_o[BEAT_MAC]      = mac_out_last;
  assign mon_beat_lanes_o[BEAT_MAC]     = mac_out_acc;
  assign mon_beat_valid_o[BEAT_REQUANT] = rq_out_valid;
  assign mon_beat_row_o[BEAT_REQUANT]   = rq_out_row;
  assign mon_beat_last_o[BEAT_REQUANT]  = rq_out_last;
  assign mon_beat_lanes_o[BEAT_REQUANT] = rq_out_data;
  assign mon_beat_valid_o[BEAT_LUT]     = lut_out_valid && !elt_busy;
  assign mon_beat_row_o[BEAT_LUT]       = lut_out_row;
  assign mon_beat_last_o[BEAT_LUT]      = lut_out_last;
  assign mon_beat_lanes_o[BEAT_LUT]     = lut_out_data;
  assign unit_in_beat[BEAT_SLOPE]       = slope_in_beat;
  assign mon_beat_valid_o[BEAT_SLOPE]   = slope_out_valid;
  assign mon_beat_row_o[BEAT_SLOPE]     = slope_out_row;
  assign mon_beat_last_o[BEAT_SLOPE]    = slope_out_last;
  assign mon_beat_lanes_o[BEAT_SLOPE]   = slope_out_data;
  assign mon_out_we_o       = out_we;
  assign mon_out_addr_o     = WINDOW_BITS'(out_addr);
  assign mon_out_be_o       = out_be;
  assign mon_out_wdata_o    = out_wdata;
  assign mon_cmd_o          = cmd;

  assign mon_dma_re_o     = |dma_re;
  assign mon_dma_we_o     = |dma_we;
  assign mon_dma_sram_o   = (|dma_re || |dma_we) ? dma_head.w[DMA_SRAM_WORD][DMA_SRAM_LSB +: SRAM_ID_W] : '0;
  assign mon_dma_addr_o   = (|dma_re || |dma_we) ? dma_addr : '0;
  assign mon_dma_be_o     = dma_be;
  assign mon_dma_wdata_o  = dma_wdata;
  assign mon_move_re_o    = move_re;
  assign mon_move_raddr_o = move_re ? move_raddr : '0;
  assign mon_move_we_o    = move_we_a || move_we_b;
  assign mon_move_dst_o   = move_we_a ? SRAM_ID_W'(RegionA) : move_we_b ? SRAM_ID_W'(RegionB) : '0;
  assign mon_move_waddr_o = (move_we_a || move_we_b) ? move_waddr : '0;
  assign mon_move_wdata_o = (move_we_a || move_we_b) ? move_wdata : '0;
  assign mon_out_acc_re_o    = elt_re;
  assign mon_out_acc_raddr_o = elt_re ? elt_raddr : '0;
  assign mon_out_acc_we_o    = elt_we;
  assign mon_out_acc_waddr_o = elt_we ? elt_waddr : '0;
  assign mon_out_acc_wdata_o = elt_we ? elt_wdata : '0;

  // Address bits above an SRAM's depth: validation keeps every access inside it.
  logic unused_top;
  assign unused_top = ^{dma_addr, move_raddr, move_waddr, move_wdata, elt_raddr, elt_waddr};

`ifndef SYNTHESIS
  UnitCfg_A: assert property (@(posedge clk_i) disable iff (!rst_ni) ctrl_busy |-> unit_cfg_q == unit_cfg);
  // One compute command at a time: no GEMM beat comes to the LUT unit while it is an ELTWISE's.
  EltLut_A: assert property (@(posedge clk_i) disable iff (!rst_ni) elt_busy |-> !rq_out_valid);
  // Likewise the out SRAM's ports: the compute engine's users of each exclude each other.
  EltOut_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (elt_re || elt_we) |-> !move_re && !out_we);
`endif

endmodule
