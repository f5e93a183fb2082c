// qacc bench: co-simulation speed on one fixed workload (default a 256x256x256 int8 GEMM on the
// config's array; with --program the same layer compiled into a program of DMA and compute
// descriptors launched with CTRL.RUN, data_movement.md 14): the bare Verilated loop (RTL only, same
// host program), the same with the --trace-fst build and tracing off, the lockstep co-simulation
// with one thread and with the RTL on a second thread (--threads 2), and the model-only mode,
// measured by one command (the best of --repeat interleaved runs of each), with their ratios. It
// prints measurements only. A shape whose operands or result do not fit the config's SRAMs is
// refused before anything runs (model/sram_fit.h).
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "compiler/compiler.h"
#include "compiler/network.h"
#include "model/arch.h"
#include "model/gemm_job.h"
#include "model/sram_fit.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cli/path_identity.h"
#include "sim/cli/progress.h"
#include "sim/cosim/cosim.h"
#include "sim/testgen/compiled_program.h"
#include "sim/testgen/program.h"

namespace qacc::cli {

namespace {

struct BenchArgs {
  std::string config = DefaultConfigPath();
  int m = 256, n = 256, k = 256;
  int64_t quantum_cycles = 1024;
  int repeat = 3;
  bool program = false;
  std::string activation;  // a built-in function fused after requant (ACT = LUT); empty: none
  OutputOptions output;
};

// The table of --activation: int8 codes of scale 0.05 in, derived int8 codes out (lut.md 10.4).
constexpr double kBenchActivationInScale = 0.05;

// The fixed workload without its operands: bias, per-tensor double-rounding requant.
model::GemmJob WorkloadShape(int m, int n, int k) {
  model::GemmJob job;
  job.m = m, job.n = n, job.k = k;
  job.bias.assign(size_t(n), 1000);
  job.requant.multiplier = 1 << 30;
  job.requant.shift = -10;
  return job;
}

// Random int8 operands (fixed LCG); only for a shape that fits (CheckFits), so sizes are small.
void FillOperands(model::GemmJob& job) {
  uint32_t state = 1;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<uint8_t>(state >> 24);
  };
  for (size_t i = 0; i < size_t(job.m) * size_t(job.k); ++i) job.a.push_back(next());
  for (size_t i = 0; i < size_t(job.k) * size_t(job.n); ++i) job.b.push_back(next());
}

// Refuses a shape that does not fit the SRAMs: names the SRAM, its words and the largest value of
// each dimension that fits with the other two as given.
void CheckFits(const arch::ArchConfig& config, const model::GemmJob& job) {
  const auto overflow = model::FindSramOverflow(config, job);
  if (!overflow) return;
  std::string fit, none;
  for (auto [dim, flag] : {std::pair{model::Dim::kM, "-m"}, std::pair{model::Dim::kN, "-n"},
                           std::pair{model::Dim::kK, "-k"}}) {
    const int64_t max = model::MaxFittingDim(config, job, dim);
    std::string& list = max > 0 ? fit : none;
    list += (list.empty() ? "" : ", ") +
            (max > 0 ? fmt::format("{} {}", flag, max) : std::string(flag));
  }
  throw UsageError(fmt::format(
      "-m {} -n {} -k {}: does not fit the {} SRAM ({}): it needs {} words and holds {}; "
      "the largest that fit with the other two dimensions as given: {}{}",
      job.m, job.n, job.k, overflow->sram, arch::DescribeArchConfig(config), overflow->formula,
      overflow->available, fit.empty() ? "none" : fit,
      none.empty() ? "" : fmt::format(" ({}: none fits)", none)));
}

// What the report uses of a lockstep run.
struct LockstepTiming {
  bool pass = false;
  int64_t cycles = 0, command_cycles = 0;
  double wall_seconds = 0, check_seconds = 0;
};

// One lockstep run in a child process: a SystemC kernel elaborates once per process, and the
// best of several runs needs several kernels.
LockstepTiming LockstepInChild(const cosim::CosimOptions& options, const sim::Program& program,
                               TerminalProgress& progress) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::fflush(nullptr);
  const pid_t pid = progress.Fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    close(fds[0]);
    // The parent's progress line is the parent's: its mutex is held (the fork happened under it),
    // and its drawing thread was not copied.
    const golden::ProgressScope no_progress(nullptr);
    LockstepTiming t;
    try {
      const cosim::CosimResult r = cosim::RunLockstep(options, program);
      t = {r.pass, r.cycles, r.command_cycles, r.wall_seconds, r.check_seconds};
    } catch (const std::exception& e) {
      std::fprintf(stderr, "qacc bench: lockstep run: %s\n", e.what());
    }
    const bool written = write(fds[1], &t, sizeof t) == ssize_t(sizeof t);
    _exit(written ? 0 : 1);
  }
  close(fds[1]);
  LockstepTiming t;
  const ssize_t got = read(fds[0], &t, sizeof t);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got != ssize_t(sizeof t) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("qacc bench: the lockstep run's process ended without a result");
  }
  return t;
}

