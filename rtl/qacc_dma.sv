// The DMA engine (data_movement.md 12, 17.4, 17.5, 17.7): one LOAD or STORE at a time, the head of the DMA queue,
// read in place from its start cycle s on. A row is COUNT0 units, its bytes [a, a + COUNT0 * U); its beats
// floor(a / D) .. floor((a + COUNT0 * U - 1) / D) form bursts of at most MAX_BURST_BEATS, cut at every 4 KiB
// boundary. A step is one SRAM access: one beat slice of a unit when U >= D, one unit when U < D.
//   LOAD   requests: a burst per cycle from s, when the read buffer's credit (16 * MaxOutstanding beats at s) covers
//          it; writes: a step per cycle, once its beat arrived in an earlier cycle and the compute engine does not
//          write that SRAM in the cycle. Completes at its last write.
//   STORE  reads: a step per cycle from s, when the compute engine does not read that SRAM and, for a beat's last
//          step, the write buffer's credit (WR_BUF_BEATS at s) is at least 1; the data comes at c + 1 and a
//          completed beat enters the write buffer at the end of c + 1. A burst's address goes out with its first
//          step. Completes at the response of its last burst.
//   stop   (an EXT_FAULT recorded before this cycle) no more addresses; a LOAD writes nothing more and drops its
//          beats; a STORE finishes the burst it began and sends its buffered beats. The command then runs until
//          the first cycle at whose start nothing of it is in flight (abort_o), and neither completes nor retires.
// The rq shift word keeps bits [5:0] with bytes 1..3 zero on a load, and is sign-extended from bit 5 on a store.
module qacc_dma
  import qacc_pkg::*;
