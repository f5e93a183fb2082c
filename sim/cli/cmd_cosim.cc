// qacc cosim: one test program in lockstep co-simulation (Verilated RTL + SystemC model, checked every
// cycle, outputs vs golden) or, with --model-only, the model alone against the golden. Exit code 0
// pass, 1 fail (mismatch or watchdog), 2 usage error. docs/cosim.md describes the checks and the
// report. Every argument, the --waves path included, is checked before the run; --dry-run stops
// there (qacc regress uses it to find usage errors once, before launching any run).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/network.h"
#include "model/arch.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cli/path_identity.h"
#include "sim/cli/progress.h"
#include "sim/cosim/cosim.h"
#include "sim/testgen/compiled_program.h"
#include "sim/testgen/rng.h"
#include "sim/testgen/suites.h"

namespace qacc::cli {

namespace {

struct CosimArgs {
  std::string test;
  std::vector<int> gemm;  // --gemm M,N,K: a compiled GEMM layer instead of a suite test
  bool no_double_buffer = false, no_chain = false;
  int64_t max_launch = arch::kMaxQCount;  // --max-launch: descriptors per launch (14.4)
  CLI::Option* max_launch_option = nullptr;
  std::string seed_text;
  std::string config = DefaultConfigPath();
  std::string waves;
  bool waves_given = false;  // --waves "" is an error, not "no waves"
  int64_t waves_window = 50;
  bool waves_window_given = false;
  std::string waves_cycles;  // "A..B": trace these cycles, pass or fail
  bool waves_all = false;    // trace every cycle, pass or fail
  bool dry_run = false;
  bool model_only = false;
  std::string fault = "none";
  int64_t watchdog_cycles = 1000;
  int64_t quantum_cycles = 1024;
  int threads = 1;
  int64_t mutant = 0;
  std::string coverage;  // Verilator coverage file
  OutputOptions output;
};

// A mismatch's expected/actual text as a JSON number when it is one ("42", "-7", "0x1f"), else as
// the text.
nlohmann::json ValueJson(const std::string& text) {
  const bool hex = text.rfind("0x", 0) == 0 && text.size() > 2;
  const std::string digits = hex ? text.substr(2) : text;
  const size_t start = !hex && !digits.empty() && digits[0] == '-' ? 1 : 0;
  const bool number = digits.size() > start && digits.size() <= 18 &&
                      digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789",
                                               start) == std::string::npos;
  if (!number) return text;
  return std::stoll(digits, nullptr, hex ? 16 : 10);
}

// The description of a mismatch's command ("" before the first).
std::string CommandText(const sim::Program& program, int command) {
  if (command < 0 || command >= int(program.commands.size())) return "";
  return program.commands[size_t(command)].description;
}

nlohmann::json MismatchJson(const std::optional<cosim::Mismatch>& m, const sim::Program& program) {
  if (!m) return nullptr;
  return {{"cycle", m->cycle},
          {"unit", m->unit},
          {"what", m->what},
          {"lane", m->lane},
          {"tile", m->tile},
          {"tile_row", m->tile_row},
          {"row", m->row},
          {"col", m->col},
          {"expected", ValueJson(m->expected)},
          {"actual", ValueJson(m->actual)},
          {"command_index", m->command},
          {"command", CommandText(program, m->command)}};
}

// The split of a program's cycles (data_movement.md 17.8) from its counters.
struct ProgramSplit {
  uint64_t compute_only = 0, dma_only = 0, overlap = 0, idle = 0;
};
ProgramSplit SplitOf(const model::ProgramPerf& p) {
  ProgramSplit s;
  s.overlap = p.overlap;
  s.compute_only = p.compute_busy - p.overlap;
  s.dma_only = p.dma_busy - p.overlap;
  s.idle = p.cycles - s.compute_only - s.dma_only - s.overlap;
  return s;
}

nlohmann::json ProgramJson(const std::optional<model::ProgramRunResult>& r) {
  if (!r) return nullptr;
  const model::ProgramPerf& p = r->perf;
  const ProgramSplit s = SplitOf(p);
  const uint64_t mac_busy = p.Busy(arch::BeatUnit::kMac);
  nlohmann::json j = {{"error", arch::ErrCodeName(r->error)},
                      {"error_index", r->error_index},
                      {"retired", r->retired},
                      {"cycles", p.cycles},
                      {"mac_utilization", p.cycles ? double(mac_busy) / double(p.cycles) : 0.0},
                      {"compute_busy", p.compute_busy},
                      {"dma_busy", p.dma_busy},
                      {"overlap", s.overlap},
                      {"compute_only", s.compute_only},
                      {"dma_only", s.dma_only},
                      {"idle", s.idle},
                      {"dma_wait", p.dma_wait},
                      {"compute_wait", p.compute_wait},
                      {"port_stall", p.port_stall},
                      {"rd_beats", p.rd_beats},
                      {"wr_beats", p.wr_beats}};
  for (const arch::BeatUnitInfo& unit : arch::kBeatUnits) j[unit.busy] = p.Busy(unit.beat);
  return j;
}

// A compiled program's launches (data_movement.md 14.4) as one: counters and Q_RETIRED summed, the
// last launch's error, and the cycles from the first launch's cycle 0 to the last one's end (the
// host's relaunches included). One launch is itself.
std::optional<model::ProgramRunResult> WholeProgram(const cosim::CosimResult& r) {
  if (r.programs.size() < 2) return r.program;
  model::ProgramRunResult whole;
  for (const cosim::CosimResult::ProgramEnd& p : r.programs) {
    model::AddPerf(whole.perf, p.result.perf);
    whole.retired += p.result.retired;
    whole.error = p.result.error;
    whole.error_index = p.result.error_index;
  }
  const cosim::CosimResult::ProgramEnd& last = r.programs.back();
  whole.perf.cycles =
      uint64_t(last.launch_cycle - r.programs.front().launch_cycle) + last.result.perf.cycles;
  return whole;
}

std::string ProgramText(const model::ProgramRunResult& r) {
  const model::ProgramPerf& p = r.perf;
  const ProgramSplit s = SplitOf(p);
  auto pct = [&p](uint64_t x) { return p.cycles ? 100.0 * double(x) / double(p.cycles) : 0.0; };
  return fmt::format(
      "  program: {} cycles, {} retired, error {}; MAC utilization {:.2f} %\n"
      "  split: compute only {} ({:.1f} %), DMA only {} ({:.1f} %), both {} ({:.1f} %), neither {} "
      "({:.1f} %); token waits DMA {} compute {}; SRAM port stalls {}; {} read beats, {} write "
      "beats\n",
      p.cycles, r.retired, arch::ErrCodeName(r.error), pct(p.Busy(arch::BeatUnit::kMac)),
      s.compute_only, pct(s.compute_only), s.dma_only, pct(s.dma_only), s.overlap, pct(s.overlap),
      s.idle, pct(s.idle), p.dma_wait, p.compute_wait, p.port_stall, p.rd_beats, p.wr_beats);
}

// "cycle 1234, unit mac, lane 1, tile 0 row 1 (output row 1, col 1): value: expected 5, actual 4"
std::string MismatchText(const cosim::Mismatch& m) {
  std::string where = fmt::format("cycle {}, unit {}", m.cycle, m.unit);
  if (m.lane >= 0) where += fmt::format(", lane {}", m.lane);
  if (m.tile >= 0) {
    where += fmt::format(", tile {}", m.tile);
    if (m.tile_row >= 0) where += fmt::format(" row {}", m.tile_row);
    if (m.row >= 0 && m.col >= 0) {
      where += fmt::format(" (output element [{}][{}])", m.row, m.col);
    } else if (m.row >= 0) {
      where += fmt::format(" (output row {})", m.row);
    }
  }
  if (m.command >= 0) where += fmt::format(", command {}", m.command);
  return fmt::format("{}: {}: expected {}, actual {}", where, m.what, m.expected, m.actual);
}

std::string ShellQuote(const std::string& s) {
  if (s.find_first_of(" \t'\"$\\") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// What --waves and its options ask for.
struct WavesPlan {
  bool requested = false;
  bool any_run = false;         // --waves-all or --waves-cycles: trace a passing run too
  int64_t begin = 0, end = -1;  // the cycles of --waves-cycles (end -1: --waves-all)
};

WavesPlan PlanWaves(const CosimArgs& args) {
  WavesPlan plan;
  plan.requested = args.waves_given;
  if (!args.waves_cycles.empty()) {
    const std::string& range = args.waves_cycles;
    const size_t dots = range.find("..");
    auto number = [&range](const std::string& text) -> int64_t {
      const bool digits = !text.empty() && text.size() <= 15 &&
                          text.find_first_not_of("0123456789") == std::string::npos;
      if (!digits) {
        throw UsageError(fmt::format(
            "--waves-cycles: '{}' is not a cycle range: expected FIRST..LAST, two integers "
            "0 <= FIRST <= LAST < 10^15",
            range));
      }
      return std::stoll(text);
    };
    plan.begin = number(range.substr(0, dots));
    plan.end = number(dots == std::string::npos ? std::string() : range.substr(dots + 2));
    if (plan.begin > plan.end) {
      throw UsageError(fmt::format("--waves-cycles: {}: FIRST must be <= LAST", range));
    }
    plan.any_run = true;
  }
  if (args.waves_all) {
    if (!args.waves_cycles.empty()) {
      throw UsageError("--waves-all and --waves-cycles: give one of them");
    }
    plan.any_run = true;
  }
  if (plan.any_run && !plan.requested) {
    throw UsageError(
        fmt::format("{} needs --waves FILE", args.waves_all ? "--waves-all" : "--waves-cycles"));
  }
  if (args.waves_window_given && !plan.requested) {
    throw UsageError("--waves-window needs --waves FILE");
  }
  if (args.waves_window_given && plan.any_run) {
    throw UsageError(
        fmt::format("--waves-window: the cycles around the first mismatch; not with {}, which "
                    "chooses the cycles",
                    args.waves_all ? "--waves-all" : "--waves-cycles"));
  }
  return plan;
}

struct WavesOutcome {
  bool written = false;
  int64_t begin = 0, end = 0;
  std::string reason;  // why not written
};

// Re-runs the RTL alone (deterministic: same job, same stimulus) on the traced build and dumps
// cycles [begin, end] into a temporary file that replaces `path` only when complete. `last_cycle`
// is the last cycle of the run (the re-run has the same cycles).
WavesOutcome WriteWaves(const cosim::CosimOptions& options, const sim::Program& program,
                        const std::string& path, int64_t begin, int64_t end, int64_t last_cycle) {
  WavesOutcome outcome;
  std::string tmp = path + ".tmpXXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) {
    outcome.reason = fmt::format("cannot create a file next to {}: {}", path, std::strerror(errno));
    return outcome;
  }
  SetNewFileMode(fd);  // the trace writer reopens the file by name and keeps its mode
  close(fd);
  cosim::RtlOnlyOptions trace;
  trace.trace_path = tmp;
  trace.trace_begin = begin;
  trace.trace_end = end;
  try {
    cosim::RunRtlOnly(options, program, trace);
    outcome.begin = begin;
    outcome.end = std::min(end, last_cycle);
  } catch (const std::exception& e) {
    std::remove(tmp.c_str());
    outcome.reason = fmt::format("the traced run failed: {}", e.what());
    return outcome;
  }
  std::error_code error;
  if (std::filesystem::file_size(tmp, error) == 0 || error ||
      std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    outcome.reason = fmt::format("the trace could not be written to {}", path);
    return outcome;
  }
  outcome.written = true;
  return outcome;
}

// A run checked and prepared: its options, program and names.
struct CosimPlan {
  uint64_t seed = 0;
  cosim::Fault fault = cosim::Fault::kNone;
  cosim::CosimOptions options;
  sim::Program program;
  std::string test_name, suite_name;
  WavesPlan waves;
};

// The arguments that need no program, in the order their errors are reported: seed, fault, waves,
// output paths, config, threads, and the options only --gemm takes.
CosimPlan CheckArgs(const CosimArgs& args) {
  CosimPlan plan;
  plan.seed = ParseSeed(args.seed_text, "--seed");
  const std::optional<cosim::Fault> fault = cosim::ParseFault(args.fault);
  if (!fault) {
    throw UsageError(fmt::format(
        "--inject-fault: '{}' is not one of {}", args.fault, cosim::FaultNames()));
  }
  plan.fault = *fault;
  plan.waves = PlanWaves(args);
  if (args.model_only && (plan.waves.requested || plan.fault != cosim::Fault::kNone)) {
    throw UsageError("--waves and --inject-fault need the RTL: not with --model-only");
  }
  CheckOutputsDistinct({{"--config", args.config}}, {{"--waves", args.waves},
                                                     {"--coverage", args.coverage},
                                                     {"--output", args.output.output_path}});
  if (plan.waves.requested) CheckOutputPath(args.waves, "--waves");
  if (!args.output.output_path.empty() && args.output.output_path != "-") {
    CheckOutputPath(args.output.output_path, "--output");
  }
  cosim::CosimOptions& options = plan.options;
  try {
    options.config = arch::LoadArchConfig(args.config);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--config: {}", e.what()));
  }
  options.fault = plan.fault;
  options.watchdog_cycles = args.watchdog_cycles;
  options.quantum_cycles = args.quantum_cycles;
  if (args.threads > 1 && args.model_only) {
    throw UsageError(
        "--threads 2: --model-only runs no RTL, so there is nothing for a second thread");
  }
  options.threads = args.threads;
  if (args.test.empty() == args.gemm.empty()) {
    throw UsageError("give either --test NAME or --gemm M,N,K (a compiled GEMM layer)");
  }
  if (args.gemm.empty() && (args.no_double_buffer || args.no_chain)) {
    throw UsageError(fmt::format("{}: only with --gemm (a suite test's program is fixed)",
                                 args.no_double_buffer ? "--no-double-buffer" : "--no-chain"));
  }
  if (args.gemm.empty() && args.max_launch_option->count() > 0) {
    throw UsageError("--max-launch: only with --gemm (a suite test's program is fixed)");
  }
  return plan;
}

// The program: a suite test's, or a GEMM layer compiled by the host compiler.
void MakeProgram(const CosimArgs& args, CosimPlan& plan) {
  plan.test_name = args.test;
  if (args.gemm.empty()) {
    try {
      plan.program = sim::MakeTest(args.test, plan.seed, plan.options.config);
      plan.options.config = sim::TestbenchConfig(plan.options.config, plan.program);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--test: {}", e.what()));
    }
    plan.suite_name = sim::FindSuiteOfTest(args.test)->name;
    return;
  }
  compiler::Network network;
  try {
    network = compiler::GemmNetwork(args.gemm[0], args.gemm[1], args.gemm[2]);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--gemm: {}", e.what()));
  }
  compiler::CompileOptions copts;
  copts.double_buffer = !args.no_double_buffer;
  copts.chain_on_chip = !args.no_chain;
  copts.max_launch_descriptors = uint32_t(args.max_launch);
  try {
    plan.program = sim::CompiledNetworkProgram(plan.options.config, network, copts, plan.seed);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--gemm: {}", e.what()));
  } catch (const compiler::CompileError& e) {
    throw UsageError(fmt::format("--gemm: {}", e.what()));
  }
  plan.test_name = "compiled " + network.name;
  plan.suite_name = "compiled";
}

// The options of the RTL: mutant, power-on state, reset, coverage; the RTL build is checked for
// them.
void CheckRtlOptions(const CosimArgs& args, CosimPlan& plan) {
  cosim::CosimOptions& options = plan.options;
  options.mutant = args.mutant;
  // Each (test, seed) powers on the RTL in its own random state, the same in the waves rerun.
  options.power_on_seed = sim::HashName("power-on " + args.test) ^ plan.seed;
  // Odd seeds reset with the clock stopped, even seeds over clock cycles (spec 10: both are legal).
  options.reset_without_clock = (plan.seed & 1) != 0;
  options.coverage_path = args.coverage;
  if (args.model_only && (args.mutant != 0 || !args.coverage.empty())) {
    throw UsageError("--mutant and --coverage are of the RTL: not with --model-only");
  }
  if (args.model_only) return;
  const cosim::DutVariant& variant = cosim::FindVariant(options.config, plan.waves.requested);
  cosim::CheckMutant(variant, args.mutant);
  if (!args.coverage.empty()) {
    const cosim::DutVariant& untraced = cosim::FindVariant(options.config, false);
    if (!untraced.coverage) {
      throw UsageError(
          fmt::format("--coverage: the RTL build {} has no Verilator coverage (configure with "
                      "-DQACC_COSIM_COVERAGE=ON; qacc validate does)",
                      untraced.name));
    }
    CheckOutputPath(args.coverage, "--coverage");
  }
}

// One command: its description; a program: how many commands of each kind. A program launched with
// CTRL.RUN is neither a legal nor an illegal command of part 1.
std::string DescribeCommands(const sim::Program& program, int64_t launch_cycle) {
  int legal = 0, programs = 0;
  for (const sim::ProgramCommand& c : program.commands) {
    legal += c.job >= 0 ? 1 : 0;
    programs += c.is_program ? 1 : 0;
  }
  const int illegal = int(program.commands.size()) - legal - programs;
  std::string command =
      program.commands.size() == 1
          ? program.commands[0].description
      : legal + illegal == 0
          ? fmt::format("{} launches (CTRL.RUN); the first: {}", programs,
                        program.commands[0].description)
          : fmt::format("program of {} commands ({} legal, {} illegal{})", program.commands.size(),
                        legal, illegal,
                        programs > 0 ? fmt::format(", {} programs", programs) : "");
  if (launch_cycle > 0) command += fmt::format(", launched at cycle {}", launch_cycle);
  return command;
}

// The command line that reproduces the run.
std::string ReproduceCommand(const CosimArgs& args, const CosimPlan& plan) {
  const std::string what =
      args.gemm.empty()
          ? "--test " + ShellQuote(args.test)
          : fmt::format("--gemm {},{},{}{}{}{}", args.gemm[0], args.gemm[1], args.gemm[2],
                        args.no_double_buffer ? " --no-double-buffer" : "",
                        args.no_chain ? " --no-chain" : "",
                        args.max_launch_option->count() > 0
                            ? fmt::format(" --max-launch {}", args.max_launch)
                            : "");
  std::string reproduce =
      fmt::format("qacc cosim {} --seed {} --config {}{}", what, plan.seed, ShellQuote(args.config),
                  args.model_only ? " --model-only" : "");
  if (plan.fault != cosim::Fault::kNone) reproduce += " --inject-fault " + args.fault;
  if (args.mutant != 0) reproduce += fmt::format(" --mutant {}", args.mutant);
  return reproduce;
}

// Waves: by default only of a failing run, the cycles around the first mismatch (or where the
// watchdog stopped the run); --waves-cycles and --waves-all choose the cycles of any run.
WavesOutcome MakeWaves(const CosimArgs& args, const CosimPlan& plan,
                       const cosim::CosimResult& result) {
  WavesOutcome outcome;
  const WavesPlan& waves = plan.waves;
  const int64_t center = result.first ? result.first->cycle : result.cycles;
  int64_t begin = std::max<int64_t>(0, center - args.waves_window);
  int64_t end = center + args.waves_window;
  if (waves.any_run) {
    begin = waves.begin;
    end = waves.end < 0 ? result.cycles - 1 : waves.end;
  }
  if (!waves.any_run && result.pass) {
    outcome.reason =
        "the run passed (--waves-all or --waves-cycles FIRST..LAST trace a passing run)";
  } else if (begin >= result.cycles) {
    outcome.reason = fmt::format("the run has cycles 0..{}, --waves-cycles starts at {}",
                                 result.cycles - 1, begin);
  } else {
    outcome = WriteWaves(plan.options, plan.program, args.waves, begin, end, result.cycles - 1);
  }
  return outcome;
}

// What a report says of the run, besides the result itself.
struct CosimReport {
  std::string command;    // DescribeCommands
  std::string reproduce;  // ReproduceCommand
  nlohmann::json waves = nullptr;
  std::string waves_note;  // the text report's "waves:" line, empty without --waves
};

nlohmann::json ResultJson(const CosimArgs& args, const CosimPlan& plan,
                          const cosim::CosimResult& result, const CosimReport& report) {
  const sim::Program& program = plan.program;
  const double cps = result.wall_seconds > 0 ? double(result.cycles) / result.wall_seconds : 0.0;
  nlohmann::json mismatches, firsts;
  for (int u = 0; u < cosim::kNumCheckUnits; ++u) {
    const char* unit = cosim::CheckUnitName(static_cast<cosim::CheckUnit>(u));
    mismatches[unit] = result.mismatches[size_t(u)];
    firsts[unit] = MismatchJson(result.first_of[size_t(u)], program);
  }
  return {{"test", plan.test_name},
          {"seed", plan.seed},
          {"config", args.config},
          {"config_name", plan.options.config.name},
          {"mode", args.model_only ? "model-only" : "lockstep"},
          {"threads", plan.options.threads},
          {"rtl_thread_cycles", result.rtl_thread_cycles},
          {"tool", {{"version", ToolVersion()}, {"commit", ToolCommit()}}},
          {"pass", result.pass},
          {"suite", plan.suite_name},
          {"m", program.jobs.empty() ? 0 : program.jobs[0].m},
          {"n", program.jobs.empty() ? 0 : program.jobs[0].n},
          {"k", program.jobs.empty() ? 0 : program.jobs[0].k},
          {"command", report.command},
          {"commands", program.commands.size()},
          {"launch_cycle", result.launch_cycle},
          {"cycles", result.cycles},
          {"command_cycles", result.command_cycles},
          {"wall_seconds", result.wall_seconds},
          {"cycles_per_second", cps},
          {"mismatches", mismatches},
          {"first_mismatch", MismatchJson(result.first, program)},
          {"first_mismatches", firsts},
          {"program", ProgramJson(args.gemm.empty() ? result.program : WholeProgram(result))},
          {"launches", result.programs.size()},
          {"coverage",
           result.coverage.empty() ? nlohmann::json(nullptr) : nlohmann::json(result.coverage)},
          {"waves", report.waves},
          {"reproduce", report.reproduce},
          {"error", result.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(result.error)}};
}

std::string ResultText(const CosimArgs& args, const CosimPlan& plan,
                       const cosim::CosimResult& result, const CosimReport& report) {
  const sim::Program& program = plan.program;
  const double cps = result.wall_seconds > 0 ? double(result.cycles) / result.wall_seconds : 0.0;
  std::string human = fmt::format(
      "cosim {} seed {} config {} ({}): {}\n", plan.test_name, plan.seed, args.config,
      arch::DescribeArchConfig(plan.options.config), args.model_only ? "model-only" : "lockstep");
  human += fmt::format("  command: {}\n", report.command);
  human += fmt::format("  {} cycles (command {}), {:.3f} s, {:.0f} cycles/s\n", result.cycles,
                       result.command_cycles, result.wall_seconds, cps);
  if (!args.gemm.empty() && result.programs.size() > 1) {
    human += fmt::format("  {} launches (the host relaunches {} cycles after each DONE, "
                         "data_movement.md 14.4)\n",
                         result.programs.size(), arch::kRelaunchCycles);
  }
  const std::optional<model::ProgramRunResult> shown =
      args.gemm.empty() ? result.program : WholeProgram(result);
  if (shown) human += ProgramText(*shown);
  if (result.pass) {
    human += "  PASS\n";
    if (!report.waves_note.empty()) human += fmt::format("  waves: {}\n", report.waves_note);
    return human;
  }
  int64_t total = 0;
  std::string counts;
  for (const cosim::CheckUnitInfo& unit : cosim::kCheckUnits) {
    total += result.mismatches[size_t(unit.unit)];
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", unit.name,
                          result.mismatches[size_t(unit.unit)]);
  }
  human += fmt::format("  FAIL: {} mismatches ({})\n", total, counts);
  if (!result.error.empty()) human += fmt::format("  error: {}\n", result.error);
  if (result.first) {
    human += fmt::format("  first mismatch: {}\n", MismatchText(*result.first));
    if (program.commands.size() > 1 && result.first->command >= 0) {
      human += fmt::format("  command {}: {}\n", result.first->command,
                           CommandText(program, result.first->command));
    }
  }
  for (int u = 0; u < cosim::kNumCheckUnits; ++u) {
    const auto& m = result.first_of[size_t(u)];
    if (m && (!result.first || m->cycle != result.first->cycle || m->unit != result.first->unit)) {
      human +=
          fmt::format("  first {} mismatch: {}\n",
                      cosim::CheckUnitName(static_cast<cosim::CheckUnit>(u)), MismatchText(*m));
    }
  }
  if (!report.waves_note.empty()) human += fmt::format("  waves: {}\n", report.waves_note);
  human += fmt::format("  reproduce: {}\n", report.reproduce);
  return human;
}

void RunCosim(const CosimArgs& args) {
  CosimPlan plan = CheckArgs(args);
  // On a terminal, a line that follows the golden run of a compiled program and the lockstep.
  TerminalProgress progress("qacc cosim");
  MakeProgram(args, plan);
  CheckRtlOptions(args, plan);
  if (args.dry_run) return;
  // A file from an earlier run at the --waves path would pass for this run's waves.
  if (plan.waves.requested) std::remove(args.waves.c_str());

  const cosim::CosimResult result = args.model_only
                                        ? cosim::RunModelOnly(plan.options, plan.program)
                                        : cosim::RunLockstep(plan.options, plan.program);
  CosimReport report;
  report.command = DescribeCommands(plan.program, result.launch_cycle);
  report.reproduce = ReproduceCommand(args, plan);
  if (plan.waves.requested) {
    const WavesOutcome waves = MakeWaves(args, plan, result);
    report.waves = {{"path", args.waves}, {"written", waves.written}};
    if (waves.written) {
      report.waves["first_cycle"] = waves.begin;
      report.waves["last_cycle"] = waves.end;
      report.waves_note =
          fmt::format("{} (cycles {}..{}, cycle n at n ns)", args.waves, waves.begin, waves.end);
    } else {
      report.waves["reason"] = waves.reason;
      report.waves_note = fmt::format("not written: {}", waves.reason);
    }
  }
  progress.Done();
  Emit(args.output, ResultText(args, plan, result, report), ResultJson(args, plan, result, report));
  if (!result.pass) std::exit(1);
}

// "gemm_random, gemm_k1, ...": the tests of every suite, for --help (descriptions: qacc regress
// --list).
std::string TestList() {
  std::string text;
  for (const sim::Suite& suite : sim::Suites()) {
    for (const sim::TestInfo& info : suite.tests) text += (text.empty() ? "" : ", ") + info.name;
  }
  return text;
}

}  // namespace

