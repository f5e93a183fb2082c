// The lane multiplexers between one memory beat (DataBytes) and one SRAM word (WordBytes) for the DMA
// (data_movement.md 12, 17.4, 17.5). A step moves one group of GroupBytes = min(U, D) bytes: group k of the beat
// (byte offset beat_off_i = k * GroupBytes) <-> group g of the word (word_off_i = g * GroupBytes). Unit sizes and D
// are powers of two and every unit is U-aligned on both sides, so the group is selected by address bits and the
// other side gets it replicated: no byte rotator. The load and the store side have their own offsets (a
// store's data returns a cycle after its step).
//   load:  word data = the beat's group k in every group of the word; byte enables = group g.
//   store: beat data = the word's group g in every group of the beat; strobes = group k.
module qacc_dma_lanes #(
  parameter int unsigned DataBytes  = 16,
  parameter int unsigned WordBytes  = 8,
  parameter int unsigned GroupBytes = 8,
  localparam int unsigned BeatGroups = DataBytes / GroupBytes,
  localparam int unsigned WordGroups = WordBytes / GroupBytes
) (
  input  logic [7:0]               ld_beat_off_i,
  input  logic [7:0]               ld_word_off_i,
  input  logic [8*DataBytes-1:0]   beat_i,
  output logic [8*WordBytes-1:0]   wdata_o,
  output logic [WordBytes-1:0]     be_o,
  input  logic [7:0]               st_beat_off_i,
  input  logic [7:0]               st_word_off_i,
  input  logic [8*WordBytes-1:0]   word_i,
  output logic [8*DataBytes-1:0]   beat_o,
  output logic [DataBytes-1:0]     strb_o
);

  localparam int unsigned GroupLog2 = $clog2(GroupBytes);

  logic [31:0]               k, g, st_k, st_g;
  logic [8*GroupBytes-1:0]   from_beat, from_word;

  assign k    = 32'(ld_beat_off_i) >> GroupLog2;
  assign g    = 32'(ld_word_off_i) >> GroupLog2;
  assign st_k = 32'(st_beat_off_i) >> GroupLog2;
  assign st_g = 32'(st_word_off_i) >> GroupLog2;

  always_comb begin
    from_beat = '0;
    from_word = '0;
    for (int unsigned i = 0; i < BeatGroups; i++) begin
      if (k == i) begin
        from_beat = beat_i[8*GroupBytes*i +: 8*GroupBytes];
      end
    end
    for (int unsigned i = 0; i < WordGroups; i++) begin
      if (st_g == i) begin
        from_word = word_i[8*GroupBytes*i +: 8*GroupBytes];
      end
    end
    for (int unsigned i = 0; i < WordGroups; i++) begin
      wdata_o[8*GroupBytes*i +: 8*GroupBytes] = from_beat;
      be_o[GroupBytes*i +: GroupBytes]        = {GroupBytes{g == i}};
    end
    for (int unsigned i = 0; i < BeatGroups; i++) begin
      beat_o[8*GroupBytes*i +: 8*GroupBytes] = from_word;
      strb_o[GroupBytes*i +: GroupBytes]     = {GroupBytes{st_k == i}};
    end
  end

  if (GroupBytes < 1 || DataBytes % GroupBytes != 0 || WordBytes % GroupBytes != 0) begin : gen_bad_params
    $error("qacc_dma_lanes: GroupBytes must divide DataBytes and WordBytes");
  end

endmodule
