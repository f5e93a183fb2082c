// qacc lut: the lookup table of an activation, T(q) = Quantize(f(Dequantize(q))) for every input
// code, in ascending input value and as the SRAM image addressed by the code's raw bits
// (docs/lut.md).
//
// Input range: --in-amax (symmetric) or --in-scale [--in-zp]. Output range: --out-amax (symmetric),
// --out-min/--out-max (asymmetric), --out-scale [--out-zp], or none: derived from max |f| over the
// input grid.
// --compat seed reproduces the original float32 PyTorch code of the LUT article qacc follows
// ("seed 000" in docs/lut.md): --in-amax and optionally --out-amax, any widths and signedness the
// original accepts (an unsigned output has at most 8 bits), --narrow on the signed specs (no effect
// on an unsigned one, as in the original).
// Every table is measured against f in double: saturated entries (warned about on stderr) and the
// error in output LSBs. --hex writes the SRAM image for $readmemh (sim/cli/hex_image.h).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "golden/elementwise.h"
#include "golden/lut.h"
#include "golden/quant.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cli/hex_image.h"
#include "sim/cli/path_identity.h"

namespace qacc::cli {

namespace {

struct LutOptions {
  std::string func;
  double alpha = golden::kDefaultLeakyReluAlpha;
  int in_bits = 8;
  double in_amax = 0.0;
  double in_scale = 0.0;
  int in_zp = 0;
  bool in_unsigned = false;
  int out_bits = 8;
  double out_amax = 0.0;
  double out_min = 0.0;
  double out_max = 0.0;
  double out_scale = 0.0;
  int out_zp = 0;
  bool out_unsigned = false;
  bool narrow = false;
  std::string round = std::string(golden::RoundingModeName(golden::RoundingMode::kHalfToEven));
  std::string compat;
  std::string hex_path;
  OutputOptions output;

  // Which options were given (CLI11 counts them after parsing).
  const CLI::App* cmd = nullptr;
  bool Given(const std::string& name) const { return cmd->count(name) > 0; }
};

// "INT in lo..hi"; the message names the range (CLI11 prefixes the option name).
CLI::Validator IntRange(int lo, int hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        char* end = nullptr;
        const long value = std::strtol(text.c_str(), &end, 10);
        if (text.empty() || end != text.c_str() + text.size()) {
          return fmt::format("{} is not an integer, allowed {}..{}", text, lo, hi);
        }
        if (value < lo || value > hi) {
          return fmt::format("{} is out of range, allowed {}..{}", text, lo, hi);
        }
        return {};
      },
      fmt::format("INT in {}..{}", lo, hi));
}

const CLI::Validator kFunctionName(
    [](std::string& text) -> std::string {
      if (golden::FindElementwise(text)) return {};
      return fmt::format("'{}' is unknown, valid: {}", text, golden::ElementwiseChoices());
    },
    "NAME", "elementwise function");

const CLI::Validator kRoundingName(
    [](std::string& text) -> std::string {
      if (golden::ParseRoundingMode(text)) return {};
      return fmt::format("'{}' is unknown, valid: {}", text, golden::RoundingModeChoices());
    },
    "MODE", "rounding mode");

const CLI::Validator kCompatName(
    [](std::string& text) -> std::string {
      if (text == golden::LutModeName(golden::LutMode::kSeedCompat)) return {};
      return fmt::format("'{}' is not supported, allowed: seed", text);
    },
    "seed", "compatibility mode");

// Golden errors start with the field they reject ("out.amax: 0 is ..."). `option` names the option
// for that field; the message becomes "--option: 0 is ...".
[[noreturn]] void RethrowForOption(const std::invalid_argument& e,
                                   const std::function<std::string(const std::string&)>& option) {
  std::string what = e.what();
  const size_t colon = what.find(": ");
  std::string field;
  if (colon != std::string::npos && what.find(' ') > colon) {
    field = what.substr(0, colon);
    what.erase(0, colon + 2);
  }
  throw UsageError(fmt::format("{}: {}", option(field), what));
}

// Runs `fn`, reporting a golden error as one about `option`, keeping the golden field for context
// ("--out-amax: scale: 0 is not allowed, ...": the amax is positive but amax / qmax underflows).
template <typename Fn>
auto ForOption(const std::string& option, Fn&& fn) {
  try {
    return fn();
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: {}", option, e.what()));
  }
}

