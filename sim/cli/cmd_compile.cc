// qacc compile: lowers a chain of GEMM layers into a program of LOAD, GEMM, MOVE and STORE
// descriptors for a config (docs/data_movement.md 16), prints the plan, writes the program, and
// with --check runs it on the golden executor with random values against the layers computed on
// whole matrices.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "golden/program.h"
#include "model/arch.h"
#include "sim/cli/commands.h"
#include "sim/cli/common.h"
#include "sim/compiler/compiler.h"
#include "sim/compiler/ext_image.h"
#include "sim/compiler/reference.h"

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
  std::string seed_text = "1";
  OutputOptions output;
};

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
    case Kind::kIntermediate:
      return "intermediate";
    case Kind::kOutput:
      return "output";
  }
  return "?";
}

const char* LayoutName(compiler::TensorPlacement::Layout layout) {
  using Layout = compiler::TensorPlacement::Layout;
  switch (layout) {
    case Layout::kKMajor:
      return "k-major";
    case Layout::kRowMajor:
      return "row-major";
    case Layout::kPackedWords:
      return "packed";
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
    compiler::Network net;
    compiler::GemmLayer l;
    l.m = o.gemm[0];
    l.n = o.gemm[1];
    l.k = o.gemm[2];
    l.shift = -10;  // a scale of 2^-11: int8 outputs that are neither all 0 nor all saturated
    net.name = fmt::format("gemm_{}x{}x{}", l.m, l.n, l.k);
    net.layers.push_back(l);
    try {
      compiler::ValidateNetwork(net);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--gemm: {}", e.what()));
    }
    return net;
  }
  std::ifstream in(o.network_path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("NETWORK: cannot read {}", o.network_path));
  std::stringstream text;
  text << in.rdbuf();
  return compiler::ParseNetwork(text.str(), o.network_path);
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
  arch::ArchConfig config;
  try {
    config = arch::LoadArchConfig(o.config_path);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--config: {}", e.what()));
  }
  const uint64_t seed = ParseSeed(o.seed_text, "--seed");
  if (!o.program_path.empty()) CheckOutputPath(o.program_path, "--program");
  if (!o.output.output_path.empty() && o.output.output_path != "-") {
    CheckOutputPath(o.output.output_path, "--output");
  }
  const compiler::Network network = LoadNetwork(o);
  compiler::CompileOptions copts;
  copts.double_buffer = !o.no_double_buffer;
  copts.chain_on_chip = !o.no_chain;
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
  json["ext_bytes"] = program.ext_bytes;
  json["loads"] = program.loads;
  json["stores"] = program.stores;
  json["gemms"] = program.gemms;
  json["moves"] = program.moves;
  json["bytes_loaded"] = program.bytes_loaded;
  json["bytes_stored"] = program.bytes_stored;
  std::string human = fmt::format(
      "{} on {}: {} descriptors ({} LOAD, {} GEMM, {} MOVE, {} STORE), {} bytes loaded, {} "
      "stored; double buffering {}, chaining {}\n",
      network.name, arch::DescribeArchConfig(config), program.descriptors.size(), program.loads,
      program.gemms, program.moves, program.stores, program.bytes_loaded, program.bytes_stored,
      copts.double_buffer ? "on" : "off", copts.chain_on_chip ? "on" : "off");
  nlohmann::json layers = nlohmann::json::array();
  for (const compiler::LayerPlan& p : program.layers) {
    layers.push_back({{"name", p.name},
                      {"steps", p.steps},
                      {"a_panels_per_chunk", p.a_panels_per_chunk},
                      {"b_panels_per_chunk", p.b_panels_per_chunk},
                      {"a_chunks", p.a_chunks},
                      {"b_chunks", p.b_chunks},
                      {"a_resident", p.a_resident},
                      {"b_resident", p.b_resident},
                      {"input_on_chip", p.input_on_chip},
                      {"output_on_chip", p.output_on_chip},
                      {"slots", {{"a", p.a_slots}, {"b", p.b_slots}, {"out", p.out_slots}}}});
    human += fmt::format(
        "  layer {}: {} GEMM commands ({} A chunks of {} panels{}, {} B chunks of {} panels{}); "
        "input {}, output {}\n",
        p.name, p.steps, p.a_chunks, p.a_panels_per_chunk, p.a_resident ? ", resident" : "",
        p.b_chunks, p.b_panels_per_chunk, p.b_resident ? ", resident" : "",
        p.input_on_chip ? "on chip" : "from external memory",
        p.output_on_chip ? "kept on chip (MOVE)" : "to external memory");
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
                       {"bytes", t.bytes}});
    human += fmt::format("    0x{:08x} {:>10} bytes  {} ({}, {} x {}, {})\n", t.addr, t.bytes,
                         t.name, KindName(t.kind), t.rows, t.cols, LayoutName(t.layout));
  }
  human += fmt::format("    0x{:08x} {:>10} bytes  program ({} descriptors)\n", program.q_base,
                       program.descriptors.size() * golden::kDescriptorBytes,
                       program.descriptors.size());
  json["tensors"] = tensors;

  bool pass = true;
  if (o.check) {
    const golden::AccelGeometry geometry = compiler::GeometryOf(config);
    golden::MachineState state(geometry, program.ext_bytes);
    const compiler::RandomValues values = compiler::MakeRandomValues(network, seed);
    compiler::WriteInputs(program, network, values.x, values.layers, state);
    const auto races = golden::RaceCheck(geometry, program.descriptors, program.q_base);
    const golden::ProgramResult result =
        golden::RunQueue(geometry, program.q_base, uint32_t(program.descriptors.size()), state);
    const std::vector<int32_t> got = compiler::ReadOutput(program, network, state);
    const std::vector<int32_t> want = compiler::ReferenceOutput(network, values.x, values.layers);
    int64_t mismatches = 0;
    for (size_t i = 0; i < got.size(); ++i) mismatches += got[i] != want[i];
    pass = result.error == golden::ProgramError::kNone && races.empty() && mismatches == 0;
    json["check"] = {{"seed", seed},
                     {"pass", pass},
                     {"error", golden::ProgramErrorName(result.error)},
                     {"error_index", result.error_index},
                     {"retired", result.retired},
                     {"races", races.size()},
                     {"mismatches", mismatches}};
    human += fmt::format(
        "golden check (seed {}): {}: {} of {} descriptors retired, error {}, {} races, {} of {} "
        "output elements differ from the layers computed on whole matrices\n",
        seed, pass ? "PASS" : "FAIL", result.retired, program.descriptors.size(),
        golden::ProgramErrorName(result.error), races.size(), mismatches, got.size());
  }
  if (!o.program_path.empty()) WriteFileAtomically(o.program_path, ProgramBytes(program));
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
                  "Network JSON: {\"layers\": [{\"name\", \"m\", \"n\", \"k\", ...}]}")
      ->check(kNonEmpty);
  cmd->add_option("--gemm", options->gemm, "One GEMM layer M,N,K instead of a network file")
      ->delimiter(',')
      ->expected(3)
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--config", options->config_path, "Architecture config JSON")->check(kNonEmpty);
  cmd->add_flag("--no-double-buffer", options->no_double_buffer,
                "One slot per operand: no overlap of DMA and compute");
  cmd->add_flag("--no-chain", options->no_chain, "Send every intermediate through external memory");
  cmd->add_option("--program", options->program_path,
                  "Write the descriptors (64 bytes each, little endian) to this file")
      ->check(kNonEmpty);
  cmd->add_flag("--check", options->check,
                "Run the program on the golden executor with random values and compare with the "
                "layers computed on whole matrices");
  cmd->add_option("--seed", options->seed_text,
                  std::string("Seed of the --check values, ") + kSeedRange);
  AddOutputOptions(cmd, &options->output);
  cmd->callback([options]() { RunCompile(*options); });
}

}  // namespace qacc::cli
