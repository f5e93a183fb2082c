// Quantized softmax with two lookup tables (seed 000): X -> T for the denominator, X -> P for the
// numerator, one integer accumulation and one integer division per element.
//
// Derivation (docs/softmax.md): softmax is shift invariant, so with an offset c <= max(X),
//   y_i = t_i / sum_j t_j,  t_i = exp(s_x * (X_i - c)) in (0, 1].
// Quantize t with scale 1/M, M = floor(Qacc_max / n), Qacc_max = 2^(acc_bits-1) - 1, so that n
// entries of at most M never overflow the accumulator; fold the output scale into a second table:
//   T(X) = Q(t * M)          stored in acc_bits            (denominator element)
//   P(X) = Q(t * M / s_y)    stored in acc_bits + out_bits (numerator, one rounding instead of two)
//   S    = sum_i T(X_i)      in an acc_bits accumulator
//   Y_i  = clamp(Div(P(X_i), S) + zp_y, qmin_y, qmax_y)
// After the tables are built, evaluation is integer only (int64 in the model).
//
// The offset c is either the input Qmax (the seed: no pass over the row, but S can be tiny or 0
// when every X_i is far below Qmax) or the row maximum (one extra pass; the largest element always
// contributes T = M, so S >= M and, with nearest tables, S is off by at most n / (2M) relative).
// Both use the same tables: the row maximum r is applied as an address offset, X' = X - r + Qmax.
//
// All of the above is the exact mode. SoftmaxMode::kSeedCompat (WithSeedCompat, --compat seed)
// instead reproduces seed 000's PyTorch code in float32: float32 tables, an exact sum, a float32
// division (docs/softmax.md, section 7).
#ifndef QACC_GOLDEN_SOFTMAX_H_
#define QACC_GOLDEN_SOFTMAX_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "golden/quant.h"
#include "golden/table_memory.h"

