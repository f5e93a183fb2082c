// Shared constants and types of the qacc accelerator. Mirrors docs/architecture.md (spec v1.0): section numbers
// in the comments point there. Tunable sizes are module parameters fed from configs/*.json; what is fixed by
// this version of the spec lives here.
package qacc_pkg;

  // ---- Version and identification (3.2) ----------------------------------------------------------------------
  localparam logic [31:0] QACC_ID      = 32'h5141_4343;  // "QACC"
  localparam logic [31:0] QACC_VERSION = 32'h0001_0000;  // major 1, minor 0

  // ---- Datapath widths (5) ------------------------------------------------------------------------------------
  localparam int unsigned OPERAND_W = 8;   // int8 / uint8 operands
  localparam int unsigned ZP_W      = 9;   // operand zero point, two's complement, legal -128..255
  localparam int unsigned FACTOR_W  = 10;  // operand - zero point: -383..383
  localparam int unsigned PROD_W    = 2 * FACTOR_W;  // one product, |p| <= 383^2 < 2^18
  localparam int unsigned ACC_W     = 32;  // accumulators wrap modulo 2^ACC_W
  localparam int unsigned MULT_W    = 32;  // Q31 requant multiplier
  localparam int unsigned SHIFT_W   = 6;   // requant shift, two's complement, legal -31..30
  localparam int unsigned DIM_W     = 16;  // M, N, K

  localparam int MIN_SHIFT = -31;
  localparam int MAX_SHIFT = 30;
  localparam int Q31_FRAC_BITS = 31;

  // ---- Fixed latencies (1, 7); configs/*.json repeats them under "latency" -------------------------------------
  localparam int unsigned CMD_SETUP_LATENCY = 1;  // Ls
  localparam int unsigned SRAM_READ_LATENCY = 1;  // Lr
  localparam int unsigned MAC_EDGE_LATENCY  = 1;  // Le
  localparam int unsigned REQUANT_LATENCY   = 4;  // Lq
  localparam int unsigned OUT_WRITE_LATENCY = 1;  // Lw

  // ---- Command fields (4) -------------------------------------------------------------------------------------
  typedef enum logic {
    RqRoundDouble = 1'b0,  // TFLite reference: SRDHM, then RoundingDivideByPOT
    RqRoundSingle = 1'b1   // TFLITE_SINGLE_ROUNDING: one half-up shift
  } rq_rounding_e;

  typedef enum logic [3:0] {
    ActNone    = 4'd0,
    ActLut     = 4'd1,  // reserved: LUT activation unit
    ActSoftmax = 4'd2   // reserved: softmax unit
  } act_sel_e;

  typedef enum logic [3:0] {
    ErrNone       = 4'd0,
    ErrBadShape   = 4'd1,
    ErrARange     = 4'd2,
    ErrBRange     = 4'd3,
    ErrBiasRange  = 4'd4,
    ErrRqRange    = 4'd5,
    ErrOutRange   = 4'd6,
    ErrBadRequant = 4'd7,
    ErrBadZp      = 4'd8,
    ErrUnitAbsent = 4'd9
  } err_code_e;

  // CMD_MODE bit positions.
  localparam int unsigned MODE_ROUNDING_BIT    = 0;
  localparam int unsigned MODE_PER_CHANNEL_BIT = 1;
  localparam int unsigned MODE_OUT_RAW_BIT     = 2;
  localparam int unsigned MODE_BIAS_EN_BIT     = 3;
  localparam int unsigned MODE_A_UNSIGNED_BIT  = 4;
  localparam int unsigned MODE_B_UNSIGNED_BIT  = 5;
  localparam int unsigned MODE_ACT_LSB         = 8;

  // A command as copied at launch.
  typedef struct packed {
    logic [DIM_W-1:0]         m;
    logic [DIM_W-1:0]         n;
    logic [DIM_W-1:0]         k;
    logic [19:0]              a_base;
    logic [19:0]              b_base;
    logic [19:0]              bias_base;
    logic [19:0]              rq_base;
    logic [19:0]              out_base;
    rq_rounding_e             rounding;
    logic                     per_channel;
    logic                     out_raw;
    logic                     bias_en;
    logic                     a_unsigned;
    logic                     b_unsigned;
    act_sel_e                 act;
    logic signed [ZP_W-1:0]   a_zp;
    logic signed [ZP_W-1:0]   b_zp;
    logic signed [31:0]       zp_out;
    logic signed [31:0]       clamp_min;
    logic signed [31:0]       clamp_max;
    logic signed [MULT_W-1:0] mult;
    logic signed [SHIFT_W-1:0] shift;
  } cmd_t;

  // ---- Register offsets (3.2), byte addresses -------------------------------------------------------------------
  localparam logic [11:0] REG_ID              = 12'h000;
  localparam logic [11:0] REG_VERSION         = 12'h004;
  localparam logic [11:0] REG_HW_ROWS         = 12'h008;
  localparam logic [11:0] REG_HW_COLS         = 12'h00C;
  localparam logic [11:0] REG_HW_A_DEPTH      = 12'h010;
  localparam logic [11:0] REG_HW_B_DEPTH      = 12'h014;
  localparam logic [11:0] REG_HW_BIAS_DEPTH   = 12'h018;
  localparam logic [11:0] REG_HW_RQ_DEPTH     = 12'h01C;
  localparam logic [11:0] REG_HW_OUT_DEPTH    = 12'h020;
  localparam logic [11:0] REG_HW_UNITS        = 12'h024;
  localparam logic [11:0] REG_HW_LATENCY      = 12'h028;
  localparam logic [11:0] REG_CTRL            = 12'h040;
  localparam logic [11:0] REG_STATUS          = 12'h044;
  localparam logic [11:0] REG_CMD_M           = 12'h080;
  localparam logic [11:0] REG_CMD_N           = 12'h084;
  localparam logic [11:0] REG_CMD_K           = 12'h088;
  localparam logic [11:0] REG_CMD_A_BASE      = 12'h08C;
  localparam logic [11:0] REG_CMD_B_BASE      = 12'h090;
  localparam logic [11:0] REG_CMD_BIAS_BASE   = 12'h094;
  localparam logic [11:0] REG_CMD_RQ_BASE     = 12'h098;
  localparam logic [11:0] REG_CMD_OUT_BASE    = 12'h09C;
  localparam logic [11:0] REG_CMD_MODE        = 12'h0A0;
  localparam logic [11:0] REG_CMD_ZP_AB       = 12'h0A4;
  localparam logic [11:0] REG_CMD_ZP_OUT      = 12'h0A8;
  localparam logic [11:0] REG_CMD_CLAMP_MIN   = 12'h0AC;
  localparam logic [11:0] REG_CMD_CLAMP_MAX   = 12'h0B0;
  localparam logic [11:0] REG_CMD_MULT        = 12'h0B4;
  localparam logic [11:0] REG_CMD_SHIFT       = 12'h0B8;
  localparam logic [11:0] REG_PERF_CYCLES     = 12'h100;
  localparam logic [11:0] REG_PERF_MAC_BUSY   = 12'h104;
  localparam logic [11:0] REG_PERF_RQ_BUSY    = 12'h108;
  localparam logic [11:0] REG_PERF_OUT_WRITES = 12'h10C;
  localparam logic [11:0] REG_PERF_FEED_STALL = 12'h110;
  localparam logic [11:0] REG_PERF_LUT_BUSY   = 12'h114;  // reserved, reads 0
  localparam logic [11:0] REG_PERF_SMX_BUSY   = 12'h118;  // reserved, reads 0
  localparam logic [11:0] REG_PERF_CMD_COUNT  = 12'h11C;

  // CTRL / STATUS bits.
  localparam int unsigned CTRL_START_BIT    = 0;
  localparam int unsigned CTRL_IRQ_EN_BIT   = 1;
  localparam int unsigned STATUS_BUSY_BIT   = 0;
  localparam int unsigned STATUS_DONE_BIT   = 1;
  localparam int unsigned STATUS_ERROR_BIT  = 2;
  localparam int unsigned STATUS_ERR_LSB    = 8;

  // ---- Address map (3.1): bits [23:20] select the region ----------------------------------------------------
  localparam int unsigned WINDOW_BITS = 20;  // 1 MiB per SRAM window
  typedef enum logic [3:0] {
    RegionRegs = 4'h0,
    RegionA    = 4'h1,
    RegionB    = 4'h2,
    RegionBias = 4'h3,
    RegionRq   = 4'h4,
    RegionOut  = 4'h5,
    RegionLut  = 4'h6,  // reserved
    RegionSmx  = 4'h7   // reserved
  } region_e;

  // SRAM windows (regions 0x1..0x5) as indices of the window buses of qacc_regs / qacc_top.
  localparam int unsigned NUM_WIN = 5;
  typedef enum logic [2:0] {
    WinA    = 3'd0,
    WinB    = 3'd1,
    WinBias = 3'd2,
    WinRq   = 3'd3,
    WinOut  = 3'd4
  } win_e;
  localparam logic [11:0] REG_SPACE_BYTES = 12'h400;  // 0x000..0x3FF: registers and reserved offsets
  localparam int unsigned CMD_BASE_W = 20;              // CMD_*_BASE [19:0]

  // ---- Unit ids used by monitors, perf counters and reports (2) -------------------------------------------------
  typedef enum logic [2:0] {
    UnitCtrl    = 3'd0,
    UnitMac     = 3'd1,
    UnitRequant = 3'd2,
    UnitOut     = 3'd3,
    UnitLut     = 3'd4,  // reserved
    UnitSoftmax = 3'd5   // reserved
  } unit_e;

endpackage
