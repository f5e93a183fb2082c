// A first-in first-out buffer of Depth entries of Width bits, flops (data_movement.md 17: the engine queues, the
// DMA's read and write buffers, the owners of the read bursts in flight). The head is readable in the cycle after
// its push; a push into a full FIFO and a pop of an empty one are errors of the user (assertions). clear_i empties
// it at a launch (the pointers only: the entries hold data and are not reset, spec 10).
module qacc_fifo #(
  parameter int unsigned Width  = 8,
  parameter int unsigned Depth  = 4,
  localparam int unsigned PtrW  = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned CountW = $clog2(Depth + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clear_i,
  input  logic              push_i,
  input  logic [Width-1:0]  data_i,
  input  logic              pop_i,
  output logic [Width-1:0]  head_o,
  output logic [CountW-1:0] count_o
);

  logic [Width-1:0]  mem_q [Depth];
  logic [PtrW-1:0]   wr_ptr_d, wr_ptr_q, rd_ptr_d, rd_ptr_q;
  logic [CountW-1:0] count_d, count_q;

  function automatic logic [PtrW-1:0] next_ptr(logic [PtrW-1:0] p);
    return (32'(p) == Depth - 1) ? '0 : p + 1'b1;
  endfunction

  always_comb begin
    if (clear_i) begin
      wr_ptr_d = '0;
      rd_ptr_d = '0;
      count_d  = '0;
    end else begin
      wr_ptr_d = push_i ? next_ptr(wr_ptr_q) : wr_ptr_q;
      rd_ptr_d = pop_i ? next_ptr(rd_ptr_q) : rd_ptr_q;
      count_d  = count_q + CountW'(push_i) - CountW'(pop_i);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      count_q  <= '0;
    end else begin
      wr_ptr_q <= wr_ptr_d;
      rd_ptr_q <= rd_ptr_d;
      count_q  <= count_d;
    end
  end

  // A push in a clearing cycle writes a slot outside the emptied FIFO: a slot is read only after a later push.
  always_ff @(posedge clk_i) begin
    if (push_i) begin
      mem_q[wr_ptr_q] <= data_i;
    end
  end

  assign head_o  = mem_q[rd_ptr_q];
  assign count_o = count_q;

`ifndef SYNTHESIS
  Params_A: assert property (@(posedge clk_i) Depth >= 1 && Width >= 1);
  NoOverflow_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      push_i && !clear_i |-> 32'(count_q) < Depth || pop_i);
  NoUnderflow_A: assert property (@(posedge clk_i) disable iff (!rst_ni) pop_i && !clear_i |-> count_q != '0);
`endif

endmodule
