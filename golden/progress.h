// A sign of life from long loops: a program's descriptors on the golden executor, the rows of a
// softmax error analysis, the cycles of a co-simulation. The loops say how far they are with
// ReportProgress(); whoever wants to show it (qacc's progress line on a terminal,
// sim/cli/progress.h) installs an observer with a ProgressScope. Without one, a report costs an
// atomic load and a branch. Nothing here prints.
//
// Why a scope and not a callback argument: the loops sit several calls below the commands that
// would show them (qacc cosim -> CompiledNetworkProgram -> CompileChecked -> RunQueue), and a
// progress callback is no part of what those functions compute.
#ifndef QACC_GOLDEN_PROGRESS_H_
#define QACC_GOLDEN_PROGRESS_H_

#include <cstdint>

namespace qacc::golden {

class ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  // `done` of `total` `unit`s of the stage `what` ("golden program", "descriptors"); total 0: not
  // known. Called often (per descriptor, per row, every few thousand cycles), from any thread that
  // reports (a SystemC process may run on a thread of its own): keep it cheap and thread safe.
  virtual void OnProgress(const char* what, const char* unit, uint64_t done, uint64_t total) = 0;
};

// Installs `observer` (not owned; may be null: no reports) for the process while the scope lives.
// Scopes nest: the innermost observer gets the reports, the outer one again after it ends. Install
// and end scopes on one thread, while no other thread reports.
class ProgressScope {
 public:
  explicit ProgressScope(ProgressObserver* observer);
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

 private:
  ProgressObserver* previous_;
};

// Hands the report to the installed observer, if any.
void ReportProgress(const char* what, const char* unit, uint64_t done, uint64_t total);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_PROGRESS_H_
