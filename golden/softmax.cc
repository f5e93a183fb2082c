#include "golden/softmax.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace qacc::golden {

std::string_view SoftmaxModeName(SoftmaxMode mode) {
  switch (mode) {
    case SoftmaxMode::kExact:
      return "exact";
    case SoftmaxMode::kSeedCompat:
      return "seed";
  }
  return "?";
}

std::string_view DivRoundingName(DivRounding rounding) {
  switch (rounding) {
    case DivRounding::kFloor:
      return "floor";
    case DivRounding::kNearest:
      return "nearest";
  }
  return "?";
}

std::optional<DivRounding> ParseDivRounding(std::string_view name) {
  for (DivRounding r : {DivRounding::kFloor, DivRounding::kNearest}) {
    if (DivRoundingName(r) == name) return r;
  }
  return std::nullopt;
}

std::string_view SoftmaxOffsetName(SoftmaxOffset offset) {
  switch (offset) {
    case SoftmaxOffset::kQmax:
      return "qmax";
    case SoftmaxOffset::kRowMax:
      return "rowmax";
  }
  return "?";
}

std::optional<SoftmaxOffset> ParseSoftmaxOffset(std::string_view name) {
  for (SoftmaxOffset o : {SoftmaxOffset::kQmax, SoftmaxOffset::kRowMax}) {
    if (SoftmaxOffsetName(o) == name) return o;
  }
  return std::nullopt;
}

namespace {

// Seed 000's QuantConfig narrows only a signed range (quant_min is 0 for an unsigned spec whatever
// `narrow` says); quant.h rejects narrow on an unsigned spec, so compat mode drops it there, which
// gives the same codes.
SoftmaxParams SeedCompatNormalized(SoftmaxParams params) {
  if (params.mode == SoftmaxMode::kSeedCompat) {
    if (!params.in.is_signed) params.in.narrow = false;
    if (!params.out.is_signed) params.out.narrow = false;
  }
  return params;
}

// Largest unsigned width of seed 000's QuantConfig (it asserts a signed spec above 8 bits).
constexpr int kSeedMaxUnsignedBits = 8;

void ValidateSeedCompat(const SoftmaxParams& params) {
  if (params.table_rounding != RoundingMode::kTowardZero) {
    throw std::invalid_argument(
        fmt::format("table_rounding: compat mode (seed 000) truncates, must be toward_zero, got {}",
                    RoundingModeName(params.table_rounding)));
  }
  if (params.div_rounding != DivRounding::kFloor) {
    throw std::invalid_argument(
        fmt::format("div_rounding: compat mode (seed 000) truncates its float32 quotient, must be "
                    "floor, got {}",
                    DivRoundingName(params.div_rounding)));
  }
  if (params.offset != SoftmaxOffset::kQmax) {
    throw std::invalid_argument(
        fmt::format("offset: compat mode (seed 000) subtracts the input Qmax, must be qmax, got {}",
                    SoftmaxOffsetName(params.offset)));
  }
  if (params.out.zero_point != 0) {
    throw std::invalid_argument(fmt::format(
        "out.zero_point: compat mode (seed 000) is symmetric, the zero point must be 0, "
        "got {}",
        params.out.zero_point));
  }
  if (!params.out.is_signed && params.out.bits > kSeedMaxUnsignedBits) {
    throw std::invalid_argument(fmt::format(
        "out.bits: {} is out of range for an unsigned output in compat mode, allowed {}..{} (seed "
        "000's QuantConfig asserts a signed spec above {} bits)",
        params.out.bits, kMinQuantBits, kSeedMaxUnsignedBits, kSeedMaxUnsignedBits));
  }
  // The numerator scale s_y / M too: a 0 would make e / 0 and, for e = 0, a NaN table entry.
  const double numerator_scale =
      1.0 / static_cast<double>(SoftmaxTableScale(params.n, params.acc_bits)) * params.out.scale;
  for (const auto& [field, scale] :
       {std::pair{"in.scale", params.in.scale}, std::pair{"out.scale", params.out.scale},
        std::pair{"out.scale", numerator_scale}}) {
    const float narrowed = static_cast<float>(scale);
    if (!(narrowed > 0.0f) || !std::isfinite(narrowed)) {
      throw std::invalid_argument(fmt::format(
          "{}: {} is 0 or infinite in float32, compat mode needs a float32 scale", field, scale));
    }
  }
}

}  // namespace

