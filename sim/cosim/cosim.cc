#include "sim/cosim/cosim.h"

#include <fmt/format.h>

namespace qacc::cosim {

const char* FaultName(Fault fault) {
  switch (fault) {
    case Fault::kNone:
      return "none";
    case Fault::kMacValue:
      return "mac-value";
    case Fault::kMacLate:
      return "mac-late";
    case Fault::kRequantValue:
      return "requant-value";
    case Fault::kStartLost:
      return "start-lost";
  }
  return "?";
}

std::optional<Fault> ParseFault(const std::string& name) {
  for (Fault f :
       {Fault::kNone, Fault::kMacValue, Fault::kMacLate, Fault::kRequantValue, Fault::kStartLost}) {
    if (name == FaultName(f)) return f;
  }
  return std::nullopt;
}

std::string DescribeCommand(const arch::ArchConfig& config, const model::GemmJob& job) {
  const arch::Command cmd = model::ToCommand(job);
  const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k);
  std::string text = fmt::format("GEMM M={} N={} K={} mode={:#x} (T={} tiles, P={}, E={}; ", job.m,
                                 job.n, job.k, cmd.mode, timing.T(), timing.P(), timing.E());
  text += job.out_raw ? "int32 out" : "int8 out";
  if (!job.out_raw) {
    text += cmd.single_rounding() ? ", single rounding" : ", double rounding";
    text += cmd.per_channel()
                ? ", per-channel"
                : fmt::format(", mult {} shift {}", cmd.mult, arch::ShiftValue(cmd.shift));
    text += fmt::format(", zp_out {}, clamp [{}, {}]", cmd.zp_out, cmd.clamp_min, cmd.clamp_max);
  }
  text += fmt::format(", a_zp {} b_zp {}{}{}{})", arch::ZpA(cmd.zp_ab), arch::ZpB(cmd.zp_ab),
                      cmd.a_unsigned() ? ", A uint8" : "", cmd.b_unsigned() ? ", B uint8" : "",
                      cmd.bias_en() ? ", bias" : "");
  return text;
}

}  // namespace qacc::cosim
