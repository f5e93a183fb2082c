// The fetcher of a program (data_movement.md 14.2, 17.2): reads descriptor i as one burst of 64 / D beats at
// Q_BASE + 64 i, validates it in the cycle after its last beat (r + 1), and pushes it into its engine's queue at the
// end of the first cycle >= r + 1 in which that queue holds fewer than QUEUE_DEPTH descriptors. One descriptor at a
// time: the next address is asked for from the cycle after the push.
//   error    an error response on any beat (EXT_FAULT) or a failing check: recorded at r + 1 (err_o), then the
//            fetcher stops.
//   stop_i   an EXT_FAULT was recorded before this cycle: no more addresses, nothing validated or pushed; the beats
//            of a fetch in flight are taken and dropped.
module qacc_fetch
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
  parameter int unsigned DataBytes = 16
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  input  logic                  clear_i,     // CTRL.RUN written: forget the last program (a deadlock may end it
                                               // with a descriptor in hand)
  input  logic                  start_i,     // cycle 0 of a program with Q_COUNT > 0: fetch from cycle 1
  input  logic [31:0]           q_base_i,
  input  logic [DIM_W-1:0]      q_count_i,
  input  logic                  stop_i,
  input  logic                  slope_legal_i,  // the slope registers are legal now (requant.md 6.2)

  output logic                  ar_req_o,
  output logic [31:0]           ar_addr_o,
  output logic [3:0]            ar_len_o,
  input  logic                  ar_issue_i,
  input  logic                  r_valid_i,   // a beat of the descriptor in flight
  input  logic [8*DataBytes-1:0] r_data_i,
  input  logic [1:0]            r_resp_i,

  output logic                  push_dma_o,  // push desc_o into the DMA queue at the end of this cycle
  output logic                  push_cmp_o,  // ... into the compute queue
  output desc_t                 desc_o,
  input  logic                  dma_full_i,  // the queue holds QUEUE_DEPTH descriptors (start of cycle)
  input  logic                  cmp_full_i,

  output logic                  err_o,       // an error of descriptor desc_o.index, recorded at the end of this cycle
  output err_code_e             err_code_o,
  output logic                  active_o     // can issue, waits for beats, or can validate/push in this cycle
);

  localparam int unsigned Beats  = DESC_BYTES / DataBytes;
  localparam int unsigned BeatW  = (Beats > 1) ? $clog2(Beats) : 1;

  typedef enum logic [2:0] {
    StIdle,   // not in a program, fetched all, or stopped
    StIssue,  // asks for the address of descriptor idx_q
    StRecv,   // takes its beats
    StHold    // validates (first cycle) and waits for room in its queue
  } state_e;

  state_e                        state_d, state_q;
  logic [DIM_W-1:0]              idx_d, idx_q;
  logic [BeatW-1:0]              beat_d, beat_q;
  logic                          fault_d, fault_q;
  logic [Beats-1:0][8*DataBytes-1:0] buf_q;
  logic                          beat_last;
  desc_t                         desc;
  err_code_e                     check_err, err_code;
  logic                          to_dma, full, last_desc;

  assign beat_last = 32'(beat_q) == Beats - 1;

  // Requant.md 6.2: whether a SET into the slope block was pushed since the launch. The registers a GEMM fetched
  // after it reads at its start are then the last such SET's values, checked at that SET's fetch; before any, they
  // are the registers as the host left them, which no SET has changed yet. Every legal SET is the slope stage's
  // (the one unit with registers, set_regs_ok; SetSlope_A). Cleared by the RUN and read only while its program
  // runs, so not reset (spec 10).
  logic slope_seen_d, slope_seen_q, slope_ok;
  assign slope_ok     = slope_seen_q || slope_legal_i;
  assign slope_seen_d = !clear_i && (slope_seen_q || (push_cmp_o && desc.op == OpSet));

  // The descriptor in hand: 16 words, little endian, beat j holding bytes j*D .. j*D + D - 1. Field by field
  // (the header positions are qacc_pkg's HDR_*), not through a function: Verilator would copy the 16 words
  // through the function's temporaries in every cycle.
  logic [DESC_WORDS-1:0][31:0] words;
  assign words         = buf_q;
  assign desc.index    = idx_q;
  assign desc.op       = opcode_e'(words[HDR_WORD][HDR_OP_LSB +: OP_W]);
  assign desc.wait_tok = words[HDR_WORD][HDR_WAIT_BIT];
  assign desc.signal   = words[HDR_WORD][HDR_SIGNAL_BIT];
  assign desc.w        = words[HDR_WORD-1:0];

  qacc_desc_check #(
    .NumRows   (NumRows),
    .NumCols   (NumCols),
    .ADepth    (ADepth),
    .BDepth    (BDepth),
    .BiasDepth (BiasDepth),
    .RqDepth   (RqDepth),
    .OutDepth  (OutDepth),
    .LutSlots  (LutSlots)
  ) u_check (
    .desc_i     (desc),
    .slope_ok_i (slope_ok),
    .err_code_o (check_err)
  );

  assign err_code  = fault_q ? ErrExtFault : check_err;
  assign to_dma    = (desc.op == OpLoad) || (desc.op == OpStore);
  assign full      = to_dma ? dma_full_i : cmp_full_i;
  assign last_desc = idx_q == q_count_i - 1'b1;

  always_comb begin
    state_d    = state_q;
    idx_d      = idx_q;
    beat_d     = beat_q;
    fault_d    = fault_q;
    ar_req_o   = 1'b0;
    push_dma_o = 1'b0;
    push_cmp_o = 1'b0;
    err_o      = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (start_i) begin
          state_d = StIssue;
          idx_d   = '0;
        end
      end
      StIssue: begin
        ar_req_o = !stop_i;
        if (stop_i) begin
          state_d = StIdle;
        end else if (ar_issue_i) begin
          state_d = StRecv;
          beat_d  = '0;
          fault_d = 1'b0;
        end
      end
      StRecv: begin
        if (r_valid_i) begin
          beat_d  = beat_q + 1'b1;
          fault_d = fault_q || (r_resp_i != 2'b00);
          if (beat_last) begin
            state_d = stop_i ? StIdle : StHold;
          end
        end
      end
      StHold: begin
        if (stop_i) begin
          state_d = StIdle;
        end else if (err_code != ErrNone) begin
          err_o   = 1'b1;
          state_d = StIdle;
        end else if (!full) begin
          push_dma_o = to_dma;
          push_cmp_o = !to_dma;
          idx_d      = idx_q + 1'b1;
          state_d    = last_desc ? StIdle : StIssue;
        end
      end
      default: state_d = StIdle;
    endcase
    if (clear_i) begin
      state_d = StIdle;
    end
  end

  assign active_o = ((state_q == StIssue) || (state_q == StHold && (err_code != ErrNone || !full))) && !stop_i ||
                    (state_q == StRecv);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
    end else begin
      state_q <= state_d;
    end
  end

  // Index, beat counter, fault flag and the descriptor's beats are loaded before any use (spec 10).
  always_ff @(posedge clk_i) begin
    idx_q        <= idx_d;
    slope_seen_q <= slope_seen_d;
    beat_q       <= beat_d;
    fault_q      <= fault_d;
    if (state_q == StRecv && r_valid_i) begin
      buf_q[beat_q] <= r_data_i;
    end
  end

  assign ar_addr_o  = q_base_i + 32'({idx_q, 6'b0});  // mod 2^32
  assign ar_len_o   = 4'(Beats - 1);
  assign desc_o     = desc;
  assign err_code_o = err_code;

`ifndef SYNTHESIS
  Params_A: assert property (@(posedge clk_i) DataBytes inside {8, 16, 32, 64});
  // A beat comes only for the fetch in flight.
  BeatExpected_A: assert property (@(posedge clk_i) disable iff (!rst_ni) r_valid_i |-> state_q == StRecv);
  // The SETs pushed are the slope stage's (the flag above counts every one).
  SetSlope_A: assert property (@(posedge clk_i) disable iff (!rst_ni) push_cmp_o && desc.op == OpSet |->
      desc.w[SET_REG_WORD][SET_REG_LSB +: SET_REG_W] == SET_REG_W'(REG_SLOPE_POS_MULT >> 2));
`endif

endmodule
