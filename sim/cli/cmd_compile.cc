// qacc compile: lowers a chain of GEMM layers into a program of LOAD, GEMM, MOVE, ELTWISE and STORE
// descriptors for a config (docs/data_movement.md 16), prints the plan, writes the program, and
// with --check runs it on the golden executor with random values against the layers computed on
// whole matrices. With --timing it runs the program on the cycle-level model (the program engine
// against the testbench memory, 17) and reports its cycles, the MAC array's utilization and the
// counters of 17.8.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/ext_image.h"
#include "compiler/launches.h"
#include "compiler/reference.h"
#include "golden/program.h"
#include "model/arch.h"
#include "model/ext_memory.h"
#include "model/program_engine.h"
#include "model/srams.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/cli/path_identity.h"
#include "sim/cli/progress.h"
#include "sim/testgen/compiled_program.h"

namespace qacc::cli {

namespace {

struct CompileCliOptions {
  std::string network_path;
  std::vector<int> gemm;  // M, N, K
  std::string config_path = DefaultConfigPath();
  bool no_double_buffer = false;
  bool no_chain = false;
  std::string program_path;
  bool check = false;
  bool timing = false;
  int64_t mem_latency = 0;  // with --mem-latency: Lm instead of the config's ext_mem.latency
  int64_t mem_interval = 0;
  CLI::Option* mem_latency_option = nullptr;
  CLI::Option* mem_interval_option = nullptr;
  std::string seed_text = "1";
  bool seed_given = false;
  int64_t max_launch = arch::kMaxQCount;  // descriptors per launch (data_movement.md 14.4)
  OutputOptions output;
};

// The testbench memory's timing (data_movement.md 15.2) from the config and the overrides.
constexpr int64_t kMaxMemLatency = 1024, kMaxMemInterval = 64;

int MemOption(const CLI::Option* option, int64_t value, int config_value, const char* name,
              int64_t max) {
  if (option == nullptr || option->count() == 0) return config_value;
  if (value < 1 || value > max) {
    throw UsageError(fmt::format("{}: {} is out of range, allowed 1..{}", name, value, max));
  }
  return int(value);
}

// The model's run of a compiled program (--timing).
struct TimingRun {
  int latency = 0, interval = 0;
  model::ProgramRunResult result;
  double wall_seconds = 0;
  golden::MemoryImage ext;  // the first program.ext_bytes bytes of the memory afterwards
};

TimingRun RunTiming(const arch::ArchConfig& config, const compiler::CompiledProgram& program,
                    const golden::MachineState& inputs, int latency, int interval) {
  if (uint64_t{program.ext_bytes} > config.ext_mem_size_bytes) {
    throw UsageError(fmt::format(
        "--config: ext_mem.size_bytes = {} is smaller than the {} bytes the program needs",
        config.ext_mem_size_bytes, program.ext_bytes));
  }
  TimingRun run;
  run.latency = latency;
  run.interval = interval;
  model::ExtMemory memory(config.ext_mem_size_bytes, {config.mem_data_bytes, latency, interval});
  memory.Write(0, inputs.ext.data(), program.ext_bytes);
  model::Srams srams(config);
  const auto start = std::chrono::steady_clock::now();
  run.result = model::RunLaunches(config, memory, srams, sim::ModelLaunches(program));
  run.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.ext = golden::MemoryImage(program.ext_bytes);
  run.ext.Write(0, memory.image().data(), program.ext_bytes);
  return run;
}

double Percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * double(part) / double(whole);
}

const char* KindName(compiler::TensorPlacement::Kind kind) {
  using Kind = compiler::TensorPlacement::Kind;
  switch (kind) {
    case Kind::kInput:
      return "input";
    case Kind::kWeights:
      return "weights";
    case Kind::kBias:
      return "bias";
    case Kind::kRq:
      return "rq";
    case Kind::kTable:
      return "table";
    case Kind::kIntermediate:
      return "intermediate";
    case Kind::kOutput:
      return "output";
    case Kind::kResidual:
      return "residual";
  }
  return "?";
}

const char* LayoutName(compiler::TensorPlacement::Layout layout) {
  using Layout = compiler::TensorPlacement::Layout;
  switch (layout) {
    case Layout::kRowPanels:
      return "row panels";
    case Layout::kColumnPanels:
      return "column panels";
    case Layout::kRowMajor:
      return "row-major";
    case Layout::kPackedWords:
      return "packed";
    case Layout::kTiles:
      return "tiles";
  }
  return "?";
}

compiler::Network LoadNetwork(const CompileCliOptions& o) {
  if (!o.network_path.empty() && !o.gemm.empty()) {
    throw UsageError("give either NETWORK or --gemm, not both");
  }
  if (o.network_path.empty() && o.gemm.empty()) {
    throw UsageError("NETWORK: missing; give a network JSON file or --gemm M,N,K");
  }
  if (!o.gemm.empty()) {
    try {
      return compiler::GemmNetwork(o.gemm[0], o.gemm[1], o.gemm[2]);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--gemm: {}", e.what()));
    }
  }
  return compiler::ParseNetwork(ReadInputFile(o.network_path, "NETWORK"), o.network_path);
}

std::string ProgramBytes(const compiler::CompiledProgram& program) {
  std::string bytes;
  bytes.reserve(program.descriptors.size() * golden::kDescriptorBytes);
  for (const golden::Descriptor& d : program.descriptors) {
    for (uint32_t w : d) {
      for (int b = 0; b < 4; ++b) bytes.push_back(char(uint8_t(w >> (8 * b))));
    }
  }
  return bytes;
}

void RunCompile(const CompileCliOptions& o) {
  TerminalProgress progress("qacc compile");  // --check and --timing, on a terminal
  arch::ArchConfig config;
  try {
    config = arch::LoadArchConfig(o.config_path);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--config: {}", e.what()));
  }
  const uint64_t seed = ParseSeed(o.seed_text, "--seed");
  if (o.seed_given && !o.check && !o.timing) {
    throw UsageError("--seed: only with --check or --timing (it seeds their random values)");
  }
  const int latency = MemOption(o.mem_latency_option, o.mem_latency, config.ext_mem_latency,
                                "--mem-latency", kMaxMemLatency);
  const int interval = MemOption(o.mem_interval_option, o.mem_interval, config.ext_mem_interval,
                                 "--mem-interval", kMaxMemInterval);
  if (!o.timing && (o.mem_latency_option->count() || o.mem_interval_option->count())) {
    throw UsageError("--mem-latency and --mem-interval: only with --timing");
  }
  CheckOutputsDistinct({{"NETWORK", o.network_path}, {"--config", o.config_path}},
                       {{"--program", o.program_path}, {"--output", o.output.output_path}});
  if (!o.program_path.empty()) CheckOutputPath(o.program_path, "--program");
  if (!o.output.output_path.empty() && o.output.output_path != "-") {
    CheckOutputPath(o.output.output_path, "--output");
  }
  const compiler::Network network = LoadNetwork(o);
  compiler::CompileOptions copts;
  copts.double_buffer = !o.no_double_buffer;
  copts.chain_on_chip = !o.no_chain;
  copts.max_launch_descriptors = uint32_t(o.max_launch);
  compiler::CompiledProgram program;
  try {
    program = compiler::Compile(config, network, copts);
  } catch (const compiler::CompileError& e) {
    throw UsageError(e.what());  // exit 2: the layer cannot be split to fit this config
  }

  nlohmann::json json;
  json["network"] = network.name;
  json["config"] = config.name;
  json["double_buffer"] = copts.double_buffer;
  json["chain_on_chip"] = copts.chain_on_chip;
  json["descriptors"] = program.descriptors.size();
  json["q_base"] = program.q_base;
  nlohmann::json launches = nlohmann::json::array();
  for (const compiler::Launch& l : program.launches) {
    launches.push_back({{"first", l.first},
                        {"count", l.count},
                        {"q_base", program.q_base + l.first * golden::kDescriptorBytes}});
  }
  json["launches"] = launches;
  json["ext_bytes"] = program.ext_bytes;
  json["loads"] = program.loads;
  json["stores"] = program.stores;
  json["gemms"] = program.gemms;
  json["moves"] = program.moves;
  json["eltwises"] = program.eltwises;
  json["bytes_loaded"] = program.bytes_loaded;
  json["bytes_stored"] = program.bytes_stored;
  // ELTWISE only where there is one (residual adds), so that other summaries read as before.
  std::string human = fmt::format(
      "{} on {}: {} descriptors ({} LOAD, {} GEMM, {} MOVE, {}{} STORE), {} bytes loaded, {} "
      "stored; double buffering {}, chaining {}\n",
      network.name, arch::DescribeArchConfig(config), program.descriptors.size(), program.loads,
      program.gemms, program.moves,
      program.eltwises ? fmt::format("{} ELTWISE, ", program.eltwises) : "", program.stores,
      program.bytes_loaded, program.bytes_stored, copts.double_buffer ? "on" : "off",
      copts.chain_on_chip ? "on" : "off");
  nlohmann::json layers = nlohmann::json::array();
  for (size_t i = 0; i < program.layers.size(); ++i) {
    const compiler::LayerPlan& p = program.layers[i];
    const compiler::GemmLayer& l = network.layers[i];  // one plan per layer, in order
    const bool tpu = l.requant == golden::RequantForm::kTpuMlir && !l.out_int32;
    layers.push_back(
        {{"name", p.name},
         {"requant", l.out_int32 ? nlohmann::json(nullptr)
                                 : nlohmann::json(golden::RequantFormName(l.requant))},
         {"steps", p.steps},
         {"a_panels_per_chunk", p.a_panels_per_chunk},
         {"b_panels_per_chunk", p.b_panels_per_chunk},
         {"a_chunks", p.a_chunks},
         {"b_chunks", p.b_chunks},
         {"a_resident", p.a_resident},
         {"b_resident", p.b_resident},
         {"input_on_chip", p.input_on_chip},
         {"output_on_chip", p.output_on_chip},
         {"residual_from",
          p.residual_from.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.residual_from)},
         {"activation_unit",
          p.activation_unit.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.activation_unit)},
         {"slots", {{"a", p.a_slots}, {"b", p.b_slots}, {"out", p.out_slots}}},
         {"double_buffer", copts.double_buffer && p.single_buffered_because.empty()},
         {"single_buffered_because", p.single_buffered_because.empty()
                                         ? nlohmann::json(nullptr)
                                         : nlohmann::json(p.single_buffered_because)}});
    human += fmt::format(
        "  layer {}: {} GEMM commands ({} A chunks of {} panels{}, {} B chunks of {} panels{}); "
        "{}{}{}input {}, output {}\n",
        p.name, p.steps, p.a_chunks, p.a_panels_per_chunk, p.a_resident ? ", resident" : "",
        p.b_chunks, p.b_panels_per_chunk, p.b_resident ? ", resident" : "",
        !tpu ? ""
        : l.per_channel
            ? fmt::format("requant tpu-mlir ({}-bit multipliers and rshifts per channel, {}); ",
                          l.mult_bits, golden::tpu_mlir::RoundingName(l.rshift_rounding))
            : fmt::format("requant tpu-mlir ({}-bit multiplier {}, rshift {}, {}); ", l.mult_bits,
                          l.mult, l.shift, golden::tpu_mlir::RoundingName(l.rshift_rounding)),
        p.residual_from.empty() ? "" : fmt::format("plus {}'s output (ELTWISE); ", p.residual_from),
        p.activation_unit == "slope" ? "activation on the slope stage (a SET, no table); "
        : p.activation_unit == "lut" ? "activation by table (LUT); "
                                     : "",
        p.input_on_chip ? "on chip" : "from external memory",
        p.output_on_chip ? "kept on chip (MOVE)" : "to external memory");
    if (!p.single_buffered_because.empty()) {
      // The compiler's message names the layer; the line above already does.
      const std::string prefix = fmt::format("layer '{}': ", p.name);
      const std::string& why = p.single_buffered_because;
      human += fmt::format(
          "    double buffering off for this layer: it fits only with one slot "
          "per operand ({})\n",
          why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : why);
    }
  }
  json["layers"] = layers;
  nlohmann::json tensors = nlohmann::json::array();
  human += "  external memory:\n";
  for (const compiler::TensorPlacement& t : program.tensors) {
    tensors.push_back({{"name", t.name},
                       {"kind", KindName(t.kind)},
                       {"layout", LayoutName(t.layout)},
                       {"rows", t.rows},
                       {"cols", t.cols},
                       {"element_bytes", t.element_bytes},
                       {"addr", t.addr},
                       {"pitch", t.pitch},
                       {"panel", t.panel},
                       {"bytes", t.bytes}});
    human += fmt::format("    0x{:08x} {:>10} bytes  {} ({}, {} x {}, {})\n", t.addr, t.bytes,
                         t.name, KindName(t.kind), t.rows, t.cols, LayoutName(t.layout));
  }
  human += fmt::format("    0x{:08x} {:>10} bytes  program ({} descriptors)\n", program.q_base,
                       program.descriptors.size() * golden::kDescriptorBytes,
                       program.descriptors.size());
  if (program.launches.size() > 1) {
    // Longer than Q_COUNT holds: the host runs it in several launches (data_movement.md 14.4).
    human += fmt::format("  launches: {} (at most {} descriptors each; {} cycles per relaunch)\n",
                         program.launches.size(), arch::kMaxQCount, arch::kRelaunchCycles);
    for (const compiler::Launch& l : program.launches) {
      human += fmt::format("    Q_BASE 0x{:08x} Q_COUNT {:>5}  descriptors {}..{}\n",
                           program.q_base + l.first * golden::kDescriptorBytes, l.count, l.first,
                           l.first + l.count - 1);
    }
  }
  json["tensors"] = tensors;

  bool pass = true;
  const golden::AccelGeometry geometry = compiler::GeometryOf(config);
  std::optional<compiler::RandomValues> values;
  std::optional<golden::MachineState> inputs;
  if (o.check || o.timing) {
    values = compiler::MakeRandomValues(network, seed);
    inputs.emplace(geometry, program.ext_bytes);
    compiler::WriteInputs(program, network, values->x, values->layers, *inputs);
  }
  std::vector<int32_t> want;
  if (o.check) want = compiler::ReferenceOutput(network, values->x, values->layers);
  std::optional<golden::MachineState> golden_after;
  if (o.check) {
    golden::MachineState& state = golden_after.emplace(*inputs);
    const auto races = compiler::RaceCheckLaunches(geometry, program.descriptors, program.q_base,
                                                   program.launches);
    const compiler::LaunchesResult result =
        compiler::RunLaunches(geometry, program.q_base, program.launches, state);
    const std::vector<int32_t> got = compiler::ReadOutput(program, network, state);
    int64_t mismatches = 0;
    for (size_t i = 0; i < got.size(); ++i) mismatches += got[i] != want[i];
    pass = result.error == golden::ProgramError::kNone && races.empty() && mismatches == 0;
    json["check"] = {{"seed", seed},
                     {"pass", pass},
                     {"error", golden::ProgramErrorName(result.error)},
                     {"error_index", result.error_index},
                     {"retired", result.retired},
                     {"launches_run", result.launches_run},
                     {"races", races.size()},
                     {"mismatches", mismatches}};
    human += fmt::format(
        "golden check (seed {}): {}: {} of {} descriptors retired, error {}, {} races, {} of {} "
        "output elements differ from the layers computed on whole matrices\n",
        seed, pass ? "PASS" : "FAIL", result.retired, program.descriptors.size(),
        golden::ProgramErrorName(result.error), races.size(), mismatches, got.size());
  }
  if (o.timing) {
    const TimingRun run = RunTiming(config, program, *inputs, latency, interval);
    const model::ProgramPerf& p = run.result.perf;
    const uint64_t d = uint64_t(config.mem_data_bytes);
    const uint64_t compute_only = p.compute_busy - p.overlap, dma_only = p.dma_busy - p.overlap;
    const uint64_t idle = p.cycles - compute_only - dma_only - p.overlap;
    const uint64_t mac_busy = p.Busy(arch::BeatUnit::kMac);
    const bool ran = run.result.error == model::ProgramError::kNone &&
                     run.result.retired == program.descriptors.size();
    nlohmann::json t = {{"mem_latency", latency},
                        {"mem_interval", interval},
                        {"data_bytes", d},
                        {"bandwidth_bytes_per_cycle", double(d) / interval},
                        {"error", model::ProgramErrorName(run.result.error)},
                        {"retired", run.result.retired},
                        {"cycles", p.cycles},
                        {"mac_utilization", p.cycles ? double(mac_busy) / double(p.cycles) : 0.0},
                        {"compute_busy", p.compute_busy},
                        {"dma_busy", p.dma_busy},
                        {"overlap", p.overlap},
                        {"compute_only", compute_only},
                        {"dma_only", dma_only},
                        {"idle", idle},
                        {"dma_wait", p.dma_wait},
                        {"compute_wait", p.compute_wait},
                        {"port_stall", p.port_stall},
                        {"rd_beats", p.rd_beats},
                        {"wr_beats", p.wr_beats},
                        {"read_bytes", p.rd_beats * d},
                        {"write_bytes", p.wr_beats * d},
                        {"launches", program.launches.size()},
                        {"relaunch_cycles", (program.launches.size() - 1) * arch::kRelaunchCycles},
                        {"wall_seconds", run.wall_seconds}};
    for (const arch::BeatUnitInfo& unit : arch::kBeatUnits) t[unit.busy] = p.Busy(unit.beat);
    human += fmt::format(
        "timing (model; memory latency {}, interval {}: {:.3g} bytes/cycle each way): {} cycles, "
        "MAC utilization {:.2f} % ({} MAC-busy cycles); {}\n"
        "  compute busy {} ({:.1f} %), DMA busy {} ({:.1f} %), overlap {}; compute only {}, DMA "
        "only {}, idle {}\n"
        "  token waits: DMA {}, compute {}; SRAM port stalls {}; read {} bytes ({} beats, "
        "descriptors included), written {} bytes ({} beats); model run {:.3f} s\n",
        latency, interval, double(d) / interval, p.cycles, Percent(mac_busy, p.cycles), mac_busy,
        ran ? "all descriptors retired"
            : fmt::format("error {} at descriptor {}, {} retired",
                          model::ProgramErrorName(run.result.error), run.result.error_index,
                          run.result.retired),
        p.compute_busy, Percent(p.compute_busy, p.cycles), p.dma_busy,
        Percent(p.dma_busy, p.cycles), p.overlap, compute_only, dma_only, idle, p.dma_wait,
        p.compute_wait, p.port_stall, p.rd_beats * d, p.rd_beats, p.wr_beats * d, p.wr_beats,
        run.wall_seconds);
    if (program.launches.size() > 1) {
      human += fmt::format(
          "  {} launches: the cycles include {} relaunches of {} cycles (the host "
          "driver between launches, data_movement.md 14.4)\n",
          program.launches.size(), program.launches.size() - 1, arch::kRelaunchCycles);
    }
    pass = pass && ran;
    if (o.check) {
      // The model's external memory against the golden executor's (all of it) and its output
      // against the layers computed on whole matrices.
      golden::MachineState after(geometry, program.ext_bytes);
      after.ext = run.ext;
      const std::vector<int32_t> got = compiler::ReadOutput(program, network, after);
      int64_t mismatches = 0;
      for (size_t i = 0; i < got.size(); ++i) mismatches += got[i] != want[i];
      const bool same_memory = run.ext == golden_after->ext;
      const bool model_pass = ran && mismatches == 0 && same_memory;
      pass = pass && model_pass;
      t["check"] = {
          {"pass", model_pass}, {"mismatches", mismatches}, {"ext_equals_golden", same_memory}};
      human += fmt::format(
          "model check: {}: {} of {} output elements differ from the layers computed on whole "
          "matrices; external memory {} golden's\n",
          model_pass ? "PASS" : "FAIL", mismatches, got.size(),
          same_memory ? "equals" : "differs from");
    }
    json["timing"] = t;
  }
  if (!o.program_path.empty()) WriteFileAtomically(o.program_path, ProgramBytes(program));
  progress.Done();
  Emit(o.output, human, json);
  if (!pass) std::exit(1);
}

}  // namespace

