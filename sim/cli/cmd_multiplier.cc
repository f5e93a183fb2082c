// qacc multiplier: a real requantization scale as the integers the hardware uses:
//   TFLite    real ~= multiplier * 2^(shift - 31), multiplier Q31 in [2^30, 2^31), shift -31..30
//   rshift    real ~= multiplier / 2^rshift, multiplier a signed 8/16/32-bit integer, rshift 0..62,
//             derived either exactly (qacc's default: rounded, the largest rshift that fits) or, with
//             --compat tpu-mlir, as TPU-MLIR's getRShiftAndMultiplierFromQScale does (truncated, the
//             smallest rshift that reaches max / 2; --qdm for its Q31 mode)
// with the effective scale each pair encodes and its relative error (effective - real) / real.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/requant.h"
#include "golden/tpu_mlir.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"

namespace qacc::cli {

namespace {

struct MultiplierOptions {
  double scale = 0.0;
  std::string compat = "exact";
  int bits = 0;                // 0: every width in kMultiplierRshiftBits (exact) / 8 and uint8 (tpu-mlir)
  int64_t max_multiplier = 0;  // tpu-mlir only; 0: not given
  bool qdm = false;
  OutputOptions output;
};

const CLI::Validator kMultiplierBits(
    [](std::string& text) -> std::string {
      for (int bits : golden::kMultiplierRshiftBits) {
        if (text == std::to_string(bits)) return {};
      }
      return fmt::format("{} is not allowed, must be 8, 16 or 32", text);
    },
    "8|16|32", "multiplier bits");

// (effective - real) / real; a zero scale has none (JSON null, text "n/a").
nlohmann::json RelativeError(double effective, double real) {
  if (real == 0.0) return nullptr;
  return (effective - real) / real;
}
std::string RelativeErrorText(double effective, double real) {
  if (real == 0.0) return "n/a";
  return fmt::format("{:.3e}", (effective - real) / real);
}

// Golden errors start with the field name ("scale: ..."), which here is the option "--scale".
[[noreturn]] void RethrowAsOption(const std::invalid_argument& e) {
  throw UsageError(fmt::format("--{}", e.what()));
}

// The TFLite pair; with `fatal` false a scale TFLite cannot represent is reported, not an error.
void AddTflite(double scale, bool fatal, nlohmann::json& json, std::string& human) {
  human += "TFLite    real = multiplier * 2^(shift - 31)\n";
  golden::QuantizedMultiplier tflite;
  try {
    tflite = golden::QuantizeMultiplier(scale);
  } catch (const std::invalid_argument& e) {
    if (fatal) RethrowAsOption(e);
    json["tflite"] = {{"error", e.what()}};
    human += fmt::format("  not representable: {}\n", e.what());
    return;
  }
  const double effective = golden::EffectiveScale(tflite);
  json["tflite"] = {{"multiplier", tflite.multiplier},
                    {"shift", tflite.shift},
                    {"effective_scale", effective},
                    {"relative_error", RelativeError(effective, scale)}};
  human += fmt::format("  multiplier {}  shift {}  effective {}  relative error {}{}\n",
                       tflite.multiplier, tflite.shift, effective, RelativeErrorText(effective, scale),
                       tflite.multiplier == 0 && scale != 0.0 ? "  (flushed: shift would be < -31)" : "");
}

void AddExact(const MultiplierOptions& options, nlohmann::json& json, std::string& human) {
  const double scale = options.scale;
  json["exact_rshift"] = nlohmann::json::array();
  human += "rshift    real = multiplier / 2^rshift, exact: rounded, the largest rshift that fits\n";
  human += fmt::format("  {:>4}  {:>10}  {:>6}  {:<24}  {}\n", "bits", "multiplier", "rshift",
                       "effective", "relative error");
  std::vector<int> widths(std::begin(golden::kMultiplierRshiftBits),
                          std::end(golden::kMultiplierRshiftBits));
  if (options.bits != 0) widths = {options.bits};
  for (int bits : widths) {
    golden::MultiplierRshift exact;
    try {
      exact = golden::QuantizeMultiplierRshift(scale, bits);
    } catch (const std::invalid_argument& e) {
      if (options.bits != 0) RethrowAsOption(e);  // the one width asked for must exist
      json["exact_rshift"].push_back({{"bits", bits}, {"error", e.what()}});
      human += fmt::format("  {:>4}  not representable: {}\n", bits, e.what());
      continue;
    }
    const double effective = golden::EffectiveScale(exact);
    json["exact_rshift"].push_back({{"bits", bits},
                                    {"multiplier", exact.multiplier},
                                    {"rshift", exact.rshift},
                                    {"effective_scale", effective},
                                    {"relative_error", RelativeError(effective, scale)}});
    human += fmt::format("  {:>4}  {:>10}  {:>6}  {:<24}  {}\n", bits, exact.multiplier,
                         exact.rshift, effective, RelativeErrorText(effective, scale));
  }
}

void AddTpuMlir(const MultiplierOptions& options, nlohmann::json& json, std::string& human) {
  const double scale = options.scale;
  if (options.qdm) {
    const golden::tpu_mlir::QdmMultiplier qdm = golden::tpu_mlir::QdmMultiplierFromQScale(scale);
    const double effective = std::ldexp(double(qdm.multiplier), -(31 + qdm.rshift));
    json["tpu_mlir_qdm"] = {{"multiplier", qdm.multiplier},
                            {"rshift", qdm.rshift},
                            {"effective_scale", effective},
                            {"relative_error", RelativeError(effective, scale)}};
    human += "TPU-MLIR  qdm: real = multiplier * 2^-(31 + rshift), scale >= 1 clamped to 0.999999\n";
    human += fmt::format("  multiplier {}  rshift {}  effective {}  relative error {}\n",
                         qdm.multiplier, qdm.rshift, effective, RelativeErrorText(effective, scale));
    return;
  }
  std::vector<int64_t> maxima = {golden::tpu_mlir::kInt8MaxMultiplier,
                                 golden::tpu_mlir::kUint8MaxMultiplier};
  if (options.bits != 0) maxima = {(int64_t{1} << (options.bits - 1)) - 1};
  if (options.max_multiplier != 0) maxima = {options.max_multiplier};
  json["tpu_mlir"] = nlohmann::json::array();
  human +=
      "TPU-MLIR  real = multiplier / 2^rshift, getRShiftAndMultiplierFromQScale: truncated, the "
      "smallest rshift with scale * 2^(rshift + 1) >= max\n";
  human += fmt::format("  {:>10}  {:>10}  {:>6}  {:<24}  {}\n", "max", "multiplier", "rshift",
                       "effective", "relative error");
  for (int64_t max : maxima) {
    const golden::tpu_mlir::RShiftMultiplier tpu =
        golden::tpu_mlir::RShiftAndMultiplierFromQScale(scale, max);
    const double effective = std::ldexp(double(tpu.multiplier), -tpu.rshift);
    json["tpu_mlir"].push_back({{"max_multiplier", max},
                                {"multiplier", tpu.multiplier},
                                {"rshift", tpu.rshift},
                                {"saturated", tpu.saturated},
                                {"effective_scale", effective},
                                {"relative_error", RelativeError(effective, scale)}});
    std::string note;
    if (tpu.saturated) note = "  (saturated: scale > max)";
    if (tpu.multiplier == 0 && scale != 0.0) note = "  (flushed: no rshift 0..62 reaches max / 2)";
    human += fmt::format("  {:>10}  {:>10}  {:>6}  {:<24}  {}{}\n", max, tpu.multiplier, tpu.rshift,
                         effective, RelativeErrorText(effective, scale), note);
  }
}

void RunMultiplier(const MultiplierOptions& options) {
  const bool tpu_mlir = options.compat == "tpu-mlir";
  if (!tpu_mlir && (options.max_multiplier != 0 || options.qdm)) {
    throw UsageError("--max-multiplier and --qdm are TPU-MLIR's: only with --compat tpu-mlir");
  }
  if (options.max_multiplier != 0 && (options.bits != 0 || options.qdm)) {
    throw UsageError("--max-multiplier: not with --bits or --qdm (each sets the maximum)");
  }
  if (options.qdm && options.bits != 0) {
    throw UsageError("--bits: not with --qdm (its multiplier is always Q31)");
  }
  nlohmann::json json = {{"scale", options.scale}, {"compat", options.compat}};
  std::string human = fmt::format("scale {}\n", options.scale);
  AddTflite(options.scale, /*fatal=*/!tpu_mlir, json, human);
  if (tpu_mlir) {
    AddTpuMlir(options, json, human);
  } else {
    AddExact(options, json, human);
  }
  Emit(options.output, human, json);
}

}  // namespace

void RegisterMultiplierCommand(CLI::App& app) {
  auto options = std::make_shared<MultiplierOptions>();
  CLI::App* cmd = app.add_subcommand(
      "multiplier",
      "Integer multiplier and shift for a requantization scale: TFLite (Q31 multiplier, shift) and "
      "multiplier / 2^rshift, derived exactly (default) or as TPU-MLIR does (--compat tpu-mlir), "
      "with effective scale and relative error");
  cmd->add_option("--scale", options->scale,
                  "Real scale, >= 0 (0: multiplier 0, a dead channel); TFLite needs it below 2^30 - "
                  "2^-2 (its largest shift is 30) and flushes tiny scales to 0")
      ->required()
      ->check(kNonNegativeFinite);
  cmd->add_option("--compat", options->compat,
                  "exact: qacc's derivation (rounded, the largest rshift that fits); tpu-mlir: "
                  "TPU-MLIR's getRShiftAndMultiplierFromQScale, bit for bit (docs/requant.md)")
      ->check(CLI::IsMember({"exact", "tpu-mlir"}));
  cmd->add_option(
         "--bits", options->bits,
         "Only this multiplier width (8, 16 or 32): exact, which must then represent the scale; "
         "tpu-mlir, the maximum 2^(bits-1) - 1. Default: all three (exact), 127 and 255 (tpu-mlir)")
      ->check(kMultiplierBits);
  cmd->add_option("--max-multiplier", options->max_multiplier,
                  "With --compat tpu-mlir: the largest multiplier, as its max_multiplier argument")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 62));
  cmd->add_flag("--qdm", options->qdm,
                "With --compat tpu-mlir: its qdm mode (Q31 multiplier, scale >= 1 clamped)");
  AddOutputOptions(cmd, &options->output);
  cmd->callback([options]() { RunMultiplier(*options); });
}

}  // namespace qacc::cli
