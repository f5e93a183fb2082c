// qacc's sign of life on a terminal: one line on standard error, redrawn in place ("\r") every
// 0.2 s (QACC_PROGRESS_INTERVAL_MS, for tests) by a thread of its own, saying what runs, how far it
// is (done of total and the percentage when the total is known) and the seconds so far:
//   qacc cosim: lockstep 1234/8704 descriptors (14.2 %), 6.4 s
// The first drawing waits one interval, so a short command draws nothing; Done() (or the
// destructor) erases the line, so the command's own output reads as without it. Only when standard
// error is a terminal: in a file or a pipe nothing is written at all, and a log holds the command's
// whole lines only. While it lives it observes the loops that report through golden/progress.h; a
// step that reports nothing still shows its seconds growing.
#ifndef QACC_SIM_CLI_PROGRESS_H_
#define QACC_SIM_CLI_PROGRESS_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <sys/types.h>
#include <string>
#include <thread>

#include "golden/progress.h"

namespace qacc::cli {

// Whether file descriptor 2 is a terminal.
bool StderrIsTerminal();

class TerminalProgress : public golden::ProgressObserver {
 public:
  // `title` starts the line ("qacc cosim").
  explicit TerminalProgress(std::string title);
  ~TerminalProgress() override;
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  bool enabled() const { return enabled_; }
  // From the loops: shown as "what done/total unit (p %)", or "what done unit" without a total,
  // in place of the last Status().
  void OnProgress(const char* what, const char* unit, uint64_t done, uint64_t total) override;
  // The text after the title, set by the command itself (qacc regress: runs finished, passed,
  // failed), in place of the loops' last report. Shown at the next drawing, or at once with `now`;
  // ends Hide().
  void Status(const std::string& text, bool now = false);
  // Writes `text`, whole lines, to `stream` (flushed) with the line out of the way: erased before,
  // drawn again after. Every write to the terminal while the line may show goes through here or
  // between Hide() and Status().
  void Print(std::FILE* stream, const std::string& text);
  // Erases the line and draws nothing until Status().
  void Hide();
  // Erases the line; nothing is drawn afterwards.
  void Done();
  // fork() with the drawing thread parked on the line's mutex. A child forked while that thread was
  // inside malloc or stdio would inherit their locks held, with no thread left to release them,
  // and could hang at its first allocation: glibc's fork resets its own, but AddressSanitizer's
  // allocator (the debug preset) has no fork handler. The child must not use this object.
  pid_t Fork();

 private:
  void Tick();
  void DrawLocked();
  void EraseLocked();

  using Clock = std::chrono::steady_clock;
  const std::string title_;
  const bool enabled_;
  const Clock::time_point start_;
  std::mutex mutex_;  // everything below, and the writes to the terminal
  std::condition_variable wake_;
  bool stopped_ = false, paused_ = false;
  std::string status_;          // from Status()
  const char* what_ = nullptr;  // from OnProgress(): string literals, formatted when drawn
  const char* unit_ = nullptr;
  uint64_t done_ = 0, total_ = 0;
  size_t shown_ = 0;  // characters on the terminal's line now (0: nothing drawn)
  std::thread ticker_;
  golden::ProgressScope scope_;
};

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_PROGRESS_H_
