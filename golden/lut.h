// Lookup-table activations (seed 000): y_q = T[addr(x_q)] replaces DQ -> f -> Q exactly.
//
// Every input code q of a b-bit input (b <= 8, so at most 256 entries) has one entry
//   T(q) = Quantize(f(Dequantize(q, in)), out, rounding)
// built with quant.h's Quantize/Dequantize, so the table equals the scalar float path by
// construction. The SRAM is addressed by the raw bits of the code: addr(q) = q & (2^b - 1) (two's
// complement reinterpreted as unsigned), which is seed 000's "adjust the sequence for easier
// retrieval" rotation. docs/lut.md has the full contract: addressing, the unused narrow-range
// address, output range derivation, sharing, memory, and the float32 compatibility mode that
// reproduces seed 000's PyTorch code bit for bit.
#ifndef QACC_GOLDEN_LUT_H_
#define QACC_GOLDEN_LUT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "golden/elementwise.h"
#include "golden/quant.h"
#include "golden/table_memory.h"

namespace qacc::golden {

// Input widths a table can be addressed by (256 entries at most); output widths are
// quant.h's 2..16.
inline constexpr int kMinLutInBits = 2;
inline constexpr int kMaxLutInBits = 8;

enum class LutMode {
  // Double arithmetic through quant.h: T(q) = Quantize(f(scale_in * (q - zp_in)), out, rounding).
  kExact,
  // Seed 000's Python (PyTorch float32) arithmetic, bit for bit: float32 dequantize, f in float32
  // (Elementwise::EvalFloat32), float32 division by the output scale, clamp, truncation toward
  // zero. Accepts what the original accepts: zero points 0, an unsigned output of at most 8 bits,
  // and narrow on an unsigned spec, where it has no effect (the built Lut's spec has narrow false).
  kSeedCompat,
};

// "exact", "seed" (the --compat value).
std::string_view LutModeName(LutMode mode);

// What a table is built from.
struct LutSpec {
  LutMode mode = LutMode::kExact;
  QuantSpec in;   // bits 2..8; any signedness, narrow, scale and zero point (exact mode)
  QuantSpec out;  // bits 2..16; with derive_out only bits, is_signed and narrow are read
  bool derive_out =
      false;  // seed 000's default: amax = max |f(x)| over the input grid, scale = amax / qmax
  RoundingMode rounding =
      RoundingMode::kHalfToEven;  // kSeedCompat requires kTowardZero (it truncates)
};

// float32(amax / qmax), the division in double: how seed 000 turns a given amax into a scale (a
// Python float division; PyTorch then casts the scalar to the float32 of the tensor it multiplies
// or divides).
double SeedCompatScaleFromAmax(double amax, int64_t qmax);

// Largest unsigned width seed 000's QuantConfig accepts: it asserts `unsign is False` for bit > 8
// (its unsigned tensors are uint8).
inline constexpr int kSeedMaxUnsignedBits = 8;

// The arguments of seed 000's table class, named as qacc names them. The article prints
// _SymmetryQuant(func, input_amax, bit, narrow, output_amax) (one width, signed); its project's
// _SymmetryQuantTable(func, input_bit, input_amax, input_unsign, output_bit, output_amax,
// output_unsign, narrow), built on the same QuantConfig as the article's Softmax, adds the rest.
struct SeedLutParams {
  int in_bits = 8;           // input_bit, 2..8
  double in_amax = 1.0;      // input_amax, finite and > 0
  bool in_unsigned = false;  // input_unsign: codes 0..2^in_bits - 1
  int out_bits = 8;          // output_bit, 2..16 (2..8 when unsigned)
  // output_amax; nullopt: derived, the float32 max |f| over the input codes.
  std::optional<double> out_amax;
  bool out_unsigned = false;  // output_unsign: codes 0..2^out_bits - 1
  // narrow: qmin = -2^(bits-1) + 1 for the signed specs. QuantConfig ignores it for an unsigned
  // spec (qmin = 0 whatever narrow says), so it is dropped there: the LutSpec of an unsigned spec
  // never has narrow set.
  bool narrow = false;
};

// The LutSpec of seed 000's table in compat mode: zero points 0, rounding kTowardZero, scales
// SeedCompatScaleFromAmax (the output scale is derived in float32 by BuildLut when out_amax is not
// given). Throws std::invalid_argument naming the field ("in.bits", "out.bits", "in.amax",
// "out.amax") for what the original rejects (an unsigned output above 8 bits, an amax that is not
// finite and > 0) or qacc cannot build (bits outside 2..8 / 2..16, a scale that is 0 or infinite in
// float32).
LutSpec SeedCompatSpec(const SeedLutParams& params);

// The article's _SymmetryQuant(func, input_amax, bit, narrow, output_amax): signed input and
// output, both `bits` wide. Same as SeedCompatSpec({bits, in_amax, false, bits, out_amax, false,
// narrow}); its errors name "bits" for the width.
LutSpec SeedCompatSpec(double in_amax, int bits, bool narrow,
                       std::optional<double> out_amax = std::nullopt);

// SRAM address of input code q: TableAddress in golden/table_memory.h, shared with the softmax
// tables.
inline uint32_t LutAddress(int64_t q, int in_bits) { return TableAddress(q, in_bits); }

class Lut {
 public:
  const std::string& function_name() const { return function_name_; }
  double alpha() const { return alpha_; }  // leaky_relu's slope, 0 for the others
  LutMode mode() const { return mode_; }
  RoundingMode rounding() const { return rounding_; }  // kTowardZero in compat mode
  // The specs actually used: in compat mode the scales are the float32 values; a derived output
  // spec has scale = amax / qmax and zero point 0.
  const QuantSpec& in() const { return in_; }
  const QuantSpec& out() const { return out_; }
  bool out_derived() const { return out_amax_.has_value(); }
  // The derived output amax (max |f| over the input grid), when derived.
  std::optional<double> derived_out_amax() const { return out_amax_; }