void RegisterCompileCommand(CLI::App& app) {
  auto options = std::make_shared<CompileCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compile",
      "Lower a chain of GEMM layers into a program of DMA and compute descriptors "
      "(docs/data_movement.md 16)");
  cmd->add_option("network", options->network_path,
                  "Network JSON (docs/compiler.md): {\"layers\": [{\"name\", \"m\", \"n\", "
                  "\"k\", ...}]}")
      ->check(kNonEmpty);
  AddGemmOption(cmd, &options->gemm, "One GEMM layer instead of a network file");
  cmd->add_option("--config", options->config_path, "Architecture config JSON")
      ->check(kNonEmpty)
      ->capture_default_str();
  cmd->add_flag("--no-double-buffer", options->no_double_buffer,
                "One slot per operand: no overlap of DMA and compute");
  cmd->add_flag("--no-chain", options->no_chain, "Send every intermediate through external memory");
  cmd->add_option("--program", options->program_path,
                  "Write the descriptors (64 bytes each, little endian) to this file")
      ->check(kNonEmpty);
  cmd->add_flag("--check", options->check,
                "Run the program on the golden executor with random values and compare with the "
                "layers computed on whole matrices");
  cmd->add_flag("--timing", options->timing,
                "Run the program on the cycle-level model (random values as --check) and report "
                "its cycles, MAC utilization and DMA counters");
  options->mem_latency_option =
      cmd->add_option("--mem-latency", options->mem_latency,
                      "With --timing: external memory latency in cycles, 1..1024 (default: the "
                      "config's ext_mem.latency)");
  options->mem_interval_option =
      cmd->add_option("--mem-interval", options->mem_interval,
                      "With --timing: cycles per memory beat, 1..64 (bandwidth data_bytes / "
                      "interval; default: the config's ext_mem.interval)");
  cmd->add_option("--max-launch", options->max_launch,
                  "At most N descriptors per launch (Q_COUNT); a longer program runs as several "
                  "launches (data_movement.md 14.4)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{arch::kMaxQCount}));
  cmd->add_option(
         "--seed", options->seed_text,
         std::string("With --check or --timing: seed of their random values, ") + kSeedRange)
      ->capture_default_str();
  AddOutputOptions(cmd, &options->output);
  cmd->callback([options, cmd]() {
    options->seed_given = cmd->count("--seed") > 0;
    RunCompile(*options);
  });
}

}  // namespace qacc::cli
