// qacc regress: runs a test suite as many (test, seed) pairs, each in its own process
//   qacc cosim --test NAME --seed N --config FILE --json [--model-only]
// (this same binary, /proc/self/exe), J processes at a time, with a per-run timeout. A SystemC
// kernel elaborates once per process, and a crash or a hang of one run must not take the regression
// down: a child killed by a signal or by the timeout is a failure like a mismatch, and the rest
// goes on.
//
// Schedule (docs/testplan.md): --seeds N runs every selected test with seeds S..S+N-1 (S =
// --seed-base), seed-major: (s, t0), (s, t1), ..., (s+1, t0), ... The schedule and the report order
// depend only on the arguments, never on timing, so the same arguments give the same table (up to
// wall times). Runs are generated as they are launched and reported as they finish (in schedule
// order), so memory does not grow with the number of runs.
//
// Before any run, every argument is checked: the report paths (created up front), and, by one
// `qacc cosim --dry-run` of the first test, everything the runs would reject (config, RTL build).
// SIGINT, SIGTERM and SIGHUP stop every child (each runs in its own process group), print the
// summary of the finished runs and exit 128 + the signal, leaving no partial report.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
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
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/arch.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cli/regress_report.h"
#include "sim/testgen/suites.h"

extern char** environ;

namespace qacc::cli {

namespace {

using Clock = std::chrono::steady_clock;

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
  std::string coverage_dir;       // each run writes its Verilator coverage here (qacc cosim --coverage)
  double timeout_seconds = 300.0;
  std::string seed_base_text = "1";
  uint64_t seed_base = 1;
  std::string child_command;  // hidden, for tests: the executable run instead of /proc/self/exe
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

std::string SelfExecutable() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot resolve /proc/self/exe: " + error.message());
  return path.string();
}

// One coverage file per run, named after it: runs never write the same file.
std::string CoveragePath(const Run& run, const RegressOptions& options) {
  return (std::filesystem::path(options.coverage_dir) / fmt::format("{}.{}.dat", run.test, run.seed))
      .string();
}

std::vector<std::string> ChildArgs(const std::string& exe, const Run& run,
                                   const RegressOptions& options) {
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
  return args;
}

std::string ReproduceCommand(const Run& run, const RegressOptions& options) {
  std::string text = fmt::format("qacc cosim --test {} --seed {} --config {}", run.test, run.seed,
                                 options.config_path);
  if (options.model_only) text += " --model-only";
  if (options.mutant != 0) text += fmt::format(" --mutant {}", options.mutant);
  return text;
}

std::string SignalName(int sig) {
  const char* name = nullptr;
  switch (sig) {
    case SIGSEGV:
      name = "SIGSEGV";
      break;
    case SIGABRT:
      name = "SIGABRT";
      break;
    case SIGBUS:
      name = "SIGBUS";
      break;
    case SIGFPE:
      name = "SIGFPE";
      break;
    case SIGILL:
      name = "SIGILL";
      break;
    case SIGKILL:
      name = "SIGKILL";
      break;
    case SIGTERM:
      name = "SIGTERM";
      break;
    case SIGINT:
      name = "SIGINT";
      break;
    case SIGPIPE:
      name = "SIGPIPE";
      break;
    default:
      break;
  }
  return name ? fmt::format("{} ({})", name, sig) : fmt::format("signal {}", sig);
}

// A running child: its pid (also its process group) and the read ends of its stdout and stderr.
struct Child {
  size_t run_index = 0;
  pid_t pid = -1;
  int out_fd = -1, err_fd = -1;
  int pid_fd = -1;  // readable when the child has exited (pidfd_open), -1 if unavailable
  std::string out, err;
  Clock::time_point start;
  bool timed_out = false;
};

void SetNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Reads what is available; closes the fd at EOF (fd = -1).
void Drain(int& fd, std::string& sink) {
  char buffer[65536];
  while (fd >= 0) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      sink.append(buffer, size_t(n));
    } else if (n == 0) {
      close(fd);
      fd = -1;
    } else if (errno == EINTR) {
      continue;
    } else {
      break;  // EAGAIN: nothing more for now
    }
  }
}

Child Spawn(const std::vector<std::string>& args, size_t run_index) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    throw std::runtime_error("pipe2 failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group, so that a timeout kills the child and anything it started.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  Child child;
  child.run_index = run_index;
  const int rc = posix_spawn(&child.pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    throw std::runtime_error(fmt::format("cannot run {}: {}", args[0], std::strerror(rc)));
  }
  child.out_fd = out_pipe[0];
  child.err_fd = err_pipe[0];
  // A child's exit wakes the poll below at once, instead of at its next timeout.
  // (The syscall itself: Debian 12's <sys/pidfd.h> is not usable from C++.)
  child.pid_fd = static_cast<int>(syscall(SYS_pidfd_open, child.pid, 0));
  if (child.pid_fd >= 0) fcntl(child.pid_fd, F_SETFD, FD_CLOEXEC);
  SetNonBlocking(child.out_fd);
  SetNonBlocking(child.err_fd);
  child.start = Clock::now();
  return child;
}