  int address_bits() const { return in_.bits; }
  int entry_bits() const { return out_.bits; }
  int64_t num_addresses() const { return int64_t{1} << in_.bits; }
  // SRAM size, every address counted (golden/table_memory.h): 2^address_bits * entry_bits.
  int64_t size_bits() const;
  int64_t size_bytes() const;

  // T(q) for q = in().qmin(), ..., in().qmax(): ascending input value.
  const std::vector<int32_t>& entries_by_value() const { return by_value_; }
  // The SRAM image as output codes: entries_by_address()[LutAddress(q)] = T(q); 2^address_bits
  // entries.
  const std::vector<int32_t>& entries_by_address() const { return by_address_; }
  // The SRAM image as raw words: each code's low entry_bits bits (two's complement for signed
  // outputs).
  std::vector<uint32_t> SramWords() const;
  // The address no input code maps to: 2^(b-1), the pattern of -2^(b-1), when the input is signed
  // and narrow. It holds T(qmin) (the entry of -2^(b-1) + 1), so a stray -2^(b-1) reads as if
  // saturated to qmin.
  std::optional<uint32_t> unused_address() const;

  // The hardware read: entries_by_address()[LutAddress(q, address_bits())]. q may be any pattern of
  // the input width ([-2^(b-1), 2^(b-1) - 1] signed, [0, 2^b - 1] unsigned), the narrow-excluded
  // -2^(b-1) included; throws std::out_of_range otherwise.
  int32_t Lookup(int64_t q) const;

 private:
  friend Lut BuildLut(const Elementwise& f, const LutSpec& spec);
  Lut() = default;

  std::string function_name_;
  double alpha_ = 0.0;
  LutMode mode_ = LutMode::kExact;
  RoundingMode rounding_ = RoundingMode::kHalfToEven;
  QuantSpec in_;
  QuantSpec out_;
  std::optional<double> out_amax_;
  std::vector<int32_t> by_value_;
  std::vector<int32_t> by_address_;
};

// Builds the table of f under `spec`. Throws std::invalid_argument naming the field ("in.bits",
// "out.zero_point", ...) for an invalid spec, and "out.amax" when a derived amax is 0 or not finite
// (f is 0 everywhere on the grid, or overflows): there is no scale to derive, give the output range
// explicitly. Compat mode also requires zero points 0, rounding kTowardZero and an unsigned output
// of at most kSeedMaxUnsignedBits ("out.bits").
Lut BuildLut(const Elementwise& f, const LutSpec& spec);

// Many requested tables, each distinct SRAM image stored once (seed 000: 30 sigmoids whose input
// and output scales agree share one 256-byte table). Two tables are the same when their address
// bits, entry bits and SRAM words at every address (the unused narrow address included) are equal:
// what produced them (function, scales, rounding, signedness) does not matter, since the SRAM holds
// only the words.
class LutBank {
 public:
  // Adds `lut` requested as `name` (unique in the bank, else std::invalid_argument); returns the
  // index of the unique table that serves it.
  size_t Add(std::string name, Lut lut);
  size_t Add(std::string name, const Elementwise& f, const LutSpec& spec) {
    return Add(std::move(name), BuildLut(f, spec));
  }

  size_t request_count() const { return requests_.size(); }
  const std::vector<Lut>& unique_tables() const { return tables_; }
  // (name, unique table index) in the order added.
  const std::vector<std::pair<std::string, size_t>>& requests() const { return requests_; }
  // Index of the table serving `name`; throws std::out_of_range for an unknown name.
  size_t TableIndex(std::string_view name) const;
  const Lut& TableFor(std::string_view name) const { return tables_[TableIndex(name)]; }

  int64_t shared_bytes() const;    // every unique table counted once
  int64_t unshared_bytes() const;  // every request with its own table

 private:
  using Key = std::tuple<int, int, std::vector<uint32_t>>;  // address bits, entry bits, SRAM words
  std::vector<Lut> tables_;
  std::map<Key, size_t> index_of_;
  std::vector<std::pair<std::string, size_t>> requests_;
};

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_LUT_H_
