// qacc multiplier: a real requantization scale as the integers the hardware uses, in both
// conventions:
//   TFLite    real ~= multiplier * 2^(shift - 31), multiplier Q31 in [2^30, 2^31), shift -31..30
//   TPU-MLIR  real ~= multiplier / 2^rshift, multiplier a signed 8/16/32-bit integer, rshift 0..62
// with the effective scale each pair encodes and its relative error (effective - real) / real.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/requant.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"

namespace qacc::cli {

namespace {

struct MultiplierOptions {
  double scale = 0.0;
  int bits = 0;  // 0: every width in kMultiplierRshiftBits
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

double RelativeError(double effective, double real) { return (effective - real) / real; }

// Golden errors start with the field name ("scale: ..."), which here is the option "--scale".
[[noreturn]] void RethrowAsOption(const std::invalid_argument& e) {
  throw UsageError(fmt::format("--{}", e.what()));
}

void RunMultiplier(const MultiplierOptions& options) {
  const double scale = options.scale;
  golden::QuantizedMultiplier tflite;
  try {
    tflite = golden::QuantizeMultiplier(scale);
  } catch (const std::invalid_argument& e) {
    RethrowAsOption(e);
  }
  const double tflite_effective = golden::EffectiveScale(tflite);
  nlohmann::json json = {{"scale", scale},
                         {"tflite",
                          {{"multiplier", tflite.multiplier},
                           {"shift", tflite.shift},
                           {"effective_scale", tflite_effective},
                           {"relative_error", RelativeError(tflite_effective, scale)}}},
                         {"tpu_mlir", nlohmann::json::array()}};
  std::string human = fmt::format("scale {}\n", scale);
  human += "TFLite    real = multiplier * 2^(shift - 31)\n";
  human += fmt::format("  multiplier {}  shift {}  effective {}  relative error {:.3e}{}\n",
                       tflite.multiplier, tflite.shift, tflite_effective,
                       RelativeError(tflite_effective, scale),
                       tflite.multiplier == 0 ? "  (flushed: shift would be < -31)" : "");
  human += "TPU-MLIR  real = multiplier / 2^rshift\n";
  human += fmt::format("  {:>4}  {:>10}  {:>6}  {:<24}  {}\n", "bits", "multiplier", "rshift",
                       "effective", "relative error");

  std::vector<int> widths(std::begin(golden::kMultiplierRshiftBits),
                          std::end(golden::kMultiplierRshiftBits));
  if (options.bits != 0) widths = {options.bits};
  for (int bits : widths) {
    golden::MultiplierRshift tpu;
    try {
      tpu = golden::QuantizeMultiplierRshift(scale, bits);
    } catch (const std::invalid_argument& e) {
      if (options.bits != 0) RethrowAsOption(e);  // the one width asked for must exist
      json["tpu_mlir"].push_back({{"bits", bits}, {"error", e.what()}});
      human += fmt::format("  {:>4}  not representable: {}\n", bits, e.what());
      continue;
    }
    const double effective = golden::EffectiveScale(tpu);
    json["tpu_mlir"].push_back({{"bits", bits},
                                {"multiplier", tpu.multiplier},
                                {"rshift", tpu.rshift},
                                {"effective_scale", effective},
                                {"relative_error", RelativeError(effective, scale)}});
    human += fmt::format("  {:>4}  {:>10}  {:>6}  {:<24}  {:.3e}\n", bits, tpu.multiplier,
                         tpu.rshift, effective, RelativeError(effective, scale));
  }
  Emit(options.output, human, json);
}

}  // namespace

void RegisterMultiplierCommand(CLI::App& app) {
  auto options = std::make_shared<MultiplierOptions>();
  CLI::App* cmd = app.add_subcommand(
      "multiplier",
      "Integer multiplier and shift for a requantization scale: TFLite (Q31 multiplier, shift) and "
      "TPU-MLIR "
      "(multiplier, rshift) for 8/16/32-bit multipliers, with effective scale and relative error");
  cmd->add_option("--scale", options->scale,
                  "Real scale, > 0 and below 2^30 - 2^-2 (the largest TFLite shift is 30); tiny "
                  "scales flush to 0")
      ->required()
      ->check(kPositiveFinite);
  cmd->add_option(
         "--bits", options->bits,
         "Only this TPU-MLIR multiplier width (8, 16 or 32), which must then represent the scale; "
         "default: all three, marking a width that cannot")
      ->check(kMultiplierBits);
  AddOutputOptions(cmd, &options->output);
  cmd->callback([options]() { RunMultiplier(*options); });
}

}  // namespace qacc::cli
