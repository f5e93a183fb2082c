// qacc cosim: one GEMM test in lockstep co-simulation (Verilated RTL + SystemC model, checked every
// cycle, outputs vs golden) or, with --model-only, the model alone against the golden. Exit code 0
// pass, 1 fail (mismatch or watchdog), 2 usage error. docs/cosim.md describes the checks and the
// report.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "model/arch.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cosim/cosim.h"
#include "sim/testgen/gemm_tests.h"

namespace qacc::cli {

namespace {

struct CosimArgs {
  std::string test;
  uint64_t seed = 0;
  std::string config = std::string(QACC_SOURCE_DIR) + "/configs/default.json";
  std::string waves;
  int64_t waves_window = 50;
  bool model_only = false;
  std::string fault = "none";
  int64_t watchdog_cycles = 1000;
  int64_t quantum_cycles = 1024;
  OutputOptions output;
};

nlohmann::json MismatchJson(const std::optional<cosim::Mismatch>& m, const std::string& command) {
  if (!m) return nullptr;
  return {{"cycle", m->cycle},       {"unit", m->unit},     {"lane", m->lane},
          {"tile", m->tile},         {"row", m->row},       {"col", m->col},
          {"expected", m->expected}, {"actual", m->actual}, {"command", command}};
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
  return fmt::format("{}: {}: expected {}, actual {}", where, m.what, m.expected, m.actual);
}

std::string ShellQuote(const std::string& s) {
  if (s.find_first_of(" \t'\"$\\") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void RunCosim(const CosimArgs& args) {
  const std::optional<cosim::Fault> fault = cosim::ParseFault(args.fault);
  if (!fault) {
    throw UsageError(fmt::format(
        "--inject-fault: '{}' is not one of none, mac-value, mac-late, requant-value, start-lost",
        args.fault));
  }
  if (args.model_only && (!args.waves.empty() || *fault != cosim::Fault::kNone)) {
    throw UsageError("--waves and --inject-fault need the RTL: not with --model-only");
  }
  cosim::CosimOptions options;
  options.config = arch::LoadArchConfig(args.config);
  options.fault = *fault;
  options.watchdog_cycles = args.watchdog_cycles;
  options.quantum_cycles = args.quantum_cycles;
  model::GemmJob job;
  try {
    job = sim::MakeGemmTest(args.test, args.seed, options.config);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--test: {}", e.what()));
  }
  if (!args.model_only) cosim::FindVariant(options.config, false);  // usage error before running

  const cosim::CosimResult result =
      args.model_only ? cosim::RunModelOnly(options, job) : cosim::RunLockstep(options, job);
  const std::string command =
      cosim::DescribeCommand(options.config, job) +
      (result.launch_cycle > 0 ? fmt::format(", launched at cycle {}", result.launch_cycle) : "");
  std::string reproduce =
      fmt::format("qacc cosim --test {} --seed {} --config {}{}", ShellQuote(args.test), args.seed,
                  ShellQuote(args.config), args.model_only ? " --model-only" : "");
  if (*fault != cosim::Fault::kNone) reproduce += " --inject-fault " + args.fault;

  // Waves: re-run the RTL alone (deterministic: same job, same stimulus) with a traced build and
  // dump only the cycles around the first mismatch (or where the watchdog stopped the run).
  std::string waves_note;
  if (!args.waves.empty() && !result.pass) {
    const int64_t center = result.first ? result.first->cycle : result.cycles;
    cosim::RtlOnlyOptions trace;
    trace.trace_path = args.waves;
    trace.trace_begin = std::max<int64_t>(0, center - args.waves_window);
    trace.trace_end = center + args.waves_window;
    cosim::RunRtlOnly(options, job, trace);
    waves_note = fmt::format("{} (cycles {}..{}, cycle n at n ns)", args.waves, trace.trace_begin,
                             trace.trace_end);
  }

  const double cps = result.wall_seconds > 0 ? double(result.cycles) / result.wall_seconds : 0.0;
  nlohmann::json mismatches;
  for (int u = 0; u < cosim::kNumCheckUnits; ++u) {
    mismatches[cosim::CheckUnitName(static_cast<cosim::CheckUnit>(u))] =
        result.mismatches[size_t(u)];
  }
  const nlohmann::json json = {
      {"test", args.test},
      {"seed", args.seed},
      {"config", args.config},
      {"mode", args.model_only ? "model-only" : "lockstep"},
      {"pass", result.pass},
      {"m", job.m},
      {"n", job.n},
      {"k", job.k},
      {"cycles", result.cycles},
      {"command_cycles", result.command_cycles},
      {"wall_seconds", result.wall_seconds},
      {"cycles_per_second", cps},
      {"mismatches", mismatches},
      {"first_mismatch", MismatchJson(result.first, command)},
      {"reproduce", reproduce},
      {"error", result.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(result.error)}};

  std::string human = fmt::format("cosim {} seed {} config {} ({}): {}\n", args.test, args.seed,
                                  args.config, arch::DescribeArchConfig(options.config),
                                  args.model_only ? "model-only" : "lockstep");
  human += fmt::format("  command: {}\n", command);
  human += fmt::format("  {} cycles (command {}), {:.3f} s, {:.0f} cycles/s\n", result.cycles,
                       result.command_cycles, result.wall_seconds, cps);
  int64_t total = 0;
  for (int64_t c : result.mismatches) total += c;
  if (result.pass) {
    human += "  PASS\n";
  } else {
    human += fmt::format(
        "  FAIL: {} mismatches (mac {}, requant {}, out_write {}, done {}, output {})\n", total,
        result.mismatches[0], result.mismatches[1], result.mismatches[2], result.mismatches[3],
        result.mismatches[4]);
    if (!result.error.empty()) human += fmt::format("  error: {}\n", result.error);
    if (result.first) human += fmt::format("  first mismatch: {}\n", MismatchText(*result.first));
    for (int u = 0; u < cosim::kNumCheckUnits; ++u) {
      const auto& m = result.first_of[size_t(u)];
      if (m &&
          (!result.first || m->cycle != result.first->cycle || m->unit != result.first->unit)) {
        human +=
            fmt::format("  first {} mismatch: {}\n",
                        cosim::CheckUnitName(static_cast<cosim::CheckUnit>(u)), MismatchText(*m));
      }
    }
    if (!waves_note.empty()) human += fmt::format("  waves: {}\n", waves_note);
    human += fmt::format("  reproduce: {}\n", reproduce);
  }
  Emit(args.output, human, json);
  if (!result.pass) std::exit(1);
}

}  // namespace

void RegisterCosimCommand(CLI::App& app) {
  auto args = std::make_shared<CosimArgs>();
  CLI::App* cmd = app.add_subcommand(
      "cosim", "Run one GEMM test in lockstep co-simulation (RTL + SystemC model + golden)");
  cmd->add_option("--test", args->test, "Test name (the gemm suite of sim/testgen)")->required();
  cmd->add_option("--seed", args->seed, "Random seed of the test")->required();
  cmd->add_option("--config", args->config, "Architecture config JSON")->capture_default_str();
  cmd->add_option("--waves", args->waves,
                  "On a mismatch, write an FST of the cycles around the first one to FILE");
  cmd->add_option("--waves-window", args->waves_window, "Cycles traced before and after it")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  cmd->add_flag("--model-only", args->model_only, "Run only the SystemC model against the golden");
  cmd->add_option("--inject-fault", args->fault,
                  "Self-check of the checker: none, mac-value, mac-late, requant-value, start-lost")
      ->capture_default_str();
  cmd->add_option("--watchdog-cycles", args->watchdog_cycles,
                  "End a hung run this many cycles after the predicted completion")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--quantum", args->quantum_cycles,
                  "Cycles between SystemC synchronisations (1: every cycle)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  AddOutputOptions(cmd, &args->output);
  cmd->callback([args] { RunCosim(*args); });
}

}  // namespace qacc::cli
