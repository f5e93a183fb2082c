#include "golden/softmax.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace qacc::golden {

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

SoftmaxParams WithSeedCompat(SoftmaxParams params) {
  params.table_rounding = RoundingMode::kTowardZero;  // seed: T = floor(t / scale_t), t > 0
  params.div_rounding = DivRounding::kFloor;          // seed: (P / S).to(int) truncates, P/S >= 0
  params.offset = SoftmaxOffset::kQmax;               // seed: offset = scale_x * Qmax
  return params;
}

bool IsSeedCompat(const SoftmaxParams& params) {
  return params.table_rounding == RoundingMode::kTowardZero &&
         params.div_rounding == DivRounding::kFloor && params.offset == SoftmaxOffset::kQmax;
}

void ValidateSoftmaxParams(const SoftmaxParams& params) {
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


SoftmaxTables BuildSoftmaxTables(const SoftmaxParams& params) {
  ValidateSoftmaxParams(params);
  SoftmaxTables tables;
  tables.params = params;
  const QuantSpec& in = params.in;
  const QuantSpec& out = params.out;
  const int64_t m = SoftmaxTableScale(params.n, params.acc_bits);
  const int64_t t_max = SoftmaxEntryMax(params.acc_bits);
  const int64_t p_max = SoftmaxEntryMax(params.acc_bits + out.bits);
  const double md = static_cast<double>(m);

  SoftmaxTableStats& stats = tables.stats;
  stats.m = m;
  stats.t_entry_max = t_max;
  stats.p_entry_max = p_max;
  for (int64_t x = in.qmin(); x <= in.qmax(); ++x) {
    const double t = std::exp(in.scale * static_cast<double>(x - in.qmax()));
    bool t_clamped = false;
    bool p_clamped = false;
    tables.exp_table.push_back(SoftmaxTableEntry(t * md, params.table_rounding, t_max, &t_clamped));
    tables.numerator_table.push_back(
        SoftmaxTableEntry(t * md / out.scale, params.table_rounding, p_max, &p_clamped));
    stats.t_clamped += t_clamped;
    stats.p_clamped += p_clamped;
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
    sum = SaturatingAccumulate(sum, tables.T(code), tables.params.acc_bits);
  }
  return sum;
}

std::vector<int32_t> SoftmaxRow(const SoftmaxTables& tables, const std::vector<int32_t>& row) {
  const QuantSpec& out = tables.params.out;
  const std::vector<int64_t> codes = SoftmaxTableCodes(tables, row);
  const int64_t sum = SoftmaxRowSum(tables, codes);
  std::vector<int32_t> y;
  y.reserve(codes.size());
  for (int64_t code : codes) {
    const int64_t q =
        sum == 0 ? tables.zero_sum_output
                 : DivideRounded(tables.P(code), sum, tables.params.div_rounding) + out.zero_point;
    y.push_back(static_cast<int32_t>(std::clamp(q, out.qmin(), out.qmax())));
  }
  return y;
}

}  // namespace qacc::golden
