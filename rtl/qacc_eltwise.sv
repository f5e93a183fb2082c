// ELTWISE (lut.md 10.5): COUNT out SRAM words of int8 entries (four rows of C lanes each, the int8 layout: byte
// r C + c is row r, lane c) through C add lanes (qacc_add_lane) and the LUT unit's lookup lanes, back into the out
// SRAM. One source word every four cycles, one row a cycle. From the start cycle s, with t = cycle - s, word
// w = 0 .. COUNT - 1 and x = 4 w:
//   x           read word SRC_A + w; a's word returns at x + 1 and is kept
//   x + 1       read word SRC_B + w, with an add (OP 1, 2); b's word returns at x + 2 and is kept
//   x + 2 + r   row r (0..3) enters the add lanes (b's row 0 straight from the read data)
//   x + 5 + r   row r's code, ADD_LANE_LATENCY later: the add's, or with OP = LUT operand a's byte delayed as
//               long; to the LUT unit (lut_valid_o) with a lookup (OP 0, 2)
//   x + 7 + r   row r's result, LUT_LATENCY later: the entry with a lookup, else the code; into the write buffer
//   x + 9       int16 output (a lookup of 16-bit entries, 10.6): write word DST + 2w (rows 0, 1)
//   x + 11      int8 output: write word DST + w; int16 output: word DST + 2w + 1 (rows 2, 3)
// The last write, at t = 4 COUNT + 7, is done_o; the next command may start in the cycle after it. Every step is a
// function of the one counter t_q (0 when idle, so 0 in the start cycle), so the unit has no other state than it
// and the running bit (the words and pipelines beside them are data). Each step compares t_q itself, not a copy
// shifted by its offset: two counters that differ by a multiple of 4 would agree in the low bits that pick rows.
//
// In place (DST = SRC_A, or SRC_B with an add; int8 output only, the one overlap validation allows): the only write
// to source word w is its own result, at 4w + 11, after its reads at 4w (a) and 4w + 1 (b); the writes before it are
// of earlier words. So every read sees the source as it was. Reads come in cycles t = 0 and 1 mod 4, writes in
// t = 3 mod 4 (int16 output, never in place: 1 and 3 mod 4); the out SRAM has a read and a write port (17.6).
//
// The descriptor (the compute queue's head) is read in place from s to the last write.
module qacc_eltwise
  import qacc_pkg::*;
