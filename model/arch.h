// The architecture spec in C++: constants, register map, command format, configuration and timing
// of the qacc accelerator (docs/architecture.md; section numbers below point there). The constants,
// register map, error codes, unit ids and opcodes come from spec/arch_spec.h, generated from
// docs/spec/qacc_spec.json as the constants of rtl/qacc_pkg.sv are; this file adds what is
// derived from them. Plain C++17 (no SystemC, no Verilator): the SystemC model, the
// co-simulation, the RTL tests and the tools all include it.
#ifndef QACC_MODEL_ARCH_H_
#define QACC_MODEL_ARCH_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "spec/arch_spec.h"

namespace qacc::arch {

// ---- Derived from the spec's constants
inline constexpr uint32_t kWindowSize = uint32_t{1} << kWindowBits;  // 1 MiB per SRAM window
inline constexpr uint32_t WindowBase(Region region) {
  return static_cast<uint32_t>(region) << kWindowBits;
}
inline constexpr uint32_t kRegsBase = WindowBase(Region::kRegs);
inline constexpr uint32_t kABase = WindowBase(Region::kA);        // 0x10_0000
inline constexpr uint32_t kBBase = WindowBase(Region::kB);        // 0x20_0000
inline constexpr uint32_t kBiasBase = WindowBase(Region::kBias);  // 0x30_0000
inline constexpr uint32_t kRqBase = WindowBase(Region::kRq);      // 0x40_0000
inline constexpr uint32_t kOutBase = WindowBase(Region::kOut);    // 0x50_0000
inline constexpr uint32_t kLutBase = WindowBase(Region::kLut);    // 0x60_0000
inline constexpr uint32_t kSmxBase = WindowBase(Region::kSmx);    // reserved
inline constexpr uint32_t RegionBits(uint32_t addr) {
  return (addr >> kWindowBits) & ((uint32_t{1} << (kAddrBits - kWindowBits)) - 1);
}
inline constexpr uint32_t WindowOffset(uint32_t addr) { return addr & (kWindowSize - 1); }
// rq SRAM lane (3.1, 3.3): 8 bytes, multiplier word at +0, shift word at +4 (bits [5:0] used).
inline constexpr uint32_t kRqLaneBytes = 8;
inline constexpr uint32_t kRqShiftOffset = 4;
// Earlier names of the fixed register values.
inline constexpr uint32_t kHwUnitsV1 = kHwUnitsValue;
inline constexpr uint32_t kHwLatencyV1 = kHwLatencyValue;

const char* UnitName(Unit unit);  // "ctrl", "mac", "requant", "out", "lut", "softmax"
// The register at byte offset `offset` of the register block, or nullptr (reserved offsets).
const RegisterInfo* FindRegister(uint32_t offset);

// ---- Configuration (1): configs/*.json
// Every tunable parameter of the hardware, typed, with its default (configs/default.json) and legal
// range. The RTL build passes the same values as -G parameters; the latencies are fixed by the spec
// and only checked.
struct ArchLatency {
  int cmd_setup = kCmdSetupLatency;  // "latency.cmd_setup": Ls, must equal the spec's
  int sram_read = kSramReadLatency;  // "latency.sram_read": Lr
  int mac_edge = kMacEdgeLatency;    // "latency.mac_edge":  Le
  int requant = kRequantLatency;     // "latency.requant":   Lq
  int out_write = kOutWriteLatency;  // "latency.out_write": Lw
  int lut = kLutLatency;             // "latency.lut":       Llut
};

// The largest share of cycles, in percent, in which the testbench memory stalls (15.2).
inline constexpr int kMaxReadyGaps = 90;

struct ArchConfig {
  std::string name = "default";  // "name": free text
  std::string description;       // "description": free text
  int rows = 8;  // "array.rows" (NumRows): PE rows = output rows per tile; 4, 8, 16, 32
  int cols = 8;  // "array.cols" (NumCols): PE columns = requant lanes; 4, 8, 16, 32
  uint32_t a_depth =
      8192;  // "sram.a_depth" (ADepth): words of Rows int8; pow2, a_depth*Rows <= 2^20
  uint32_t b_depth =
      8192;  // "sram.b_depth" (BDepth): words of Cols int8; pow2, b_depth*Cols <= 2^20
  uint32_t bias_depth =
      256;  // "sram.bias_depth" (BiasDepth): words of Cols int32; pow2, *4*Cols <= 2^20
  uint32_t rq_depth =
      256;  // "sram.rq_depth" (RqDepth): words of Cols (mult, shift); pow2, *8*Cols <= 2^20
  uint32_t out_depth =
      8192;  // "sram.out_depth" (OutDepth): words of 4*Cols bytes; pow2, *4*Cols <= 2^20
  int addr_bits = kAddrBits;  // "bus.addr_bits" (AddrWidth): APB byte-address width, fixed
  int acc_bits = kAccBits;    // "acc_bits": accumulator width, fixed
  ArchLatency latency;        // "latency.*"
  int lut_slots = 4;          // "lut.slots" (LutSlots): LUT table slots, 1..16 (lut.md 10.1)
  // External memory port (data_movement.md 15.1): RTL parameters.
  int mem_data_bytes = 16;     // "mem.data_bytes" (DataBytes): beat bytes D; 8, 16, 32, 64
  int mem_max_outstanding = 4;  // "mem.max_outstanding" (MaxOutstanding): read bursts; 1..8
  // The testbench's external memory (15.2): not RTL parameters.
  uint64_t ext_mem_size_bytes = uint64_t{16} << 20;  // "ext_mem.size_bytes": 4 KiB..4 GiB, x4 KiB
  int ext_mem_latency = 20;   // "ext_mem.latency": Lm, 1..1024 cycles
  int ext_mem_interval = 1;   // "ext_mem.interval": Iv, 1..64 cycles per beat
  // "ext_mem.ready_gaps": percent of cycles, 0..90, in which ar_ready, aw_ready and w_ready are
  // held low (a slave that stalls); "ext_mem.gap_seed": the seed of their pattern.
  int ext_mem_ready_gaps = 0;  // 0..kMaxReadyGaps
  int64_t ext_mem_gap_seed = 1;

