// MOVE (data_movement.md 13, 17.3): output SRAM tiles (int8 entries, 6.3) into the A operand layout (transpose) or
// the B layout (copy), one tile after another in the order i2, i1. Tile j starts at x = s + j * (R/4 + 1 + COUNT0):
// it reads its R/4 output words at x .. x + R/4 - 1 (four int8 entries each), collects them in an R x C byte
// buffer as they come (one cycle later), and writes destination word j' at x + R/4 + 1 + j':
//   into A  word DST + j', lane r = entry r of the tile, byte j';
//   into B  word DST + j' = entry j' of the tile (C bytes).
// The descriptor (the compute queue's head) is read in place from the start cycle s on.
module qacc_move
  import qacc_pkg::*;
#(
  parameter int unsigned NumRows = 8,
  parameter int unsigned NumCols = 8,
  localparam int unsigned DstBytes = (NumRows > NumCols) ? NumRows : NumCols
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  input  logic                  start_i,
  input  move_desc_t            desc_i,
  output logic                  done_o,      // the last write of the command, in this cycle

  output logic                  re_o,        // output SRAM read
  output logic [CMD_BASE_W-1:0] raddr_o,
  input  logic [32*NumCols-1:0] rdata_i,
  output logic                  we_a_o,      // A or B SRAM write
  output logic                  we_b_o,
  output logic [CMD_BASE_W-1:0] waddr_o,
  output logic [8*DstBytes-1:0] wdata_o
);

  localparam int unsigned Reads  = NumRows / 4;    // output words per tile
  localparam int unsigned PhaseW = DIM_W + 1;      // up to R/4 + 1 + COUNT0

  logic                  run_d, run_q, active;
  logic [PhaseW-1:0]     phase, phase_d, phase_q;
  logic [DIM_W-1:0]      i1, i1_d, i1_q, i2, i2_d, i2_q;
  logic [CMD_BASE_W-1:0] src, src_row, dst, dst_row;     // first entry / word of the tile and of its row
  logic [CMD_BASE_W-1:0] src_q, src_row_q, dst_q, dst_row_q, src_d, src_row_d, dst_d, dst_row_d;
  logic                  reading, writing, tile_end, last_tile;
  logic [DIM_W-1:0]      jw;                           // destination word of the tile being written
  logic [NumRows-1:0][NumCols-1:0][7:0] buf_q;         // entry r of the tile, byte c
  logic                  cap_q;                        // the read of the previous cycle returns now
  logic [$clog2(Reads+1)-1:0] cap_idx_q;

  always_comb begin
    active    = start_i || run_q;
    phase     = start_i ? '0 : phase_q;
    i1        = i1_q;  // 0 at every start: reset, and cleared by the last tile of each MOVE (Walk0_A)
    i2        = i2_q;
    src       = start_i ? desc_i.src_base : src_q;
    src_row   = start_i ? desc_i.src_base : src_row_q;
    dst       = start_i ? desc_i.dst_base : dst_q;
    dst_row   = start_i ? desc_i.dst_base : dst_row_q;
    reading   = active && 32'(phase) < Reads;
    writing   = active && 32'(phase) > Reads;
    jw        = DIM_W'(phase - PhaseW'(Reads + 1));
    tile_end  = active && phase == PhaseW'(Reads) + PhaseW'(desc_i.count0);
    last_tile = (i1 == desc_i.count1 - 1'b1) && (i2 == desc_i.count2 - 1'b1);
    phase_d   = tile_end ? '0 : phase + 1'b1;
    i1_d      = i1;
    i2_d      = i2;
    src_d     = src;
    src_row_d = src_row;
    dst_d     = dst;
    dst_row_d = dst_row;
    if (tile_end) begin
      if (i1 == desc_i.count1 - 1'b1) begin
        i1_d      = '0;
        i2_d      = last_tile ? '0 : i2 + 1'b1;
        src_row_d = src_row + desc_i.src_stride2;
        dst_row_d = dst_row + desc_i.dst_stride2;
        src_d     = src_row_d;
        dst_d     = dst_row_d;
      end else begin
        i1_d  = i1 + 1'b1;
        src_d = src + desc_i.src_stride1;
        dst_d = dst + desc_i.dst_stride1;
      end
    end
    run_d = active && !(tile_end && last_tile);
  end

  assign done_o  = tile_end && last_tile;
  assign re_o    = reading;
  assign raddr_o = (src >> 2) + CMD_BASE_W'(phase);
  assign we_a_o  = writing && desc_i.dst == SRAM_ID_W'(RegionA);
  assign we_b_o  = writing && desc_i.dst == SRAM_ID_W'(RegionB);
  assign waddr_o = dst + CMD_BASE_W'(jw);

  // Into A: lane r = byte jw of entry r; into B: entry jw.
  always_comb begin
    wdata_o = '0;
    if (desc_i.dst == SRAM_ID_W'(RegionA)) begin
      for (int r = 0; r < NumRows; r++) begin
        wdata_o[8*r +: 8] = buf_q[r][jw[$clog2(NumCols)-1:0]];
      end
    end else begin
      for (int c = 0; c < NumCols; c++) begin
        wdata_o[8*c +: 8] = buf_q[jw[$clog2(NumRows)-1:0]][c];
      end
    end
  end


  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q <= 1'b0;
      cap_q <= 1'b0;
      i1_q  <= '0;
      i2_q  <= '0;
    end else begin
      run_q <= run_d;
      cap_q <= reading;
      i1_q  <= i1_d;
      i2_q  <= i2_d;
    end
  end

  // The walk's addresses are loaded at the start (the values above read the descriptor in cycle s); the tile
  // counters above are reset instead and return to 0 with the last tile, so no start cycle selects them. The buffer
  // holds data (spec 10: not reset).
  always_ff @(posedge clk_i) begin
    phase_q   <= phase_d;
    src_q     <= src_d;
    src_row_q <= src_row_d;
    dst_q     <= dst_d;
    dst_row_q <= dst_row_d;
    cap_idx_q <= phase[$clog2(Reads+1)-1:0];
    // The read of cycle x + q returns entries 4q .. 4q + 3 of the tile in cycle x + q + 1; the buffer loads
    // only then (a tile's writes come after its last capture, so they read what it holds).
    if (cap_q) begin
      for (int e = 0; e < 4; e++) begin
        buf_q[4*int'(cap_idx_q) + e] <= rdata_i[8*NumCols*e +: 8*NumCols];
      end
    end
  end

  logic unused_move;
  assign unused_move = ^{src[1:0], phase[PhaseW-1:$clog2(Reads+1)]};

`ifndef SYNTHESIS
  Params_A: assert property (@(posedge clk_i) NumRows % 4 == 0);
  // A MOVE runs to its last tile once started, so the tile counters are 0 whenever the next one starts.
  Walk0_A: assert property (@(posedge clk_i) disable iff (!rst_ni) start_i |-> i1_q == '0 && i2_q == '0);
  // Validation: COUNT0 <= C into A, <= R into B; DST is A or B.
  Count0_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      active |-> (desc_i.dst == SRAM_ID_W'(RegionA) && 32'(desc_i.count0) <= NumCols) ||
                 (desc_i.dst == SRAM_ID_W'(RegionB) && 32'(desc_i.count0) <= NumRows));
`endif

endmodule
