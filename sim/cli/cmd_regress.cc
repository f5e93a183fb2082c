// qacc regress: runs a test suite as many (test, seed) pairs, each in its own process
//   qacc cosim --test NAME --seed N --config FILE --json [--model-only]
// (this same binary, /proc/self/exe), J processes at a time, with a per-run timeout and memory
// limit (regress_child.h). A SystemC kernel elaborates once per process, and a crash, a hang or a
// memory exhaustion of one run must not take the regression down: such a run is a failure like a
// mismatch, with its reproduce line, and the rest goes on.
//
// Schedule (docs/testplan.md): --seeds N runs every selected test with seeds S..S+N-1 (S =
// --seed-base), seed-major: (s, t0), (s, t1), ..., (s+1, t0), ... The schedule and the report order
// depend only on the arguments, never on timing, so the same arguments give the same table (up to
// wall times). Runs are generated as they are launched and reported as they finish (in schedule
// order), so memory does not grow with the number of runs.
//
// Before any run, every argument is checked: the report paths (created up front), and, by one
// `qacc cosim --dry-run` of the first test, everything the runs would reject (config, RTL build).
// SIGINT, SIGTERM and SIGHUP stop every child (each runs in its own process group: the runs in
// flight are "not run", never failures), write every report with the runs finished so far, marked
// incomplete, and exit 128 + the signal. --resume REPORT.json continues such a regression from its
// JSON report: the arguments are the recorded ones, only the runs missing from it run, and the
// final reports are those of an uninterrupted regression (up to wall times).
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/arch.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cli/path_identity.h"
#include "sim/cli/progress.h"
#include "sim/cli/regress_child.h"
#include "sim/cli/regress_report.h"
#include "sim/testgen/rng.h"
#include "sim/testgen/suites.h"

