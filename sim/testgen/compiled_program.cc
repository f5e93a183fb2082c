#include "sim/testgen/compiled_program.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "golden/program.h"
#include "sim/compiler/ext_image.h"

namespace qacc::sim {

CheckedProgram CompileChecked(const arch::ArchConfig& config, const compiler::Network& network,
                              const compiler::CompileOptions& options,
                              const compiler::RandomValues& values,
                              const std::vector<int32_t>& reference) {
  CheckedProgram out{compiler::Compile(config, network, options), {}};
  const compiler::CompiledProgram& compiled = out.compiled;
  if (uint64_t{compiled.ext_bytes} > config.ext_mem_size_bytes) {
    throw std::invalid_argument(fmt::format(
        "network '{}' needs {} bytes of external memory; the config's ext_mem.size_bytes is {}",
        network.name, compiled.ext_bytes, config.ext_mem_size_bytes));
  }
  const golden::AccelGeometry geometry = compiler::GeometryOf(config);
  if (!golden::RaceCheck(geometry, compiled.descriptors, compiled.q_base).empty()) {
    throw std::logic_error(
        fmt::format("network '{}': the compiled program has a data race (14.2)", network.name));
  }
  golden::MachineState state(geometry, compiled.ext_bytes);
  compiler::WriteInputs(compiled, network, values.x, values.layers, state);
  out.image = state.ext.Bytes(0, state.ext.size());

  // Golden against the layers on whole matrices: the last link of the chain a lockstep run checks.
  const auto count = uint32_t(compiled.descriptors.size());
  const golden::ProgramResult result = golden::RunQueue(geometry, compiled.q_base, count, state);
  if (result.error != golden::ProgramError::kNone ||
      compiler::ReadOutput(compiled, network, state) != reference) {
    throw std::logic_error(fmt::format(
        "network '{}': the golden executor's run of the compiled program ({}) differs from the "
        "layers computed on whole matrices",
        network.name, golden::ProgramErrorName(result.error)));
  }
  return out;
}

Program CompiledNetworkProgram(const arch::ArchConfig& config, const compiler::Network& network,
                               const compiler::CompileOptions& options, uint64_t seed) {
  const compiler::RandomValues values = compiler::MakeRandomValues(network, seed);
  CheckedProgram p = CompileChecked(config, network, options, values,
                                    compiler::ReferenceOutput(network, values.x, values.layers));
  const compiler::CompiledProgram& compiled = p.compiled;
  const auto count = uint32_t(compiled.descriptors.size());
  ProgramBuilder builder(config);
  builder.WriteExt(0, std::move(p.image));
  builder.RunAndCheck(
      compiled.q_base, count, arch::ErrCode::kNone,
      fmt::format("program '{}': {} descriptors ({} LOAD, {} GEMM, {} MOVE, {} STORE); double "
                  "buffering {}, chaining {}",
                  network.name, count, compiled.loads, compiled.gemms, compiled.moves,
                  compiled.stores, options.double_buffer ? "on" : "off",
                  options.chain_on_chip ? "on" : "off"),
      /*irq_enable=*/true);
  return builder.Take();
}

}  // namespace qacc::sim
