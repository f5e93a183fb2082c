// The program controller (data_movement.md 14, 17): launch, the fetcher and the two engine queues, the token
// counters, start and retirement of each engine's head, stops and errors, the end of the program and its perf
// counters (17.8). Every decision is taken on the values at the start of the cycle (the flops), so two events of
// one cycle never depend on their order.
//   start     an idle engine starts its head at s when the queue is not empty (the head was pushed before s),
//             nothing is stopped and, with WAIT, the counter towards it is above 0 (taken at the end of s). The
//             engine reads the head's fields in place from s on: a descriptor keeps its slot until it retires.
//   retire    at its completion e, or later while its SIGNAL waits for a counter below MAX_TOKENS; frees the slot,
//             counts in Q_RETIRED and gives the token at the end of that cycle.
//   end       at the first quiet cycle t (17.7): done_o, with the recorded error of the lowest index, or DEADLOCK
//             (the lowest index at the head of a queue) when fewer than Q_COUNT descriptors retired.
module qacc_prog
  import qacc_pkg::*;
#(
  parameter int unsigned NumRows        = 8,
  parameter int unsigned NumCols        = 8,
  parameter int unsigned ADepth         = 8192,
  parameter int unsigned BDepth         = 8192,
  parameter int unsigned BiasDepth      = 256,
  parameter int unsigned RqDepth        = 256,
  parameter int unsigned OutDepth       = 8192,
  parameter int unsigned LutSlots       = 4,
  parameter int unsigned DataBytes      = 16,
  parameter int unsigned MaxOutstanding = 4,
  localparam int unsigned InflightW     = $clog2(MaxOutstanding + 1)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,

  // Registers (14.1).
  input  logic                   run_i,         // CTRL.RUN written: cycle 0 is the next one
  input  logic                   start_i,       // CTRL.START written: clears the perf counters of 17.8
  input  logic [31:0]            q_base_i,
  input  logic [DIM_W-1:0]       q_count_i,
  output logic                   busy_o,        // the program runs (STATUS.BUSY)
  output logic                   done_o,        // the program ends at the end of this cycle
  output err_code_e              err_code_o,    // with done_o
  output logic [DIM_W-1:0]       q_retired_o,
  output logic [DIM_W-1:0]       q_err_index_o,
  output logic [3:0]             d2c_o,
  output logic [3:0]             c2d_o,
  output logic [6:0][31:0]       perf_o,        // PERF_DMA_BUSY .. PERF_WR_BEATS

  // Descriptor fetches through the read port.
  output logic                   fetch_req_o,
  output logic [31:0]            fetch_addr_o,
  output logic [3:0]             fetch_len_o,
  input  logic                   fetch_issue_i,
  input  logic                   fetch_r_valid_i,
  input  logic [8*DataBytes-1:0] r_data_i,
  input  logic [1:0]             r_resp_i,
  input  logic                   rd_beat_i,     // any read data beat (PERF_RD_BEATS)
  input  logic                   wr_beat_i,     // any write data handshake (PERF_WR_BEATS)
  input  logic [InflightW-1:0]   rd_inflight_i, // read bursts in flight
  input  logic                   wr_inflight_i, // a write burst awaits its response

  // DMA engine: its head, start, completion, fault.
  output desc_t                  dma_head_o,
  output logic                   dma_start_o,
  input  logic                   dma_done_i,    // completes its command in this cycle
  input  logic                   dma_abort_i,   // stopped: its command stops running after this cycle
  input  logic                   dma_fault_i,   // an error response of its command, recorded at the end of this cycle
  input  logic                   dma_stall_i,   // a step waits for an SRAM port (PERF_PORT_STALL)
  output logic                   stop_o,        // an EXT_FAULT was recorded before this cycle

  // Compute engine: GEMM through the controller, MOVE, ELTWISE.
  output desc_t                  cmp_head_o,
  output logic                   gemm_go_o,
  output logic                   move_start_o,
  output logic                   elt_start_o,
  output logic                   set_o,         // a SET starts and completes: its registers written at the end
  input  logic                   cmp_done_i,    // the GEMM, MOVE or ELTWISE completes in this cycle
  input  logic                   slope_legal_i, // the slope registers are legal now (the fetcher's BAD_SLOPE)

  output mon_q_t                 mon_q_o
);

  typedef enum logic [1:0] {
    StIdle,
    StLaunch,  // cycle 0: Q_COUNT checked
    StRun
  } state_e;

  state_e state_d, state_q;
  logic   launch_check, running;

  assign launch_check = state_q == StLaunch;
  assign running      = state_q == StRun;

  // ---- Fetcher and queues ---------------------------------------------------------------------------------------
  desc_t      fetched;
  logic       push_dma, push_cmp, fetch_err, fetch_active;
  err_code_e  fetch_err_code;
  logic [2:0] dma_count, cmp_count;
  logic       dma_retire, cmp_retire;
  logic       stop_d, stop_q;

  qacc_fetch #(
    .NumRows   (NumRows),
    .NumCols   (NumCols),
    .ADepth    (ADepth),
    .BDepth    (BDepth),
    .BiasDepth (BiasDepth),
    .RqDepth   (RqDepth),
    .OutDepth  (OutDepth),
    .LutSlots  (LutSlots),
    .DataBytes (DataBytes)
  ) u_fetch (
    .clk_i,
    .rst_ni,
    .clear_i    (run_i),
    .start_i    (launch_check && q_count_i != '0),
    .q_base_i,
    .q_count_i,
    .stop_i     (stop_q),
    .slope_legal_i,
    .ar_req_o   (fetch_req_o),
    .ar_addr_o  (fetch_addr_o),
    .ar_len_o   (fetch_len_o),
    .ar_issue_i (fetch_issue_i),
    .r_valid_i  (fetch_r_valid_i),
    .r_data_i,
    .r_resp_i,
    .push_dma_o (push_dma),
    .push_cmp_o (push_cmp),
    .desc_o     (fetched),
    .dma_full_i (32'(dma_count) == QUEUE_DEPTH),
    .cmp_full_i (32'(cmp_count) == QUEUE_DEPTH),
    .err_o      (fetch_err),
    .err_code_o (fetch_err_code),
    .active_o   (fetch_active)
  );

  qacc_fifo #(
    .Width ($bits(desc_t)),
    .Depth (QUEUE_DEPTH)
  ) u_dma_queue (
    .clk_i,
    .rst_ni,
    .clear_i (run_i),
    .push_i  (push_dma),
    .data_i  (fetched),
    .pop_i   (dma_retire),
    .head_o  (dma_head_o),
    .count_o (dma_count)
  );

  qacc_fifo #(
    .Width ($bits(desc_t)),
    .Depth (QUEUE_DEPTH)
  ) u_cmp_queue (
    .clk_i,
    .rst_ni,
    .clear_i (run_i),
    .push_i  (push_cmp),
    .data_i  (fetched),
    .pop_i   (cmp_retire),
    .head_o  (cmp_head_o),
    .count_o (cmp_count)
  );

  // ---- Engines and tokens ---------------------------------------------------------------------------------------
  // run: between the start (exclusive) and the completion or stop (inclusive); hold: completed, SIGNAL waiting.
  logic       dma_run_d, dma_run_q, dma_hold_d, dma_hold_q, cmp_run_d, cmp_run_q, cmp_hold_d, cmp_hold_q;
  logic       dma_idle, cmp_idle, dma_start, cmp_start, dma_complete, cmp_complete;
  logic       dma_token_wait, cmp_token_wait;
  logic [3:0] d2c_d, d2c_q, c2d_d, c2d_q;  // tokens DMA -> compute, compute -> DMA

  assign dma_idle  = !dma_run_q && !dma_hold_q;
  assign cmp_idle  = !cmp_run_q && !cmp_hold_q;
  // Queues hold descriptors only while the program runs, or after it ended with a stop or a DEADLOCK, where nothing
  // can start any more (StartRunning_A); an engine is done only with the command it runs (DmaDone_A, CmpDone_A).
  assign dma_start = dma_idle && dma_count != '0 && !stop_q && (!dma_head_o.wait_tok || c2d_q != '0);
  assign cmp_start = cmp_idle && cmp_count != '0 && !stop_q && (!cmp_head_o.wait_tok || d2c_q != '0);
  assign dma_complete = dma_done_i;
  // A SET completes in its start cycle (units.md 19.4); the others when their unit says so.
  assign cmp_complete = cmp_done_i || set_o;
  assign dma_retire = (dma_complete || dma_hold_q) && (!dma_head_o.signal || 32'(d2c_q) < MAX_TOKENS);
  assign cmp_retire = (cmp_complete || cmp_hold_q) && (!cmp_head_o.signal || 32'(c2d_q) < MAX_TOKENS);
  // Waiting for a token (PERF_*_WAIT): the head's WAIT at 0, or a completed SIGNAL at MAX_TOKENS. Counted only
  // while BUSY; in cycle 0 both are 0 (the RUN cleared the queues and the engines).
  assign dma_token_wait = (dma_idle && dma_count != '0 && dma_head_o.wait_tok && c2d_q == '0) ||
                          ((dma_complete || dma_hold_q) && !dma_retire);
  assign cmp_token_wait = (cmp_idle && cmp_count != '0 && cmp_head_o.wait_tok && d2c_q == '0) ||
                          ((cmp_complete || cmp_hold_q) && !cmp_retire);

  assign dma_start_o  = dma_start;
  assign gemm_go_o    = cmp_start && cmp_head_o.op == OpGemm;
  assign move_start_o = cmp_start && cmp_head_o.op == OpMove;
  assign elt_start_o  = cmp_start && cmp_head_o.op == OpEltwise;
  assign set_o        = cmp_start && cmp_head_o.op == OpSet;

  always_comb begin
    dma_run_d  = dma_start || (dma_run_q && !dma_done_i && !dma_abort_i);
    cmp_run_d  = (cmp_start && !set_o) || (cmp_run_q && !cmp_done_i);
    dma_hold_d = (dma_complete || dma_hold_q) && !dma_retire;
    cmp_hold_d = (cmp_complete || cmp_hold_q) && !cmp_retire;
    d2c_d = d2c_q + 4'(dma_retire && dma_head_o.signal) - 4'(cmp_start && cmp_head_o.wait_tok);
    c2d_d = c2d_q + 4'(cmp_retire && cmp_head_o.signal) - 4'(dma_start && dma_head_o.wait_tok);
    if (run_i) begin
      dma_run_d  = 1'b0;
      cmp_run_d  = 1'b0;
      dma_hold_d = 1'b0;
      cmp_hold_d = 1'b0;
      d2c_d      = '0;
      c2d_d      = '0;
    end
  end

  // ---- Errors ---------------------------------------------------------------------------------------------------
  // The recorded error of the lowest descriptor index wins; at equal indices the first recorded (14.3, 17.7).
  logic                  err_valid_d, err_valid_q;
  err_code_e             err_d, err_q;
  logic [DESC_IDX_W-1:0] err_idx_d, err_idx_q;

  always_comb begin
    err_valid_d = err_valid_q;
    err_d       = err_q;
    err_idx_d   = err_idx_q;
    stop_d      = stop_q;
    // A DMA error belongs to the DMA's head, which was fetched before any descriptor the fetcher holds. The
    // fetcher's error is always the first one recorded: its own error stops it, and so does an EXT_FAULT
    // (FetchErrFirst_A). So a DMA error always has the lowest index: below a recorded fetcher error, or equal to
    // the DMA's own earlier one (a later error response of the same transfer), which it records again unchanged
    // (DmaErrLowest_A).
    if (dma_fault_i) begin
      err_valid_d = 1'b1;
      err_d       = ErrExtFault;
      err_idx_d   = dma_head_o.index;
    end else if (fetch_err) begin
      err_valid_d = 1'b1;
      err_d       = fetch_err_code;
      err_idx_d   = fetched.index;
    end
    if (dma_fault_i || (fetch_err && fetch_err_code == ErrExtFault)) begin
      stop_d = 1'b1;
    end
    if (run_i) begin
      err_valid_d = 1'b0;
      stop_d      = 1'b0;
    end
  end

  // ---- End of the program ---------------------------------------------------------------------------------------
  logic                  quiet, finish;
  logic [DIM_W-1:0]      retired_d, retired_q;
  logic [DESC_IDX_W-1:0] err_index_d, err_index_q, deadlock_idx;
  err_code_e             end_code;

  assign quiet = rd_inflight_i == '0 && !wr_inflight_i && !fetch_active && !dma_run_q && !cmp_run_q &&
                 !dma_start && !cmp_start && !dma_retire && !cmp_retire;

  always_comb begin
    deadlock_idx = '1;
    if (dma_count != '0) begin
      deadlock_idx = dma_head_o.index;
    end
    if (cmp_count != '0 && cmp_head_o.index < deadlock_idx) begin
      deadlock_idx = cmp_head_o.index;
    end
    if (launch_check) begin
      end_code = ErrBadShape;  // Q_COUNT = 0 (14.1): index 0
    end else if (err_valid_q) begin
      end_code = err_q;
    end else if (retired_q != q_count_i) begin
      end_code = ErrDeadlock;
    end else begin
      end_code = ErrNone;
    end
  end

  assign finish = (launch_check && q_count_i == '0) || (running && quiet);

  always_comb begin
    state_d     = state_q;
    retired_d   = retired_q + DIM_W'(dma_retire) + DIM_W'(cmp_retire);
    err_index_d = err_index_q;
    unique case (state_q)
      StIdle:   state_d = run_i ? StLaunch : StIdle;
      StLaunch: state_d = finish ? StIdle : StRun;
      StRun:    state_d = finish ? StIdle : StRun;
      default:  state_d = StIdle;
    endcase
    if (finish) begin
      err_index_d = launch_check ? '0 : err_valid_q ? err_idx_q : (end_code == ErrDeadlock) ? deadlock_idx : '0;
    end
    if (run_i) begin
      retired_d   = '0;
      err_index_d = '0;
    end
  end

  assign busy_o     = state_q != StIdle;
  assign done_o     = finish;  // only in StLaunch or StRun: while busy
  assign err_code_o = end_code;

  // ---- Perf counters (17.8): cleared at every launch, counted while the program runs ----------------------------
  logic [6:0][31:0] perf_d, perf_q;
  logic [6:0]       perf_inc;

  assign perf_inc = {wr_beat_i, rd_beat_i, dma_stall_i, cmp_token_wait, dma_token_wait,
                     cmp_start || cmp_run_q, dma_start || dma_run_q};

  always_comb begin
    for (int i = 0; i < 7; i++) begin
      perf_d[i] = (run_i || start_i) ? '0 : perf_q[i] + 32'(busy_o && perf_inc[i]);
    end
  end

  // ---- Flops ----------------------------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= StIdle;
      dma_run_q   <= 1'b0;
      dma_hold_q  <= 1'b0;
      cmp_run_q   <= 1'b0;
      cmp_hold_q  <= 1'b0;
      d2c_q       <= '0;
      c2d_q       <= '0;
      retired_q   <= '0;
      err_index_q <= '0;
      perf_q      <= '0;
    end else begin
      state_q     <= state_d;
      dma_run_q   <= dma_run_d;
      dma_hold_q  <= dma_hold_d;
      cmp_run_q   <= cmp_run_d;
      cmp_hold_q  <= cmp_hold_d;
      d2c_q       <= d2c_d;
      c2d_q       <= c2d_d;
      retired_q   <= retired_d;
      err_index_q <= err_index_d;
      perf_q      <= perf_d;
    end
  end

  // The recorded error's code and index are read only with err_valid_q; err_valid_q and stop_q only while a
  // program runs, and its RUN clears them (not reset, spec 10).
  always_ff @(posedge clk_i) begin
    err_valid_q <= err_valid_d;
    stop_q      <= stop_d;
    err_q       <= err_d;
    err_idx_q   <= err_idx_d;
  end

  assign stop_o        = stop_q;
  assign q_retired_o   = retired_q;
  assign q_err_index_o = err_index_q;
  assign d2c_o         = d2c_q;
  assign c2d_o         = c2d_q;
  assign perf_o        = perf_q;

  always_comb begin
    mon_q_o.d2c            = d2c_q;
    mon_q_o.c2d            = c2d_q;
    mon_q_o.dma_count      = dma_count;
    mon_q_o.cmp_count      = cmp_count;
    mon_q_o.retired        = retired_q;
    mon_q_o.dma_start      = dma_start;
    mon_q_o.dma_start_idx  = dma_start ? dma_head_o.index : '0;
    mon_q_o.dma_retire     = dma_retire;
    mon_q_o.dma_retire_idx = dma_retire ? dma_head_o.index : '0;
    mon_q_o.cmp_start      = cmp_start;
    mon_q_o.cmp_start_idx  = cmp_start ? cmp_head_o.index : '0;
    mon_q_o.cmp_retire     = cmp_retire;
    mon_q_o.cmp_retire_idx = cmp_retire ? cmp_head_o.index : '0;
    // The cycles the wait and stall counters count (perf_inc while BUSY).
    mon_q_o.dma_wait       = busy_o && dma_token_wait;
    mon_q_o.cmp_wait       = busy_o && cmp_token_wait;
    mon_q_o.port_stall     = dma_stall_i;  // a DMA step runs only while BUSY
  end

`ifndef SYNTHESIS
  // The counters stay in 0..MAX_TOKENS: a WAIT takes only from a counter above 0, a SIGNAL gives only below 15.
  Tokens_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      32'(d2c_q) <= MAX_TOKENS && 32'(c2d_q) <= MAX_TOKENS);
  // An engine completes only the command it runs; a running engine's queue holds its command.
  DmaDone_A: assert property (@(posedge clk_i) disable iff (!rst_ni) dma_done_i |-> dma_run_q && !stop_q);
  CmpDone_A: assert property (@(posedge clk_i) disable iff (!rst_ni) cmp_done_i |-> cmp_run_q);
  StartRunning_A: assert property (@(posedge clk_i) disable iff (!rst_ni) dma_start || cmp_start |-> running);
  DmaHead_A: assert property (@(posedge clk_i) disable iff (!rst_ni) !dma_idle |-> dma_count != '0);
  CmpHead_A: assert property (@(posedge clk_i) disable iff (!rst_ni) !cmp_idle |-> cmp_count != '0);
  DmaOps_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      dma_count != '0 |-> dma_head_o.op inside {OpLoad, OpStore});
  CmpOps_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      cmp_count != '0 |-> cmp_head_o.op inside {OpGemm, OpMove, OpEltwise, OpSet});
  NoLaunchWhileBusy_A: assert property (@(posedge clk_i) disable iff (!rst_ni) run_i |-> !busy_o);
  FetchErrFirst_A: assert property (@(posedge clk_i) disable iff (!rst_ni) fetch_err |-> !err_valid_q);
  DmaErrLowest_A: assert property (@(posedge clk_i) disable iff (!rst_ni) dma_fault_i && err_valid_q |->
      dma_head_o.index < err_idx_q || (dma_head_o.index == err_idx_q && err_q == ErrExtFault));
`endif

endmodule