SoftmaxParams WithSeedCompat(SoftmaxParams params) {
  params.mode = SoftmaxMode::kSeedCompat;
  params.table_rounding = RoundingMode::kTowardZero;  // seed: .to(int) of a positive quotient
  params.div_rounding = DivRounding::kFloor;          // seed: (P / S).to(int) truncates
  params.offset = SoftmaxOffset::kQmax;               // seed: offset = scale_x * Qmax
  return SeedCompatNormalized(params);
}

bool IsSeedCompat(const SoftmaxParams& params) { return params.mode == SoftmaxMode::kSeedCompat; }

void ValidateSoftmaxParams(const SoftmaxParams& requested) {
  const SoftmaxParams params = SeedCompatNormalized(requested);
  if (params.n < kSoftmaxMinN || params.n > kSoftmaxMaxN) {
    throw std::invalid_argument(
        fmt::format("n: {} is out of range, allowed {}..{}", params.n, kSoftmaxMinN, kSoftmaxMaxN));
  }
  if (params.in.bits < kSoftmaxMinInBits || params.in.bits > kSoftmaxMaxInBits) {
    throw std::invalid_argument(fmt::format("in.bits: {} is out of range, allowed {}..{}",
                                            params.in.bits, kSoftmaxMinInBits, kSoftmaxMaxInBits));
  }
  ValidateQuantSpec(params.in, "in");
  ValidateQuantSpec(params.out, "out");
  if (params.acc_bits < kSoftmaxMinAccBits || params.acc_bits > kSoftmaxMaxAccBits) {
    throw std::invalid_argument(fmt::format("acc_bits: {} is out of range, allowed {}..{}",
                                            params.acc_bits, kSoftmaxMinAccBits,
                                            kSoftmaxMaxAccBits));
  }
  if (SoftmaxTableScale(params.n, params.acc_bits) < 1) {
    int need = params.acc_bits;
    while (SoftmaxAccMax(need) < params.n) ++need;
    throw std::invalid_argument(fmt::format(
        "acc_bits: {} is too small for n = {}: floor((2^{} - 1) / n) = 0, allowed {}..{}",
        params.acc_bits, params.n, params.acc_bits - 1, need, kSoftmaxMaxAccBits));
  }
  if (params.mode == SoftmaxMode::kSeedCompat) ValidateSeedCompat(params);
}

int64_t SoftmaxAccMax(int acc_bits) { return (int64_t{1} << (acc_bits - 1)) - 1; }

int64_t SoftmaxTableScale(int n, int acc_bits) { return SoftmaxAccMax(acc_bits) / n; }

int64_t SoftmaxEntryMax(int bits) { return (int64_t{1} << (bits - 1)) - 1; }

int64_t SoftmaxTableEntry(double value, RoundingMode mode, int64_t entry_max, bool* clamped) {
  const double rounded = RoundReal(value, mode);
  // Compare in double first: casting a double above 2^63 to int64 is undefined behaviour.
  if (!(rounded <= static_cast<double>(entry_max))) {
    *clamped = true;
    return entry_max;
  }
  return std::max<int64_t>(0, static_cast<int64_t>(rounded));
}

int64_t SaturatingAccumulate(int64_t acc, int64_t t, int acc_bits) {
  return std::min(acc + t, SoftmaxAccMax(acc_bits));
}

int64_t DivideRounded(int64_t p, int64_t s, DivRounding rounding) {
  switch (rounding) {
    case DivRounding::kFloor:
      return p / s;
    case DivRounding::kNearest:
      return (2 * p + s) / (2 * s);
  }
  return 0;
}

int64_t RowMaxTableCode(int64_t x, int64_t row_max, int64_t in_qmax) {
  return x - row_max + in_qmax;
}