namespace qacc::cli {

namespace {

using Clock = std::chrono::steady_clock;

// Sanitizer run-times reserve terabytes of address space for their shadow memory when a process
// starts, which any RLIMIT_AS forbids: a sanitizer build runs its children without a limit unless
// --memory-limit asks for one.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define QACC_REGRESS_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(QACC_REGRESS_SANITIZED)
constexpr int64_t kDefaultMemoryLimitMb = 0;
#else
// A lockstep run needs tens of MB (measured: under 16 MB resident, and it passes with a 64 MB
// limit): 4 GB stops a runaway run long before it takes the machine's memory, at any -j.
constexpr int64_t kDefaultMemoryLimitMb = 4096;
#endif

struct RegressOptions {
  bool list = false;
  std::string suite;
  int64_t seeds = 0;
  std::string tests;  // comma-separated subset
  bool tests_given = false;
  std::string config_path = DefaultConfigPath();
  int jobs = 1;
  std::string junit_path;
  std::string json_path;
  std::string output_path;  // -o: the summary table
  bool model_only = false;
  bool require_coverage = false;  // exit 1 when a coverage bin is not hit
  bool fail_fast = false;         // start no run after the first failure
  int64_t mutant = 0;             // passed to every run (qacc cosim --mutant)
  std::string coverage_dir;  // each run writes its Verilator coverage here (qacc cosim --coverage)
  double timeout_seconds = 300.0;
  int64_t memory_limit_mb = kDefaultMemoryLimitMb;  // RLIMIT_AS of every run, 0: none
  std::string seed_base_text = "1";
  uint64_t seed_base = 1;
  std::string resume_path;      // --resume: the JSON report of an interrupted regression
  std::set<std::string> given;  // the options on the command line, by their long names
  std::string child_command;    // hidden, for tests: the executable run instead of /proc/self/exe
};

// The tests of a suite of the registry (sim/testgen/suites.h) in plan order; `all`: every suite's,
// suite after suite.
std::vector<std::string> SuiteTests(const std::string& suite) {
  std::vector<std::string> names;
  for (const sim::Suite& s : sim::Suites()) {
    if (suite != "all" && s.name != suite) continue;
    for (const sim::TestInfo& info : s.tests) names.push_back(info.name);
  }
  if (names.empty()) {
    throw UsageError(fmt::format("--suite: unknown suite '{}', expected one of: {}, all", suite,
                                 sim::SuiteNames()));
  }
  return names;
}

std::vector<std::string> SelectTests(const RegressOptions& options) {
  const std::vector<std::string> all = SuiteTests(options.suite);
  if (!options.tests_given) return all;
  std::vector<std::string> selected;
  std::stringstream list(options.tests);
  std::string name;
  while (std::getline(list, name, ',')) {
    if (name.empty()) continue;
    if (std::find(all.begin(), all.end(), name) == all.end()) {
      std::string valid;
      for (const std::string& n : all) valid += (valid.empty() ? "" : ", ") + n;
      throw UsageError(fmt::format("--tests: unknown test '{}' in suite {}; valid tests: {}", name,
                                   options.suite, valid));
    }
    if (std::find(selected.begin(), selected.end(), name) == selected.end()) {
      selected.push_back(name);
    }
  }
  if (selected.empty()) throw UsageError("--tests: no test named");
  return selected;
}

// The i-th run of the seed-major schedule: every test once per seed, so an interrupted or
// early-failing regression has still covered the whole plan.
Run ScheduledRun(const std::vector<std::string>& tests, const RegressOptions& options, uint64_t i) {
  Run run;
  run.test = tests[i % tests.size()];
  run.seed = options.seed_base + i / tests.size();
  return run;
}

// One coverage file per run, named after it: runs never write the same file.
std::string CoveragePath(const Run& run, const RegressOptions& options) {
  return (std::filesystem::path(options.coverage_dir) /
          fmt::format("{}.{}.dat", run.test, run.seed))
      .string();
}

// The arguments that start a run: `qacc cosim ...` (or the --child-command), under the memory
// limit.
std::vector<std::string> LaunchArgs(const Run& run, const RegressOptions& options) {
  const std::string self = SelfExecutable();
  const std::string& exe = options.child_command.empty() ? self : options.child_command;
  std::vector<std::string> args = {exe,        "cosim",
                                   "--test",   run.test,
                                   "--seed",   std::to_string(run.seed),
                                   "--config", options.config_path,
                                   "--json"};
  if (options.model_only) args.push_back("--model-only");
  if (options.mutant != 0) {
    args.push_back("--mutant");
    args.push_back(std::to_string(options.mutant));
  }
  if (!options.coverage_dir.empty()) {
    args.push_back("--coverage");
    args.push_back(CoveragePath(run, options));
  }
  return WithMemoryLimit(self, options.memory_limit_mb, std::move(args));
}

std::string ReproduceCommand(const Run& run, const RegressOptions& options) {
  std::string text = fmt::format("qacc cosim --test {} --seed {} --config {}", run.test, run.seed,
                                 options.config_path);
  if (options.model_only) text += " --model-only";
  if (options.mutant != 0) text += fmt::format(" --mutant {}", options.mutant);
  return text;
}

std::string Tail(const std::string& text, size_t max_chars) {
  std::string tail = text.size() > max_chars ? "..." + text.substr(text.size() - max_chars) : text;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  return ValidUtf8(tail);
}

// Memory exhaustion as a program's run-time reports it: C++ new (std::bad_alloc), malloc, mmap and
// exec (ENOMEM: "Cannot allocate memory"), the dynamic loader ("failed to map segment"), coreutils
// ("memory exhausted"), the shell and Python ("out of memory", "MemoryError"); under a limit, also
// a thread whose stack cannot be mapped (EAGAIN). A run that the kernel's out-of-memory killer ends
// dies of SIGKILL without a word, so that one stays a crash (its message says who sends SIGKILL).
bool SaysOutOfMemory(const std::string& text, bool limited) {
  for (const char* sign : {"bad_alloc", "Cannot allocate memory", "failed to map segment",
                           "memory exhausted", "out of memory", "MemoryError"}) {
    if (text.find(sign) != std::string::npos) return true;
  }
  return limited && text.find("Resource temporarily unavailable") != std::string::npos;
}

bool RanOutOfMemory(const Child& child, const Run& run, bool limited) {
  const nlohmann::json& r = run.result;
  return SaysOutOfMemory(child.err, limited) ||
         (r.is_object() && r.contains("error") && r["error"].is_string() &&
          SaysOutOfMemory(r["error"].get<std::string>(), limited));
}

// A failed run that ran out of memory: said so, and reproduced under the same limit (prlimit(1)).
void MarkOutOfMemory(const RegressOptions& options, Run& run) {
  run.status = "oom";
  if (options.memory_limit_mb == 0) {
    run.message = "out of memory (no --memory-limit): " + run.message;
    return;
  }
  run.message =
      fmt::format("out of memory (limit {} MB): {}", options.memory_limit_mb, run.message);
  run.reproduce =
      fmt::format("prlimit --as={} {}", uint64_t(options.memory_limit_mb) << 20, run.reproduce);
}

// The run's status and message from how the child ended (timeout, signal, exit code) and its JSON
// (`problem`: what ReadChildResult found wrong in it).
void ClassifyExit(const Child& child, int status, const RegressOptions& options,
                  const std::string& problem, Run& run) {
  const nlohmann::json& r = run.result;
  if (child.timed_out) {
    run.status = "timeout";
    run.message = fmt::format("timeout: no result after {} s, killed", options.timeout_seconds);
    return;
  }
  if (WIFSIGNALED(status)) {
    run.signal = WTERMSIG(status);
    run.signal_name = SignalName(run.signal);
    run.status = "crash";
    run.message = "crashed: " + run.signal_name;
    // The runner kills only on a timeout (above) or an interrupt (never recorded).
    if (run.signal == SIGKILL) {
      run.message += ", sent by a user or the kernel's out-of-memory killer";
    }
    return;
  }
  run.exit_code = WEXITSTATUS(status);
  if (run.exit_code == 0 && ChildSaysPass(r) && problem.empty()) {
    run.status = "pass";
    return;
  }
  run.status = run.exit_code == kExitUsage ? "usage" : "fail";
  if (!r.is_object() && problem.empty()) {
    run.message = fmt::format("exit code {}, no JSON result on stdout{}", run.exit_code,
                              run.stderr_tail.empty() ? "" : ": " + Tail(child.err, 300));
    return;
  }
  run.message = ChildFailureMessage(r, run.exit_code, problem);
}

// Turns the exit status and output of a finished child into the run's outcome.
void Classify(const Child& child, int status, const RegressOptions& options, Run& run) {
  run.wall_seconds = std::chrono::duration<double>(Clock::now() - child.start).count();
  run.stderr_tail = Tail(child.err, 2000);
  run.reproduce = ReproduceCommand(run, options);
  const std::string problem = ReadChildResult(child.out, run);
  ClassifyExit(child, status, options, problem, run);
  const bool limited = options.memory_limit_mb > 0;
  if (!run.passed() && !child.timed_out && RanOutOfMemory(child, run, limited)) {
    MarkOutOfMemory(options, run);
  }
  run.message = ValidUtf8(run.message);
}

// The signal that asks the regression to stop (0: none). Children run in their own process groups,
// so a Ctrl-C at the terminal reaches only this process: it must stop them itself.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void OnStopSignal(int sig) {
  if (g_stop_signal == 0) g_stop_signal = sig;  // the first one stops; later ones change nothing
}

// Catches the stop signals from the first run until the reports are written: a second Ctrl-C while
// they are written must not kill the process between a temporary file and its rename. A signal
// that was ignored stays ignored (`nohup qacc regress`, or a background job of a script).
class StopSignals {
 public:
  StopSignals() {
    struct sigaction action = {};
    action.sa_handler = OnStopSignal;
    // Each handler runs with the other stop signals blocked: signals pending together are then
    // handled one after the other, the first delivered first (nested, the last would run first).
    sigemptyset(&action.sa_mask);
    for (int sig : kSignals) sigaddset(&action.sa_mask, sig);
    action.sa_flags = 0;  // no SA_RESTART: poll() returns at once with EINTR
    for (size_t i = 0; i < kSignals.size(); ++i) {
      sigaction(kSignals[i], nullptr, &old_[i]);
      if (old_[i].sa_handler != SIG_IGN) sigaction(kSignals[i], &action, nullptr);
    }
  }
  ~StopSignals() {
    for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> old_{};
};

// Hands runs to the reports in schedule order. Runs finish out of order (-j), and in a resumed
// regression the runs of the interrupted session fill gaps between them: each waits here for the
// runs before it.
class InOrder {
 public:
  InOrder(std::map<uint64_t, Run> prior, RegressReports& reports)
      : held_(std::move(prior)), reports_(reports) {
    Flush();
  }
  void Add(uint64_t index, Run run) {
    held_.emplace(index, std::move(run));
    Flush();
  }
  // At the end: every run still held, in order, across the gaps of the runs that did not run.
  void AddAll() {
    for (const auto& [index, run] : held_) reports_.Add(run);
    held_.clear();
  }