namespace qacc::golden {

inline constexpr int kSoftmaxMinN = 1;
inline constexpr int kSoftmaxMaxN = 65536;
inline constexpr int kSoftmaxMinInBits = 2;
inline constexpr int kSoftmaxMaxInBits = 8;
inline constexpr int kSoftmaxMinAccBits = 8;
inline constexpr int kSoftmaxMaxAccBits = 32;

// How P / S becomes an integer (P >= 0, S > 0).
enum class DivRounding {
  kFloor,    // floor(P / S): the seed (integer division of non-negative values)
  kNearest,  // floor((2P + S) / (2S)): nearest, ties up; one extra adder before the divider
};

// Which offset c makes every exponent non-positive.
enum class SoftmaxOffset {
  kQmax,    // c = input Qmax: the seed, no pass over the row
  kRowMax,  // c = max of the row: one more pass, guarantees S >= M
};

// How the tables are built and a row is divided.
enum class SoftmaxMode {
  // Tables in double (SoftmaxTableEntry), integer row arithmetic: saturating sum, DivideRounded.
  // table_rounding, div_rounding and offset choose the arithmetic.
  kExact,
  // Seed 000's Python (PyTorch float32) arithmetic, as its Softmax class computes it: float32
  // tables (SeedCompatTableEntry), an exact int64 sum, a float32 true division truncated
  // (SeedCompatDivide), offset Qmax. Requires the seed's table_rounding (toward zero), div_rounding
  // (floor) and offset (qmax), which WithSeedCompat sets, and an output zero point of 0.
  kSeedCompat,
};

// Names used on the command line and in JSON.
std::string_view SoftmaxModeName(SoftmaxMode mode);      // "exact", "seed"
std::string_view DivRoundingName(DivRounding rounding);  // "floor", "nearest"
std::optional<DivRounding> ParseDivRounding(std::string_view name);
std::string_view SoftmaxOffsetName(SoftmaxOffset offset);  // "qmax", "rowmax"
std::optional<SoftmaxOffset> ParseSoftmaxOffset(std::string_view name);

struct SoftmaxParams {
  int n = 128;        // row length, kSoftmaxMinN..kSoftmaxMaxN; floor(Qacc_max / n) must be >= 1
  QuantSpec in;       // bits 2..8, any zero point (it cancels in X - c)
  QuantSpec out;      // bits 2..16, y = s_y * (Y - zp_y)
  int acc_bits = 32;  // 8..32: the accumulator and the T table width
  RoundingMode table_rounding = RoundingMode::kHalfAwayFromZero;  // T and P entries
  DivRounding div_rounding = DivRounding::kNearest;
  // Row max by default: with c = Qmax some rows exceed 1 LSB at any acc_bits (docs/softmax.md).
  SoftmaxOffset offset = SoftmaxOffset::kRowMax;
  SoftmaxMode mode = SoftmaxMode::kExact;
};

// Seed 000's arithmetic (mode kSeedCompat): truncated float32 tables, float32 division, offset
// Qmax. Sets mode, table_rounding (kTowardZero), div_rounding (kFloor) and offset (kQmax), and
// drops narrow from an unsigned spec (seed 000's QuantConfig narrows signed ranges only, so the
// codes are the same); other fields are kept.
SoftmaxParams WithSeedCompat(SoftmaxParams params);
// mode == kSeedCompat.
bool IsSeedCompat(const SoftmaxParams& params);

// Throws std::invalid_argument naming the field and its allowed range ("n: 0 is out of range,
// allowed 1..65536", "in.bits: ...", "acc_bits: ..."). Compat mode also requires the seed's
// rounding, division and offset, out.zero_point 0, an unsigned output of at most 8 bits (seed
// 000's QuantConfig asserts a signed spec above 8 bits) and scales s_x, s_y and s_y / M that are
// > 0 and finite in float32; it accepts narrow on an unsigned spec (no effect).
void ValidateSoftmaxParams(const SoftmaxParams& params);

// ---- Arithmetic primitives (one per RTL stage) --------------------------------------------------

// Qacc_max = 2^(acc_bits - 1) - 1: the signed accumulator's largest value, as in the seed.
int64_t SoftmaxAccMax(int acc_bits);

// M = floor(Qacc_max / n): the largest T, so that n entries sum to at most Qacc_max.
int64_t SoftmaxTableScale(int n, int acc_bits);

// Largest entry of a `bits`-wide table: 2^(bits - 1) - 1 (a signed word, as the seed's tables).
int64_t SoftmaxEntryMax(int bits);

// Table entry: round(value) under `mode`, clamped to [0, entry_max]; sets *clamped when the rounded
// value was above entry_max (value >= 0; +inf clamps).
int64_t SoftmaxTableEntry(double value, RoundingMode mode, int64_t entry_max, bool* clamped);

// Denominator accumulator: min(acc + t, Qacc_max). Saturates rather than wraps, so an overflow can
// only make outputs smaller, never turn a large sum into a small one. Unreachable with tables from
// BuildSoftmaxTables (T <= M, n * M <= Qacc_max); kept so the RTL has a defined behaviour.
int64_t SaturatingAccumulate(int64_t acc, int64_t t, int acc_bits);

// P / S rounded under `rounding`. P >= 0, S > 0.
int64_t DivideRounded(int64_t p, int64_t s, DivRounding rounding);

// Row-max offset: table code X' = X - r + Qmax of X when the row maximum is r; in [qmin, qmax].
int64_t RowMaxTableCode(int64_t x, int64_t row_max, int64_t in_qmax);

// ---- Seed 000's float32 arithmetic (SoftmaxMode::kSeedCompat) ----------------------------------

// One entry of a seed 000 table: QuantConfig(bit = bits, signed, not narrow).quantize of a float32
// quotient v = e / float32(scale):
//   clamp(v, float32(-2^(bits-1)), float32(2^(bits-1) - 1)), truncated toward zero, then cast to
//   the table's dtype: int8, int16, int32 or int64 for bits <= 8, 16, 32, 64.
// float32 has a 24-bit significand, so for bits >= 26 the upper bound 2^(bits-1) - 1 rounds up to
// 2^(bits-1): a clamped entry holds 2^(bits-1), one above the bits-wide signed word (over_width).
// With bits = 32 the int32 cast of 2^31 wraps to -2^31 (x86's cvttss2si, PyTorch's CPU result).
// NaN gives 0 (compat validation keeps the scales > 0 in float32, so a table never meets it).
struct SeedCompatEntry {
  int64_t value = 0;        // what the original's table holds
  bool clamped = false;     // v was above the float32 upper bound and was clamped to it
  bool over_width = false;  // value = 2^(bits-1), above the word, held by a wider dtype
  bool wrapped = false;     // 2^31 wrapped to -2^31 by the int32 cast (bits = 32)
};
SeedCompatEntry SeedCompatTableEntry(float v, int bits);

// Seed 000's division of one element: y = float32(P) / float32(S) (a float32 true division of the
// int tables' values), clamp(y, float32(qmin), float32(qmax)), truncation toward zero. S = 0 gives
// +inf (clamped to qmax) for P > 0 and NaN for P = 0; NaN has no defined conversion in PyTorch and
// maps to 0 here (x86's result through int32). A negative S (a wrapped T) gives a negative y.
int32_t SeedCompatDivide(int64_t p, int64_t s, int64_t qmin, int64_t qmax);

// ---- Tables -------------------------------------------------------------------------------------

struct SoftmaxTableStats {
  int64_t m = 0;                  // floor(Qacc_max / n)
  int64_t max_t = 0;              // largest T entry
  int64_t max_p = 0;              // largest P entry
  int64_t t_entry_max = 0;        // 2^(acc_bits - 1) - 1
  int64_t p_entry_max = 0;        // 2^(acc_bits + out_bits - 1) - 1
  int64_t t_clamped = 0;          // entries whose rounded value exceeded t_entry_max
  int64_t p_clamped = 0;          // entries whose rounded value exceeded p_entry_max
  int64_t zero_t_entries = 0;     // codes with T = 0
  bool sum_can_overflow = false;  // n * max_t > Qacc_max
  bool sum_can_be_zero = false;   // offset qmax and T(qmin) = 0: a row of qmin gives S = 0
  // Compat mode only (0 in exact mode), see SeedCompatTableEntry: entries holding 2^(w-1), one
  // above the w-bit word (float32 rounds the clamp bound up for w >= 26), and entries the int32
  // cast wrapped from 2^31 to -2^31 (w = 32; T with acc_bits 32 and n = 1). A row containing a
  // wrapped T has a negative S.
  int64_t t_over_width = 0;
  int64_t p_over_width = 0;
  int64_t t_wrapped = 0;
  int64_t p_wrapped = 0;
  bool any_clamped() const { return t_clamped + p_clamped > 0; }
  bool any_wrapped() const { return t_wrapped + p_wrapped > 0; }
};

struct SoftmaxTables {
  SoftmaxParams params;
  // Entries in ascending input code: index = code - in.qmin(), in.levels() entries.
  std::vector<int64_t> exp_table;        // T(X) = clamp(round(exp(s_x (X - Qmax)) * M))
  std::vector<int64_t> numerator_table;  // P(X) = clamp(round(exp(s_x (X - Qmax)) * M / s_y))
  // Output when S = 0 (offset qmax only): the uniform distribution, clamped
  // round_half_away(1 / (n s_y)) + zp_y. Costs one constant register and a zero detector on S, and
  // is the exact answer for a row of equal codes (the row that reaches S = 0 first). Not used in
  // compat mode, which divides by S = 0 as the seed does (SeedCompatDivide).
  int64_t zero_sum_output = 0;
  SoftmaxTableStats stats;

