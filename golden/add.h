// Elementwise Add of two quantized tensors (seed 002, TPU-MLIR's quantization chapter, "Add").
//
// Real domain: S_y (q_y - Z_y) = S_a (q_a - Z_a) + S_b (q_b - Z_b). Two integer forms (AddForm):
//
//  * kSeedSymmetric, "seed-symmetric": the seed's symmetric step 1, every zero point 0,
//        t   = sat16(q_a * M_a + q_b * M_b)                       the int16 intermediate
//        q_y = clamp(RoundingRightShift(t, rshift, rounding), qmin_y, qmax_y)
//    M_a, M_b are 8-bit multipliers sharing one rshift: M_a / 2^rshift ~= S_a / S_y, likewise b.
//    sat16 saturates to [-2^15, 2^15 - 1] (IntermediateOverflow::kSaturate, the default): the seed
//    writes the intermediate as (.)_i16 like its saturating (.)_i8 outputs, and the CV18xx TIU that
//    runs this form (cvikernel tiu_mul / tiu_mac with a 16-bit result) saturates 16-bit results.
//    Int8 inputs never reach the limit (|q M| <= 128 * 127, so |t| <= 32512); uint8 inputs can
//    (255 * (M_a + M_b) > 32767 once M_a + M_b >= 129). kWrap keeps the low 16 bits instead.
//    The rounding defaults to half up, floor(t / 2^rshift + 1/2): the TIU adds 2^(rshift-1) and
//    shifts, and TPU-MLIR's applyMultiplierAndRShift defaults to ROUNDING_HALF_UP.
//
//  * kTfliteAsymmetric, "tflite": TFLite's int8/uint8 Add kernel (kernels/add.cc Prepare with
//    left_shift = 20, reference_ops AddElementwise), any zero points:
//        x_a = (q_a - Z_a) * 2^20,   s_a = RDivPOT(SRDHM(x_a, M_a), -shift_a)      likewise b
//        q_y = clamp(RDivPOT(SRDHM(s_a + s_b, M_y), -shift_y) + Z_y, qmin_y, qmax_y)
//    with M_a * 2^(shift_a - 31) ~= S_a / (2 max(S_a, S_b)) (<= 1/2), likewise b, and
//    M_y * 2^(shift_y - 31) ~= 2 max(S_a, S_b) / (2^20 S_y) (< 1 required). SRDHM is gemmlowp's
//    SaturatingRoundingDoublingHighMul and RDivPOT its RoundingDivideByPOT (golden/requant.h),
//    i.e. TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp. As TFLite stores scales in
//    float32, the scales are rounded to float32 before the multipliers are derived.
//
// AddFloatReference is the seed's asymmetric step 1, requant(dequant(q_a) + dequant(q_b)), in
// double: the float path and the reference both integer forms are measured against.
#ifndef QACC_GOLDEN_ADD_H_
#define QACC_GOLDEN_ADD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "golden/quant.h"

namespace qacc::golden {

enum class AddForm { kSeedSymmetric, kTfliteAsymmetric };
inline constexpr AddForm kAllAddForms[] = {AddForm::kSeedSymmetric, AddForm::kTfliteAsymmetric};
std::string_view AddFormName(AddForm form);  // "seed-symmetric", "tflite"
std::optional<AddForm> ParseAddForm(std::string_view name);
std::string AddFormChoices();  // "seed-symmetric|tflite", for error messages and --help

// What an intermediate register does with a value outside its range.
enum class IntermediateOverflow {
  kSaturate,  // clamp to the register's range
  kWrap,      // keep the low bits, two's complement
};
std::string_view IntermediateOverflowName(IntermediateOverflow overflow);  // "saturate", "wrap"

// Width of the seed-symmetric form's multipliers and intermediate.
inline constexpr int kSeedAddMultiplierBits = 8;
inline constexpr int kSeedAddIntermediateBits = 16;
// TFLite's headroom shift for 8-bit Add (kernels/add.cc: data->left_shift = 20).
inline constexpr int kTfliteAddLeftShift = 20;
// Both forms take codes of at most 8 bits (the int8 x int8 multiply and TFLite's 20-bit headroom).
inline constexpr int kMaxAddBits = 8;

struct SeedSymmetricAddParams {
  int32_t multiplier_a = 0;  // M_a in 0..127: round_half_away(S_a / S_y * 2^rshift)
  int32_t multiplier_b = 0;  // M_b in 0..127, same rshift
  int rshift = 0;            // 0..kMaxRshift, shared: the largest that keeps max(M_a, M_b) <= 127
  RoundingMode rounding = RoundingMode::kHalfUp;                    // of the final right shift
  IntermediateOverflow overflow = IntermediateOverflow::kSaturate;  // of the int16 sum
};

struct TfliteAddParams {
  int left_shift = kTfliteAddLeftShift;  // inputs are scaled by 2^left_shift first, 0..20
  int32_t multiplier_a = 0;              // Q31, with shift_a: S_a / (2 max(S_a, S_b)), shift_a <= 0
  int shift_a = 0;
  int32_t multiplier_b = 0;  // Q31, with shift_b: S_b / (2 max(S_a, S_b)), shift_b <= 0
  int shift_b = 0;
  int32_t output_multiplier = 0;  // Q31, with output_shift: 2 max(S_a, S_b) / (2^20 S_y), <= 0
  int output_shift = 0;
};

struct AddParams {
  AddForm form = AddForm::kTfliteAsymmetric;
  QuantSpec a;  // input a: its range is checked, its zero point subtracted (tflite)
  QuantSpec b;  // input b
  QuantSpec y;  // output: zero point added (tflite), result clamped to [y.qmin(), y.qmax()]
  SeedSymmetricAddParams seed;  // used when form == kSeedSymmetric
  TfliteAddParams tflite;       // used when form == kTfliteAsymmetric
};

// Derives the multipliers of `form`. Throws std::invalid_argument naming the field when a spec is
// invalid ("a.scale"), wider than kMaxAddBits ("b.bits"), or the form cannot represent the specs:
// kSeedSymmetric with a non-zero zero point ("y.zero_point") or a scale ratio >= 127.5 that no
// 8-bit multiplier holds ("a.scale / y.scale"); kTfliteAsymmetric with a scale that is not a
// positive float32 ("a.scale") or 2 max(S_a, S_b) / (2^20 S_y) >= 1, which TFLite's
// QuantizeMultiplierSmallerThanOneExp rejects ("y.scale").
AddParams MakeAddParams(const QuantSpec& a, const QuantSpec& b, const QuantSpec& y, AddForm form);

// One output code from one code of each input (see the formulas at the top). Throws
// std::invalid_argument ("qa", "qb") for a code outside its spec's range.
int32_t Add(int32_t qa, int32_t qb, const AddParams& params);

// Quantize(Dequantize(qa, a) + Dequantize(qb, b), y, mode) in double: the seed's asymmetric form.
int32_t AddFloatReference(int32_t qa, int32_t qb, const QuantSpec& a, const QuantSpec& b,
                          const QuantSpec& y, RoundingMode mode = RoundingMode::kHalfAwayFromZero);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_ADD_H_
