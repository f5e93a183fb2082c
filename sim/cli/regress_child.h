// The child processes of `qacc regress`: one per run, started with posix_spawn in its own process
// group (so that a timeout or an interrupt kills it and anything it started), stdin from /dev/null,
// stdout and stderr on non-blocking pipes, and a pidfd that wakes the runner's poll() when it
// exits.
//
// Memory limit: posix_spawn cannot set an rlimit, and setting it in the runner around the spawn
// would limit the runner too (prlimit() on the child's pid after the spawn races with its first
// allocations). So a limited run starts as this same binary,
//   qacc --exec-with-memory-limit MB EXE ARGS...
// which main() hands to ExecWithMemoryLimit() before anything else: it sets RLIMIT_AS and execs
// EXE, so the limit is in place before the run's first instruction and covers what it starts in
// turn.
#ifndef QACC_SIM_CLI_REGRESS_CHILD_H_
#define QACC_SIM_CLI_REGRESS_CHILD_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace qacc::cli {

inline constexpr const char* kMemoryLimitWrapperFlag = "--exec-with-memory-limit";

// argv = {qacc, kMemoryLimitWrapperFlag, MB, EXE, ARGS...}: sets RLIMIT_AS to MB MiB and execs EXE
// with argv {EXE, ARGS...}. Returns (127) only when that fails, after a message on stderr that says
// why ("Cannot allocate memory" when the limit is too small for EXE to load).
int ExecWithMemoryLimit(int argc, char** argv);

// The arguments that run `args` (args[0] an executable) under a memory limit of `limit_mb` MiB
// through `self` (this binary); `args` unchanged when limit_mb is 0.
std::vector<std::string> WithMemoryLimit(const std::string& self, int64_t limit_mb,
                                         std::vector<std::string> args);

// A running child: its pid (also its process group) and the read ends of its stdout and stderr.
struct Child {
  size_t run_index = 0;
  pid_t pid = -1;
  int out_fd = -1, err_fd = -1;
  int pid_fd = -1;  // readable when the child has exited (pidfd_open), -1 if unavailable
  std::string out, err;
  std::chrono::steady_clock::time_point start;
  bool timed_out = false;
};

// Starts args[0] with `args`. Throws std::runtime_error when it cannot be started.
Child Spawn(const std::vector<std::string>& args, size_t run_index);

// Appends what the child's pipes have now to child.out / child.err; a pipe at EOF is closed.
void DrainOutput(Child& child);

// Closes whatever fds of the child are still open.
void CloseFds(Child& child);

// SIGKILL to the child's process group and to the child.
void KillGroup(pid_t pid);

// "SIGSEGV (11)"; "signal 42" for the unnamed ones.
std::string SignalName(int sig);

// This binary, as /proc/<pid>/fd/<n> of a descriptor this process holds open: the children run
// the binary the regression started with even if the file is rebuilt meanwhile.
std::string SelfExecutable();

}  // namespace qacc::cli

#endif  // QACC_SIM_CLI_REGRESS_CHILD_H_