// The option that sets a LutSpec field, for errors of SeedCompatSpec and BuildLut.
std::string OptionOfField(const LutOptions& o, const std::string& field) {
  if (field == "in.bits" || field == "bits") return "--in-bits";
  if (field == "in.zero_point") return "--in-zp";
  if (field.rfind("in.", 0) == 0) return o.Given("--in-scale") ? "--in-scale" : "--in-amax";
  if (field == "out.bits") return "--out-bits";
  if (field == "out.zero_point") return "--out-zp";
  if (field == "rounding") return "--round";
  if (o.Given("--out-scale")) return "--out-scale";
  if (o.Given("--out-min")) return "--out-min";
  return "--out-amax";  // out.amax, out.scale: given or derived
}

void CheckZeroPoint(const std::string& option, int zp, int bits, bool is_signed, bool narrow) {
  const int64_t lo = golden::QMin(bits, is_signed, narrow);
  const int64_t hi = golden::QMax(bits, is_signed);
  if (zp < lo || zp > hi) {
    throw UsageError(fmt::format("{}: {} is out of range, allowed {}..{}", option, zp, lo, hi));
  }
}

// Checks that go beyond one option's value, in the order a user would fix them.
void CheckCombinations(const LutOptions& o) {
  if (!o.Given("--in-amax") && !o.Given("--in-scale")) {
    throw UsageError("--in-amax: required (or --in-scale with an optional --in-zp)");
  }
  // The original accepts narrow with unsigned specs and ignores it there: so does --compat seed.
  if (o.narrow && o.in_unsigned && o.out_unsigned && o.compat.empty()) {
    throw UsageError("--narrow: applies to signed specs only, but both are unsigned");
  }
  if (o.Given("--alpha") && o.func != "leaky_relu") {
    throw UsageError(fmt::format("--alpha: applies to leaky_relu only, not {}", o.func));
  }
  if (o.Given("--out-min") && o.out_min > o.out_max) {
    throw UsageError(
        fmt::format("--out-min: {} must not exceed --out-max {}", o.out_min, o.out_max));
  }
  if (!o.compat.empty()) {
    for (const char* option : {"--in-scale", "--out-min", "--out-scale", "--round"}) {
      if (o.Given(option)) {
        throw UsageError(
            fmt::format("{}: not available with --compat seed (the original code: symmetric "
                        "--in-amax/--out-amax, truncation)",
                        option));
      }
    }
  }
}

golden::QuantSpec InputSpec(const LutOptions& o) {
  const bool is_signed = !o.in_unsigned;
  const bool narrow = o.narrow && is_signed;
  if (o.Given("--in-amax")) {
    return ForOption("--in-amax", [&] {
      return golden::SymmetricFromAmax(o.in_amax, o.in_bits, is_signed, narrow);
    });
  }
  CheckZeroPoint("--in-zp", o.in_zp, o.in_bits, is_signed, narrow);
  return golden::QuantSpec{o.in_bits, is_signed, narrow, o.in_scale, o.in_zp};
}

// The output spec and whether it is derived; the derived scale is filled in by BuildLut.
golden::LutSpec ExactSpec(const LutOptions& o) {
  golden::LutSpec spec;
  spec.mode = golden::LutMode::kExact;
  spec.rounding = *golden::ParseRoundingMode(o.round);
  spec.in = InputSpec(o);
  const bool is_signed = !o.out_unsigned;
  const bool narrow = o.narrow && is_signed;
  if (o.Given("--out-amax")) {
    spec.out = ForOption("--out-amax", [&] {
      return golden::SymmetricFromAmax(o.out_amax, o.out_bits, is_signed, narrow);
    });
  } else if (o.Given("--out-min")) {
    spec.out = ForOption("--out-min", [&] {
      return golden::AsymmetricFromMinMax(o.out_min, o.out_max, o.out_bits, is_signed, narrow);
    });
  } else if (o.Given("--out-scale")) {
    CheckZeroPoint("--out-zp", o.out_zp, o.out_bits, is_signed, narrow);
    spec.out = golden::QuantSpec{o.out_bits, is_signed, narrow, o.out_scale, o.out_zp};
  } else {
    spec.out = golden::QuantSpec{o.out_bits, is_signed, narrow, 1.0, 0};
    spec.derive_out = true;
  }
  return spec;
}

