#include "sim/cli/spec_options.h"

#include <fmt/format.h>

#include "sim/cli/common.h"

namespace qacc::cli {

void AddSpecOptions(CLI::App* cmd, SpecArgs* spec, bool scale_needed, int max_bits) {
  const std::string& p = spec->prefix;
  spec->scale_needed = scale_needed;
  const std::string required =
      scale_needed ? fmt::format("; this or {} is required", spec->Opt("amax")) : "";
  cmd->add_option(spec->Opt("bits"), spec->bits,
                  fmt::format("Bits of the {} codes, {}..{}", p, golden::kMinQuantBits, max_bits))
      ->capture_default_str()
      ->check(CLI::Range(golden::kMinQuantBits, max_bits));
  cmd->add_flag(spec->Opt("unsigned"), spec->is_unsigned,
                fmt::format("Unsigned {} codes 0..2^bits-1 (default signed)", p));
  cmd->add_flag(spec->Opt("narrow"), spec->narrow,
                fmt::format("Narrow signed {} range: qmin = -2^(bits-1) + 1", p));
  spec->scale_option =
      cmd->add_option(spec->Opt("scale"), spec->scale,
                      fmt::format("Scale of the {} codes (real = S (q - Z)){}", p, required))
          ->check(kPositiveFinite);
  spec->zp_option = cmd->add_option(spec->Opt("zp"), spec->zp,
                                    fmt::format("Zero point of the {} codes (default 0)", p));
  spec->amax_option =
      cmd->add_option(spec->Opt("amax"), spec->amax,
                      fmt::format("Symmetric {} range: scale = amax / qmax, zero point 0 (instead "
                                  "of --{}-scale{})",
                                  p, p, scale_needed ? "; one of them is required" : ""))
          ->check(kPositiveFinite);
}

golden::QuantSpec MakeSpec(const SpecArgs& spec) {
  const bool scale = spec.scale_option->count() > 0, amax = spec.amax_option->count() > 0;
  const bool zp = spec.zp_option->count() > 0;
  if (scale && amax) {
    throw UsageError(
        fmt::format("{} and {}: give one of them", spec.Opt("scale"), spec.Opt("amax")));
  }
  if (amax && zp) {
    throw UsageError(fmt::format("{}: not with {} (a symmetric range has zero point 0)",
                                 spec.Opt("zp"), spec.Opt("amax")));
  }
  if (spec.scale_needed && !scale && !amax) {
    throw UsageError(fmt::format("{} or {}: required", spec.Opt("scale"), spec.Opt("amax")));
  }
  if (spec.narrow && spec.is_unsigned) {
    throw UsageError(fmt::format("{}: narrow range is for signed codes, not with {}",
                                 spec.Opt("narrow"), spec.Opt("unsigned")));
  }
  golden::QuantSpec q;
  q.bits = spec.bits;
  q.is_signed = !spec.is_unsigned;
  q.narrow = spec.narrow;
  if (amax) {
    q.scale = spec.amax / double(q.qmax());
  } else if (scale) {
    q.scale = spec.scale;
  }
  if (zp && (spec.zp < q.qmin() || spec.zp > q.qmax())) {
    throw UsageError(fmt::format("{}: {} is outside the {}-bit {} codes, {}..{}", spec.Opt("zp"),
                                 spec.zp, q.bits, q.is_signed ? "signed" : "unsigned", q.qmin(),
                                 q.qmax()));
  }
  q.zero_point = static_cast<int32_t>(spec.zp);
  return q;
}

}  // namespace qacc::cli
