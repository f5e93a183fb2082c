// Shared constants and types of the qacc accelerator (docs/architecture.md; section numbers in the comments
// point there). The constants, enumerations and register map are generated from docs/spec/qacc_spec.json by
// scripts/gen_spec.py into the section below; the types around it are written by hand. Tunable sizes are
// module parameters fed from configs/*.json.
package qacc_pkg;

  // BEGIN GENERATED spec: by scripts/gen_spec.py from docs/spec/qacc_spec.json, do not edit
  // Spec v2.1.

  // ---- Constants (1, 3, 4, 5) -------------------------------------------------------------------------------------
  localparam int unsigned VERSION_MAJOR       = 2;              // spec major version (VERSION[31:16])
  localparam int unsigned VERSION_MINOR       = 1;              // spec minor version (VERSION[15:0])
  localparam logic [31:0] QACC_ID             = 32'h5141_4343;  // ID register: "QACC" in ASCII
  localparam logic [31:0] QACC_VERSION        = 32'h0002_0001;  // VERSION register
  localparam int unsigned OPERAND_W           = 8;              // int8 / uint8 operands
  localparam int unsigned ZP_W                = 9;              // operand zero point, two's complement
  localparam int unsigned FACTOR_W            = 10;             // operand - zero point: -383..383
  localparam int unsigned PROD_W              = 20;             // one product: |p| <= 383^2
  localparam int unsigned ACC_W               = 32;             // accumulator width; wraps modulo 2^32
  localparam int unsigned MULT_W              = 32;             // Q31 requant multiplier
  // requant shift field: a two's complement shift (TFLite form) or an rshift (TPU-MLIR form)
  localparam int unsigned SHIFT_W             = 8;
  localparam int          MAX_RQ_RSHIFT       = 63;             // TPU-MLIR form: largest legal rshift
  // slope stage: the pre-multiplier K, two's complement (requant.md 6.2)
  localparam int unsigned SLOPE_K_W           = 9;
  localparam int          MIN_SLOPE_K         = -256;           // slope stage: smallest K
  localparam int          MAX_SLOPE_K         = 255;            // slope stage: largest K
  localparam int unsigned Q31_FRAC_BITS       = 31;             // fraction bits of the Q31 multiplier
  localparam int unsigned DIM_W               = 16;             // CMD_M/N/K field
  localparam int unsigned CMD_BASE_W          = 20;             // CMD_*_BASE field: an SRAM word index
  localparam int unsigned OP_W                = 4;              // CMD_OP field
  // SRAM id of a LOAD/STORE (SRAM) or MOVE (DST): a window region (data_movement.md 12)
  localparam int unsigned SRAM_ID_W           = 4;
  localparam logic [31:0] MAX_DIM             = 32'h0000_FFFF;  // largest M, N, K
  localparam int          MIN_OPERAND_ZP      = -128;           // smallest legal a_zp / b_zp
  localparam int          MAX_OPERAND_ZP      = 255;            // largest legal a_zp / b_zp
  localparam int          MIN_SHIFT           = -31;            // smallest legal requant shift
  localparam int          MAX_SHIFT           = 30;             // largest legal requant shift
  localparam longint      MIN_NONZERO_MULT    = 1073741824;     // per-tensor MULT: 0 or 2^30..2^31-1
  localparam int          MIN_INT8_MODE_CLAMP = -128;           // int8 mode: smallest clamp bound
  localparam int          MAX_INT8_MODE_CLAMP = 255;            // int8 mode: largest clamp bound
  localparam int unsigned ADDR_BITS           = 24;             // APB byte-address width
  localparam int unsigned WINDOW_BITS         = 20;             // offset bits of a 1 MiB region
  localparam logic [31:0] REG_BLOCK_BYTES     = 32'h0000_0200;  // registers: 0x000..0x1FF
  // a unit's register block: block b at 0x100 * b (units.md 19.3)
  localparam logic [31:0] UNIT_BLOCK_BYTES    = 32'h0000_0100;
  localparam logic [31:0] REG_SPACE_BYTES     = 32'h0000_1000;  // register blocks 0..15: 0x000..0xFFF (units.md 19.3)
  localparam longint      ERROR_CYCLES        = 1;              // rejected command: E = 1
  localparam int unsigned DESC_WORDS          = 16;             // 32-bit words of a descriptor (data_movement.md 11)
  localparam int unsigned DESC_BYTES          = 64;             // bytes of a descriptor
  // registers one SET writes at most: words 0..13 (units.md 19.4)
  localparam int unsigned MAX_SET_COUNT       = 14;
  // descriptors per engine queue (data_movement.md 14.2)
  localparam int unsigned QUEUE_DEPTH         = 4;
  localparam int unsigned MAX_TOKENS          = 15;             // largest value of a token counter
  // beats of the longest memory burst (data_movement.md 15.1)
  localparam int unsigned MAX_BURST_BEATS     = 16;
  localparam int unsigned AXI_PAGE_BYTES      = 4096;           // no memory burst crosses a multiple of it
  localparam int unsigned WR_BUF_BEATS        = 32;             // STORE write buffer (data_movement.md 17.5)
  localparam int unsigned Q_COUNT_W           = 16;             // Q_COUNT field: descriptors of one launch
  // descriptors of one launch at most; a longer program is several (data_movement.md 14.4)
  localparam logic [31:0] MAX_Q_COUNT         = 32'h0000_FFFF;
  // host driver: first cycle with DONE -> next launch's cycle 0 (data_movement.md 14.4)
  localparam longint      RELAUNCH_CYCLES     = 9;
  localparam int unsigned LUT_SLOT_ENTRIES    = 256;            // entries of a LUT table slot (lut.md 10.1)
  // bytes of a LUT table entry, 8- and 16-bit tables alike
  localparam int unsigned LUT_ENTRY_BYTES     = 2;
  // entries of a LUT table SRAM word (its DMA unit: 16 bytes)
  localparam int unsigned LUT_WORD_ENTRIES    = 8;
  // table SRAM words of a slot: slot s starts at word 32 s
  localparam int unsigned LUT_SLOT_WORDS      = 32;
  localparam int unsigned LUT_MAX_SLOTS       = 16;             // largest lut.slots
  localparam int unsigned LUT_SLOT_W          = 4;              // LUT_SLOT field
  localparam int unsigned LUT_IN_BITS_W       = 4;              // LUT_IN_BITS field
  localparam int unsigned LUT_MIN_IN_BITS     = 2;              // smallest legal LUT_IN_BITS
  localparam int unsigned LUT_MAX_IN_BITS     = 8;              // largest legal LUT_IN_BITS: the int8 code's bits
  // ELTWISE's add lane: operands at t -> the add's code at t + 3 (lut.md 10.5)
  localparam int unsigned ADD_LANE_LATENCY    = 3;

  // ---- Fixed latencies (1, 7); configs/*.json repeats them under "latency" ----------------------------------------
  localparam int unsigned CMD_SETUP_LATENCY = 1;  // Ls: launch -> first A/B SRAM read
  localparam int unsigned SRAM_READ_LATENCY = 1;  // Lr: SRAM read: address at t, data at t + 1
  localparam int unsigned MAC_EDGE_LATENCY  = 1;  // Le: MAC array edge register (zero points)
  localparam int unsigned REQUANT_LATENCY   = 4;  // Lq: requant unit: input beat t -> output t + 4
  localparam int unsigned OUT_WRITE_LATENCY = 1;  // Lw: output writer register
  localparam int unsigned LUT_LATENCY       = 2;  // Llut: LUT stage: input beat t -> output t + 2 (lut.md 10.4)
  localparam int unsigned SLOPE_LATENCY     = 5;  // Lsl: slope stage: input beat t -> output t + 5 (requant.md 6.2)

  // ---- Enumerations -----------------------------------------------------------------------------------------------
  // CMD_OP: the operation of a command
  typedef enum logic [3:0] {
    OpGemm    = 4'd0,
    OpLoad    = 4'd1,
    OpStore   = 4'd2,
    OpMove    = 4'd3,
    OpSet     = 4'd4,
    OpEltwise = 4'd5
  } opcode_e;
  // CMD_MODE.ACT: activation unit after requant
  typedef enum logic [3:0] {
    ActNone    = 4'd0,
    ActLut     = 4'd1,
    ActSoftmax = 4'd2,
    ActSlope   = 4'd3
  } act_sel_e;
  // CMD_MODE.ROUNDING
  typedef enum logic {
    RqRoundDouble = 1'd0,
    RqRoundSingle = 1'd1
  } rq_rounding_e;
  // CMD_MODE.RQ_FORM: the requant form (requant.md 6)
  typedef enum logic {
    RqFormTflite  = 1'd0,
    RqFormTpuMlir = 1'd1
  } rq_form_e;
  // CMD_MODE.RSHIFT_ROUND: TPU-MLIR's RightShiftRound modes (requant.md 5)
  typedef enum logic [2:0] {
    RshRoundHalfAwayFromZero = 3'd0,
    RshRoundHalfUp           = 3'd1,
    RshRoundHalfDown         = 3'd2,
    RshRoundHalfToEven       = 3'd3,
    RshRoundTowardsZero      = 3'd4,
    RshRoundUp               = 3'd5,
    RshRoundDown             = 3'd6
  } rshift_round_e;
  // CMD_MODE.MULT_WIDTH: the TPU-MLIR form's multiplier width
  typedef enum logic [1:0] {
    MultW8  = 2'd0,
    MultW16 = 2'd1,
    MultW32 = 2'd2
  } mult_width_e;
  // STATUS.ERR_CODE (4)
  typedef enum logic [7:0] {
    ErrNone         = 8'd0,
    ErrBadShape     = 8'd1,
    ErrARange       = 8'd2,
    ErrBRange       = 8'd3,
    ErrBiasRange    = 8'd4,
    ErrRqRange      = 8'd5,
    ErrOutRange     = 8'd6,
    ErrBadRequant   = 8'd7,
    ErrBadZp        = 8'd8,
    ErrUnitAbsent   = 8'd9,
    ErrBadOpcode    = 8'd10,
    ErrBadSram      = 8'd11,
    ErrExtAlign     = 8'd12,
    ErrExtRange     = 8'd13,
    ErrExtFault     = 8'd14,
    ErrDeadlock     = 8'd15,
    ErrBadSet       = 8'd16,
    ErrLutSlot      = 8'd32,
    ErrLutInBits    = 8'd33,
    ErrLutEntryBits = 8'd34,
    ErrBadAdd       = 8'd35,
    ErrEltOverlap   = 8'd36,
    ErrLutRange     = 8'd37,
    ErrMultWidth    = 8'd38,
    ErrRshiftRange  = 8'd39,
    ErrBadSlope     = 8'd40
  } err_code_e;
  // Unit ids (2) used by monitors, perf counters and reports
  typedef enum logic [2:0] {
    UnitCtrl    = 3'd0,
    UnitMac     = 3'd1,
    UnitRequant = 3'd2,
    UnitOut     = 3'd3,
    UnitLut     = 3'd4,
    UnitSoftmax = 3'd5,
    UnitEltwise = 3'd6,
    UnitSlope   = 3'd7
  } unit_e;

  // The present units with a row-beat monitor, in id order: the slot of mon_beat_*_o (units.md 21.2)
  localparam int unsigned NUM_BEAT_UNITS = 4;
  localparam int unsigned BEAT_MAC = 0;
  localparam int unsigned BEAT_REQUANT = 1;
  localparam int unsigned BEAT_LUT = 2;
  localparam int unsigned BEAT_SLOPE = 3;

  // Address map (3.1): bits [23:20] select the region
  typedef enum logic [3:0] {
    RegionRegs = 4'd0,
    RegionA    = 4'd1,
    RegionB    = 4'd2,
    RegionBias = 4'd3,
    RegionRq   = 4'd4,
    RegionOut  = 4'd5,
    RegionLut  = 4'd6,
    RegionSmx  = 4'd7,
    RegionLn   = 4'd8
  } region_e;

  // ---- Register offsets (3.2), byte addresses ---------------------------------------------------------------------
  localparam logic [11:0] REG_ID                = 12'h000;
  localparam logic [11:0] REG_VERSION           = 12'h004;
  localparam logic [11:0] REG_HW_ROWS           = 12'h008;
  localparam logic [11:0] REG_HW_COLS           = 12'h00C;
  localparam logic [11:0] REG_HW_A_DEPTH        = 12'h010;
  localparam logic [11:0] REG_HW_B_DEPTH        = 12'h014;
  localparam logic [11:0] REG_HW_BIAS_DEPTH     = 12'h018;
  localparam logic [11:0] REG_HW_RQ_DEPTH       = 12'h01C;
  localparam logic [11:0] REG_HW_OUT_DEPTH      = 12'h020;
  localparam logic [11:0] REG_HW_UNITS          = 12'h024;
  localparam logic [11:0] REG_HW_LATENCY        = 12'h028;
  localparam logic [11:0] REG_HW_LUT_SLOTS      = 12'h02C;
  localparam logic [11:0] REG_CTRL              = 12'h040;
  localparam logic [11:0] REG_STATUS            = 12'h044;
  localparam logic [11:0] REG_CMD_M             = 12'h080;
  localparam logic [11:0] REG_CMD_N             = 12'h084;
  localparam logic [11:0] REG_CMD_K             = 12'h088;
  localparam logic [11:0] REG_CMD_A_BASE        = 12'h08C;
  localparam logic [11:0] REG_CMD_B_BASE        = 12'h090;
  localparam logic [11:0] REG_CMD_BIAS_BASE     = 12'h094;
  localparam logic [11:0] REG_CMD_RQ_BASE       = 12'h098;
  localparam logic [11:0] REG_CMD_OUT_BASE      = 12'h09C;
  localparam logic [11:0] REG_CMD_MODE          = 12'h0A0;
  localparam logic [11:0] REG_CMD_ZP_AB         = 12'h0A4;
  localparam logic [11:0] REG_CMD_ZP_OUT        = 12'h0A8;
  localparam logic [11:0] REG_CMD_CLAMP_MIN     = 12'h0AC;
  localparam logic [11:0] REG_CMD_CLAMP_MAX     = 12'h0B0;
  localparam logic [11:0] REG_CMD_MULT          = 12'h0B4;
  localparam logic [11:0] REG_CMD_SHIFT         = 12'h0B8;
  localparam logic [11:0] REG_CMD_OP            = 12'h0BC;
  localparam logic [11:0] REG_PERF_CYCLES       = 12'h100;
  localparam logic [11:0] REG_PERF_MAC_BUSY     = 12'h104;
  localparam logic [11:0] REG_PERF_RQ_BUSY      = 12'h108;
  localparam logic [11:0] REG_PERF_OUT_WRITES   = 12'h10C;
  localparam logic [11:0] REG_PERF_FEED_STALL   = 12'h110;
  localparam logic [11:0] REG_PERF_LUT_BUSY     = 12'h114;
  localparam logic [11:0] REG_PERF_SMX_BUSY     = 12'h118;
  localparam logic [11:0] REG_PERF_CMD_COUNT    = 12'h11C;
  localparam logic [11:0] REG_PERF_DMA_BUSY     = 12'h120;
  localparam logic [11:0] REG_PERF_COMPUTE_BUSY = 12'h124;
  localparam logic [11:0] REG_PERF_DMA_WAIT     = 12'h128;
  localparam logic [11:0] REG_PERF_COMPUTE_WAIT = 12'h12C;
  localparam logic [11:0] REG_PERF_PORT_STALL   = 12'h130;
  localparam logic [11:0] REG_PERF_RD_BEATS     = 12'h134;
  localparam logic [11:0] REG_PERF_WR_BEATS     = 12'h138;
  localparam logic [11:0] REG_PERF_SLOPE_BUSY   = 12'h13C;
  localparam logic [11:0] REG_Q_BASE            = 12'h180;
  localparam logic [11:0] REG_Q_COUNT           = 12'h184;
  localparam logic [11:0] REG_Q_RETIRED         = 12'h188;
  localparam logic [11:0] REG_Q_ERR_INDEX       = 12'h18C;
  localparam logic [11:0] REG_Q_TOKENS          = 12'h190;
  localparam logic [11:0] REG_SLOPE_POS_MULT    = 12'h200;
  localparam logic [11:0] REG_SLOPE_POS_SHIFT   = 12'h204;
  localparam logic [11:0] REG_SLOPE_POS_ZP      = 12'h208;
  localparam logic [11:0] REG_SLOPE_POS_CFG     = 12'h20C;
  localparam logic [11:0] REG_SLOPE_NEG_MULT    = 12'h210;
  localparam logic [11:0] REG_SLOPE_NEG_SHIFT   = 12'h214;
  localparam logic [11:0] REG_SLOPE_NEG_ZP      = 12'h218;
  localparam logic [11:0] REG_SLOPE_NEG_CFG     = 12'h21C;
  localparam logic [11:0] REG_SLOPE_CLAMP_MIN   = 12'h220;
  localparam logic [11:0] REG_SLOPE_CLAMP_MAX   = 12'h224;
  // The busy counter of beat unit u (PERF_<x>_BUSY, units.md 21.2): BEAT_BUSY_REG[BEAT_<UNIT>]
  localparam logic [NUM_BEAT_UNITS-1:0][11:0] BEAT_BUSY_REG = {REG_PERF_SLOPE_BUSY, REG_PERF_LUT_BUSY, REG_PERF_RQ_BUSY, REG_PERF_MAC_BUSY};

  // ---- Register fields (3.2): bit of a one-bit field, lsb and width of a wider one --------------------------------
  localparam int unsigned VERSION_MAJOR_LSB          = 16;
  localparam int unsigned VERSION_MAJOR_W            = 16;
  localparam int unsigned VERSION_MINOR_LSB          = 0;
  localparam int unsigned VERSION_MINOR_W            = 16;
  localparam int unsigned HW_UNIT_MAC_BIT            = 0;
  localparam int unsigned HW_UNIT_REQUANT_BIT        = 1;
  localparam int unsigned HW_UNIT_LUT_BIT            = 2;
  localparam int unsigned HW_UNIT_SOFTMAX_BIT        = 3;
  localparam int unsigned HW_UNIT_ELTWISE_BIT        = 4;
  localparam int unsigned HW_UNIT_SLOPE_BIT          = 5;
  localparam int unsigned HW_LATENCY_LQ_LSB          = 0;
  localparam int unsigned HW_LATENCY_LQ_W            = 8;
  localparam int unsigned HW_LATENCY_LW_LSB          = 8;
  localparam int unsigned HW_LATENCY_LW_W            = 8;
  localparam int unsigned HW_LATENCY_LS_LSB          = 16;
  localparam int unsigned HW_LATENCY_LS_W            = 8;
  localparam int unsigned HW_LATENCY_LR_LSB          = 24;
  localparam int unsigned HW_LATENCY_LR_W            = 8;
  localparam int unsigned CTRL_START_BIT             = 0;
  localparam int unsigned CTRL_IRQ_EN_BIT            = 1;
  localparam int unsigned CTRL_RUN_BIT               = 2;
  localparam int unsigned STATUS_BUSY_BIT            = 0;
  localparam int unsigned STATUS_DONE_BIT            = 1;
  localparam int unsigned STATUS_ERROR_BIT           = 2;
  localparam int unsigned STATUS_ERR_CODE_LSB        = 8;
  localparam int unsigned STATUS_ERR_CODE_W          = 8;
  localparam int unsigned MODE_ROUNDING_BIT          = 0;
  localparam int unsigned MODE_PER_CHANNEL_BIT       = 1;
  localparam int unsigned MODE_OUT_RAW_BIT           = 2;
  localparam int unsigned MODE_BIAS_EN_BIT           = 3;
  localparam int unsigned MODE_A_UNSIGNED_BIT        = 4;
  localparam int unsigned MODE_B_UNSIGNED_BIT        = 5;
  localparam int unsigned MODE_RQ_FORM_BIT           = 6;
  localparam int unsigned MODE_SLOPE_PER_CHANNEL_BIT = 7;
  localparam int unsigned MODE_ACT_LSB               = 8;
  localparam int unsigned MODE_ACT_W                 = 4;
  localparam int unsigned MODE_LUT_SLOT_LSB          = 12;
  localparam int unsigned MODE_LUT_SLOT_W            = 4;
  localparam int unsigned MODE_LUT_IN_BITS_LSB       = 16;
  localparam int unsigned MODE_LUT_IN_BITS_W         = 4;
  localparam int unsigned MODE_LUT_ENTRY_BITS_LSB    = 20;
  localparam int unsigned MODE_LUT_ENTRY_BITS_W      = 5;
  localparam int unsigned MODE_RSHIFT_ROUND_LSB      = 25;
  localparam int unsigned MODE_RSHIFT_ROUND_W        = 3;
  localparam int unsigned MODE_MULT_WIDTH_LSB        = 28;
  localparam int unsigned MODE_MULT_WIDTH_W          = 2;
  localparam int unsigned ZP_A_LSB                   = 0;
  localparam int unsigned ZP_A_W                     = 9;
  localparam int unsigned ZP_B_LSB                   = 16;
  localparam int unsigned ZP_B_W                     = 9;
  localparam int unsigned Q_TOKENS_D2C_LSB           = 0;
  localparam int unsigned Q_TOKENS_D2C_W             = 4;
  localparam int unsigned Q_TOKENS_C2D_LSB           = 8;
  localparam int unsigned Q_TOKENS_C2D_W             = 4;
  localparam int unsigned SLOPE_POS_RQ_FORM_BIT      = 0;
  localparam int unsigned SLOPE_POS_ROUNDING_BIT     = 1;
  localparam int unsigned SLOPE_POS_RSHIFT_ROUND_LSB = 4;
  localparam int unsigned SLOPE_POS_RSHIFT_ROUND_W   = 3;
  localparam int unsigned SLOPE_POS_MULT_WIDTH_LSB   = 8;
  localparam int unsigned SLOPE_POS_MULT_WIDTH_W     = 2;
  localparam int unsigned SLOPE_POS_K_LSB            = 16;
  localparam int unsigned SLOPE_POS_K_W              = 9;
  localparam int unsigned SLOPE_NEG_RQ_FORM_BIT      = 0;
  localparam int unsigned SLOPE_NEG_ROUNDING_BIT     = 1;
  localparam int unsigned SLOPE_NEG_RSHIFT_ROUND_LSB = 4;
  localparam int unsigned SLOPE_NEG_RSHIFT_ROUND_W   = 3;
  localparam int unsigned SLOPE_NEG_MULT_WIDTH_LSB   = 8;
  localparam int unsigned SLOPE_NEG_MULT_WIDTH_W     = 2;
  localparam int unsigned SLOPE_NEG_K_LSB            = 16;
  localparam int unsigned SLOPE_NEG_K_W              = 9;
  // Values of the registers fixed by this version.
  localparam logic [31:0] HW_UNITS_VALUE = 32'h0000_0037;
  localparam logic [31:0] HW_LATENCY_VALUE = 32'h0101_0104;

  localparam int unsigned NUM_SRAMS = 6;  // the SRAM regions (3.1)
  // log2 of the bytes of one DMA unit of SRAM `sram` (data_movement.md 12): its word, or for the out SRAM
  // with OUT_INT32 = 0 one int8 entry, or with OUT_INT16 one int16 entry (both: BAD_SHAPE, unused). The
  // last SRAM is the default arm (a BAD_SRAM id: unused).
  function automatic logic [3:0] dma_unit_log2(logic [SRAM_ID_W-1:0] sram, logic out_int32,
                                              logic out_int16, int unsigned rows_log2,
                                              int unsigned cols_log2);
    unique case (sram)
      SRAM_ID_W'(RegionA):    return 4'(rows_log2);
      SRAM_ID_W'(RegionB):    return 4'(cols_log2);
      SRAM_ID_W'(RegionBias): return 4'(cols_log2 + 2);
      SRAM_ID_W'(RegionRq):   return 4'(cols_log2 + 3);
      SRAM_ID_W'(RegionOut):  return out_int32 ? 4'(cols_log2 + 2) : out_int16 ? 4'(cols_log2 + 1) : 4'(cols_log2);
      default:                return 4'd4;
    endcase
  endfunction

  // The widest SRAM word for rows x cols, in bytes: the DMA's SRAM port and mon_dma_be_o / mon_dma_wdata_o
  // (data_movement.md 18; arch::MaxSramWordBytes).
  function automatic int unsigned sram_word_bytes_max(int unsigned rows, int unsigned cols);
    int unsigned widest;
    widest = 8 * cols;
    if (1 * rows > widest) widest = 1 * rows;
    if (16 > widest) widest = 16;
    return widest;
  endfunction

  // Register classes of the write rules (3): a write to a read-only register is an error, and so
  // is a write to a busy-locked one (CTRL, CMD_*, Q_BASE, Q_COUNT) while BUSY.
  function automatic logic reg_read_only(logic [11:0] off);
    return off inside {REG_ID, REG_VERSION, REG_HW_ROWS, REG_HW_COLS, REG_HW_A_DEPTH, REG_HW_B_DEPTH,
                       REG_HW_BIAS_DEPTH, REG_HW_RQ_DEPTH, REG_HW_OUT_DEPTH, REG_HW_UNITS, REG_HW_LATENCY,
                       REG_HW_LUT_SLOTS, REG_PERF_CYCLES, REG_PERF_MAC_BUSY, REG_PERF_RQ_BUSY, REG_PERF_OUT_WRITES,
                       REG_PERF_FEED_STALL, REG_PERF_LUT_BUSY, REG_PERF_SMX_BUSY, REG_PERF_CMD_COUNT,
                       REG_PERF_DMA_BUSY, REG_PERF_COMPUTE_BUSY, REG_PERF_DMA_WAIT, REG_PERF_COMPUTE_WAIT,
                       REG_PERF_PORT_STALL, REG_PERF_RD_BEATS, REG_PERF_WR_BEATS, REG_PERF_SLOPE_BUSY, REG_Q_RETIRED,
                       REG_Q_ERR_INDEX, REG_Q_TOKENS};
  endfunction
  function automatic logic reg_busy_locked(logic [11:0] off);
    return off inside {REG_CTRL, REG_CMD_M, REG_CMD_N, REG_CMD_K, REG_CMD_A_BASE, REG_CMD_B_BASE, REG_CMD_BIAS_BASE,
                       REG_CMD_RQ_BASE, REG_CMD_OUT_BASE, REG_CMD_MODE, REG_CMD_ZP_AB, REG_CMD_ZP_OUT,
                       REG_CMD_CLAMP_MIN, REG_CMD_CLAMP_MAX, REG_CMD_MULT, REG_CMD_SHIFT, REG_CMD_OP, REG_Q_BASE,
                       REG_Q_COUNT, REG_SLOPE_POS_MULT, REG_SLOPE_POS_SHIFT, REG_SLOPE_POS_ZP, REG_SLOPE_POS_CFG,
                       REG_SLOPE_NEG_MULT, REG_SLOPE_NEG_SHIFT, REG_SLOPE_NEG_ZP, REG_SLOPE_NEG_CFG,
                       REG_SLOPE_CLAMP_MIN, REG_SLOPE_CLAMP_MAX};
  endfunction
  // END GENERATED spec

  // ---- Descriptor queue entries (data_movement.md 14) ----------------------------------------------------------
  // A descriptor as the queues hold it: words 0..14 (word i = the CMD_* register at 0x080 + 4i for a GEMM) and the
  // header fields of word 15, with the descriptor's index in the program.
  localparam int unsigned DESC_IDX_W = DIM_W;  // descriptor index: Q_COUNT <= 65535
  typedef struct packed {
    logic [DESC_IDX_W-1:0] index;
    logic                  wait_tok;  // WAIT: take a token from the other engine before starting
    logic                  signal;    // SIGNAL: give a token to the other engine after completing
    opcode_e               op;
    logic [14:0][31:0]     w;         // words 0..14
  } desc_t;

  // BEGIN GENERATED descriptors: by scripts/gen_spec.py from docs/spec/qacc_spec.json, do not edit
  // ---- Descriptors (data_movement.md 11-13) -----------------------------------------------------------------------
  localparam int unsigned HDR_WORD       = 15;  // the header word of every descriptor
  localparam int unsigned HDR_OP_LSB     = 0;
  localparam int unsigned HDR_WAIT_BIT   = 8;
  localparam int unsigned HDR_SIGNAL_BIT = 9;

  // The command (4) as the controller and the datapath see it: the CMD_* fields, OP in the top bits;
  // GEMM descriptors hold them in words 0..14 (from CMD_M on).
  typedef struct packed {
    opcode_e                   op;
    logic [DIM_W-1:0]          m;
    logic [DIM_W-1:0]          n;
    logic [DIM_W-1:0]          k;
    logic [CMD_BASE_W-1:0]     a_base;
    logic [CMD_BASE_W-1:0]     b_base;
    logic [CMD_BASE_W-1:0]     bias_base;
    logic [CMD_BASE_W-1:0]     rq_base;
    logic [CMD_BASE_W-1:0]     out_base;
    rq_rounding_e              rounding;
    logic                      per_channel;
    logic                      out_raw;
    logic                      bias_en;
    logic                      a_unsigned;
    logic                      b_unsigned;
    rq_form_e                  rq_form;
    logic                      slope_per_channel;
    act_sel_e                  act;
    logic [3:0]                lut_slot;
    logic [3:0]                lut_in_bits;
    logic [4:0]                lut_entry_bits;
    rshift_round_e             rshift_round;
    mult_width_e               mult_width;
    logic signed [ZP_W-1:0]    a_zp;
    logic signed [8:0]         b_zp;
    logic signed [31:0]        zp_out;
    logic signed [31:0]        clamp_min;
    logic signed [31:0]        clamp_max;
    logic signed [31:0]        mult;
    logic signed [SHIFT_W-1:0] shift;
  } cmd_t;
  // decoded by module qacc_gemm_cmd (rtl/qacc_desc_fields.sv)

  // LOAD/STORE (data_movement.md 12): the word, lsb and width of each field, and its struct.
  localparam int unsigned DMA_COUNT0_WORD       = 0, DMA_COUNT0_LSB = 0, DMA_COUNT0_W = 16;
  localparam int unsigned DMA_COUNT1_WORD       = 1, DMA_COUNT1_LSB = 0, DMA_COUNT1_W = 16;
  localparam int unsigned DMA_COUNT2_WORD       = 2, DMA_COUNT2_LSB = 0, DMA_COUNT2_W = 16;
  localparam int unsigned DMA_SRAM_BASE_WORD    = 3, DMA_SRAM_BASE_LSB = 0, DMA_SRAM_BASE_W = 20;
  localparam int unsigned DMA_SRAM_STRIDE1_WORD = 4, DMA_SRAM_STRIDE1_LSB = 0, DMA_SRAM_STRIDE1_W = 20;
  localparam int unsigned DMA_SRAM_STRIDE2_WORD = 5, DMA_SRAM_STRIDE2_LSB = 0, DMA_SRAM_STRIDE2_W = 20;
  localparam int unsigned DMA_EXT_ADDR_WORD     = 6, DMA_EXT_ADDR_LSB = 0, DMA_EXT_ADDR_W = 32;
  localparam int unsigned DMA_EXT_STRIDE1_WORD  = 7, DMA_EXT_STRIDE1_LSB = 0, DMA_EXT_STRIDE1_W = 32;
  localparam int unsigned DMA_EXT_STRIDE2_WORD  = 8, DMA_EXT_STRIDE2_LSB = 0, DMA_EXT_STRIDE2_W = 32;
  localparam int unsigned DMA_SRAM_WORD         = 9, DMA_SRAM_LSB = 0, DMA_SRAM_W = 4;
  localparam int unsigned DMA_OUT_INT32_WORD    = 9, DMA_OUT_INT32_LSB = 4, DMA_OUT_INT32_W = 1;
  localparam int unsigned DMA_OUT_INT16_WORD    = 9, DMA_OUT_INT16_LSB = 5, DMA_OUT_INT16_W = 1;
  typedef struct packed {
    logic [DIM_W-1:0]      count0;
    logic [DIM_W-1:0]      count1;
    logic [DIM_W-1:0]      count2;
    logic [CMD_BASE_W-1:0] sram_base;
    logic [CMD_BASE_W-1:0] sram_stride1;
    logic [CMD_BASE_W-1:0] sram_stride2;
    logic [31:0]           ext_addr;
    logic [31:0]           ext_stride1;
    logic [31:0]           ext_stride2;
    logic [SRAM_ID_W-1:0]  sram;
    logic                  out_int32;
    logic                  out_int16;
  } dma_desc_t;
  // decoded by module qacc_dma_fields (rtl/qacc_desc_fields.sv)

  // MOVE (data_movement.md 13): the word, lsb and width of each field, and its struct.
  localparam int unsigned MOVE_COUNT0_WORD      = 0, MOVE_COUNT0_LSB = 0, MOVE_COUNT0_W = 16;
  localparam int unsigned MOVE_COUNT1_WORD      = 1, MOVE_COUNT1_LSB = 0, MOVE_COUNT1_W = 16;
  localparam int unsigned MOVE_COUNT2_WORD      = 2, MOVE_COUNT2_LSB = 0, MOVE_COUNT2_W = 16;
  localparam int unsigned MOVE_DST_BASE_WORD    = 3, MOVE_DST_BASE_LSB = 0, MOVE_DST_BASE_W = 20;
  localparam int unsigned MOVE_DST_STRIDE1_WORD = 4, MOVE_DST_STRIDE1_LSB = 0, MOVE_DST_STRIDE1_W = 20;
  localparam int unsigned MOVE_DST_STRIDE2_WORD = 5, MOVE_DST_STRIDE2_LSB = 0, MOVE_DST_STRIDE2_W = 20;
  localparam int unsigned MOVE_SRC_BASE_WORD    = 6, MOVE_SRC_BASE_LSB = 0, MOVE_SRC_BASE_W = 20;
  localparam int unsigned MOVE_SRC_STRIDE1_WORD = 7, MOVE_SRC_STRIDE1_LSB = 0, MOVE_SRC_STRIDE1_W = 20;
  localparam int unsigned MOVE_SRC_STRIDE2_WORD = 8, MOVE_SRC_STRIDE2_LSB = 0, MOVE_SRC_STRIDE2_W = 20;
  localparam int unsigned MOVE_DST_WORD         = 9, MOVE_DST_LSB = 0, MOVE_DST_W = 4;
  typedef struct packed {
    logic [DIM_W-1:0]      count0;
    logic [DIM_W-1:0]      count1;
    logic [DIM_W-1:0]      count2;
    logic [CMD_BASE_W-1:0] dst_base;
    logic [CMD_BASE_W-1:0] dst_stride1;
    logic [CMD_BASE_W-1:0] dst_stride2;
    logic [CMD_BASE_W-1:0] src_base;
    logic [CMD_BASE_W-1:0] src_stride1;
    logic [CMD_BASE_W-1:0] src_stride2;
    logic [SRAM_ID_W-1:0]  dst;
  } move_desc_t;
  // decoded by module qacc_move_fields (rtl/qacc_desc_fields.sv)

  // ELTWISE (lut.md 10.5): the word, lsb and width of each field, and its struct.
  localparam int unsigned ELTWISE_COUNT_WORD          = 0, ELTWISE_COUNT_LSB = 0, ELTWISE_COUNT_W = 16;
  localparam int unsigned ELTWISE_SRC_A_WORD          = 1, ELTWISE_SRC_A_LSB = 0, ELTWISE_SRC_A_W = 20;
  localparam int unsigned ELTWISE_SRC_B_WORD          = 2, ELTWISE_SRC_B_LSB = 0, ELTWISE_SRC_B_W = 20;
  localparam int unsigned ELTWISE_DST_WORD            = 3, ELTWISE_DST_LSB = 0, ELTWISE_DST_W = 20;
  localparam int unsigned ELTWISE_OP_WORD             = 4, ELTWISE_OP_LSB = 0, ELTWISE_OP_W = 2;
  localparam int unsigned ELTWISE_FORM_WORD           = 4, ELTWISE_FORM_LSB = 2, ELTWISE_FORM_W = 1;
  localparam int unsigned ELTWISE_A_UNSIGNED_WORD     = 4, ELTWISE_A_UNSIGNED_LSB = 3, ELTWISE_A_UNSIGNED_W = 1;
  localparam int unsigned ELTWISE_B_UNSIGNED_WORD     = 4, ELTWISE_B_UNSIGNED_LSB = 4, ELTWISE_B_UNSIGNED_W = 1;
  localparam int unsigned ELTWISE_Y_UNSIGNED_WORD     = 4, ELTWISE_Y_UNSIGNED_LSB = 5, ELTWISE_Y_UNSIGNED_W = 1;
  localparam int unsigned ELTWISE_ROUNDING_WORD       = 4, ELTWISE_ROUNDING_LSB = 8, ELTWISE_ROUNDING_W = 3;
  localparam int unsigned ELTWISE_WRAP_WORD           = 4, ELTWISE_WRAP_LSB = 11, ELTWISE_WRAP_W = 1;
  localparam int unsigned ELTWISE_LUT_SLOT_WORD       = 4, ELTWISE_LUT_SLOT_LSB = 12, ELTWISE_LUT_SLOT_W = 4;
  localparam int unsigned ELTWISE_LUT_IN_BITS_WORD    = 4, ELTWISE_LUT_IN_BITS_LSB = 16, ELTWISE_LUT_IN_BITS_W = 4;
  localparam int unsigned ELTWISE_LUT_ENTRY_BITS_WORD = 4, ELTWISE_LUT_ENTRY_BITS_LSB = 20, ELTWISE_LUT_ENTRY_BITS_W = 5;
  localparam int unsigned ELTWISE_ZP_A_WORD           = 5, ELTWISE_ZP_A_LSB = 0, ELTWISE_ZP_A_W = 9;
  localparam int unsigned ELTWISE_ZP_B_WORD           = 5, ELTWISE_ZP_B_LSB = 16, ELTWISE_ZP_B_W = 9;
  localparam int unsigned ELTWISE_ZP_Y_WORD           = 6, ELTWISE_ZP_Y_LSB = 0, ELTWISE_ZP_Y_W = 9;
  localparam int unsigned ELTWISE_LEFT_SHIFT_WORD     = 6, ELTWISE_LEFT_SHIFT_LSB = 16, ELTWISE_LEFT_SHIFT_W = 5;
  localparam int unsigned ELTWISE_CLAMP_MIN_WORD      = 7, ELTWISE_CLAMP_MIN_LSB = 0, ELTWISE_CLAMP_MIN_W = 9;
  localparam int unsigned ELTWISE_CLAMP_MAX_WORD      = 7, ELTWISE_CLAMP_MAX_LSB = 16, ELTWISE_CLAMP_MAX_W = 9;
  localparam int unsigned ELTWISE_MULT_A_WORD         = 8, ELTWISE_MULT_A_LSB = 0, ELTWISE_MULT_A_W = 32;
  localparam int unsigned ELTWISE_MULT_B_WORD         = 9, ELTWISE_MULT_B_LSB = 0, ELTWISE_MULT_B_W = 32;
  localparam int unsigned ELTWISE_MULT_Y_WORD         = 10, ELTWISE_MULT_Y_LSB = 0, ELTWISE_MULT_Y_W = 32;
  localparam int unsigned ELTWISE_SHIFT_A_WORD        = 11, ELTWISE_SHIFT_A_LSB = 0, ELTWISE_SHIFT_A_W = 6;
  localparam int unsigned ELTWISE_SHIFT_B_WORD        = 11, ELTWISE_SHIFT_B_LSB = 8, ELTWISE_SHIFT_B_W = 6;
  localparam int unsigned ELTWISE_SHIFT_Y_WORD        = 11, ELTWISE_SHIFT_Y_LSB = 16, ELTWISE_SHIFT_Y_W = 6;
  localparam int unsigned ELTWISE_RSHIFT_WORD         = 11, ELTWISE_RSHIFT_LSB = 24, ELTWISE_RSHIFT_W = 6;
  typedef struct packed {
    logic [DIM_W-1:0]       count;
    logic [CMD_BASE_W-1:0]  src_a;
    logic [CMD_BASE_W-1:0]  src_b;
    logic [CMD_BASE_W-1:0]  dst;
    logic [1:0]             op;
    logic                   form;
    logic                   a_unsigned;
    logic                   b_unsigned;
    logic                   y_unsigned;
    logic [2:0]             rounding;
    logic                   wrap;
    logic [3:0]             lut_slot;
    logic [3:0]             lut_in_bits;
    logic [4:0]             lut_entry_bits;
    logic signed [ZP_W-1:0] zp_a;
    logic signed [8:0]      zp_b;
    logic signed [ZP_W-1:0] zp_y;
    logic [4:0]             left_shift;
    logic signed [ZP_W-1:0] clamp_min;
    logic signed [8:0]      clamp_max;
    logic [31:0]            mult_a;
    logic [31:0]            mult_b;
    logic [31:0]            mult_y;
    logic signed [5:0]      shift_a;
    logic signed [5:0]      shift_b;
    logic signed [5:0]      shift_y;
    logic [5:0]             rshift;
  } eltwise_desc_t;
  // decoded by module qacc_eltwise_fields (rtl/qacc_desc_fields.sv)

  // SET (units.md 19.4): the word, lsb and width of each field, and its struct.
  localparam int unsigned SET_VALUE_WORD = 0, SET_VALUE_LSB = 0, SET_VALUE_W = 32;
  localparam int unsigned SET_REG_WORD   = 14, SET_REG_LSB = 2, SET_REG_W = 10;
  localparam int unsigned SET_COUNT_WORD = 14, SET_COUNT_LSB = 16, SET_COUNT_W = 4;
  typedef struct packed {
    logic [13:0][31:0] value;
    logic [9:0]        reg_idx;
    logic [3:0]        count;
  } set_desc_t;
  // decoded by module qacc_set_fields (rtl/qacc_desc_fields.sv)

  // SET (units.md 19.4): exactly the registers of one present unit, the whole block's configuration.
  function automatic logic set_regs_ok(logic [SET_REG_W-1:0] reg_idx, logic [SET_COUNT_W-1:0] count);
    return (reg_idx == SET_REG_W'(128) && count == SET_COUNT_W'(10));  // slope
  endfunction
  // END GENERATED descriptors

  // BEGIN GENERATED monitors: by scripts/gen_spec.py from docs/spec/qacc_spec.json, do not edit
  // ---- Monitor mon_q_o of qacc_top --------------------------------------------------------------------------------
  // The program monitor (data_movement.md 18): tokens, queues, Q_RETIRED, starts and retirements.
  typedef struct packed {
    logic [3:0]  d2c;             // token counters at the start of the cycle
    logic [3:0]  c2d;
    logic [2:0]  dma_count;       // descriptors in the DMA queue
    logic [2:0]  cmp_count;       // descriptors in the compute queue
    logic [15:0] retired;         // Q_RETIRED
    logic        dma_start;       // the DMA engine starts its head in this cycle
    logic [15:0] dma_start_idx;
    logic        dma_retire;      // the DMA engine retires its head in this cycle
    logic [15:0] dma_retire_idx;
    logic        cmp_start;
    logic [15:0] cmp_start_idx;
    logic        cmp_retire;
    logic [15:0] cmp_retire_idx;
    logic        dma_wait;        // the cycles PERF_DMA_WAIT counts (17.8)
    logic        cmp_wait;        // ... PERF_COMPUTE_WAIT
    logic        port_stall;      // ... PERF_PORT_STALL (17.6)
  } mon_q_t;  // 101 bits
  // END GENERATED monitors

  // ---- The slope stage's registers (requant.md 6.2), as qacc_slope_regs holds them ------------------------------
  // One side: the first stage's form fields (6.1) and the pre-multiplier K. SHIFT reads as two's complement in
  // the TFLite form and unsigned in the TPU-MLIR form.
  typedef struct packed {
    logic [MULT_W-1:0]           mult;
    logic [SHIFT_W-1:0]          shift;
    logic signed [31:0]          zp;
    rq_form_e                    form;
    rq_rounding_e                rounding;
    rshift_round_e               rshift_round;
    mult_width_e                 mult_width;
    logic signed [SLOPE_K_W-1:0] k;
  } slope_side_t;
  typedef struct packed {
    slope_side_t        pos;        // d >= 0
    slope_side_t        neg;        // d < 0
    logic signed [31:0] clamp_min;
    logic signed [31:0] clamp_max;
  } slope_cfg_t;
  // The registers' count: a SET into the block writes all of them, in offset order from REG_SLOPE_POS_MULT.
  localparam int unsigned SLOPE_REGS = (32'(REG_SLOPE_CLAMP_MAX) - 32'(REG_SLOPE_POS_MULT)) / 4 + 1;

  // A side from its four register words (MULT, SHIFT, ZP, CFG): what a write of them stores.
  function automatic slope_side_t slope_side_of(logic [3:0][31:0] w);
    slope_side_t s;
    s.mult         = w[0];
    s.shift        = w[1][SHIFT_W-1:0];
    s.zp           = w[2];
    s.form         = rq_form_e'(w[3][SLOPE_POS_RQ_FORM_BIT]);
    s.rounding     = rq_rounding_e'(w[3][SLOPE_POS_ROUNDING_BIT]);
    s.rshift_round = rshift_round_e'(w[3][SLOPE_POS_RSHIFT_ROUND_LSB +: SLOPE_POS_RSHIFT_ROUND_W]);
    s.mult_width   = mult_width_e'(w[3][SLOPE_POS_MULT_WIDTH_LSB +: SLOPE_POS_MULT_WIDTH_W]);
    s.k            = w[3][SLOPE_POS_K_LSB +: SLOPE_POS_K_W];
    return s;
  endfunction
  // The CFG register's read-back (its fields, as stored).
  function automatic logic [31:0] slope_cfg_word(slope_side_t s);
    logic [31:0] w;
    w = '0;
    w[SLOPE_POS_RQ_FORM_BIT]                                  = s.form;
    w[SLOPE_POS_ROUNDING_BIT]                                 = s.rounding;
    w[SLOPE_POS_RSHIFT_ROUND_LSB +: SLOPE_POS_RSHIFT_ROUND_W] = s.rshift_round;
    w[SLOPE_POS_MULT_WIDTH_LSB +: SLOPE_POS_MULT_WIDTH_W]     = s.mult_width;
    w[SLOPE_POS_K_LSB +: SLOPE_POS_K_W]                       = s.k;
    return w;
  endfunction

  // ---- SRAM windows (regions 0x1..0x6) as indices of the window buses of qacc_regs / qacc_top -------------------
  localparam int unsigned NUM_WIN = 6;
  typedef enum logic [2:0] {
    WinA    = 3'd0,
    WinB    = 3'd1,
    WinBias = 3'd2,
    WinRq   = 3'd3,
    WinOut  = 3'd4,
    WinLut  = 3'd5
  } win_e;

endpackage