// The original's _SymmetryQuantTable(func, input_bit, input_amax, input_unsign, output_bit,
// output_amax, output_unsign, narrow).
golden::LutSpec SeedSpec(const LutOptions& o) {
  golden::SeedLutParams params;
  params.in_bits = o.in_bits;
  params.in_amax = o.in_amax;
  params.in_unsigned = o.in_unsigned;
  params.out_bits = o.out_bits;
  if (o.Given("--out-amax")) params.out_amax = o.out_amax;
  params.out_unsigned = o.out_unsigned;
  params.narrow = o.narrow;
  return golden::SeedCompatSpec(params);
}

golden::Lut Build(const LutOptions& o, const golden::Elementwise& f) {
  const auto option = [&](const std::string& field) { return OptionOfField(o, field); };
  try {
    const golden::LutSpec spec = o.compat.empty() ? ExactSpec(o) : SeedSpec(o);
    // What can still fail here is a scale: derived from f (no --out-* given), or 0 in float32.
    return golden::BuildLut(f, spec);
  } catch (const std::invalid_argument& e) {
    RethrowForOption(e, option);
  }
}

nlohmann::json SpecJson(const golden::QuantSpec& spec) {
  return {{"bits", spec.bits},   {"signed", spec.is_signed},      {"narrow", spec.narrow},
          {"scale", spec.scale}, {"zero_point", spec.zero_point}, {"qmin", spec.qmin()},
          {"qmax", spec.qmax()}};
}

std::string SpecText(const golden::QuantSpec& spec) {
  return fmt::format("{}-bit {}{}, scale {:.9g}, zero point {}, codes {}..{}", spec.bits,
                     spec.is_signed ? "signed" : "unsigned", spec.narrow ? " narrow" : "",
                     spec.scale, spec.zero_point, spec.qmin(), spec.qmax());
}

// How the output range was chosen, for both outputs.
std::string OutputSource(const LutOptions& o, const golden::Lut& lut) {
  if (lut.out_derived()) return "derived";
  if (o.Given("--out-amax")) return "amax";
  if (o.Given("--out-min")) return "min_max";
  return "scale";
}

// How well a table represents f, measured in double over every input code (the unused narrow
// address excluded). The ideal entry is v = f(x) / s_out + z_out, x = Dequantize(q).
struct LutQuality {
  int64_t entries = 0;
  int64_t saturated = 0;       // round(f(x) / s_out) + z_out fell outside the output codes: clamped
  double max_error_lsb = 0.0;  // max |T(q) - v|
  double mean_error_lsb = 0.0;
};

LutQuality Measure(const golden::Lut& lut, const golden::Elementwise& f) {
  const golden::QuantSpec& out = lut.out();
  LutQuality quality;
  double sum = 0.0;
  for (const int32_t entry : lut.entries_by_value()) {
    const int64_t q = lut.in().qmin() + quality.entries++;
    const double scaled = f(golden::Dequantize(q, lut.in())) / out.scale;
    // Round before adding the zero point, as Quantize does (half_even depends on the parity).
    const double rounded = golden::RoundReal(scaled, lut.rounding()) + out.zero_point;
    if (rounded < static_cast<double>(out.qmin()) || rounded > static_cast<double>(out.qmax())) {
      ++quality.saturated;
    }
    const double error = std::abs(entry - (scaled + out.zero_point));
    quality.max_error_lsb = std::max(quality.max_error_lsb, error);
    sum += error;
  }
  quality.mean_error_lsb = sum / static_cast<double>(quality.entries);
  return quality;
}

// $readmemh image of the SRAM, addressed like the JSON's "sram".
std::string LutHexImage(const golden::Lut& lut) {
  const std::vector<int32_t>& by_address = lut.entries_by_address();
  return HexImage(fmt::format("qacc lut {}: {} x {} bits, address = raw input code bits",
                              lut.function_name(), lut.num_addresses(), lut.entry_bits()),
                  std::vector<int64_t>(by_address.begin(), by_address.end()), lut.entry_bits());
}

