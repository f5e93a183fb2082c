// Output-stationary systolic MAC array of NumRows x NumCols qacc_pe (spec 2.1, 5.1, 7).
//
// Input: one unskewed beat per cycle, beat k = column k of the A tile (NumRows lanes) and row k of the B tile
// (NumCols lanes); in_last_i marks k = K-1. Lanes whose enable is 0 (padding beyond M or N) enter as 0.
//   edge register   f = (en ? ext(x) - zp : 0), 10-bit signed                    visible at I + 1
//   skew            row r of A delayed r cycles, column c of B delayed c cycles
//   PE(r, c)        multiply-accumulates beat k in cycle I(k) + 1 + r + c
//   drain           row i of the result registers is read in cycle I(0) + K + NumCols + i (the first cycle
//                   all of row i is captured) and registered:
//                   output beat i visible in cycle O(i) = I(0) + K + NumCols + 1 + i, i = 0..NumRows-1
// Tiles may follow each other every P = max(K, NumRows, NumCols) cycles (spec 7).
module qacc_mac_array
  import qacc_pkg::*;
#(
  parameter int unsigned NumRows = 8,
  parameter int unsigned NumCols = 8,
  localparam int unsigned RowIdxW = $clog2(NumRows)
) (
  input  logic                                 clk_i,
  input  logic                                 rst_ni,

  // Command-static operand format.
  input  logic signed [ZP_W-1:0]               a_zp_i,
  input  logic signed [ZP_W-1:0]               b_zp_i,
  input  logic                                 a_unsigned_i,
  input  logic                                 b_unsigned_i,

  // Input beat.
  input  logic                                 in_valid_i,
  input  logic                                 in_last_i,
  input  logic [NumRows-1:0][OPERAND_W-1:0]    in_a_i,
  input  logic [NumRows-1:0]                   in_a_en_i,
  input  logic [NumCols-1:0][OPERAND_W-1:0]    in_b_i,
  input  logic [NumCols-1:0]                   in_b_en_i,

  // Output beat: one row of NumCols accumulators.
  output logic                                 out_valid_o,
  output logic [RowIdxW-1:0]                   out_row_o,
  output logic                                 out_last_o,
  output logic [NumCols-1:0][ACC_W-1:0]        out_acc_o
);

  // Operand minus zero point: x is sign- or zero-extended to 9 bits, zp is 9-bit signed; the difference
  // -383..383 needs 10 bits.
  function automatic logic signed [FACTOR_W-1:0] factor(logic [OPERAND_W-1:0] x, logic is_unsigned,
                                                        logic signed [ZP_W-1:0] zp);
    logic signed [ZP_W-1:0] x_ext;
    x_ext  = signed'({is_unsigned ? 1'b0 : x[OPERAND_W-1], x});
    return FACTOR_W'(x_ext) - FACTOR_W'(zp);
  endfunction

  // ---- Edge register ----------------------------------------------------------------------------------------
  logic                                     edge_valid_q, edge_last_q;
  logic [NumRows-1:0][FACTOR_W-1:0]         edge_a_d, edge_a_q;
  logic [NumCols-1:0][FACTOR_W-1:0]         edge_b_d, edge_b_q;

  always_comb begin
    for (int r = 0; r < NumRows; r++) begin
      edge_a_d[r] = in_a_en_i[r] ? factor(in_a_i[r], a_unsigned_i, a_zp_i) : '0;
    end
    for (int c = 0; c < NumCols; c++) begin
      edge_b_d[c] = in_b_en_i[c] ? factor(in_b_i[c], b_unsigned_i, b_zp_i) : '0;
    end
  end

  // The tile-end token is reset; the valid bits of the grid are not (spec 10: a stray power-on beat only
  // touches PE accumulators, which clear before any command).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      edge_last_q <= 1'b0;
    end else begin
      edge_last_q <= in_valid_i & in_last_i;
    end
  end

  always_ff @(posedge clk_i) begin
    edge_valid_q <= in_valid_i;
    if (in_valid_i) begin
      edge_a_q <= edge_a_d;
      edge_b_q <= edge_b_d;
    end
  end

  // ---- PE grid with skew lines ----------------------------------------------------------------------------------
  // Horizontal links: h_*[r][c] enters PE(r, c) from the left (c = NumCols is the unused right edge output).
  // Vertical links: v_b[r][c] enters PE(r, c) from above.
  logic [NumRows-1:0][NumCols:0]                 h_valid, h_last;
  logic [NumRows-1:0][NumCols:0][FACTOR_W-1:0]   h_a;
  logic [NumRows:0][NumCols-1:0][FACTOR_W-1:0]   v_b;
  logic [NumRows-1:0][NumCols-1:0][ACC_W-1:0]    res;

  for (genvar r = 0; r < NumRows; r++) begin : g_row_skew
    if (r == 0) begin : g_direct
      assign h_valid[r][0] = edge_valid_q;
      assign h_last[r][0]  = edge_last_q;
      assign h_a[r][0]     = edge_a_q[r];
    end else begin : g_delay
      // r-cycle delay line; stage r-1 feeds PE(r, 0).
      logic [r-1:0]               dly_valid_d, dly_valid_q, dly_last_d, dly_last_q;
      logic [r-1:0][FACTOR_W-1:0] dly_a_d, dly_a_q;
      always_comb begin
        dly_valid_d[0] = edge_valid_q;
        dly_last_d[0]  = edge_last_q;
        dly_a_d[0]     = edge_a_q[r];
        for (int i = 1; i < r; i++) begin
          dly_valid_d[i] = dly_valid_q[i-1];
          dly_last_d[i]  = dly_last_q[i-1];
          dly_a_d[i]     = dly_a_q[i-1];
        end
      end
      always_ff @(posedge clk_i) begin
        dly_valid_q <= dly_valid_d;  // not reset (spec 10), like the PEs' valid bits
        dly_last_q <= dly_last_d;
        dly_a_q <= dly_a_d;
      end
      assign h_valid[r][0] = dly_valid_q[r-1];
      assign h_last[r][0]  = dly_last_q[r-1];
      assign h_a[r][0]     = dly_a_q[r-1];
    end
  end

  for (genvar c = 0; c < NumCols; c++) begin : g_col_skew
    if (c == 0) begin : g_direct
      assign v_b[0][c] = edge_b_q[c];
    end else begin : g_delay
      // c-cycle delay line; stage c-1 feeds PE(0, c).
      logic [c-1:0][FACTOR_W-1:0] dly_b_d, dly_b_q;
      always_comb begin
        dly_b_d[0] = edge_b_q[c];
        for (int i = 1; i < c; i++) begin
          dly_b_d[i] = dly_b_q[i-1];
        end
      end
      always_ff @(posedge clk_i) begin
        dly_b_q <= dly_b_d;
      end
      assign v_b[0][c] = dly_b_q[c-1];
    end
  end

  for (genvar r = 0; r < NumRows; r++) begin : g_pe_row
    for (genvar c = 0; c < NumCols; c++) begin : g_pe_col
      qacc_pe u_pe (
        .clk_i,
        .valid_i (h_valid[r][c]),
        .last_i  (h_last[r][c]),
        .a_i     (signed'(h_a[r][c])),
        .b_i     (signed'(v_b[r][c])),
        .valid_o (h_valid[r][c+1]),
        .last_o  (h_last[r][c+1]),
        .a_o     (h_a[r][c+1]),
        .b_o     (v_b[r+1][c]),
        .res_o   (res[r][c])
      );
    end
  end

  // The right-edge and bottom-edge outputs of the grid leave the array unused.
  logic unused_edges;
  always_comb begin
    unused_edges = 1'b0;
    for (int r = 0; r < NumRows; r++) begin
      unused_edges ^= h_valid[r][NumCols] ^ h_last[r][NumCols] ^ (^h_a[r][NumCols]);
    end
    unused_edges ^= ^v_b[NumRows];
  end

  // ---- Drain ----------------------------------------------------------------------------------------------------
  // The tile-end token (edge_last_q) is delayed NumCols cycles: it then marks the cycle I(0) + K + NumCols in
  // which row 0 is complete. Rows 1..NumRows-1 follow in consecutive cycles.
  logic [NumCols-1:0] token_d, token_q;
  logic               token;
  logic               drain_active_d, drain_active_q;
  logic [RowIdxW-1:0] drain_row_d, drain_row_q;
  logic               read_en;
  logic [RowIdxW-1:0] read_row;

  logic                          out_valid_q, out_last_q;
  logic [RowIdxW-1:0]            out_row_q;
  logic [NumCols-1:0][ACC_W-1:0] out_acc_d, out_acc_q;

  assign token   = token_q[NumCols-1];
  assign token_d = {token_q[NumCols-2:0], edge_last_q};

  // A drain reads row 0 at the token, then the rows drain_row_q counts (the token comes only between drains:
  // DrainOverlap_A, so drain_row_q is read only while drain_active_q).
  always_comb begin
    read_en        = token | drain_active_q;
    read_row       = token ? '0 : drain_row_q;
    drain_active_d = read_en && (read_row != RowIdxW'(NumRows - 1));
    drain_row_d    = read_row + 1'b1;
    for (int c = 0; c < NumCols; c++) begin
      out_acc_d[c] = res[read_row][c];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      token_q        <= '0;
      drain_active_q <= 1'b0;
      out_valid_q    <= 1'b0;
    end else begin
      token_q        <= token_d;
      drain_active_q <= drain_active_d;
      out_valid_q    <= read_en;
    end
  end

  // Not reset (spec 10): the row counter is read only while draining; row and last travel beside out_valid.
  always_ff @(posedge clk_i) begin
    drain_row_q <= drain_row_d;
    out_last_q  <= (read_row == RowIdxW'(NumRows - 1));
    out_row_q   <= read_row;
    if (read_en) begin
      out_acc_q <= out_acc_d;
    end
  end

  assign out_valid_o = out_valid_q;
  assign out_row_o   = out_row_q;
  assign out_last_o  = out_last_q;
  assign out_acc_o   = out_acc_q;

`ifndef SYNTHESIS
  Params_A: assert property (@(posedge clk_i) NumRows >= 4 && NumRows <= 32 && NumCols >= 4 &&
      NumCols <= 32 && (NumRows & (NumRows - 1)) == 0 && (NumCols & (NumCols - 1)) == 0);
  // A new drain may only start after the previous one ended: tiles at least NumRows cycles apart.
  DrainOverlap_A: assert property (@(posedge clk_i) disable iff (!rst_ni) token |-> !drain_active_q);
  // A tile end must be followed by at least NumCols cycles before the next one (spec 7, condition (c)).
  TilePeriod_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      edge_last_q |-> !(|token_q[NumCols-2:0]));
  // Clock enables (spec 10.1): the edge operands load only with a beat, the output register only with a drained
  // row.
  EdgeHold_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      !in_valid_i |=> $stable(edge_a_q) && $stable(edge_b_q));
  OutHold_A: assert property (@(posedge clk_i) disable iff (!rst_ni) !read_en |=> $stable(out_acc_q));
`endif

endmodule
