#include "sim/testgen/compiled_program.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "golden/program.h"
#include "sim/compiler/ext_image.h"
#include "sim/compiler/reference.h"

namespace qacc::sim {

Program CompiledNetworkProgram(const arch::ArchConfig& config, const compiler::Network& network,
                               const compiler::CompileOptions& options, uint64_t seed) {
  const compiler::CompiledProgram compiled = compiler::Compile(config, network, options);
  if (uint64_t{compiled.ext_bytes} > config.ext_mem_size_bytes) {
    throw std::invalid_argument(fmt::format(
        "network '{}' needs {} bytes of external memory; the config's ext_mem.size_bytes is {}",
        network.name, compiled.ext_bytes, config.ext_mem_size_bytes));
  }
  const golden::AccelGeometry geometry = compiler::GeometryOf(config);
  const compiler::RandomValues values = compiler::MakeRandomValues(network, seed);
  golden::MachineState state(geometry, compiled.ext_bytes);
  compiler::WriteInputs(compiled, network, values.x, values.layers, state);
  std::vector<uint8_t> image = state.ext;

  // Golden against the layers on whole matrices: the last link of the chain a lockstep run checks.
  const auto count = uint32_t(compiled.descriptors.size());
  const golden::ProgramResult result = golden::RunQueue(geometry, compiled.q_base, count, state);
  const std::vector<int32_t> want = compiler::ReferenceOutput(network, values.x, values.layers);
  if (result.error != golden::ProgramError::kNone ||
      compiler::ReadOutput(compiled, network, state) != want) {
    throw std::logic_error(fmt::format(
        "network '{}' (seed {}): the golden executor's run of the compiled program ({}) differs "
        "from the layers computed on whole matrices",
        network.name, seed, golden::ProgramErrorName(result.error)));
  }

  ProgramBuilder builder(config);
  builder.WriteExt(0, std::move(image));
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