void RunLut(const LutOptions& o) {
  CheckCombinations(o);
  CheckOutputsDistinct({}, {{"--hex", o.hex_path}, {"--output", o.output.output_path}});
  std::optional<golden::Elementwise> found;
  try {
    found = golden::GetElementwise(o.func, o.alpha);
  } catch (const std::invalid_argument& e) {
    RethrowForOption(
        e, [](const std::string& field) { return field == "alpha" ? "--alpha" : "--func"; });
  }
  const golden::Elementwise& f = *found;
  const golden::Lut lut = Build(o, f);

  const LutQuality quality = Measure(lut, f);
  const std::string source = OutputSource(o, lut);
  const std::optional<uint32_t> unused = lut.unused_address();
  nlohmann::json output = SpecJson(lut.out());
  output["source"] = source;
  output["amax"] = lut.out_derived()  ? nlohmann::json(*lut.derived_out_amax())
                   : source == "amax" ? nlohmann::json(o.out_amax)
                                      : nlohmann::json(nullptr);
  if (source == "min_max") {
    output["min"] = o.out_min;
    output["max"] = o.out_max;
  }
  const nlohmann::json json = {
      {"function", f.name()},
      {"formula", f.formula()},
      {"alpha", f.takes_alpha() ? nlohmann::json(f.alpha()) : nlohmann::json(nullptr)},
      {"mode", std::string(golden::LutModeName(lut.mode()))},
      {"rounding", std::string(golden::RoundingModeName(lut.rounding()))},
      {"input", SpecJson(lut.in())},
      {"output", output},
      {"addresses", lut.num_addresses()},
      {"entry_bits", lut.entry_bits()},
      {"bits", lut.size_bits()},
      {"bytes", lut.size_bytes()},
      {"unused_address", unused ? nlohmann::json(*unused) : nlohmann::json(nullptr)},
      {"saturated", quality.saturated},
      {"error_lsb", {{"max", quality.max_error_lsb}, {"mean", quality.mean_error_lsb}}},
      {"table", lut.entries_by_value()},
      {"sram", lut.entries_by_address()},
      {"sram_words", lut.SramWords()},
  };

  std::string human = fmt::format("lut {}: {}{}\n", f.name(), f.formula(),
                                  f.takes_alpha() ? fmt::format(", alpha {}", f.alpha()) : "");
  human += fmt::format("mode      {}, rounding {}\n", golden::LutModeName(lut.mode()),
                       golden::RoundingModeName(lut.rounding()));
  human += fmt::format("input     {}\n", SpecText(lut.in()));
  human +=
      fmt::format("output    {} ({}{})\n", SpecText(lut.out()), source,
                  lut.out_derived() ? fmt::format(", amax {:.9g}", *lut.derived_out_amax()) : "");
  human += fmt::format("memory    {} addresses x {} bits = {} bits = {} bytes\n",
                       lut.num_addresses(), lut.entry_bits(), lut.size_bits(), lut.size_bytes());
  if (!o.compat.empty() && o.narrow && (o.in_unsigned || o.out_unsigned)) {
    human += fmt::format(
        "narrow    no effect on the unsigned {} (codes 0..2^bits - 1), as in the original\n",
        o.in_unsigned && o.out_unsigned ? "input and output"
        : o.in_unsigned                 ? "input"
                                        : "output");
  }
  human += unused ? fmt::format("unused    address {} (pattern of {}), holds the entry of {}\n",
                                *unused, golden::QMin(lut.in().bits, true), lut.in().qmin())
                  : std::string("unused    none\n");
  human += fmt::format("saturated {} of {} entries (quantize(f(x)) clamped to the output codes)\n",
                       quality.saturated, quality.entries);
  human += fmt::format(
      "error     max {:.6g} LSB, mean {:.6g} LSB (|T(q) - (f(x) / scale + zero point)|, f in "
      "double)\n",
      quality.max_error_lsb, quality.mean_error_lsb);
  human += "table     q -> y (ascending q)\n";
  const int64_t qmin = lut.in().qmin();
  for (size_t i = 0; i < lut.entries_by_value().size(); ++i) {
    human +=
        fmt::format("{:>6} -> {}\n", qmin + static_cast<int64_t>(i), lut.entries_by_value()[i]);
  }
  std::vector<OutputFile> files;
  if (!o.hex_path.empty()) files.push_back({"--hex", o.hex_path, LutHexImage(lut)});
  WriteFilesThenEmit(files, [&] { Emit(o.output, human, json); });
  // On stderr, so stdout and -o stay one clean document.
  if (quality.saturated > 0) {
    fmt::print(stderr,
               "qacc: warning: lut {}: {} of {} entries saturated (quantize(f(x)) clamped to the "
               "output codes {}..{}); max error {:.3g} LSB\n",
               f.name(), quality.saturated, quality.entries, lut.out().qmin(), lut.out().qmax(),
               quality.max_error_lsb);
  }
}

}  // namespace

