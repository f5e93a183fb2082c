#include "golden/add.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "golden/requant.h"

namespace qacc::golden {

namespace {

constexpr int64_t kInt16Min = std::numeric_limits<int16_t>::min();
constexpr int64_t kInt16Max = std::numeric_limits<int16_t>::max();

void CheckAddSpec(const QuantSpec& spec, std::string_view what) {
  ValidateQuantSpec(spec, what);
  if (spec.bits > kMaxAddBits) {
    throw std::invalid_argument(
        fmt::format("{}.bits: {} is out of range for an Add, allowed {}..{}", what, spec.bits,
                    kMinQuantBits, kMaxAddBits));
  }
}

void CheckCode(int32_t q, const QuantSpec& spec, std::string_view what) {
  if (q < spec.qmin() || q > spec.qmax()) {
    throw std::invalid_argument(
        fmt::format("{}: {} is out of range, allowed {}..{}", what, q, spec.qmin(), spec.qmax()));
  }
}

// The value of the low 16 bits of x read as two's complement.
int64_t WrapToInt16(int64_t x) {
  const int64_t low = x & 0xFFFF;
  return low > kInt16Max ? low - (int64_t{1} << kSeedAddIntermediateBits) : low;
}

SeedSymmetricAddParams MakeSeedParams(const QuantSpec& a, const QuantSpec& b, const QuantSpec& y) {
  for (const auto& [spec, what] : {std::pair{&a, "a"}, std::pair{&b, "b"}, std::pair{&y, "y"}}) {
    if (spec->zero_point != 0) {
      throw std::invalid_argument(
          fmt::format("{}.zero_point: {} must be 0 for the {} form (use {} for asymmetric specs)",
                      what, spec->zero_point, AddFormName(AddForm::kSeedSymmetric),
                      AddFormName(AddForm::kTfliteAsymmetric)));
    }
  }
  const double ratio_a = a.scale / y.scale;
  const double ratio_b = b.scale / y.scale;
  const bool a_is_max = ratio_a >= ratio_b;
  // The larger ratio fixes the shared rshift: the largest whose 8-bit multiplier still fits.
  MultiplierRshift largest;
  try {
    largest = QuantizeMultiplierRshift(std::max(ratio_a, ratio_b), kSeedAddMultiplierBits);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(
        fmt::format("{}.scale / y.scale: {}", a_is_max ? "a" : "b", e.what()));
  }
  SeedSymmetricAddParams seed;
  seed.rshift = largest.rshift;
  // ldexp is exact and the ratios are at most the largest, so both round into 0..127.
  seed.multiplier_a = static_cast<int32_t>(
      RoundReal(std::ldexp(ratio_a, seed.rshift), RoundingMode::kHalfAwayFromZero));
  seed.multiplier_b = static_cast<int32_t>(
      RoundReal(std::ldexp(ratio_b, seed.rshift), RoundingMode::kHalfAwayFromZero));
  return seed;
}

// TFLite's QuantizeMultiplierSmallerThanOneExp: QuantizeMultiplier, then CHECK 0 < real < 1 and
// shift <= 0 (a real just below 1 can carry into shift 1).
QuantizedMultiplier SmallerThanOne(double real, std::string_view what, std::string_view why) {
  const QuantizedMultiplier qm = QuantizeMultiplier(real);
  if (!(real > 0.0) || !(real < 1.0) || qm.shift > 0) {
    throw std::invalid_argument(
        fmt::format("{}: {} (the multiplier is {}, TFLite needs it in (0, 1))", what, why, real));
  }
  return qm;
}

float TfliteScale(const QuantSpec& spec, std::string_view what) {
  const auto scale = static_cast<float>(spec.scale);
  if (!std::isfinite(scale) || !(scale > 0.0f)) {
    throw std::invalid_argument(
        fmt::format("{}.scale: {} is not a positive finite float32, as TFLite stores scales", what,
                    spec.scale));
  }
  return scale;
}

TfliteAddParams MakeTfliteParams(const QuantSpec& a, const QuantSpec& b, const QuantSpec& y) {
  const double scale_a = TfliteScale(a, "a");
  const double scale_b = TfliteScale(b, "b");
  const double scale_y = TfliteScale(y, "y");
  TfliteAddParams tflite;
  // kernels/add.cc Prepare. 2 * max and 2^20 * S_y are exact in float, hence in double.
  const double twice_max_input_scale = 2 * std::max(scale_a, scale_b);
  const double real_a = scale_a / twice_max_input_scale;  // <= 1/2
  const double real_b = scale_b / twice_max_input_scale;
  const double real_output = twice_max_input_scale / (std::ldexp(1.0, tflite.left_shift) * scale_y);
  const QuantizedMultiplier qa =
      SmallerThanOne(real_a, "a.scale", "S_a / (2 max(S_a, S_b)) is out of range");
  const QuantizedMultiplier qb =
      SmallerThanOne(real_b, "b.scale", "S_b / (2 max(S_a, S_b)) is out of range");
  const QuantizedMultiplier qy = SmallerThanOne(
      real_output, "y.scale",
      fmt::format("{} is too small, TFLite's Add needs y.scale > 2 max(a.scale, b.scale) / 2^{}",
                  y.scale, tflite.left_shift));
  tflite.multiplier_a = qa.multiplier;
  tflite.shift_a = qa.shift;
  tflite.multiplier_b = qb.multiplier;
  tflite.shift_b = qb.shift;
  tflite.output_multiplier = qy.multiplier;
  tflite.output_shift = qy.shift;
  return tflite;
}

// TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0).
int32_t MultiplySmallerThanOne(int32_t x, int32_t multiplier, int shift) {
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x, multiplier), -shift);
}

}  // namespace