#(
  parameter int unsigned NumCols  = 8,
  parameter int unsigned OutDepth = 8192,
  localparam int unsigned AW      = $clog2(OutDepth)  // an out word index: COUNT <= OutDepth (validation)
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,

  input  logic                         start_i,
  input  eltwise_desc_t                desc_i,
  output logic                         done_o,       // the last write of the command, in this cycle
  output logic                         busy_o,       // running after the start cycle, up to the last write

  // The out SRAM's read port (data in the next cycle) and write port (whole words).
  output logic                         re_o,
  output logic [CMD_BASE_W-1:0]        raddr_o,
  input  logic [32*NumCols-1:0]        rdata_i,
  output logic                         we_o,
  output logic [CMD_BASE_W-1:0]        waddr_o,
  output logic [32*NumCols-1:0]        wdata_o,

  // The LUT unit's lanes: a row of codes, their entries LUT_LATENCY later (8-bit tables zero-extended).
  output logic                         lut_valid_o,
  output logic [NumCols-1:0][7:0]      lut_code_o,
  input  logic [NumCols-1:0][15:0]     lut_entry_i
);

  // OP (lut.md 10.5): 0 LUT, 1 ADD, 2 ADD_LUT (3 fails validation).
  localparam logic [1:0] EltLut = 2'd0, EltAdd = 2'd1, EltAddLut = 2'd2;
  localparam int unsigned TW = AW + 3;     // t up to 4 COUNT + 7 < 8 OutDepth
  localparam int unsigned DW = DIM_W + 3;  // 4 COUNT + 11 of any COUNT field: no compare below wraps
  // The schedule's offsets from x (above).
  localparam int unsigned LaneAt    = 2;                          // row 0 enters the lanes
  localparam int unsigned CodeAt    = LaneAt + ADD_LANE_LATENCY;  // 5: its code
  localparam int unsigned ResultAt  = CodeAt + LUT_LATENCY;       // 7: its result
  localparam int unsigned Write16At = ResultAt + 2;               // 9: rows 0, 1 in the buffer
  localparam int unsigned LastAt    = Write16At + 2;              // 11: rows 2, 3 too (int8: all four)

  typedef logic [NumCols-1:0][7:0] row_t;  // a row of the int8 layout: lane c in byte c

  logic          run_q, active, has_add, lookup, int16;
  logic [TW-1:0] t_q;
  logic [DW-1:0] t, words4;    // t_q widened; words4 = 4 COUNT: the reads' cycles
  logic [1:0]    lane_row;     // the row entering the lanes: (t - LaneAt) mod 4

  assign active   = start_i || run_q;
  assign has_add  = desc_i.op == EltAdd || desc_i.op == EltAddLut;
  assign lookup   = desc_i.op == EltLut || desc_i.op == EltAddLut;
  assign int16    = lookup && desc_i.lut_entry_bits == ELTWISE_LUT_ENTRY_BITS_W'(16);
  // While idle the compute queue's head may be any descriptor: a COUNT field of any value must not make a step of
  // t = 0 true (only the read needs `active`: it is the one step at t = 0).
  assign t        = DW'(t_q);
  assign words4   = {1'b0, desc_i.count, 2'b00};
  assign lane_row = t_q[1:0] ^ 2'(LaneAt);  // - 2 mod 4

  // ---- Reads: a at x, b at x + 1 ----------------------------------------------------------------------------------
  assign re_o    = active && t < words4 && (t_q[1:0] == 2'd0 || (t_q[1:0] == 2'd1 && has_add));
  assign raddr_o = (t_q[0] ? desc_i.src_b : desc_i.src_a) + CMD_BASE_W'(t_q[2 +: AW]);

  // The operand words, loaded in the cycle their read returns (data, not reset: each is loaded in the command
  // before it is used).
  logic [3:0] [NumCols-1:0][7:0] a_q, b_q;
  always_ff @(posedge clk_i) begin
    if (t_q[1:0] == 2'd1) a_q <= rdata_i;
    if (t_q[1:0] == 2'd2) b_q <= rdata_i;
  end

  // ---- The add lanes: row lane_row of both operands ---------------------------------------------------------------
  row_t              a_row, b_row;
  logic [NumCols-1:0][8:0] y;

  assign a_row = a_q[lane_row];
  assign b_row = lane_row == 2'd0 ? rdata_i[8*NumCols-1:0] : b_q[lane_row];  // b's row 0 comes with its read

  for (genvar c = 0; c < int'(NumCols); c++) begin : g_lane
    qacc_add_lane u_add (
      .clk_i,
      .a_i          (a_row[c]),
      .b_i          (b_row[c]),
      .seed_i       (desc_i.form),
      .a_unsigned_i (desc_i.a_unsigned),
      .b_unsigned_i (desc_i.b_unsigned),
      .zp_a_i       (desc_i.zp_a),
      .zp_b_i       (desc_i.zp_b),
      .zp_y_i       (desc_i.zp_y),
      .left_shift_i (desc_i.left_shift),
      .mult_a_i     (desc_i.mult_a),
      .mult_b_i     (desc_i.mult_b),
      .mult_y_i     (desc_i.mult_y),
      .shift_a_i    (desc_i.shift_a),
      .shift_b_i    (desc_i.shift_b),
      .shift_y_i    (desc_i.shift_y),
      .rshift_i     (desc_i.rshift),
      .rounding_i   (desc_i.rounding),
      .wrap_i       (desc_i.wrap),
      .clamp_min_i  (desc_i.clamp_min),
      .clamp_max_i  (desc_i.clamp_max),
      .y_o          (y[c])
    );
  end

  // ---- Codes, then results ----------------------------------------------------------------------------------------
  // Operand a delayed as long as the add lanes take (OP = LUT), and the code as long as the LUT unit (OP = ADD): the
  // pipeline's length is the same for every OP. Data, not reset.
  row_t a_d1_q, a_d2_q, a_d3_q, code, code_d1_q, code_d2_q;

  always_comb begin
    for (int c = 0; c < int'(NumCols); c++) code[c] = has_add ? y[c][7:0] : a_d3_q[c];
  end

  always_ff @(posedge clk_i) begin
    a_d1_q    <= a_row;
    a_d2_q    <= a_d1_q;
    a_d3_q    <= a_d2_q;
    code_d1_q <= code;
    code_d2_q <= code_d1_q;
  end

  assign lut_valid_o = lookup && t >= DW'(CodeAt) && t < words4 + DW'(CodeAt);
  assign lut_code_o  = code;

  // ---- The write buffer and the writes ----------------------------------------------------------------------------
  // Row r of word w loads at the end of x + 7 + r ((t + 1) mod 4 = r); a word's writes read it before its next
  // word's row 0 replaces row 0 (at the end of x + 11). The low bytes: the entry with a lookup, else the code; the
  // high bytes the entry's (read only in the int16 layout, which needs a lookup). Data, not reset.
  logic [3:0][NumCols-1:0][7:0] wbuf_lo_q, wbuf_hi_q;
  logic [1:0]                   buf_row;
  assign buf_row = 2'(t_q[1:0] + 2'(4 - ResultAt % 4));  // - 7 mod 4
  always_ff @(posedge clk_i) begin
    for (int c = 0; c < int'(NumCols); c++) begin
      wbuf_lo_q[buf_row][c] <= lookup ? lut_entry_i[c][7:0] : code_d2_q[c];
      wbuf_hi_q[buf_row][c] <= lut_entry_i[c][15:8];
    end
  end

  // The result word written at t (odd, in the write window): t - 9 in halves of a word (int16) or in words (int8).
  // A function, not a signal: a second counter offset by 9 would agree with t_q in the bits that pick rows.
  function automatic logic [AW-1:0] written(logic [TW-1:0] t_now, logic halves);
    logic [TW-1:0] n;
    n = t_now - TW'(Write16At);
    return halves ? AW'(n >> 1) : AW'(n >> 2);
  endfunction

  // Word w's writes: t = x + 11 (int8; int16 rows 2, 3) and t = x + 9 (int16 rows 0, 1), so t odd from 9 on (the
  // command ends with its last write, t = 4 COUNT + 7, when t_q returns to 0); the word address counts from DST by
  // t - 9 (four cycles a word, two a half).
  assign we_o    = t >= DW'(Write16At) && t_q[0] && (t_q[1] || int16);
  assign waddr_o = desc_i.dst + CMD_BASE_W'(written(t_q, int16));
  assign done_o  = t == words4 + DW'(LastAt - 4);

  // int8: row r lane c's low byte at byte r C + c; int16 (rows 2h, 2h + 1 with h = t[1]): row 2h + q lane c's
  // entry at bytes 2 (q C + c) .. +1, little-endian.
  always_comb begin
    for (int r = 0; r < 4; r++) begin
      for (int c = 0; c < int'(NumCols); c++) begin
        wdata_o[8*(r*int'(NumCols) + c) +: 8] = wbuf_lo_q[r][c];
      end
    end
    if (int16) begin
      for (int q = 0; q < 2; q++) begin
        for (int c = 0; c < int'(NumCols); c++) begin
          wdata_o[16*(q*int'(NumCols) + c) +: 16] = {wbuf_hi_q[{t_q[1], 1'(q)}][c], wbuf_lo_q[{t_q[1], 1'(q)}][c]};
        end
      end
    end
  end

  // ---- Control: the counter and the running bit -------------------------------------------------------------------
  // t_q counts from the start cycle (0) to the last write and returns to 0 with it, so it is 0 at every start.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q <= 1'b0;
      t_q   <= '0;
    end else begin
      run_q <= active && !done_o;
      t_q   <= active && !done_o ? t_q + 1'b1 : '0;
    end
  end

  assign busy_o = run_q;

  // Lane bit 8 of the add's code: the clamp keeps it inside the result's 8-bit type (validation).
  logic unused_elt;
  always_comb begin
    unused_elt = 1'b0;
    for (int c = 0; c < int'(NumCols); c++) unused_elt ^= y[c][8];
  end

`ifndef SYNTHESIS
  // C a power of two as every array size; the delay lines above are ADD_LANE_LATENCY and LUT_LATENCY long.
  Params_A: assert property (@(posedge clk_i) NumCols >= 4 && (NumCols & (NumCols - 1)) == 0 &&
      ADD_LANE_LATENCY == 3 && LUT_LATENCY == 2 && TW <= DW);
  // The counter is 0 at every start (it returns to 0 with the last write).
  Start0_A: assert property (@(posedge clk_i) disable iff (!rst_ni) start_i |-> t_q == '0);
  // One ELTWISE at a time: the compute engine starts one only when the last is done.
  Idle_A: assert property (@(posedge clk_i) disable iff (!rst_ni) start_i |-> !run_q);
  // The last write comes after the start cycle, in the command that runs.
  Done_A: assert property (@(posedge clk_i) disable iff (!rst_ni) done_o |-> run_q && we_o);
  // Validated at fetch (qacc_elt_check): a shape and an OP; the descriptor holds while the command runs.
  Desc_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      active |-> desc_i.count != '0 && desc_i.op != 2'd3);
  DescStable_A: assert property (@(posedge clk_i) disable iff (!rst_ni) run_q |-> $stable(desc_i));
`endif

endmodule