 private:
  void Flush() {
    for (auto it = held_.begin(); it != held_.end() && it->first == next_; ++next_) {
      reports_.Add(it->second);
      it = held_.erase(it);
    }
  }

  std::map<uint64_t, Run> held_;  // by schedule index
  RegressReports& reports_;
  uint64_t next_ = 0;  // the schedule index reported next
};

// Sleeps until output arrives, a child exits or the nearest timeout; without a pidfd (kernels
// before 5.3) a child's exit is only seen every 50 ms. A stop signal ends the sleep (EINTR).
void WaitForChildren(const std::vector<Child>& active, Clock::duration timeout) {
  std::vector<pollfd> fds;
  auto wake = Clock::time_point::max();
  bool all_pidfds = true;
  for (const Child& child : active) {
    if (child.out_fd >= 0) fds.push_back({child.out_fd, POLLIN, 0});
    if (child.err_fd >= 0) fds.push_back({child.err_fd, POLLIN, 0});
    if (child.pid_fd >= 0) fds.push_back({child.pid_fd, POLLIN, 0});
    all_pidfds = all_pidfds && child.pid_fd >= 0;
    if (!child.timed_out) wake = std::min(wake, child.start + timeout);
  }
  const auto until_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      wake - Clock::now() + std::chrono::milliseconds(1));
  const int max_sleep_ms = all_pidfds ? 1000 : 50;
  poll(fds.data(), fds.size(),
       static_cast<int>(std::clamp<int64_t>(until_timeout.count(), 0, max_sleep_ms)));
}

// Whether two file descriptors write to the same file (`> log 2>&1`, one pipe for both).
bool SameFile(int fd1, int fd2) {
  struct stat a = {};
  struct stat b = {};
  return fstat(fd1, &a) == 0 && fstat(fd2, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// What a regression shows while it runs. A batch log (`qacc regress ... > log 2>&1`, as CI and
// scripts/run.sh run it) must hold whole lines, never a progress line torn into a row of the table
// on the other, buffered, stream; a terminal gets a live display.
//  * Standard error is a terminal: one status line there, redrawn in place (runs finished, passed,
//    failed, running, seconds); each failure's line is printed above it, and the table's rows
//    (flushed as each run finishes) are written past it.
//  * Otherwise nothing is redrawn: the table's rows go out whole, one per finished run, flushed
//    (RegressReports), and the line of each finished run goes to standard error only when the
//    table does not already tell it there: the table is in a file (-o), or standard output is
//    another file than standard error.
class RunDisplay {
 public:
  RunDisplay(const std::string& summary_path, uint64_t total)
      : live_("qacc regress"), total_(total) {
    const bool table_live_on_stderr =
        summary_path.empty() || (summary_path == "-" && SameFile(STDOUT_FILENO, STDERR_FILENO));
    run_lines_ = !live_.enabled() && !table_live_on_stderr;
  }

  // A run of the interrupted session resumed (--resume): counted, not shown.
  void Recorded(bool passed) {
    passed_ += passed;
    failed_ += !passed;
  }
  // Around RegressReports::Add, which writes the table's rows: the status line out of their way.
  void BeforeRows() { live_.Hide(); }
  // "[3/190] FAIL gemm_n1 seed 1 (0.01 s): 4 mismatches ...", before the run goes to the reports.
  std::string Line(const Run& run, uint64_t done) const {
    return fmt::format("[{}/{}] {:<7} {} seed {} ({:.2f} s){}\n", done, total_,
                       run.passed() ? "PASS" : "FAIL", run.test, run.seed, run.wall_seconds,
                       run.passed() ? "" : ": " + run.message);
  }
  // After the run's rows: its line (see the class comment) and the status.
  void Finished(bool passed, const std::string& line, uint64_t done, size_t running) {
    passed_ += passed;
    failed_ += !passed;
    if (run_lines_) {
      std::fputs(line.c_str(), stderr);
    } else if (!passed && live_.enabled()) {
      live_.Print(stderr, line);
    }
    Update(done, running, /*now=*/true);
  }
  // The status line (a terminal only): drawn at most every 0.2 s unless `now`.
  void Update(uint64_t done, size_t running, bool now = false) {
    if (!live_.enabled()) return;
    live_.Status(fmt::format("{}/{} runs ({:.1f} %), {} passed, {} failed, {} running", done,
                             total_, total_ ? 100.0 * double(done) / double(total_) : 100.0,
                             passed_, failed_, running),
                 now);
  }
  void Done() { live_.Done(); }

 private:
  TerminalProgress live_;
  uint64_t total_ = 0, passed_ = 0, failed_ = 0;
  bool run_lines_ = false;
};

// Runs the schedule but for the runs of `prior` (an interrupted session's, --resume) with at most
// `jobs` children at a time; shows each finished run on `display` and hands the runs, the prior
// ones too, to `reports` in schedule order. Returns the signal that stopped it
// before its end, or 0. The runs in flight then are killed and not recorded: they did not run.
int Execute(const std::vector<std::string>& tests, const RegressOptions& options,
            std::map<uint64_t, Run> prior, RegressReports& reports, RunDisplay& display) {
  const auto timeout = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options.timeout_seconds));
  const uint64_t total = uint64_t(options.seeds) * tests.size();
  std::set<uint64_t> recorded;
  bool failed = false;  // with --fail-fast, no run starts after this
  for (const auto& [index, run] : prior) {
    recorded.insert(index);
    failed = failed || !run.passed();
    display.Recorded(run.passed());
  }
  uint64_t next = 0, done = prior.size();
  InOrder in_order(std::move(prior), reports);
  std::vector<Child> active;
  std::map<uint64_t, Run> running;  // by schedule index
  auto finish = [&](uint64_t index, Run run) {
    ++done;
    failed = failed || !run.passed();
    const std::string line = display.Line(run, done);
    const bool passed = run.passed();
    display.BeforeRows();
    in_order.Add(index, std::move(run));
    display.Finished(passed, line, done, running.size());
  };
  auto launchable = [&] {
    while (next < total && recorded.count(next) > 0) ++next;
    return next < total && !(failed && options.fail_fast);
  };
  while (g_stop_signal == 0 && (!active.empty() || launchable())) {
    while (active.size() < size_t(options.jobs) && launchable()) {
      Run run = ScheduledRun(tests, options, next);
      try {
        active.push_back(Spawn(LaunchArgs(run, options), size_t(next)));
        running.emplace(next, std::move(run));
      } catch (const std::runtime_error& e) {
        run.status = "fail";
        run.message = e.what();
        run.reproduce = ReproduceCommand(run, options);
        finish(next, std::move(run));
      }
      ++next;
    }
    if (active.empty()) continue;
    display.Update(done, active.size());
    WaitForChildren(active, timeout);
    for (size_t i = 0; i < active.size() && g_stop_signal == 0;) {
      Child& child = active[i];
      DrainOutput(child);
      if (!child.timed_out && Clock::now() - child.start > timeout) {
        child.timed_out = true;
        KillGroup(child.pid);
      }
      int status = 0;
      if (waitpid(child.pid, &status, WNOHANG) != child.pid) {
        ++i;
        continue;
      }
      // The child is gone: take what is left in the pipes (a grandchild still holding them open is
      // killed with the group) and record the outcome.
      if (child.out_fd >= 0 || child.err_fd >= 0) kill(-child.pid, SIGKILL);
      DrainOutput(child);
      CloseFds(child);
      auto it = running.find(child.run_index);
      Run run = std::move(it->second);
      running.erase(it);
      Classify(child, status, options, run);
      finish(child.run_index, std::move(run));
      active.erase(active.begin() + std::ptrdiff_t(i));
    }
  }
  // Stopped by a signal: end every child's process group and reap them (more signals may come).
  const bool cut_short = !active.empty() || launchable();
  for (Child& child : active) {
    KillGroup(child.pid);
    while (waitpid(child.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    CloseFds(child);
  }
  in_order.AddAll();
  return cut_short ? g_stop_signal : 0;  // a signal after the last run stops nothing
}

// "2026-11-22T21:05:09Z"
std::string UtcTimestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string Hostname() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "unknown";
}

// Reports must not overwrite each other (one path per report, at most one on stdout) nor the
// config and the report being resumed, which --json replaces by default (that is what --resume
// means); each path must be writable. Checked before anything is created.
void CheckOutputs(const RegressOptions& options) {
  const std::vector<NamedPath> reports = {{"--output", options.output_path},
                                          {"--json", options.json_path},
                                          {"--junit", options.junit_path}};
  CheckOutputsDistinct({{"--config", options.config_path}}, reports);
  CheckOutputsDistinct({{"--resume", options.resume_path}},
                       {{"--output", options.output_path}, {"--junit", options.junit_path}});
  for (const NamedPath& report : reports) {
    if (!report.path.empty() && report.path != "-") CheckOutputPath(report.path, report.option);
  }
}

// The deepest of `dir` and its parents that exists ("/" does); it may be a file, which
// CheckCoverageDir refuses.
std::filesystem::path NearestExistingDir(const std::string& dir) {
  std::error_code error;
  std::filesystem::path path = std::filesystem::absolute(dir, error).lexically_normal();
  while (!std::filesystem::exists(path, error) && path.has_relative_path()) {
    path = path.parent_path();
  }
  return path;
}

// --coverage-dir DIR is created, with its parents, only once every argument is checked: here it
// must be a directory or creatable in the nearest existing one. Creates nothing.
void CheckCoverageDir(const RegressOptions& options) {
  if (options.coverage_dir.empty()) return;
  const std::filesystem::path existing = NearestExistingDir(options.coverage_dir);
  std::error_code error;
  if (!std::filesystem::is_directory(existing, error)) {
    throw UsageError(fmt::format("--coverage-dir: {}: {} is not a directory", options.coverage_dir,
                                 existing.string()));
  }
  if (access(existing.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(fmt::format("--coverage-dir: cannot write in {}: {}", existing.string(),
                                 std::strerror(errno)));
  }
}

// Runs `qacc cosim --dry-run` of the first run: a usage error that every run would hit (a config
// without an RTL build, a memory limit too small to start, say) is reported once, before anything
// runs.
void Preflight(const std::vector<std::string>& tests, const RegressOptions& options) {
  const Run first = ScheduledRun(tests, options, 0);
  // The coverage directory is not created yet: the check run probes its coverage file in the
  // directory that will hold it (CheckCoverageDir), so that it checks the RTL build's coverage.
  RegressOptions check = options;
  if (!check.coverage_dir.empty()) check.coverage_dir = NearestExistingDir(check.coverage_dir);
  std::vector<std::string> args = LaunchArgs(first, check);
  args.push_back("--dry-run");
  Child child = Spawn(args, 0);
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  DrainOutput(child);
  CloseFds(child);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::string why = Tail(child.err, 1000);
  const std::string prefix = "qacc: error: ";
  if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
  if (WIFSIGNALED(status)) why = "killed by " + SignalName(WTERMSIG(status));
  if (options.memory_limit_mb > 0 && (SaysOutOfMemory(child.err, true) || WIFSIGNALED(status))) {
    throw UsageError(fmt::format("--memory-limit: {} MB is too small for a run to start: {}",
                                 options.memory_limit_mb, why));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitUsage) {
    throw UsageError(fmt::format("every run would fail: {}", why));
  }
  throw std::runtime_error(fmt::format("the check run `{} --dry-run` failed: {}",
                                       ReproduceCommand(first, options),
                                       why.empty() ? "no message" : why));
}

std::string ListSuites(const std::string& only) {
  if (!only.empty()) SuiteTests(only);  // an unknown name is an error naming --suite
  std::string text;
  for (const sim::Suite& suite : sim::Suites()) {
    if (!only.empty() && only != "all" && suite.name != only) continue;
    text +=
        fmt::format("{}suite {}: {}\n", text.empty() ? "" : "\n", suite.name, suite.description);
    for (const sim::TestInfo& info : suite.tests) {
      text += fmt::format("  {:<20} {}\n", info.name, info.description);
    }
  }
  if (only.empty() || only == "all") text += "\nsuite all: every suite above, in this order\n";
  return text;
}

// The tests to run, once every argument is checked.
std::vector<std::string> CheckArguments(RegressOptions& options) {
  if (options.suite.empty()) throw UsageError("--suite: required (`qacc regress --list`)");
  if (options.require_coverage && options.model_only) {
    throw UsageError("--require-coverage: coverage is sampled from the RTL: not with --model-only");
  }
  if (options.seeds < 1) throw UsageError("--seeds: required, an integer >= 1");
  options.seed_base = ParseSeed(options.seed_base_text, "--seed-base");
  if (options.tests_given && options.tests.empty()) {
    throw UsageError("--tests: the list is empty; name tests separated by commas (see --list)");
  }
  const std::vector<std::string> tests = SelectTests(options);
  const uint64_t max_seed = std::numeric_limits<uint64_t>::max();
  if (uint64_t(options.seeds - 1) > max_seed - options.seed_base) {
    throw UsageError(
        fmt::format("--seeds/--seed-base: the last seed, {} + {} - 1, is past {}: seeds are {}",
                    options.seed_base, options.seeds, max_seed, kSeedRange));
  }
  if (uint64_t(options.seeds) > std::numeric_limits<uint64_t>::max() / tests.size()) {
    throw UsageError(fmt::format("--seeds: {} x {} tests is more runs than can be counted",
                                 options.seeds, tests.size()));
  }
  if (options.model_only && !options.coverage_dir.empty()) {
    throw UsageError("--coverage-dir: coverage is of the RTL: not with --model-only");
  }
  return tests;
}

// "fnv1a64:0123456789abcdef", of the file's bytes: a resumed regression must run the same config.
std::string ConfigFileHash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) throw UsageError(fmt::format("--config: cannot read {}", path));
  return fmt::format("fnv1a64:{:016x}", sim::HashName(content));  // FNV-1a, as for test names
}

// What the reports say about the regression (the timestamp: now).
RegressInfo Describe(const RegressOptions& options, const std::vector<std::string>& tests) {
  RegressInfo info;
  try {
    info.config_name = arch::LoadArchConfig(options.config_path).name;
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--config: {}", e.what()));
  }
  info.config_hash = ConfigFileHash(options.config_path);
  info.suite = options.suite;
  info.tests = tests;
  info.config_path = options.config_path;
  info.mode = options.model_only ? "model-only" : "lockstep";
  info.seeds_per_test = options.seeds;
  info.seed_base = options.seed_base;
  info.jobs = options.jobs;
  info.timeout_seconds = options.timeout_seconds;
  info.memory_limit_mb = options.memory_limit_mb;
  info.total_runs = uint64_t(options.seeds) * tests.size();
  info.fail_fast = options.fail_fast;
  info.mutant = options.mutant;
  info.require_coverage = options.require_coverage;
  info.coverage_dir = options.coverage_dir;
  info.timestamp = UtcTimestamp();
  info.hostname = Hostname();
  info.tool_version = ToolVersion();
  info.tool_commit = ToolCommit();
  return info;
}

// Creates --coverage-dir and its missing parents (CheckCoverageDir has checked that it can); when
// that fails after all, removes the directories it made.
void MakeCoverageDir(const RegressOptions& options) {
  if (options.coverage_dir.empty()) return;
  const std::filesystem::path dir =
      std::filesystem::absolute(options.coverage_dir).lexically_normal();
  const std::filesystem::path existing = NearestExistingDir(options.coverage_dir);
  std::vector<std::filesystem::path> made;
  std::error_code error;
  std::filesystem::path path = existing;
  for (const std::filesystem::path& part : dir.lexically_relative(existing)) {
    if (part.empty() || part == ".") continue;
    path /= part;
    const bool created = std::filesystem::create_directory(path, error);
    if (error) break;
    if (created) made.push_back(path);  // else made meanwhile by someone else: not ours to remove
  }
  if (error || !std::filesystem::is_directory(dir)) {
    for (auto it = made.rbegin(); it != made.rend(); ++it) std::filesystem::remove(*it, error);
    throw UsageError(fmt::format("--coverage-dir: cannot create the directory {}: {}",
                                 options.coverage_dir,
                                 error ? error.message() : "not a directory"));
  }
}

// --resume continues a regression as it was started: the options that would change its runs or
// its reports' content come from the report, never from the command line.
void CheckResumeOptions(const RegressOptions& options) {
  const std::set<std::string> allowed = {"--resume", "--jobs",   "--json",
                                         "--junit",  "--output", "--child-command"};
  for (const std::string& name : options.given) {
    if (allowed.count(name) == 0) {
      throw UsageError(fmt::format(
          "{}: not with --resume: a resumed regression runs with the arguments recorded in its "
          "report (only -j, --json, --junit and -o may be given)",
          name));
    }
  }
}

// The report of an interrupted regression by this same build; a UsageError naming --resume, the
// file and the field otherwise.
ReportContents ReadResumeReport(const std::string& path) {
  const std::string what = fmt::format("--resume: {}", path);
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw UsageError(what + " is a directory, expected the JSON report of qacc regress");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot open: {}", what, std::strerror(errno)));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  // nlohmann's parser ends the document at a NUL byte and would ignore whatever follows it.
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    throw UsageError(fmt::format("{}: a NUL byte at offset {}: expected the --json report of qacc regress",
                                 what, nul));
  }
  ReportContents report;
  try {
    report = ReportFromJson(nlohmann::json::parse(text));
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: not JSON ({}): expected the --json report of qacc regress",
                                 what, e.what()));
  } catch (const ReportFieldError& e) {
    throw UsageError(fmt::format("{}: not a report qacc regress can resume: {}", what, e.what()));
  }
  if (report.complete) {
    throw UsageError(fmt::format(
        "{}: field \"complete\" is true: the regression ended ({} runs): nothing to resume", what,
        report.runs.size()));
  }
  const RegressInfo& info = report.info;
  if (info.tool_version != ToolVersion() || info.tool_commit != ToolCommit()) {
    throw UsageError(fmt::format(
        "{}: field \"tool\" is {} ({}), this is {} ({}): runs of another build may end otherwise; "
        "start the regression again",
        what, info.tool_version, info.tool_commit, ToolVersion(), ToolCommit()));
  }
  return report;
}

