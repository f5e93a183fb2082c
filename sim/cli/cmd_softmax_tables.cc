// qacc softmax-tables: the two tables of the quantized softmax (golden/softmax.h) for one
// configuration, their memory and statistics, and the error against the float softmax over random
// and adversarial rows (golden/softmax_error.h), in output LSBs and in real units. Optionally the
// smallest accumulator width that meets an error bound, and $readmemh images of both tables.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/quant.h"
#include "golden/softmax.h"
#include "golden/softmax_error.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cli/hex_image.h"
#include "sim/cli/path_identity.h"
#include "sim/cli/progress.h"

namespace qacc::cli {

namespace {

struct SoftmaxTablesOptions {
  int n = 0;
  int in_bits = 0;
  double in_amax = 0.0;
  bool in_unsigned = false;
  int out_bits = 0;
  double out_amax = 1.0;
  bool out_unsigned = false;
  int acc_bits = 32;
  bool narrow = false;
  std::string round = "nearest";
  std::string div = "nearest";
  std::string offset = "rowmax";
  std::string compat;
  int error_rows = 64;
  uint64_t seed = 1;
  int64_t min_acc_bits_bound = -1;  // < 0: not asked
  std::string hex_prefix;
  OutputOptions output;
};

const CLI::Validator kSeedValidator(
    [](std::string& text) -> std::string {
      const bool digits = !text.empty() && text.size() <= 20 &&
                          text.find_first_not_of("0123456789") == std::string::npos;
      if (!digits || (text.size() == 20 && text > "18446744073709551615")) {
        return fmt::format("{} is not allowed, must be an integer in 0..2^64 - 1", text);
      }
      return {};
    },
    "UINT64", "seed");

// Golden errors start with the field ("acc_bits: ...", "in.bits: ..."); on the command line it is
// the option ("--acc-bits: ...", "--in-bits: ...").
[[noreturn]] void RethrowAsOption(const std::invalid_argument& e) {
  std::string message = e.what();
  const size_t colon = message.find(':');
  std::string field = message.substr(0, colon);
  for (char& c : field) {
    if (c == '_' || c == '.') c = '-';
  }
  throw UsageError(fmt::format("--{}{}", field, message.substr(colon)));
}

golden::SoftmaxParams ParamsFrom(const SoftmaxTablesOptions& o) {
  // The original accepts narrow with unsigned specs and ignores it there: so does --compat seed.
  if (o.narrow && o.in_unsigned && o.out_unsigned && o.compat.empty()) {
    throw UsageError("--narrow: applies to a signed input or output only (qmin = -2^(bits-1) + 1)");
  }
  golden::SoftmaxParams params;
  params.n = o.n;
  // As the original code: symmetric specs, scale = amax / qmax, zero point 0.
  params.in =
      golden::SymmetricFromAmax(o.in_amax, o.in_bits, !o.in_unsigned, o.narrow && !o.in_unsigned);
  params.out = golden::SymmetricFromAmax(o.out_amax, o.out_bits, !o.out_unsigned,
                                         o.narrow && !o.out_unsigned);
  params.acc_bits = o.acc_bits;
  params.table_rounding = o.round == "trunc" ? golden::RoundingMode::kTowardZero
                                             : golden::RoundingMode::kHalfAwayFromZero;
  params.div_rounding = *golden::ParseDivRounding(o.div);
  params.offset = *golden::ParseSoftmaxOffset(o.offset);
  if (o.compat == "seed") params = golden::WithSeedCompat(params);
  return params;
}

nlohmann::json SpecJson(const golden::QuantSpec& spec, double amax) {
  return {{"bits", spec.bits},     {"signed", spec.is_signed},
          {"narrow", spec.narrow}, {"scale", spec.scale},
          {"amax", amax},          {"zero_point", spec.zero_point},
          {"qmin", spec.qmin()},   {"qmax", spec.qmax()}};
}

nlohmann::json StatsJson(const golden::SoftmaxErrorStats& s) {
  return {{"rows", s.rows},
          {"elements", s.elements},
          {"max_abs_lsb", s.max_abs_lsb},
          {"mean_abs_lsb", s.mean_abs_lsb()},
          {"elements_over_1_lsb", s.elements_over_1},
          {"max_abs_real", s.max_abs_real},
          {"mean_abs_real", s.mean_abs_real()}};
}

std::string StatsLine(const std::string& name, const golden::SoftmaxErrorStats& s) {
  return fmt::format("  {:<12} {:>6} {:>10} {:>6} {:>10.6f} {:>10} {:>10.4g}\n", name, s.rows,
                     s.elements, s.max_abs_lsb, s.mean_abs_lsb(), s.elements_over_1,
                     s.max_abs_real);
}

// Softmax outputs are probabilities in [0, 1]: when quantize(1.0) is below a quarter of the
// positive codes, --out-amax is far above 1 and few output codes are ever used.
inline constexpr int64_t kMinOutputUseDivisor = 4;

struct OutputUse {
  int64_t code_of_one = 0;     // quantize(1.0) - zero point: the largest code a probability reaches
  int64_t positive_codes = 0;  // qmax - zero point
  bool small() const { return code_of_one * kMinOutputUseDivisor < positive_codes; }
};

OutputUse MeasureOutputUse(const golden::QuantSpec& out) {
  return {golden::Quantize(1.0, out, golden::RoundingMode::kHalfAwayFromZero) - out.zero_point,
          out.qmax() - out.zero_point};
}

// $readmemh images of both tables, addressed by the raw input code bits as the RTL reads them.
std::vector<OutputFile> HexFiles(const std::string& prefix, const golden::SoftmaxTables& tables) {
  const golden::SoftmaxParams& p = tables.params;
  const auto image = [&](const char* name, const std::vector<int64_t>& by_code, int bits) {
    const std::vector<int64_t> by_address = golden::TableByAddress(by_code, p.in);
    return HexImage(fmt::format("qacc softmax-tables {}: {} x {} bits, address = raw input code "
                                "bits",
                                name, by_address.size(), bits),
                    by_address, bits);
  };
  return {{"--hex-prefix", prefix + "_exp.hex", image("X->T", tables.exp_table, p.acc_bits)},
          {"--hex-prefix", prefix + "_numerator.hex",
           image("X->P", tables.numerator_table, p.acc_bits + p.out.bits)}};
}

std::string SpecText(const golden::QuantSpec& spec, double amax) {
  return fmt::format("{}int{}{} (scale {:.6g} = {} / {}, codes {}..{})", spec.is_signed ? "" : "u",
                     spec.bits, spec.narrow ? " narrow" : "", spec.scale, amax, spec.qmax(),
                     spec.qmin(), spec.qmax());
}

void RunSoftmaxTables(const SoftmaxTablesOptions& o) {
  if (!o.hex_prefix.empty()) {
    CheckOutputsDistinct({}, {{"--hex-prefix", o.hex_prefix + "_exp.hex"},
                              {"--hex-prefix", o.hex_prefix + "_numerator.hex"},
                              {"--output", o.output.output_path}});
  }
  golden::SoftmaxTables tables;
  try {
    tables = golden::BuildSoftmaxTables(ParamsFrom(o));
  } catch (const std::invalid_argument& e) {
    RethrowAsOption(e);
  }
  const golden::SoftmaxParams& p = tables.params;
  const golden::SoftmaxTableStats& st = tables.stats;
  const golden::SoftmaxTableBytes bytes = golden::SoftmaxMemory(p);
  TerminalProgress progress("qacc softmax-tables");  // the error rows, on a terminal
  const golden::SoftmaxErrorOptions error_options{o.error_rows, o.seed, true};
  const golden::SoftmaxErrorReport report = golden::AnalyzeSoftmaxError(tables, error_options);
  std::optional<int> min_acc;
  if (o.min_acc_bits_bound >= 0)
    min_acc = golden::MinAccBits(p, o.min_acc_bits_bound, error_options);
  progress.Done();
  const OutputUse use = MeasureOutputUse(p.out);

  // ---- JSON ----
  nlohmann::json families = nlohmann::json::object();
  for (const auto& [name, s] : report.families) families[name] = StatsJson(s);
  nlohmann::json json = {
      {"params",
       {{"n", p.n},
        {"in", SpecJson(p.in, o.in_amax)},
        {"out", SpecJson(p.out, o.out_amax)},
        {"acc_bits", p.acc_bits},
        {"table_rounding", golden::RoundingModeName(p.table_rounding)},
        {"div_rounding", golden::DivRoundingName(p.div_rounding)},
        {"offset", golden::SoftmaxOffsetName(p.offset)},
        {"mode", golden::SoftmaxModeName(p.mode)},
        {"seed_compatible", golden::IsSeedCompat(p)}}},
      {"m", st.m},
      {"output_use",
       {{"code_of_one", use.code_of_one},
        {"positive_codes", use.positive_codes},
        {"small", use.small()}}},
      {"first_code", p.in.qmin()},
      {"exp_table", tables.exp_table},
      {"numerator_table", tables.numerator_table},
      // Compat mode divides by S = 0 as the original does: no constant.
      {"zero_sum_output",
       golden::IsSeedCompat(p) ? nlohmann::json(nullptr) : nlohmann::json(tables.zero_sum_output)},
      {"memory",
       {{"exp_entry_bits", p.acc_bits},
        {"numerator_entry_bits", p.acc_bits + p.out.bits},
        {"exp_table_bytes", bytes.exp_table},
        {"numerator_table_bytes", bytes.numerator_table},
        {"total_bytes", bytes.total()}}},
      {"stats",
       {{"max_t", st.max_t},
        {"max_p", st.max_p},
        {"t_entry_max", st.t_entry_max},
        {"p_entry_max", st.p_entry_max},
        {"t_clamped", st.t_clamped},
        {"p_clamped", st.p_clamped},
        {"any_clamped", st.any_clamped()},
        {"zero_t_entries", st.zero_t_entries},
        {"sum_can_overflow", st.sum_can_overflow},
        {"sum_can_be_zero", st.sum_can_be_zero},
        {"t_over_width", st.t_over_width},
        {"p_over_width", st.p_over_width},
        {"t_wrapped", st.t_wrapped},
        {"p_wrapped", st.p_wrapped}}},
      {"error",
       {{"random_rows", o.error_rows},
        {"seed", o.seed},
        {"random", StatsJson(report.random)},
        {"adversarial", StatsJson(report.adversarial)},
        {"total", StatsJson(report.total())},
        {"families", families},
        {"worst",
         {{"row", report.worst.row},
          {"code", report.worst.code},
          {"actual", report.worst.actual},
          {"expected", report.worst.expected}}}}}};
  if (o.min_acc_bits_bound >= 0) {
    json["min_acc_bits"] = {
        {"bound_lsb", o.min_acc_bits_bound},
        {"acc_bits", min_acc ? nlohmann::json(*min_acc) : nlohmann::json(nullptr)}};
  }

  // ---- Text ----
  std::string h = fmt::format("softmax tables: n {}, acc {} bits\n", p.n, p.acc_bits);
  h +=
      fmt::format("  in   {}\n  out  {}\n", SpecText(p.in, o.in_amax), SpecText(p.out, o.out_amax));
  if (golden::IsSeedCompat(p)) {
    h +=
        "  mode seed (--compat seed: the original code's float32 arithmetic): e = expf(float32(X - "
        "Qmax) s_x),\n"
        "       T = trunc(e / float32(1 / M)), P = trunc(e / float32(s_y / M)), "
        "Y = trunc(float32(P) / float32(S))\n";
  } else {
    h += fmt::format("  tables rounded {}, division {}, offset {}\n",
                     golden::RoundingModeName(p.table_rounding),
                     golden::DivRoundingName(p.div_rounding), golden::SoftmaxOffsetName(p.offset));
  }
  h += fmt::format("  M = floor((2^{} - 1) / {}) = {}\n", p.acc_bits - 1, p.n, st.m);
  h += fmt::format("memory: X->T {} B ({} x {} bit), X->P {} B ({} x {} bit), total {} B\n",
                   bytes.exp_table, 1 << p.in.bits, p.acc_bits, bytes.numerator_table,
                   1 << p.in.bits, p.acc_bits + p.out.bits, bytes.total());
  h += fmt::format("stats: max T {} (entry max {}), max P {} (entry max {}), clamped T {} P {}\n",
                   st.max_t, st.t_entry_max, st.max_p, st.p_entry_max, st.t_clamped, st.p_clamped);
  const std::string zero_sum =
      !st.sum_can_be_zero ? std::string("no")
      : golden::IsSeedCompat(p)
          ? std::string("yes (then Y = qmax where P > 0, 0 where P = 0: the original divides by 0)")
          : fmt::format("yes (then every Y = {}, the uniform 1/n)", tables.zero_sum_output);
  h += fmt::format("       T = 0 for {} codes, S can overflow: {}, S can be 0: {}\n",
                   st.zero_t_entries, st.sum_can_overflow ? "yes" : "no", zero_sum);
  if (golden::IsSeedCompat(p)) {
    h += fmt::format(
        "       float32: T {} P {} entries hold 2^(w-1), one above the w-bit word (the float32 "
        "clamp bound); T {} P {} wrapped 2^31 -> -2^31 (the original's int32 cast){}\n",
        st.t_over_width, st.p_over_width, st.t_wrapped, st.p_wrapped,
        st.t_wrapped > 0 ? ", so S can be negative" : "");
  }
  h += fmt::format("output: a probability of 1 is code {} of {} positive codes\n", use.code_of_one,
                   use.positive_codes);
  h += fmt::format(
      "error vs float softmax ({} random rows, seed {}): |Y - Y_ref| in output LSBs (Y_ref the\n"
      "  float softmax quantized); max real: |s_y (Y - zp_y) - y| in output units (y not "
      "quantized)\n",
      o.error_rows, o.seed);
  h += fmt::format("  {:<12} {:>6} {:>10} {:>6} {:>10} {:>10} {:>10}\n", "family", "rows",
                   "elements", "max", "mean", "> 1 LSB", "max real");
  for (const auto& [name, s] : report.families) h += StatsLine(name, s);
  h += StatsLine("adversarial", report.adversarial);
  h += StatsLine("total", report.total());
  h += fmt::format("  worst: {}, code {}: {} vs reference {}\n", report.worst.row,
                   report.worst.code, report.worst.actual, report.worst.expected);
  if (o.min_acc_bits_bound >= 0) {
    h += fmt::format("min acc bits for max error <= {} LSB: {}\n", o.min_acc_bits_bound,
                     min_acc ? std::to_string(*min_acc) : "none in 8..32");
  }
  h += fmt::format("{:>6} {:>8} {:>12} {:>16}\n", "code", "address", "T", "P");
  for (int64_t x = p.in.qmin(); x <= p.in.qmax(); ++x) {
    h += fmt::format("{:>6} {:>8} {:>12} {:>16}\n", x, golden::TableAddress(x, p.in.bits),
                     tables.T(x), tables.P(x));
  }
  const std::vector<OutputFile> files =
      o.hex_prefix.empty() ? std::vector<OutputFile>{} : HexFiles(o.hex_prefix, tables);
  WriteFilesThenEmit(files, [&] { Emit(o.output, h, json); });
  // On stderr, so stdout and -o stay one clean document.
  if (st.any_wrapped()) {
    fmt::print(stderr,
               "qacc: warning: softmax-tables: --compat seed: {} T and {} P entries wrapped to "
               "-2147483648 as in the original (float32(2^31 - 1) rounds to 2^31, which its int32 "
               "cast wraps)\n",
               st.t_wrapped, st.p_wrapped);
  }
  if (use.small()) {
    fmt::print(stderr,
               "qacc: warning: softmax-tables: output codes reach at most {} of {}: --out-amax {} "
               "is much larger than softmax's maximum of 1 (max error {:.3g} in real units)\n",
               use.code_of_one, use.positive_codes, o.out_amax, report.total().max_abs_real);
  }
}

}  // namespace

void RegisterSoftmaxTablesCommand(CLI::App& app) {
  auto o = std::make_shared<SoftmaxTablesOptions>();
  CLI::App* cmd = app.add_subcommand("softmax-tables",
                                     "Two-table quantized softmax (docs/softmax.md): X->T and "
                                     "X->P tables, memory, stats and the error against "
                                     "the float softmax over random and adversarial rows");
  cmd->add_option("--n", o->n, "Row length, 1..65536")->required()->check(CLI::Range(1, 65536));
  cmd->add_option("--in-bits", o->in_bits,
                  "Input bits, 2..8: the table SRAMs are addressed by an int8 code (qacc "
                  "table-memory sizes wider tables)")
      ->required()
      ->check(CLI::Range(golden::kSoftmaxMinInBits, golden::kSoftmaxMaxInBits));
  cmd->add_option("--in-amax", o->in_amax, "Input amax: scale = amax / qmax")
      ->required()
      ->check(kPositiveFinite);
  cmd->add_flag("--in-unsigned", o->in_unsigned, "Unsigned input codes 0..2^bits - 1");
  cmd->add_option("--out-bits", o->out_bits, "Output bits, 2..16")
      ->required()
      ->check(CLI::Range(2, 16));
  cmd->add_option("--out-amax", o->out_amax, "Output amax (default 1.0): scale = amax / qmax")
      ->check(kPositiveFinite);
  cmd->add_flag("--out-unsigned", o->out_unsigned,
                "Unsigned output codes (default signed, as the original code's test)");
  cmd->add_option("--acc-bits", o->acc_bits, "Accumulator bits, 8..32 (default 32)")
      ->check(CLI::Range(8, 32));
  cmd->add_flag("--narrow", o->narrow,
                "Narrow range (qmin = -2^(bits-1) + 1) for the signed specs (no effect on an "
                "unsigned spec; with --compat seed also allowed when both are unsigned)");
  auto* round = cmd->add_option("--round", o->round,
                                "Table rounding: trunc (--compat seed) or nearest (default)")
                    ->check(CLI::IsMember({"trunc", "nearest"}));
  auto* div = cmd->add_option("--div", o->div,
                              "Division rounding: floor (--compat seed) or nearest (default)")
                  ->check(CLI::IsMember({"floor", "nearest"}));
  auto* offset = cmd->add_option("--offset", o->offset,
                                 "Exponent offset: qmax (--compat seed) or rowmax (default)")
                     ->check(CLI::IsMember({"qmax", "rowmax"}));
  cmd->add_option("--compat", o->compat,
                  "seed: the float32 arithmetic of the original PyTorch code of the softmax "
                  "article that qacc's design follows (float32 tables truncated, float32 "
                  "division, offset qmax; docs/softmax.md). Not related to --seed")
      ->check(CLI::IsMember({"seed"}))
      ->excludes(round)
      ->excludes(div)
      ->excludes(offset);
  cmd->add_option("--error-rows", o->error_rows,
                  "Random rows for the error report, 0..100000 (default 64)")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--seed", o->seed, "Seed of the random rows, >= 0 (default 1)")
      ->check(kSeedValidator);
  cmd->add_option(
         "--min-acc-bits", o->min_acc_bits_bound,
         "Also report the smallest acc bits (8..32) whose max error is <= this many LSBs, 0..65535")
      ->check(CLI::Range(int64_t{0}, int64_t{65535}));
  cmd->add_option("--hex-prefix", o->hex_prefix,
                  "Also write $readmemh images of the tables to PREFIX_exp.hex (X->T) and "
                  "PREFIX_numerator.hex (X->P): one hex word per line, address = raw input code "
                  "bits (docs/softmax.md)")
      ->type_name("PREFIX");
  AddOutputOptions(cmd, &o->output);
  cmd->callback([o]() { RunSoftmaxTables(*o); });
}

}  // namespace qacc::cli
