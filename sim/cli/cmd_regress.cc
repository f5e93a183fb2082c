// qacc regress: runs a test suite as many (test, seed) pairs, each in its own process
//   qacc cosim --test NAME --seed N [--config FILE] --json [--model-only]
// (this same binary, /proc/self/exe), J processes at a time, with a per-run timeout. A SystemC
// kernel elaborates once per process, and a crash or a hang of one run must not take the regression
// down: a child killed by a signal or by the timeout is a failure like a mismatch, and the rest
// goes on.
//
// Schedule (docs/testplan.md): --seeds N runs every selected test with seeds S..S+N-1 (S =
// --seed-base), seed-major: (s, t0), (s, t1), ..., (s+1, t0), ... The schedule and the report order
// depend only on the arguments, never on timing, so the same arguments give the same table (up to
// wall times).
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
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
#include "sim/testgen/gemm_tests.h"

extern char** environ;

namespace qacc::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct RegressOptions {
  std::string suite;
  int64_t seeds = 1;
  std::string tests;  // comma-separated subset; empty: the whole suite
  std::string config_path;
  int jobs = 1;
  std::string junit_path;
  std::string json_path;
  bool model_only = false;
  double timeout_seconds = 300.0;
  int64_t seed_base = 1;
  std::string child_command;  // hidden, for tests: the executable run instead of /proc/self/exe
};

// One scheduled (test, seed) pair and its outcome.
struct Run {
  std::string test;
  uint64_t seed = 0;
  // Outcome.
  std::string status;  // "pass", "fail" (mismatch or error), "crash", "timeout", "usage"
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  int64_t cycles = 0;
  double cycles_per_second = 0.0;
  double wall_seconds = 0.0;
  std::string message;  // why it failed (empty on pass)
  std::string reproduce;
  nlohmann::json result;  // the child's JSON document, or null
  std::string stderr_tail;

  bool passed() const { return status == "pass"; }
};

// The suites `qacc regress` knows: name -> test names in plan order.
std::vector<std::string> SuiteTests(const std::string& suite) {
  if (suite != "gemm") {
    throw UsageError(fmt::format("--suite: unknown suite '{}', expected one of: gemm", suite));
  }
  std::vector<std::string> names;
  for (const sim::GemmTestInfo& info : sim::GemmTests()) names.push_back(info.name);
  return names;
}

std::vector<std::string> SelectTests(const RegressOptions& options) {
  const std::vector<std::string> all = SuiteTests(options.suite);
  if (options.tests.empty()) return all;
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

// Seed-major: every test once per seed, so an interrupted or early-failing regression has still
// covered the whole plan.
std::vector<Run> Schedule(const std::vector<std::string>& tests, const RegressOptions& options) {
  std::vector<Run> runs;
  for (int64_t i = 0; i < options.seeds; ++i) {
    for (const std::string& test : tests) {
      Run run;
      run.test = test;
      run.seed = uint64_t(options.seed_base + i);
      runs.push_back(std::move(run));
    }
  }
  return runs;
}

std::string SelfExecutable() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot resolve /proc/self/exe: " + error.message());
  return path.string();
}

std::vector<std::string> ChildArgs(const std::string& exe, const Run& run,
                                   const RegressOptions& options) {
  std::vector<std::string> args = {exe,      "cosim",  "--test",
                                   run.test, "--seed", std::to_string(run.seed)};
  if (!options.config_path.empty()) {
    args.push_back("--config");
    args.push_back(options.config_path);
  }
  args.push_back("--json");
  if (options.model_only) args.push_back("--model-only");
  return args;
}