void RegisterLutCommand(CLI::App& app) {
  auto options = std::make_shared<LutOptions>();
  CLI::App* cmd =
      app.add_subcommand("lut",
                         "Lookup table of an activation: T(q) = quantize(f(dequantize(q))) for "
                         "every input code, by value and as the SRAM image addressed by the "
                         "code's raw bits");
  options->cmd = cmd;
  cmd->add_option("--func", options->func, "Function: " + golden::ElementwiseChoices())
      ->required()
      ->check(kFunctionName);
  cmd->add_option("--alpha", options->alpha, "leaky_relu negative slope (default 0.01)")
      ->check(kFinite);
  cmd->add_option("--in-bits", options->in_bits,
                  "Input bits, 2..8: the table SRAM is addressed by an int8 code (qacc "
                  "table-memory sizes wider tables)")
      ->required()
      ->check(IntRange(golden::kMinLutInBits, golden::kMaxLutInBits));
  auto* in_amax = cmd->add_option("--in-amax", options->in_amax,
                                  "Input amax: scale = amax / qmax, zero point 0")
                      ->check(kPositiveFinite);
  auto* in_scale =
      cmd->add_option("--in-scale", options->in_scale, "Input scale (instead of --in-amax)")
          ->check(kPositiveFinite)
          ->excludes(in_amax);
  cmd->add_option("--in-zp", options->in_zp,
                  "Input zero point (with --in-scale), within the input codes")
      ->needs(in_scale);
  cmd->add_flag("--in-unsigned", options->in_unsigned, "Unsigned input codes 0..2^bits - 1");
  cmd->add_option("--out-bits", options->out_bits, "Output (entry) bits, 2..16")
      ->required()
      ->check(IntRange(golden::kMinQuantBits, golden::kMaxQuantBits));
  auto* out_amax =
      cmd->add_option(
             "--out-amax", options->out_amax,
             "Output amax: scale = amax / qmax (default: derived, max |f| over the inputs)")
          ->check(kPositiveFinite);
  auto* out_min =
      cmd->add_option("--out-min", options->out_min, "Output minimum (asymmetric, with --out-max)")
          ->check(kFinite)
          ->excludes(out_amax);
  auto* out_max =
      cmd->add_option("--out-max", options->out_max, "Output maximum (asymmetric, with --out-min)")
          ->check(kFinite)
          ->excludes(out_amax);
  out_min->needs(out_max);
  out_max->needs(out_min);
  auto* out_scale = cmd->add_option("--out-scale", options->out_scale, "Output scale")
                        ->check(kPositiveFinite)
                        ->excludes(out_amax)
                        ->excludes(out_min)
                        ->excludes(out_max);
  cmd->add_option("--out-zp", options->out_zp,
                  "Output zero point (with --out-scale), within the output codes")
      ->needs(out_scale);
  cmd->add_flag("--out-unsigned", options->out_unsigned, "Unsigned output codes 0..2^bits - 1");
  cmd->add_flag("--narrow", options->narrow,
                "Narrow range for every signed spec: qmin = -2^(bits-1) + 1 (no effect on an "
                "unsigned spec; with --compat seed also allowed when both are unsigned)");
  cmd->add_option(
         "--round", options->round,
         "Rounding of f(x) / scale: " + golden::RoundingModeChoices() + " (default half_even)")
      ->check(kRoundingName);
  cmd->add_option("--compat", options->compat,
                  "seed: reproduce, bit for bit, the original float32 PyTorch code of the LUT "
                  "article that qacc's design follows (truncation, float32 scales; docs/lut.md "
                  "'Seed-compatible mode'): --in-amax, optional --out-amax, any widths and "
                  "signedness it accepts (an unsigned output has 2..8 bits). Not related to a "
                  "random seed")
      ->check(kCompatName);
  cmd->add_option("--hex", options->hex_path,
                  "Also write the SRAM image to FILE for $readmemh: one hex word per line, "
                  "address = raw input code bits (docs/lut.md)")
      ->type_name("FILE");
  AddOutputOptions(cmd, &options->output);
  cmd->callback([options]() { RunLut(*options); });
}

}  // namespace qacc::cli