  int64_t T(int64_t code) const { return exp_table[static_cast<size_t>(code - params.in.qmin())]; }
  int64_t P(int64_t code) const {
    return numerator_table[static_cast<size_t>(code - params.in.qmin())];
  }
};

// Exact mode builds both tables in double, one exp per code:
//   t = std::exp(s_x * double(X - Qmax)),  T = SoftmaxTableEntry(t * M, ...),
//   P = SoftmaxTableEntry(t * M / s_y, ...)   (products left to right in double).
// P entries clamped to the table width still divide to Y >= 2^out_bits > qmax_y (S <= Qacc_max), so
// clamping P never changes an output.
// Compat mode follows seed 000's Softmax.__init__ in float32 (docs/softmax.md, section 7):
//   e = expf(float32(X - Qmax) * float32(s_x))
//   T = SeedCompatTableEntry(e / float32(1.0 / M), acc_bits)            1 / M in double
//   P = SeedCompatTableEntry(e / float32(s_y / M), acc_bits + out_bits)  (1 / M) * s_y in double
// Validates params; the stored params have narrow dropped from unsigned specs in compat mode.
SoftmaxTables BuildSoftmaxTables(const SoftmaxParams& params);

// Bytes of both tables as seed 000 counts them: 2^in_bits entries of acc_bits (T) and of
// acc_bits + out_bits (P), whatever the entries' actual magnitude.
SoftmaxTableBytes SoftmaxMemory(const SoftmaxParams& params);

// Hardware view: 2^in.bits entries addressed by TableAddress(code); unused addresses (the
// narrow-range code -2^(bits-1)) hold 0.
std::vector<int64_t> TableByAddress(const std::vector<int64_t>& by_code, const QuantSpec& in);

// ---- Row evaluation (integer only) --------------------------------------------------------------

// Table codes of the row: X itself (offset qmax) or RowMaxTableCode (offset rowmax, one max pass).
// Throws std::invalid_argument when the row length is not n or a code is out of the input range.
std::vector<int64_t> SoftmaxTableCodes(const SoftmaxTables& tables,
                                       const std::vector<int32_t>& row);

// S = sum of T over the table codes, through SaturatingAccumulate. Compat mode: the exact sum (the
// seed's torch.sum of the int table values is int64), which may exceed Qacc_max or be negative.
int64_t SoftmaxRowSum(const SoftmaxTables& tables, const std::vector<int64_t>& table_codes);

// Exact mode: Y_i = clamp(DivideRounded(P(X'_i), S) + zp_y, qmin_y, qmax_y), or zero_sum_output
// when S = 0. Compat mode: Y_i = SeedCompatDivide(P(X_i), S, qmin_y, qmax_y), the original's
// float32 division, S = 0 included.
std::vector<int32_t> SoftmaxRow(const SoftmaxTables& tables, const std::vector<int32_t>& row);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_SOFTMAX_H_