  // SRAM word sizes in bytes (section 3.1 table).
  uint32_t a_word_bytes() const { return uint32_t(rows); }
  uint32_t b_word_bytes() const { return uint32_t(cols); }
  uint32_t bias_word_bytes() const { return 4u * uint32_t(cols); }
  uint32_t rq_word_bytes() const { return 8u * uint32_t(cols); }
  uint32_t out_word_bytes() const { return 4u * uint32_t(cols); }
  uint32_t lut_word_bytes() const { return uint32_t(kLutWordEntries * kLutEntryBytes); }
  // Words of the SRAM of region `sram` (its depth parameter); 0 for a region without an SRAM in
  // this version.
  uint32_t depth(Region sram) const;
};

// Throws std::invalid_argument naming the JSON key and its legal range when a value is illegal,
// e.g. "array.rows: 6 is not one of 4, 8, 16, 32".
void ValidateArchConfig(const ArchConfig& config);
// Parses a JSON document (keys of section 1; a missing key keeps its default; an unknown key is an
// error). `source` names the document in error messages. Throws std::invalid_argument.
ArchConfig ParseArchConfig(std::string_view json_text, std::string_view source = "<json>");
// Reads and parses configs/<name>.json-style files. Throws std::invalid_argument (also when
// unreadable).
ArchConfig LoadArchConfig(const std::string& path);
// One line: "default: 8x8, A 8192, B 8192, bias 256, rq 256, out 8192 words".
std::string DescribeArchConfig(const ArchConfig& config);

// ---- Command (4)
// The CMD_* registers as the host writes them (raw register values: the field extraction is part of
// the spec).
// The slope stage's registers (requant.md 6.2): SLOPE_POS_MULT .. SLOPE_CLAMP_MAX, contiguous.
inline constexpr size_t kSlopeRegisterCount = (reg::kSlopeClampMax - reg::kSlopePosMult) / 4 + 1;
static_assert(kSlopeRegisterCount == 10);

struct Command {
  uint32_t op = 0;                                                            // CMD_OP [3:0]
  uint32_t m = 1, n = 1, k = 1;                                               // CMD_M/N/K [15:0]
  uint32_t a_base = 0, b_base = 0, bias_base = 0, rq_base = 0, out_base = 0;  // [19:0]
  uint32_t mode = 0;                                                          // CMD_MODE
  uint32_t zp_ab = 0;        // CMD_ZP_AB raw: [8:0] a_zp, [24:16] b_zp
  int32_t zp_out = 0;        // CMD_ZP_OUT
  int32_t clamp_min = -128;  // CMD_CLAMP_MIN
  int32_t clamp_max = 127;   // CMD_CLAMP_MAX
  int32_t mult = 1 << 30;    // CMD_MULT
  uint32_t shift = 0;        // CMD_SHIFT raw [7:0]
  // The slope stage's registers (block 2, requant.md 6.2) as stored, SLOPE_POS_MULT ..
  // SLOPE_CLAMP_MAX: command state that a command with ACT = SLOPE reads (units.md 19.3).
  std::array<uint32_t, kSlopeRegisterCount> slope_regs{};