#(
  parameter int unsigned NumRows        = 8,
  parameter int unsigned NumCols        = 8,
  parameter int unsigned DataBytes      = 16,
  parameter int unsigned MaxOutstanding = 4,
  localparam int unsigned WordBytesMax  = sram_word_bytes_max(NumRows, NumCols),  // the widest SRAM word
  localparam int unsigned LutWordBytes  = LUT_WORD_ENTRIES * LUT_ENTRY_BYTES
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,

  input  logic                      start_i,
  input  desc_t                     head_i,      // the command, from its start until it retires
  input  logic                      stop_i,
  output logic                      done_o,      // completes in this cycle
  output logic                      abort_o,     // stopped and drained: stops running after this cycle
  output logic                      fault_o,     // an error response of its command in this cycle
  output logic                      stall_o,     // a step waits for an SRAM port

  // Read address and data (through qacc_mem_port).
  output logic                      ar_req_o,
  output logic [31:0]               ar_addr_o,
  output logic [3:0]                ar_len_o,
  input  logic                      ar_issue_i,
  input  logic                      r_valid_i,   // a beat of a DMA read burst
  input  logic [8*DataBytes-1:0]    r_data_i,
  input  logic [1:0]                r_resp_i,
  input  logic                      r_last_i,

  // Write address, data and response channels.
  output logic                      m_aw_valid_o,
  output logic [31:0]               m_aw_addr_o,
  output logic [3:0]                m_aw_len_o,
  input  logic                      m_aw_ready_i,
  output logic                      m_w_valid_o,
  output logic [8*DataBytes-1:0]    m_w_data_o,
  output logic [DataBytes-1:0]      m_w_strb_o,
  output logic                      m_w_last_o,
  input  logic                      m_w_ready_i,
  input  logic                      m_b_valid_i,
  input  logic [1:0]                m_b_resp_i,
  output logic                      wr_inflight_o,  // a write burst awaits its response

  // SRAM ports, one-hot by SRAM (bit s = region s + 1: A, B, bias, rq, out, LUT table). One access per cycle.
  input  logic [NUM_SRAMS-1:0]      cmp_re_i,    // the compute engine reads that SRAM in this cycle
  input  logic [NUM_SRAMS-1:0]      cmp_we_i,    // ... writes it
  output logic [NUM_SRAMS-1:0]      re_o,
  output logic [NUM_SRAMS-1:0]      we_o,
  output logic [CMD_BASE_W-1:0]     addr_o,      // word address of the access
  output logic [WordBytesMax-1:0]   be_o,        // the step's bytes of the word
  output logic [8*WordBytesMax-1:0] wdata_o,
  input  logic [8*NumRows-1:0]      a_rdata_i,
  input  logic [8*NumCols-1:0]      b_rdata_i,
  input  logic [32*NumCols-1:0]     bias_rdata_i,
  input  logic [64*NumCols-1:0]     rq_rdata_i,
  input  logic [32*NumCols-1:0]     out_rdata_i,
  input  logic [8*LutWordBytes-1:0] lut_rdata_i
);

  localparam int unsigned RowsLog2   = $clog2(NumRows);
  localparam int unsigned ColsLog2   = $clog2(NumCols);
  localparam int unsigned D          = DataBytes;
  localparam int unsigned DLog2      = $clog2(DataBytes);
  localparam int unsigned BeatW      = 32 - DLog2;               // beat address: byte address / D
  localparam int unsigned PageLog2   = $clog2(AXI_PAGE_BYTES) - DLog2;  // beats per 4 KiB, log2
  localparam int unsigned RdBufBeats = MAX_BURST_BEATS * MaxOutstanding;
  localparam int unsigned RdCreditW  = $clog2(RdBufBeats + 1);
  localparam int unsigned WrCreditW  = $clog2(WR_BUF_BEATS + 1);
  localparam int unsigned WrEntryW   = 8 * D + D + 1;            // data, strobes, last
  localparam int unsigned OutstW     = $clog2(MaxOutstanding + 1);
  localparam int unsigned WrInflW    = 16;                       // write bursts awaiting a response

  // ---- The command ----------------------------------------------------------------------------------------------
  dma_desc_t  f;
  logic       store;
  logic [3:0] ulog2;        // log2 U
  logic       big;          // U >= D: a step is one beat
  logic [3:0] slices_log2;  // beats per unit, log2 (U >= D)
  localparam int unsigned SidW = $clog2(NUM_SRAMS);
  logic [SidW-1:0] sid;     // the SRAM's bit in the per-SRAM vectors: its id - 1
  logic       out8;         // the out SRAM's int8-entry unit
  logic       out16;        // the out SRAM's int16-entry unit (lut.md 10.6)
  logic       running_d, running_q, active;

  qacc_dma_fields u_fields (.desc_i(head_i), .fields_o(f));
  assign store       = head_i.op == OpStore;
  assign ulog2       = dma_unit_log2(f.sram, f.out_int32, f.out_int16, RowsLog2, ColsLog2);
  assign big         = 32'(ulog2) >= DLog2;
  assign slices_log2 = big ? ulog2 - 4'(DLog2) : 4'd0;
  assign sid         = SidW'(f.sram - SRAM_ID_W'(RegionA));
  assign out8        = f.sram == SRAM_ID_W'(RegionOut) && !f.out_int32 && !f.out_int16;
  assign out16       = f.sram == SRAM_ID_W'(RegionOut) && f.out_int16;  // never with OUT_INT32 (BAD_SHAPE)
  assign active      = start_i || running_q;

  // End beat of a row that starts at byte `a`.
  // (Validation keeps the row's last byte below 2^32.)
  function automatic logic [BeatW-1:0] row_end_beat(logic [31:0] a, logic [DIM_W-1:0] count0, logic [3:0] ul2);
    return BeatW'((a + (32'(count0) << ul2) - 32'd1) >> DLog2);
  endfunction

  // Beats of the burst that starts at beat b of a row ending at beat e: at most 16, not across 4 KiB.
  function automatic logic [4:0] burst_beats(logic [BeatW-1:0] b, logic [BeatW-1:0] e);
    logic [BeatW:0] in_row, in_page;
    in_row  = BeatW'(e - b) + 1'b1;
    in_page = (BeatW+1)'(1 << PageLog2) - (BeatW+1)'(b[PageLog2-1:0]);
    if (in_row > (BeatW+1)'(MAX_BURST_BEATS) && in_page > (BeatW+1)'(MAX_BURST_BEATS)) begin
      return 5'(MAX_BURST_BEATS);
    end
    return (in_row < in_page) ? 5'(in_row) : 5'(in_page);
  endfunction

  // ---- LOAD requests --------------------------------------------------------------------------------------------
  logic                  req_on_d, req_on_q, req_on, req_newrow_d, req_newrow_q, req_next_row;
  logic [31:0]           req_row_ext;
  logic [CMD_BASE_W-1:0] unused_req_unit;
  logic                  req_last_row;
  logic [BeatW-1:0]      req_beat, req_beat_d, req_beat_q, req_end, req_after;
  logic [4:0]            req_n;
  logic [RdCreditW-1:0]  rd_credit, rd_credit_d, rd_credit_q;
  logic                  rd_pop;

  qacc_dma_rows u_req_rows (
    .clk_i,
    .init_i (start_i),
    .next_i (req_next_row),
    .desc_i (f),
    .ext_o  (req_row_ext),
    .unit_o (unused_req_unit),
    .last_o (req_last_row)
  );

  always_comb begin
    req_on    = start_i ? !store : req_on_q;
    req_end   = row_end_beat(req_row_ext, f.count0, ulog2);
    req_beat  = (start_i || req_newrow_q) ? req_row_ext[31:DLog2] : req_beat_q;
    req_n     = burst_beats(req_beat, req_end);
    rd_credit = start_i ? RdCreditW'(RdBufBeats) : rd_credit_q;
    ar_req_o  = active && req_on && !stop_i && 32'(rd_credit) >= 32'(req_n);
    ar_addr_o = {req_beat, DLog2'(0)};
    ar_len_o  = 4'(req_n - 5'd1);
  end

  // After an issued burst: the next burst of the row, the next row, or the requests are done.
  always_comb begin
    req_after = req_beat + BeatW'(req_n);
    // The row's last burst ends at req_end; the next starts the next row, or the requests are done.
    req_next_row = ar_issue_i && (req_beat + (BeatW'(req_n) - BeatW'(1)) == req_end) && !req_last_row;
    req_on_d     = req_on && !(ar_issue_i && (req_beat + (BeatW'(req_n) - BeatW'(1)) == req_end) && req_last_row);
    req_newrow_d = req_next_row;  // one cycle: req_beat_q keeps the row's start while nothing issues
    req_beat_d   = ar_issue_i ? req_after : req_beat;
    rd_credit_d  = rd_credit - (ar_issue_i ? RdCreditW'(req_n) : '0) + RdCreditW'(rd_pop);
  end

  // ---- Steps (LOAD writes, STORE reads) -------------------------------------------------------------------------
  logic                  stp_on_d, stp_on_q, stp_on, stp_newrow_d, stp_newrow_q, stp_next_row;
  logic [31:0]           row_ext;
  logic [CMD_BASE_W-1:0] row_unit;
  logic                  last_row;
  logic [DIM_W-1:0]      i0, i0_q, i0_d;
  logic [4:0]            j, j_q, j_d;          // beat slice of a unit (U >= D): U / D <= 32
  logic [31:0]           a_u;                  // external byte of the step
  logic [CMD_BASE_W-1:0] u;                    // SRAM unit of the step
  logic                  unit_last, slice_last, step_last, beat_last, beat_first, step;
  logic [7:0]            beat_off, word_off, unit_off;
  logic [CMD_BASE_W-1:0] word_addr;
  logic [BeatW-1:0]      stp_end;

  qacc_dma_rows u_step_rows (
    .clk_i,
    .init_i (start_i),
    .next_i (stp_next_row),
    .desc_i (f),
    .ext_o  (row_ext),
    .unit_o (row_unit),
    .last_o (last_row)
  );

  always_comb begin
    logic [31:0] d_mask;
    d_mask     = 32'(D - 1);
    stp_on     = start_i ? 1'b1 : stp_on_q;
    i0         = (start_i || stp_newrow_q) ? '0 : i0_q;
    j          = (start_i || stp_newrow_q) ? '0 : j_q;
    a_u        = row_ext + (32'(i0) << ulog2) + (32'(j) << DLog2);
    u          = row_unit + CMD_BASE_W'(i0);
    unit_last  = i0 == f.count0 - 1'b1;
    slice_last = !big || (32'(j) == (32'(1) << slices_log2) - 1);
    step_last  = unit_last && slice_last && last_row;
    // With U >= D every unit starts and ends on a beat boundary (its address is a multiple of U, 12): the
    // address terms hold, and the offset in the beat is 0.
    beat_last  = unit_last || (((a_u + (32'(1) << ulog2)) & d_mask) == '0);
    beat_first = i0 == '0 || ((a_u & d_mask) == '0);
    beat_off   = 8'(a_u & d_mask);
    unit_off   = out8 ? 8'(32'(u[1:0]) << ColsLog2) : out16 ? 8'(32'(u[0]) << (ColsLog2 + 1)) : '0;
    word_off   = unit_off + (big ? 8'(32'(j) << DLog2) : 8'd0);
    word_addr  = out8 ? (u >> 2) : out16 ? (u >> 1) : u;
    stp_end    = row_end_beat(row_ext, f.count0, ulog2);
  end

  // Advance after a step.
  always_comb begin
    stp_next_row = step && unit_last && slice_last && !last_row;
    stp_on_d     = stp_on && !(step && step_last);
    stp_newrow_d = stp_next_row;  // one cycle: i0_q, j_q and rem_q keep the cleared values while idle
    i0_d = i0;
    j_d  = j;
    if (step) begin
      j_d = slice_last ? '0 : j + 1'b1;
      if (slice_last) begin
        i0_d = i0 + 1'b1;
      end
    end
  end

  // ---- Read buffer (LOAD) ---------------------------------------------------------------------------------------
  logic [8*D-1:0]               rd_head;
  logic [$clog2(RdBufBeats+1)-1:0] rd_count;
  logic                         ld_want, ld_step;
  logic [OutstW-1:0]            rd_infl_d, rd_infl_q;  // DMA read bursts in flight

  qacc_fifo #(
    .Width (8 * D),
    .Depth (RdBufBeats)
  ) u_rd_buf (
    .clk_i,
    .rst_ni,
    .clear_i (start_i),
    .push_i  (r_valid_i && !stop_i),
    .data_i  (r_data_i),
    .pop_i   (rd_pop),
    .head_o  (rd_head),
    .count_o (rd_count)
  );

  // A beat that arrived at t is used from t + 1; none can arrive before s + 1, so a step needs running_q.
  assign ld_want   = running_q && !store && stp_on && rd_count != '0 && !stop_i;
  assign ld_step   = ld_want && !cmp_we_i[sid];
  assign rd_pop    = ld_step && beat_last;
  assign rd_infl_d = rd_infl_q + OutstW'(ar_issue_i) - OutstW'(r_valid_i && r_last_i);

  // ---- STORE reads, beat assembly, write buffer -------------------------------------------------------------------
  logic                  first_burst, st_want, st_step, st_ok;
  logic [4:0]            rem, rem_d, rem_q, st_n;   // beats of the current burst after the current beat
  logic                  wlast, wlast_q;
  logic [WrCreditW-1:0]  wr_credit, wr_credit_d, wr_credit_q;
  logic                  aw_new, aw_pend_d, aw_pend_q;
  logic [31:0]           aw_addr_d, aw_addr_q;
  logic [3:0]            aw_len_d, aw_len_q;
  logic [WrInflW-1:0]    wr_infl_d, wr_infl_q;
  // The step of the previous cycle, whose data the SRAM returns now.
  logic                  p_valid_q, p_last_q, p_wlast_q;
  logic [7:0]            p_beat_off_q, p_word_off_q;
  logic [8*D-1:0]        asm_data_d, asm_data_q, part_data;
  logic [D-1:0]          asm_strb_d, asm_strb_q, part_strb;
  logic                  wb_push, wb_pop;
  logic [WrEntryW-1:0]   wb_head;
  logic [$clog2(WR_BUF_BEATS+1)-1:0] wb_count;

  always_comb begin
    rem         = (start_i || stp_newrow_q) ? '0 : rem_q;
    first_burst = beat_first && rem == '0;
    st_n        = burst_beats(a_u[31:DLog2], stp_end);
    wr_credit   = start_i ? WrCreditW'(WR_BUF_BEATS) : wr_credit_q;
    // After a stop the reader finishes the burst it began (its address went out) and no more.
    st_want     = active && store && stp_on && (!stop_i || !first_burst);
    st_ok       = (!beat_last || wr_credit != '0) && (!first_burst || !aw_pend_q);
    st_step     = st_want && st_ok && !cmp_re_i[sid];
    wlast       = beat_first ? ((first_burst ? st_n - 5'd1 : rem - 5'd1) == '0) : wlast_q;
    rem_d       = rem;
    if (st_step && beat_first) begin
      rem_d = first_burst ? st_n - 5'd1 : rem - 5'd1;
    end
    aw_new      = st_step && first_burst;
    aw_pend_d   = (aw_new || aw_pend_q) && !m_aw_ready_i;
    aw_addr_d   = aw_pend_q ? aw_addr_q : {a_u[31:DLog2], DLog2'(0)};
    aw_len_d    = aw_pend_q ? aw_len_q : 4'(st_n - 5'd1);
    wr_credit_d = wr_credit - WrCreditW'(st_step && beat_last) + WrCreditW'(wb_pop);
    wr_infl_d   = wr_infl_q + WrInflW'(aw_new) - WrInflW'(m_b_valid_i);
  end

  assign step = ld_step || st_step;

  assign m_aw_valid_o = aw_new || aw_pend_q;
  assign m_aw_addr_o  = aw_addr_d;
  assign m_aw_len_o   = aw_len_d;

  // ---- Lanes: one instance per SRAM word and group size -----------------------------------------------------------
  // A, B, bias, rq, out int8 and the LUT table at their SRAM's bit (sid), then out int32 and out int16.
  localparam int unsigned NumLanes  = NUM_SRAMS + 2;
  localparam int unsigned LaneInt32 = NUM_SRAMS;
  localparam int unsigned LaneInt16 = NUM_SRAMS + 1;
  logic [NumLanes-1:0][8*WordBytesMax-1:0] l_wdata, l_word;
  logic [NumLanes-1:0][WordBytesMax-1:0]   l_be;
  logic [NumLanes-1:0][8*D-1:0]            l_beat;
  logic [NumLanes-1:0][D-1:0]              l_strb;
  logic [8*WordBytesMax-1:0]               rq_word_signed;

  // rq read data as the window returns it: each lane's shift word sign-extended from bit 5 (3.1).
  always_comb begin
    rq_word_signed = rq_rdata_i;
    for (int c = 0; c < NumCols; c++) begin
      rq_word_signed[64*c+32 +: 32] = 32'(signed'(rq_rdata_i[64*c+32 +: SHIFT_W]));
    end
  end

  localparam int unsigned LaneWordBytes [NumLanes] = '{NumRows, NumCols, 4 * NumCols, 8 * NumCols, 4 * NumCols,
                                                       LutWordBytes, 4 * NumCols, 4 * NumCols};
  localparam int unsigned LaneUnitBytes [NumLanes] = '{NumRows, NumCols, 4 * NumCols, 8 * NumCols, NumCols,
                                                       LutWordBytes, 4 * NumCols, 2 * NumCols};

  assign l_word[0] = (8*WordBytesMax)'(a_rdata_i);
  assign l_word[1] = (8*WordBytesMax)'(b_rdata_i);
  assign l_word[2] = (8*WordBytesMax)'(bias_rdata_i);
  assign l_word[3] = rq_word_signed;
  assign l_word[4] = (8*WordBytesMax)'(out_rdata_i);
  assign l_word[5] = (8*WordBytesMax)'(lut_rdata_i);
  assign l_word[LaneInt32] = (8*WordBytesMax)'(out_rdata_i);
  assign l_word[LaneInt16] = (8*WordBytesMax)'(out_rdata_i);

  for (genvar l = 0; l < NumLanes; l++) begin : gen_lanes
    localparam int unsigned Wb = LaneWordBytes[l];
    logic [8*Wb-1:0] wdata;
    logic [Wb-1:0]   be;
    qacc_dma_lanes #(
      .DataBytes  (D),
      .WordBytes  (Wb),
      // min(U, D) inline, not a function: qacc validate mutates function bodies, and a mutant
      // schemata cannot feed a parameter.
      .GroupBytes ((LaneUnitBytes[l] < D) ? LaneUnitBytes[l] : D)
    ) u_lanes (
      // Loads (and the monitor's byte enables) use this cycle's step; stores the previous cycle's, with the
      // SRAM's data of now.
      .ld_beat_off_i (beat_off),
      .ld_word_off_i (word_off),
      .beat_i        (rd_head),
      .wdata_o       (wdata),
      .be_o          (be),
      .st_beat_off_i (p_beat_off_q),
      .st_word_off_i (p_word_off_q),
      .word_i        (l_word[l][8*Wb-1:0]),
      .beat_o        (l_beat[l]),
      .strb_o        (l_strb[l])
    );
    assign l_wdata[l] = (8*WordBytesMax)'(wdata);
    assign l_be[l]    = WordBytesMax'(be);
    if (Wb < WordBytesMax) begin : gen_unused
      logic unused_word;
      assign unused_word = ^l_word[l][8*WordBytesMax-1:8*Wb];
    end
  end

  logic [2:0] lane;  // the lanes of this command's SRAM
  assign lane = (f.sram == SRAM_ID_W'(RegionOut) && f.out_int32) ? 3'(LaneInt32) : out16 ? 3'(LaneInt16) : 3'(sid);

  // LOAD write data: an rq shift word keeps bits [5:0], its bytes 1..3 are 0 (as a window write).
  always_comb begin
    wdata_o = l_wdata[lane];
    if (f.sram == SRAM_ID_W'(RegionRq)) begin
      for (int c = 0; c < NumCols; c++) begin
        wdata_o[64*c+32 +: 32] = 32'(wdata_o[64*c+32 +: SHIFT_W]);
      end
    end
    be_o = (ld_step || st_step) ? l_be[lane] : '0;
    if (!ld_step) begin
      wdata_o = '0;
    end
  end

  assign part_data = l_beat[lane];
  assign part_strb = l_strb[lane];

  always_comb begin
    re_o = '0;
    we_o = '0;
    re_o[sid] = st_step;
    we_o[sid] = ld_step;
  end
  assign addr_o = word_addr;

  // Beat assembly: bytes of the beat's steps, every other byte 0 with strobe 0. A beat's last step pushes it.
  logic [8*D-1:0] beat_data;
  logic [D-1:0]   beat_strb;

  always_comb begin
    beat_data = asm_data_q;
    beat_strb = asm_strb_q;
    if (p_valid_q) begin
      for (int b = 0; b < int'(D); b++) begin
        if (part_strb[b]) begin
          beat_data[8*b +: 8] = part_data[8*b +: 8];
        end
      end
      beat_strb = asm_strb_q | part_strb;
    end
    wb_push    = p_valid_q && p_last_q;
    asm_data_d = (start_i || wb_push) ? '0 : beat_data;
    asm_strb_d = (start_i || wb_push) ? '0 : beat_strb;
  end

  qacc_fifo #(
    .Width (WrEntryW),
    .Depth (WR_BUF_BEATS)
  ) u_wr_buf (
    .clk_i,
    .rst_ni,
    .clear_i (1'b0),
    .push_i  (wb_push),
    .data_i  ({p_wlast_q, beat_strb, beat_data}),
    .pop_i   (wb_pop),
    .head_o  (wb_head),
    .count_o (wb_count)
  );

  assign m_w_valid_o = wb_count != '0;
  assign {m_w_last_o, m_w_strb_o, m_w_data_o} = wb_head;
  assign wb_pop      = m_w_valid_o && m_w_ready_i;

  // ---- Completion, faults, stop ------------------------------------------------------------------------------------
  logic pending;
  // A STORE's work in flight is all inside its write bursts: a burst counts from its address (issued, held or
  // not) to its response, and its steps, staged beat, buffered beats and held address all come before that response
  // (StoreInFlight_A). A LOAD's is its read bursts.
  assign pending = store ? wr_infl_q != '0 : rd_infl_q != '0;
  assign done_o  = store ? (running_q && m_b_valid_i && m_b_resp_i == 2'b00 && !stop_i && !stp_on_q &&
                            wr_infl_q == WrInflW'(1))
                         : (ld_step && step_last);
  assign abort_o = running_q && stop_i && !pending;
  assign fault_o = (r_valid_i && r_resp_i != 2'b00) || (m_b_valid_i && m_b_resp_i != 2'b00);
  assign stall_o = (ld_want && cmp_we_i[sid]) || (st_want && st_ok && cmp_re_i[sid]);
  assign running_d = active && !done_o && !abort_o;
  assign wr_inflight_o = wr_infl_q != '0;

  // ---- Flops ----------------------------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      running_q <= 1'b0;
      p_valid_q <= 1'b0;
      aw_pend_q <= 1'b0;
      rd_infl_q <= '0;
      wr_infl_q <= '0;
    end else begin
      running_q <= running_d;
      p_valid_q <= st_step;
      aw_pend_q <= aw_pend_d;
      rd_infl_q <= rd_infl_d;
      wr_infl_q <= wr_infl_d;
    end
  end

  // The walk's state is loaded at the start (the effective values above read the descriptor in cycle s), the
  // pipeline's fields travel beside p_valid_q, the pending address beside aw_pend_q (spec 10: not reset).
  always_ff @(posedge clk_i) begin
    req_on_q     <= req_on_d;
    req_newrow_q <= req_newrow_d;
    req_beat_q   <= req_beat_d;
    rd_credit_q  <= rd_credit_d;
    stp_on_q     <= stp_on_d && active;
    stp_newrow_q <= stp_newrow_d;
    i0_q         <= i0_d;
    j_q          <= j_d;
    rem_q        <= rem_d;
    wlast_q      <= wlast;
    wr_credit_q  <= wr_credit_d;
    aw_addr_q    <= aw_addr_d;
    aw_len_q     <= aw_len_d;
    p_last_q     <= beat_last;
    p_wlast_q    <= wlast;
    p_beat_off_q <= beat_off;
    p_word_off_q <= word_off;
    asm_data_q   <= asm_data_d;
    asm_strb_q   <= asm_strb_d;
  end

  logic unused_dma;
  assign unused_dma = ^{unused_req_unit, head_i.index, head_i.wait_tok, head_i.signal, rd_count};

`ifndef SYNTHESIS
  Params_A: assert property (@(posedge clk_i) DataBytes inside {8, 16, 32, 64} && MaxOutstanding >= 1 &&
      MaxOutstanding <= 8 && WordBytesMax >= NumRows);
  // Credits: a burst is asked for only when the read buffer has room for all of it; a beat's last step only
  // with room in the write buffer.
  RdRoom_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      r_valid_i && !stop_i |-> 32'(rd_count) < RdBufBeats);
  WrRoom_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      wb_push |-> 32'(wb_count) < WR_BUF_BEATS || wb_pop);
  // A running command has at most one of the out SRAM's layout bits (both: BAD_SHAPE at fetch, lut.md 10.6).
  Layout_A: assert property (@(posedge clk_i) disable iff (!rst_ni) active |-> !(f.out_int32 && f.out_int16));
  // The DMA touches an SRAM port only in a cycle the compute engine does not use it (17.6).
  PortFree_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      ((we_o & cmp_we_i) == '0) && ((re_o & cmp_re_i) == '0));
  StoreInFlight_A: assert property (@(posedge clk_i) disable iff (!rst_ni) running_q && store &&
      ((stp_on && !first_burst) || p_valid_q || wb_count != '0 || aw_pend_q) |-> wr_infl_q != '0);
  AwHold_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      m_aw_valid_o && !m_aw_ready_i |=> m_aw_valid_o && $stable(m_aw_addr_o) && $stable(m_aw_len_o));
  WHold_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      m_w_valid_o && !m_w_ready_i |=> m_w_valid_o && $stable(m_w_data_o) && $stable(m_w_last_o));
`endif

endmodule