void UseRecordedArguments(const RegressInfo& info, RegressOptions& options) {
  options.suite = info.suite;
  options.tests.clear();
  for (const std::string& test : info.tests)
    options.tests += (options.tests.empty() ? "" : ",") + test;
  options.tests_given = true;
  options.seeds = info.seeds_per_test;
  options.seed_base_text = std::to_string(info.seed_base);
  options.config_path = info.config_path;
  options.model_only = info.mode == "model-only";
  options.timeout_seconds = info.timeout_seconds;
  options.memory_limit_mb = info.memory_limit_mb;
  options.fail_fast = info.fail_fast;
  options.mutant = info.mutant;
  options.require_coverage = info.require_coverage;
  options.coverage_dir = info.coverage_dir;
  if (options.given.count("--jobs") == 0) options.jobs = info.jobs;
  if (options.given.count("--json") == 0) options.json_path = options.resume_path;
}

// The recorded runs by schedule index (ScheduledRun's inverse), after checking that the config file
// is still the one they ran with.
std::map<uint64_t, Run> RecordedRuns(const ReportContents& report, const RegressInfo& now,
                                     const RegressOptions& options) {
  const std::string what = fmt::format("--resume: {}", options.resume_path);
  if (report.info.config_hash != now.config_hash) {
    throw UsageError(fmt::format(
        "{}: field \"config_hash\" is {}, but {} now hashes to {}: the config has changed since "
        "the regression started; restore it or start the regression again",
        what, report.info.config_hash, now.config_path, now.config_hash));
  }
  std::map<uint64_t, Run> runs;
  for (size_t i = 0; i < report.runs.size(); ++i) {
    const Run& run = report.runs[i];
    const auto test = std::find(now.tests.begin(), now.tests.end(), run.test);
    const bool in_schedule = test != now.tests.end() && run.seed >= options.seed_base &&
                             run.seed - options.seed_base < uint64_t(options.seeds);
    const uint64_t index = in_schedule ? (run.seed - options.seed_base) * now.tests.size() +
                                             uint64_t(test - now.tests.begin())
                                       : 0;
    if (!in_schedule || !runs.emplace(index, run).second) {
      throw UsageError(
          fmt::format("{}: field \"runs[{}]\": {} seed {} is {} of the regression's schedule", what,
                      i, run.test, run.seed, in_schedule ? "a second run" : "not part"));
    }
  }
  return runs;
}