void RunBench(const BenchArgs& args) {
  CheckOutputsDistinct({{"--config", args.config}}, {{"--output", args.output.output_path}});
  TerminalProgress progress("qacc bench");  // which run of which mode, on a terminal
  cosim::CosimOptions options;
  try {
    options.config = arch::LoadArchConfig(args.config);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--config: {}", e.what()));
  }
  options.quantum_cycles = args.quantum_cycles;
  model::GemmJob job = WorkloadShape(args.m, args.n, args.k);
  if (!args.activation.empty() && !golden::FindElementwise(args.activation)) {
    throw UsageError(fmt::format("--activation: '{}' is not one of {}", args.activation,
                                 golden::ElementwiseChoices()));
  }
  sim::Program program;
  if (args.program) {
    // The layer as `qacc cosim --gemm` runs it: the compiler tiles it over the SRAMs.
    compiler::Network network = compiler::GemmNetwork(args.m, args.n, args.k);
    network.layers[0].activation.function = args.activation;
    network.layers[0].activation.in_scale = kBenchActivationInScale;
    try {
      program = sim::CompiledNetworkProgram(options.config, network, {}, 1);
    } catch (const compiler::CompileError& e) {
      throw UsageError(fmt::format("--program: {}", e.what()));
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--program: {}", e.what()));
    }
    cosim::FindVariant(options.config, false);
  } else {
    if (!args.activation.empty()) {
      golden::LutSpec spec;
      spec.in.scale = kBenchActivationInScale;
      spec.derive_out = true;
      job.lut = golden::BuildLut(golden::GetElementwise(args.activation), spec);
    }
    CheckFits(options.config, job);  // before the operands: 65535^3 would need 8 GB of them
    FillOperands(job);
    cosim::FindVariant(options.config, false);
    // The same program as `qacc cosim` runs for one job: every register, the output and every SRAM
    // compared after the command.
    program = sim::SingleJobProgram(options.config, job);
  }

  // Best of `repeat` runs of every mode, interleaved so that a slow spell of the machine hits all
  // of them alike.
  cosim::RtlOnlyOptions traced_options;
  traced_options.traced_build = true;
  cosim::RtlOnlyResult bare, traced;
  cosim::CosimResult model_only;
  LockstepTiming lockstep, lockstep2;
  cosim::CosimOptions options2 = options;
  options2.threads = 2;
  auto keep_best = [](LockstepTiming& best, const LockstepTiming& l, int run) {
    if (run == 0 || !l.pass || (best.pass && l.wall_seconds < best.wall_seconds)) best = l;
  };
  for (int run = 0; run < args.repeat; ++run) {
    auto stage = [&](const char* mode) {
      progress.Status(fmt::format("run {} of {}: {}", run + 1, args.repeat, mode), true);
    };
    stage("RTL only");
    const cosim::RtlOnlyResult b = cosim::RunRtlOnly(options, program);
    if (run == 0 || b.wall_seconds < bare.wall_seconds) bare = b;
    stage("RTL only, --trace-fst build");
    const cosim::RtlOnlyResult t = cosim::RunRtlOnly(options, program, traced_options);
    if (run == 0 || t.wall_seconds < traced.wall_seconds) traced = t;
    stage("model only");
    const cosim::CosimResult mo = cosim::RunModelOnly(options, program);
    if (run == 0 || mo.wall_seconds < model_only.wall_seconds) model_only = mo;
    stage("lockstep");
    keep_best(lockstep, LockstepInChild(options, program, progress), run);
    stage("lockstep, --threads 2");
    keep_best(lockstep2, LockstepInChild(options2, program, progress), run);
  }
  progress.Done();

  auto cps = [](int64_t cycles, double seconds) {
    return seconds > 0 ? double(cycles) / seconds : 0.0;
  };
  const double bare_cps = cps(bare.cycles, bare.wall_seconds);
  const double traced_cps = cps(traced.cycles, traced.wall_seconds);
  const double lockstep_cps = cps(lockstep.cycles, lockstep.wall_seconds);
  const double model_cps = cps(model_only.cycles, model_only.wall_seconds);
  const double lockstep_vs_bare = bare_cps > 0 ? lockstep_cps / bare_cps : 0;
  const double lockstep2_cps = cps(lockstep2.cycles, lockstep2.wall_seconds);
  const double lockstep2_vs_bare = bare_cps > 0 ? lockstep2_cps / bare_cps : 0;
  const double model_vs_lockstep =
      model_only.wall_seconds > 0 ? lockstep.wall_seconds / model_only.wall_seconds : 0;
  // Without the final golden comparison (golden::Gemm of the whole job) on either side.
  const double model_run = model_only.wall_seconds - model_only.check_seconds;
  const double lockstep_run = lockstep.wall_seconds - lockstep.check_seconds;
  const double model_vs_lockstep_run = model_run > 0 ? lockstep_run / model_run : 0;
  const bool ok = lockstep.pass && lockstep2.pass && model_only.pass && bare.done;

  const nlohmann::json json = {
      {"config", args.config},
      {"m", job.m},
      {"n", job.n},
      {"k", job.k},
      {"program", args.program},
      {"activation", args.activation},
      {"cycles", lockstep.cycles},
      {"command_cycles", lockstep.command_cycles},
      {"quantum_cycles", args.quantum_cycles},
      {"repeat", args.repeat},
      {"rtl_only",
       {{"cycles", bare.cycles},
        {"wall_seconds", bare.wall_seconds},
        {"cycles_per_second", bare_cps}}},
      {"rtl_only_trace_build",
       {{"cycles", traced.cycles},
        {"wall_seconds", traced.wall_seconds},
        {"cycles_per_second", traced_cps}}},
      {"lockstep",
       {{"cycles", lockstep.cycles},
        {"wall_seconds", lockstep.wall_seconds},
        {"cycles_per_second", lockstep_cps},
        {"pass", lockstep.pass}}},
      {"lockstep_2_threads",
       {{"cycles", lockstep2.cycles},
        {"wall_seconds", lockstep2.wall_seconds},
        {"cycles_per_second", lockstep2_cps},
        {"pass", lockstep2.pass}}},
      {"model_only",
       {{"cycles", model_only.cycles},
        {"wall_seconds", model_only.wall_seconds},
        {"cycles_per_second", model_cps},
        {"check_seconds", model_only.check_seconds},
        {"pass", model_only.pass}}},
      {"lockstep_vs_rtl_only", lockstep_vs_bare},
      {"lockstep_2_threads_vs_rtl_only", lockstep2_vs_bare},
      {"trace_build_vs_rtl_only", bare_cps > 0 ? traced_cps / bare_cps : 0},
      {"model_only_speedup_vs_lockstep", model_vs_lockstep},
      {"model_only_speedup_vs_lockstep_without_golden_check", model_vs_lockstep_run}};
  std::string human = fmt::format(
      "bench: {}x{}x{} GEMM{}{} on {} ({} cycles, command {})\n", job.m, job.n, job.k,
      args.activation.empty() ? "" : " + " + args.activation + " (LUT)",
      args.program ? " program (CTRL.RUN)" : "", arch::DescribeArchConfig(options.config),
      lockstep.cycles, lockstep.command_cycles);
  human += fmt::format("  {:<28} {:>9.3f} s {:>12.0f} cycles/s\n", "RTL only (bare Verilator)",
                       bare.wall_seconds, bare_cps);
  human += fmt::format("  {:<28} {:>9.3f} s {:>12.0f} cycles/s  ({:.2f} x bare)\n",
                       "RTL only, --trace-fst build", traced.wall_seconds, traced_cps,
                       bare_cps > 0 ? traced_cps / bare_cps : 0);
  human +=
      fmt::format("  {:<28} {:>9.3f} s {:>12.0f} cycles/s  ({:.2f} x bare){}\n",
                  fmt::format("lockstep (quantum {})", args.quantum_cycles), lockstep.wall_seconds,
                  lockstep_cps, lockstep_vs_bare, lockstep.pass ? "" : "  FAILED");
  human += fmt::format("  {:<28} {:>9.3f} s {:>12.0f} cycles/s  ({:.2f} x bare){}\n",
                       "lockstep, --threads 2", lockstep2.wall_seconds, lockstep2_cps,
                       lockstep2_vs_bare, lockstep2.pass ? "" : "  FAILED");
  human += fmt::format(
      "  {:<28} {:>9.3f} s {:>12.0f} cycles/s  ({:.0f} x faster than lockstep){}\n", "model only",
      model_only.wall_seconds, model_cps, model_vs_lockstep, model_only.pass ? "" : "  FAILED");
  human +=
      fmt::format("  {:<28} {:>9.3f} s (lockstep {:.3f} s: {:.0f} x)\n",
                  "model only w/o golden check", model_run, lockstep_run, model_vs_lockstep_run);
  Emit(args.output, human, json);
  if (!ok) std::exit(1);
}

}  // namespace

