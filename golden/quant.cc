#include "golden/quant.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace qacc::golden {

namespace {

std::string FieldName(std::string_view what, std::string_view field) {
  return what.empty() ? std::string(field) : fmt::format("{}.{}", what, field);
}

void CheckBits(int bits, std::string_view field) {
  if (bits < kMinQuantBits || bits > kMaxQuantBits) {
    throw std::invalid_argument(fmt::format("{}: {} is out of range, allowed {}..{}", field, bits,
                                            kMinQuantBits, kMaxQuantBits));
  }
}

}  // namespace

std::string_view RoundingModeName(RoundingMode mode) {
  switch (mode) {
    case RoundingMode::kHalfAwayFromZero: return "half_away";
    case RoundingMode::kHalfToEven: return "half_even";
    case RoundingMode::kHalfUp: return "half_up";
    case RoundingMode::kTowardZero: return "toward_zero";
    case RoundingMode::kFloor: return "floor";
  }
  return "?";
}

std::optional<RoundingMode> ParseRoundingMode(std::string_view name) {
  for (RoundingMode mode : kAllRoundingModes) {
    if (RoundingModeName(mode) == name) return mode;
  }
  return std::nullopt;
}

std::string RoundingModeChoices() {
  std::string out;
  for (RoundingMode mode : kAllRoundingModes) {
    if (!out.empty()) out += '|';
    out += RoundingModeName(mode);
  }
  return out;
}

double RoundReal(double x, RoundingMode mode) {
  if (!std::isfinite(x)) return x;
  const double lower = std::floor(x);
  // x - floor(x) is exact for every finite double, so ties are detected exactly.
  const double frac = x - lower;
  switch (mode) {
    case RoundingMode::kHalfAwayFromZero: return std::round(x);
    case RoundingMode::kHalfToEven:
      if (frac > 0.5) return lower + 1;
      if (frac < 0.5) return lower;
      return std::fmod(lower, 2.0) == 0.0 ? lower : lower + 1;
    case RoundingMode::kHalfUp: return frac >= 0.5 ? lower + 1 : lower;
    case RoundingMode::kTowardZero: return std::trunc(x);
    case RoundingMode::kFloor: return lower;
  }
  return x;
}

int64_t QMin(int bits, bool is_signed, bool narrow) {
  if (!is_signed) return 0;
  const int64_t min = -(int64_t{1} << (bits - 1));
  return narrow ? min + 1 : min;
}

int64_t QMax(int bits, bool is_signed) {
  return is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
}

void ValidateQuantSpec(const QuantSpec& spec, std::string_view what) {
  CheckBits(spec.bits, FieldName(what, "bits"));
  if (spec.narrow && !spec.is_signed) {
    throw std::invalid_argument(fmt::format(
        "{}: narrow range applies to signed types only (qmin = -2^(bits-1) + 1)", FieldName(what, "narrow")));
  }
  if (!(spec.scale > 0.0) || !std::isfinite(spec.scale)) {
    throw std::invalid_argument(fmt::format("{}: {} is not allowed, must be finite and > 0",
                                            FieldName(what, "scale"), spec.scale));
  }
  if (spec.zero_point < spec.qmin() || spec.zero_point > spec.qmax()) {
    throw std::invalid_argument(fmt::format("{}: {} is out of range, allowed {}..{}",
                                            FieldName(what, "zero_point"), spec.zero_point, spec.qmin(),
                                            spec.qmax()));
  }
}

int64_t QuantizeToRange(double x, double scale, int64_t zero_point, int64_t qmin, int64_t qmax,
                        RoundingMode mode) {
  if (std::isnan(x)) return std::clamp(zero_point, qmin, qmax);
  const double rounded = RoundReal(x / scale, mode);
  // Clamp in double first: casting an out-of-range double to int64 is undefined behaviour.
  const double lo = static_cast<double>(qmin - zero_point);
  const double hi = static_cast<double>(qmax - zero_point);
  if (rounded <= lo) return qmin;
  if (rounded >= hi) return qmax;
  return std::clamp(static_cast<int64_t>(rounded) + zero_point, qmin, qmax);
}

int32_t Quantize(double x, const QuantSpec& spec, RoundingMode mode) {
  return static_cast<int32_t>(
      QuantizeToRange(x, spec.scale, spec.zero_point, spec.qmin(), spec.qmax(), mode));
}

double Dequantize(int64_t q, const QuantSpec& spec) {
  return spec.scale * static_cast<double>(q - spec.zero_point);
}

QuantSpec SymmetricFromAmax(double amax, int bits, bool is_signed, bool narrow) {
  CheckBits(bits, "bits");
  if (!(amax > 0.0) || !std::isfinite(amax)) {
    throw std::invalid_argument(fmt::format("amax: {} is not allowed, must be finite and > 0", amax));
  }
  QuantSpec spec{bits, is_signed, narrow, 1.0, 0};
  spec.scale = amax / static_cast<double>(spec.qmax());
  ValidateQuantSpec(spec);
  return spec;
}

QuantSpec AsymmetricFromMinMax(double min, double max, int bits, bool is_signed, bool narrow,
                               RoundingMode zp_rounding) {
  CheckBits(bits, "bits");
  if (!std::isfinite(min) || !std::isfinite(max)) {
    throw std::invalid_argument(fmt::format("min/max: [{}, {}] must be finite", min, max));
  }
  if (min > max) {
    throw std::invalid_argument(fmt::format("min: {} must not exceed max {}", min, max));
  }
  QuantSpec spec{bits, is_signed, narrow, 1.0, 0};
  const double lo = std::min(min, 0.0);
  const double hi = std::max(max, 0.0);
  const double levels = static_cast<double>(spec.qmax() - spec.qmin());
  spec.scale = hi > lo ? (hi - lo) / levels : 1.0;
  const double zp = RoundReal(static_cast<double>(spec.qmin()) - lo / spec.scale, zp_rounding);
  spec.zero_point = static_cast<int32_t>(
      std::clamp(zp, static_cast<double>(spec.qmin()), static_cast<double>(spec.qmax())));
  ValidateQuantSpec(spec);
  return spec;
}

std::vector<int64_t> AllCodes(const QuantSpec& spec) {
  std::vector<int64_t> codes;
  codes.reserve(static_cast<size_t>(spec.levels()));
  for (int64_t q = spec.qmin(); q <= spec.qmax(); ++q) codes.push_back(q);
  return codes;
}

}  // namespace qacc::golden
