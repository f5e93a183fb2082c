// Programs longer than one launch (docs/data_movement.md 14.4). Q_COUNT holds at most
// arch::kMaxQCount descriptors, so a longer program is run as several launches of consecutive
// descriptors, each started by the host with its own Q_BASE, Q_COUNT and CTRL.RUN once the previous
// one is DONE. A launch resets the token counters, so a program may be cut only where no token is
// outstanding: every SIGNAL before the cut has been taken by a WAIT before it. The memories (SRAMs
// and external) carry over from one launch to the next; the end of a launch orders everything
// before it before everything after it, so the cut adds order and never a race.
#ifndef QACC_COMPILER_LAUNCHES_H_
#define QACC_COMPILER_LAUNCHES_H_

#include <cstdint>
#include <vector>

#include "golden/program.h"

namespace qacc::compiler {

// Descriptors first .. first + count - 1 of a program, launched with Q_BASE = q_base + 64 * first.
struct Launch {
  uint32_t first = 0;
  uint32_t count = 0;
};

// Where a program may be cut into launches: entry i (0 .. program.size()) is true when no token is
// outstanding before descriptor i, that is, the SIGNALs of each engine before i equal the WAITs of
// the other engine before i (both ends are cut points). The compiler derives its tokens launch by
// launch, so each of its launch boundaries is one; tests check that with this.
std::vector<bool> CutPoints(const std::vector<golden::Descriptor>& program);

// The golden executor's run of every launch in order on `state`, as the host runs them: it stops
// after a launch that ends with an error. Indices are the program's (launch.first added).
struct LaunchesResult {
  golden::ProgramError error = golden::ProgramError::kNone;
  int launch = -1;           // the launch that ended with `error` (-1: none)
  int64_t error_index = -1;  // its Q_ERR_INDEX + first
  int64_t retired = 0;       // Q_RETIRED summed over the launches run
  int launches_run = 0;
};
LaunchesResult RunLaunches(const golden::AccelGeometry& geometry, uint32_t q_base,
                           const std::vector<Launch>& launches, golden::MachineState& state);

// The data races (14.2) within each launch, with the program's indices; none can span a cut.
std::vector<golden::Race> RaceCheckLaunches(const golden::AccelGeometry& geometry,
                                            const std::vector<golden::Descriptor>& program,
                                            uint32_t q_base, const std::vector<Launch>& launches);

}  // namespace qacc::compiler

#endif  // QACC_COMPILER_LAUNCHES_H_