void RegisterBenchCommand(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Co-simulation speed: bare RTL, lockstep and model-only on one GEMM");
  cmd->add_option("--config", args->config, "Architecture config JSON")->capture_default_str();
  cmd->add_option("-m", args->m, "GEMM M")->capture_default_str()->check(CLI::Range(1, 65535));
  cmd->add_option("-n", args->n, "GEMM N")->capture_default_str()->check(CLI::Range(1, 65535));
  cmd->add_option("-k", args->k, "GEMM K")->capture_default_str()->check(CLI::Range(1, 65535));
  cmd->add_option("--quantum", args->quantum_cycles,
                  "Cycles between SystemC synchronisations in lockstep (1: every cycle)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  cmd->add_option("--activation", args->activation,
                  "Fuse FUNCTION's table after requant (CMD_MODE.ACT = LUT, docs/lut.md 10.4): " +
                      golden::ElementwiseChoices());
  cmd->add_flag("--program", args->program,
                "Compile the GEMM into a program of LOAD/GEMM/STORE descriptors (qacc compile) and "
                "run it with CTRL.RUN instead of one command");
  cmd->add_option(
         "--repeat", args->repeat,
         "Runs of each mode, interleaved (best kept; each lockstep run in its own process)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  AddOutputOptions(cmd, &args->output);
  cmd->callback([args] { RunBench(*args); });
}

}  // namespace qacc::cli
