// qacc apply OPERATOR INPUT.npy -o OUTPUT.npy: one quantized operator of the golden reference over
// a real tensor of integer codes (docs/apply.md). The output codes go to a .npy file (written
// atomically: a failed command leaves none); standard output gets a summary, and with --report the
// error against the float operator on the dequantized input (apply_report.h), as text or --json.
// Bad input (a float dtype, codes outside the input spec, a per-channel axis that does not fit)
// names the file and the field and exits with 2 before anything is written.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "golden/add.h"
#include "golden/elementwise.h"
#include "golden/lut.h"
#include "golden/pad.h"
#include "golden/pool.h"
#include "golden/quant.h"
#include "golden/requant.h"
#include "golden/softmax.h"
#include "golden/tpu_mlir.h"
#include "sim/cli/apply_ops.h"
#include "sim/cli/apply_report.h"
#include "sim/cli/apply_tensor.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cli/path_identity.h"
#include "sim/cli/spec_options.h"

namespace qacc::cli {

namespace {

struct ApplyCommon {
  std::string input;
  std::string output;
  bool report = false;
  bool json = false;
};

void AddCommonOptions(CLI::App* cmd, ApplyCommon* common) {
  cmd->add_option("input", common->input,
                  "Input codes: .npy of int8, uint8, int16, uint16 or int32")
      ->required();
  cmd->add_option("-o,--output", common->output,
                  "Output codes: .npy file (the smallest integer dtype holding the output codes)")
      ->required()
      ->check(kNonEmpty)
      ->check(CLI::Validator(
          [](const std::string& path) {
            return path == "-" ? std::string(
                                     "the .npy output cannot be standard output, which "
                                     "carries the summary and report")
                               : std::string();
          },
          "FILE.npy", "not -"));
  cmd->add_flag("--report", common->report,
                "Report the error against the float operator on the dequantized input");
  cmd->add_flag("--json", common->json, "Print the summary (and report) as one JSON document");
}

// Before any input is read: the output file can be written and is none of the inputs.
void CheckOutput(const ApplyCommon& common, const std::string& input2 = "") {
  CheckOutputsDistinct({{"input", common.input}, {"input2", input2}},
                       {{"--output", common.output}});
  CheckOutputPath(common.output, "--output");
}

// Writes the output codes; prints the summary and, with --report, the error report.
void Finish(const ApplyCommon& common, const std::string& op_name, const std::string& details,
            const CodeTensor& input, const ApplyResult& result) {
  const std::string bytes = SerializeCodes(result.shape, result.codes, result.qmin, result.qmax);
  WriteFileAtomically(common.output, bytes);
  const golden::NpyDtype dtype = DtypeFor(result.qmin, result.qmax);
  nlohmann::json json = {{"operator", op_name},
                         {"details", details},
                         {"input",
                          {{"path", common.input},
                           {"shape", input.shape},
                           {"dtype", golden::NpyDtypeName(input.dtype)}}},
                         {"output",
                          {{"path", common.output},
                           {"shape", result.shape},
                           {"dtype", golden::NpyDtypeName(dtype)},
                           {"codes", {result.qmin, result.qmax}}}},
                         {"report", nullptr}};
  std::string text = fmt::format("apply {}: {}\n", op_name, details);
  text += fmt::format("input     {} (shape {}, {})\n", common.input,
                      golden::ShapeString(input.shape), golden::NpyDtypeName(input.dtype));
  text += fmt::format("output    {} (shape {}, {}, codes {}..{})\n", common.output,
                      golden::ShapeString(result.shape), golden::NpyDtypeName(dtype), result.qmin,
                      result.qmax);
  if (common.report) {
    ApplyErrorReport report(result.qmin, result.qmax);
    for (size_t i = 0; i < result.codes.size(); ++i) report.Add(result.codes[i], result.ref[i]);
    json["report"] = report.Json();
    text += report.Text();
  }
  OutputOptions output;
  output.json = common.json;
  Emit(output, text, json);
}

// ---- requant
struct RequantArgs {
  ApplyCommon common;
  std::vector<double> scales;
  std::vector<int64_t> multipliers, shifts, rshifts;
  int axis = -1;
  std::string rounding = "double";
  std::string compat;  // empty: qacc's (TFLite-convention) requantization; "tpu-mlir"
  int64_t max_multiplier = golden::tpu_mlir::kInt8MaxMultiplier;
  std::string tpu_rounding = "half_up";
  bool rounding_given = false, max_given = false, tpu_rounding_given = false;
  SpecArgs out{"out"};
};

void RunRequant(const RequantArgs& args) {
  const bool tpu_mlir = args.compat == "tpu-mlir";
  if (tpu_mlir && (args.rounding_given || !args.shifts.empty())) {
    throw UsageError(
        "--rounding and --shift are of the Q31 convention: with --compat tpu-mlir use --tpu-rounding and "
        "--rshift");
  }
  if (!tpu_mlir && (args.max_given || args.tpu_rounding_given || !args.rshifts.empty())) {
    throw UsageError("--max-multiplier, --tpu-rounding and --rshift: only with --compat tpu-mlir");
  }
  const RequantSetup setup =
      tpu_mlir ? MakeTpuMlirRequantSetup(args.scales, args.multipliers, args.rshifts,
                                         args.max_multiplier, args.tpu_rounding, MakeSpec(args.out))
               : MakeRequantSetup(args.scales, args.multipliers, args.shifts, args.rounding,
                                  MakeSpec(args.out));
  CheckOutput(args.common);
  const CodeTensor input =
      ReadCodes(args.common.input, "input", INT32_MIN, INT32_MAX, "the int32 accumulators");
  const ApplyResult result = ApplyRequant(input, setup, args.axis);
  Finish(args.common, "requant", setup.description, input, result);
}

void RegisterRequant(CLI::App* apply) {
  auto args = std::make_shared<RequantArgs>();
  CLI::App* cmd = apply->add_subcommand(
      "requant", "Requantize int32 accumulators: multiplier and shift per tensor or per channel");
  AddCommonOptions(cmd, &args->common);
  cmd->add_option("--scale", args->scales,
                  "Real multiplier(s) S_acc / S_y, >= 0 (0: a dead channel, output the zero point): "
                  "one per tensor, or one per channel along --axis (comma-separated); turned into "
                  "multiplier and shift as TFLite does (or as TPU-MLIR, with --compat tpu-mlir)")
      ->delimiter(',')
      ->check(kNonNegativeFinite);
  cmd->add_option("--multiplier", args->multipliers,
                  "Multiplier(s) instead of --scale: Q31, 0 or 2^30..2^31-1, with --shift; any int32 "
                  "with --rshift (--compat tpu-mlir)")
      ->delimiter(',');
  cmd->add_option("--shift", args->shifts, "Shift(s) -31..30 of the multipliers (left when > 0)")
      ->delimiter(',');
  cmd->add_option("--axis", args->axis,
                  "Per-channel axis of the input (negative counts from the end; default -1, the "
                  "last axis)")
      ->capture_default_str();
  cmd->add_option("--rounding", args->rounding, "double (TFLite, the default) or single")
      ->capture_default_str();
  cmd->add_option("--compat", args->compat,
                  "tpu-mlir: TPU-MLIR's requantization bit for bit (docs/requant.md 5): --scale "
                  "derived by getRShiftAndMultiplierFromQScale, applied by applyMultiplierAndRShift")
      ->check(CLI::IsMember({"tpu-mlir"}));
  cmd->add_option("--max-multiplier", args->max_multiplier,
                  "With --compat tpu-mlir: the largest multiplier of the derivation (127: int8, 255: "
                  "uint8)")
      ->check(CLI::Range(int64_t{1}, int64_t{INT32_MAX}))
      ->capture_default_str();
  cmd->add_option("--rshift", args->rshifts,
                  "With --compat tpu-mlir and --multiplier: right shift(s) 0..63 instead of --scale")
      ->delimiter(',');
  cmd->add_option("--tpu-rounding", args->tpu_rounding,
                  "With --compat tpu-mlir: " + golden::tpu_mlir::RoundingChoices())
      ->capture_default_str();
  AddSpecOptions(cmd, &args->out, /*scale_needed=*/false);
  cmd->callback([cmd, args] {
    args->rounding_given = cmd->count("--rounding") > 0;
    args->max_given = cmd->count("--max-multiplier") > 0;
    args->tpu_rounding_given = cmd->count("--tpu-rounding") > 0;
    RunRequant(*args);
  });
}

// "--compat seed" or the exact default; anything else names the option.
bool SeedCompat(const std::string& compat) {
  if (compat != "none" && compat != "seed") {
    throw UsageError(fmt::format(
        "--compat: '{}' is not one of none, seed (seed: the float32 arithmetic of the original "
        "Python code of the LUT/softmax article, docs/lut.md)",
        compat));
  }
  return compat == "seed";
}

golden::RoundingMode ParseRounding(const std::string& name) {
  const auto mode = golden::ParseRoundingMode(name);
  if (!mode) {
    throw UsageError(
        fmt::format("--round: '{}' is not one of {}", name, golden::RoundingModeChoices()));
  }
  return *mode;
}

// Usage errors of the golden builders (std::invalid_argument naming a field) keep their text.
template <typename F>
auto Build(const std::string& what, F f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: {}", what, e.what()));
  }
}

// ---- lut
struct LutArgs {
  ApplyCommon common;
  std::string func;
  double alpha = golden::kDefaultLeakyReluAlpha;
  std::string round = "half_even";
  std::string compat = "none";
  SpecArgs in{"in"}, out{"out"};
  const CLI::Option* round_option = nullptr;
  const CLI::Option* alpha_option = nullptr;
};

// The original's parameters (golden::SeedLutParams): amax only, one narrow flag, truncation.
golden::LutSpec SeedLutSpec(const LutArgs& args) {
  for (const CLI::Option* given :
       {args.in.scale_option, args.in.zp_option, args.out.scale_option, args.out.zp_option}) {
    if (given->count() > 0) {
      throw UsageError(
          fmt::format("{}: not with --compat seed (the original takes --in-amax and "
                      "optionally --out-amax; zero points are 0)",
                      given->get_name()));
    }
  }
  if (args.in.amax_option->count() == 0) throw UsageError("--in-amax: required with --compat seed");
  if (args.in.narrow != args.out.narrow) {
    throw UsageError(
        "--in-narrow and --out-narrow: the original has one narrow flag for both "
        "specs; give both or neither with --compat seed");
  }
  if (args.round_option->count() > 0) {
    throw UsageError("--round: not with --compat seed (the original truncates)");
  }
  golden::SeedLutParams seed;
  seed.in_bits = args.in.bits;
  seed.in_amax = args.in.amax;
  seed.in_unsigned = args.in.is_unsigned;
  seed.out_bits = args.out.bits;
  if (args.out.amax_option->count() > 0) seed.out_amax = args.out.amax;
  seed.out_unsigned = args.out.is_unsigned;
  seed.narrow = args.in.narrow;
  return Build("--compat seed", [&] { return golden::SeedCompatSpec(seed); });
}

void RunLut(const LutArgs& args) {
  const golden::Elementwise f =
      Build("--func", [&] { return golden::GetElementwise(args.func, args.alpha); });
  if (args.alpha_option->count() > 0 && !f.takes_alpha()) {
    throw UsageError(fmt::format("--alpha: applies to leaky_relu only, not {}", args.func));
  }
  golden::LutSpec spec;
  if (SeedCompat(args.compat)) {
    spec = SeedLutSpec(args);
  } else {
    spec.in = MakeSpec(args.in);
    spec.out = MakeSpec(args.out);
    spec.derive_out = args.out.scale_option->count() == 0 && args.out.amax_option->count() == 0;
    spec.rounding = ParseRounding(args.round);
  }
  const golden::Lut lut = Build("lut", [&] { return golden::BuildLut(f, spec); });
  CheckOutput(args.common);
  const golden::QuantSpec& in = lut.in();
  const CodeTensor input =
      ReadCodes(args.common.input, "input", in.qmin(), in.qmax(),
                fmt::format("the {}-bit {}{} input codes", in.bits, in.narrow ? "narrow " : "",
                            in.is_signed ? "signed" : "unsigned"));
  const std::string details = fmt::format(
      "{} ({}), {} mode, rounding {}, input scale {:.9g} zero point {}, output {}-bit {} scale "
      "{:.9g} zero point {}{}",
      f.name(), f.formula(), golden::LutModeName(lut.mode()),
      golden::RoundingModeName(lut.rounding()), in.scale, in.zero_point, lut.out().bits,
      lut.out().is_signed ? "signed" : "unsigned", lut.out().scale, lut.out().zero_point,
      lut.out_derived() ? " (derived)" : "");
  Finish(args.common, "lut", details, input, ApplyLut(input, lut, f));
}

void RegisterLut(CLI::App* apply) {
  auto args = std::make_shared<LutArgs>();
  CLI::App* cmd = apply->add_subcommand(
      "lut", "Elementwise function by table lookup: quantize(f(dequantize(q))) for every code");
  AddCommonOptions(cmd, &args->common);
  cmd->add_option("--func", args->func, "Function: " + golden::ElementwiseChoices())->required();
  args->alpha_option =
      cmd->add_option("--alpha", args->alpha, "leaky_relu only: negative slope (default 0.01)")
          ->check(kFinite);
  AddSpecOptions(cmd, &args->in, /*scale_needed=*/true, golden::kMaxLutInBits);
  AddSpecOptions(cmd, &args->out, /*scale_needed=*/false);
  args->round_option = cmd->add_option(
      "--round", args->round,
      "Rounding of f(x) / S_y: " + golden::RoundingModeChoices() + " (default half_even)");
  cmd->add_option("--compat", args->compat,
                  "seed: the float32 arithmetic of the original Python code of the LUT article "
                  "(docs/lut.md); none (default): exact");
  cmd->callback([args] { RunLut(*args); });
}

// ---- softmax
struct SoftmaxArgs {
  ApplyCommon common;
  int acc_bits = 32;
  std::string round = "nearest", div = "nearest", offset = "rowmax";
  std::string compat = "none";
  SpecArgs in{"in"}, out{"out"};
  std::vector<const CLI::Option*> seed_fixed;  // --round, --div, --offset: --compat seed fixes them
};

void RunSoftmax(const SoftmaxArgs& args) {
  const golden::QuantSpec in = MakeSpec(args.in), out = MakeSpec(args.out);
  CheckOutput(args.common);
  const CodeTensor input =
      ReadCodes(args.common.input, "input", in.qmin(), in.qmax(),
                fmt::format("the {}-bit {}{} input codes", in.bits, in.narrow ? "narrow " : "",
                            in.is_signed ? "signed" : "unsigned"));
  if (input.shape.empty() || input.shape.back() == 0) {
    throw UsageError(fmt::format("input: {}: shape {} has no last axis to take the softmax along",
                                 args.common.input, golden::ShapeString(input.shape)));
  }
  golden::SoftmaxParams params;
  params.n = static_cast<int>(std::min<int64_t>(input.shape.back(), INT32_MAX));
  params.in = in;
  params.out = out;
  params.acc_bits = args.acc_bits;
  params.table_rounding = args.round == "trunc" ? golden::RoundingMode::kTowardZero
                                                : golden::RoundingMode::kHalfAwayFromZero;
  params.div_rounding = *golden::ParseDivRounding(args.div);
  params.offset = *golden::ParseSoftmaxOffset(args.offset);
  if (SeedCompat(args.compat)) {
    for (const CLI::Option* given : args.seed_fixed) {
      if (given->count() > 0) {
        throw UsageError(fmt::format(
            "{}: not with --compat seed, which fixes the original's trunc tables, floor division "
            "and qmax offset",
            given->get_name()));
      }
    }
    params = golden::WithSeedCompat(params);
  }
  const golden::SoftmaxTables tables =
      Build(fmt::format("softmax of rows of {} (the last axis of {})", input.shape.back(),
                        args.common.input),
            [&] { return golden::BuildSoftmaxTables(params); });
  const std::string details = fmt::format(
      "rows of n = {} along the last axis, {} mode (tables {}, division {}, offset {}), acc_bits "
      "{}, input scale {:.9g}, output {}-bit {} scale {:.9g} zero point {}",
      params.n, golden::IsSeedCompat(params) ? "seed" : "exact",
      golden::RoundingModeName(params.table_rounding), golden::DivRoundingName(params.div_rounding),
      golden::SoftmaxOffsetName(params.offset), params.acc_bits, in.scale, out.bits,
      out.is_signed ? "signed" : "unsigned", out.scale, out.zero_point);
  Finish(args.common, "softmax", details, input, ApplySoftmax(input, tables));
}

void RegisterSoftmax(CLI::App* apply) {
  auto args = std::make_shared<SoftmaxArgs>();
  CLI::App* cmd = apply->add_subcommand(
      "softmax", "Two-table integer softmax of every row along the last axis");
  AddCommonOptions(cmd, &args->common);
  AddSpecOptions(cmd, &args->in, /*scale_needed=*/true, golden::kSoftmaxMaxInBits);
  AddSpecOptions(cmd, &args->out, /*scale_needed=*/true);
  cmd->add_option("--acc-bits", args->acc_bits, "Accumulator bits, 8..32 (default 32)")
      ->check(CLI::Range(8, 32));
  args->seed_fixed = {
      cmd->add_option("--round", args->round,
                      "Table rounding: nearest (default) or trunc; not with --compat seed")
          ->check(CLI::IsMember({"trunc", "nearest"})),
      cmd->add_option("--div", args->div,
                      "Division rounding: nearest (default) or floor; not with --compat seed")
          ->check(CLI::IsMember({"floor", "nearest"})),
      cmd->add_option("--offset", args->offset,
                      "Exponent offset: rowmax (default) or qmax; not with --compat seed")
          ->check(CLI::IsMember({"qmax", "rowmax"}))};
  cmd->add_option("--compat", args->compat,
                  "seed: the arithmetic of the original Python code of the softmax article "
                  "(docs/softmax.md); none (default): exact");
  cmd->callback([args] { RunSoftmax(*args); });
}

std::string SpecText(const golden::QuantSpec& q) {
  return fmt::format("{}-bit {}{} scale {:.9g} zero point {}", q.bits, q.narrow ? "narrow " : "",
                     q.is_signed ? "signed" : "unsigned", q.scale, q.zero_point);
}

std::string CodesRange(const golden::QuantSpec& q, const std::string& what) {
  return fmt::format("the {}-bit {}{} {} codes", q.bits, q.narrow ? "narrow " : "",
                     q.is_signed ? "signed" : "unsigned", what);
}

// ---- add
struct AddArgs {
  ApplyCommon common;
  std::string input2;
  std::string form = "tflite";
  SpecArgs a{"a"}, b{"b"}, out{"out"};
};

void RunAdd(const AddArgs& args) {
  const auto form = golden::ParseAddForm(args.form);
  if (!form) {
    throw UsageError(
        fmt::format("--form: '{}' is not one of {}", args.form, golden::AddFormChoices()));
  }
  const golden::AddParams params = Build("add", [&] {
    return golden::MakeAddParams(MakeSpec(args.a), MakeSpec(args.b), MakeSpec(args.out), *form);
  });
  CheckOutput(args.common, args.input2);
  const CodeTensor a = ReadCodes(args.common.input, "input", params.a.qmin(), params.a.qmax(),
                                 CodesRange(params.a, "a"));
  const CodeTensor b =
      ReadCodes(args.input2, "input2", params.b.qmin(), params.b.qmax(), CodesRange(params.b, "b"));
  if (a.shape != b.shape) {
    throw UsageError(fmt::format("input2: {} has shape {}, {} has shape {}: they must be equal",
                                 args.input2, golden::ShapeString(b.shape), args.common.input,
                                 golden::ShapeString(a.shape)));
  }
  const std::string details =
      fmt::format("{} form; a {}; b {}; output {}", golden::AddFormName(params.form),
                  SpecText(params.a), SpecText(params.b), SpecText(params.y));
  Finish(args.common, "add", details, a, ApplyAdd(a, b, params));
}

void RegisterAdd(CLI::App* apply) {
  auto args = std::make_shared<AddArgs>();
  CLI::App* cmd = apply->add_subcommand(
      "add", "Elementwise Add of two tensors of one shape (seed 002), each with its own spec");
  AddCommonOptions(cmd, &args->common);
  cmd->add_option("input2", args->input2, "Second input: codes of --b-*, the shape of the first")
      ->required();
  cmd->add_option(
         "--form", args->form,
         "Integer form: tflite (TFLite's Add, any zero points; default) or "
         "seed-symmetric (8-bit multipliers, int16 sum, zero points 0) (docs/seed002_operators.md)")
      ->capture_default_str();
  AddSpecOptions(cmd, &args->a, /*scale_needed=*/true);
  AddSpecOptions(cmd, &args->b, /*scale_needed=*/true);
  AddSpecOptions(cmd, &args->out, /*scale_needed=*/true);
  cmd->callback([args] { RunAdd(*args); });
}

// "2" or "2,3": one value for both of H and W, or one each.
std::pair<int, int> Pair(const std::vector<int>& values, const std::string& option) {
  if (values.size() == 1) return {values[0], values[0]};
  if (values.size() == 2) return {values[0], values[1]};
  throw UsageError(
      fmt::format("{}: give one value (H = W) or two (H,W), not {}", option, values.size()));
}

// "1" or "1,2,1,2": the same pad on every side, or top,bottom,left,right.
golden::PadAmounts Pads(const std::vector<int>& values) {
  if (values.empty()) return {};
  if (values.size() == 1) return {values[0], values[0], values[0], values[0]};
  if (values.size() == 4) return {values[0], values[1], values[2], values[3]};
  throw UsageError(fmt::format(
      "--pad: give one value (every side) or four (top,bottom,left,right), not {}", values.size()));
}

// ---- avgpool
struct AvgPoolArgs {
  ApplyCommon common;
  std::vector<int> kernel, stride = {1}, pad;
  bool count_include_pad = false;
  int multiplier_bits = 32;
  SpecArgs in{"in"}, out{"out"};
};

void RunAvgPool(const AvgPoolArgs& args) {
  golden::Pool2dGeometry g;
  std::tie(g.kernel_h, g.kernel_w) = Pair(args.kernel, "--kernel");
  std::tie(g.stride_h, g.stride_w) = Pair(args.stride, "--stride");
  const golden::PadAmounts pads = Pads(args.pad);
  g.pad_top = pads.top, g.pad_bottom = pads.bottom, g.pad_left = pads.left,
  g.pad_right = pads.right;
  g.count_include_pad = args.count_include_pad;
  const golden::AvgPoolParams params = Build("avgpool", [&] {
    return golden::MakeAvgPoolParams(MakeSpec(args.in), MakeSpec(args.out), g,
                                     args.multiplier_bits);
  });
  CheckOutput(args.common);
  const CodeTensor input = ReadCodes(args.common.input, "input", params.in.qmin(), params.in.qmax(),
                                     CodesRange(params.in, "input"));
  const std::string details = fmt::format(
      "kernel {}x{}, stride {}x{}, pad {},{},{},{} ({}), {}-bit multiplier {} >> {}; input {}; "
      "output {}",
      g.kernel_h, g.kernel_w, g.stride_h, g.stride_w, g.pad_top, g.pad_bottom, g.pad_left,
      g.pad_right, g.count_include_pad ? "counted" : "not counted", params.multiplier_bits,
      params.multiplier, params.rshift, SpecText(params.in), SpecText(params.out));
  Finish(args.common, "avgpool", details, input, ApplyAvgPool(input, params));
}

void RegisterAvgPool(CLI::App* apply) {
  auto args = std::make_shared<AvgPoolArgs>();
  CLI::App* cmd = apply->add_subcommand(
      "avgpool", "Average pooling of an NHWC tensor: multiplier and rshift on the window sum");
  AddCommonOptions(cmd, &args->common);
  cmd->add_option("--kernel", args->kernel, "Window KH[,KW]")->required()->delimiter(',');
  cmd->add_option("--stride", args->stride, "Stride SH[,SW] (default 1)")->delimiter(',');
  cmd->add_option("--pad", args->pad, "Padding P or TOP,BOTTOM,LEFT,RIGHT (default 0)")
      ->delimiter(',');
  cmd->add_flag("--count-include-pad", args->count_include_pad,
                "Padded taps count (as real 0) in the divisor");
  cmd->add_option("--multiplier-bits", args->multiplier_bits, "Multiplier width: 8, 16 or 32")
      ->capture_default_str();
  AddSpecOptions(cmd, &args->in, /*scale_needed=*/true);
  AddSpecOptions(cmd, &args->out, /*scale_needed=*/true);
  cmd->callback([args] { RunAvgPool(*args); });
}

// ---- pad
struct PadArgs {
  ApplyCommon common;
  std::vector<int> pad;
  double value = 0.0;
  SpecArgs in{"in"};
};

void RunPad(const PadArgs& args) {
  const golden::QuantSpec spec = MakeSpec(args.in);
  const golden::PadAmounts pads = Pads(args.pad);
  CheckOutput(args.common);
  const CodeTensor input =
      ReadCodes(args.common.input, "input", spec.qmin(), spec.qmax(), CodesRange(spec, "input"));
  ApplyResult result = ApplyPad(input, spec, pads, args.value);
  const std::string details = fmt::format("pad {},{},{},{} with value {} (code {}); codes {}",
                                          pads.top, pads.bottom, pads.left, pads.right, args.value,
                                          golden::PadCode(args.value, spec), SpecText(spec));
  Finish(args.common, "pad", details, input, result);
}

void RegisterPad(CLI::App* apply) {
  auto args = std::make_shared<PadArgs>();
  CLI::App* cmd = apply->add_subcommand(
      "pad", "Pad H and W of an NHWC tensor with the code of a real value (output spec = input's)");
  AddCommonOptions(cmd, &args->common);
  cmd->add_option("--pad", args->pad,
                  fmt::format("Padding P or TOP,BOTTOM,LEFT,RIGHT, each >= 0; the output has at "
                              "most {} (2^26) codes",
                              kMaxPadOutputElements))
      ->required()
      ->delimiter(',');
  cmd->add_option("--value", args->value, "Real value of the padding (default 0: the zero point)")
      ->check(kFinite);
  AddSpecOptions(cmd, &args->in, /*scale_needed=*/true);
  cmd->callback([args] { RunPad(*args); });
}

}  // namespace

void RegisterApplyCommand(CLI::App& app) {
  CLI::App* apply = app.add_subcommand(
      "apply", "Run one quantized operator of the golden reference over a .npy tensor of codes");
  apply->require_subcommand(1);
  RegisterLut(apply);
  RegisterSoftmax(apply);
  RegisterRequant(apply);
  RegisterAdd(apply);
  RegisterAvgPool(apply);
  RegisterPad(apply);
}

}  // namespace qacc::cli