std::string ReproduceCommand(const Run& run, const RegressOptions& options) {
  std::string text = fmt::format("qacc cosim --test {} --seed {}", run.test, run.seed);
  if (!options.config_path.empty()) text += " --config " + options.config_path;
  if (options.model_only) text += " --model-only";
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
    run.status = "crash";
    run.message = "crashed: " + SignalName(run.signal);
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

// Runs every run with at most `jobs` children at a time; prints one progress line per finished run
// on stderr.
void Execute(std::vector<Run>& runs, const RegressOptions& options) {
  const std::string exe = options.child_command.empty() ? SelfExecutable() : options.child_command;
  const auto timeout = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options.timeout_seconds));
  std::vector<Child> active;
  size_t next = 0, finished = 0;
  while (finished < runs.size()) {
    while (active.size() < size_t(options.jobs) && next < runs.size()) {
      try {
        active.push_back(Spawn(ChildArgs(exe, runs[next], options), next));
      } catch (const std::runtime_error& e) {
        Run& run = runs[next];
        run.status = "fail";
        run.message = e.what();
        run.reproduce = ReproduceCommand(run, options);
        ++finished;
      }
      ++next;
    }
    if (active.empty()) continue;
    std::vector<pollfd> fds;
    for (const Child& child : active) {
      if (child.out_fd >= 0) fds.push_back({child.out_fd, POLLIN, 0});
      if (child.err_fd >= 0) fds.push_back({child.err_fd, POLLIN, 0});
    }
    poll(fds.data(), fds.size(), 50);
    for (size_t i = 0; i < active.size();) {
      Child& child = active[i];
      Drain(child.out_fd, child.out);
      Drain(child.err_fd, child.err);
      if (!child.timed_out && Clock::now() - child.start > timeout) {
        child.timed_out = true;
        KillGroup(child.pid);
      }
      int status = 0;
      const pid_t done = waitpid(child.pid, &status, WNOHANG);
      if (done != child.pid) {
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
      Run& run = runs[child.run_index];
      Classify(child, status, options, run);
      ++finished;
      fmt::print(stderr, "[{}/{}] {:<7} {} seed {} ({:.2f} s){}\n", finished, runs.size(),
                 run.passed() ? "PASS" : "FAIL", run.test, run.seed, run.wall_seconds,
                 run.passed() ? "" : ": " + run.message);
      active.erase(active.begin() + std::ptrdiff_t(i));
    }
  }
}

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters even escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string JunitXml(const std::vector<Run>& runs, const RegressOptions& options, double wall) {
  size_t failures = 0, errors = 0;
  for (const Run& run : runs) {
    if (run.status == "fail") ++failures;
    if (!run.passed() && run.status != "fail") ++errors;
  }
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format(
      "<testsuites name=\"qacc regress\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "time=\"{:.3f}\">\n",
      runs.size(), failures, errors, wall);
  xml += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n",
      XmlEscape(options.suite), runs.size(), failures, errors, wall);
  for (const Run& run : runs) {
    xml += fmt::format("    <testcase classname=\"{}.{}\" name=\"{}.seed{}\" time=\"{:.3f}\"",
                       XmlEscape(options.suite), XmlEscape(run.test), XmlEscape(run.test), run.seed,
                       run.wall_seconds);
    if (run.passed()) {
      xml += "/>\n";
      continue;
    }
    // A mismatch or an error result is a failure; a crash, a timeout or a usage error of the child
    // is an error (the test could not judge the design).
    const std::string tag = run.status == "fail" ? "failure" : "error";
    xml += ">\n";
    xml += fmt::format("      <{} type=\"{}\" message=\"{}\">{}&#10;reproduce: {}</{}>\n", tag,
                       run.status, XmlEscape(run.message), XmlEscape(run.message),
                       XmlEscape(run.reproduce), tag);
    if (!run.stderr_tail.empty()) {
      xml += fmt::format("      <system-err>{}</system-err>\n", XmlEscape(run.stderr_tail));
    }
    xml += "    </testcase>\n";
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

nlohmann::json ReportJson(const std::vector<Run>& runs, const RegressOptions& options,
                          double wall) {
  nlohmann::json list = nlohmann::json::array();
  size_t passed = 0;
  int64_t cycles = 0;
  for (const Run& run : runs) {
    passed += run.passed();
    cycles += run.cycles;
    list.push_back({{"test", run.test},
                    {"seed", run.seed},
                    {"pass", run.passed()},
                    {"status", run.status},
                    {"exit_code", run.exit_code},
                    {"signal", run.signal == 0 ? nlohmann::json(nullptr)
                                               : nlohmann::json(SignalName(run.signal))},
                    {"cycles", run.cycles},
                    {"cycles_per_second", run.cycles_per_second},
                    {"wall_seconds", run.wall_seconds},
                    {"message", run.message},
                    {"reproduce", run.reproduce},
                    {"result", run.result}});
  }
  return {{"suite", options.suite},
          {"config", options.config_path.empty() ? nlohmann::json(nullptr)
                                                 : nlohmann::json(options.config_path)},
          {"mode", options.model_only ? "model-only" : "lockstep"},
          {"seeds_per_test", options.seeds},
          {"seed_base", options.seed_base},
          {"jobs", options.jobs},
          {"timeout_seconds", options.timeout_seconds},
          {"total", runs.size()},
          {"passed", passed},
          {"failed", runs.size() - passed},
          {"simulated_cycles", cycles},
          {"wall_seconds", wall},
          {"runs", list}};
}

std::string SummaryTable(const std::vector<Run>& runs, double wall) {
  size_t width = 4;
  for (const Run& run : runs) width = std::max(width, run.test.size());
  std::string text = fmt::format("{:<{}}  {:>10}  {:<7}  {:>12}  {:>12}  {:>8}\n", "test", width,
                                 "seed", "result", "cycles", "cycles/s", "wall s");
  size_t passed = 0;
  int64_t cycles = 0;
  for (const Run& run : runs) {
    passed += run.passed();
    cycles += run.cycles;
    text += fmt::format("{:<{}}  {:>10}  {:<7}  {:>12}  {:>12.0f}  {:>8.2f}\n", run.test, width,
                        run.seed, run.passed() ? "pass" : run.status, run.cycles,
                        run.cycles_per_second, run.wall_seconds);
  }
  text += fmt::format("\n{} runs: {} passed, {} failed; {} simulated cycles in {:.2f} s wall\n",
                      runs.size(), passed, runs.size() - passed, cycles, wall);
  for (const Run& run : runs) {
    if (run.passed()) continue;
    text += fmt::format("FAIL {} seed {}: {}\n  reproduce: {}\n", run.test, run.seed, run.message,
                        run.reproduce);
  }
  return text;
}

void CheckOutputDir(const std::string& path, const char* option) {
  if (path.empty()) return;
  const auto dir = std::filesystem::absolute(path).parent_path();
  if (!std::filesystem::is_directory(dir)) {
    throw UsageError(fmt::format("{}: directory {} does not exist", option, dir.string()));
  }
}

void WriteReport(const std::string& path, const char* option, const std::string& content) {
  try {
    WriteFileAtomically(path, content);
  } catch (const UsageError& e) {
    std::string what = e.what();
    if (what.rfind("--output", 0) == 0) what = option + what.substr(8);
    throw UsageError(what);
  }
}

void RunRegress(const RegressOptions& options) {
  if (options.seeds < 1) {
    throw UsageError(fmt::format("--seeds: {} is out of range, must be >= 1", options.seeds));
  }
  if (options.jobs < 1) {
    throw UsageError(fmt::format("-j/--jobs: {} is out of range, must be >= 1", options.jobs));
  }
  if (!(options.timeout_seconds > 0) || !std::isfinite(options.timeout_seconds)) {
    throw UsageError(
        fmt::format("--timeout: {} is out of range, must be > 0 seconds", options.timeout_seconds));
  }
  if (options.seed_base < 0) {
    throw UsageError(
        fmt::format("--seed-base: {} is out of range, must be >= 0", options.seed_base));
  }
  const std::vector<std::string> tests = SelectTests(options);
  if (!options.config_path.empty()) {
    try {
      arch::LoadArchConfig(options.config_path);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--config: {}", e.what()));
    }
  }
  CheckOutputDir(options.junit_path, "--junit");
  CheckOutputDir(options.json_path, "--json");

  std::vector<Run> runs = Schedule(tests, options);
  const auto start = Clock::now();
  Execute(runs, options);
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();

  std::fputs(SummaryTable(runs, wall).c_str(), stdout);
  std::fflush(stdout);
  if (!options.junit_path.empty()) {
    WriteReport(options.junit_path, "--junit", JunitXml(runs, options, wall));
  }
  if (!options.json_path.empty()) {
    WriteReport(options.json_path, "--json", ReportJson(runs, options, wall).dump(2) + "\n");
  }
  const bool all_passed =
      std::all_of(runs.begin(), runs.end(), [](const Run& run) { return run.passed(); });
  if (!all_passed) std::exit(1);
}

}  // namespace