SeedCompatEntry SeedCompatTableEntry(float v, int bits) {
  SeedCompatEntry entry;
  const auto lo = static_cast<float>(-(int64_t{1} << (bits - 1)));
  const auto hi = static_cast<float>(SoftmaxEntryMax(bits));  // 2^(bits-1) for bits >= 26
  if (std::isnan(v)) return entry;  // 0; a validated compat table never divides 0 by 0
  entry.clamped = v > hi;
  // std::min/max as torch.clamp on the finite and infinite values a table can meet.
  const float clamped = std::min(std::max(v, lo), hi);
  int64_t value = static_cast<int64_t>(std::trunc(clamped));  // |clamped| <= 2^47: exact
  // The tensor's dtype: int8 / int16 / int32 / int64 for bits <= 8 / 16 / 32 / 64. Only 2^31 in an
  // int32 can exceed it (the bound is exact below 2^24); the cast gives -2^31.
  const int dtype_bits = bits <= 8 ? 8 : bits <= 16 ? 16 : bits <= 32 ? 32 : 64;
  if (dtype_bits < 64 && value > (int64_t{1} << (dtype_bits - 1)) - 1) {
    value -= int64_t{1} << dtype_bits;
    entry.wrapped = true;
  }
  entry.over_width = value > SoftmaxEntryMax(bits);
  entry.value = value;
  return entry;
}

int32_t SeedCompatDivide(int64_t p, int64_t s, int64_t qmin, int64_t qmax) {
  // int -> float32 conversions round to nearest, as PyTorch's promotion of the int tensors.
  const float y = static_cast<float>(p) / static_cast<float>(s);
  if (std::isnan(y)) return 0;
  const float clamped = std::min(std::max(y, static_cast<float>(qmin)), static_cast<float>(qmax));
  return static_cast<int32_t>(std::trunc(clamped));
}

namespace {

// Compat mode: seed 000's Softmax.__init__, operation by operation in float32.
//   input_float_minus_max = (input_quant - quant_max) * input_scale   float32(X - Qmax) * float32
//   exp_float = torch.exp(...)                                        expf
//   denominator_scale = 1 / (acc_quant_max // dim_len)                double
//   numerator_scale = denominator_scale * output_scale                double
//   quantize(exp_float) = clamp(exp_float / scale, ...).to(dtype)     SeedCompatTableEntry
void FillSeedCompatTables(SoftmaxTables* tables) {
  const SoftmaxParams& params = tables->params;
  const QuantSpec& in = params.in;
  const int64_t m = SoftmaxTableScale(params.n, params.acc_bits);
  const double denominator_scale = 1.0 / static_cast<double>(m);
  const double numerator_scale = denominator_scale * params.out.scale;
  const auto in_scale = static_cast<float>(in.scale);
  const auto t_scale = static_cast<float>(denominator_scale);
  const auto p_scale = static_cast<float>(numerator_scale);
  SoftmaxTableStats& stats = tables->stats;
  for (int64_t x = in.qmin(); x <= in.qmax(); ++x) {
    const float e = std::exp(static_cast<float>(x - in.qmax()) * in_scale);  // float overload
    const SeedCompatEntry t = SeedCompatTableEntry(e / t_scale, params.acc_bits);
    const SeedCompatEntry p = SeedCompatTableEntry(e / p_scale, params.acc_bits + params.out.bits);
    tables->exp_table.push_back(t.value);
    tables->numerator_table.push_back(p.value);
    stats.t_clamped += t.clamped;
    stats.p_clamped += p.clamped;
    stats.t_over_width += t.over_width;
    stats.p_over_width += p.over_width;
    stats.t_wrapped += t.wrapped;
    stats.p_wrapped += p.wrapped;
  }
}

// Exact mode: double tables, rounded under table_rounding and clamped to the word.
void FillExactTables(SoftmaxTables* tables) {
  const SoftmaxParams& params = tables->params;
  const QuantSpec& in = params.in;
  SoftmaxTableStats& stats = tables->stats;
  const auto md = static_cast<double>(stats.m);
  for (int64_t x = in.qmin(); x <= in.qmax(); ++x) {
    const double t = std::exp(in.scale * static_cast<double>(x - in.qmax()));
    bool t_clamped = false;
    bool p_clamped = false;
    tables->exp_table.push_back(
        SoftmaxTableEntry(t * md, params.table_rounding, stats.t_entry_max, &t_clamped));
    tables->numerator_table.push_back(SoftmaxTableEntry(
        t * md / params.out.scale, params.table_rounding, stats.p_entry_max, &p_clamped));
    stats.t_clamped += t_clamped;
    stats.p_clamped += p_clamped;
  }
}

}  // namespace

