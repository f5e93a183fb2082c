#include "golden/lut.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "golden/table_memory.h"

namespace qacc::golden {

namespace {

void ValidateLutSpec(const LutSpec& spec) {
  ValidateQuantSpec(spec.in, "in");
  if (spec.in.bits > kMaxLutInBits) {
    throw std::invalid_argument(fmt::format("in.bits: {} is out of range, allowed {}..{}",
                                            spec.in.bits, kMinLutInBits, kMaxLutInBits));
  }
  // A derived output has no scale or zero point yet: check the format only.
  QuantSpec out = spec.out;
  if (spec.derive_out) {
    out.scale = 1.0;
    out.zero_point = 0;
  }
  ValidateQuantSpec(out, "out");
  if (spec.mode == LutMode::kSeedCompat) {
    if (spec.in.zero_point != 0 || (!spec.derive_out && spec.out.zero_point != 0)) {
      throw std::invalid_argument(
          fmt::format("{}: compat mode (seed 000) is symmetric, the zero point must be 0",
                      spec.in.zero_point != 0 ? "in.zero_point" : "out.zero_point"));
    }
    if (spec.rounding != RoundingMode::kTowardZero) {
      throw std::invalid_argument(
          fmt::format("rounding: compat mode (seed 000) truncates, must be toward_zero, got {}",
                      RoundingModeName(spec.rounding)));
    }
    if (!spec.out.is_signed && spec.out.bits > kSeedMaxUnsignedBits) {
      throw std::invalid_argument(fmt::format(
          "out.bits: {} is out of range for an unsigned output in compat mode, allowed {}..{} "
          "(seed 000's QuantConfig asserts a signed spec above {} bits)",
          spec.out.bits, kMinQuantBits, kSeedMaxUnsignedBits, kSeedMaxUnsignedBits));
    }
  }
}

// Seed 000's QuantConfig narrows only a signed range: quant_min is 0 for an unsigned spec whatever
// `narrow` says. quant.h rejects narrow on an unsigned spec, so compat mode drops it there, which
// gives the same codes.
LutSpec SeedCompatNormalized(LutSpec spec) {
  if (spec.mode == LutMode::kSeedCompat) {
    if (!spec.in.is_signed) spec.in.narrow = false;
    if (!spec.out.is_signed) spec.out.narrow = false;
  }
  return spec;
}

// The output amax a derived spec is built from must give a usable scale.
void CheckDerivedAmax(double amax, const Elementwise& f) {
  if (!(amax > 0.0) || !std::isfinite(amax)) {
    throw std::invalid_argument(
        fmt::format("out.amax: max |{}(x)| over the input grid is {}, cannot derive an output "
                    "scale; give the output "
                    "range explicitly",
                    f.name(), amax));
  }
}

// Exact mode: T(q) = Quantize(f(Dequantize(q, in)), out, rounding), all in double.
void FillExact(const Elementwise& f, const LutSpec& spec, QuantSpec* out,
               std::optional<double>* out_amax, std::vector<int32_t>* by_value) {
  std::vector<double> y;
  for (int64_t q : AllCodes(spec.in)) y.push_back(f(Dequantize(q, spec.in)));
  if (spec.derive_out) {
    double amax = 0.0;
    for (double v : y) amax = std::max(amax, std::abs(v));  // a NaN never wins the comparison
    CheckDerivedAmax(amax, f);
    *out = SymmetricFromAmax(amax, out->bits, out->is_signed, out->narrow);
    *out_amax = amax;
  }
  for (double v : y) by_value->push_back(Quantize(v, *out, spec.rounding));
}

// A spec's double scale as the float32 compat mode computes with; it must stay > 0 and finite.
float Float32Scale(double scale, std::string_view field) {
  const float narrowed = static_cast<float>(scale);
  if (!(narrowed > 0.0f) || !std::isfinite(narrowed)) {
    throw std::invalid_argument(fmt::format(
        "{}: {} is 0 or infinite in float32, compat mode needs a float32 scale", field, scale));
  }
  return narrowed;
}

// Seed 000's quantize in float32: y / scale (float32 division), clamp to [qmin, qmax], truncate
// toward zero (torch.clamp followed by .to(int)). NaN has no defined conversion in PyTorch; it maps
// to 0 here.
int32_t SeedCompatQuantize(float y, float scale, int64_t qmin, int64_t qmax) {
  const float v = y / scale;
  if (std::isnan(v)) return 0;
  const float clamped = std::min(std::max(v, static_cast<float>(qmin)), static_cast<float>(qmax));
  return static_cast<int32_t>(clamped);  // float -> int conversion truncates toward zero
}

// Compat mode, following seed 000's _SymmetryQuant.__init__ operation by operation:
//   input_float  = input_quant * input_scale            float32(q) * float32 scale
//   output_float = func(input_float)                    f in float32
//   output_amax  = absolute(output_float).max()         float32, when no output amax is given
//   output_scale = output_amax / quant_max(bit)         float32 division (a float32 tensor / int)
//   output_quant = quantize(output_float, output_scale) see SeedCompatQuantize
void FillSeedCompat(const Elementwise& f, const LutSpec& spec, QuantSpec* in, QuantSpec* out,
                    std::optional<double>* out_amax, std::vector<int32_t>* by_value) {
  const float in_scale = Float32Scale(spec.in.scale, "in.scale");
  in->scale = in_scale;
  std::vector<float> y;
  for (int64_t q : AllCodes(spec.in)) y.push_back(f.EvalFloat32(static_cast<float>(q) * in_scale));
  float out_scale = 0.0f;
  if (spec.derive_out) {
    float amax = 0.0f;
    for (float v : y) amax = std::max(amax, std::abs(v));  // a NaN never wins the comparison
    CheckDerivedAmax(amax, f);
    out_scale = Float32Scale(amax / static_cast<float>(out->qmax()), "out.scale");
    *out_amax = amax;
    out->zero_point = 0;
  } else {
    out_scale = Float32Scale(spec.out.scale, "out.scale");
  }
  out->scale = out_scale;
  for (float v : y) by_value->push_back(SeedCompatQuantize(v, out_scale, out->qmin(), out->qmax()));
}

}  // namespace

std::string_view LutModeName(LutMode mode) {
  switch (mode) {
    case LutMode::kExact:
      return "exact";
    case LutMode::kSeedCompat:
      return "seed";
  }
  return "?";
}

double SeedCompatScaleFromAmax(double amax, int64_t qmax) {
  return static_cast<float>(amax / static_cast<double>(qmax));
}

LutSpec SeedCompatSpec(const SeedLutParams& params) {
  const auto check_bits = [](const char* field, int bits, int lo, int hi, const std::string& why) {
    if (bits < lo || bits > hi) {
      throw std::invalid_argument(
          fmt::format("{}: {} is out of range, allowed {}..{}{}", field, bits, lo, hi, why));
    }
  };
  check_bits("in.bits", params.in_bits, kMinLutInBits, kMaxLutInBits, "");
  if (params.out_unsigned) {
    check_bits("out.bits", params.out_bits, kMinQuantBits, kSeedMaxUnsignedBits,
               fmt::format(" for an unsigned output (seed 000's QuantConfig asserts a signed spec "
                           "above {} bits)",
                           kSeedMaxUnsignedBits));
  } else {
    check_bits("out.bits", params.out_bits, kMinQuantBits, kMaxQuantBits, "");
  }
  for (const auto& [field, amax] : {std::pair{"in.amax", std::optional<double>(params.in_amax)},
                                    std::pair{"out.amax", params.out_amax}}) {
    if (amax && (!(*amax > 0.0) || !std::isfinite(*amax))) {
      throw std::invalid_argument(
          fmt::format("{}: {} is not allowed, must be finite and > 0", field, *amax));
    }
  }
  LutSpec spec;
  spec.mode = LutMode::kSeedCompat;
  spec.rounding = RoundingMode::kTowardZero;
  spec.in =
      QuantSpec{params.in_bits, !params.in_unsigned, params.narrow && !params.in_unsigned, 1.0, 0};
  spec.in.scale = SeedCompatScaleFromAmax(params.in_amax, spec.in.qmax());
  spec.out = QuantSpec{params.out_bits, !params.out_unsigned, params.narrow && !params.out_unsigned,
                       1.0, 0};
  spec.derive_out = !params.out_amax.has_value();
  if (params.out_amax) spec.out.scale = SeedCompatScaleFromAmax(*params.out_amax, spec.out.qmax());
  for (const auto& [field, scale] :
       {std::pair{"in.amax", spec.in.scale}, std::pair{"out.amax", spec.out.scale}}) {
    if (!(scale > 0.0) || !std::isfinite(scale)) {
      throw std::invalid_argument(fmt::format(
          "{}: float32(amax / qmax) is {}, compat mode needs a float32 scale > 0", field, scale));
    }
  }
  return spec;
}

LutSpec SeedCompatSpec(double in_amax, int bits, bool narrow, std::optional<double> out_amax) {
  if (bits < kMinLutInBits || bits > kMaxLutInBits) {
    throw std::invalid_argument(fmt::format("bits: {} is out of range, allowed {}..{}", bits,
                                            kMinLutInBits, kMaxLutInBits));
  }
  SeedLutParams params;
  params.in_bits = bits;
  params.in_amax = in_amax;
  params.out_bits = bits;
  params.out_amax = out_amax;
  params.narrow = narrow;
  return SeedCompatSpec(params);
}

Lut BuildLut(const Elementwise& f, const LutSpec& requested) {
  const LutSpec spec = SeedCompatNormalized(requested);
  ValidateLutSpec(spec);
  Lut lut;
  lut.function_name_ = f.name();
  lut.alpha_ = f.alpha();
  lut.mode_ = spec.mode;
  lut.rounding_ = spec.rounding;
  lut.in_ = spec.in;
  lut.out_ = spec.out;
  if (spec.mode == LutMode::kExact) {
    FillExact(f, spec, &lut.out_, &lut.out_amax_, &lut.by_value_);
  } else {
    FillSeedCompat(f, spec, &lut.in_, &lut.out_, &lut.out_amax_, &lut.by_value_);
  }

  // Scatter into the SRAM. The unused narrow address gets T(qmin), by_value_[0].
  lut.by_address_.assign(static_cast<size_t>(lut.num_addresses()), lut.by_value_.front());
  const int64_t qmin = lut.in_.qmin();
  for (size_t i = 0; i < lut.by_value_.size(); ++i) {
    lut.by_address_[LutAddress(qmin + static_cast<int64_t>(i), lut.in_.bits)] = lut.by_value_[i];
  }
  return lut;
}

int64_t Lut::size_bits() const { return TableBits(address_bits(), entry_bits()); }

int64_t Lut::size_bytes() const { return TableBytes(address_bits(), entry_bits()); }

std::vector<uint32_t> Lut::SramWords() const {
  const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << entry_bits()) - 1);
  std::vector<uint32_t> words;
  words.reserve(by_address_.size());
  for (int32_t code : by_address_) words.push_back(static_cast<uint32_t>(code) & mask);
  return words;
}