  uint32_t Op() const { return op & ((uint32_t{1} << kOpBits) - 1); }
  uint32_t M() const { return m & kMaxDim; }
  uint32_t N() const { return n & kMaxDim; }
  uint32_t K() const { return k & kMaxDim; }
  bool single_rounding() const { return mode & kModeRounding; }
  bool per_channel() const { return mode & kModePerChannel; }
  bool out_raw() const { return mode & kModeOutRaw; }
  bool bias_en() const { return mode & kModeBiasEn; }
  bool a_unsigned() const { return mode & kModeAUnsigned; }
  bool b_unsigned() const { return mode & kModeBUnsigned; }
  uint32_t act() const { return (mode & kModeActMask) >> kModeActLsb; }
  bool lut() const { return act() == static_cast<uint32_t>(Act::kLut); }      // ACT = LUT
  bool slope() const { return act() == static_cast<uint32_t>(Act::kSlope); }  // ACT = SLOPE
  // ACT = SLOPE with SLOPE_PER_CHANNEL: the NEG side from the rq SRAM (requant.md 6.3).
  bool slope_per_channel() const { return slope() && (mode & kModeSlopePerChannel); }
  // The rq words per column tile: PER_CHANNEL's, then the slope's (requant.md 6.3).
  int64_t rq_words_per_tile() const {
    return (per_channel() ? 1 : 0) + (slope_per_channel() ? 1 : 0);
  }
  uint32_t lut_slot() const { return (mode & kModeLutSlotMask) >> kModeLutSlotLsb; }
  uint32_t lut_in_bits() const { return (mode & kModeLutInBitsMask) >> kModeLutInBitsLsb; }
  uint32_t lut_entry_bits() const { return (mode & kModeLutEntryBitsMask) >> kModeLutEntryBitsLsb; }
  // The requant form (requant.md 6.1): RQ_FORM = TPU-MLIR, and its RSHIFT_ROUND and MULT_WIDTH
  // codes.
  bool tpu_mlir_form() const { return mode & kModeRqForm; }
  uint32_t rshift_round() const { return (mode & kModeRshiftRoundMask) >> kModeRshiftRoundLsb; }
  uint32_t mult_width() const { return (mode & kModeMultWidthMask) >> kModeMultWidthLsb; }
};

// The out SRAM layout a command writes (6.3, lut.md 10.6): int32 with OUT_RAW, int16 with ACT = LUT
// and LUT_ENTRY_BITS = 16 (whatever the other LUT fields: OUT_RANGE takes it so), int8 otherwise.
enum class OutLayout : uint8_t { kInt8, kInt16, kInt32 };
inline OutLayout OutLayoutOf(const Command& cmd) {
  if (cmd.out_raw()) return OutLayout::kInt32;
  return cmd.lut() && cmd.lut_entry_bits() == 16 ? OutLayout::kInt16 : OutLayout::kInt8;
}
inline constexpr OutLayout OutLayoutOf(bool out_raw) {
  return out_raw ? OutLayout::kInt32 : OutLayout::kInt8;
}

// Sign extension of a `bits`-wide two's complement field.
inline constexpr int32_t SignExtend(uint32_t value, int bits) {
  const uint32_t mask = (uint32_t{1} << bits) - 1;
  const uint32_t sign = uint32_t{1} << (bits - 1);
  const uint32_t v = value & mask;
  return (v & sign) ? static_cast<int32_t>(v) - static_cast<int32_t>(sign << 1)
                    : static_cast<int32_t>(v);
}
inline constexpr int32_t ZpA(uint32_t zp_ab) { return SignExtend(zp_ab >> kZpALsb, kZpBits); }
inline constexpr int32_t ZpB(uint32_t zp_ab) { return SignExtend(zp_ab >> kZpBLsb, kZpBits); }
inline constexpr uint32_t PackZpAb(int32_t a_zp, int32_t b_zp) {
  return (uint32_t(a_zp) << kZpALsb & kZpAMask) | (uint32_t(b_zp) << kZpBLsb & kZpBMask);
}
inline constexpr int32_t ShiftValue(uint32_t shift_reg) {
  return SignExtend(shift_reg, kShiftBits);
}
// The TPU-MLIR form's rshift: the shift field read unsigned (requant.md 6.1).
inline constexpr uint32_t RshiftValue(uint32_t shift_reg) {
  return shift_reg & ((uint32_t{1} << kShiftBits) - 1);
}
// MULT_WIDTH's code 0, 1, 2: a multiplier of 8, 16, 32 bits.
inline constexpr int MultWidthBits(uint32_t code) { return 8 << code; }
// The low `bits` bits of `word` (1..32), sign-extended: the multiplier a TPU-MLIR lane takes.
inline constexpr int32_t LowBitsSigned(uint32_t word, int bits) {
  const uint64_t sign = uint64_t{1} << (bits - 1);
  const uint64_t v = uint64_t{word} & ((sign << 1) - 1);
  return static_cast<int32_t>(static_cast<int64_t>(v ^ sign) - static_cast<int64_t>(sign));
}

// ---- Tiling and timing (4, 6, 7)
inline constexpr int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The tiling of one command (section 6) and, declared here but defined apart, its closed-form cycle
// numbers (section 7). t is the tile (t = mb * NB + nb), k the beat of the K reduction, i the output
// row inside the tile (0..Rows-1); cycle 0 is the first cycle with STATUS.BUSY = 1.
//
// The cycle formulas (P .. FeedStall) live in model/closed_form_timing.cc, library qacc_closed_form.
// The SystemC unit modules (library qacc_units) derive every beat's cycle from their own pipelines
// and must not use them: they do not link qacc_closed_form, and the qacc_units_link_check target
// fails to link if any of their objects calls a formula (docs/model.md "Two timing paths").
struct Timing {
  int64_t rows = 8, cols = 8;   // R, C
  int64_t m = 1, n = 1, k = 1;  // M, N, K
  bool lut = false;             // ACT = LUT: the LUT stage sits between requant and the out writer
  bool slope = false;           // ACT = SLOPE: the slope stage sits there (requant.md 6.2)