SoftmaxTables BuildSoftmaxTables(const SoftmaxParams& requested) {
  ValidateSoftmaxParams(requested);
  SoftmaxTables tables;
  tables.params = SeedCompatNormalized(requested);
  const SoftmaxParams& params = tables.params;
  const QuantSpec& out = params.out;
  SoftmaxTableStats& stats = tables.stats;
  stats.m = SoftmaxTableScale(params.n, params.acc_bits);
  stats.t_entry_max = SoftmaxEntryMax(params.acc_bits);
  stats.p_entry_max = SoftmaxEntryMax(params.acc_bits + out.bits);
  if (params.mode == SoftmaxMode::kSeedCompat) {
    FillSeedCompatTables(&tables);
  } else {
    FillExactTables(&tables);
  }
  stats.max_t = *std::max_element(tables.exp_table.begin(), tables.exp_table.end());
  stats.max_p = *std::max_element(tables.numerator_table.begin(), tables.numerator_table.end());
  stats.zero_t_entries = std::count(tables.exp_table.begin(), tables.exp_table.end(), 0);
  stats.sum_can_overflow = params.n * stats.max_t > SoftmaxAccMax(params.acc_bits);
  stats.sum_can_be_zero = params.offset == SoftmaxOffset::kQmax && tables.exp_table.front() == 0;
  tables.zero_sum_output = QuantizeToRange(1.0 / params.n, out.scale, out.zero_point, out.qmin(),
                                           out.qmax(), RoundingMode::kHalfAwayFromZero);
  return tables;
}

SoftmaxTableBytes SoftmaxMemory(const SoftmaxParams& params) {
  return SoftmaxTablesBytes(params.in.bits, params.acc_bits, params.out.bits);
}

std::vector<int64_t> TableByAddress(const std::vector<int64_t>& by_code, const QuantSpec& in) {
  std::vector<int64_t> by_address(size_t{1} << in.bits, 0);
  for (int64_t x = in.qmin(); x <= in.qmax(); ++x) {
    by_address[static_cast<size_t>(TableAddress(x, in.bits))] =
        by_code[static_cast<size_t>(x - in.qmin())];
  }
  return by_address;
}

std::vector<int64_t> SoftmaxTableCodes(const SoftmaxTables& tables,
                                       const std::vector<int32_t>& row) {
  const SoftmaxParams& params = tables.params;
  if (row.size() != static_cast<size_t>(params.n)) {
    throw std::invalid_argument(
        fmt::format("row: length {} differs from n = {}", row.size(), params.n));
  }
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] < params.in.qmin() || row[i] > params.in.qmax()) {
      throw std::invalid_argument(fmt::format("row[{}]: {} is out of range, allowed {}..{}", i,
                                              row[i], params.in.qmin(), params.in.qmax()));
    }
  }
  std::vector<int64_t> codes(row.begin(), row.end());
  if (params.offset == SoftmaxOffset::kRowMax) {
    const int64_t row_max = *std::max_element(row.begin(), row.end());  // the extra pass
    for (int64_t& code : codes) code = RowMaxTableCode(code, row_max, params.in.qmax());
  }
  return codes;
}

int64_t SoftmaxRowSum(const SoftmaxTables& tables, const std::vector<int64_t>& table_codes) {
  int64_t sum = 0;
  for (int64_t code : table_codes) {
    sum = tables.params.mode == SoftmaxMode::kSeedCompat
              ? sum + tables.T(code)
              : SaturatingAccumulate(sum, tables.T(code), tables.params.acc_bits);
  }
  return sum;
}

std::vector<int32_t> SoftmaxRow(const SoftmaxTables& tables, const std::vector<int32_t>& row) {
  const QuantSpec& out = tables.params.out;
  const std::vector<int64_t> codes = SoftmaxTableCodes(tables, row);
  const int64_t sum = SoftmaxRowSum(tables, codes);
  std::vector<int32_t> y;
  y.reserve(codes.size());
  if (tables.params.mode == SoftmaxMode::kSeedCompat) {
    for (int64_t code : codes)
      y.push_back(SeedCompatDivide(tables.P(code), sum, out.qmin(), out.qmax()));
    return y;
  }
  for (int64_t code : codes) {
    const int64_t q =
        sum == 0 ? tables.zero_sum_output
                 : DivideRounded(tables.P(code), sum, tables.params.div_rounding) + out.zero_point;
    y.push_back(static_cast<int32_t>(std::clamp(q, out.qmin(), out.qmax())));
  }
  return y;
}

}  // namespace qacc::golden