std::string Tail(const std::string& text, size_t max_chars) {
  std::string tail = text.size() > max_chars ? "..." + text.substr(text.size() - max_chars) : text;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  return tail;
}

// Turns the exit status and output of a finished child into the run's outcome.
void Classify(const Child& child, int status, const RegressOptions& options, Run& run) {
  run.wall_seconds = std::chrono::duration<double>(Clock::now() - child.start).count();
  run.stderr_tail = Tail(child.err, 2000);
  run.reproduce = ReproduceCommand(run, options);
  run.result = nullptr;
  try {
    if (!child.out.empty()) run.result = nlohmann::json::parse(child.out);
  } catch (const nlohmann::json::exception&) {
    run.result = nullptr;
  }
  const nlohmann::json& r = run.result;
  if (r.is_object()) {
    run.cycles = r.value("cycles", int64_t{0});
    run.cycles_per_second = r.value("cycles_per_second", 0.0);
    if (r.contains("reproduce") && r["reproduce"].is_string()) run.reproduce = r["reproduce"];
  }
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
    return;
  }
  run.exit_code = WEXITSTATUS(status);
  const bool json_pass = r.is_object() && r.value("pass", false);
  if (run.exit_code == 0 && json_pass) {
    run.status = "pass";
    return;
  }
  run.status = run.exit_code == kExitUsage ? "usage" : "fail";
  if (!r.is_object()) {
    run.message = fmt::format("exit code {}, no JSON result on stdout{}", run.exit_code,
                              run.stderr_tail.empty() ? "" : ": " + Tail(child.err, 300));
    return;
  }
  if (r.contains("error") && r["error"].is_string()) {
    run.message = "error: " + r["error"].get<std::string>();
    return;
  }
  std::string mismatches;
  if (r.contains("mismatches") && r["mismatches"].is_object()) {
    for (const auto& [unit, count] : r["mismatches"].items()) {
      if (count.is_number() && count.get<int64_t>() != 0) {
        mismatches += fmt::format("{}{}={}", mismatches.empty() ? "" : " ", unit, count.dump());
      }
    }
  }
  run.message = fmt::format("exit code {}, mismatches: {}", run.exit_code,
                            mismatches.empty() ? "none reported" : mismatches);
  if (r.contains("first_mismatch") && !r["first_mismatch"].is_null()) {
    run.message += "; first: " + r["first_mismatch"].dump();
  }
  if (run.exit_code == 0) run.message = "exit code 0 but \"pass\" is not true; " + run.message;
}

void KillGroup(pid_t pid) {
  kill(-pid, SIGKILL);  // the child's own process group (see Spawn)
  kill(pid, SIGKILL);
}

// The signal that asks the regression to stop (0: none). Children run in their own process groups,
// so a Ctrl-C at the terminal reaches only this process: it must stop them itself.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void OnStopSignal(int sig) { g_stop_signal = sig; }

class StopSignals {
 public:
  StopSignals() {
    struct sigaction action = {};
    action.sa_handler = OnStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: poll() returns at once with EINTR
    for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &action, &old_[i]);
  }
  ~StopSignals() {
    for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> old_{};
};

