// Quantization specs, rounding modes, quantize and dequantize.
//
// The integer formulas here are the spec; floats appear only to derive scales and tables. Every rounding
// rule is a named RoundingMode argument, never a build flag.
#ifndef QACC_GOLDEN_QUANT_H_
#define QACC_GOLDEN_QUANT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qacc::golden {

// How a real value (or an integer divided by a power of two) becomes an integer.
enum class RoundingMode {
  kHalfAwayFromZero,  // round(), TFLite and TPU-MLIR: 2.5 -> 3, -2.5 -> -3
  kHalfToEven,        // banker's rounding, PyTorch: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2
  kHalfUp,            // floor(x + 0.5), the cheapest hardware rounding: 2.5 -> 3, -2.5 -> -2
  kTowardZero,        // truncation, C integer division: 2.7 -> 2, -2.7 -> -2
  kFloor,             // toward -infinity, arithmetic right shift: 2.7 -> 2, -2.7 -> -3
};

inline constexpr RoundingMode kAllRoundingModes[] = {
    RoundingMode::kHalfAwayFromZero, RoundingMode::kHalfToEven, RoundingMode::kHalfUp,
    RoundingMode::kTowardZero, RoundingMode::kFloor};

// Names used on the command line and in JSON: "half_away", "half_even", "half_up", "toward_zero", "floor".
std::string_view RoundingModeName(RoundingMode mode);
std::optional<RoundingMode> ParseRoundingMode(std::string_view name);
// "half_away|half_even|half_up|toward_zero|floor", for error messages and --help.
std::string RoundingModeChoices();

// Rounds x to an integral double under `mode`. Exact for every finite double (no x + 0.5 double rounding).
double RoundReal(double x, RoundingMode mode);

// Range of a `bits`-wide integer. Signed: [-2^(b-1), 2^(b-1) - 1], narrow: [-2^(b-1) + 1, 2^(b-1) - 1].
// Unsigned: [0, 2^b - 1]; narrow range is defined for signed types only. bits in 1..62.
int64_t QMin(int bits, bool is_signed, bool narrow = false);
int64_t QMax(int bits, bool is_signed);

inline constexpr int kMinQuantBits = 2;
inline constexpr int kMaxQuantBits = 16;

// One quantized tensor format: real = scale * (q - zero_point), q in [qmin(), qmax()].
struct QuantSpec {
  int bits = 8;             // 2..16
  bool is_signed = true;
  bool narrow = false;      // signed only: qmin = -2^(bits-1) + 1, keeping the range symmetric
  double scale = 1.0;       // > 0 and finite
  int32_t zero_point = 0;   // within [qmin(), qmax()]

  int64_t qmin() const { return QMin(bits, is_signed, narrow); }
  int64_t qmax() const { return QMax(bits, is_signed); }
  // Number of representable codes: qmax - qmin + 1.
  int64_t levels() const { return qmax() - qmin() + 1; }
};

// Throws std::invalid_argument naming the offending field and its allowed range, e.g.
// "bits: 17 is out of range, allowed 2..16". `what` prefixes the field name ("in.bits").
void ValidateQuantSpec(const QuantSpec& spec, std::string_view what = "");

// clamp(round(x / scale) + zero_point, qmin, qmax), rounding under `mode`; the zero point is added after
// rounding. NaN maps to the zero point; +-infinity saturates. Works for any range that fits int64, which the
// softmax tables (up to 40 bits) need.
int64_t QuantizeToRange(double x, double scale, int64_t zero_point, int64_t qmin, int64_t qmax,
                        RoundingMode mode);

// QuantizeToRange with the spec's scale, zero point and range.
int32_t Quantize(double x, const QuantSpec& spec, RoundingMode mode);

// scale * (q - zero_point), in double.
double Dequantize(int64_t q, const QuantSpec& spec);

// Symmetric spec from the largest magnitude: scale = amax / qmax, zero point 0. Signed or unsigned.
// Throws std::invalid_argument when amax is not positive and finite or bits is out of range.
QuantSpec SymmetricFromAmax(double amax, int bits, bool is_signed, bool narrow = false);

// Asymmetric spec covering [min, max] widened to include 0 (so 0.0 is exactly representable):
// scale = (max' - min') / (qmax - qmin), zero_point = clamp(round(qmin - min' / scale), qmin, qmax) with
// `zp_rounding` (half away from zero by default, as TFLite and TPU-MLIR). A degenerate range (min' = max' = 0)
// gets scale 1. Throws std::invalid_argument when min > max or either is not finite.
QuantSpec AsymmetricFromMinMax(double min, double max, int bits, bool is_signed, bool narrow = false,
                               RoundingMode zp_rounding = RoundingMode::kHalfAwayFromZero);

// Every code of the spec in ascending value: qmin, qmin + 1, ..., qmax.
std::vector<int64_t> AllCodes(const QuantSpec& spec);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_QUANT_H_