std::optional<uint32_t> Lut::unused_address() const {
  if (!in_.is_signed || !in_.narrow) return std::nullopt;
  return LutAddress(QMin(in_.bits, /*is_signed=*/true), in_.bits);
}

int32_t Lut::Lookup(int64_t q) const {
  const int64_t lo = in_.is_signed ? QMin(in_.bits, true) : 0;
  const int64_t hi = in_.qmax();
  if (q < lo || q > hi) {
    throw std::out_of_range(
        fmt::format("q: {} does not fit the {}-bit input, allowed {}..{}", q, in_.bits, lo, hi));
  }
  return by_address_[LutAddress(q, in_.bits)];
}

size_t LutBank::Add(std::string name, Lut lut) {
  for (const auto& request : requests_) {
    if (request.first == name) {
      throw std::invalid_argument(fmt::format("name: '{}' is already in the bank", name));
    }
  }
  Key key{lut.address_bits(), lut.entry_bits(), lut.SramWords()};
  auto [it, inserted] = index_of_.try_emplace(std::move(key), tables_.size());
  if (inserted) tables_.push_back(std::move(lut));
  requests_.emplace_back(std::move(name), it->second);
  return it->second;
}

size_t LutBank::TableIndex(std::string_view name) const {
  for (const auto& request : requests_) {
    if (request.first == name) return request.second;
  }
  throw std::out_of_range(fmt::format("name: '{}' is not in the bank", name));
}

int64_t LutBank::shared_bytes() const {
  int64_t bytes = 0;
  for (const Lut& lut : tables_) bytes += lut.size_bytes();
  return bytes;
}

int64_t LutBank::unshared_bytes() const {
  int64_t bytes = 0;
  for (const auto& request : requests_) bytes += tables_[request.second].size_bytes();
  return bytes;
}

}  // namespace qacc::golden
