#include "model/unit_tlm.h"

#include <string>

namespace qacc::model {

std::ostream& operator<<(std::ostream& os, const RowTile& tile) {
  return os << "row tile " << tile.tile << " (" << tile.rows.size() << " rows)";
}

void IssueRateCheck::Accept(int64_t cycle, const char* unit) {
  if (cycle <= last_) {
    SC_REPORT_ERROR(unit, ("beat of cycle " + std::to_string(cycle) +
                           " arrives after one of cycle " + std::to_string(last_) +
                           ": the unit takes one beat per cycle")
                              .c_str());
  }
  last_ = cycle;
}

}  // namespace qacc::model
