#include "sim/cosim/run_common.h"

namespace qacc::cosim {

int CommandOfJob(const sim::Program& program, int job) {
  int found = -1;
  for (size_t i = 0; i < program.commands.size(); ++i) {
    if (program.commands[i].job == job) found = static_cast<int>(i);
  }
  return found;
}

void FillCounts(const Scoreboard& scoreboard, CosimResult& result) {
  for (int u = 0; u < kNumCheckUnits; ++u) {
    result.mismatches[size_t(u)] = scoreboard.count(static_cast<CheckUnit>(u));
    result.first_of[size_t(u)] = scoreboard.first_of(static_cast<CheckUnit>(u));
  }
  result.first = scoreboard.first();
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace qacc::cosim
