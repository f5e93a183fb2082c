// What the lockstep, RTL-only and model-only runs share: the reset they start with, and how a run's
// scoreboard becomes its result.
#ifndef QACC_SIM_COSIM_RUN_COMMON_H_
#define QACC_SIM_COSIM_RUN_COMMON_H_

#include <chrono>

#include "sim/cosim/cosim.h"
#include "sim/cosim/scoreboard.h"
#include "sim/testgen/program.h"

namespace qacc::cosim {

inline constexpr int kResetCycles = 2;  // rst_ni low, then one cycle high before the first access

// The command of the program that computed job `job` (the last one launched with it).
int CommandOfJob(const sim::Program& program, int job);
// The scoreboard's counts and first mismatches into `result`.
void FillCounts(const Scoreboard& scoreboard, CosimResult& result);
// Wall seconds since `start`.
double Seconds(std::chrono::steady_clock::time_point start);

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_RUN_COMMON_H_
