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

}  // namespace qacc::cosim