// Runs the schedule with at most `jobs` children at a time; prints one progress line per finished
// run on stderr and hands the runs to `reports` in schedule order. Returns the signal that stopped
// it, or 0.
int Execute(const std::vector<std::string>& tests, const RegressOptions& options,
            RegressReports& reports) {
  const std::string exe = options.child_command.empty() ? SelfExecutable() : options.child_command;
  const auto timeout = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options.timeout_seconds));
  const uint64_t total = uint64_t(options.seeds) * tests.size();
  std::vector<Child> active;
  std::map<uint64_t, Run> running, finished;  // by schedule index
  uint64_t next = 0, done = 0;
  bool failed = false;  // with --fail-fast, no run starts after this
  StopSignals stop_signals;
  auto finish = [&](uint64_t index, Run run) {
    ++done;
    fmt::print(stderr, "[{}/{}] {:<7} {} seed {} ({:.2f} s){}\n", done, total,
               run.passed() ? "PASS" : "FAIL", run.test, run.seed, run.wall_seconds,
               run.passed() ? "" : ": " + run.message);
    failed = failed || !run.passed();
    finished.emplace(index, std::move(run));
    // Report in schedule order: only the runs that finished before an earlier one wait here.
    for (auto it = finished.begin(); it != finished.end() && it->first == reports.added();) {
      reports.Add(it->second);
      it = finished.erase(it);
    }
  };
  while (done < next || (done < total && g_stop_signal == 0 && !(failed && options.fail_fast))) {
    if (g_stop_signal != 0) break;
    while (active.size() < size_t(options.jobs) && next < total && !(failed && options.fail_fast)) {
      Run run = ScheduledRun(tests, options, next);
      try {
        active.push_back(Spawn(ChildArgs(exe, run, options), size_t(next)));
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
    // Sleep until output arrives, a child exits or the nearest timeout; without a pidfd (kernels
    // before 5.3) a child's exit is only seen every 50 ms.
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
    for (size_t i = 0; i < active.size();) {
      Child& child = active[i];
      Drain(child.out_fd, child.out);
      Drain(child.err_fd, child.err);
      if (!child.timed_out && Clock::now() - child.start > timeout) {
        child.timed_out = true;
        KillGroup(child.pid);
      }
      int status = 0;
      const pid_t exited = waitpid(child.pid, &status, WNOHANG);
      if (exited != child.pid) {
        ++i;
        continue;
      }
      // The child is gone: take what is left in the pipes (a grandchild still holding them open is
      // killed with the group) and record the outcome.
      if (child.out_fd >= 0 || child.err_fd >= 0) kill(-child.pid, SIGKILL);
      Drain(child.out_fd, child.out);
      Drain(child.err_fd, child.err);
      if (child.out_fd >= 0) close(child.out_fd);
      if (child.err_fd >= 0) close(child.err_fd);
      if (child.pid_fd >= 0) close(child.pid_fd);
      auto it = running.find(child.run_index);
      Run run = std::move(it->second);
      running.erase(it);
      Classify(child, status, options, run);
      finish(child.run_index, std::move(run));
      active.erase(active.begin() + std::ptrdiff_t(i));
    }
  }
  // Stopped by a signal: end every child's process group and reap them.
  for (Child& child : active) {
    KillGroup(child.pid);
    waitpid(child.pid, nullptr, 0);
    if (child.out_fd >= 0) close(child.out_fd);
    if (child.err_fd >= 0) close(child.err_fd);
    if (child.pid_fd >= 0) close(child.pid_fd);
  }
  return g_stop_signal;
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

// Reports must not overwrite each other: one path per report, at most one on stdout.
void CheckDistinctOutputs(const RegressOptions& options) {
  const std::pair<const char*, std::string> outputs[] = {{"--output", options.output_path},
                                                         {"--json", options.json_path},
                                                         {"--junit", options.junit_path}};
  for (size_t i = 0; i < std::size(outputs); ++i) {
    for (size_t j = i + 1; j < std::size(outputs); ++j) {
      const std::string& a = outputs[i].second;
      const std::string& b = outputs[j].second;
      if (a.empty() || b.empty()) continue;
      std::error_code error;
      const bool same = a == "-" || b == "-" ? a == b
                                             : std::filesystem::weakly_canonical(a, error) ==
                                                   std::filesystem::weakly_canonical(b, error);
      if (same) {
        throw UsageError(fmt::format(
            "{} and {}: both write {}; give each report its own {}", outputs[i].first,
            outputs[j].first, a == "-" ? "standard output" : a, a == "-" ? "destination" : "file"));
      }
    }
  }
}

// Runs `qacc cosim --dry-run` of the first run: a usage error that every run would hit (a config
// without an RTL build, say) is reported once, before anything runs.
void Preflight(const std::vector<std::string>& tests, const RegressOptions& options) {
  const std::string exe = options.child_command.empty() ? SelfExecutable() : options.child_command;
  std::vector<std::string> args = ChildArgs(exe, ScheduledRun(tests, options, 0), options);
  args.push_back("--dry-run");
  Child child = Spawn(args, 0);
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  Drain(child.out_fd, child.out);
  Drain(child.err_fd, child.err);
  if (child.out_fd >= 0) close(child.out_fd);
  if (child.err_fd >= 0) close(child.err_fd);
  if (child.pid_fd >= 0) close(child.pid_fd);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::string why = Tail(child.err, 1000);
  const std::string prefix = "qacc: error: ";
  if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitUsage) {
    throw UsageError(fmt::format("every run would fail: {}", why));
  }
  throw std::runtime_error(fmt::format("the check run `{} --dry-run` failed: {}",
                                       ReproduceCommand(ScheduledRun(tests, options, 0), options),
                                       why.empty() ? "no message" : why));
}

std::string ListSuites() {
  std::string text;
  for (const sim::Suite& suite : sim::Suites()) {
    text += fmt::format("{}suite {}: {}\n", text.empty() ? "" : "\n", suite.name,
                        suite.description);
    for (const sim::TestInfo& info : suite.tests) {
      text += fmt::format("  {:<20} {}\n", info.name, info.description);
    }
  }
  text += "\nsuite all: every suite above, in this order\n";
  return text;
}

void RunRegress(RegressOptions& options) {
  if (options.list) {
    OutputOptions output;
    output.output_path = options.output_path == "-" ? "" : options.output_path;
    Emit(output, ListSuites(), nullptr);
    return;
  }
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
  RegressInfo info;
  try {
    info.config_name = arch::LoadArchConfig(options.config_path).name;
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--config: {}", e.what()));
  }
  CheckDistinctOutputs(options);
  if (!options.coverage_dir.empty()) {
    if (options.model_only) throw UsageError("--coverage-dir: coverage is of the RTL: not with --model-only");
    std::error_code error;
    std::filesystem::create_directories(options.coverage_dir, error);
    if (error || !std::filesystem::is_directory(options.coverage_dir)) {
      throw UsageError(fmt::format("--coverage-dir: cannot create the directory {}: {}",
                                   options.coverage_dir, error ? error.message() : "not a directory"));
    }
  }
  Preflight(tests, options);

  info.suite = options.suite;
  info.tests = tests;
  info.config_path = options.config_path;
  info.mode = options.model_only ? "model-only" : "lockstep";
  info.seeds_per_test = options.seeds;
  info.seed_base = options.seed_base;
  info.jobs = options.jobs;
  info.timeout_seconds = options.timeout_seconds;
  info.total_runs = uint64_t(options.seeds) * tests.size();
  info.fail_fast = options.fail_fast;
  info.mutant = options.mutant;
  info.timestamp = UtcTimestamp();
  info.hostname = Hostname();
  info.tool_version = ToolVersion();
  info.tool_commit = ToolCommit();
  // The summary goes to -o, else stdout, else (a report takes stdout) standard error.
  const bool report_on_stdout = options.json_path == "-" || options.junit_path == "-";
  const std::string summary_path = !options.output_path.empty() ? options.output_path
                                   : report_on_stdout           ? ""
                                                                : "-";
  RegressReports reports(info, summary_path, options.json_path, options.junit_path);

  const auto start = Clock::now();
  const int stopped_by = Execute(tests, options, reports);
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  if (stopped_by != 0) {
    reports.Finish(wall, SignalName(stopped_by));
    std::fflush(stdout);
    std::_Exit(128 + stopped_by);
  }
  reports.Finish(wall);
  if (reports.passed() != reports.added()) std::exit(1);
  if (options.require_coverage && (reports.coverage().empty() || reports.coverage_holes() > 0)) {
    fmt::print(stderr,
               "qacc regress: --require-coverage: {} of {} coverage bins not hit (listed in the "
               "summary)\n",
               reports.coverage().empty() ? 0 : reports.coverage_holes(), reports.coverage().size());
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
  cmd->add_flag("--list", options->list, "List the suites and their tests, and stop");
  cmd->add_flag("--require-coverage", options->require_coverage,
                "Exit 1 unless the passing lockstep runs hit every functional coverage bin");
  cmd->add_option("--suite", options->suite,
                  "Test suite: " + sim::SuiteNames() + ", or all (required unless --list)");
  cmd->add_option("--seeds", options->seeds,
                  "Seeds per test: every selected test runs with seeds S..S+N-1 (S = --seed-base); "
                  "required unless --list")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()));
  CLI::Option* tests = cmd->add_option(
      "--tests", options->tests, "Comma-separated subset of the suite's tests (default: all)");
  cmd->add_option("--config", options->config_path, "Architecture config JSON passed to every run")
      ->capture_default_str();
  cmd->add_option("-j,--jobs", options->jobs, "Runs in parallel, 1..1024 (default 1)")
      ->check(CLI::Range(1, 1024));
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
      ->check(kPositiveFinite);
  cmd->add_option("--seed-base", options->seed_base_text,
                  fmt::format("First seed (default 1); seeds are {}", kSeedRange));
  cmd->add_flag("--fail-fast", options->fail_fast,
                "Start no run after the first failure (the runs already started finish); the report "
                "lists the runs that ran");
  AddMutantOption(cmd, &options->mutant);
  cmd->add_option("--coverage-dir", options->coverage_dir,
                  "Each run writes its Verilator line/toggle coverage to DIR/TEST.SEED.dat (needs an RTL "
                  "build with coverage: qacc validate makes one)")
      ->check(kNonEmpty);
  // For tests of the runner itself: an executable standing in for `qacc` (it gets the same
  // arguments, starting with `cosim`).
  cmd->add_option("--child-command", options->child_command)->group("");
  cmd->callback([options, tests]() {
    options->tests_given = tests->count() > 0;
    RunRegress(*options);
  });
}

}  // namespace qacc::cli