std::string_view AddFormName(AddForm form) {
  switch (form) {
    case AddForm::kSeedSymmetric:
      return "seed-symmetric";
    case AddForm::kTfliteAsymmetric:
      return "tflite";
  }
  return "?";
}

std::optional<AddForm> ParseAddForm(std::string_view name) {
  for (AddForm form : kAllAddForms) {
    if (AddFormName(form) == name) return form;
  }
  return std::nullopt;
}

std::string AddFormChoices() {
  std::string out;
  for (AddForm form : kAllAddForms) {
    if (!out.empty()) out += '|';
    out += AddFormName(form);
  }
  return out;
}

std::string_view IntermediateOverflowName(IntermediateOverflow overflow) {
  switch (overflow) {
    case IntermediateOverflow::kSaturate:
      return "saturate";
    case IntermediateOverflow::kWrap:
      return "wrap";
  }
  return "?";
}

AddParams MakeAddParams(const QuantSpec& a, const QuantSpec& b, const QuantSpec& y, AddForm form) {
  CheckAddSpec(a, "a");
  CheckAddSpec(b, "b");
  CheckAddSpec(y, "y");
  AddParams params;
  params.form = form;
  params.a = a;
  params.b = b;
  params.y = y;
  if (form == AddForm::kSeedSymmetric) {
    params.seed = MakeSeedParams(a, b, y);
  } else {
    params.tflite = MakeTfliteParams(a, b, y);
  }
  return params;
}

// Seed-symmetric: the RTL would be two int8 x int8 multipliers, a 17-bit adder narrowed to the
// int16 register, the rounding shifter and the output clamp. TFLite: three requant-style
// multiplies (SRDHM + RoundingDivideByPOT), as the requant lane's double rounding.
int32_t Add(int32_t qa, int32_t qb, const AddParams& params) {
  CheckCode(qa, params.a, "qa");
  CheckCode(qb, params.b, "qb");
  int64_t result = 0;
  if (params.form == AddForm::kSeedSymmetric) {
    const SeedSymmetricAddParams& seed = params.seed;
    const int64_t sum = int64_t{qa} * seed.multiplier_a + int64_t{qb} * seed.multiplier_b;
    const int64_t held = seed.overflow == IntermediateOverflow::kSaturate
                             ? std::clamp(sum, kInt16Min, kInt16Max)
                             : WrapToInt16(sum);
    result = RoundingRightShift(held, seed.rshift, seed.rounding);
  } else {
    const TfliteAddParams& tf = params.tflite;
    if (tf.left_shift < 0 || tf.left_shift > kTfliteAddLeftShift) {
      throw std::invalid_argument(
          fmt::format("tflite.left_shift: {} is out of range, allowed 0..{}", tf.left_shift,
                      kTfliteAddLeftShift));
    }
    // |q - Z| <= 255, so the shifted inputs stay below 2^28 and their sum below 2^29.
    const int32_t shifted_a = (qa - params.a.zero_point) * (int32_t{1} << tf.left_shift);
    const int32_t shifted_b = (qb - params.b.zero_point) * (int32_t{1} << tf.left_shift);
    const int32_t raw_sum = MultiplySmallerThanOne(shifted_a, tf.multiplier_a, tf.shift_a) +
                            MultiplySmallerThanOne(shifted_b, tf.multiplier_b, tf.shift_b);
    result = int64_t{MultiplySmallerThanOne(raw_sum, tf.output_multiplier, tf.output_shift)} +
             params.y.zero_point;
  }
  return static_cast<int32_t>(std::clamp<int64_t>(result, params.y.qmin(), params.y.qmax()));
}

int32_t AddFloatReference(int32_t qa, int32_t qb, const QuantSpec& a, const QuantSpec& b,
                          const QuantSpec& y, RoundingMode mode) {
  return Quantize(Dequantize(qa, a) + Dequantize(qb, b), y, mode);
}

}  // namespace qacc::golden