void RegisterCosimCommand(CLI::App& app) {
  auto args = std::make_shared<CosimArgs>();
  CLI::App* cmd = app.add_subcommand(
      "cosim", "Run one test in lockstep co-simulation (RTL + SystemC model + golden)");
  cmd->add_option("--test", args->test,
                  "Test of any suite: " + TestList() + " (`qacc regress --list` describes them)");
  AddGemmOption(cmd, &args->gemm,
                "Instead of --test: a GEMM layer compiled into one program (qacc compile) with "
                "random values of --seed, run with CTRL.RUN");
  cmd->add_flag("--no-double-buffer", args->no_double_buffer,
                "With --gemm: compile with one slot per operand (no overlap of DMA and compute)");
  cmd->add_flag("--no-chain", args->no_chain,
                "With --gemm: send every intermediate through external memory");
  args->max_launch_option =
      cmd->add_option("--max-launch", args->max_launch,
                      fmt::format("With --gemm: at most N descriptors per launch; a longer program "
                                  "runs as several (data_movement.md 14.4)"))
          ->capture_default_str()
          ->check(CLI::Range(int64_t{1}, int64_t{arch::kMaxQCount}));
  cmd->add_option("--seed", args->seed_text, fmt::format("Random seed of the test, {}", kSeedRange))
      ->required();
  cmd->add_option("--config", args->config, "Architecture config JSON")->capture_default_str();
  CLI::Option* waves = cmd->add_option(
      "--waves", args->waves,
      "Write an FST of the RTL to FILE: by default only when the run fails, the cycles "
      "around the first mismatch; always says whether it was written");
  cmd->add_option("--waves-window", args->waves_window,
                  "With --waves: cycles traced before and after the first mismatch")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  cmd->add_option("--waves-cycles", args->waves_cycles,
                  "With --waves: trace cycles FIRST..LAST of the run, whether it passes or fails");
  cmd->add_flag("--waves-all", args->waves_all,
                "With --waves: trace every cycle of the run, whether it passes or fails");
  cmd->add_flag("--dry-run", args->dry_run,
                "Check the arguments (test, seed, config, RTL build, output paths) and stop");
  cmd->add_flag("--model-only", args->model_only, "Run only the SystemC model against the golden");
  cmd->add_option("--inject-fault", args->fault,
                  "Self-check of the checker: " + cosim::FaultNames())
      ->capture_default_str();
  cmd->add_option("--watchdog-cycles", args->watchdog_cycles,
                  "End a hung run this many cycles after the predicted completion")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--quantum", args->quantum_cycles,
                  "Cycles between SystemC synchronisations (1: every cycle)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  cmd->add_option("--threads", args->threads,
                  "1, or 2: the RTL runs ahead on a second thread while the run waits for a "
                  "command to end (same results, shorter wall time with a second core free)")
      ->capture_default_str()
      ->check(CLI::Range(1, 2));
  AddMutantOption(cmd, &args->mutant);
  cmd->add_option("--coverage", args->coverage,
                  "Write the RTL's Verilator line/toggle coverage of the run to FILE (needs an RTL "
                  "build with coverage: qacc validate makes one)")
      ->check(kNonEmpty);
  AddOutputOptions(cmd, &args->output);
  cmd->callback([args, waves, cmd] {
    args->waves_given = waves->count() > 0;
    args->waves_window_given = cmd->count("--waves-window") > 0;
    RunCosim(*args);
  });
}

}  // namespace qacc::cli