  constexpr Timing() = default;
  constexpr Timing(int64_t num_rows, int64_t num_cols, int64_t dim_m, int64_t dim_n, int64_t dim_k,
                   bool with_lut = false, bool with_slope = false)
      : rows(num_rows),
        cols(num_cols),
        m(dim_m),
        n(dim_n),
        k(dim_k),
        lut(with_lut),
        slope(with_slope) {}

  // ---- Tiling (section 6)
  constexpr int64_t MB() const { return CeilDiv(m, rows); }  // ceil(M / Rows)
  constexpr int64_t NB() const { return CeilDiv(n, cols); }  // ceil(N / Cols)
  constexpr int64_t T() const { return MB() * NB(); }        // tiles
  constexpr int64_t TileMb(int64_t t) const { return t / NB(); }
  constexpr int64_t TileNb(int64_t t) const { return t % NB(); }
  constexpr int64_t MValid(int64_t mb) const { return std::min(rows, m - mb * rows); }  // 6.2
  constexpr int64_t NValid(int64_t nb) const { return std::min(cols, n - nb * cols); }

  // ---- Closed-form timing (section 7; defined in model/closed_form_timing.cc)
  int64_t P() const;  // tile period max(K, R, C)
  // A/B SRAM read address of tile t, beat k: F = Ls + t*P + k.
  int64_t F(int64_t t, int64_t beat) const;
  // MAC array input beat: I = F + Lr.
  int64_t I(int64_t t, int64_t beat) const;
  // MAC array output beat of row i: O = I(t,0) + K + C + Le + i.
  int64_t O(int64_t t, int64_t i) const;
  // Bias and rq SRAM read (address) of tile t: O(t,0) - 1.
  int64_t BiasRead(int64_t t) const;
  // Requant output beat: Q = O + Lq.
  int64_t Q(int64_t t, int64_t i) const;
  // LUT output beat (lut.md 10.4): Q + L_lut.
  int64_t L(int64_t t, int64_t i) const;
  // Slope stage output beat (requant.md 6.2): Q + L_slope.
  int64_t S(int64_t t, int64_t i) const;
  // Whether `unit` has row beats in this command: the LUT unit only with ACT = LUT.
  bool Beats(BeatUnit unit) const;
  // Row beat of row i of tile t on the monitor of `unit` (units.md 21.2): O for the MAC array, Q
  // for requant, L for the LUT unit.
  int64_t Beat(BeatUnit unit, int64_t t, int64_t i) const;
  // Output SRAM write of row i (only rows i < MValid(mb) are written): W = Q + Lw, or L + Lw with
  // ACT = LUT, or S + Lw with ACT = SLOPE.
  int64_t W(int64_t t, int64_t i) const;
  // Command done (BUSY = 0, DONE = 1 visible) = PERF_CYCLES: E = W(T-1, R-1) + 1 = (T-1)*P + K + R
  // + C + 8, plus L_lut with ACT = LUT, L_slope with ACT = SLOPE.
  int64_t E() const;