void RegisterRegressCommand(CLI::App& app) {
  auto options = std::make_shared<RegressOptions>();
  CLI::App* cmd = app.add_subcommand(
      "regress",
      "Run a test suite as many (test, seed) pairs, each as its own `qacc cosim` process, J at a "
      "time; print a summary, write JUnit/JSON reports, exit 1 on any failure");
  cmd->add_option("--suite", options->suite, "Test suite: gemm")->required();
  cmd->add_option("--seeds", options->seeds,
                  "Seeds per test: every selected test runs with seeds S..S+N-1 (S = --seed-base)")
      ->required();
  cmd->add_option("--tests", options->tests,
                  "Comma-separated subset of the suite's tests (default: all)");
  cmd->add_option("--config", options->config_path,
                  "Architecture config JSON passed to every run (default: the cosim default)");
  cmd->add_option("-j,--jobs", options->jobs, "Runs in parallel (default 1)");
  cmd->add_option("--junit", options->junit_path, "Write a JUnit XML report to FILE (atomically)");
  cmd->add_option("--json", options->json_path, "Write a JSON report to FILE (atomically)");
  cmd->add_flag("--model-only", options->model_only,
                "Run the model-only mode instead of the lockstep co-simulation");
  cmd->add_option("--timeout", options->timeout_seconds,
                  "Seconds per run before the child is killed and recorded as a failure (default "
                  "300)");
  cmd->add_option("--seed-base", options->seed_base, "First seed (default 1)");
  // For tests of the runner itself: an executable standing in for `qacc` (it gets the same
  // arguments, starting with `cosim`).
  cmd->add_option("--child-command", options->child_command)->group("");
  cmd->callback([options]() { RunRegress(*options); });
}

}  // namespace qacc::cli
