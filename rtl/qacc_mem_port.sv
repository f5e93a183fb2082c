// Read side of the external memory port (data_movement.md 15.1, 17.2, 17.4): the read address channel shared by
// the fetcher and the DMA engine, the count of read bursts in flight, and the routing of every read data beat to
// the unit whose burst it belongs to (responses come in order).
//   A request is issued in the cycle its unit asks with fewer than MaxOutstanding bursts in flight at the start of
//   the cycle; the fetcher wins over the DMA engine. Issued is accepted when m_ar_ready_i is 1 (the testbench's
//   memory is, but when it stalls, 15.2); otherwise the address stays on the channel until its handshake and nothing
//   else is issued meanwhile (the AXI rule: valid and fields are held).
module qacc_mem_port #(
  parameter int unsigned MaxOutstanding = 4,
  localparam int unsigned InflightW = $clog2(MaxOutstanding + 1)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 fetch_req_i,
  input  logic [31:0]          fetch_addr_i,
  input  logic [3:0]           fetch_len_i,
  output logic                 fetch_issue_o,
  input  logic                 dma_req_i,
  input  logic [31:0]          dma_addr_i,
  input  logic [3:0]           dma_len_i,
  output logic                 dma_issue_o,

  output logic                 m_ar_valid_o,
  output logic [31:0]          m_ar_addr_o,
  output logic [3:0]           m_ar_len_o,
  input  logic                 m_ar_ready_i,
  input  logic                 m_r_valid_i,
  input  logic                 m_r_last_i,

  output logic                 fetch_r_valid_o,  // this beat belongs to a descriptor fetch
  output logic                 dma_r_valid_o,    // this beat belongs to the DMA engine
  output logic [InflightW-1:0] inflight_o        // read bursts in flight at the start of the cycle
);

  logic                 room;
  logic                 pend_d, pend_q;       // an issued address not yet accepted
  logic [31:0]          pend_addr_d, pend_addr_q;
  logic [3:0]           pend_len_d, pend_len_q;
  logic                 owner_dma, issue, issue_dma;
  logic [InflightW-1:0] owners;       // read bursts in flight: the owners list's length

  assign room          = 32'(owners) < MaxOutstanding;
  assign fetch_issue_o = fetch_req_i && room && !pend_q;
  assign dma_issue_o   = dma_req_i && room && !pend_q && !fetch_issue_o;
  assign issue         = fetch_issue_o || dma_issue_o;
  assign issue_dma     = dma_issue_o;

  always_comb begin
    m_ar_valid_o = pend_q || issue;
    m_ar_addr_o  = pend_q ? pend_addr_q : (fetch_issue_o ? fetch_addr_i : dma_addr_i);
    m_ar_len_o   = pend_q ? pend_len_q : (fetch_issue_o ? fetch_len_i : dma_len_i);
    pend_d       = m_ar_valid_o && !m_ar_ready_i;
    pend_addr_d  = m_ar_addr_o;
    pend_len_d   = m_ar_len_o;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend_q <= 1'b0;
    end else begin
      pend_q <= pend_d;
    end
  end

  // The address of a pending request travels with pend_q (not reset, spec 10).
  always_ff @(posedge clk_i) begin
    pend_addr_q <= pend_addr_d;
    pend_len_q  <= pend_len_d;
  end

  // Owner of each burst in flight, in issue order: the head owns the beats until its last one.
  qacc_fifo #(
    .Width (1),
    .Depth (MaxOutstanding)
  ) u_owners (
    .clk_i,
    .rst_ni,
    .clear_i (1'b0),
    .push_i  (issue),
    .data_i  (issue_dma),
    .pop_i   (m_r_valid_i && m_r_last_i),
    .head_o  (owner_dma),
    .count_o (owners)
  );

  assign fetch_r_valid_o = m_r_valid_i && !owner_dma;
  assign dma_r_valid_o   = m_r_valid_i && owner_dma;
  assign inflight_o      = owners;

`ifndef SYNTHESIS
  Params_A: assert property (@(posedge clk_i) MaxOutstanding >= 1 && MaxOutstanding <= 8);
  // Read data comes only for a burst in flight (the owners list's length).
  BeatInFlight_A: assert property (@(posedge clk_i) disable iff (!rst_ni) m_r_valid_i |-> owners != '0);
  ArHold_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      m_ar_valid_o && !m_ar_ready_i |=> m_ar_valid_o && $stable(m_ar_addr_o) && $stable(m_ar_len_o));
`endif

endmodule