  // The input beats of beat unit `unit`, the events of its PERF_<x>_BUSY (units.md 21.2): tile t's
  // are the `per_tile` consecutive cycles from first + t * P. The MAC array takes K beats from
  // I(t,0), requant the MAC array's R output beats from O(t,0), the LUT unit requant's R output
  // beats from Q(t,0) with ACT = LUT (none without).
  struct InputBeats {
    int64_t first;
    int64_t per_tile;
  };
  InputBeats In(BeatUnit unit) const;

  // Expected perf counters (3.2).
  int64_t Busy(BeatUnit unit) const;  // PERF_<x>_BUSY: T * In(unit).per_tile (T * K, T * R)
  int64_t OutWrites() const;  // NB * M
  int64_t FeedStall() const;  // (T - 1) * (P - K)
};

// ---- Output layout (6.3)
// Output SRAM words used by a command: T * Rows (int32), T * Rows / 2 (int16), T * Rows / 4 (int8).
inline constexpr int64_t OutWords(int64_t tiles, int64_t rows, OutLayout layout) {
  return layout == OutLayout::kInt32   ? tiles * rows
         : layout == OutLayout::kInt16 ? tiles * rows / 2
                                       : tiles * rows / 4;
}
inline constexpr int64_t OutWords(int64_t tiles, int64_t rows, bool out_raw) {
  return OutWords(tiles, rows, OutLayoutOf(out_raw));
}
// Output entry of row i of tile t: e = t * R + i.
inline constexpr int64_t OutEntry(int64_t t, int64_t i, int64_t rows) { return t * rows + i; }
// Output entry holding element (m, n): e = ((m / R) * NB + n / C) * R + m mod R; its lane is n mod
// C.
inline constexpr int64_t OutEntryOf(int64_t m, int64_t n, int64_t rows, int64_t cols,
                                    int64_t nb_count) {
  return ((m / rows) * nb_count + n / cols) * rows + m % rows;
}
// Output SRAM word of entry e: OUT_BASE + e (int32), OUT_BASE + e / 2 (int16, two rows per word)
// or OUT_BASE + e / 4 (int8, four rows per word).
inline constexpr int64_t OutWordAddr(int64_t out_base, int64_t entry, OutLayout layout) {
  return out_base + (layout == OutLayout::kInt32   ? entry
                     : layout == OutLayout::kInt16 ? entry / 2
                                                   : entry / 4);
}
inline constexpr int64_t OutWordAddr(int64_t out_base, int64_t entry, bool out_raw) {
  return OutWordAddr(out_base, entry, OutLayoutOf(out_raw));
}
// First byte of lane c of entry e inside its output word: 4c (int32), 2 ((e mod 2) * C + c)
// (int16) or (e mod 4) * C + c (int8).
inline constexpr int64_t OutByteInWord(int64_t entry, int64_t lane, int64_t cols,
                                       OutLayout layout) {
  return layout == OutLayout::kInt32   ? 4 * lane
         : layout == OutLayout::kInt16 ? 2 * ((entry % 2) * cols + lane)
                                       : (entry % 4) * cols + lane;
}
inline constexpr int64_t OutByteInWord(int64_t entry, int64_t lane, int64_t cols, bool out_raw) {
  return OutByteInWord(entry, lane, cols, OutLayoutOf(out_raw));
}
// Byte offset of lane c of entry e inside the output window (host address = kOutBase + this).
inline constexpr int64_t OutWindowByte(int64_t out_base, int64_t entry, int64_t lane, int64_t cols,
                                       OutLayout layout) {
  return OutWordAddr(out_base, entry, layout) * 4 * cols + OutByteInWord(entry, lane, cols, layout);
}
inline constexpr int64_t OutWindowByte(int64_t out_base, int64_t entry, int64_t lane, int64_t cols,
                                       bool out_raw) {
  return OutWindowByte(out_base, entry, lane, cols, OutLayoutOf(out_raw));
}

// Validation of section 4 in its order: the first failing check, or ErrCode::kNone. With ACT =
// SLOPE the slope registers of `cmd` must be legal (requant.md 6.2); a program's fetcher, which
// runs ahead of the SETs, checks them itself (slope_registers_checked: leave them to the caller).
ErrCode ValidateCommand(const ArchConfig& config, const Command& cmd,
                        bool slope_registers_checked = false);

// Whether the slope registers hold a legal slope (requant.md 6.2): each side's form rules on its
// multiplier and shift, the clamp ordered and within the int8 mode's bounds. The model's own
// reading of the spec, apart from golden's SlopeRegistersLegal.
bool SlopeRegistersLegal(const std::array<uint32_t, kSlopeRegisterCount>& regs);

}  // namespace qacc::arch

#endif  // QACC_MODEL_ARCH_H_
