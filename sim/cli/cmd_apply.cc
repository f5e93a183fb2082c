// qacc apply OPERATOR INPUT.npy -o OUTPUT.npy: one quantized operator of the golden reference over
// a real tensor of integer codes (docs/apply.md). The output codes go to a .npy file (written
// atomically: a failed command leaves none); standard output gets a summary, and with --report the
// error against the float operator on the dequantized input (apply_report.h), as text or --json.
// Bad input (a float dtype, codes outside the input spec, a per-channel axis that does not fit)
// names the file and the field and exits with 2 before anything is written.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "golden/quant.h"
#include "golden/requant.h"
#include "sim/cli/apply_ops.h"
#include "sim/cli/apply_report.h"
#include "sim/cli/apply_tensor.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
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
  cmd->add_option("input", common->input, "Input codes: .npy of int8, uint8, int16, uint16 or int32")
      ->required();
  cmd->add_option("-o,--output", common->output,
                  "Output codes: .npy file (the smallest integer dtype holding the output codes)")
      ->required()
      ->check(kNonEmpty);
  cmd->add_flag("--report", common->report,
                "Report the error against the float operator on the dequantized input");
  cmd->add_flag("--json", common->json, "Print the summary (and report) as one JSON document");
}

// Runs `op` and writes its output; prints the summary and the report.
void Finish(const ApplyCommon& common, const std::string& op_name, const std::string& details,
            const CodeTensor& input, const ApplyResult& result) {
  const std::string bytes = SerializeCodes(result.shape, result.codes, result.qmin, result.qmax);
  WriteFileAtomically(common.output, bytes);
  const golden::NpyDtype dtype = DtypeFor(result.qmin, result.qmax);
  nlohmann::json json = {{"operator", op_name},
                         {"details", details},
                         {"input", {{"path", common.input},
                                    {"shape", input.shape},
                                    {"dtype", golden::NpyDtypeName(input.dtype)}}},
                         {"output", {{"path", common.output},
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
  std::vector<int64_t> multipliers, shifts;
  int axis = -1;
  std::string rounding = "double";
  SpecArgs out{"out"};
};

void RunRequant(const RequantArgs& args) {
  const RequantSetup setup = MakeRequantSetup(args.scales, args.multipliers, args.shifts,
                                              args.rounding, MakeSpec(args.out));
  CheckOutputPath(args.common.output, "--output");
  const CodeTensor input = ReadCodes(args.common.input, "input", INT32_MIN, INT32_MAX,
                                     "the int32 accumulators");
  const ApplyResult result = ApplyRequant(input, setup, args.axis);
  Finish(args.common, "requant", setup.description, input, result);
}

void RegisterRequant(CLI::App* apply) {
  auto args = std::make_shared<RequantArgs>();
  CLI::App* cmd = apply->add_subcommand(
      "requant", "Requantize int32 accumulators: multiplier and shift per tensor or per channel");
  AddCommonOptions(cmd, &args->common);
  cmd->add_option("--scale", args->scales,
                  "Real multiplier(s) S_acc / S_y: one per tensor, or one per channel along --axis "
                  "(comma-separated); turned into multiplier and shift as TFLite does")
      ->delimiter(',')
      ->check(kPositiveFinite);
  cmd->add_option("--multiplier", args->multipliers,
                  "Q31 multiplier(s) instead of --scale: 0 or 2^30..2^31-1, with --shift")
      ->delimiter(',');
  cmd->add_option("--shift", args->shifts, "Shift(s) -31..30 of the multipliers (left when > 0)")
      ->delimiter(',');
  cmd->add_option("--axis", args->axis,
                  "Per-channel axis of the input (negative counts from the end; default -1, the "
                  "last axis)")
      ->capture_default_str();
  cmd->add_option("--rounding", args->rounding, "double (TFLite, the default) or single")
      ->capture_default_str();
  AddSpecOptions(cmd, &args->out, /*scale_needed=*/false);
  cmd->callback([args] { RunRequant(*args); });
}

}  // namespace

void RegisterApplyCommand(CLI::App& app) {
  CLI::App* apply = app.add_subcommand(
      "apply", "Run one quantized operator of the golden reference over a .npy tensor of codes");
  apply->require_subcommand(1);
  RegisterRequant(apply);
}

}  // namespace qacc::cli
