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
    case Fault::kLutValue:
      return "lut-value";
    case Fault::kEltValue:
      return "elt-value";
    case Fault::kStartLost:
      return "start-lost";
    case Fault::kRequantLatency:
      return "requant-latency";
  }
  return "?";
}

std::optional<Fault> ParseFault(const std::string& name) {
  for (Fault f : kAllFaults) {
    if (name == FaultName(f)) return f;
  }
  return std::nullopt;
}

std::string FaultNames() {
  std::string names;
  for (Fault f : kAllFaults) names += std::string(names.empty() ? "" : ", ") + FaultName(f);
  return names;
}

}  // namespace qacc::cosim
