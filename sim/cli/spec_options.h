// Command-line options of one quantized tensor format (golden::QuantSpec), under a prefix:
//   --PREFIX-bits B (2..16 or less, default 8), --PREFIX-unsigned, --PREFIX-narrow,
//   --PREFIX-scale S [--PREFIX-zp Z] or --PREFIX-amax A (symmetric: S = A / qmax, Z = 0).
// Used by `qacc apply`, whose operators take one to three such formats ("in", "a", "b", "out").
#ifndef QACC_SIM_CLI_SPEC_OPTIONS_H_
#define QACC_SIM_CLI_SPEC_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "golden/quant.h"

namespace qacc::cli {

struct SpecArgs {
  explicit SpecArgs(std::string option_prefix) : prefix(std::move(option_prefix)) {}
  std::string prefix;
  int bits = 8;
  bool is_unsigned = false;
  bool narrow = false;
  double scale = 1.0, amax = 1.0;
  int64_t zp = 0;
  const CLI::Option* scale_option = nullptr;
  const CLI::Option* amax_option = nullptr;
  const CLI::Option* zp_option = nullptr;
  bool scale_needed = true;

  std::string Opt(const std::string& name) const { return "--" + prefix + "-" + name; }
};

// `scale_needed`: the format's scale matters (else a missing scale means 1: only the codes are
// used), and --help says that --PREFIX-scale or --PREFIX-amax is required. `max_bits`: the widest
// codes the operator takes (lut and softmax inputs address an int8-indexed table: 8), the range
// that --PREFIX-bits enforces and --help shows.
void AddSpecOptions(CLI::App* cmd, SpecArgs* spec, bool scale_needed,
                    int max_bits = golden::kMaxQuantBits);

// The spec; throws UsageError naming the option and its range.
golden::QuantSpec MakeSpec(const SpecArgs& spec);

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_SPEC_OPTIONS_H_