// The summary goes to -o, else stdout, else (a report takes stdout) standard error.
std::string SummaryPath(const RegressOptions& options) {
  if (!options.output_path.empty()) return options.output_path;
  const bool report_on_stdout = options.json_path == "-" || options.junit_path == "-";
  return report_on_stdout ? "" : "-";
}

void RunRegress(RegressOptions& options) {
  std::optional<ReportContents> resume;
  if (!options.resume_path.empty()) {
    CheckResumeOptions(options);
    resume = ReadResumeReport(options.resume_path);
    UseRecordedArguments(resume->info, options);
  }
  if (options.list) {
    for (const std::string& name : options.given) {
      if (name != "--list" && name != "--suite" && name != "--output" &&
          name != "--child-command") {
        throw UsageError(fmt::format(
            "{}: not with --list, which only lists the suites and their tests (--suite NAME: "
            "one suite; -o FILE: to a file)",
            name));
      }
    }
    OutputOptions output;
    output.output_path = options.output_path == "-" ? "" : options.output_path;
    Emit(output, ListSuites(options.suite), nullptr);
    return;
  }
  const std::vector<std::string> tests = CheckArguments(options);
  RegressInfo info = Describe(options, tests);
  std::map<uint64_t, Run> prior;
  MergedCoverage prior_coverage;
  double prior_wall = 0.0;
  if (resume) {
    prior = RecordedRuns(*resume, info, options);
    prior_coverage = resume->coverage;
    prior_wall = resume->wall_seconds;
    info.timestamp = resume->info.timestamp;  // the regression's start, in its first session
    info.hostname = resume->info.hostname;
  }
  // Nothing is created before every argument is checked: a failed command leaves no file and no
  // directory.
  CheckOutputs(options);
  CheckCoverageDir(options);
  Preflight(tests, options);
  MakeCoverageDir(options);
  if (resume) {
    fmt::print(stderr, "qacc regress: resuming {}: {} of {} runs recorded, {} to run\n",
               options.resume_path, prior.size(), info.total_runs, info.total_runs - prior.size());
  }

  // From here on a stop signal ends the runs and the reports are written, marked incomplete.
  StopSignals stop_signals;
  RegressReports reports(info, SummaryPath(options), options.json_path, options.junit_path,
                         prior_coverage);
  const auto start = Clock::now();
  RunDisplay display(SummaryPath(options), info.total_runs);
  const int stopped_by = Execute(tests, options, std::move(prior), reports, display);
  display.Done();
  const double wall = prior_wall + std::chrono::duration<double>(Clock::now() - start).count();
  reports.Finish(wall, stopped_by == 0 ? "" : SignalName(stopped_by));
  if (stopped_by != 0) {
    std::fflush(stdout);
    std::_Exit(128 + stopped_by);
  }
  if (reports.passed() != reports.added()) std::exit(1);
  const MergedCoverage& coverage = reports.coverage();
  if (options.require_coverage && (coverage.hits.empty() || coverage.holes() > 0)) {
    fmt::print(stderr,
               "qacc regress: --require-coverage: {} of {} coverage bins not hit (listed in the "
               "summary)\n",
               coverage.hits.empty() ? 0 : coverage.holes(), coverage.hits.size());
    std::exit(1);
  }
}

}  // namespace

