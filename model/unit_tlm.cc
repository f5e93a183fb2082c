#include "model/unit_tlm.h"

namespace qacc::model {

std::ostream& operator<<(std::ostream& os, const MacTransfer& transfer) {
  return os << "mac beat cycle " << transfer.beat.cycle << " tile " << transfer.beat.tile << " row "
            << transfer.beat.row;
}

std::ostream& operator<<(std::ostream& os, const RequantTransfer& transfer) {
  return os << "requant beat cycle " << transfer.beat.cycle << " tile " << transfer.beat.tile
            << " row " << transfer.beat.row;
}

void CycleClock::WaitUntil(int64_t cycle, const char* unit) const {
  const sc_core::sc_time at = TimeOfCycle(cycle);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (at < now) {
    SC_REPORT_ERROR(
        unit, ("beat of cycle " + std::to_string(cycle) + " is late (now " + now.to_string() + ")")
                  .c_str());
  } else if (at > now) {
    sc_core::wait(at - now);
  }
}

}  // namespace qacc::model
