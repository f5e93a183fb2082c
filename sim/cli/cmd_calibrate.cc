// qacc calibrate: activation calibration of one tensor dump (.npy or raw float32) with the golden
// reference (golden/calibration.h); prints the threshold or range, scale and zero point.
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/calibration.h"
#include "golden/npy.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cli/path_identity.h"
#include "sim/cli/progress.h"

namespace qacc::cli {

namespace {

using golden::CalibrationMethod;

struct CalibrateArgs {
  std::string file;
  bool raw_f32 = false;
  std::string method;
  double percentile = golden::kDefaultPercentile;
  int bits = 8;
  bool is_unsigned = false;
  bool asymmetric = false;
  bool narrow = false;
  std::string kl_variant = "default";
  int bins = golden::kDefaultHistogramBins;
  OutputOptions output;
  // Set after parsing: whether the method-specific options were given explicitly.
  CLI::Option* percentile_option = nullptr;
  CLI::Option* kl_variant_option = nullptr;
  CLI::Option* bins_option = nullptr;
};

// The samples and a description of where they came from, for the report.
struct LoadedTensor {
  std::vector<double> values;
  std::string format;  // "npy" or "raw-f32"
  std::string dtype;   // "<f4", "<f8"
  std::vector<int64_t> shape;
  bool fortran_order = false;
};

// A raw dump has no header, so --raw-f32 would read a .npy header as floats (values like 7.7e31)
// and calibrate to them without a word; the magic string says which it is.
bool StartsWithNpyMagic(const std::string& path) {
  static constexpr char kMagic[] = "\x93NUMPY";
  char head[sizeof(kMagic) - 1] = {};
  std::ifstream in(path, std::ios::binary);
  return in.read(head, sizeof(head)) && std::string(head, sizeof(head)) == kMagic;
}

LoadedTensor Load(const CalibrateArgs& args) {
  LoadedTensor tensor;
  if (args.raw_f32) {
    if (StartsWithNpyMagic(args.file)) {
      throw UsageError(fmt::format(
          "--raw-f32: {} is a .npy file (it starts with the \\x93NUMPY magic), not headerless "
          "float32; drop --raw-f32 to read it with its header",
          args.file));
    }
    tensor.values = golden::ReadRawFloat32(args.file);
    tensor.format = "raw-f32";
    tensor.dtype = "<f4";
    tensor.shape = {static_cast<int64_t>(tensor.values.size())};
    return tensor;
  }
  golden::NpyArray array;
  try {
    array = golden::ReadNpy(args.file);
  } catch (const golden::NpyDtypeError& e) {
    // Its message lists the integer dtypes too, which calibrate refuses.
    throw UsageError(fmt::format(
        "{}: unsupported dtype '{}'; calibrate reads real-valued activations: float32 or float64 "
        "(little-endian)",
        args.file, e.descr));
  }
  if (golden::IsIntegerDtype(array.dtype)) {
    throw UsageError(fmt::format(
        "{}: dtype {} holds integer codes; calibrate reads real-valued activations (float32 or "
        "float64): dequantize them first",
        args.file, golden::NpyDtypeName(array.dtype)));
  }
  tensor.values = std::move(array.values);
  tensor.format = "npy";
  tensor.dtype = std::string(golden::NpyDtypeDescr(array.dtype));
  tensor.shape = array.shape;
  tensor.fortran_order = array.fortran_order;
  return tensor;
}

// Options that only one method reads are rejected with the others instead of being silently
// ignored.
void CheckMethodSpecificOptions(const CalibrateArgs& args, CalibrationMethod method) {
  if (args.percentile_option->count() > 0 && method != CalibrationMethod::kPercentile) {
    throw UsageError("--percentile applies only to --method percentile");
  }
  if (args.kl_variant_option->count() > 0 && method != CalibrationMethod::kKl) {
    throw UsageError("--kl-variant applies only to --method kl");
  }
  if (args.bins_option->count() > 0 && method != CalibrationMethod::kKl &&
      method != CalibrationMethod::kMse) {
    throw UsageError("--bins applies only to --method kl or mse");
  }
  if (args.narrow && args.is_unsigned) {
    throw UsageError("--narrow applies to signed types only; drop --narrow or --unsigned");
  }
}

golden::CalibrationOptions ToOptions(const CalibrateArgs& args) {
  golden::CalibrationOptions options;
  options.method = *golden::ParseCalibrationMethod(args.method);  // checked by the validator
  CheckMethodSpecificOptions(args, options.method);
  options.bits = args.bits;
  options.is_signed = !args.is_unsigned;
  options.narrow = args.narrow;
  options.asymmetric = args.asymmetric;
  options.percentile = args.percentile;
  options.kl_variant = *golden::ParseKlVariant(args.kl_variant);
  options.num_bins = args.bins;
  try {
    golden::ValidateCalibrationOptions(options);
  } catch (const std::invalid_argument& e) {
    // The golden messages start with the field name, which is the option name.
    throw UsageError(fmt::format("--{}", e.what()));
  }
  return options;
}

std::string TargetName(const golden::QuantSpec& spec, bool symmetric) {
  return fmt::format("{}int{}{} {}", spec.is_signed ? "" : "u", spec.bits,
                     spec.narrow ? " narrow" : "", symmetric ? "symmetric" : "asymmetric");
}

std::string MethodDetail(const golden::CalibrationOptions& options) {
  switch (options.method) {
    case CalibrationMethod::kKl:
      return fmt::format(" ({} variant)", golden::KlVariantName(options.kl_variant));
    case CalibrationMethod::kPercentile:
      return fmt::format(" ({}%)", options.percentile);
    default:
      return "";
  }
}

std::string HumanReport(const CalibrateArgs& args, const LoadedTensor& tensor,
                        const golden::CalibrationOptions& options,
                        const golden::CalibrationResult& r) {
  std::string out;
  out +=
      fmt::format("file        {} ({} {}, shape {}{})\n", args.file, tensor.format, tensor.dtype,
                  golden::ShapeString(tensor.shape), tensor.fortran_order ? ", Fortran order" : "");
  out += fmt::format("samples     {} (min {}, max {}, max|x| {})\n", r.sample_count, r.data_min,
                     r.data_max, r.amax);
  out += fmt::format("method      {}{}\n", golden::CalibrationMethodName(r.method),
                     MethodDetail(options));
  out += fmt::format("target      {}\n", TargetName(r.spec, r.symmetric));
  if (r.symmetric) out += fmt::format("threshold   {}\n", r.threshold);
  out += fmt::format("range       [{}, {}]\n", r.range_min, r.range_max);
  out += fmt::format("scale       {}\n", r.spec.scale);
  out += fmt::format("zero point  {}\n", r.spec.zero_point);
  if (r.method == CalibrationMethod::kKl) {
    out += fmt::format(
        "kl          {} of {} bins kept (bin width {}, {} levels), KL {}, {} zeros skipped\n",
        r.chosen_bin, r.num_bins, r.bin_width, r.levels, r.kl_divergence, r.zero_count);
  } else if (r.method == CalibrationMethod::kMse) {
    out += fmt::format("mse         grid point {} of {} (step {}), mean squared error {}\n",
                       r.chosen_bin, r.num_bins, r.bin_width, r.mse);
  }
  return out;
}

nlohmann::json JsonReport(const CalibrateArgs& args, const LoadedTensor& tensor,
                          const golden::CalibrationOptions& options,
                          const golden::CalibrationResult& r) {
  nlohmann::json j;
  j["file"] = args.file;
  j["format"] = tensor.format;
  j["dtype"] = tensor.dtype;
  j["shape"] = tensor.shape;
  j["fortran_order"] = tensor.fortran_order;
  j["samples"] = r.sample_count;
  j["method"] = golden::CalibrationMethodName(r.method);
  if (r.method == CalibrationMethod::kKl)
    j["kl_variant"] = golden::KlVariantName(options.kl_variant);
  if (r.method == CalibrationMethod::kPercentile) j["percentile"] = options.percentile;
  j["bits"] = r.spec.bits;
  j["signed"] = r.spec.is_signed;
  j["narrow"] = r.spec.narrow;
  j["symmetric"] = r.symmetric;
  j["threshold"] = r.symmetric ? nlohmann::json(r.threshold) : nlohmann::json(nullptr);
  j["range"] = {r.range_min, r.range_max};
  j["scale"] = r.spec.scale;
  j["zero_point"] = r.spec.zero_point;
  j["qmin"] = r.spec.qmin();
  j["qmax"] = r.spec.qmax();
  j["data"] = {{"min", r.data_min}, {"max", r.data_max}, {"amax", r.amax}};
  nlohmann::json diagnostics = nlohmann::json::object();
  if (r.method == CalibrationMethod::kKl) {
    diagnostics = {{"bins", r.num_bins},        {"bin_width", r.bin_width},
                   {"bins_kept", r.chosen_bin}, {"levels", r.levels},
                   {"kl", r.kl_divergence},     {"zeros_skipped", r.zero_count}};
  } else if (r.method == CalibrationMethod::kMse) {
    diagnostics = {{"grid_points", r.num_bins},
                   {"grid_step", r.bin_width},
                   {"grid_index", r.chosen_bin},
                   {"mse", r.mse}};
  }
  j["diagnostics"] = diagnostics;
  return j;
}

void Run(const CalibrateArgs& args) {
  const golden::CalibrationOptions options = ToOptions(args);
  CheckOutputsDistinct({{"FILE", args.file}}, {{"--output", args.output.output_path}});
  TerminalProgress progress("qacc calibrate");  // a large tensor takes seconds, on a terminal
  const LoadedTensor tensor = Load(args);
  progress.Status(fmt::format("{} over {} values", args.method, tensor.values.size()));
  golden::CalibrationResult result;
  try {
    result = golden::Calibrate(tensor.values, options);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: {}", args.file, e.what()));
  }
  progress.Done();
  Emit(args.output, HumanReport(args, tensor, options, result),
       JsonReport(args, tensor, options, result));
}

// Accepts one of `choices` ("a|b|c"); the message lists them.
CLI::Validator OneOf(std::string choices, std::string what, bool (*accept)(const std::string&)) {
  return CLI::Validator(
      [choices, what, accept](std::string& text) -> std::string {
        if (accept(text)) return {};
        return fmt::format("'{}' is not a {}; choose {}", text, what, choices);
      },
      choices, what);
}

}  // namespace

void RegisterCalibrateCommand(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand("calibrate",
                                     "Calibrate an activation tensor (.npy or raw float32): "
                                     "threshold or range, scale, zero point");
  cmd->add_option("FILE", args->file,
                  ".npy file (<f4 or <f8, any shape), or raw float32 with --raw-f32")
      ->required();
  cmd->add_flag("--raw-f32", args->raw_f32, "FILE is headerless little-endian float32");
  cmd->add_option("--method", args->method, "Calibration method")
      ->required()
      ->check(OneOf(
          golden::CalibrationMethodChoices(), "calibration method",
          [](const std::string& s) { return golden::ParseCalibrationMethod(s).has_value(); }));
  args->percentile_option =
      cmd->add_option("--percentile", args->percentile,
                      "Percentile P in (0, 100] of |x| (asymmetric: [100-P, P] of x)")
          ->capture_default_str()
          ->check(CLI::Validator(
              [](std::string& text) -> std::string {
                char* end = nullptr;
                const double p = std::strtod(text.c_str(), &end);
                if (text.empty() || end != text.c_str() + text.size() || !(p > 0.0 && p <= 100.0)) {
                  return fmt::format("{} is out of range, allowed (0, 100]", text);
                }
                return {};
              },
              "(0,100]", "percentile"));
  cmd->add_option("--bits", args->bits, "Code width in bits")
      ->capture_default_str()
      ->check(CLI::Range(golden::kMinQuantBits, golden::kMaxQuantBits));
  cmd->add_flag("--unsigned", args->is_unsigned, "Unsigned codes [0, 2^bits - 1]");
  cmd->add_flag("--asymmetric", args->asymmetric,
                "Asymmetric range with a zero point (minmax, percentile)");
  cmd->add_flag("--narrow", args->narrow, "Narrow signed range: qmin = -2^(bits-1) + 1");
  args->kl_variant_option =
      cmd->add_option("--kl-variant", args->kl_variant, "KL definition (see docs/calibration.md)")
          ->capture_default_str()
          ->check(OneOf(golden::KlVariantChoices(), "KL variant", [](const std::string& s) {
            return golden::ParseKlVariant(s).has_value();
          }));
  args->bins_option = cmd->add_option("--bins", args->bins, "KL histogram bins / MSE grid points")
                          ->capture_default_str()
                          ->check(CLI::Range(1, golden::kMaxHistogramBins));
  AddOutputOptions(cmd, &args->output);
  cmd->callback([args] { Run(*args); });
}

}  // namespace qacc::cli