void RegisterRegressCommand(CLI::App& app) {
  auto options = std::make_shared<RegressOptions>();
  CLI::App* cmd = app.add_subcommand(
      "regress",
      "Run a test suite as many (test, seed) pairs, each as its own `qacc cosim` process, J at a "
      "time; print a summary, write JUnit/JSON reports, exit 1 on any failure");
  cmd->add_flag("--list", options->list,
                "List the suites and their tests (with --suite: that suite's), and stop");
  cmd->add_flag("--require-coverage", options->require_coverage,
                "Exit 1 unless the passing lockstep runs hit every functional coverage bin");
  cmd->add_option("--suite", options->suite,
                  "Test suite: " + sim::SuiteNames() + ", or all (required unless --list)");
  cmd->add_option("--seeds", options->seeds,
                  "Seeds per test: every selected test runs with seeds S..S+N-1 (S = --seed-base); "
                  "required unless --list")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--tests", options->tests,
                  "Comma-separated subset of the suite's tests (default: all)");
  cmd->add_option("--config", options->config_path, "Architecture config JSON passed to every run")
      ->capture_default_str();
  cmd->add_option("-j,--jobs", options->jobs,
                  fmt::format("Runs in parallel, 1..{} (default 1)", kMaxJobs))
      ->check(CLI::Range(1, kMaxJobs));
  cmd->add_option("--junit", options->junit_path,
                  "Write a JUnit XML report to FILE (atomically; - for standard output)")
      ->check(kNonEmpty);
  cmd->add_option("--json", options->json_path,
                  "Write a JSON report to FILE (atomically; - for standard output)")
      ->check(kNonEmpty);
  cmd->add_option("-o,--output", options->output_path,
                  "Write the summary table to FILE instead of standard output (atomically)")
      ->check(kNonEmpty);
  cmd->add_flag("--model-only", options->model_only,
                "Run the model-only mode instead of the lockstep co-simulation");
  cmd->add_option("--timeout", options->timeout_seconds,
                  "Seconds per run before the child is killed and recorded as a failure (default "
                  "300)")
      ->check(PositiveAtMost(kMaxTimeoutSeconds));
  cmd->add_option("--seed-base", options->seed_base_text,
                  fmt::format("First seed (default 1); seeds are {}", kSeedRange));
  cmd->add_flag(
      "--fail-fast", options->fail_fast,
      "Start no run after the first failure (the runs already started finish); the report "
      "lists the runs that ran");
  AddMutantOption(cmd, &options->mutant);
  cmd->add_option(
         "--coverage-dir", options->coverage_dir,
         "Each run writes its Verilator line/toggle coverage to DIR/TEST.SEED.dat (needs an RTL "
         "build with coverage: qacc validate makes one)")
      ->check(kNonEmpty);
  cmd->add_option("--memory-limit", options->memory_limit_mb,
                  fmt::format("Address space of every run in MB (RLIMIT_AS), 0 for no limit "
                              "(default {}); a run that exhausts it is recorded as out of memory",
                              kDefaultMemoryLimitMb))
      ->check(CLI::Range(int64_t{0}, kMaxMemoryLimitMb));
  cmd->add_option("--resume", options->resume_path,
                  "Go on with the interrupted regression whose JSON report is FILE: run only the "
                  "runs it lacks, with the arguments it records, and write the final reports (the "
                  "JSON to FILE unless --json); only -j, --json, --junit and -o may be given too")
      ->check(kNonEmpty);
  // For tests of the runner itself: an executable standing in for `qacc` (it gets the same
  // arguments, starting with `cosim`).
  cmd->add_option("--child-command", options->child_command)->group("");
  cmd->callback([options, cmd]() {
    for (const CLI::Option* option : cmd->get_options()) {
      // Every option has a long name (get_name() is empty for the hidden ones).
      if (option->count() > 0) options->given.insert("--" + option->get_lnames().front());
    }
    options->tests_given = options->given.count("--tests") > 0;
    RunRegress(*options);
  });
}

}  // namespace qacc::cli
